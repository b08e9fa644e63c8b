// The simulated Kruise Rollout controller on the other partition-style kinds (openkruise/rollouts v0.6.2
// pkg/controller/batchrelease/control/partitionstyle/{statefulset,daemonset}/control.go): Advanced
// StatefulSet, native StatefulSet and Advanced DaemonSet, on the real CRDs. Each release: an image
// change is held (partition MaxInt16), step 1 updates half of the pods and waits for a person, the
// approval releases the rest, then the workload's partition is handed back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { applyRolloutFixtures, approveStep, haveCrds, patchImage, startWithRolloutCrds } from './rollout-kruise-helpers';

const RO_PATH = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts';

interface Kind {
  name: string;
  resource: string;
  path: string;
  rollout: string;
  image: string;
  /** pods updated by step 1 (50%) and in all */
  half: number;
  all: number;
  updated: (o: { status: Record<string, number> }) => number;
}

const KINDS: Kind[] = [
  { name: 'Advanced StatefulSet', resource: 'statefulsets.apps.kruise.io/db', path: '/apis/apps.kruise.io/v1beta1/namespaces/default/statefulsets/db', rollout: 'rollout-db', image: 'redis:7.2', half: 2, all: 4, updated: (o) => o.status.updatedReplicas ?? 0 },
  { name: 'StatefulSet', resource: 'statefulsets.apps/cache', path: '/apis/apps/v1/namespaces/default/statefulsets/cache', rollout: 'rollout-cache', image: 'memcached:1.6.21', half: 2, all: 4, updated: (o) => o.status.updatedReplicas ?? 0 },
  { name: 'Advanced DaemonSet (3 nodes)', resource: 'daemonsets.apps.kruise.io/agent', path: '/apis/apps.kruise.io/v1alpha1/namespaces/default/daemonsets/agent', rollout: 'rollout-agent', image: 'fluentd:v1.17', half: 2, all: 3, updated: (o) => o.status.updatedNumberScheduled ?? 0 },
];

describe('sandbox Kruise Rollout controller: Advanced StatefulSet, StatefulSet, Advanced DaemonSet (v0.6.2 CRDs)', { skip: !haveCrds('v0.6.2') && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startWithRolloutCrds('v0.6.2');
    await applyRolloutFixtures(sb, ['sandbox-rollout-partition-kinds.yaml']);
  });
  after(async () => {
    await sb.stop();
  });

  for (const k of KINDS) {
    it(`${k.name}: held at partition 32767, step 1 updates ${k.half} of ${k.all} and waits; approved, all updated and the partition handed back`, async () => {
      const rollout = async () => (await sb.api('GET', `${RO_PATH}/${k.rollout}`)).body;
      const workload = async () => (await sb.api('GET', k.path)).body;
      await waitUntil(`${k.rollout} Healthy`, async () => (await rollout()).status?.phase === 'Healthy');
      await patchImage(sb, [k.resource], k.image);
      assert.equal((await workload()).spec.updateStrategy.rollingUpdate.partition, 32767, 'the webhook holds every ordinal (MaxInt16)');
      const paused = await waitUntil(`${k.rollout} step 1 StepPaused`, async () => {
        const r = await rollout();
        return r.status?.currentStepIndex === 1 && r.status.currentStepState === 'StepPaused' ? r : undefined;
      }, 20_000);
      assert.equal(paused.status.canaryStatus.canaryReplicas, k.half);
      assert.equal(paused.status.canaryStatus.canaryReadyReplicas, k.half);
      const w = await workload();
      assert.equal(k.updated(w), k.half);
      assert.equal(w.spec.updateStrategy.rollingUpdate.partition, k.all - k.half);
      await approveStep(sb, k.rollout);
      const done = await waitUntil(`${k.rollout} Completed`, async () => {
        const r = await rollout();
        return r.status?.phase === 'Healthy' && r.status.conditions?.find((c: { type: string }) => c.type === 'Succeeded')?.status === 'True' ? r : undefined;
      }, 20_000);
      assert.equal(done.status.canaryStatus.currentStepState, 'Completed');
      const final = await waitUntil('all updated', async () => {
        const o = await workload();
        return k.updated(o) === k.all ? o : undefined;
      });
      assert.equal(final.spec.updateStrategy.rollingUpdate.partition ?? 0, 0);
      assert.equal(final.metadata.annotations?.['rollouts.kruise.io/in-progressing'], undefined);
    });
  }
});

describe('sandbox --kruise master (CloneSet stored as v1beta1): the Rollout controller moves rollingUpdate.partition', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ readyDelay: '50ms', extraArgs: ['--kruise', 'master'] });
    await applyRolloutFixtures(sb, ['sandbox-cloneset-web-10.yaml']);
    const ro = { apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name: 'rollout-web' }, spec: { workloadRef: { apiVersion: 'apps.kruise.io/v1beta1', kind: 'CloneSet', name: 'web' }, strategy: { canary: { steps: [{ replicas: '20%' }, { replicas: '100%' }] } } } };
    const created = await sb.api('POST', RO_PATH, ro);
    assert.equal(created.status, 201, created.text);
  });
  after(async () => {
    await sb.stop();
  });

  it('step 1: 2 of 10 updated with spec.updateStrategy.rollingUpdate.partition "80%"; approved: 10 updated, partition handed back', async () => {
    const rollout = async () => (await sb.api('GET', `${RO_PATH}/rollout-web`)).body;
    const cs = async () => (await sb.api('GET', '/apis/apps.kruise.io/v1beta1/namespaces/default/clonesets/web')).body;
    await waitUntil('Healthy', async () => (await rollout()).status?.phase === 'Healthy');
    await patchImage(sb, ['cloneset', 'web'], 'nginx:1.26');
    await waitUntil('step 1 StepPaused', async () => {
      const r = await rollout();
      return r.status?.currentStepIndex === 1 && r.status.currentStepState === 'StepPaused';
    }, 20_000);
    const held = await cs();
    assert.equal(held.spec.updateStrategy.rollingUpdate.partition, '80%');
    assert.equal(held.status.updatedReplicas, 2);
    await approveStep(sb, 'rollout-web');
    await waitUntil('Completed', async () => {
      const r = await rollout();
      return r.status?.phase === 'Healthy' && r.status.conditions?.find((c: { type: string }) => c.type === 'Succeeded')?.status === 'True';
    }, 20_000);
    const done = await waitUntil('10 updated', async () => {
      const o = await cs();
      return o.status.updatedReadyReplicas === 10 ? o : undefined;
    });
    assert.equal(done.spec.updateStrategy.rollingUpdate.partition ?? 0, 0);
  });
});
