// Pure Advanced StatefulSet and Advanced DaemonSet rules: kept ordinals, ordered creation and
// updates, DaemonSet node selection for updates and one step of its rolling update.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keptOrdinals, planAdvancedStatefulSetSync, advancedStatefulSetStatus, type AstsPlannedPod } from '../../../../src/kruise/rules/asts';
import { advancedDaemonSetPartitionNodes, nodesAllowedToUpdate, planAdvancedDaemonSetSync, nodeShouldRunDaemonPod, advancedDaemonSetStatus } from '../../../../src/kruise/rules/ads';

test('kept ordinals: pods counted since v1.8, an ordinal threshold before', () => {
  const active = [0, 2, 5, 6];
  assert.deepEqual([...keptOrdinals(active, 2, true)], [0, 2]);
  assert.deepEqual([...keptOrdinals(active, 3, false)], [0, 2]);
  assert.deepEqual([...keptOrdinals(active, 0, true)], []);
});

const sp = (ordinal: number, over: Partial<AstsPlannedPod> = {}): AstsPlannedPod => ({ name: `db-${ordinal}`, ordinal, updated: false, runningAndReady: true, available: true, terminating: false, ...over });

test('OrderedReady creates one missing ordinal at a time and waits for readiness', () => {
  const base = { active: [0, 1, 2], kept: new Set<number>(), parallel: false, rollingUpdate: true, paused: false, maxUnavailable: 1 };
  assert.deepEqual(planAdvancedStatefulSetSync({ ...base, pods: [] }).create, [{ ordinal: 0, atUpdateRevision: true }]);
  assert.deepEqual(planAdvancedStatefulSetSync({ ...base, pods: [sp(0, { runningAndReady: false, available: false })] }), { create: [], delete: [], update: [] });
  assert.equal(planAdvancedStatefulSetSync({ ...base, parallel: true, pods: [] }).create.length, 3);
});

test('updates go highest ordinal first within maxUnavailable; kept ordinals stay', () => {
  const base = { active: [0, 1, 2, 3], kept: new Set([0]), parallel: true, rollingUpdate: true, paused: false, maxUnavailable: 2 };
  assert.deepEqual(planAdvancedStatefulSetSync({ ...base, pods: [0, 1, 2, 3].map((o) => sp(o)) }).update, ['db-3', 'db-2']);
  assert.deepEqual(planAdvancedStatefulSetSync({ ...base, paused: true, pods: [0, 1, 2, 3].map((o) => sp(o)) }).update, []);
  assert.deepEqual(planAdvancedStatefulSetSync({ ...base, pods: [sp(0), sp(1), sp(2), sp(3), sp(7)] }).delete, ['db-7'], 'condemned');
});

test('ASTS status: currentRevision moves only when every pod is updated and ready', () => {
  const input = { generation: 1, rollingUpdate: true, updateRevision: 'new', currentRevisionName: 'old', collisionCount: 0, labelSelector: 'app=db' };
  assert.equal(advancedStatefulSetStatus({ ...input, pods: [{ updated: true, current: false, ready: true, available: true }, { updated: false, current: true, ready: true, available: true }] }).currentRevision, 'old');
  const done = advancedStatefulSetStatus({ ...input, pods: [{ updated: true, current: false, ready: true, available: true }] });
  assert.deepEqual([done.currentRevision, done.currentReplicas, done.updatedReadyReplicas], ['new', 1, 1]);
});

test('ADS: descending node names, updated nodes first, selector, capped at nodes − partition', () => {
  const nodes = ['node-1', 'node-2', 'node-3', 'node-4'].map((name, i) => ({ name, labels: { zone: i % 2 ? 'b' : 'a' }, hasUpdatedPod: false }));
  assert.deepEqual(nodesAllowedToUpdate(nodes, 1, undefined), ['node-4', 'node-3', 'node-2']);
  assert.deepEqual(nodesAllowedToUpdate(nodes, 0, { matchLabels: { zone: 'a' } }), ['node-3', 'node-1']);
  nodes[0].hasUpdatedPod = true;
  assert.deepEqual(nodesAllowedToUpdate(nodes, 3, undefined), ['node-1']);
  assert.deepEqual(nodesAllowedToUpdate(nodes, 4, undefined), []);
});

test('ADS: a partition Kruise cannot read ("12.5%") updates no node (filterDaemonPodsNodeToUpdate returns its error)', () => {
  assert.equal(advancedDaemonSetPartitionNodes('12.5%', 4), 4);
  assert.equal(advancedDaemonSetPartitionNodes('50%', 4), 2);
  assert.equal(advancedDaemonSetPartitionNodes(undefined, 4), 0);
});

test('ADS step: place missing pods first, then update within maxUnavailable, or surge', () => {
  const pod = (n: string, over = {}) => ({ name: `a-${n}`, updated: false, available: true, terminating: false, ...over });
  const nodes = ['n1', 'n2', 'n3'].map((node) => ({ node, shouldRun: true, pods: [pod(node)] }));
  const all = new Set(['n1', 'n2', 'n3']);
  const base = { allowedToUpdate: all, rollingUpdate: true, paused: false, inPlace: false, maxUnavailable: 1, maxSurge: 0 };
  assert.deepEqual(planAdvancedDaemonSetSync({ ...base, nodes }).update, ['a-n1']);
  assert.deepEqual(planAdvancedDaemonSetSync({ ...base, maxUnavailable: 0, maxSurge: 1, nodes }).create, ['n1']);
  const missing = [...nodes.slice(0, 2), { node: 'n3', shouldRun: true, pods: [] }];
  assert.deepEqual(planAdvancedDaemonSetSync({ ...base, nodes: missing }), { create: ['n3'], delete: [], update: [] });
});

test('ADS node eligibility and status hash field per version', () => {
  const tpl = { spec: { nodeSelector: { disk: 'ssd' } } };
  assert.equal(nodeShouldRunDaemonPod(tpl, { metadata: { name: 'a', labels: { disk: 'ssd' } } }), true);
  assert.equal(nodeShouldRunDaemonPod(tpl, { metadata: { name: 'b', labels: {} } }), false);
  const nodes = [{ shouldRun: true, pods: [{ name: 'x', scheduled: true, updated: true, ready: true, available: true }] }, { shouldRun: false, pods: [] }];
  assert.equal(advancedDaemonSetStatus({ generation: 1, hash: 'h', beta: false, collisionCount: 0, nodes }).daemonSetHash, 'h');
  const beta = advancedDaemonSetStatus({ generation: 1, hash: 'h', beta: true, collisionCount: 0, nodes });
  assert.deepEqual([beta.updateRevision, 'daemonSetHash' in beta, beta.desiredNumberScheduled], ['h', false, 1]);
});

test('node affinity: an empty required term matches no node, as for the Kubernetes scheduler', async () => {
  const { podSpecFitsNode } = await import('../../../../src/kruise/rules/node-affinity');
  const node = { metadata: { name: 'node-1', labels: { 'topology.kubernetes.io/zone': 'zone-a' } } };
  const tpl = (terms: unknown[]) => ({ spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } } });
  assert.equal(nodeShouldRunDaemonPod(tpl([{}]), node), false);
  assert.equal(nodeShouldRunDaemonPod(tpl([{}, { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] }]), node), true);
  assert.equal(nodeShouldRunDaemonPod(tpl([{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: ['zone-a'] }] }]), node), false);
  // The sandbox scheduler and the DaemonSet rules answer alike.
  assert.equal(podSpecFitsNode(tpl([{}]).spec, node), nodeShouldRunDaemonPod(tpl([{}]), node));
});

test('TestStatefulSetControlRollingUpdateWithSpecifiedDelete (pkg/controller/statefulset/stateful_set_control_test.go): specified-delete pods go first, not bound by the partition, within maxUnavailable', () => {
  // 6 pods, partition 3 (ordinals 0-2 kept), maxUnavailable 3, pod 0 labelled: delete 0, update 5 and 4
  const base = { active: [0, 1, 2, 3, 4, 5], kept: new Set([0, 1, 2]), parallel: true, rollingUpdate: true, paused: false, maxUnavailable: 3 };
  const first = planAdvancedStatefulSetSync({ ...base, pods: [0, 1, 2, 3, 4, 5].map((o) => sp(o, { specifiedDelete: o === 0 })) });
  assert.deepEqual(first, { create: [], delete: ['db-0'], update: ['db-5', 'db-4'] });
  // then 0, 1, 2 and 5 labelled, 4 and 5 updated: 5, 2, 1 go (highest first), 0 waits, 3 is not updated
  const second = planAdvancedStatefulSetSync({
    ...base,
    pods: [0, 1, 2, 3, 4, 5].map((o) => sp(o, { specifiedDelete: [0, 1, 2, 5].includes(o), updated: o >= 4 })),
  });
  assert.deepEqual(second, { create: [], delete: ['db-5', 'db-2', 'db-1'], update: [] });
  // paused or OnDelete: nothing (handleSpecifiedDeletedPods runs inside rollingUpdateStatefulsetPods)
  assert.deepEqual(planAdvancedStatefulSetSync({ ...base, paused: true, pods: [0, 1, 2, 3, 4, 5].map((o) => sp(o, { specifiedDelete: true })) }).delete, []);
});

test('computeReplicaStatus (pkg/controller/statefulset/stateful_set_control.go): terminating pods count in replicas and readiness, not in current/updated', () => {
  const s = advancedStatefulSetStatus({
    generation: 2,
    rollingUpdate: true,
    updateRevision: 'db-new',
    currentRevisionName: 'db-old',
    collisionCount: 0,
    labelSelector: 'app=db',
    pods: [
      { updated: true, current: false, ready: true, available: true },
      { updated: true, current: false, ready: true, available: true },
      { updated: true, current: false, ready: true, available: true, terminating: true },
    ],
  });
  assert.equal(s.replicas, 3);
  assert.equal(s.readyReplicas, 3);
  assert.equal(s.updatedReplicas, 2);
  assert.equal(s.updatedReadyReplicas, 3);
  // completeRollingUpdate needs updatedReplicas == replicas: a terminating pod holds the revision back
  assert.equal(s.currentRevision, 'db-old');
});

test('Parallel with a terminating pod (pkg/controller/statefulset/stateful_set_control.go, rollingUpdateStatefulsetPods skips nil replicas): the update step goes on without it', () => {
  const base = { active: [0, 1, 2], kept: new Set<number>(), parallel: true, rollingUpdate: true, paused: false, maxUnavailable: 2 };
  const step = planAdvancedStatefulSetSync({ ...base, pods: [sp(0), sp(1, { terminating: true, available: false }), sp(2)] });
  // the terminating ordinal counts as unavailable: one more update fits
  assert.deepEqual(step, { create: [], delete: [], update: ['db-2'] });
});

test('ADS status counts a node by its oldest pod: surge pod of the new revision crashlooping (pkg/controller/daemonset/daemonset_controller.go updateDaemonSetStatus, podByCreationTimestampAndPhase)', () => {
  const old = { name: 'agent-old', creationTimestamp: '2026-11-22T09:00:00Z', scheduled: true, updated: false, ready: true, available: true };
  const surge = { name: 'agent-new', creationTimestamp: '2026-11-22T09:05:00Z', scheduled: true, updated: true, ready: false, available: false };
  const s = advancedDaemonSetStatus({ generation: 2, hash: 'h', beta: true, collisionCount: 0, nodes: [{ shouldRun: true, pods: [surge, old] }] });
  assert.deepEqual([s.updatedNumberScheduled, s.numberReady, s.numberAvailable, s.currentNumberScheduled], [0, 1, 1, 1]);
  // Once the old pod is gone, the new pod is the oldest: updated, but not ready.
  const after = advancedDaemonSetStatus({ generation: 2, hash: 'h', beta: true, collisionCount: 0, nodes: [{ shouldRun: true, pods: [surge] }] });
  assert.deepEqual([after.updatedNumberScheduled, after.numberReady, after.numberAvailable], [1, 0, 0]);
});

test('ADS status: podByCreationTimestampAndPhase puts scheduled pods first, then oldest, then by name (pkg/controller/daemonset/daemonset_controller.go Less)', () => {
  const p = (name: string, creationTimestamp: string, scheduled = true) => ({ name, creationTimestamp, scheduled, updated: name.startsWith('u'), ready: true, available: true });
  const one = (pods: ReturnType<typeof p>[]) => advancedDaemonSetStatus({ generation: 1, hash: 'h', beta: true, collisionCount: 0, nodes: [{ shouldRun: true, pods }] }).updatedNumberScheduled;
  assert.equal(one([p('u-new', '2026-11-22T09:00:05Z', false), p('o-old', '2026-11-22T09:00:09Z')]), 0, 'an unscheduled pod sorts after a scheduled one');
  assert.equal(one([p('x-b', '2026-11-22T09:00:05Z'), p('u-a', '2026-11-22T09:00:05Z')]), 1, 'same second: by name');
  assert.equal(one([p('u-a', '2026-11-22T09:00:06Z'), p('o-b', '2026-11-22T09:00:05Z')]), 0, 'oldest first');
});
