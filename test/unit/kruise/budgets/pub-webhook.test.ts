// The PUB pod webhook's decision (src/kruise/rules/pub.ts validatePodForPub + pubOperationForPodUpdate)
// on the rows of Kruise master's pkg/webhook/pod/validating/pod_unavailable_budget_test.go, on its
// pubDemo/podDemo (test/fixtures/budgets/webhook-demo.yaml: 10 pods, maxUnavailable 30%, no headroom).
// Each row: the pod before and after, the budget, whether the webhook admits, and the status it leaves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  pubOperationForPodUpdate,
  pubProtectedOperations,
  readPubSpec,
  pubStatusOf,
  validatePodForPub,
  type PubDecision,
  type PubStatus,
} from '../../../../src/kruise/rules/pub';
import type { BudgetOperation } from '../../../../src/kruise/budget-types';
import type { KubeObject, Pod } from '../../../../src/kruise/types';
import { fixtureObject, podCopy } from './helpers';

const FILE = 'webhook-demo.yaml';
const NOW = new Date('2026-11-29T00:00:05Z');
const pubDemo = (): KubeObject => fixtureObject(FILE, 'PodUnavailableBudget');
const podDemo = (edit?: (p: Pod) => void): Pod => podCopy(FILE, 'test-pod-0', edit);
const withAllowed = (n: number) => (pub: KubeObject): KubeObject => {
  (pub.status as PubStatus).unavailableAllowed = n;
  return pub;
};
const annotate = (value: string) => (pub: KubeObject): KubeObject => {
  pub.metadata.annotations = { ...pub.metadata.annotations, 'kruise.io/pub-protect-operations': value };
  return pub;
};
const notReady = (p: Pod): void => {
  p.status!.conditions![0]!.status = 'False';
};

/** The status with pod names only (Kruise's isPubStatusEqual ignores the timestamps). */
function shape(s: PubStatus): unknown {
  return { ...s, disruptedPods: Object.keys(s.disruptedPods ?? {}).sort(), unavailablePods: Object.keys(s.unavailablePods ?? {}).sort() };
}

function statusAfter(pub: KubeObject, d: PubDecision): PubStatus {
  return d.allowed && d.status ? d.status : pubStatusOf(pub);
}

interface Row {
  name: string;
  oldPod: Pod;
  newPod?: Pod;
  /** undefined: the pod's related PUB does not exist */
  pub: KubeObject | undefined;
  operation?: BudgetOperation;
  dryRun?: boolean;
  allow: boolean;
  disrupted?: string[];
  unavailable?: string[];
  unavailableAllowed?: number;
}

function run(row: Row): void {
  test(row.name, () => {
    let op: BudgetOperation | undefined = row.operation;
    if (row.newPod) op = pubOperationForPodUpdate(row.oldPod, row.newPod, 'master');
    const d: PubDecision = op === undefined ? { allowed: true, reason: 'no unavailable change' } : validatePodForPub(row.oldPod, op, row.pub, { release: 'master', now: NOW, dryRun: row.dryRun ?? false });
    assert.equal(d.allowed, row.allow, d.allowed ? d.reason : d.message);
    if (!d.allowed) assert.equal(d.message, 'podunavailablebudget.policy.kruise.io "pub-test" is forbidden: pub unavailable allowed is negative');
    const expected = pubStatusOf(row.pub ?? pubDemo());
    const want = {
      ...expected,
      unavailableAllowed: row.unavailableAllowed ?? expected.unavailableAllowed,
      disruptedPods: row.disrupted ?? Object.keys(expected.disruptedPods ?? {}),
      unavailablePods: row.unavailable ?? Object.keys(expected.unavailablePods ?? {}),
    };
    assert.deepEqual(shape(statusAfter(row.pub ?? pubDemo(), d)), { ...want, disruptedPods: [...want.disruptedPods].sort(), unavailablePods: [...want.unavailablePods].sort() });
  });
}

// pod_unavailable_budget_test.go TestValidateUpdatePodForPub
const image18 = (p: Pod): void => {
  p.spec.containers[0]!.image = 'nginx:1.18';
};
run({ name: 'TestValidateUpdatePodForPub: valid update pod, allow', oldPod: podDemo(), newPod: podDemo(image18), pub: withAllowed(1)(pubDemo()), allow: true, unavailable: ['test-pod-0', 'test-pod-8'], unavailableAllowed: 0 });
run({ name: 'TestValidateUpdatePodForPub: valid update pod, reject', oldPod: podDemo(), newPod: podDemo(image18), pub: pubDemo(), allow: false });
run({
  name: 'TestValidateUpdatePodForPub: valid update pod, pod deletion, ignore',
  oldPod: podDemo((p) => (p.metadata.deletionTimestamp = NOW.toISOString())),
  newPod: podDemo((p) => {
    image18(p);
    p.metadata.deletionTimestamp = NOW.toISOString();
  }),
  pub: pubDemo(),
  allow: true,
});
run({ name: 'TestValidateUpdatePodForPub: valid update pod, pod status subresource, ignore', oldPod: podDemo(), newPod: podDemo(notReady), pub: pubDemo(), allow: true });
run({ name: 'TestValidateUpdatePodForPub: valid update pod, pod not ready, ignore', oldPod: podDemo(notReady), newPod: podDemo((p) => (notReady(p), image18(p))), pub: pubDemo(), allow: true });
run({
  name: 'TestValidateUpdatePodForPub: valid update pod, label and annotations, ignore',
  oldPod: podDemo(),
  newPod: podDemo((p) => {
    p.metadata.labels = { ...p.metadata.labels, aa: 'labela' };
    p.metadata.annotations = { ...p.metadata.annotations, ab: 'annob' };
  }),
  pub: pubDemo(),
  allow: true,
});
const inPlaceDone = (p: Pod): void => {
  p.metadata.annotations = {
    ...p.metadata.annotations,
    'apps.kruise.io/inplace-update-state': '{"revision":"new-revision","lastContainerStatuses":{"nginx":{"imageID":"nginx@sha256:53f029ad8b1058e966d6714a30d2582943c6e936f4b3c3b344a302c4567f471d"}}}',
  };
};
run({ name: 'TestValidateUpdatePodForPub: valid update pod, main container consistent and ready, reject', oldPod: podDemo(inPlaceDone), newPod: podDemo((p) => (inPlaceDone(p), image18(p))), pub: pubDemo(), allow: false });
run({
  name: 'TestValidateUpdatePodForPub: valid update pod, no matched pub, allow',
  oldPod: podDemo((p) => (p.metadata.annotations = {})),
  newPod: podDemo((p) => ((p.metadata.annotations = {}), image18(p))),
  pub: undefined,
  allow: true,
});
run({
  name: 'TestValidateUpdatePodForPub: valid update pod, recorded in pub, allow',
  oldPod: podDemo(),
  newPod: podDemo(image18),
  pub: ((pub) => ((pub.status as PubStatus).unavailablePods!['test-pod-0'] = '2026-11-29T00:00:00Z', pub))(pubDemo()),
  allow: true,
});
const digest = 'nginx@sha256:a9286defaba7b3a519d585ba0e37d0b2cbee74ebfe590960b0b1d6a5e97d1e1d';
run({
  name: 'TestValidateUpdatePodForPub: valid update pod, container image digest and consistent, reject',
  oldPod: podDemo((p) => ((p.spec.containers[0]!.image = digest), (p.status!.containerStatuses![0]!.image = digest))),
  newPod: podDemo((p) => ((p.spec.containers[0]!.image = 'sha256:04f32c9b5a29a3eb09cab973b72de4c3297bcf0b1834e05faa47d18bcc15f5f1'), (p.status!.containerStatuses![0]!.image = digest))),
  pub: pubDemo(),
  allow: false,
});
run({ name: 'TestValidateUpdatePodForPub: valid update pod, pub feature-gate annotation, allow', oldPod: podDemo(), newPod: podDemo(image18), pub: annotate('DELETE')(pubDemo()), allow: true });
run({ name: 'TestValidateUpdatePodForPub: valid update pod, pub feature-gate annotation, reject', oldPod: podDemo(), newPod: podDemo(image18), pub: annotate('UPDATE')(pubDemo()), allow: false });

// pod_unavailable_budget_test.go TestValidateEvictPodForPub
run({ name: 'TestValidateEvictPodForPub: evict pod, reject', oldPod: podDemo(), operation: 'EVICT', pub: pubDemo(), allow: false });
run({ name: 'TestValidateEvictPodForPub: evict pod, allow', oldPod: podDemo(), operation: 'EVICT', pub: withAllowed(1)(pubDemo()), allow: true, disrupted: ['test-pod-0', 'test-pod-9'], unavailableAllowed: 0 });
run({ name: 'TestValidateEvictPodForPub: evict pod, dry run', oldPod: podDemo(), operation: 'EVICT', pub: withAllowed(1)(pubDemo()), dryRun: true, allow: true, unavailableAllowed: 1 });
run({
  name: 'TestValidateEvictPodForPub: evict pod, allow (desiredAvailable 0)',
  oldPod: podDemo(),
  operation: 'EVICT',
  pub: ((pub) => ((pub.status = { totalReplicas: 0, desiredAvailable: 0, currentAvailable: 10, unavailableAllowed: 0 }), pub))(pubDemo()),
  allow: true,
});

// pod_unavailable_budget_test.go TestValidateDeletePodForPub
run({ name: 'TestValidateDeletePodForPub: delete pod, reject', oldPod: podDemo(), operation: 'DELETE', pub: pubDemo(), allow: false });
run({ name: 'TestValidateDeletePodForPub: delete pod, pub feature-gate annotation, allow', oldPod: podDemo(), operation: 'DELETE', pub: annotate('UPDATE')(pubDemo()), allow: true });
run({ name: 'TestValidateDeletePodForPub: delete pod, allow', oldPod: podDemo(), operation: 'DELETE', pub: withAllowed(1)(pubDemo()), allow: true, disrupted: ['test-pod-0', 'test-pod-9'], unavailableAllowed: 0 });
run({ name: 'TestValidateDeletePodForPub: delete pod, dry run', oldPod: podDemo(), operation: 'DELETE', pub: withAllowed(1)(pubDemo()), dryRun: true, allow: true, unavailableAllowed: 1 });

// pub_control_utils.go isPodNoProtection / master's v1beta1 spec fields (protectOperations, ignoredPodSelector)
run({ name: 'no-protect annotation exempts the pod', oldPod: podDemo((p) => (p.metadata.annotations!['pub.kruise.io/no-protect'] = 'true')), operation: 'DELETE', pub: pubDemo(), allow: true });
run({
  name: 'v1beta1 spec.protectOperations wins over the annotation',
  oldPod: podDemo(),
  operation: 'DELETE',
  pub: ((pub) => ((pub.spec as Record<string, unknown>).protectOperations = ['EVICT'], annotate('DELETE')(pub)))(pubDemo()),
  allow: true,
});
run({
  name: 'v1beta1 spec.ignoredPodSelector exempts matching pods',
  oldPod: podDemo(),
  operation: 'DELETE',
  pub: ((pub) => ((pub.spec as Record<string, unknown>).ignoredPodSelector = { matchLabels: { app: 'pub-controller' } }, pub))(pubDemo()),
  allow: true,
});

// v1.9 RESIZE: a cpu change the pod takes in place is RESIZE; with the InPlacePodVerticalScaling gate off it is guarded as UPDATE is
test('pubOperationForPodUpdate: cpu resize is RESIZE on v1.9, UPDATE before; RESIZE protected with the gate off only', () => {
  const oldPod = podDemo((p) => (p.spec.containers[0]!.resources = { requests: { cpu: '100m' } }));
  const newPod = podDemo((p) => (p.spec.containers[0]!.resources = { requests: { cpu: '200m' } }));
  assert.equal(pubOperationForPodUpdate(oldPod, newPod, 'v1.9'), 'RESIZE');
  assert.equal(pubOperationForPodUpdate(oldPod, newPod, 'v1.8'), 'UPDATE');
  const restart = podDemo((p) => ((p.spec.containers[0]!.resources = { requests: { cpu: '200m' } }), (p.spec.containers[0]!.resizePolicy = [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }])));
  assert.equal(pubOperationForPodUpdate(oldPod, restart, 'v1.9'), 'UPDATE');
  const off = validatePodForPub(oldPod, 'RESIZE', pubDemo(), { release: 'v1.9', now: NOW, inPlacePodVerticalScaling: false });
  assert.equal(off.allowed, false);
  const on = validatePodForPub(oldPod, 'RESIZE', pubDemo(), { release: 'v1.9', now: NOW, inPlacePodVerticalScaling: true });
  assert.equal(on.allowed, true);
});

// pub_control_utils.go isNeedPubProtection per release (v1.3/v1.8: an absent annotation protects all, else
// exactly the listed; v1.9: DELETE, UPDATE, EVICT by default, RESIZE with UPDATE while the gate is off;
// master: spec.protectOperations first, then the annotation), and both versions of one budget read alike
test('pubProtectedOperations across releases; v1alpha1 annotations and v1beta1 fields read the same', () => {
  const sorted = (s: Set<string>): string[] => [...s].sort();
  const plain = readPubSpec(pubDemo());
  assert.deepEqual(sorted(pubProtectedOperations(plain, { release: 'v1.8' })), ['DELETE', 'EVICT', 'RESIZE', 'UPDATE']);
  assert.deepEqual(sorted(pubProtectedOperations(plain, { release: 'v1.9' })), ['DELETE', 'EVICT', 'RESIZE', 'UPDATE']);
  assert.deepEqual(sorted(pubProtectedOperations(plain, { release: 'v1.9', inPlacePodVerticalScaling: true })), ['DELETE', 'EVICT', 'UPDATE']);
  const evict = readPubSpec(annotate('EVICT')(pubDemo()));
  assert.deepEqual(sorted(pubProtectedOperations(evict, { release: 'v1.3' })), ['EVICT']);
  assert.deepEqual(sorted(pubProtectedOperations(evict, { release: 'master' })), ['EVICT']);
  const alpha = pubDemo();
  alpha.apiVersion = 'policy.kruise.io/v1alpha1';
  alpha.metadata.annotations = { 'kruise.io/pub-protect-operations': 'DELETE,EVICT', 'pub.kruise.io/protect-total-replicas': '15' };
  const beta = pubDemo();
  (beta.spec as Record<string, unknown>).protectOperations = ['DELETE', 'EVICT'];
  (beta.spec as Record<string, unknown>).protectTotalReplicas = 15;
  const a = readPubSpec(alpha);
  const b = readPubSpec(beta);
  assert.deepEqual([a.protectOperations, a.protectTotalReplicas], [b.protectOperations, b.protectTotalReplicas]);
});
