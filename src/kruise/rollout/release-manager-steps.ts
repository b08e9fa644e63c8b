// What the canary and blue-green release managers (rollout-canary.ts, rollout-bluegreen.ts) run alike
// (openkruise/rollouts v0.6.2 pkg/controller/rollout/rollout_canary.go and rollout_bluegreen.go): the step
// states after traffic routing (MetricsAnalysis → Paused → Ready → the next step or Completed), a step's
// pause, and the walk through the finalising steps (doCanaryFinalising / doBlueGreenFinalising).
import { STEP_STATE } from './labels';
import { IN_ROLLOUT_PROGRESSING_ANNOTATION } from './release-workload';
import { recheckIn, stepStartState, type RolloutContext } from './rollout-context';
import { getCondition, setCondition, type SubStatusObj } from './rollout-status';
import { nextBatchIndex } from './step-math';

/** api/v1beta1 FinalisingStepType values. */
export const FINALISING_STEP = {
  RouteTrafficToNew: 'FinalisingStepRouteTrafficToNew',
  RouteTrafficToStable: 'FinalisingStepRouteTrafficToStable',
  RestoreStableService: 'RestoreStableService',
  RemoveCanaryService: 'RemoveCanaryService',
  ResumeWorkload: 'ResumeWorkload',
  ReleaseWorkloadControl: 'ReleaseWorkloadControl',
  End: 'END',
} as const;

/** nextCanaryTask / nextBlueGreenTask's walk: the first step, the one after `current`, or END after the last. */
export function nextFinalisingStep(seq: readonly string[], current: string): string {
  if (current === '') return seq[0]!;
  const i = seq.indexOf(current);
  return i >= 0 && i < seq.length - 1 ? seq[i + 1]! : FINALISING_STEP.End;
}

export function setProgressingMessage(c: RolloutContext, message: string): void {
  const cond = getCondition(c.newStatus, 'Progressing');
  if (cond) setCondition(c.newStatus, { ...cond, message });
  c.newStatus.message = message;
}

/** doCanaryPaused's wait: no duration waits for a person; true once the step's duration has passed. */
export function stepPauseOver(c: RolloutContext, sub: SubStatusObj): boolean {
  const steps = c.rollout.steps.length;
  const step = c.rollout.steps[sub.currentStepIndex - 1];
  if (step?.pauseSeconds === undefined) {
    setProgressingMessage(c, `Rollout is in step(${sub.currentStepIndex}/${steps}), and you need manually confirm to enter the next step`);
    return false;
  }
  setProgressingMessage(c, `Rollout is in step(${sub.currentStepIndex}/${steps}), and wait duration(${step.pauseSeconds} seconds) to enter the next step`);
  const since = Date.parse(sub.lastUpdateTime ?? '') || c.now.getTime();
  const due = since + step.pauseSeconds * 1000;
  if (due < c.now.getTime()) return true;
  recheckIn(c, due - c.now.getTime());
  return false;
}

/**
 * The states after traffic routing: MetricsAnalysis (no analysis) → Paused until `pauseOver` → Ready → the
 * next step's Init, or Completed after the last. False for any other state (the caller's).
 */
export function runStepAfterTraffic(c: RolloutContext, sub: SubStatusObj, pauseOver: (c: RolloutContext, sub: SubStatusObj) => boolean): boolean {
  const steps = c.rollout.steps;
  switch (sub.currentStepState) {
    case STEP_STATE.MetricsAnalysis:
      sub.currentStepState = STEP_STATE.Paused;
      return true;
    case STEP_STATE.Paused:
      if (pauseOver(c, sub)) {
        sub.lastUpdateTime = c.nowIso;
        sub.currentStepState = STEP_STATE.Ready;
      }
      return true;
    case STEP_STATE.Ready:
      sub.lastUpdateTime = c.nowIso;
      if (steps.length > sub.currentStepIndex) {
        sub.currentStepIndex++;
        sub.nextStepIndex = nextBatchIndex(steps.length, sub.currentStepIndex);
        sub.currentStepState = stepStartState(c);
      } else sub.currentStepState = STEP_STATE.Completed;
      return true;
    default:
      return false;
  }
}

/** removeRolloutProgressingAnnotation: the first thing finalising does. */
export function removeRolloutProgressingAnnotation(c: RolloutContext): void {
  if (c.workloadObject && c.workload && IN_ROLLOUT_PROGRESSING_ANNOTATION in c.workload.annotations) {
    c.writes.push({ kind: 'patchWorkload', patch: { metadata: { annotations: { [IN_ROLLOUT_PROGRESSING_ANNOTATION]: null } } } });
  }
}

/**
 * One reconcile of the finalising steps: `runStep` does the current one (true: not done yet, retry;
 * undefined: a step this strategy does not know, which restarts the walk). True once END is reached.
 */
export function runFinalisingSteps(
  c: RolloutContext,
  sub: SubStatusObj,
  nextTask: (reason: string | undefined, current: string) => string,
  runStep: (step: string) => boolean | undefined,
): boolean {
  let next = nextTask(c.finalizeReason, sub.finalisingStep);
  if (sub.finalisingStep === '') {
    sub.finalisingStep = next;
    sub.lastUpdateTime = c.nowIso;
  } else if (sub.finalisingStep === FINALISING_STEP.End) return true;
  const retry = runStep(sub.finalisingStep);
  if (retry === undefined) {
    next = nextTask(c.finalizeReason, '');
    sub.finalisingStep = next;
    return false;
  }
  if (retry) return false;
  sub.lastUpdateTime = c.nowIso;
  sub.finalisingStep = next;
  return next === FINALISING_STEP.End;
}
