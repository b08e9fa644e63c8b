// The blue-green release manager, pure (openkruise/rollouts v0.6.2 pkg/controller/rollout/rollout_bluegreen.go
// runCanary, doCanaryUpgrade, doCanaryPaused, doCanaryFinalising, createBatchRelease, nextBlueGreenTask).
// It shares the canary manager's BatchRelease plumbing (rollout-canary.ts), the step states after traffic
// and the finalising walk (release-manager-steps.ts), and differs where upstream does:
// the BatchRelease's rolling style is BlueGreen (readRolloutSpec), a step without a duration always waits
// for a person (no "last step 100%" shortcut), StepInit goes on to StepUpgrade in the same reconcile, and
// the finalising steps run in nextBlueGreenTask's order.
//
// The state machine works on one sub-status, `canaryStatus`; blue-green keeps it in `status.blueGreenStatus`
// with its own spelling (updatedRevision, updatedReplicas, updatedReadyReplicas): `blueGreenStatusAsCanary`
// and `canaryStatusAsBlueGreen` translate at the edges of a reconcile.
import type { KubeObject } from '../types';
import { isObj } from '../workloads/access';
import { STEP_STATE } from './labels';
import { nextFinalisingStep, removeRolloutProgressingAnnotation, runFinalisingSteps, runStepAfterTraffic, stepPauseOver } from './release-manager-steps';
import { recheckIn, type ReleaseManager } from './rollout-context';
import { doCanaryJump, doCanaryUpgrade, FINALISING_STEP, finalizingBatchRelease, removeBatchRelease, syncBatchRelease } from './rollout-canary';
import type { RolloutStatusObj } from './rollout-status';

/** The finalising steps (api/v1beta1/rollout_types.go FinalisingStepType), shared with canary. */
export const BLUE_GREEN_FINALISING_STEP = FINALISING_STEP;

/** nextBlueGreenTask: the finalising steps in the order of the reason (success, rollback, disabled/deleting). */
export function nextBlueGreenTask(reason: string | undefined, current: string): string {
  const F = BLUE_GREEN_FINALISING_STEP;
  const seq =
    reason === 'Success'
      ? [F.RouteTrafficToNew, F.RestoreStableService, F.ResumeWorkload, F.RouteTrafficToStable, F.RemoveCanaryService, F.ReleaseWorkloadControl]
      : reason === 'Rollback'
        ? [F.RouteTrafficToStable, F.ResumeWorkload, F.RestoreStableService, F.RemoveCanaryService, F.ReleaseWorkloadControl]
        : [F.RestoreStableService, F.RouteTrafficToStable, F.RemoveCanaryService, F.ResumeWorkload, F.ReleaseWorkloadControl];
  return nextFinalisingStep(seq, current);
}

export const blueGreenReleaseManager: ReleaseManager = {
  run(c) {
    const sub = c.newStatus.canaryStatus;
    if (!sub) return;
    if (c.batchRelease) syncBatchRelease(c, c.batchRelease, sub);
    if (sub.podTemplateHash === '') sub.podTemplateHash = c.workload?.podTemplateHash ?? '';
    if (doCanaryJump(c, sub)) return;
    const steps = c.rollout.steps;
    if (!steps[sub.currentStepIndex - 1]) return;
    const stamp = () => (sub.lastUpdateTime = c.nowIso);
    switch (sub.currentStepState) {
      case STEP_STATE.Init:
      case STEP_STATE.Upgrade:
        // upstream's fallthrough: from StepInit the upgrade starts in the same reconcile
        if (sub.currentStepState === STEP_STATE.Init) {
          stamp();
          sub.currentStepState = STEP_STATE.Upgrade;
        }
        if (doCanaryUpgrade(c, sub)) {
          sub.currentStepState = STEP_STATE.TrafficRouting;
          stamp();
        }
        return;
      case STEP_STATE.TrafficRouting:
        // without trafficRoutings DoTrafficRouting is done at once
        stamp();
        sub.currentStepState = STEP_STATE.MetricsAnalysis;
        recheckIn(c, c.gracePeriodMs);
        return;
      default:
        // doCanaryPaused (blue-green): no "last step 100%" shortcut, whatever the step's replicas
        runStepAfterTraffic(c, sub, stepPauseOver);
    }
  },

  finalise(c) {
    const sub = c.newStatus.canaryStatus;
    if (!sub) return true;
    removeRolloutProgressingAnnotation(c);
    const F = BLUE_GREEN_FINALISING_STEP;
    return runFinalisingSteps(c, sub, nextBlueGreenTask, (step) => {
      switch (step) {
        case F.ResumeWorkload:
          return finalizingBatchRelease(c);
        case F.ReleaseWorkloadControl:
          return removeBatchRelease(c);
        case F.RouteTrafficToNew:
        case F.RouteTrafficToStable:
        case F.RestoreStableService:
        case F.RemoveCanaryService:
          // no trafficRoutings: nothing to route or restore
          return false;
        default:
          return undefined;
      }
    });
  },
};

/** The Rollout with `status.blueGreenStatus` read as the state machine's `canaryStatus` (updated* → canary*). */
export function blueGreenStatusAsCanary(rollout: KubeObject): KubeObject {
  const status = rollout.status;
  if (!isObj(status) || !isObj(status.blueGreenStatus)) return rollout;
  const { blueGreenStatus, ...rest } = status;
  const { updatedRevision, updatedReplicas, updatedReadyReplicas, ...common } = blueGreenStatus;
  const sub: Record<string, unknown> = { ...common };
  if (updatedRevision !== undefined) sub.canaryRevision = updatedRevision;
  if (updatedReplicas !== undefined) sub.canaryReplicas = updatedReplicas;
  if (updatedReadyReplicas !== undefined) sub.canaryReadyReplicas = updatedReadyReplicas;
  return { ...rollout, status: { ...rest, canaryStatus: sub } };
}

/** The status to write for a blue-green Rollout: the sub-status under `blueGreenStatus`, spelt as upstream does. */
export function canaryStatusAsBlueGreen(status: RolloutStatusObj): RolloutStatusObj & { blueGreenStatus?: Record<string, unknown> } {
  const { canaryStatus, ...rest } = status;
  if (!canaryStatus) return rest;
  const { canaryRevision, canaryReplicas, canaryReadyReplicas, ...common } = canaryStatus;
  return { ...rest, blueGreenStatus: { ...common, updatedRevision: canaryRevision, updatedReplicas: canaryReplicas, updatedReadyReplicas: canaryReadyReplicas } };
}
