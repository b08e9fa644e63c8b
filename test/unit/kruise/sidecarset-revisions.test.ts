import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/kruise/types';
import { sidecarSetHistory, sidecarSetUndo } from '../../../src/kruise/sidecarset-revisions';
import { readSidecarSet } from '../../../src/kruise/workloads/sidecarset';
import { crdSchema, servedVersions, validate } from './builders/crd-schema';

const SS: KubeObject = {
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'SidecarSet',
  metadata: { name: 'log', resourceVersion: '42', annotations: { 'kruise.io/sidecarset-hash': 'h2' } },
  spec: {
    selector: { matchLabels: { logging: 'on' } },
    containers: [{ name: 'logger', image: 'fluent-bit:3.1' }],
    volumes: [{ name: 'logs', emptyDir: {} }],
    updateStrategy: { partition: 2 },
  },
};

const rev = (n: number, hash: string, spec: Record<string, unknown>, owner = 'log'): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: { name: `${owner}-${hash}`, namespace: 'kruise-system', labels: { 'kruise.io/sidecarset-name': owner }, annotations: { 'kruise.io/sidecarset-hash': hash } },
    revision: n,
    data: { spec: { $patch: 'replace', ...spec } },
  }) as KubeObject;

const REVS = [
  rev(2, 'h2', { containers: [{ name: 'logger', image: 'fluent-bit:3.1' }], volumes: [{ name: 'logs', emptyDir: {} }] }),
  rev(1, 'h1', { containers: [{ name: 'logger', image: 'fluent-bit:3.0' }] }),
  rev(7, 'x', { containers: [{ name: 'other', image: 'x' }] }, 'other-set'),
];

test('history: this SidecarSet\'s revisions, oldest first, the current one by hash', () => {
  const rows = sidecarSetHistory(readSidecarSet(SS), REVS, []);
  assert.deepEqual(rows.map((r) => [r.revision, r.images, r.current]), [[1, ['logger=fluent-bit:3.0'], false], [2, ['logger=fluent-bit:3.1'], true]]);
});

test('undo: restores the previous revision\'s fields whole (absent fields removed), guarded by resourceVersion; result validates on every CRD', () => {
  const d = sidecarSetUndo(SS, readSidecarSet(SS), REVS);
  assert.ok(d.ok);
  assert.equal(d.to.revision, 1);
  assert.deepEqual(d.patch, {
    metadata: { resourceVersion: '42' },
    spec: { containers: [{ name: 'logger', image: 'fluent-bit:3.0' }], initContainers: null, volumes: null, imagePullSecrets: null, patchPodMetadata: null },
  });
  // The object after the merge patch (nulls delete) must be valid for the API server.
  const spec = { ...(SS.spec as Record<string, unknown>) };
  for (const [k, v] of Object.entries(d.patch.spec as Record<string, unknown>)) if (v === null) delete spec[k]; else spec[k] = v;
  for (const release of ['v1.3.0', 'v1.9.0', 'master']) {
    for (const version of servedVersions(release, 'sidecarsets')) {
      assert.deepEqual(validate(crdSchema(release, 'sidecarsets', version)!, { ...SS, apiVersion: `apps.kruise.io/${version}`, spec }), [], `${release} ${version}`);
    }
  }
});

test('undo: unknown revision is bad input; the current revision or no earlier one is nothing to do', () => {
  const view = readSidecarSet(SS);
  assert.deepEqual(sidecarSetUndo(SS, view, REVS, 9), { ok: false, usage: true, reason: 'unable to find the specified revision 9 of sidecarset "log" (revisions: 1, 2)' });
  assert.deepEqual(sidecarSetUndo(SS, view, REVS, 2), { ok: false, usage: false, reason: 'sidecarset "log" already runs revision 2: skipped rollback' });
  assert.deepEqual(sidecarSetUndo(SS, view, [REVS[0]!]), { ok: false, usage: false, reason: 'sidecarset "log" has no previous revision to roll back to' });
});
