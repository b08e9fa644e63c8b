import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  activeOrdinals,
  advancedStatefulSetMaxUnavailable,
  advancedStatefulSetUpdateOrder,
  cloneSetExpectedUpdatedReplicas,
  cloneSetRollingLimits,
  daemonSetNodesToUpdate,
  daemonSetRollingLimits,
  deploymentRollingLimits,
  explainAdvancedDaemonSetPartition,
  explainAdvancedStatefulSetPartition,
  explainCloneSetPartition,
  explainPartition,
  explainStatefulSetOrdinalPartition,
  InvalidValueError,
  parseReserveOrdinals,
  partitionReplicas,
  statefulSetMaxUnavailable,
} from '../../../src/kruise/partition';

// Rows of Kruise's CalculatePartitionReplicas table, written from the rules (§2.2).
const cloneSetRows: Array<[partition: number | string | undefined, replicas: number | undefined, kept: number]> = [
  [undefined, 8, 0],
  [undefined, undefined, 0],
  [0, 8, 0],
  [3, 8, 3],
  [8, 8, 8],
  [10, 8, 8], // integer above replicas: clamped
  [100, 0, 0],
  [1, undefined, 1], // replicas missing = 1
  [5, undefined, 1],
  ['0%', 8, 0],
  ['0%', undefined, 0],
  ['50%', undefined, 1], // replicas 1: any percentage above 0% keeps the only pod
  ['1%', 1, 1],
  ['99%', 1, 1],
  ['100%', 1, 1],
  ['100%', 8, 8],
  ['99%', 8, 7], // ceil 7.92 = 8 == replicas, not "100%" → 7
  ['90%', 8, 7], // release-note example
  ['80%', 8, 7], // 6.4 → 7
  ['75%', 8, 6],
  ['50%', 8, 4],
  ['10%', 8, 1], // 0.8 → 1
  ['1%', 8, 1],
  ['0.01%', 999, 1],
  ['99.99%', 999, 998],
  ['50%', 0, 0],
  ['100%', 0, 0],
  ['99%', 2, 1],
  ['100%', 2, 2],
  ['150%', 8, 8], // scales to 12 ≠ replicas: only clamped
  [-1, 8, 0],
];

for (const [partition, replicas, kept] of cloneSetRows) {
  test(`CloneSet partition ${JSON.stringify(partition)} of ${replicas ?? 'unset'} replicas keeps ${kept} old`, () => {
    assert.equal(partitionReplicas(partition, replicas), kept);
    const e = explainCloneSetPartition(partition, replicas);
    assert.equal(e.partitionReplicas, kept);
    assert.equal(e.expectedUpdatedReplicas, (replicas ?? 1) - kept);
  });
}

test('CloneSet rejects strings that are not percentages', () => {
  for (const bad of ['99', '5', '%', '90#', '#%', 'abc']) {
    assert.throws(() => partitionReplicas(bad, 8), InvalidValueError, `${bad}`);
  }
  assert.throws(() => partitionReplicas('99', 8), /invalid partition "99": not a percentage/);
});

test('the 90% of 8 explanation names each rule in order', () => {
  const e = explainCloneSetPartition('90%', 8);
  assert.deepEqual(
    e.steps.map((s) => s.rule),
    ['scaled-round-up', 'at-least-one-updated', 'result'],
  );
  assert.equal(e.steps[0]!.chain, '7.2 → rounded up to 8');
  assert.match(e.steps[0]!.text, /scaled 90% of 8 replicas = 7.2, rounded up to 8/);
  assert.match(e.steps[2]!.chain, /7 pods stay at the old revision → expectedUpdatedReplicas 1/);
  const clamp = explainCloneSetPartition(10, 8);
  assert.ok(clamp.steps.some((s) => s.rule === 'clamped-to-replicas'));
  const dflt = explainCloneSetPartition('50%', undefined);
  assert.equal(dflt.steps[0]!.rule, 'replicas-default');
});

test('CloneSet expectedUpdatedReplicas', () => {
  assert.equal(cloneSetExpectedUpdatedReplicas('90%', 8), 1);
  assert.equal(cloneSetExpectedUpdatedReplicas(0, 8), 8);
  assert.equal(cloneSetExpectedUpdatedReplicas('100%', 8), 0);
  assert.equal(cloneSetExpectedUpdatedReplicas(undefined, undefined), 1);
});

test('CloneSet partition warns when the legacy parser reads it differently', () => {
  assert.equal(explainCloneSetPartition('12.5%', 8).warnings.length, 1);
  assert.equal(explainCloneSetPartition('50%', 8).warnings.length, 0);
});

// maxUnavailable / maxSurge pairs (§2.3): [maxUnavailable, maxSurge, replicas, paused] → [unavailable, surge]
const rollingRows: Array<[unknown, unknown, number, boolean, number, number]> = [
  [undefined, undefined, 10, false, 2, 0], // default 20%
  [undefined, undefined, 8, false, 2, 0], // 1.6 → up (surge 0)
  [undefined, undefined, 3, false, 1, 0], // 0.6 → up
  ['20%', '10%', 8, false, 1, 1], // surge 0.8 → 1; unavailable 1.6 → down
  ['50%', 0, 5, false, 3, 0],
  ['50%', 1, 5, false, 2, 1],
  ['50%', '50%', 5, false, 2, 3],
  ['50%', '50%', 5, true, 3, 0], // paused: surge 0 → unavailable rounds up
  [0, 1, 8, false, 0, 1],
  [0, '10%', 8, false, 0, 1],
  [2, 0, 8, false, 2, 0],
  ['100%', 0, 4, false, 4, 0],
  ['5', 0, 100, false, 5, 0], // legacy parser: 5 means 5%
  [undefined, undefined, 0, false, 0, 0],
];
for (const [mu, ms, replicas, paused, eu, es] of rollingRows) {
  test(`CloneSet maxUnavailable ${JSON.stringify(mu)} maxSurge ${JSON.stringify(ms)} of ${replicas}${paused ? ' paused' : ''} → ${eu}/${es}`, () => {
    const r = cloneSetRollingLimits({ replicas, maxUnavailable: mu, maxSurge: ms, paused });
    assert.equal(r.maxUnavailable, eu);
    assert.equal(r.maxSurge, es);
  });
}

test('CloneSet rolling limits: both below 1 is invalid; legacy-parser surprises warn', () => {
  assert.throws(() => cloneSetRollingLimits({ replicas: 8, maxUnavailable: 0, maxSurge: 0 }), /must not both scale below 1/);
  assert.throws(() => cloneSetRollingLimits({ replicas: 8, maxUnavailable: '0%', maxSurge: '0%' }), InvalidValueError);
  assert.doesNotThrow(() => cloneSetRollingLimits({ replicas: 0, maxUnavailable: 0, maxSurge: 0 }));
  const decimal = cloneSetRollingLimits({ replicas: 8, maxUnavailable: '12.5%', maxSurge: 0 });
  assert.equal(decimal.maxUnavailable, 0); // what the controller does
  assert.ok(decimal.warnings.some((w) => /read as 0 by the controller/.test(w)));
  assert.ok(decimal.warnings.some((w) => /will not progress/.test(w)));
  const noPercent = cloneSetRollingLimits({ replicas: 100, maxUnavailable: '5' });
  assert.ok(noPercent.warnings.some((w) => /has no "%"/.test(w)));
  assert.throws(() => cloneSetRollingLimits({ replicas: 8, maxUnavailable: '90#' }), InvalidValueError);
  assert.throws(() => cloneSetRollingLimits({ replicas: 8, maxUnavailable: -1 }), InvalidValueError);
});

test('Advanced StatefulSet partition counts pods, integer only', () => {
  assert.equal(explainAdvancedStatefulSetPartition(3, 5).partitionReplicas, 3);
  assert.equal(explainAdvancedStatefulSetPartition(9, 5).partitionReplicas, 5);
  assert.equal(explainAdvancedStatefulSetPartition(undefined, 5).partitionReplicas, 0);
  assert.equal(explainAdvancedStatefulSetPartition(1, undefined).expectedUpdatedReplicas, 0);
  assert.throws(() => explainAdvancedStatefulSetPartition('50%', 5), /must be an integer/);
  assert.throws(() => explainAdvancedStatefulSetPartition(-1, 5), /≥ 0/);
});

test('Advanced StatefulSet maxUnavailable rounds down with a minimum of 1', () => {
  assert.equal(advancedStatefulSetMaxUnavailable(undefined, 5).value, 1);
  assert.equal(advancedStatefulSetMaxUnavailable('50%', 5).value, 2);
  assert.equal(advancedStatefulSetMaxUnavailable('10%', 5).value, 1);
  assert.equal(advancedStatefulSetMaxUnavailable('0%', 5).value, 1);
  assert.equal(advancedStatefulSetMaxUnavailable(3, 5).value, 3);
  assert.throws(() => advancedStatefulSetMaxUnavailable('12.5%', 5), /whole percentage/);
});

test('Advanced StatefulSet active ordinals honour ordinals.start and reserveOrdinals ranges', () => {
  assert.deepEqual([...parseReserveOrdinals([1, '3-5'])].sort(), [1, 3, 4, 5]);
  assert.throws(() => parseReserveOrdinals(['5-3']), /a ≤ b/);
  assert.throws(() => parseReserveOrdinals(['x']), InvalidValueError);
  assert.throws(() => parseReserveOrdinals([-1]), InvalidValueError);
  assert.deepEqual(activeOrdinals(4), [0, 1, 2, 3]);
  assert.deepEqual(activeOrdinals(4, 0, [1, '3-4']), [0, 2, 5, 6]);
  assert.deepEqual(activeOrdinals(3, 10, [11]), [10, 12, 13]);
  const order = advancedStatefulSetUpdateOrder({ replicas: 5, partitionReplicas: 2, reserveOrdinals: [2] });
  assert.deepEqual(order.kept, [0, 1]);
  assert.deepEqual(order.updated, [5, 4, 3]); // highest ordinal first
});

test('native StatefulSet partition is an ordinal', () => {
  const e = explainStatefulSetOrdinalPartition(2, 5);
  assert.equal(e.partitionReplicas, 2); // ordinals 0,1 kept; 2,3,4 updated
  assert.equal(e.expectedUpdatedReplicas, 3);
  assert.equal(explainStatefulSetOrdinalPartition(7, 5).partitionReplicas, 5);
  assert.equal(explainStatefulSetOrdinalPartition(0, 5).partitionReplicas, 0);
  // with ordinals.start 3: ordinals 3..7, partition 5 keeps 3 and 4
  assert.equal(explainStatefulSetOrdinalPartition(5, 5, 3).partitionReplicas, 2);
  assert.equal(explainStatefulSetOrdinalPartition(2, 5, 3).partitionReplicas, 0);
  assert.throws(() => explainStatefulSetOrdinalPartition('50%', 5), /ordinal/);
  const r = explainPartition({ kind: 'statefulset', replicas: 5, partition: 2 });
  assert.deepEqual(r.ordinals, { kept: [0, 1], updated: [4, 3, 2] });
  assert.equal(statefulSetMaxUnavailable(undefined, 5), 1);
  assert.equal(statefulSetMaxUnavailable('50%', 5), 3);
});

test('Advanced DaemonSet partition rounds down against scheduled nodes', () => {
  assert.equal(explainAdvancedDaemonSetPartition(2, 5).partitionReplicas, 2);
  assert.equal(explainAdvancedDaemonSetPartition('50%', 5).partitionReplicas, 2); // 2.5 → 2
  assert.equal(explainAdvancedDaemonSetPartition('90%', 5).partitionReplicas, 4);
  assert.equal(explainAdvancedDaemonSetPartition('100%', 5).partitionReplicas, 5);
  assert.equal(explainAdvancedDaemonSetPartition(10, 5).partitionReplicas, 5);
  assert.throws(() => explainAdvancedDaemonSetPartition('120%', 5), /at most 100%/);
  assert.throws(() => explainAdvancedDaemonSetPartition('50', 5), /not a percentage/);
});

test('Advanced DaemonSet partition "12.5%" is refused as Kruise refuses it (daemonset_validation.go validateNonnegativeIntOrPercent, daemonset_update.go filterDaemonPodsNodeToUpdate)', () => {
  // The webhook's ValidatePositiveIntOrPercent and the controller's apimachinery parser read whole
  // percentages only; CloneSet's own parser (kruise-semantics §2.1) is the one that reads decimals.
  assert.throws(() => explainAdvancedDaemonSetPartition('12.5%', 8), /numeric string followed by an ending '%'/);
  assert.throws(() => explainPartition({ kind: 'ads', replicas: 8, partition: '99.5%' }), /regex used for validation is '\[0-9\]\+%'/);
  assert.equal(explainPartition({ kind: 'cloneset', replicas: 8, partition: '12.5%' }).partitionReplicas, 1);
  assert.deepEqual(daemonSetNodesToUpdate(['node-1', 'node-3', 'node-2'], 1), { updated: ['node-3', 'node-2'], kept: ['node-1'] });
  assert.deepEqual(daemonSetNodesToUpdate(['a', 'b'], 5), { updated: [], kept: ['b', 'a'] });
});

test('DaemonSet maxUnavailable/maxSurge round up, defaults 1/0, fall back to 1', () => {
  const d = daemonSetRollingLimits({ desiredNumberScheduled: 5 });
  assert.deepEqual([d.maxUnavailable, d.maxSurge], [1, 0]);
  const p = daemonSetRollingLimits({ desiredNumberScheduled: 5, maxUnavailable: '30%' });
  assert.equal(p.maxUnavailable, 2); // 1.5 → 2
  const s = daemonSetRollingLimits({ desiredNumberScheduled: 5, maxUnavailable: 0, maxSurge: '10%', advanced: true });
  assert.deepEqual([s.maxUnavailable, s.maxSurge], [0, 1]);
  const z = daemonSetRollingLimits({ desiredNumberScheduled: 5, maxUnavailable: 0, maxSurge: 0 });
  assert.equal(z.maxUnavailable, 1);
  assert.throws(() => daemonSetRollingLimits({ desiredNumberScheduled: 5, maxUnavailable: 1, maxSurge: 1, advanced: true }), /mutually exclusive/);
  assert.throws(() => daemonSetRollingLimits({ desiredNumberScheduled: 5, maxUnavailable: '150%' }), /at most 100%/);
});

test('Deployment rolling limits: 25%/25%, unavailable down, surge up', () => {
  const d = deploymentRollingLimits({ replicas: 10 });
  assert.deepEqual([d.maxUnavailable, d.maxSurge], [2, 3]);
  const z = deploymentRollingLimits({ replicas: 10, maxUnavailable: 0, maxSurge: 0 });
  assert.equal(z.maxUnavailable, 1);
});

test('explainPartition assembles the report for each kind', () => {
  const c = explainPartition({ kind: 'cloneset', replicas: 8, partition: '90%' });
  assert.equal(c.partitionReplicas, 7);
  assert.equal(c.expectedUpdatedReplicas, 1);
  assert.equal(c.maxUnavailable, 2);
  assert.equal(c.maxSurge, 0);
  assert.ok(c.rules.length >= 4);
  const one = explainPartition({ kind: 'cloneset' });
  assert.equal(one.replicas, 1);
  assert.equal(one.partition, null);
  assert.throws(() => explainPartition({ kind: 'cloneset', replicas: 8, partition: -2 }), /≥ 0/);
  assert.throws(() => explainPartition({ kind: 'ads', partition: 1 }), /scheduled nodes/);
  const a = explainPartition({ kind: 'asts', replicas: 5, partition: 2, maxUnavailable: '40%' });
  assert.equal(a.maxUnavailable, 2);
  assert.deepEqual(a.ordinals?.updated, [4, 3, 2]);
});

test('a v1beta1 CloneSet of type OnDelete with rollingUpdate.partition 2 expects replicas − partition (pkg/controller/cloneset/cloneset_status.go calculateStatus @master)', () => {
  // calculateStatus reads rollingUpdate.partition whatever the type: ExpectedUpdatedReplicas = replicas − partition.
  const od = explainPartition({ kind: 'cloneset', replicas: 4, partition: 2, onDelete: true });
  assert.equal(od.expectedUpdatedReplicas, 2);
  assert.equal(od.partitionReplicas, 2);
  assert.match(od.rules.join('\n'), /OnDelete: pods update only when deleted; Kruise still writes expectedUpdatedReplicas = replicas − partition \(2\)/);
  // An Advanced StatefulSet has no such status field: under OnDelete every replica is expected.
  assert.equal(explainPartition({ kind: 'asts', replicas: 4, partition: 2, onDelete: true }).expectedUpdatedReplicas, 4);
});
