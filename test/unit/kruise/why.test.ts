import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { budgetCoversWorkload, leftoverPatch, whyFindings, type WhyInput } from '../../../src/kruise/why/findings';
import type { KubeObject } from '../../../src/kruise/types';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'why');
const load = (f: string): Record<string, unknown> => parse(readFileSync(join(FIXTURES, f), 'utf8')) as Record<string, unknown>;
const codes = (input: WhyInput): string[] => whyFindings(input).map((f) => f.code);

// rollouts v0.6.2 pkg/controller/batchrelease/control/partitionstyle/deployment/control.go Finalize: resumed,
// RollingUpdate with the rollingUpdate saved in rollouts.kruise.io/deployment-strategy, the Advanced
// Deployment's annotations and labels gone. Before: the strategy came back as a bare {type: RollingUpdate}
// (the saved maxSurge/maxUnavailable lost) and the label, strategy annotation and control info stayed.
test('why: a partition-style Deployment left Recreate + paused is a RolloutLeftover; the conditional patch restores what Finalize would', () => {
  const w = load('deployment-recreate-leftover.yaml') as unknown as KubeObject;
  const fix = leftoverPatch(w, undefined)!;
  assert.ok(fix);
  assert.deepEqual(fix.ops.filter((o) => o.op !== 'test'), [
    { op: 'remove', path: '/metadata/annotations/batchrelease.rollouts.kruise.io~1control-info' },
    { op: 'remove', path: '/metadata/annotations/rollouts.kruise.io~1deployment-strategy' },
    { op: 'remove', path: '/metadata/annotations/rollouts.kruise.io~1in-progressing' },
    { op: 'remove', path: '/metadata/labels/rollouts.kruise.io~1stable-revision' },
    { op: 'remove', path: '/metadata/labels/rollouts.kruise.io~1controlled-by-advanced-deployment-controller' },
    { op: 'replace', path: '/spec/paused', value: false },
    { op: 'replace', path: '/spec/strategy/type', value: 'RollingUpdate' },
    { op: 'add', path: '/spec/strategy/rollingUpdate', value: { maxUnavailable: '25%', maxSurge: '25%' } },
  ]);
  // Every value it replaces or removes is tested first, as read.
  assert.deepEqual(fix.ops.filter((o) => o.op === 'test').map((o) => o.path).sort(), fix.ops.filter((o) => o.op === 'replace' || o.op === 'remove').map((o) => o.path).sort());
  assert.ok(codes({ workload: w as unknown as Record<string, unknown>, pods: [] }).includes('RolloutLeftover'));
  // During a live release nothing is a leftover.
  assert.equal(leftoverPatch(w, { status: { phase: 'Progressing' } }), undefined);
});

// bluegreenstyle/deployment/control.go Finalize + control/util.go GetOriginalSetting: minReadySeconds,
// progressDeadlineSeconds, maxSurge and maxUnavailable back from rollouts.kruise.io/original-deployment-strategy.
// Before: the inflated seconds were not seen at all.
test('why: a blue-green Deployment left with MaxReadySeconds / MaxProgressSeconds gets its saved settings back', () => {
  const w = load('deployment-bluegreen-leftover.yaml') as unknown as KubeObject;
  const fix = leftoverPatch(w, undefined)!;
  assert.match(fix.reasons.join('; '), /minReadySeconds 2147483646 \(MaxReadySeconds\) left by a blue-green release, saved 0; progressDeadlineSeconds 2147483647 \(MaxProgressSeconds\) left by a blue-green release, saved 600/);
  const changes = Object.fromEntries(fix.ops.filter((o) => o.op !== 'test').map((o) => [o.path, o.op === 'remove' ? 'removed' : o.value]));
  assert.deepEqual(changes, {
    '/metadata/annotations/rollouts.kruise.io~1original-deployment-strategy': 'removed',
    '/metadata/annotations/batchrelease.rollouts.kruise.io~1control-info': 'removed',
    '/metadata/labels/rollouts.kruise.io~1stable-revision': 'removed',
    '/spec/minReadySeconds': 0,
    '/spec/progressDeadlineSeconds': 600,
    '/spec/strategy/rollingUpdate/maxSurge': '25%',
    '/spec/strategy/rollingUpdate/maxUnavailable': '25%',
  });
});

// rollouts master partitionstyle/nativedaemonset/control.go Finalize: the type saved (a plain value) comes back,
// the release's annotations go. Before: the annotation was read as JSON, so only its default applied.
test('why: a native DaemonSet left OnDelete gets the saved update strategy type back; stale marks alone are removed', () => {
  const ds = load('daemonset-ondelete-leftover.yaml') as unknown as KubeObject;
  const fix = leftoverPatch(ds, undefined)!;
  assert.deepEqual(fix.ops.filter((o) => o.op === 'replace'), [{ op: 'replace', path: '/spec/updateStrategy/type', value: 'RollingUpdate' }]);
  assert.equal(fix.ops.filter((o) => o.op === 'remove').length, 4);
  const onDelete = { ...ds, metadata: { ...ds.metadata, annotations: { 'rollouts.kruise.io/daemonset-original-update-strategy': 'OnDelete' } } };
  assert.deepEqual(leftoverPatch(onDelete, undefined)!.ops.filter((o) => o.op !== 'test'), [{ op: 'remove', path: '/metadata/annotations/rollouts.kruise.io~1daemonset-original-update-strategy' }], 'OnDelete was the user\'s own');
  const cs = load('cloneset-stale-release-marks.yaml') as unknown as KubeObject;
  const marks = leftoverPatch(cs, undefined)!;
  assert.deepEqual(marks.reasons, ['stale annotation rollouts.kruise.io/in-progressing', 'stale annotation batchrelease.rollouts.kruise.io/control-info']);
  assert.deepEqual(marks.ops.map((o) => o.op), ['test', 'test', 'remove', 'remove']);
});

// kruise pkg/controller/cloneset/sync/cloneset_scale.go: no creation while not-ready pods reach scaleStrategy.maxUnavailable (kruise#2385).
test('why: CloneSet scale throttled by scaleStrategy.maxUnavailable', () => {
  const f = load('cloneset-scale-throttled.yaml') as unknown as WhyInput;
  const found = whyFindings(f).find((x) => x.code === 'ScaleThrottled');
  assert.ok(found);
  assert.deepEqual(found.objects, ['cloneset/api', 'pod/api-a', 'pod/api-b']);
});

// kruise pkg/util/lifecycle (PreparingUpdate), pkg/util/pod readiness gate KruisePodReady, policy PUB status.unavailableAllowed.
test('why: lifecycle hook, readiness gate, image pull and exhausted budget name their pods', () => {
  const f = load('pods-held.yaml') as unknown as WhyInput;
  assert.deepEqual(codes(f).sort(), ['BudgetExhausted', 'ImagePull', 'LifecycleHookHolds', 'ReadinessGateFalse']);
});

// kruise pkg/controller/sidecarset/sidecarset_strategy.go:154 scales maxUnavailable against matched pods.
// Before: "before v1.8.0", but v1.7.5 has kruise#1834's fix too (git tag --contains 4661b6e02: v1.7.5, v1.8.0).
test('why: SidecarSet maxUnavailable 5% of 6 rounds to 0 on Kruise v1.7.4 and earlier (GetValueFromIntOrPercent(..., false) at v1.3.0-v1.7.4; true from v1.7.5 and v1.8.0, sidecarset_strategy.go:154): the finding names the releases', () => {
  const w = { kind: 'SidecarSet', metadata: { name: 'log' }, spec: { updateStrategy: { maxUnavailable: '5%' } }, status: { matchedPods: 6, updatedPods: 0 } };
  assert.deepEqual(codes({ workload: w, pods: [] }), ['MaxUnavailableRoundsToZero']);
  const [f] = whyFindings({ workload: w, pods: [] });
  assert.match(f!.cause, /is 0 on Kruise v1\.7\.4 and earlier, which round it down \(kruise#1812\).*v1\.7\.5, v1\.8\.0 and later round it up to 1\)$/);
});

test('why: the partition patch names the field the kind has (rollingUpdate.partition for an Advanced StatefulSet)', () => {
  const asts = { kind: 'StatefulSet', apiVersion: 'apps.kruise.io/v1beta1', metadata: { name: 'db', generation: 2 }, spec: { replicas: 4, updateStrategy: { rollingUpdate: { partition: 2 } } }, status: { observedGeneration: 2, updatedReplicas: 2 } };
  const [f] = whyFindings({ workload: asts, pods: [] });
  assert.equal(f!.code, 'PartitionHolds');
  assert.match(f!.next, /'\{"spec":\{"updateStrategy":\{"rollingUpdate":\{"partition":0\}\}\}\}'$/);
});

test('why: paused, partition, controller not observing; healthy is nothing', () => {
  const w = { kind: 'CloneSet', metadata: { name: 'a', generation: 5 }, spec: { replicas: 4, updateStrategy: { paused: true, partition: 2 } }, status: { observedGeneration: 4, updatedReplicas: 2 } };
  assert.deepEqual(codes({ workload: w, pods: [] }), ['ControllerNotObserving', 'Paused', 'PartitionHolds']);
  const ok = { kind: 'CloneSet', metadata: { name: 'a', generation: 5 }, spec: { replicas: 4 }, status: { observedGeneration: 5, updatedReplicas: 4 } };
  assert.deepEqual(codes({ workload: ok, pods: [] }), []);
});

// Which budgets guard a workload's pods (judged on its template labels). kruise
// pkg/controller/podunavailablebudget/pub_pod_event_handler.go GetPubForPod: targetRef first, and
// "a PUB with a nil or empty selector ... should match nothing"; policy/v1: an empty PDB selector
// matches every pod. Before: matchExpressions were ignored (a budget selecting by them was missed).
const front = { kind: 'CloneSet', metadata: { name: 'front' }, spec: { template: { metadata: { labels: { app: 'shop', tier: 'front' } } } } };
for (const [name, budget, covers] of [
  ['PUB matchLabels', { kind: 'PodUnavailableBudget', spec: { selector: { matchLabels: { app: 'shop' } } } }, true],
  ['PUB matchExpressions only (was missed)', { kind: 'PodUnavailableBudget', spec: { selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] } } }, true],
  ['PUB matchExpressions of another tier', { kind: 'PodUnavailableBudget', spec: { selector: { matchLabels: { app: 'shop' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] } } }, false],
  ['PUB empty selector matches nothing', { kind: 'PodUnavailableBudget', spec: { selector: {} } }, false],
  ['PUB targetRef to this CloneSet, selector of another', { kind: 'PodUnavailableBudget', spec: { targetRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'front' }, selector: { matchLabels: { app: 'other' } } } }, true],
  ['PUB targetRef to another workload', { kind: 'PodUnavailableBudget', spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'front' } } }, false],
  ['PDB empty selector matches every pod', { kind: 'PodDisruptionBudget', spec: { selector: {} } }, true],
  ['PDB without a selector matches none', { kind: 'PodDisruptionBudget', spec: { minAvailable: 1 } }, false],
  ['PDB matchExpressions Exists (was missed)', { kind: 'PodDisruptionBudget', spec: { selector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] } } }, true],
] as const) {
  test(`why: budget covers the workload: ${name} → ${covers}`, () => {
    assert.equal(budgetCoversWorkload(budget as unknown as Record<string, unknown>, front), covers);
  });
}

// kruise pkg/controller/cloneset/sync/cloneset_update.go (step 6): the CloneSet asks only a PodUnavailableBudget
// (PodUnavailableBudgetValidatePod) before updating a pod; a PodDisruptionBudget guards evictions, which no
// workload controller makes. Before: a PDB allowing 0 disruptions was blamed for an update it does not hold.
test('why: BudgetExhausted names a PodUnavailableBudget, never a PodDisruptionBudget; with every pod ready its next relaxes the budget', () => {
  const w = { kind: 'CloneSet', metadata: { name: 'web', generation: 2 }, spec: { replicas: 2 }, status: { observedGeneration: 2, updatedReplicas: 0 } };
  const ready = { metadata: { name: 'web-a' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
  const pdb = { kind: 'PodDisruptionBudget', metadata: { name: 'web' }, status: { disruptionsAllowed: 0 } };
  assert.deepEqual(codes({ workload: w, pods: [ready], budgets: [pdb] }), []);
  const pub = { kind: 'PodUnavailableBudget', metadata: { name: 'web' }, status: { unavailableAllowed: 0, desiredAvailable: 2, currentAvailable: 2 } };
  const [f] = whyFindings({ workload: w, pods: [ready], budgets: [pub] });
  assert.equal(f!.code, 'BudgetExhausted');
  assert.deepEqual(f!.objects, ['podunavailablebudget/web', 'cloneset/web']);
  assert.equal(f!.next, `kubectl patch podunavailablebudget/web --type=merge -p '{"spec":{"maxUnavailable":1,"minAvailable":null}}'`);
  const spent = whyFindings({ workload: w, pods: [ready, { metadata: { name: 'web-b' }, status: { conditions: [{ type: 'Ready', status: 'False' }] } }], budgets: [pub] })[0]!;
  assert.deepEqual(spent.objects, ['podunavailablebudget/web', 'cloneset/web', 'pod/web-b']);
  assert.match(spent.next, /^kubectl describe pod\/web-b /);
});

// kruise pkg/controller/cloneset/sync/cloneset_sync_utils.go calculateDiffsWithExpectation: totalUnavailable counts
// PreparingDelete pods, ready or not, and only active pods count. Before: a ready pod held by its preDelete hook was
// not counted (no finding while creation was stopped) and a terminating pod was.
test('why: ScaleThrottled counts PreparingDelete pods as unavailable and leaves terminating pods out', () => {
  const w = { kind: 'CloneSet', metadata: { name: 'api', generation: 1 }, spec: { replicas: 3, scaleStrategy: { maxUnavailable: 1 } }, status: { observedGeneration: 1, updatedReplicas: 1 } };
  const ready = (name: string, extra: Record<string, unknown> = {}) => ({ metadata: { name, ...extra }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
  const held = ready('api-a', { labels: { 'lifecycle.apps.kruise.io/state': 'PreparingDelete' } });
  const f = whyFindings({ workload: w, pods: [held, ready('api-b')] }).find((x) => x.code === 'ScaleThrottled');
  assert.deepEqual(f?.objects, ['cloneset/api', 'pod/api-a']);
  const gone = { metadata: { name: 'api-c', deletionTimestamp: '2026-01-01T00:00:00Z' }, status: { conditions: [{ type: 'Ready', status: 'False' }] } };
  assert.equal(whyFindings({ workload: w, pods: [ready('api-a'), ready('api-b'), gone] }).find((x) => x.code === 'ScaleThrottled'), undefined);
});

// kruise pkg/util/lifecycle/lifecycle_utils.go IsPodHooked / IsPodAllHooked (kruise#369). Before: the next step
// only printed the pod's labels; it now takes the hook's own labels and finalizers off (on, for preNormal).
test('why: LifecycleHookHolds names the hook that is on and the exact patch that releases it', () => {
  const f = whyFindings(load('pods-held.yaml') as unknown as WhyInput).find((x) => x.code === 'LifecycleHookHolds')!;
  assert.deepEqual(f.objects, ['pod/shop-a', 'cloneset/shop']);
  assert.match(f.cause, /inPlaceUpdate hook \(label example\.io\/traffic-on=true, finalizer example\.io\/drain\) is still on/);
  assert.equal(
    f.next.replace(/\s+#.*$/, ''),
    `kubectl label pod/shop-a example.io/traffic-on- && kubectl patch pod/shop-a --type=json -p '[{"op":"test","path":"/metadata/finalizers/1","value":"example.io/drain"},{"op":"remove","path":"/metadata/finalizers/1"}]'`,
  );
  const w = { kind: 'CloneSet', metadata: { name: 'web' }, spec: { replicas: 1, lifecycle: { preNormal: { labelsHandler: { 'example.io/lb': 'on' } }, preDelete: { finalizersHandler: ['example.io/drain'] } } }, status: {} };
  const normal = whyFindings({ workload: w, pods: [{ metadata: { name: 'web-a', labels: { 'lifecycle.apps.kruise.io/state': 'PreparingNormal' } } }] })[0]!;
  assert.equal(normal.next.replace(/\s+#.*$/, ''), 'kubectl label pod/web-a --overwrite example.io/lb=on');
  // A PreparingDelete pod whose hook is already off is not held (the controller deletes it at its next sync).
  assert.deepEqual(codes({ workload: w, pods: [{ metadata: { name: 'web-b', labels: { 'lifecycle.apps.kruise.io/state': 'PreparingDelete' } } }] }), []);
});

// kubelet pkg/kubelet/status/generate.go GeneratePodReadyCondition: a gate whose condition is absent keeps the pod
// out of Ready ("corresponding condition of pod readiness gate ... does not exist"). Before: only a False condition
// was reported, with a dump of every condition as the next step.
test('why: ReadinessGateFalse: an absent custom gate once the containers are ready, set on the status subresource; a Kruise gate is read, not set', () => {
  const w = { kind: 'CloneSet', metadata: { name: 'lb' }, spec: { replicas: 1 }, status: {} };
  const pod = (conditions: unknown[]) => ({ metadata: { name: 'lb-a' }, spec: { readinessGates: [{ conditionType: 'example.io/lb-registered' }] }, status: { phase: 'Running', conditions } });
  assert.deepEqual(codes({ workload: w, pods: [pod([{ type: 'ContainersReady', status: 'False' }])] }), []);
  const [f] = whyFindings({ workload: w, pods: [pod([{ type: 'ContainersReady', status: 'True' }, { type: 'Ready', status: 'False' }])] });
  assert.equal(f!.code, 'ReadinessGateFalse');
  assert.deepEqual(f!.objects, ['pod/lb-a', 'cloneset/lb']);
  assert.equal(f!.next.replace(/\s+#.*$/, ''), `kubectl patch pod/lb-a --subresource=status --type=strategic -p '{"status":{"conditions":[{"type":"example.io/lb-registered","status":"True"}]}}'`);
  const k = whyFindings(load('pods-held.yaml') as unknown as WhyInput).find((x) => x.code === 'ReadinessGateFalse')!;
  assert.equal(k.next, `kubectl get pod/shop-b -o jsonpath='{.status.conditions[?(@.type=="KruisePodReady")]}'`);
});

// Before: every lag answered "kubectl -n kruise-system get pods", also for a Deployment (kube-controller-manager's).
test('why: ControllerNotObserving says which manager runs the controller and, for kruise-manager read back, what to do about it', () => {
  const cs = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'web', generation: 3 }, spec: { replicas: 1 }, status: { observedGeneration: 2, updatedReplicas: 1 } };
  const manager = load('../preview/kruise-controller-manager.yaml');
  const next = (m: Record<string, unknown> | null | undefined): string => whyFindings({ workload: cs, pods: [], manager: m })[0]!.next;
  assert.equal(next(manager), 'kubectl -n kruise-system scale deployment/kruise-controller-manager --replicas=1');
  assert.equal(next({ ...manager, spec: { replicas: 2 }, status: { replicas: 2 } }), 'kubectl -n kruise-system describe deployment/kruise-controller-manager  # why are its pods not available?');
  assert.match(next({ ...manager, spec: { replicas: 2 }, status: { availableReplicas: 2 } }), /^kubectl -n kruise-system logs deployment\/kruise-controller-manager --tail=200 /);
  assert.match(next(null), /^kubectl -n kruise-system get deployment\/kruise-controller-manager /);
  const dep = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', generation: 3 }, spec: { replicas: 1 }, status: { observedGeneration: 2, updatedReplicas: 1 } };
  const [f] = whyFindings({ workload: dep, pods: [] });
  assert.equal(f!.next, 'kubectl -n kube-system get pods -l component=kube-controller-manager  # is kube-controller-manager running?');
});

// kruise pkg/controller/uniteddeployment/uniteddeployment_controller.go:491: under a Manual strategy,
// manualUpdate.partitions[subset] is that subset workload's partition. Before: "nothing blocks it".
test('why: a UnitedDeployment subset held by manualUpdate.partitions is PartitionHolds, with the patch that releases it', () => {
  const ud = load('uniteddeployment-manual-partition.yaml');
  const found = whyFindings({ workload: ud, pods: [] }).find((f) => f.code === 'PartitionHolds');
  assert.ok(found);
  assert.equal(found.cause, "manualUpdate.partitions keeps 2 of subset a's 2 pods on the old revision");
  assert.equal(found.next, `kubectl patch uniteddeployment/ud --type=merge -p '{"spec":{"updateStrategy":{"manualUpdate":{"partitions":{"a":0}}}}}'`);
  // Not Manual: the partitions are not applied, nothing is held.
  const auto = { ...ud, spec: { ...(ud.spec as Record<string, unknown>), updateStrategy: { type: 'Auto', manualUpdate: { partitions: { a: 2 } } } } };
  assert.equal(whyFindings({ workload: auto, pods: [] }).some((f) => f.code === 'PartitionHolds'), false);
});
