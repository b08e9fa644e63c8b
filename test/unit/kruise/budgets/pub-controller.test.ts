// The PUB controller's status (src/kruise/rules/pub.ts computePubStatus / desiredAvailableForPub) on the
// rows of Kruise master's pkg/controller/podunavailablebudget/pub_controller_test.go (TestPubReconcile,
// TestDesiredAvailableForPub), on its pubDemo/podDemo/deploymentDemo/replicaSetDemo
// (test/fixtures/budgets/controller-demo.yaml). Time is fixed: "now" in a row is NOW, and Go's
// "time.Now().Add(-10s)" read a moment later is NOW − 10.001 s here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computePubStatus, desiredAvailableForPub, readPubSpec, type PubStatus } from '../../../../src/kruise/rules/pub';
import type { KubeObject, Pod } from '../../../../src/kruise/types';
import { fixtureObject, podCopy, stamp } from './helpers';

const FILE = 'controller-demo.yaml';
const NOW = Date.parse('2026-11-29T00:10:00Z');
const RS2_UID = 'a34b0453-3426-4685-a79c-752e7062a523';

const pub = (edit?: (p: KubeObject & { spec: Record<string, unknown>; status: PubStatus }) => void): KubeObject => {
  const p = fixtureObject(FILE, 'PodUnavailableBudget') as KubeObject & { spec: Record<string, unknown>; status: PubStatus };
  edit?.(p);
  return p;
};
const deployment = (replicas: number, edit?: (d: KubeObject) => void): KubeObject => {
  const d = fixtureObject(FILE, 'Deployment');
  (d.spec as { replicas: number }).replicas = replicas;
  edit?.(d);
  return d;
};
const replicaSets = (): KubeObject[] => {
  const rs1 = fixtureObject(FILE, 'ReplicaSet');
  rs1.metadata.name = 'nginx-rs-1';
  const rs2 = fixtureObject(FILE, 'ReplicaSet');
  rs2.metadata.name = 'nginx-rs-2';
  rs2.metadata.uid = RS2_UID;
  return [rs1, rs2];
};
const pod = (i: number, edit?: (p: Pod) => void): Pod => podCopy(FILE, `test-pod-${i}`, edit);
const ownedBy = (uid: string, name: string) => (p: Pod): void => {
  p.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name, uid, controller: true }];
};
const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, k) => from + k);
const notReady = (p: Pod): void => {
  p.status!.conditions = [{ type: 'Ready', status: 'False' }];
};
const deleting = (p: Pod): void => {
  p.metadata.deletionTimestamp = stamp(NOW);
  p.metadata.finalizers = ['finalizers.sigs.k8s.io/test'];
};
const targetRefDeployment = (p: KubeObject & { spec: Record<string, unknown> }): void => {
  delete p.spec.selector;
  p.spec.targetRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' };
};

interface Expect {
  unavailableAllowed: number;
  currentAvailable: number;
  desiredAvailable: number;
  totalReplicas: number;
  disrupted?: number[];
  unavailable?: number[];
}

function row(name: string, budget: KubeObject, pods: Pod[], workloads: KubeObject[], want: Expect): void {
  test(`TestPubReconcile: ${name}`, () => {
    const r = computePubStatus(budget, pods, workloads, new Date(NOW));
    const s = r.status;
    assert.deepEqual(
      { unavailableAllowed: s.unavailableAllowed, currentAvailable: s.currentAvailable, desiredAvailable: s.desiredAvailable, totalReplicas: s.totalReplicas },
      { unavailableAllowed: want.unavailableAllowed, currentAvailable: want.currentAvailable, desiredAvailable: want.desiredAvailable, totalReplicas: want.totalReplicas },
    );
    assert.deepEqual(Object.keys(s.disruptedPods ?? {}).sort(), (want.disrupted ?? []).map((i) => `test-pod-${i}`).sort());
    assert.deepEqual(Object.keys(s.unavailablePods ?? {}).sort(), (want.unavailable ?? []).map((i) => `test-pod-${i}`).sort());
  });
}

// pub_controller_test.go TestPubReconcile — selector rows
const rs = replicaSets();
const split = (n1: number, n2: number, edit?: (p: Pod, i: number) => void): Pod[] => [
  ...range(0, n1).map((i) => pod(i, (p) => (ownedBy(rs[0]!.metadata.uid!, 'nginx-rs-1')(p), edit?.(p, i)))),
  ...range(n1, n1 + n2).map((i) => pod(i, (p) => (ownedBy(RS2_UID, 'nginx-rs-2')(p), edit?.(p, i)))),
];
row('select matched deployment(replicas=0), selector and maxUnavailable 30%', pub(), split(5, 5), [deployment(0), ...rs], { unavailableAllowed: 10, currentAvailable: 10, desiredAvailable: 0, totalReplicas: 0 });
row('select matched pub.spec.protectTotalReplicas=15 and selector, selector and maxUnavailable 30%', pub((p) => (p.spec.protectTotalReplicas = 15)), split(5, 5), [deployment(0), ...rs], {
  unavailableAllowed: 0,
  currentAvailable: 10,
  desiredAvailable: 10,
  totalReplicas: 15,
});
row('select matched deployment(replicas=10,maxSurge=30%,maxUnavailable=0), and pub(selector,maxUnavailable=30%)', pub(), split(10, 3, (p, i) => i === 12 && notReady(p)), [deployment(10), ...rs], {
  unavailableAllowed: 5,
  currentAvailable: 12,
  desiredAvailable: 7,
  totalReplicas: 10,
});
row('select matched deployment(Deletion), selector and maxUnavailable 30%', pub(), range(0, 10).map((i) => pod(i)), [deployment(10, (d) => (d.metadata.deletionTimestamp = stamp(NOW))), ...rs.slice(0, 1)], {
  unavailableAllowed: 10,
  currentAvailable: 10,
  desiredAvailable: 0,
  totalReplicas: 0,
});

// pub_controller_test.go TestPubReconcile — targetRef rows
const rs1Pods = (n: number): Pod[] => range(0, n).map((i) => pod(i, ownedBy(rs[0]!.metadata.uid!, 'nginx-rs-1')));
row('select matched deployment(replicas=0,maxSurge=0,maxUnavailable=30%), and pub(targetRef,maxUnavailable=30%)', pub(targetRefDeployment), rs1Pods(10), [deployment(0), rs[0]!], {
  unavailableAllowed: 0,
  currentAvailable: 0,
  desiredAvailable: 0,
  totalReplicas: 0,
});
row('select matched deployment(replicas=1,maxSurge=0,maxUnavailable=30%), spec.protectTotalReplicas=15 and pub(targetRef,maxUnavailable=30%)', pub((p) => (targetRefDeployment(p), (p.spec.protectTotalReplicas = 15))), rs1Pods(10), [deployment(1), rs[0]!], {
  unavailableAllowed: 0,
  currentAvailable: 10,
  desiredAvailable: 10,
  totalReplicas: 15,
});
row('select matched deployment(replicas=1,maxSurge=0,maxUnavailable=30%), and pub(targetRef,maxUnavailable=30%)', pub(targetRefDeployment), rs1Pods(10), [deployment(1), rs[0]!], {
  unavailableAllowed: 10,
  currentAvailable: 10,
  desiredAvailable: 0,
  totalReplicas: 1,
});
row('select matched deployment(deletion), and pub(targetRef,maxUnavailable=30%)', pub(targetRefDeployment), rs1Pods(10), [deployment(10, (d) => (d.metadata.deletionTimestamp = stamp(NOW))), rs[0]!], {
  unavailableAllowed: 0,
  currentAvailable: 0,
  desiredAvailable: 0,
  totalReplicas: 0,
});

// pub_controller_test.go TestPubReconcile — maxUnavailable / minAvailable rows (pods of replicaSetDemo)
const demoPods = (n: number, edit?: (p: Pod, i: number) => void): Pod[] => range(0, n).map((i) => pod(i, (p) => edit?.(p, i)));
const demoWorkloads = (replicas: number): KubeObject[] => {
  const r = fixtureObject(FILE, 'ReplicaSet');
  (r.spec as { replicas: number }).replicas = replicas;
  return [deployment(replicas), r];
};
row('select matched deployment, maxUnavailable 0%', pub((p) => (p.spec.maxUnavailable = '0%')), demoPods(10), demoWorkloads(10), { unavailableAllowed: 0, currentAvailable: 10, desiredAvailable: 10, totalReplicas: 10 });
row('select matched deployment, maxUnavailable 100%', pub((p) => (p.spec.maxUnavailable = '100%')), demoPods(10), demoWorkloads(10), { unavailableAllowed: 10, currentAvailable: 10, desiredAvailable: 0, totalReplicas: 10 });
row('select matched deployment, maxUnavailable 100, and expect scale 10', pub((p) => (p.spec.maxUnavailable = 100)), demoPods(10), demoWorkloads(10), { unavailableAllowed: 10, currentAvailable: 10, desiredAvailable: 0, totalReplicas: 10 });
const minAvailable = (v: number | string) => (p: KubeObject & { spec: Record<string, unknown> }): void => {
  delete p.spec.maxUnavailable;
  p.spec.minAvailable = v;
};
row('select matched deployment, minAvailable 100 int', pub(minAvailable(100)), demoPods(5), demoWorkloads(10), { unavailableAllowed: 0, currentAvailable: 5, desiredAvailable: 100, totalReplicas: 10 });
row('select matched deployment, minAvailable 50%', pub(minAvailable('50%')), demoPods(5), demoWorkloads(10), { unavailableAllowed: 0, currentAvailable: 5, desiredAvailable: 5, totalReplicas: 10 });
row('select matched deployment, minAvailable 80%', pub(minAvailable('80%')), demoPods(10), demoWorkloads(10), { unavailableAllowed: 2, currentAvailable: 10, desiredAvailable: 8, totalReplicas: 10 });

// pub_controller_test.go TestPubReconcile — disruptedPods / unavailablePods bookkeeping (100 pods)
const recorded = (unavailable: Record<number, number>, disrupted: Record<number, number>) => (p: KubeObject & { status: PubStatus }): void => {
  p.status.unavailablePods = Object.fromEntries(Object.entries(unavailable).map(([i, age]) => [`test-pod-${i}`, stamp(NOW - age)]));
  p.status.disruptedPods = Object.fromEntries(Object.entries(disrupted).map(([i, age]) => [`test-pod-${i}`, stamp(NOW - age)]));
};
const ages = (from: number, to: number, age: (i: number) => number): Record<number, number> => Object.fromEntries(range(from, to).map((i) => [i, age(i)]));
row('select matched deployment, 10 UnavailablePods and 10 DisruptionPods', pub(recorded(ages(0, 10, () => 0), ages(10, 20, () => 0))), demoPods(100), demoWorkloads(100), {
  unavailableAllowed: 10,
  currentAvailable: 80,
  desiredAvailable: 70,
  totalReplicas: 100,
  unavailable: range(0, 10),
  disrupted: range(10, 20),
});
row('select matched deployment, 10 UnavailablePods, 10 DisruptionPods and 5 not ready', pub(recorded(ages(0, 10, () => 0), ages(10, 20, () => 0))), demoPods(100, (p, i) => i >= 20 && i < 25 && notReady(p)), demoWorkloads(100), {
  unavailableAllowed: 5,
  currentAvailable: 75,
  desiredAvailable: 70,
  totalReplicas: 100,
  unavailable: range(0, 10),
  disrupted: range(10, 20),
});
row('select matched deployment, 10 UnavailablePods, 10 DisruptionPods and 5 deletion', pub(recorded(ages(0, 10, () => 0), ages(10, 20, () => 0))), demoPods(100, (p, i) => i >= 20 && i < 25 && deleting(p)), demoWorkloads(100), {
  unavailableAllowed: 5,
  currentAvailable: 75,
  desiredAvailable: 70,
  totalReplicas: 100,
  unavailable: range(0, 10),
  disrupted: range(10, 20),
});
row('select matched deployment, 10 UnavailablePods(5 ready), 10 DisruptionPods(5 deletion)', pub(recorded(ages(0, 10, (i) => (i < 5 ? 11_000 : 0)), ages(10, 20, () => 0))), demoPods(100, (p, i) => i >= 10 && i < 15 && deleting(p)), demoWorkloads(100), {
  unavailableAllowed: 15,
  currentAvailable: 85,
  desiredAvailable: 70,
  totalReplicas: 100,
  unavailable: range(5, 10),
  disrupted: range(15, 20),
});
row(
  'select matched deployment, 10 UnavailablePods(5 ready), 10 DisruptionPods(5 delay) and 5 deletion',
  pub(recorded(ages(0, 10, (i) => (i < 5 ? 11_000 : 0)), ages(10, 20, (i) => (i < 15 ? 125_000 : 0)))),
  demoPods(100, (p, i) => i >= 20 && i < 25 && deleting(p)),
  demoWorkloads(100),
  { unavailableAllowed: 15, currentAvailable: 85, desiredAvailable: 70, totalReplicas: 100, unavailable: range(5, 10), disrupted: range(15, 20) },
);

// pub_controller_test.go TestDesiredAvailableForPub
test('TestDesiredAvailableForPub: maxUnavailable 10%, total 15', () => {
  assert.equal(desiredAvailableForPub(readPubSpec(pub((p) => (p.spec.maxUnavailable = '10%'))), 15).value, 13);
});

test('status carries observedGeneration and the recheck time of the earliest expiring record', () => {
  const budget = pub(recorded({ 1: 2_000 }, { 2: 5_000 }));
  budget.metadata.generation = 3;
  const r = computePubStatus(budget, demoPods(10), demoWorkloads(10), new Date(NOW));
  assert.equal(r.status.observedGeneration, 3);
  // unavailablePods entry of pod 1 expires 10 s after it was written (8 s from now), before pod 2's 20 s
  assert.equal(r.recheckAt, NOW + 8_000);
});
