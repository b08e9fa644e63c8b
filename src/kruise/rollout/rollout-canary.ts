// The canary release manager, pure (openkruise/rollouts v0.6.2 pkg/controller/rollout/rollout_canary.go
// runCanary, doCanaryUpgrade, doCanaryPaused, doCanaryJump, doCanaryFinalising, createBatchRelease,
// syncBatchRelease, nextCanaryTask; rollout_releaseManager.go runBatchRelease, finalizingBatchRelease,
// removeBatchRelease, removeRolloutProgressingAnnotation).
// Traffic routing (traffic.ts: Services and an nginx Ingress) is done at once without trafficRoutings.
// What blue-green runs alike (pause, Ready, the finalising walk) is in release-manager-steps.ts.
import type { KubeObject } from '../types';
import { at, isObj, numAt, strAt } from '../workloads/access';
import { STEP_STATE } from './labels';
import { FINALISING_STEP, nextFinalisingStep, removeRolloutProgressingAnnotation, runFinalisingSteps, runStepAfterTraffic, setProgressingMessage, stepPauseOver } from './release-manager-steps';
import { recheckIn, rolloutIDOf, type ReleaseManager, type RolloutContext, type RolloutStepSpec } from './rollout-context';
import type { SubStatusObj } from './rollout-status';
import { rolloutScaledValue } from './step-math';
import { stepJumpLanding, stepJumpRuleOf } from './step-jump';
import { batchReleasePlanHash } from './batch-release';
import { doTrafficRouting, patchStableService, removeCanaryService, restoreGateway, restoreStableService } from './traffic';

export { FINALISING_STEP };

/** nextCanaryTask: the finalising steps in the order of the reason. */
export function nextCanaryTask(reason: string | undefined, current: string): string {
  const seq =
    reason === 'Rollback'
      ? [FINALISING_STEP.RouteTrafficToStable, FINALISING_STEP.ResumeWorkload, FINALISING_STEP.ReleaseWorkloadControl, FINALISING_STEP.RestoreStableService, FINALISING_STEP.RemoveCanaryService]
      : [FINALISING_STEP.RestoreStableService, FINALISING_STEP.RouteTrafficToStable, FINALISING_STEP.RemoveCanaryService, FINALISING_STEP.ResumeWorkload, FINALISING_STEP.ReleaseWorkloadControl];
  return nextFinalisingStep(seq, current);
}

/** createBatchRelease: the BatchRelease a Rollout step wants (spec + annotations). */
export function desiredBatchRelease(c: RolloutContext, batch: number): KubeObject {
  const r = c.rollout;
  const canary = r.strategySpec;
  const spec: Record<string, unknown> = {
    workloadRef: { ...r.workloadRef },
    releasePlan: {
      batches: r.steps.map((s) => ({ canaryReplicas: s.replicas ?? 0 })),
      rolloutID: rolloutIDOf(c.workload),
      batchPartition: batch,
      ...(canary.failureThreshold !== undefined ? { failureThreshold: canary.failureThreshold } : {}),
      ...(isObj(canary.patchPodTemplateMetadata) ? { patchPodTemplateMetadata: canary.patchPodTemplateMetadata } : {}),
      rollingStyle: r.rollingStyle,
      enableExtraWorkloadForCanary: canary.enableExtraWorkloadForCanary === true,
    },
  };
  const annotations: Record<string, string> = {};
  const rollback = c.rolloutObject.metadata.annotations?.['rollouts.kruise.io/rollback-in-batch'];
  if (c.workload?.inRollback && rollback !== undefined) annotations['rollouts.kruise.io/rollback-in-batch'] = rollback;
  return {
    apiVersion: 'rollouts.kruise.io/v1beta1',
    kind: 'BatchRelease',
    metadata: {
      namespace: r.namespace,
      name: r.name,
      ...(Object.keys(annotations).length ? { annotations } : {}),
      ownerReferences: [{ apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', name: r.name, uid: r.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec,
  };
}

function jsonEq(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** runBatchRelease: create or bring up to date; true with the object when it already matches. */
function runBatchRelease(c: RolloutContext, stepIndex: number): KubeObject | undefined {
  const want = desiredBatchRelease(c, stepIndex - 1);
  const br = c.batchRelease;
  if (!br) {
    c.writes.push({ kind: 'createBatchRelease', object: want });
    return undefined;
  }
  // the annotation the controller manages (a v1alpha1 object read converted also carries rolling-style)
  const managed = (o: KubeObject) => o.metadata.annotations?.['rollouts.kruise.io/rollback-in-batch'];
  const wantAnn = want.metadata.annotations ?? {};
  if (jsonEq(normaliseSpec(br.spec), normaliseSpec(want.spec)) && managed(br) === managed(want)) return br;
  c.writes.push({ kind: 'updateBatchRelease', spec: want.spec as Record<string, unknown>, annotations: wantAnn });
  return undefined;
}

/** Compares specs as Go's DeepEqual on the typed structs would (absent false/empty fields equal). */
function normaliseSpec(spec: unknown): unknown {
  const plan = at(spec, 'releasePlan');
  return {
    workloadRef: at(spec, 'workloadRef'),
    batches: at(plan, 'batches'),
    rolloutID: strAt(plan, 'rolloutID') ?? '',
    batchPartition: numAt(plan, 'batchPartition'),
    failureThreshold: at(plan, 'failureThreshold'),
    patchPodTemplateMetadata: at(plan, 'patchPodTemplateMetadata'),
    rollingStyle: strAt(plan, 'rollingStyle') ?? '',
    enableExtraWorkloadForCanary: at(plan, 'enableExtraWorkloadForCanary') === true,
    finalizingPolicy: strAt(plan, 'finalizingPolicy') ?? '',
  };
}

/** syncBatchRelease: the BatchRelease's counts and state into canaryStatus; its rolloutID follows ours. */
export function syncBatchRelease(c: RolloutContext, br: KubeObject, sub: SubStatusObj): void {
  sub.canaryReplicas = numAt(br, 'status', 'canaryStatus', 'updatedReplicas') ?? 0;
  sub.canaryReadyReplicas = numAt(br, 'status', 'canaryStatus', 'updatedReadyReplicas') ?? 0;
  const state = strAt(br, 'status', 'canaryStatus', 'batchState') ?? '';
  const batch = numAt(br, 'status', 'canaryStatus', 'currentBatch') ?? 0;
  sub.message = `BatchRelease is at state ${state}, rollout-id ${strAt(br, 'status', 'observedRolloutID') ?? ''}, step ${batch + 1}`;
  const brMessage = strAt(br, 'status', 'message');
  if (brMessage) sub.message += `, ${brMessage}`;
  const observed = sub.observedRolloutID ?? '';
  if (observed !== (strAt(br, 'spec', 'releasePlan', 'rolloutID') ?? '')) {
    c.writes.push({ kind: 'patchBatchRelease', patch: { spec: { releasePlan: { rolloutID: observed } } } });
  }
}

/** doCanaryUpgrade: true once the BatchRelease reports the step's batch Ready. */
export function doCanaryUpgrade(c: RolloutContext, sub: SubStatusObj): boolean {
  const steps = c.rollout.steps.length;
  setProgressingMessage(c, `Rollout is in step(${sub.currentStepIndex}/${steps}), and upgrade workload to new version`);
  const br = runBatchRelease(c, sub.currentStepIndex);
  if (!br) return false;
  if (strAt(br, 'status', 'observedReleasePlanHash') !== batchReleasePlanHash(br) || (br.metadata.generation ?? 0) !== (numAt(br, 'status', 'observedGeneration') ?? -1)) return false;
  const state = strAt(br, 'status', 'canaryStatus', 'batchState');
  const batch = numAt(br, 'status', 'canaryStatus', 'currentBatch') ?? 0;
  if (state !== 'Ready' || batch + 1 < sub.currentStepIndex) return false;
  sub.podTemplateHash = c.workload?.podTemplateHash ?? sub.podTemplateHash;
  return true;
}

/** doCanaryPaused: a last "100%" step moves on at once; otherwise the step's pause (stepPauseOver). */
function doCanaryPaused(c: RolloutContext, sub: SubStatusObj): boolean {
  const steps = c.rollout.steps.length;
  const step = c.rollout.steps[sub.currentStepIndex - 1];
  if (steps === sub.currentStepIndex && step?.replicas === '100%') return true;
  return stepPauseOver(c, sub);
}

/** doCanaryJump → doStepJump (step-jump.ts, the imitated release's rule): a patched nextStepIndex moves the release to that step. */
export function doCanaryJump(c: RolloutContext, sub: SubStatusObj): boolean {
  if (!c.workload) return false;
  const jump = stepJumpLanding(stepJumpRuleOf(c.release), c.rollout.steps, sub, sub.canaryReplicas, c.workload.replicas);
  if (!jump) return false;
  Object.assign(sub, jump, { lastUpdateTime: c.nowIso });
  return true;
}

/** The StepUpgrade state: once the batch is Ready, on to traffic routing (or metrics for an all-pods partition step). */
function upgradeStep(c: RolloutContext, sub: SubStatusObj, step: RolloutStepSpec): void {
  if (!doCanaryUpgrade(c, sub)) return;
  sub.currentStepState = STEP_STATE.TrafficRouting;
  const replicas = c.workload?.replicas ?? 0;
  const expected = rolloutScaledValue(step.replicas, replicas) ?? 0;
  // the ingress-nginx workaround (v0.5+; v0.4.4 always routes traffic next): a step releasing every pod
  // of a partition-style rollout skips traffic routing
  if (expected >= replicas && c.rollout.rollingStyle === 'Partition' && c.release !== 'v0.4') sub.currentStepState = STEP_STATE.MetricsAnalysis;
  sub.lastUpdateTime = c.nowIso;
}

export const canaryReleaseManager: ReleaseManager = {
  jump(c) {
    const sub = c.newStatus.canaryStatus;
    return sub ? doCanaryJump(c, sub) : false;
  },

  run(c) {
    const sub = c.newStatus.canaryStatus;
    if (!sub) return;
    if (c.batchRelease) syncBatchRelease(c, c.batchRelease, sub);
    if (sub.podTemplateHash === '') sub.podTemplateHash = c.workload?.podTemplateHash ?? '';
    if (doCanaryJump(c, sub)) return;
    const steps = c.rollout.steps;
    const step = steps[sub.currentStepIndex - 1];
    if (!step) return;
    const stamp = () => (sub.lastUpdateTime = c.nowIso);
    // a step without traffic after steps with traffic: the canary routes are cleaned up first
    // (FinalisingTrafficRouting: stable Service, canary Ingress, canary Service)
    if (!step.traffic && !step.hasMatches && (restoreStableService(c) || restoreGateway(c) || removeCanaryService(c))) {
      stamp();
      recheckIn(c, c.gracePeriodMs);
      return;
    }
    switch (sub.currentStepState) {
      case STEP_STATE.Init:
        if (!step.traffic && !step.hasMatches) {
          sub.currentStepState = STEP_STATE.Upgrade;
          return;
        }
        // before the first batch, the stable Service is pinned to the stable revision (PatchStableService)
        if (sub.currentStepIndex === 1 && !patchStableService(c, sub)) {
          recheckIn(c, c.gracePeriodMs);
          return;
        }
        // with traffic the upgrade starts in the same reconcile (upstream's fallthrough)
        stamp();
        sub.currentStepState = STEP_STATE.Upgrade;
        upgradeStep(c, sub, step);
        return;
      case STEP_STATE.Upgrade:
        upgradeStep(c, sub, step);
        return;
      case STEP_STATE.TrafficRouting:
        // without trafficRoutings (or traffic in the step) DoTrafficRouting is done at once
        if (doTrafficRouting(c, sub, step)) {
          stamp();
          sub.currentStepState = STEP_STATE.MetricsAnalysis;
        }
        recheckIn(c, c.gracePeriodMs);
        return;
      default:
        runStepAfterTraffic(c, sub, doCanaryPaused);
    }
  },

  finalise(c) {
    const sub = c.newStatus.canaryStatus;
    if (!sub) return true;
    removeRolloutProgressingAnnotation(c);
    if (c.release === 'v0.4') return finaliseV04(c);
    return runFinalisingSteps(c, sub, nextCanaryTask, (step) => {
      switch (step) {
        case FINALISING_STEP.ResumeWorkload:
          return finalizingBatchRelease(c);
        case FINALISING_STEP.ReleaseWorkloadControl:
          return removeBatchRelease(c);
        case FINALISING_STEP.RouteTrafficToStable:
          return restoreGateway(c);
        case FINALISING_STEP.RestoreStableService:
          return restoreStableService(c);
        case FINALISING_STEP.RemoveCanaryService:
          return removeCanaryService(c);
        default:
          return undefined;
      }
    });
  },
};

/**
 * v0.4.4 doCanaryFinalising: no finalisingStep in its status; every reconcile walks the same checks
 * (traffic, then the BatchRelease resumes the workload and reaches Completed, then it is deleted).
 */
function finaliseV04(c: RolloutContext): boolean {
  if (restoreStableService(c)) return false;
  const br = c.batchRelease;
  if (!br) return !restoreGateway(c);
  const partition = numAt(br, 'spec', 'releasePlan', 'batchPartition');
  if (partition === undefined && strAt(br, 'status', 'phase') === 'Completed') {
    if (restoreGateway(c)) return false;
    if (!br.metadata.deletionTimestamp) c.writes.push({ kind: 'deleteBatchRelease' });
    return false;
  }
  const waitResume = strAt(br, 'spec', 'releasePlan', 'finalizingPolicy') === 'WaitResume';
  if (partition === undefined && waitResume === Boolean(c.waitReady)) return false;
  c.writes.push({ kind: 'patchBatchRelease', patch: { spec: { releasePlan: { batchPartition: null, finalizingPolicy: c.waitReady ? 'WaitResume' : 'Immediate' } } } });
  return false;
}

/** finalizingBatchRelease: batchPartition null + finalizingPolicy, then wait for the BatchRelease's Completed. */
export function finalizingBatchRelease(c: RolloutContext): boolean {
  const br = c.batchRelease;
  if (!br) return false;
  const partition = numAt(br, 'spec', 'releasePlan', 'batchPartition');
  if (partition === undefined && strAt(br, 'status', 'phase') === 'Completed') return false;
  const policy = c.waitReady ? 'WaitResume' : 'Immediate';
  if (partition === undefined && (strAt(br, 'spec', 'releasePlan', 'finalizingPolicy') === 'WaitResume') === Boolean(c.waitReady)) return true;
  c.writes.push({ kind: 'patchBatchRelease', patch: { spec: { releasePlan: { batchPartition: null, finalizingPolicy: policy } } } });
  return true;
}

/** removeBatchRelease: delete it and wait until it is gone. */
export function removeBatchRelease(c: RolloutContext): boolean {
  const br = c.batchRelease;
  if (!br) return false;
  if (!br.metadata.deletionTimestamp) c.writes.push({ kind: 'deleteBatchRelease' });
  return true;
}

