// src/helm/release.ts: Helm release Secrets decoded as Helm's decodeRelease does (pkg/storage/driver/util.go:
// base64, gzip when the magic header is there, JSON), and the revision a gate follows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeHelmRelease, HelmReleaseError, revisionToGate } from '../../../src/helm/release';
import { helmReleaseSecret } from '../../helpers/helm-release';

const MANIFEST = '---\n# Source: shop/templates/web.yaml\napiVersion: apps.kruise.io/v1alpha1\nkind: CloneSet\nmetadata:\n  name: web\n';

test('helm release: a Secret as Helm writes it decodes to its name, revision, status, chart and manifest (gzipped, and the uncompressed form decodeRelease still reads)', () => {
  for (const uncompressed of [false, true]) {
    const secret = helmReleaseSecret({ name: 'shop', namespace: 'prod', version: 3, status: 'pending-upgrade', manifest: MANIFEST, chart: { name: 'shop', version: '1.2.0', appVersion: '2.0' }, uncompressed });
    const r = decodeHelmRelease((secret.data as { release: string }).release, 'secret');
    assert.deepEqual(r, { name: 'shop', namespace: 'prod', version: 3, status: 'pending-upgrade', description: 'Release pending-upgrade', chart: { name: 'shop', version: '1.2.0', appVersion: '2.0' }, manifest: MANIFEST });
  }
  assert.equal((helmReleaseSecret({ name: 'shop', namespace: 'prod', version: 3, status: 'deployed', manifest: '' }).metadata as { name: string }).name, 'sh.helm.release.v1.shop.v3');
});

test('helm release: corrupt data is an error naming the Secret, never its content', () => {
  for (const data of ['%%%', Buffer.from('not base64 of gzip').toString('base64'), Buffer.from(Buffer.from('{"version":1}').toString('base64')).toString('base64')]) {
    assert.throws(() => decodeHelmRelease(data, 'secret "sh.helm.release.v1.shop.v1"'), (err: Error) => err instanceof HelmReleaseError && /^secret "sh\.helm\.release\.v1\.shop\.v1": data\.release/.test(err.message));
  }
});

test('helm release: the revision to gate is the newest deployed or pending one; superseded ones are never followed; a failed or uninstalled newest one is an error', () => {
  const rev = (version: number, status: string) => ({ secret: `sh.helm.release.v1.shop.v${version}`, version, status });
  assert.equal(revisionToGate('shop', 'prod', [rev(1, 'superseded'), rev(2, 'deployed')]).version, 2);
  assert.equal(revisionToGate('shop', 'prod', [rev(2, 'superseded'), rev(3, 'pending-upgrade'), rev(1, 'superseded')]).version, 3);
  assert.equal(revisionToGate('shop', 'prod', [rev(4, 'pending-rollback'), rev(3, 'failed'), rev(2, 'superseded')]).version, 4);
  assert.equal(revisionToGate('shop', 'prod', [rev(1, 'pending-install')]).version, 1);
  assert.throws(() => revisionToGate('shop', 'prod', [rev(2, 'failed'), rev(1, 'superseded')]), /latest revision 2 is failed, not deployed or pending/);
  assert.throws(() => revisionToGate('shop', 'prod', [rev(1, 'uninstalled')]), /latest revision 1 is uninstalled/);
  assert.throws(() => revisionToGate('shop', 'prod', [rev(1, 'superseded')]), /has only superseded revisions \(1\)/);
  assert.throws(() => revisionToGate('shop', 'prod', []), /^Error: helm release "shop" not found in namespace "prod"|helm release "shop" not found in namespace "prod"/);
});
