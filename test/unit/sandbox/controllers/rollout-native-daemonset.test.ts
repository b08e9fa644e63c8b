// The simulated Kruise Rollout controller releasing a native (apps/v1) DaemonSet, on the in-memory store
// with the kube DaemonSet controller: only Kruise Rollout master does it (its finder, workload webhook,
// partitionstyle/nativedaemonset control and native-daemonset-controller); v0.6 reads such a Rollout as
// "Workload Not Found" and lets the DaemonSet roll by itself.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startControllers, createStore, waitFor } from '../../../helpers/memory-store';
import { loadFixture } from '../../kruise/rollout/helpers';
import { builtinRolloutCrds } from '../../../../src/sandbox/crds/builtin-rollout-crds';
import { installCrds } from '../../../../src/sandbox/server/crd-lifecycle';
import { createNodesController } from '../../../../src/sandbox/controllers/nodes';
import { createScheduler } from '../../../../src/sandbox/controllers/scheduler';
import { createKubelet } from '../../../../src/sandbox/controllers/kubelet';
import { createGarbageCollector } from '../../../../src/sandbox/controllers/gc';
import { createDaemonSetController, DAEMONSETS } from '../../../../src/sandbox/controllers/daemonset';
import { createRolloutController, ROLLOUTS } from '../../../../src/sandbox/controllers/rollout';
import { createRolloutNativeDaemonSetController } from '../../../../src/sandbox/controllers/rollout-native-daemonset';
import { PODS, isPodReady } from '../../../../src/sandbox/controllers/pods';
import type { SimulationSettings } from '../../../../src/sandbox/store-api';
import type { KubeObject, Pod } from '../../../../src/kruise/types';

const [DS, RO] = loadFixture('sandbox-rollout-native-daemonset.yaml') as [KubeObject, KubeObject];
const NEW = 'fluent/fluent-bit:3.1.0';

function start(release: 'v0.6' | 'master', withRollout = true) {
  const store = createStore();
  installCrds(store, builtinRolloutCrds(release));
  const settings: SimulationSettings = { readyDelayMs: 20, kruise: 'v1.9', nodes: 4, kruiseRollout: release };
  const stop = startControllers(
    store,
    [createNodesController(), createScheduler(), createKubelet(), createGarbageCollector(), createDaemonSetController(), createRolloutController(), createRolloutNativeDaemonSetController()],
    settings,
  );
  store.create(DAEMONSETS, structuredClone(DS));
  if (withRollout) store.create(ROLLOUTS, structuredClone(RO));
  return { store, stop };
}

type Store = ReturnType<typeof start>['store'];
const ds = (s: Store) => s.get(DAEMONSETS, 'default', 'node-agent')!;
const rollout = (s: Store) => s.get(ROLLOUTS, 'default', 'rollout-node-agent')!;
const status = (s: Store) => (rollout(s).status ?? {}) as { phase?: string; message?: string; currentStepIndex?: number; currentStepState?: string; canaryStatus?: Record<string, unknown>; conditions?: Array<{ type: string; status: string; reason: string }> };
/** Live pods by image; `ready` counts only Ready ones. */
function images(s: Store, ready = false): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of s.list(PODS, { namespace: 'default' }) as Pod[]) {
    if (p.metadata.deletionTimestamp || (ready && !isPodReady(p))) continue;
    const img = p.spec.containers[0]?.image ?? '';
    out[img] = (out[img] ?? 0) + 1;
  }
  return out;
}
function setImage(s: Store, image: string): void {
  const cur = structuredClone(ds(s));
  (cur.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0]!.image = image;
  s.update(DAEMONSETS, cur);
}

describe('sandbox Kruise Rollout master: a native DaemonSet released in partition style', () => {
  it('held under OnDelete (original strategy kept), step 1 deletes 2 of 4 pods one at a time and waits; approved: all 4, RollingUpdate back, annotations gone', async () => {
    const { store, stop } = start('master');
    try {
      await waitFor('4 ready pods', () => images(store, true)['fluent/fluent-bit:3.0.4'] === 4, 10_000);
      await waitFor('Healthy', () => status(store).phase === 'Healthy');
      setImage(store, NEW);
      // the workload webhook (handleNativeDaemonSet)
      const held = ds(store);
      assert.equal((held.spec as { updateStrategy: { type: string } }).updateStrategy.type, 'OnDelete');
      assert.equal(held.metadata.annotations?.['rollouts.kruise.io/daemonset-original-update-strategy'], 'RollingUpdate');
      assert.equal(held.metadata.annotations?.['rollouts.kruise.io/in-progressing'], '{"rolloutName":"rollout-node-agent"}');
      // never more than maxUnavailable (1) pod down while the batch goes out
      let worst = 0;
      const unsubscribe = store.subscribe(() => {
        const live = (store.list(PODS, { namespace: 'default' }) as Pod[]).filter((p) => !p.metadata.deletionTimestamp && isPodReady(p)).length;
        worst = Math.max(worst, 4 - live);
      });
      await waitFor('step 1 StepPaused', () => status(store).currentStepIndex === 1 && status(store).currentStepState === 'StepPaused', 15_000);
      unsubscribe();
      assert.deepEqual(images(store, true), { 'fluent/fluent-bit:3.0.4': 2, [NEW]: 2 });
      assert.equal(worst, 1, 'one pod down at a time (maxUnavailable 1)');
      const mid = ds(store);
      assert.deepEqual(JSON.parse(mid.metadata.annotations?.['rollouts.kruise.io/daemonset-advanced-control'] ?? '{}').partition, '2');
      const revisions = JSON.parse(mid.metadata.annotations?.['rollouts.kruise.io/daemonset-revision'] ?? '{}') as Record<string, string>;
      assert.equal(status(store).canaryStatus?.canaryRevision, revisions['canary-revision']);
      assert.equal(status(store).canaryStatus?.stableRevision, revisions['stable-revision']);
      assert.equal(status(store).canaryStatus?.canaryReadyReplicas, 2);
      // a person's approval (patches.ts approvePatch)
      const r = rollout(store);
      store.updateStatus(ROLLOUTS, { ...r, status: { ...(r.status ?? {}), currentStepState: 'StepReady', canaryStatus: { ...(status(store).canaryStatus ?? {}), currentStepState: 'StepReady' } } });
      await waitFor('Completed', () => status(store).phase === 'Healthy' && status(store).conditions?.find((c) => c.type === 'Succeeded')?.status === 'True', 15_000);
      assert.deepEqual(images(store), { [NEW]: 4 });
      const done = ds(store);
      assert.equal((done.spec as { updateStrategy: { type: string } }).updateStrategy.type, 'RollingUpdate');
      for (const a of ['rollouts.kruise.io/daemonset-advanced-control', 'rollouts.kruise.io/daemonset-revision', 'rollouts.kruise.io/daemonset-original-update-strategy', 'rollouts.kruise.io/in-progressing', 'batchrelease.rollouts.kruise.io/control-info']) {
        assert.equal(done.metadata.annotations?.[a], undefined, a);
      }
    } finally {
      stop();
    }
  });

  it('v0.6 has no native DaemonSet release: its webhook refuses such a Rollout (v0.6.2 util.IsSupportedWorkload: apps/DaemonSet is not a known workload under --filter-workload-type, the default) and the DaemonSet rolls by itself', async () => {
    const { store, stop } = start('v0.6', false);
    try {
      assert.throws(() => store.create(ROLLOUTS, structuredClone(RO)), /admission webhook "vrollout\.kb\.io" denied the request: Spec\.ObjectRef\.WorkloadRef: Invalid value: .*Kind:"DaemonSet".*: WorkloadRef kind is not supported/);
      await waitFor('4 ready pods', () => images(store, true)['fluent/fluent-bit:3.0.4'] === 4, 10_000);
      setImage(store, NEW);
      assert.equal((ds(store).spec as { updateStrategy: { type: string } }).updateStrategy.type, 'RollingUpdate');
      assert.equal(ds(store).metadata.annotations?.['rollouts.kruise.io/in-progressing'], undefined);
      await waitFor('all 4 updated by the DaemonSet controller', () => images(store, true)[NEW] === 4, 10_000);
    } finally {
      stop();
    }
  });
});
