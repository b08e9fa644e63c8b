import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFinalFullStep, nextBatchIndex, rolloutScaledValue, stepCanaryReplicas } from '../../../../src/kruise/rollout/step-math';
import type { IntOrString } from '../../../../src/kruise/intstr';

const BATCH = 'pkg/controller/batchrelease/control/util_test.go';
// TestCalculateBatchReplicas: [name, batch replicas, workload replicas, expected]
const batchRows: Array<[string, IntOrString, number, number]> = [
  ['batch: 5, replicas: 10', 5, 10, 5],
  ['batch: 20%, replicas: 10', '20%', 10, 2],
  ['batch: 100%, replicas: 10', '100%', 10, 10],
  ['batch: 200%, replicas: 10', '200%', 10, 10],
  ['batch: 200, replicas: 10', 200, 10, 10],
  ['batch: 0, replicas: 10', 0, 10, 0],
];
for (const [name, batch, replicas, expected] of batchRows) {
  test(`TestCalculateBatchReplicas row "${name}" (openkruise/rollouts ${BATCH})`, () => {
    assert.equal(stepCanaryReplicas(batch, replicas), expected);
  });
}

test('CalculateBatchReplicas rounds percentages up (GetScaledValueFromIntOrPercent roundUp=true, pkg/controller/batchrelease/control/util.go)', () => {
  assert.equal(stepCanaryReplicas('40%', 5), 2);
  assert.equal(stepCanaryReplicas('10%', 5), 1); // 0.5 → 1
  assert.equal(stepCanaryReplicas('1%', 250), 3); // 2.5 → 3
});

test('apimachinery v0.26 GetScaledValueFromIntOrPercent errors are ignored by the controller: "12.5%", "5" and a missing value count as 0', () => {
  assert.equal(rolloutScaledValue('12.5%', 10), undefined);
  assert.equal(rolloutScaledValue('5', 10), undefined);
  assert.equal(rolloutScaledValue(undefined, 10), undefined);
  assert.equal(stepCanaryReplicas('12.5%', 10), 0);
  assert.equal(stepCanaryReplicas('5', 10), 0);
  assert.equal(stepCanaryReplicas(-3, 10), 0); // CalculateBatchReplicas: below 0 → 0
});

test('NextBatchIndex (pkg/util/rollout_utils.go): the next 1-based step, -1 at or past the last', () => {
  assert.equal(nextBatchIndex(3, 1), 2);
  assert.equal(nextBatchIndex(3, 2), 3);
  assert.equal(nextBatchIndex(3, 3), -1);
  assert.equal(nextBatchIndex(3, 5), -1);
});

test('doCanaryPaused (pkg/controller/rollout/rollout_canary.go): only a last step of exactly "100%" leaves StepPaused by itself', () => {
  const steps = [{ replicas: 1 }, { replicas: '100%' }];
  assert.equal(isFinalFullStep(steps, 2), true);
  assert.equal(isFinalFullStep(steps, 1), false);
  assert.equal(isFinalFullStep([{ replicas: 1 }, { replicas: 10 }], 2), false); // 10 of 10 is not the string "100%"
  assert.equal(isFinalFullStep(steps, 2, 'blueGreen'), false); // rollout_bluegreen.go doCanaryPaused has no such rule
});
