import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFinalFullStep, nextBatchIndex, rolloutScaledValue, stepCanaryReplicas, stepJump } from '../../../../src/kruise/rollout/step-math';
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

const JUMP = 'pkg/controller/rollout/rollout_canary_test.go';
const pct = (...v: string[]) => v.map((replicas) => ({ replicas }));
// TestDoCanaryJump: [name, steps, current, next, state, updatedReplicas, expected position or undefined (not jumped)]; workload replicas 10.
const jumpRows: Array<[string, Array<{ replicas: IntOrString }>, number, number, number, { currentStepIndex: number; nextStepIndex: number; currentStepState: string } | undefined]> = [
  ['jump to next step normally', pct('10%', '30%', '100%'), 1, 3, 1, { currentStepIndex: 3, nextStepIndex: -1, currentStepState: 'StepInit' }],
  ['jump to next step with same replicas', pct('10%', '10%', '100%'), 1, 2, 1, undefined],
  ['jump to TrafficRouting state', pct('40%', '40%', '40%'), 1, 3, 4, { currentStepIndex: 3, nextStepIndex: -1, currentStepState: 'StepTrafficRouting' }],
  ['NextStepIndex is default value, no jump', pct('10%', '30%', '100%'), 1, 2, 1, undefined],
  ['NextStepIndex is -1, no jump', pct('10%', '30%'), 1, -1, 1, undefined],
  ['NextStepIndex out of range, no jump', pct('10%', '30%'), 1, 5, 1, undefined],
  ['NextStepIndex is 0, no jump', pct('10%', '30%'), 1, 0, 1, undefined],
  ['CurrentStepIndex out of bounds, trigger Init state', pct('10%', '30%'), 5, 2, 1, { currentStepIndex: 2, nextStepIndex: -1, currentStepState: 'StepInit' }],
  ['NextStepIndex out of bounds (negative), no jump', pct('10%', '30%'), 1, -2, 1, undefined],
];
for (const [name, steps, current, next, updated, expected] of jumpRows) {
  test(`TestDoCanaryJump row "${name}" (openkruise/rollouts ${JUMP})`, () => {
    assert.deepEqual(stepJump(steps, { currentStepIndex: current, nextStepIndex: next, currentStepState: 'StepReady' }, updated, 10), expected);
  });
}

test('doCanaryPaused (pkg/controller/rollout/rollout_canary.go): only a last step of exactly "100%" leaves StepPaused by itself', () => {
  const steps = [{ replicas: 1 }, { replicas: '100%' }];
  assert.equal(isFinalFullStep(steps, 2), true);
  assert.equal(isFinalFullStep(steps, 1), false);
  assert.equal(isFinalFullStep([{ replicas: 1 }, { replicas: 10 }], 2), false); // 10 of 10 is not the string "100%"
  assert.equal(isFinalFullStep(steps, 2, 'blueGreen'), false); // rollout_bluegreen.go doCanaryPaused has no such rule
});
