// PersistentPodState on the in-memory store with the Advanced StatefulSet controller:
// auto-generation from annotations, status recording, injection into recreated pods,
// WhenScaled cleanup, deletion when the annotation goes, and the webhook rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../../../helpers/memory-store';
import { ADVANCED_STATEFULSETS, createAdvancedStatefulSetController } from '../../../../src/sandbox/controllers/asts';
import { createPersistentPodStateController, PERSISTENT_POD_STATES } from '../../../../src/sandbox/controllers/pps';
import { PODS } from '../../../../src/sandbox/controllers/pods';
import type { KubeObject, Pod } from '../../../../src/kruise/types';
import { fixture, startSim, type Sim } from './cloneset-harness';

type Obj = KubeObject & { spec: Record<string, any>; status?: Record<string, any> };
const pps = (sim: Sim) => sim.store.get(PERSISTENT_POD_STATES, 'default', 'echoserver') as Obj | undefined;
const sts = (sim: Sim) => sim.store.get(ADVANCED_STATEFULSETS, 'default', 'echoserver') as Obj;
const pod = (sim: Sim, n: string) => sim.store.get(PODS, 'default', n) as Pod | undefined;

function run(version: 'v1alpha1' | 'v1beta1', fn: (sim: Sim) => Promise<void>) {
  return async () => {
    const sim = startSim([createAdvancedStatefulSetController(), createPersistentPodStateController()], {
      // PersistentPodState is stored as v1beta1 only on master (kruise-semantics §1).
      settings: { kruise: version === 'v1beta1' ? 'master' : 'v1.9' },
    });
    try {
      await fn(sim);
    } finally {
      sim.stop();
    }
  };
}

for (const version of ['v1alpha1', 'v1beta1'] as const) {
  test(`${version}: generated from annotations, records Ready pods, injects into a recreated pod, drops scaled-in states`, run(version, async (sim) => {
    sim.store.create(ADVANCED_STATEFULSETS, fixture('asts-pps-annotated.yaml')[0]);
    const generated = await waitFor('pps', () => pps(sim));
    const keys = version === 'v1beta1' ? 'keys' : 'nodeTopologyKeys';
    assert.deepEqual(generated.spec.targetRef, { apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet', name: 'echoserver' });
    assert.deepEqual(generated.spec.requiredPersistentTopology, { [keys]: ['topology.kubernetes.io/zone'] });
    assert.deepEqual(generated.spec.preferredPersistentTopology, [{ weight: 100, preference: { [keys]: ['kubernetes.io/hostname'] } }]);
    const owner = generated.metadata.ownerReferences![0];
    assert.equal(owner.uid, sts(sim).metadata.uid);
    assert.equal(owner.controller, true);

    const states = await waitFor('2 states', () => {
      const s = pps(sim)?.status?.podStates;
      return s && Object.keys(s).length === 2 ? s : undefined;
    }, 5000);
    const node0 = pod(sim, 'echoserver-0')!.spec.nodeName!;
    assert.equal(states['echoserver-0'].nodeName, node0);
    assert.equal(states['echoserver-0'].nodeTopologyLabels['kubernetes.io/hostname'], node0);
    assert.match(states['echoserver-0'].nodeTopologyLabels['topology.kubernetes.io/zone'], /^zone-[abc]$/);

    const uid = pod(sim, 'echoserver-0')!.metadata.uid;
    sim.store.delete(PODS, 'default', 'echoserver-0');
    const recreated = await waitFor('recreated', () => {
      const p = pod(sim, 'echoserver-0');
      return p && p.metadata.uid !== uid ? p : undefined;
    }, 5000);
    assert.equal(recreated.metadata.annotations!['kruise.io/injected-persistent-pod-state'], 'echoserver');
    assert.deepEqual(recreated.spec.nodeSelector, { 'topology.kubernetes.io/zone': states['echoserver-0'].nodeTopologyLabels['topology.kubernetes.io/zone'] });
    assert.deepEqual((recreated.spec.affinity as any).nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution, [
      { weight: 100, preference: { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node0] }] } },
    ]);
    await waitFor('scheduled back on its node', () => pod(sim, 'echoserver-0')?.spec.nodeName === node0 || undefined, 5000);

    const s = sts(sim);
    s.spec.replicas = 1;
    sim.store.update(ADVANCED_STATEFULSETS, s);
    await waitFor('state of echoserver-1 dropped', () => {
      const st = pps(sim)?.status?.podStates;
      return st && !st['echoserver-1'] && st['echoserver-0'] ? st : undefined;
    }, 5000);

    const off = sts(sim);
    off.metadata.annotations!['kruise.io/auto-generate-persistent-pod-state'] = 'false';
    sim.store.update(ADVANCED_STATEFULSETS, off);
    await waitFor('pps deleted', () => (pps(sim) ? undefined : true), 5000);
  }));
}

test('webhook: weight out of range, missing topology, wrong kind, second PPS for one workload', run('v1alpha1', async (sim) => {
  const base = (): Obj => ({
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'PersistentPodState',
    metadata: { name: 'p1', namespace: 'default' },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' },
      preferredPersistentTopology: [{ weight: 50, preference: { nodeTopologyKeys: ['kubernetes.io/hostname'] } }],
    },
  });
  const reject = (o: Obj, re: RegExp) => assert.throws(() => sim.store.create(PERSISTENT_POD_STATES, o), (e: Error & { code?: number }) => e.code === 422 && re.test(e.message));
  const w = base();
  w.spec.preferredPersistentTopology[0].weight = 101;
  reject(w, /preferredPersistentTopology\[0\]\.weight: Invalid value: 101/);
  // persistent_create_update_handler.go has no rule on the keys: an empty list is accepted.
  const empty = base();
  empty.metadata.name = 'p-empty';
  empty.spec.targetRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'other' };
  empty.spec.preferredPersistentTopology[0].preference.nodeTopologyKeys = [];
  assert.doesNotThrow(() => sim.store.create(PERSISTENT_POD_STATES, empty));
  const none = base();
  delete none.spec.preferredPersistentTopology;
  reject(none, /requiredPersistentTopology or preferredPersistentTopology is required/);
  const kind = base();
  kind.spec.targetRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
  reject(kind, /spec\.targetRef/);
  sim.store.create(PERSISTENT_POD_STATES, base());
  const second = base();
  second.metadata.name = 'p2';
  reject(second, /already targets this workload/);
  const moved = sim.store.get(PERSISTENT_POD_STATES, 'default', 'p1') as Obj;
  moved.spec.targetRef.name = 'other';
  assert.throws(() => sim.store.update(PERSISTENT_POD_STATES, moved), /spec\.targetRef: Forbidden: TargetRef is immutable/);
}));

test('deleting the target StatefulSet clears the recorded states of a PersistentPodState (pkg/controller/persistentpodstate/persistent_pod_state_controller.go Reconcile)', run('v1alpha1', async (sim) => {
  const set = fixture('asts-pps-annotated.yaml')[0] as Obj;
  delete set.metadata.annotations!['kruise.io/auto-generate-persistent-pod-state'];
  sim.store.create(ADVANCED_STATEFULSETS, set);
  sim.store.create(PERSISTENT_POD_STATES, {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'PersistentPodState',
    metadata: { name: 'keep-zone', namespace: 'default' },
    spec: {
      targetRef: { apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet', name: 'echoserver' },
      requiredPersistentTopology: { nodeTopologyKeys: ['topology.kubernetes.io/zone'] },
      persistentPodStateRetentionPolicy: 'WhenDeleted',
    },
  });
  const manual = () => sim.store.get(PERSISTENT_POD_STATES, 'default', 'keep-zone') as Obj | undefined;
  await waitFor('2 states', () => Object.keys(manual()?.status?.podStates ?? {}).length === 2 || undefined, 5000);
  sim.store.delete(ADVANCED_STATEFULSETS, 'default', 'echoserver');
  const cleared = await waitFor('states cleared', () => {
    const st = manual()?.status;
    return st && !st.podStates ? st : undefined;
  }, 5000);
  assert.equal(cleared.observedGeneration, manual()!.metadata.generation ?? 1);
  assert.ok(manual(), 'the PPS itself stays (it is not owned by the workload)');
}));
