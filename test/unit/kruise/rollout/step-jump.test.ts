// Where a patched nextStepIndex lands, per Kruise Rollout release (step-jump.ts): doStepJump of
// openkruise/rollouts master (@9dd6279d pkg/controller/rollout/rollout_status.go; the same rule in v0.6.2,
// which took #311 as 2e34e48), none in v0.4.4; and what `rollout jump` / `undo --fast` say about it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IntOrString } from '../../../../src/kruise/intstr';
import { reconcileRollout } from '../../../../src/kruise/rollout/state-machine';
import { rolloutPlanHash } from '../../../../src/kruise/rollout/rollout-plan';
import { servedStepJumpRule, stepJumpLanding, stepJumpLandingText, stepJumpRuleOf, type StepPosition } from '../../../../src/kruise/rollout/step-jump';
import type { KubeObject } from '../../../../src/kruise/types';
import { loadKind } from './helpers';

const JUMP = 'pkg/controller/rollout/rollout_canary_test.go@master TestDoCanaryJump';
const pct = (...v: string[]) => v.map((replicas) => ({ replicas }));
// [name, steps, current, next, updatedReplicas, expected position or undefined (not jumped)]; workload replicas 10, as the test's doStepJump(…, 10).
const jumpRows: Array<[string, Array<{ replicas: IntOrString }>, number, number, number, StepPosition | undefined]> = [
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
  test(`row "${name}" (${JUMP}): master and v0.6 land there; v0.4 never jumps`, () => {
    const status = { currentStepIndex: current, nextStepIndex: next, currentStepState: 'StepReady' };
    assert.deepEqual(stepJumpLanding(stepJumpRuleOf('master'), steps, status, updated, 10), expected);
    assert.deepEqual(stepJumpLanding(stepJumpRuleOf('v0.6'), steps, status, updated, 10), expected);
    assert.equal(stepJumpLanding(stepJumpRuleOf('v0.4'), steps, status, updated, 10), undefined);
  });
}

test('the rule of a served Rollout: a sub-status without nextStepIndex is v0.4.4\'s (no jumps), one with it v0.6.2\'s or master\'s', () => {
  const alpha = loadKind('v1alpha1-canary-manual-step.yaml', 'Rollout');
  assert.equal((alpha.status as { canaryStatus: Record<string, unknown> }).canaryStatus.nextStepIndex, undefined);
  assert.equal(servedStepJumpRule(alpha), 'none');
  assert.equal(servedStepJumpRule(loadKind('v1beta1-canary-manual-step.yaml', 'Rollout')), 'updated-replicas');
});

/** The Rollout of master-native-daemonset-released.yaml, re-stepped 25/50/75/100 % and paused at `step` with `updated` pods. */
function pausedAt(step: number, updated: number): KubeObject {
  const ro = structuredClone(loadKind('master-native-daemonset-released.yaml', 'Rollout'));
  const canary = (ro.spec as { strategy: { canary: Record<string, unknown> } }).strategy.canary;
  canary.steps = pct('25%', '50%', '75%', '100%');
  // the plan the status follows (no rollout_progressing.go handleRolloutPlanChanged)
  const hash = rolloutPlanHash(canary);
  ro.metadata.annotations = { ...ro.metadata.annotations, 'rollouts.kruise.io/hash': hash };
  const sub = (ro.status as { canaryStatus: Record<string, unknown> }).canaryStatus;
  sub.rolloutHash = hash;
  Object.assign(sub, { currentStepIndex: step, nextStepIndex: step + 1, currentStepState: 'StepPaused', canaryReplicas: updated, canaryReadyReplicas: updated, finalisingStep: '' });
  Object.assign(ro.status as Record<string, unknown>, { phase: 'Progressing', currentStepIndex: step, currentStepState: 'StepPaused', conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', message: '' }] });
  return ro;
}

test('what `rollout jump` / `undo --fast` say: where doStepJump lands the release on a DaemonSet of 4 nodes', () => {
  assert.equal(stepJumpLandingText(pausedAt(1, 1), 3, 4), 'step 3 starts at StepInit: it wants 3 pods, 1 updated now');
  assert.equal(stepJumpLandingText(pausedAt(3, 3), 2, 4), 'step 2 starts at StepInit: it wants 2 pods, 3 updated now (a partition-style release does not take pods back)');
  assert.equal(stepJumpLandingText(pausedAt(1, 3), 3, 4), 'step 3 goes straight to StepTrafficRouting: its 3 pods are already updated');
  // the workload unread: a percentage cannot be resolved, nothing said
  assert.equal(stepJumpLandingText(pausedAt(1, 1), 3, undefined), undefined);
  // v0.4.4 never jumps: nothing to say
  assert.equal(stepJumpLandingText(loadKind('v1alpha1-canary-manual-step.yaml', 'Rollout'), 3, 10), undefined);
});

test('the sandbox\'s state machine follows its release\'s rule: a nextStepIndex patched on a master Rollout whose target\'s pods are all updated goes to StepTrafficRouting', () => {
  const ro = pausedAt(1, 3);
  (ro.status as { canaryStatus: Record<string, unknown> }).canaryStatus.nextStepIndex = 3;
  const ds = structuredClone(loadKind('master-native-daemonset-released.yaml', 'DaemonSet'));
  ds.metadata.annotations = { 'rollouts.kruise.io/in-progressing': '{"rolloutName":"rollout-node-agent"}' };
  ds.metadata.generation = 2;
  (ds.status as Record<string, unknown>).observedGeneration = 2;
  const revisions = ['9dc9f58b9', '5d6988d69d'].map((hash, i): KubeObject => ({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: `node-agent-${hash}`, namespace: 'default', labels: { 'controller-revision-hash': hash }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'node-agent', uid: 'ds-uid', controller: true }] }, revision: i + 1 }));
  ds.metadata.uid = 'ds-uid';
  const res = reconcileRollout({ rollout: ro, workload: ds, related: { controllerRevisions: revisions }, now: new Date(), release: 'master' });
  assert.deepEqual([res.status?.canaryStatus?.currentStepIndex, res.status?.canaryStatus?.currentStepState, res.status?.canaryStatus?.nextStepIndex], [3, 'StepTrafficRouting', 4]);
});
