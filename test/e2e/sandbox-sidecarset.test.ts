// SidecarSet in the sandbox, driven by real kubectl against the real Kruise CRDs (v1.3.0 with a
// v1alpha1 SidecarSet, v1.9.0 and master with v1beta1; every write is schema-validated):
// injection into new pods of a CloneSet and a Deployment (not into an unmatched pod), in-place
// sidecar upgrade with partition 2 / maxUnavailable 1 (same pod UIDs, restartCount + 1, the 2
// partitioned pods untouched), status counts, ControllerRevisions, pause midway and resume.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, REPO_ROOT } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const FIX = (n: string) => join(REPO_ROOT, 'test/fixtures/sidecarset', n);
const CRDS = '/work/shared/kruise-crds';

const RELEASES = [
  { dir: 'v1.9.0', kruise: 'v1.9', fixture: 'log-v1beta1.yaml' },
  { dir: 'v1.3.0', kruise: 'v1.3', fixture: 'log-v1alpha1.yaml' },
  { dir: 'master', kruise: 'master', fixture: 'log-v1beta1.yaml' },
];

interface PodJson {
  metadata: { name: string; uid: string; labels: Record<string, string>; annotations?: Record<string, string> };
  spec: { containers: Array<{ name: string; image: string; args?: string[]; env?: Array<{ name: string; value?: string }> }>; initContainers?: Array<{ name: string }>; volumes?: Array<{ name: string }> };
  status?: { containerStatuses?: Array<{ name: string; restartCount: number; ready: boolean }>; conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
}
const upgradable = (p: PodJson) => p.status?.conditions?.find((c) => c.type === 'SidecarSetUpgradable');

async function ok(sb: Sandbox, args: string[]): Promise<string> {
  const r = await kubectl(args, sb.kubeconfig);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const getJson = async (sb: Sandbox, args: string[]) => JSON.parse(await ok(sb, ['get', ...args, '-o', 'json']));
const sidecarPods = async (sb: Sandbox): Promise<PodJson[]> => (await getJson(sb, ['pods', '-l', 'sidecar=log'])).items;
const logger = (p: PodJson) => p.spec.containers.find((c) => c.name === 'logger');
const loggerRestarts = (p: PodJson) => p.status?.containerStatuses?.find((c) => c.name === 'logger')?.restartCount ?? -1;

interface SsStatus { observedGeneration?: number; matchedPods?: number; updatedPods?: number; readyPods?: number; updatedReadyPods?: number; latestRevision?: string }
async function sidecarSet(sb: Sandbox): Promise<{ metadata: { generation: number; annotations: Record<string, string> }; status: SsStatus }> {
  return getJson(sb, ['sidecarsets.apps.kruise.io', 'log']);
}
/** The status once the controller has seen the current spec and `check` holds. */
async function statusWhen(sb: Sandbox, what: string, check: (s: SsStatus) => boolean, timeoutMs = 30_000): Promise<SsStatus> {
  return waitUntil(what, async () => {
    const o = await sidecarSet(sb);
    return o.status?.observedGeneration === o.metadata.generation && check(o.status) ? o.status : undefined;
  }, timeoutMs);
}
const setImage = (sb: Sandbox, image: string) =>
  ok(sb, ['patch', 'sidecarsets.apps.kruise.io', 'log', '--type', 'json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/containers/0/image', value: image }])]);
const setPaused = (sb: Sandbox, paused: boolean) =>
  ok(sb, ['patch', 'sidecarsets.apps.kruise.io', 'log', '--type', 'merge', '-p', JSON.stringify({ spec: { updateStrategy: { paused } } })]);

for (const rel of RELEASES) {
  test(`SidecarSet on the ${rel.dir} CRDs: injection, in-place upgrade with partition 2 / maxUnavailable 1, pause midway`, { skip: !existsSync(join(CRDS, rel.dir)) }, async () => {
    const sb = await startSandbox({ kruise: rel.kruise, crds: join(CRDS, rel.dir), readyDelay: '400ms' });
    try {
      await ok(sb, ['apply', '-f', FIX(rel.fixture)]);
      const created = await sidecarSet(sb);
      assert.ok(created.metadata.annotations['kruise.io/sidecarset-hash'], 'the SidecarSet webhook writes its hash');
      await ok(sb, ['apply', '-f', FIX('workloads.yaml')]);

      // Injection at creation: every matched pod gets the sidecar, its init container and its volume.
      const s0 = await statusWhen(sb, '6 matched and ready', (s) => s.matchedPods === 6 && s.readyPods === 6 && s.updatedPods === 6);
      assert.equal(s0.updatedReadyPods, 6);
      const before = await sidecarPods(sb);
      assert.equal(before.length, 6);
      for (const p of before) {
        assert.equal(logger(p)?.image, 'fluent-bit:3.0', p.metadata.name);
        assert.deepEqual(logger(p)?.env, [{ name: 'IS_INJECTED', value: 'true' }]);
        assert.equal(p.spec.containers[0].name, 'main', 'AfterAppContainer');
        assert.ok(p.spec.initContainers?.some((c) => c.name === 'log-init'));
        assert.ok(p.spec.volumes?.some((v) => v.name === 'logs'));
        assert.equal(p.metadata.annotations?.['kruise.io/sidecarset-injected-list'], 'log');
      }
      const plain = (await getJson(sb, ['pods', '-l', 'app=plain'])).items as PodJson[];
      assert.deepEqual(plain[0].spec.containers.map((c) => c.name), ['main'], 'an unmatched pod gets nothing');

      // Image change: 4 of 6 upgraded in place, 2 kept by the partition.
      const uids = new Map(before.map((p) => [p.metadata.name, p.metadata.uid]));
      const restarts = new Map(before.map((p) => [p.metadata.name, loggerRestarts(p)]));
      await setImage(sb, 'fluent-bit:3.1');
      const s1 = await statusWhen(sb, '4 updated and ready', (s) => s.updatedPods === 4 && s.updatedReadyPods === 4 && s.readyPods === 6);
      assert.equal(s1.matchedPods, 6);
      const after1 = await sidecarPods(sb);
      assert.deepEqual(new Map(after1.map((p) => [p.metadata.name, p.metadata.uid])), uids, 'same pods (names and UIDs): upgraded in place');
      const upgraded = after1.filter((p) => logger(p)?.image === 'fluent-bit:3.1');
      const kept = after1.filter((p) => logger(p)?.image === 'fluent-bit:3.0');
      assert.equal(upgraded.length, 4);
      assert.equal(kept.length, 2);
      for (const p of upgraded) assert.equal(loggerRestarts(p), restarts.get(p.metadata.name)! + 1, `${p.metadata.name} logger restarted once`);
      for (const p of kept) assert.equal(loggerRestarts(p), restarts.get(p.metadata.name), `${p.metadata.name} untouched`);
      for (const p of upgraded) assert.deepEqual({ ...upgradable(p), lastTransitionTime: undefined }, { type: 'SidecarSetUpgradable', status: 'True', reason: 'AllSidecarsetUpgradable', message: '{"log":true}', lastTransitionTime: undefined });
      assert.equal(new Set(upgraded.map((p) => p.spec.containers.find((c) => c.name === 'main')!.image)).size, 2, 'app containers untouched');

      // Pause midway: after the first pod of the next image starts upgrading, nothing further is upgraded.
      await setImage(sb, 'fluent-bit:3.2');
      await waitUntil('first pod upgrading', async () => ((await sidecarSet(sb)).status.updatedPods ?? 0) >= 1 || undefined);
      await setPaused(sb, true);
      const paused = await statusWhen(sb, 'in-flight upgrade done', (s) => s.updatedReadyPods === s.updatedPods && s.readyPods === 6);
      assert.ok(paused.updatedPods! >= 1 && paused.updatedPods! < 4, `paused midway at ${paused.updatedPods} of 4`);
      const atPause = await sidecarPods(sb);
      assert.equal(atPause.filter((p) => logger(p)?.image === 'fluent-bit:3.2').length, paused.updatedPods);
      const again = await sidecarSet(sb);
      assert.equal(again.status.updatedPods, paused.updatedPods, 'still paused');

      await setPaused(sb, false);
      await statusWhen(sb, 'resumed to 4', (s) => s.updatedPods === 4 && s.updatedReadyPods === 4);
      assert.equal((await sidecarPods(sb)).filter((p) => logger(p)?.image === 'fluent-bit:3.2').length, 4);

      // Revisions: one ControllerRevision per image in kruise-system, the latest named in status.
      const revs = (await getJson(sb, ['controllerrevisions', '-n', 'kruise-system', '-l', 'kruise.io/sidecarset-name=log'])).items as Array<{ metadata: { name: string }; revision: number; data: { spec: { containers: Array<{ image: string }> } } }>;
      assert.deepEqual(revs.map((r) => r.data.spec.containers[0].image).sort(), ['fluent-bit:3.0', 'fluent-bit:3.1', 'fluent-bit:3.2']);
      const newest = revs.reduce((a, b) => (a.revision > b.revision ? a : b));
      assert.equal((await sidecarSet(sb)).status.latestRevision, newest.metadata.name);
      assert.equal(newest.data.spec.containers[0].image, 'fluent-bit:3.2');

      // A pod created now gets the current sidecar.
      await ok(sb, ['scale', 'clonesets.apps.kruise.io', 'web', '--replicas', '4']);
      await statusWhen(sb, '7 matched', (s) => s.matchedPods === 7 && s.updatedPods === 5 && s.readyPods === 7);
      const fresh = (await sidecarPods(sb)).filter((p) => !uids.has(p.metadata.name));
      assert.equal(fresh.length, 1);
      assert.equal(logger(fresh[0])?.image, 'fluent-bit:3.2');

      // A change beyond images cannot be made in place: no pod is touched, each is marked not upgradable.
      await ok(sb, ['patch', 'sidecarsets.apps.kruise.io', 'log', '--type', 'json', '-p', JSON.stringify([{ op: 'add', path: '/spec/containers/0/args', value: ['-v'] }])]);
      await statusWhen(sb, 'none updated', (s) => s.matchedPods === 7 && s.updatedPods === 0);
      const marked = await waitUntil('all marked not upgradable', async () => {
        const pods = await sidecarPods(sb);
        return pods.every((p) => upgradable(p)?.status === 'False') ? pods : undefined;
      });
      for (const p of marked) {
        assert.equal(upgradable(p)?.reason, 'UpdateImmutableField');
        assert.equal(upgradable(p)?.message, '{"log":false}');
        assert.equal(logger(p)?.args, undefined, 'not changed in place');
      }
    } finally {
      await sb.stop();
    }
  });
}

test('SidecarSet hot upgrade on the v1.9.0 CRDs: the idle container of the pair takes the new image, then the old one runs the empty image', { skip: !existsSync(join(CRDS, 'v1.9.0')) }, async () => {
  const sb = await startSandbox({ kruise: 'v1.9', crds: join(CRDS, 'v1.9.0'), readyDelay: '200ms' });
  const pair = (p: PodJson) => p.spec.containers.filter((c) => c.name.startsWith('mesh-')).map((c) => `${c.name}=${c.image}`);
  const working = (p: PodJson) => JSON.parse(p.metadata.annotations?.['kruise.io/sidecarset-working-hotupgrade-container'] ?? '{}').mesh;
  const webPods = async (): Promise<PodJson[]> => (await getJson(sb, ['pods', '-l', 'app=web'])).items;
  const meshStatus = async () => (await getJson(sb, ['sidecarsets.apps.kruise.io', 'mesh'])) as { metadata: { generation: number }; status?: SsStatus };
  try {
    await ok(sb, ['apply', '-f', FIX('mesh-hotupgrade.yaml')]);
    await ok(sb, ['apply', '-f', FIX('workloads.yaml')]);
    await waitUntil('3 matched and ready', async () => {
      const s = (await meshStatus()).status;
      return s?.matchedPods === 3 && s.readyPods === 3 || undefined;
    });
    const before = await webPods();
    for (const p of before) {
      assert.deepEqual(pair(p), ['mesh-1=envoy:v1.30', 'mesh-2=envoy-empty:1.0']);
      assert.equal(working(p), 'mesh-1');
    }
    await ok(sb, ['patch', 'sidecarsets.apps.kruise.io', 'mesh', '--type', 'json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/containers/0/image', value: 'envoy:v1.31' }])]);
    const after = await waitUntil('all flipped', async () => {
      const o = await meshStatus();
      if (o.status?.observedGeneration !== o.metadata.generation || o.status.updatedReadyPods !== 3) return undefined;
      const pods = await webPods();
      return pods.every((p) => pair(p).join() === 'mesh-1=envoy-empty:1.0,mesh-2=envoy:v1.31') ? pods : undefined;
    });
    assert.deepEqual(after.map((p) => p.metadata.uid).sort(), before.map((p) => p.metadata.uid).sort(), 'same pods');
    for (const p of after) assert.equal(working(p), 'mesh-2');

    // The validating webhook: no selector, or an upgrade type changed, is refused with 422 and not stored.
    const bad = await kubectl(['apply', '-f', '-'], sb.kubeconfig, {
      input: JSON.stringify({ apiVersion: 'apps.kruise.io/v1beta1', kind: 'SidecarSet', metadata: { name: 'noselector' }, spec: { containers: [{ name: 'x', image: 'busybox:1.36' }] } }),
    });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /spec\.selector: Required value: no selector defined for SidecarSet/);
    assert.equal((await kubectl(['get', 'sidecarsets.apps.kruise.io', 'noselector'], sb.kubeconfig)).code, 1);
    const immutable = await kubectl(['patch', 'sidecarsets.apps.kruise.io', 'mesh', '--type', 'json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/containers/0/upgradeStrategy/upgradeType', value: 'ColdUpgrade' }])], sb.kubeconfig);
    assert.notEqual(immutable.code, 0);
    assert.match(immutable.stderr, /container mesh upgradeType is immutable/);
  } finally {
    await sb.stop();
  }
});

test('SidecarSet injectionStrategy.revision on the v1.9.0 CRDs: new pods get the pinned revision while the update is paused', { skip: !existsSync(join(CRDS, 'v1.9.0')) }, async () => {
  const sb = await startSandbox({ kruise: 'v1.9', crds: join(CRDS, 'v1.9.0'), readyDelay: '100ms' });
  try {
    await ok(sb, ['apply', '-f', FIX('log-v1beta1.yaml')]);
    await ok(sb, ['apply', '-f', FIX('workloads.yaml')]);
    const first = await statusWhen(sb, '6 ready', (s) => s.matchedPods === 6 && s.readyPods === 6 && !!s.latestRevision);
    await ok(sb, ['patch', 'sidecarsets.apps.kruise.io', 'log', '--type', 'merge', '-p', JSON.stringify({
      spec: { updateStrategy: { paused: true }, injectionStrategy: { revision: { revisionName: first.latestRevision } } },
    })]);
    await setImage(sb, 'fluent-bit:3.1');
    await statusWhen(sb, 'new revision, nothing updated', (s) => s.latestRevision !== first.latestRevision && s.updatedPods === 0);
    await ok(sb, ['scale', 'clonesets.apps.kruise.io', 'web', '--replicas', '4']);
    const s = await statusWhen(sb, '7 matched', (x) => x.matchedPods === 7 && x.readyPods === 7);
    assert.equal(s.updatedPods, 0, 'the pinned pod is at the old revision');
    assert.deepEqual([...new Set((await sidecarPods(sb)).map((p) => logger(p)?.image))], ['fluent-bit:3.0']);
    // A pin to a revision that does not exist is refused by the SidecarSet webhook.
    const bad = await kubectl(['patch', 'sidecarsets.apps.kruise.io', 'log', '--type', 'merge', '-p', JSON.stringify({ spec: { injectionStrategy: { revision: { revisionName: 'log-nope' } } } })], sb.kubeconfig);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /Cannot find specific ControllerRevision/);
  } finally {
    await sb.stop();
  }
});
