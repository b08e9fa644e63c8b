// Advanced StatefulSet controller on the in-memory store: ordinals with reserveOrdinals,
// partition counting pods (v1.8+) vs an ordinal (v1.3), in-place updates highest ordinal first,
// OrderedReady creation order, status fields and webhook rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../../../helpers/memory-store';
import { ADVANCED_STATEFULSETS, createAdvancedStatefulSetController } from '../../../../src/sandbox/controllers/asts';
import { CONTROLLER_REVISIONS, PODS } from '../../../../src/sandbox/controllers/pods';
import type { KubeObject, Pod } from '../../../../src/kruise/types';
import { fixture, startSim, type Sim } from './cloneset-harness';

type Sts = KubeObject & { spec: Record<string, any>; status?: Record<string, any> };
const get = (sim: Sim, name = 'db') => sim.store.get(ADVANCED_STATEFULSETS, 'default', name) as Sts;
const podNames = (sim: Sim) => (sim.store.list(PODS, { namespace: 'default' }) as Pod[]).filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name!).sort();
const pod = (sim: Sim, name: string) => sim.store.get(PODS, 'default', name) as Pod;
const settled = (sim: Sim, n: number) => () => {
  const s = get(sim).status;
  return s && s.observedGeneration === get(sim).metadata.generation && s.readyReplicas === n && s.replicas === n ? s : undefined;
};

function run(kruise: 'v1.9' | 'v1.3', fn: (sim: Sim) => Promise<void>) {
  return async () => {
    const sim = startSim([createAdvancedStatefulSetController()], { settings: { kruise } });
    try {
      await fn(sim);
    } finally {
      sim.stop();
    }
  };
}

test('reserveOrdinals are skipped; partition 1 keeps the lowest active ordinal; in-place keeps UIDs', run('v1.9', async (sim) => {
  sim.store.create(ADVANCED_STATEFULSETS, fixture('asts-v1beta1.yaml')[0]);
  const s = await waitFor('4 ready', settled(sim, 4), 5000);
  assert.deepEqual(podNames(sim), ['db-0', 'db-2', 'db-5', 'db-6']);
  assert.equal(s.updatedReadyReplicas, 4);
  assert.equal(s.currentRevision, s.updateRevision);
  const p5 = pod(sim, 'db-5');
  assert.equal(p5.metadata.labels!['statefulset.kubernetes.io/pod-name'], 'db-5');
  assert.equal(p5.spec.hostname, 'db-5');
  assert.equal(p5.spec.subdomain, 'db');
  const uids = new Map(podNames(sim).map((n) => [n, pod(sim, n).metadata.uid]));

  const sts = get(sim);
  sts.spec.template.spec.containers[0].image = 'redis:7.4';
  sts.spec.updateStrategy.rollingUpdate.partition = 1;
  sim.store.update(ADVANCED_STATEFULSETS, sts);
  const done = await waitFor('3 updated', () => {
    const st = get(sim).status!;
    return st.updateRevision !== s.updateRevision && st.updatedReadyReplicas === 3 && st.readyReplicas === 4 ? st : undefined;
  }, 5000);
  assert.equal(done.currentRevision, s.updateRevision, 'partition keeps currentRevision');
  assert.equal(done.currentReplicas, 1);
  assert.equal(pod(sim, 'db-0').spec.containers[0].image, 'redis:7.2', 'lowest ordinal kept');
  for (const n of ['db-2', 'db-5', 'db-6']) {
    assert.equal(pod(sim, n).spec.containers[0].image, 'redis:7.4');
    assert.equal(pod(sim, n).metadata.uid, uids.get(n), `${n} updated in place`);
  }
  assert.equal(sim.store.list(CONTROLLER_REVISIONS).length, 2);
}));

test('OrderedReady creates ordinals one at a time in order; ReCreate updates highest first', run('v1.9', async (sim) => {
  const sts = fixture('asts-v1beta1.yaml')[0] as Sts;
  delete sts.spec.reserveOrdinals;
  sts.spec.replicas = 3;
  sts.spec.podManagementPolicy = 'OrderedReady';
  sts.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'ReCreate' } };
  const order: string[] = [];
  const unsub = sim.store.subscribe((ev) => {
    if (ev.type === 'ADDED' && ev.gr.resource === 'pods') order.push(ev.object.metadata.name!);
  });
  sim.store.create(ADVANCED_STATEFULSETS, sts);
  const s = await waitFor('3 ready', settled(sim, 3), 5000);
  assert.deepEqual(order, ['db-0', 'db-1', 'db-2']);
  order.length = 0;
  const cur = get(sim);
  cur.spec.template.spec.containers[0].image = 'redis:7.4';
  sim.store.update(ADVANCED_STATEFULSETS, cur);
  await waitFor('all updated', () => {
    const st = get(sim).status!;
    return st.updateRevision !== s.updateRevision && st.updatedReadyReplicas === 3 && st.currentRevision === st.updateRevision ? st : undefined;
  }, 8000);
  unsub();
  assert.deepEqual(order, ['db-2', 'db-1', 'db-0'], 'recreated from the highest ordinal down');
}));

test('v1.3 imitation: the partition is an ordinal threshold', run('v1.3', async (sim) => {
  const sts = fixture('asts-v1beta1.yaml')[0] as Sts;
  sts.spec.reserveOrdinals = [1];
  sts.spec.replicas = 3; // ordinals 0, 2, 3
  sts.spec.updateStrategy.rollingUpdate.partition = 3;
  sim.store.create(ADVANCED_STATEFULSETS, sts);
  const s = await waitFor('3 ready', settled(sim, 3), 5000);
  const cur = get(sim);
  cur.spec.template.spec.containers[0].image = 'redis:7.4';
  sim.store.update(ADVANCED_STATEFULSETS, cur);
  await waitFor('ordinal 3 updated', () => {
    const st = get(sim).status!;
    return st.updateRevision !== s.updateRevision && st.updatedReadyReplicas === 1 ? st : undefined;
  }, 5000);
  assert.equal(pod(sim, 'db-3').spec.containers[0].image, 'redis:7.4');
  assert.equal(pod(sim, 'db-2').spec.containers[0].image, 'redis:7.2', 'ordinal 2 < partition 3 stays (v1.8+ would update it)');
}));

test('webhook: partition, maxUnavailable with OrderedReady, reserveOrdinals ranges', () => {
  const sim = startSim([createAdvancedStatefulSetController()]);
  try {
    const bad = (mut: (s: Sts) => void) => {
      const s = fixture('asts-v1beta1.yaml')[0] as Sts;
      mut(s);
      return assert.throws(() => sim.store.create(ADVANCED_STATEFULSETS, s), (e: Error & { code?: number }) => e.code === 422 && /is invalid/.test(e.message)) ?? s;
    };
    bad((s) => (s.spec.updateStrategy.rollingUpdate.partition = -1));
    bad((s) => (s.spec.reserveOrdinals = ['5-2']));
    bad((s) => (s.spec.podManagementPolicy = 'OrderedReady'));
    try {
      const s = fixture('asts-v1beta1.yaml')[0] as Sts;
      s.spec.reserveOrdinals = ['5-2'];
      sim.store.create(ADVANCED_STATEFULSETS, s);
    } catch (e) {
      // Kruise names the root `spec` (validateReserveOrdinals, fldPath.Root())
      assert.match((e as Error).message, /spec: Invalid value: \["5-2"\]: 0 th reserve ordinal is invalid: 5-2, err = invalid range 5-2/);
    }
  } finally {
    sim.stop();
  }
});

const parallelSet = (replicas: number): Sts => {
  const sts = fixture('asts-v1beta1.yaml')[0] as Sts;
  delete sts.spec.reserveOrdinals;
  sts.spec.replicas = replicas;
  return sts;
};

test('TestStatefulSetControlRollingUpdateWithSpecifiedDelete (pkg/controller/statefulset/stateful_set_control_test.go): a pod labelled apps.kruise.io/specified-delete is deleted and recreated without the label', run('v1.9', async (sim) => {
  sim.store.create(ADVANCED_STATEFULSETS, parallelSet(3));
  await waitFor('3 ready', settled(sim, 3), 5000);
  const before = pod(sim, 'db-1');
  sim.store.update(PODS, { ...before, metadata: { ...before.metadata, labels: { ...before.metadata.labels, 'apps.kruise.io/specified-delete': 'true' } } });
  const fresh = await waitFor('db-1 recreated', () => {
    const p = pod(sim, 'db-1');
    return p && p.metadata.uid !== before.metadata.uid && !p.metadata.deletionTimestamp ? p : undefined;
  }, 5000);
  assert.equal(fresh.metadata.labels?.['apps.kruise.io/specified-delete'], undefined);
  assert.equal(pod(sim, 'db-0').metadata.uid !== undefined, true);
  await waitFor('3 ready again', settled(sim, 3), 5000);
}));

test('getStartOrdinal (pkg/controller/statefulset/stateful_set_control.go): spec.ordinals.start is ignored unless the StatefulSetStartOrdinal gate is on', async () => {
  for (const [gate, expected] of [[false, ['db-0', 'db-1']], [true, ['db-5', 'db-6']]] as const) {
    const sim = startSim([createAdvancedStatefulSetController()], { settings: { featureGates: { StatefulSetStartOrdinal: gate } } });
    try {
      const sts = parallelSet(2);
      sts.spec.ordinals = { start: 5 };
      sim.store.create(ADVANCED_STATEFULSETS, sts);
      await waitFor('2 ready', settled(sim, 2), 5000);
      assert.deepEqual(podNames(sim), expected, `gate ${gate}`);
    } finally {
      sim.stop();
    }
  }
});

test('computeReplicaStatus (pkg/controller/statefulset/stateful_set_control.go): status.replicas counts a terminating pod', run('v1.9', async (sim) => {
  sim.store.create(ADVANCED_STATEFULSETS, parallelSet(2));
  await waitFor('2 ready', settled(sim, 2), 5000);
  // a finalizer keeps db-1 terminating: Kruise still counts it in replicas (isCreated), not in updatedReplicas
  const p = pod(sim, 'db-1');
  sim.store.update(PODS, { ...p, metadata: { ...p.metadata, finalizers: ['example.com/hold'] } });
  sim.store.delete(PODS, 'default', 'db-1');
  const s = await waitFor('terminating pod counted', () => {
    const st = get(sim).status!;
    return pod(sim, 'db-1')?.metadata.deletionTimestamp && st.updatedReplicas === 1 ? st : undefined;
  }, 5000);
  assert.equal(s.replicas, 2);
  const held = pod(sim, 'db-1');
  sim.store.update(PODS, { ...held, metadata: { ...held.metadata, finalizers: [] } });
}));

for (const kruise of ['v1.9', 'v1.3'] as const) {
  const restarts = kruise === 'v1.3' ? 0 : 1;
  test(`InPlaceUpdateEnvFromMetadata on ${kruise} (${kruise === 'v1.3' ? 'Alpha, off' : 'Beta, on'} in pkg/features/kruise_features.go; pkg/util/inplaceupdate/inplace_update_defaults.go): a changed template label read by an env ${restarts ? 'restarts' : 'does not restart'} the container of an in-place updated pod`, run(kruise, async (sim) => {
    const sts = fixture('asts-v1beta1.yaml')[0] as Sts;
    delete sts.spec.reserveOrdinals;
    sts.spec.replicas = 1;
    sts.spec.template.metadata.labels.release = 'r1';
    sts.spec.template.spec.containers[0].env = [{ name: 'RELEASE', valueFrom: { fieldRef: { fieldPath: "metadata.labels['release']" } } }];
    sim.store.create(ADVANCED_STATEFULSETS, sts);
    await waitFor('1 ready', settled(sim, 1), 5000);
    const before = pod(sim, 'db-0');
    const cur = get(sim);
    cur.spec.template.metadata.labels.release = 'r2';
    sim.store.update(ADVANCED_STATEFULSETS, cur);
    await waitFor('updated in place and ready', () => {
      const s = settled(sim, 1)();
      return s && s.updatedReplicas === 1 && pod(sim, 'db-0').metadata.labels?.release === 'r2' ? s : undefined;
    }, 5000);
    const p = pod(sim, 'db-0');
    assert.equal(p.metadata.uid, before.metadata.uid, 'in place');
    assert.equal(p.status!.containerStatuses![0].restartCount, restarts);
  }));
}

/** Two template changes, the second while the first one's images are parked for the in-place grace period. */
async function changeDuringGrace(sim: Sim, policy: 'OrderedReady' | 'Parallel'): Promise<{ images: string[][]; labels: string[]; updateRevision: string }> {
  const sts = fixture('asts-v1beta1.yaml')[0] as Sts;
  delete sts.spec.reserveOrdinals;
  sts.spec.replicas = 2;
  sts.spec.podManagementPolicy = policy;
  if (policy === 'OrderedReady') delete sts.spec.updateStrategy.rollingUpdate.maxUnavailable;
  sts.spec.template.spec.containers.push({ name: 'sidecar', image: 'envoy:1.0' });
  sts.spec.updateStrategy.rollingUpdate.inPlaceUpdateStrategy = { gracePeriodSeconds: 1 };
  sim.store.create(ADVANCED_STATEFULSETS, sts);
  await waitFor('2 ready', settled(sim, 2), 5000);
  const edit = (fn: (s: Sts) => void) => {
    const cur = get(sim);
    fn(cur);
    sim.store.update(ADVANCED_STATEFULSETS, cur);
  };
  edit((s) => (s.spec.template.spec.containers[1].image = 'envoy:2.0'));
  await waitFor('sidecar change parked', () => (podNames(sim).some((n) => pod(sim, n).metadata.annotations?.['apps.kruise.io/inplace-update-grace']) ? true : undefined), 5000);
  edit((s) => (s.spec.template.spec.containers[0].image = 'redis:7.4'));
  const done = await waitFor('rolled out', () => {
    const s = settled(sim, 2)();
    return s && s.updatedReplicas === 2 && s.updatedReadyReplicas === 2 && s.currentRevision === s.updateRevision && podNames(sim).every((n) => !pod(sim, n).metadata.annotations?.['apps.kruise.io/inplace-update-grace']) ? s : undefined;
  }, 10000);
  const names = podNames(sim);
  return {
    images: names.map((n) => pod(sim, n).spec.containers.map((c) => c.image ?? '')),
    labels: names.map((n) => pod(sim, n).metadata.labels!['controller-revision-hash']),
    updateRevision: done.updateRevision,
  };
}

test('OrderedReady: a template change during the in-place grace period waits for the not-ready pod, so no change is lost (pkg/controller/statefulset/stateful_set_control.go processReplica "isRunningAndAvailable ... monotonic", pkg/util/inplaceupdate/inplace_update.go finishGracePeriod)', run('v1.9', async (sim) => {
  const r = await changeDuringGrace(sim, 'OrderedReady');
  assert.deepEqual(r.labels, [r.updateRevision, r.updateRevision]);
  assert.deepEqual(r.images, [['redis:7.4', 'envoy:2.0'], ['redis:7.4', 'envoy:2.0']]);
}));

// Unlike CloneSet (cloneset_update.go skips pods "still in grace period"), Kruise's ASTS has no such
// skip up to main: the pod in grace counts as unavailable, so maxUnavailable lets it through, and
// Update computes the new spec from the pod's label (the parked revision) to the newest one and
// overwrites the grace annotation. The parked sidecar image is lost while the pod carries the newest
// revision. The sandbox imitates that; `kubectl get pod -o yaml` shows it.
test('Parallel: Kruise re-updates a pod still in its grace period from its new revision label, so the parked change is replaced (stateful_set_control.go rollingUpdateStatefulsetPods counts it unavailable and calls inPlaceUpdatePod; inplace_update.go Update "TODO: check if the previous in-place update has completed")', run('v1.9', async (sim) => {
  const r = await changeDuringGrace(sim, 'Parallel');
  assert.deepEqual(r.labels, [r.updateRevision, r.updateRevision], 'both pods report the newest revision');
  assert.deepEqual(r.images, [['redis:7.4', 'envoy:1.0'], ['redis:7.4', 'envoy:1.0']], 'the sidecar change parked in grace is lost, as in Kruise');
}));
