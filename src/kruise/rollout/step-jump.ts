// Where a release lands when status.nextStepIndex is patched to another step (`rollout jump`,
// `rollout undo --fast`), per Kruise Rollout release, pure:
// - v0.4.4 has no nextStepIndex (it came with v0.5): no jumps at all;
// - v0.6.2 and master: rollout_status.go doStepJump (openkruise/rollouts #311, 2e34e48 on the v0.6
//   branch, d0eb76b on master; one rule for canary and blue-green through the unified status): a
//   nextStepIndex other than the natural next one, within 1..steps, moves the release to that step, at
//   StepTrafficRouting when the step's replicas (scaled against the workload's, rounded up) equal the
//   updated pods already there, else at StepInit (whose upgrade, partition style, never takes pods back).
// v0.5.0-v0.6.1 compared the target step's replicas with the current step's instead (rollout_canary.go
// doCanaryJump@v0.6.1); no sandbox profile imitates them and a served Rollout does not tell them from v0.6.2.
import type { IntOrString } from '../intstr';
import type { KubeObject } from '../types';
import { STEP_STATE } from './labels';
import { readRollout } from './read';
import type { KruiseRolloutRelease } from './release-workload';
import { nextBatchIndex, rolloutScaledValue } from './step-math';

/** `none`: the release has no step jumps; `updated-replicas`: doStepJump of #311. */
export type StepJumpRule = 'none' | 'updated-replicas';

export interface StepPosition {
  currentStepIndex: number;
  nextStepIndex: number;
  currentStepState: string;
}

/** The jump rule of an imitated release (the sandbox's --kruise-rollout). */
export function stepJumpRuleOf(release: KruiseRolloutRelease): StepJumpRule {
  return release === 'v0.4' ? 'none' : 'updated-replicas';
}

/** The jump rule of the release serving `rollout`: a status without nextStepIndex is v0.4.4's. */
export function servedStepJumpRule(rollout: KubeObject): StepJumpRule {
  const s = readRollout(rollout).status;
  return s.hasSubStatus && s.nextStepIndex === undefined ? 'none' : 'updated-replicas';
}

/**
 * doStepJump: the position the release moves to for `status.nextStepIndex`, undefined when it does not
 * move (no jumps in the release, the natural next step, or out of 1..steps).
 */
export function stepJumpLanding(
  rule: StepJumpRule,
  steps: ReadonlyArray<{ replicas?: IntOrString }>,
  status: StepPosition,
  updatedReplicas: number,
  workloadReplicas: number,
): StepPosition | undefined {
  if (rule === 'none') return undefined;
  const next = status.nextStepIndex;
  if (next === nextBatchIndex(steps.length, status.currentStepIndex) || next <= 0 || next > steps.length) return undefined;
  const target = rolloutScaledValue(steps[next - 1]?.replicas, workloadReplicas) ?? 0;
  return {
    currentStepIndex: next,
    nextStepIndex: nextBatchIndex(steps.length, next),
    currentStepState: target === updatedReplicas ? STEP_STATE.TrafficRouting : STEP_STATE.Init,
  };
}

/**
 * The line `rollout jump` / `undo --fast` print about where the release lands, from the Rollout read before
 * the write and its workload's replicas (undefined: unknown, then only integer steps are resolved).
 */
export function stepJumpLandingText(rollout: KubeObject, toStep: number, workloadReplicas: number | undefined): string | undefined {
  const view = readRollout(rollout);
  const s = view.status;
  const rule = servedStepJumpRule(rollout);
  const step = view.steps[toStep - 1];
  const updated = s.canaryReplicas ?? 0;
  const wanted = rolloutScaledValue(step?.replicas, workloadReplicas ?? 0);
  if (wanted === undefined || (workloadReplicas === undefined && typeof step?.replicas !== 'number')) return undefined;
  const landing = stepJumpLanding(rule, view.steps, { currentStepIndex: s.currentStepIndex ?? 0, nextStepIndex: toStep, currentStepState: s.currentStepState ?? '' }, updated, workloadReplicas ?? 0);
  if (!landing) return undefined;
  const pods = (n: number) => `${n} pod${n === 1 ? '' : 's'}`;
  return landing.currentStepState === STEP_STATE.TrafficRouting
    ? `step ${toStep} goes straight to ${STEP_STATE.TrafficRouting}: its ${pods(wanted)} are already updated`
    : `step ${toStep} starts at ${STEP_STATE.Init}: it wants ${pods(wanted)}, ${updated} updated now${wanted < updated ? ' (a partition-style release does not take pods back)' : ''}`;
}
