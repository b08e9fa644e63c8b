// Pure CloneSet rules: one reconcile step (scale vs update, surge, maxUnavailable), the status
// Kruise writes, the Progressing condition, in-place plans and the webhook rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cloneSetExpectedUpdatedReplicas, cloneSetStatus, isKruisePodReady, readCloneSetSpec } from '../../../../src/kruise/rules/cloneset';
import {
  compareUpdatePriority,
  planCloneSetSync,
  podUpdatePriority,
  sortPodsToUpdate,
  type PlannedPod,
  type UpdatePriorityStrategy,
} from '../../../../src/kruise/rules/cloneset-plan';
import { inPlaceUpdatePlan, inPlaceUpdateCompleted, applyInPlaceUpdate, finishInPlaceGracePeriod, INPLACE_UPDATE_GRACE_ANNOTATION } from '../../../../src/kruise/rules/cloneset-inplace';
import { cloneSetDefaults, validateCloneSet } from '../../../../src/kruise/rules/cloneset-webhook';
import type { Pod } from '../../../../src/kruise/types';
import { cloneSetAdapter } from '../../../../src/kruise/workloads/cloneset';
import { fixture } from '../../sandbox/controllers/cloneset-harness';

function pods(n: number, over: Partial<PlannedPod> = {}, prefix = 'p'): PlannedPod[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `${prefix}${i}`,
    updated: false,
    ready: true,
    available: true,
    scheduled: true,
    phase: 'Running',
    creationTimestamp: `2026-01-01T00:00:0${i % 10}Z`,
    specifiedDelete: false,
    ...over,
  }));
}
const base = { replicas: 8, partitionReplicas: 0, maxUnavailable: 2, maxSurge: 0, paused: false, policy: 'InPlaceIfPossible' as const };

test('partition 7 of 8: one pod to update (the newest, kube ActivePods order), none when it is done', () => {
  assert.deepEqual(planCloneSetSync({ ...base, partitionReplicas: 7, pods: pods(8) }), { kind: 'update', pods: ['p7'] });
  const done = [...pods(7), ...pods(1, { updated: true }, 'n')];
  assert.deepEqual(planCloneSetSync({ ...base, partitionReplicas: 7, pods: done }), { kind: 'none' });
});

test('maxUnavailable bounds the update; unavailable updated pods block further updates', () => {
  assert.deepEqual(planCloneSetSync({ ...base, pods: pods(8) }), { kind: 'update', pods: ['p7', 'p6'] });
  const mid = [...pods(6), ...pods(2, { updated: true, ready: false, available: false }, 'n')];
  assert.deepEqual(planCloneSetSync({ ...base, pods: mid }), { kind: 'none' });
  // an old pod that is already unavailable is updated first and costs nothing
  const sick = [...pods(7), ...pods(1, { ready: false, available: false }, 's')];
  assert.deepEqual(planCloneSetSync({ ...base, maxUnavailable: 1, pods: sick }), { kind: 'update', pods: ['s0'] });
});

test('paused or OnDelete: scaling only', () => {
  assert.deepEqual(planCloneSetSync({ ...base, paused: true, pods: pods(8) }), { kind: 'none' });
  assert.deepEqual(planCloneSetSync({ ...base, policy: 'OnDelete', pods: pods(6) }), { kind: 'scale', createOld: 0, createNew: 2, deletePods: [] });
});

test('scale up keeps `partition` pods at the old revision; scale down deletes old, then not-ready pods first', () => {
  assert.deepEqual(planCloneSetSync({ ...base, partitionReplicas: 3, pods: pods(1) }), { kind: 'scale', createOld: 2, createNew: 5, deletePods: [] });
  const mixed = [...pods(2), ...pods(3, { updated: true }, 'n'), ...pods(1, { updated: true, ready: false, available: false }, 'x')];
  const step = planCloneSetSync({ ...base, replicas: 3, pods: mixed });
  assert.equal(step.kind, 'scale');
  assert.deepEqual(step.kind === 'scale' && step.deletePods.slice(0, 2).sort(), ['p0', 'p1']);
  assert.equal(step.kind === 'scale' && step.deletePods[2], 'x0');
});

test('maxSurge: creates a surge pod at the update revision, removes it at the end', () => {
  assert.deepEqual(planCloneSetSync({ ...base, replicas: 4, maxSurge: 1, maxUnavailable: 0, policy: 'ReCreate', pods: pods(4) }), { kind: 'scale', createOld: 0, createNew: 1, deletePods: [] });
  const end = pods(5, { updated: true });
  const step = planCloneSetSync({ ...base, replicas: 4, maxSurge: 1, maxUnavailable: 0, policy: 'ReCreate', pods: end });
  assert.equal(step.kind === 'scale' && step.deletePods.length, 1);
});

test('podsToDelete are deleted before anything else', () => {
  const list = pods(3);
  list[1].specifiedDelete = true;
  assert.deepEqual(planCloneSetSync({ ...base, replicas: 3, pods: list }), { kind: 'delete-specified', pods: ['p1'] });
});

test('status: expectedUpdatedReplicas as given, omitted when 0; currentRevision moves when all updated', () => {
  const input = { generation: 3, specReplicas: 8, expectedUpdatedReplicas: 1, updateRevision: 'web-new', previousCurrentRevision: 'web-old', collisionCount: 0, labelSelector: 'app=web' };
  const some = cloneSetStatus({ ...input, pods: [...Array(7).fill({ updated: false, ready: true, available: true }), { updated: true, ready: true, available: true }] });
  assert.equal(some.expectedUpdatedReplicas, 1);
  assert.equal(some.updatedReadyReplicas, 1);
  assert.equal(some.currentRevision, 'web-old');
  const none = cloneSetStatus({ ...input, expectedUpdatedReplicas: 0, pods: [] });
  assert.equal('expectedUpdatedReplicas' in none, false);
  const all = cloneSetStatus({ ...input, expectedUpdatedReplicas: 8, pods: Array(8).fill({ updated: true, ready: false, available: false }) });
  assert.equal(all.currentRevision, 'web-new', 'updatedReplicas == replicas == spec.replicas');
});

const cs = (apiVersion: string, updateStrategy: Record<string, unknown>) => ({ apiVersion: `apps.kruise.io/${apiVersion}`, kind: 'CloneSet', metadata: { name: 'web' }, spec: { replicas: 8, updateStrategy } });
test('expectedUpdatedReplicas = replicas − partition, OnDelete too (pkg/controller/cloneset/cloneset_status.go calculateStatus, v1.9.0 and main)', () => {
  assert.equal(cloneSetExpectedUpdatedReplicas(cs('v1alpha1', { type: 'ReCreate', partition: '90%' })), 1, 'v1.2 release note: 8 × 90% → 7 kept');
  assert.equal(cloneSetExpectedUpdatedReplicas(cs('v1alpha1', { type: 'OnDelete', partition: 3 })), 5);
  assert.equal(cloneSetExpectedUpdatedReplicas(cs('v1beta1', { type: 'OnDelete', rollingUpdate: { partition: 3 } })), 5);
  assert.equal(cloneSetExpectedUpdatedReplicas(cs('v1beta1', { type: 'OnDelete' })), 8, 'no rollingUpdate: replicas');
  assert.equal(cloneSetExpectedUpdatedReplicas(cs('v1beta1', { type: 'RollingUpdate', rollingUpdate: { partition: 8 } })), 0);
});

test('in-place plan: images and metadata only; anything else needs a recreate', () => {
  const a = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25', ports: [{ containerPort: 80 }] }] } };
  const b = structuredClone(a);
  b.spec.containers[0].image = 'nginx:1.26';
  (b.metadata as { annotations?: Record<string, string> }).annotations = { x: 'y' };
  assert.deepEqual(inPlaceUpdatePlan(a, b), { containerImages: { c: 'nginx:1.26' }, labels: {}, annotations: { x: 'y' }, envFromMetadataContainers: [], containerResources: {}, resizeRestartContainers: [] });
  const c = structuredClone(a);
  (c.spec.containers[0] as Record<string, unknown>).env = [{ name: 'A', value: '1' }];
  assert.equal(inPlaceUpdatePlan(a, c), undefined);
  const pod = { metadata: { name: 'p', labels: { 'controller-revision-hash': 'web-old', 'pod-template-hash': 'old' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] }, status: { containerStatuses: [{ name: 'c', image: 'nginx:1.25', imageID: 'id1', ready: true, restartCount: 0 }] } } as Pod;
  const next = applyInPlaceUpdate(pod, inPlaceUpdatePlan(a, b)!, 'web-new', new Date());
  assert.equal(next.spec.containers[0].image, 'nginx:1.26');
  assert.equal(next.metadata.labels!['controller-revision-hash'], 'web-new');
  assert.equal(next.metadata.labels!['pod-template-hash'], 'new');
  assert.equal(inPlaceUpdateCompleted(next), false, 'kubelet still runs the old image');
  next.status!.containerStatuses = [{ name: 'c', image: 'nginx:1.26', imageID: 'id2', ready: false, restartCount: 1 }];
  assert.equal(inPlaceUpdateCompleted(next), true);
});

test('readiness: InPlaceUpdateReady False makes a Ready pod not ready', () => {
  const p = { metadata: {}, spec: { containers: [] }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }, { type: 'InPlaceUpdateReady', status: 'False' }] } } as Pod;
  assert.equal(isKruisePodReady(p), false);
  p.status!.conditions![1].status = 'True';
  assert.equal(isKruisePodReady(p), true);
});

test('both shapes read the same, and agree with the shared workload adapter', () => {
  for (const f of ['cloneset-v1alpha1.yaml', 'cloneset-v1beta1.yaml']) {
    const obj = cloneSetDefaults(fixture(f)[0]);
    const v = readCloneSetSpec(obj);
    assert.equal(v.policy, 'InPlaceIfPossible');
    assert.equal(v.policy, cloneSetAdapter.updatePolicy(obj));
    assert.equal(v.maxUnavailable, cloneSetAdapter.maxUnavailable(obj));
    assert.equal(v.partition, cloneSetAdapter.partition(obj));
    assert.deepEqual(validateCloneSet(obj), []);
  }
});

test('webhook: field paths follow the shape (rollingUpdate on v1beta1)', () => {
  const beta = fixture('cloneset-v1beta1.yaml')[0] as { spec: Record<string, any> } & Parameters<typeof validateCloneSet>[0];
  beta.spec.updateStrategy.rollingUpdate.partition = '90';
  assert.deepEqual(validateCloneSet(beta).map((e) => e.field), ['spec.updateStrategy.rollingUpdate.partition']);
  const zero = fixture('cloneset-v1alpha1.yaml')[0] as { spec: Record<string, any> } & Parameters<typeof validateCloneSet>[0];
  zero.spec.updateStrategy = { maxUnavailable: 0, maxSurge: 0 };
  assert.equal(validateCloneSet(zero)[0]?.field, 'spec.updateStrategy.maxUnavailable');
});

test('webhook: update strategy types per shape', () => {
  const alpha = fixture('cloneset-v1alpha1.yaml')[0] as { spec: Record<string, any> } & Parameters<typeof validateCloneSet>[0];
  alpha.spec.updateStrategy.type = 'RollingUpdate';
  assert.match(JSON.stringify(validateCloneSet(alpha)), /NotSupported.*spec\.updateStrategy\.type/);
  const beta = fixture('cloneset-v1beta1.yaml')[0] as { spec: Record<string, any> } & Parameters<typeof validateCloneSet>[0];
  beta.spec.updateStrategy.rollingUpdate.podUpdatePolicy = 'Rolling';
  assert.equal(validateCloneSet(beta)[0].field, 'spec.updateStrategy.rollingUpdate.podUpdatePolicy');
});

test('scaleStrategy.maxUnavailable limits how many not-ready pods scaling up creates', () => {
  const step = planCloneSetSync({ ...base, replicas: 8, scaleMaxUnavailable: 2, pods: [...pods(2), ...pods(1, { ready: false, available: false }, 'x')] });
  assert.deepEqual(step, { kind: 'scale', createOld: 0, createNew: 1, deletePods: [] });
  assert.deepEqual(planCloneSetSync({ ...base, scaleMaxUnavailable: 1, pods: pods(1, { ready: false, available: false }) }), { kind: 'none' });
});

test('priorityStrategy: higher weight (or ordered label value) is updated first', () => {
  const weight = { weightPriority: [{ weight: 50, matchSelector: { matchLabels: { tier: 'canary' } } }] };
  assert.deepEqual(podUpdatePriority(weight, { tier: 'canary' }), [50]);
  assert.deepEqual(podUpdatePriority(weight, { tier: 'main' }), [0]);
  assert.deepEqual(podUpdatePriority({ orderPriority: [{ orderedKey: 'shard' }] }, { shard: 'shard-12' }), [0, 12]);
  const list = pods(3);
  list[2].updatePriority = [50];
  assert.deepEqual(planCloneSetSync({ ...base, replicas: 3, maxUnavailable: 1, pods: list }), { kind: 'update', pods: ['p2'] });
});

test('pods in an in-place grace period are not chosen for an update (pkg/controller/cloneset/sync/cloneset_update.go Update: "still in grace period")', () => {
  const list = pods(4);
  list[0].inGracePeriod = true;
  assert.deepEqual(planCloneSetSync({ ...base, replicas: 4, pods: list }), { kind: 'update', pods: ['p3', 'p2'] });
});

test('finishGracePeriod drops a grace spec whose revision the pod no longer has (pkg/util/inplaceupdate/inplace_update.go finishGracePeriod)', () => {
  const pod = {
    metadata: {
      name: 'web-a',
      labels: { 'controller-revision-hash': 'web-3' },
      annotations: { [INPLACE_UPDATE_GRACE_ANNOTATION]: JSON.stringify({ revision: 'web-2', containerImages: { app: 'nginx:2' }, graceSeconds: 60, startedAt: '2026-01-01T00:00:00.000Z' }) },
    },
    spec: { containers: [{ name: 'app', image: 'nginx:1' }] },
  } as unknown as Pod;
  const res = finishInPlaceGracePeriod(pod, new Date('2026-01-01T00:00:01Z'));
  assert.ok(res && 'pod' in res, 'not waiting for a stale grace period');
  assert.equal(res.pod.metadata.annotations?.[INPLACE_UPDATE_GRACE_ANNOTATION], undefined);
  assert.equal(res.pod.spec.containers[0].image, 'nginx:1', 'the stale parked image is not applied');
  pod.metadata.labels!['controller-revision-hash'] = 'web-2';
  assert.deepEqual(finishInPlaceGracePeriod(pod, new Date('2026-01-01T00:00:01Z')), { waitMs: 59_000 });
});

const envReading = (path: string) => [{ name: 'TEST_ENV', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: path } } }];
test('TestCalculateInPlaceUpdateSpec row "env from metadata.labels[\'k\'], k changed, k1 added" (pkg/util/inplaceupdate/inplace_update_test.go)', () => {
  const before = { metadata: { labels: { k: 'v' } }, spec: { containers: [{ name: 'c1', image: 'foo1', env: envReading("metadata.labels['k']") }] } };
  const after = { metadata: { labels: { k: 'v2', k1: 'v1' } }, spec: { containers: [{ name: 'c1', image: 'foo2', env: envReading("metadata.labels['k']") }] } };
  const plan = inPlaceUpdatePlan(before, after)!;
  assert.deepEqual(plan.containerImages, { c1: 'foo2' });
  assert.deepEqual(plan.envFromMetadataContainers, ['c1'], 'UpdateEnvFromMetadata: c1 reads the changed label');
  assert.deepEqual(plan.labels, { k: 'v2', k1: 'v1' });
  // the InPlaceUpdateEnvFromMetadata gate off (Kruise v1.3 default): no restart for metadata
  assert.deepEqual(inPlaceUpdatePlan(before, after, { envFromMetadata: false })!.envFromMetadataContainers, []);
});

test('InPlaceUpdateEnvFromMetadata: only add/replace of a referenced key restarts, annotations too, SIDECARSET_VERSION ignored (pkg/util/inplaceupdate/inplace_update_defaults.go defaultCalculateInPlaceUpdateSpec, pkg/util/containermeta/env_hash.go IsContainerReferenceToMeta)', () => {
  const tpl = (labels: Record<string, string>, annotations: Record<string, string>) => ({
    metadata: { labels, annotations },
    spec: {
      containers: [
        { name: 'app', image: 'a', env: envReading("metadata.annotations['cfg']") },
        { name: 'side', image: 's', env: [{ name: 'SIDECARSET_VERSION', valueFrom: { fieldRef: { fieldPath: "metadata.labels['ver']" } } }] },
        { name: 'plain', image: 'p' },
      ],
    },
  });
  assert.deepEqual(inPlaceUpdatePlan(tpl({ ver: '1' }, { cfg: 'x' }), tpl({ ver: '2' }, { cfg: 'y' }))!.envFromMetadataContainers, ['app']);
  assert.deepEqual(inPlaceUpdatePlan(tpl({}, { cfg: 'x' }), tpl({}, {}))!.envFromMetadataContainers, [], 'a removed key restarts nothing');
});

// TestCompare (pkg/util/updatesort/priority_sort_test.go): compare(podI, podJ, true) is true when I may go first
const W2 = { weightPriority: [{ weight: 20, matchSelector: { matchLabels: { key: 'foo' } } }, { weight: 10, matchSelector: { matchLabels: { key: 'bar' } } }] };
const W3 = (w3: number): UpdatePriorityStrategy => ({
  weightPriority: [
    { weight: 20, matchSelector: { matchLabels: { key1: 'foo' } } },
    { weight: 10, matchSelector: { matchLabels: { key2: 'bar' } } },
    { weight: w3, matchSelector: { matchLabels: { key3: 'baz' } } },
  ],
});
const ORD = { orderPriority: [{ orderedKey: 'key1' }, { orderedKey: 'key2' }] };
const compareRows: Array<[string, UpdatePriorityStrategy, Record<string, string>, Record<string, string>, boolean]> = [
  ['weight, no labels', W2, {}, {}, true],
  ['weight, same label', W2, { key: 'foo' }, { key: 'foo' }, true],
  ['weight, bar vs foo', W2, { key: 'bar' }, { key: 'foo' }, false],
  ['weight, none vs bar', W2, {}, { key: 'bar' }, false],
  ['weight, none vs foo', W2, {}, { key: 'foo' }, false],
  ['weight, 20 vs 10+15', W3(15), { key1: 'foo' }, { key2: 'bar', key3: 'baz' }, false],
  ['weight, 10+5 vs 20', W3(5), { key2: 'bar', key3: 'baz' }, { key1: 'foo' }, false],
  ['order, no labels', ORD, {}, {}, true],
  ['order, o-10 vs o-5', ORD, { key1: 'o-10' }, { key1: 'o-5' }, true],
  ['order, o-10 vs o-10', ORD, { key1: 'o-10' }, { key1: 'o-10' }, true],
  ['order, o-10 vs o-20', ORD, { key1: 'o-10' }, { key1: 'o-20' }, false],
  ['order, key2 vs key1', ORD, { key2: 'o-20' }, { key1: 'o-10' }, false],
  ['order, key2 o-20 vs key2 o-10', ORD, { key2: 'o-20' }, { key2: 'o-10' }, true],
];
for (const [name, strategy, i, j, want] of compareRows) {
  test(`TestCompare row "${name}" (pkg/util/updatesort/priority_sort_test.go)`, () => {
    assert.equal(compareUpdatePriority(podUpdatePriority(strategy, i), podUpdatePriority(strategy, j)) <= 0, want);
  });
}

test('TestSortUpdateIndexes: not-ready before ready, pending before running (pkg/controller/cloneset/sync/cloneset_update_test.go)', () => {
  const p = (name: string, phase: string, ready: boolean): PlannedPod => ({
    name, phase, ready, available: ready, updated: false, scheduled: false, creationTimestamp: '', specifiedDelete: false,
  });
  const waiting = [p('p0', 'Pending', true), p('p1', 'Pending', false), p('p3', 'Running', true), p('p4', 'Running', false)];
  assert.deepEqual(sortPodsToUpdate(waiting).map((x) => x.name), ['p1', 'p0', 'p4', 'p3']);
  // PreparingUpdate pods first (SortUpdateIndexes' last, stable pass)
  waiting[2].lifecycleState = 'PreparingUpdate';
  assert.deepEqual(sortPodsToUpdate(waiting).map((x) => x.name), ['p3', 'p1', 'p0', 'p4']);
});

test('scatterStrategy spreads labelled pods through the update order after ActivePods and priority (sync/cloneset_update.go SortUpdateIndexes, TestSort row "one pod one label")', () => {
  const p = (i: number, labels: Record<string, string> = {}): PlannedPod => ({
    name: `p${i}`, phase: 'Running', ready: true, available: true, updated: false, scheduled: true, creationTimestamp: '2026-01-01T00:00:00Z', specifiedDelete: false, labels,
  });
  const all = [p(0), p(1), p(2), p(3), p(4, { labelA: 'AAA' }), p(5, { labelA: 'AAA' })];
  const scatter = [{ key: 'labelA', value: 'AAA' }];
  assert.deepEqual(sortPodsToUpdate(all, all, scatter).map((x) => x.name), ['p4', 'p0', 'p1', 'p2', 'p3', 'p5']);
  // the planner uses it: the first pod updated carries the label
  const step = planCloneSetSync({ ...base, replicas: 6, maxUnavailable: 1, pods: all, scatterStrategy: scatter });
  assert.deepEqual(step, { kind: 'update', pods: ['p4'] });
});
