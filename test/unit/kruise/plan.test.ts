import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePlanList, planRollout } from '../../../src/kruise/plan';
import { InvalidValueError } from '../../../src/kruise/partition';

test('--plan values: digits are integers, the rest strings', () => {
  assert.deepEqual(parsePlanList('90%, 50%,0'), ['90%', '50%', 0]);
  assert.deepEqual(parsePlanList('99'), [99]);
  assert.throws(() => parsePlanList('90%,,0'), InvalidValueError);
});

test('CloneSet 8 replicas, plan 90%,50%,0', () => {
  const plan = planRollout({ kind: 'cloneset', replicas: 8 }, ['90%', '50%', 0]);
  assert.deepEqual(
    plan.steps.map((s) => [s.step, s.partition, s.partitionReplicas, s.updatedReplicas, s.updatedInStep, s.maxUnavailable]),
    [
      [1, '90%', 7, 1, 1, 1],
      [2, '50%', 4, 4, 3, 2], // default maxUnavailable 20% of 8 → 2
      [3, 0, 0, 8, 4, 2],
    ],
  );
  assert.deepEqual(plan.warnings, []);
});

test('plans warn about raised partitions, empty steps and unfinished rollouts; bad steps throw', () => {
  const plan = planRollout({ kind: 'cloneset', replicas: 10, maxUnavailable: 5 }, [5, 5, 8]);
  assert.equal(plan.steps[2]!.updatedInStep, -3);
  assert.ok(plan.warnings.some((w) => /step 2 .* updates no pod/.test(w)));
  assert.ok(plan.warnings.some((w) => /step 3 raises the partition/.test(w)));
  assert.ok(plan.warnings.some((w) => /keeps 8 pods at the old revision/.test(w)));
  assert.ok(plan.warnings.some((w) => /3 updated pods go back/.test(w)));
  // Counts of one read as such (no "pod(s)").
  const one = planRollout({ kind: 'cloneset', replicas: 10, maxUnavailable: 5 }, [5, 6, 1]);
  assert.ok(one.warnings.some((w) => /1 updated pod goes back/.test(w)), one.warnings.join('\n'));
  assert.ok(one.warnings.some((w) => /keeps 1 pod at the old revision/.test(w)), one.warnings.join('\n'));
  assert.ok(!one.warnings.some((w) => w.includes('(s)')));
  assert.throws(() => planRollout({ kind: 'cloneset', replicas: 8 }, ['50%', '99']), /invalid partition "99"/);
});

test('Advanced StatefulSet and DaemonSet plans use their own rules', () => {
  const asts = planRollout({ kind: 'asts', replicas: 5, maxUnavailable: 2 }, [3, 0]);
  assert.deepEqual(asts.steps.map((s) => [s.updatedReplicas, s.updatedInStep, s.maxUnavailable]), [[2, 2, 2], [5, 3, 2]]);
  const ads = planRollout({ kind: 'ads', replicas: 5 }, ['50%', 0]);
  assert.deepEqual(ads.steps.map((s) => [s.partitionReplicas, s.updatedReplicas]), [[2, 3], [0, 5]]); // 2.5 rounds down
  const sts = planRollout({ kind: 'statefulset', replicas: 5 }, [4, 2, 0]);
  assert.deepEqual(sts.steps.map((s) => s.updatedReplicas), [1, 3, 5]);
});
