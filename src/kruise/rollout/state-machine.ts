// One reconcile of Kruise Rollout's controller, pure (openkruise/rollouts v0.6.2 pkg/controller/rollout):
// rollout_controller.go Reconcile → rollout_status.go calculateRolloutStatus → per phase
// rollout_progressing.go reconcileRolloutProgressing (Initializing → InRolling → Finalising → Completed,
// Paused, Cancelling) or rollout_status.go reconcileRolloutDisabling; the strategy's release manager
// (RELEASE_MANAGERS: canary in rollout-canary.ts) runs the steps.
//
// Input: the Rollout in its v1beta1 shape, the workload, the BatchRelease (v1beta1), now.
// Output: the new status and the writes to do (BatchRelease create/update/patch/delete, workload
// patches) plus when to look again. Like upstream, a step that writes returns "not done" and the next
// reconcile (after the write's event or the recheck) goes on.
//
// EXTENSION POINT (ro-deploy-bg): a blue-green manager is a `ReleaseManager` added to RELEASE_MANAGERS
// under 'blueGreen' (its own module, e.g. rollout-bluegreen.ts); Deployment controls go in
// release-control.ts. `RolloutContext` carries everything a manager needs.
import type { KubeObject } from '../types';
import { at, boolAt, isObj, strAt } from '../workloads/access';
import { PROGRESSING_REASON, STEP_STATE } from './labels';
import { releaseControlFor } from './release-control';
import type { KruiseRolloutRelease, MergePatch, RolloutWorkload, WorkloadRelated } from './release-workload';
import {
  emptySubStatus,
  getCondition,
  mirrorStepFields,
  progressingTransition,
  readStatusObj,
  removeCondition,
  ROLLOUT_PHASE,
  setCondition,
  newCondition,
  setSucceeded,
  type RolloutStatusObj,
  type SubStatusObj,
} from './rollout-status';
import { nextBatchIndex } from './step-math';
import { recalculateCanaryStep, rolloutPlanHash, ROLLOUT_HASH_ANNOTATION } from './rollout-plan';
import { releasePlanOf } from './release-workload';
import { canaryReleaseManager } from './rollout-canary';
import { blueGreenReleaseManager, blueGreenStatusAsCanary, canaryStatusAsBlueGreen } from './rollout-bluegreen';
import { recheckIn, rolloutIDOf, stepStartState, type ReleaseManager, type RolloutContext, type RolloutSpecView, type RolloutStepSpec, type RolloutWrite, type TrafficObjects } from './rollout-context';

export type { ReleaseManager, RolloutContext, RolloutSpecView, RolloutStepSpec, RolloutWrite };

/** rollout_progressing.go defaultGracePeriodSeconds. */
export const DEFAULT_GRACE_PERIOD_MS = 3000;

/** Strategy dispatch (getReleaseManager); ro-deploy-bg adds 'blueGreen'. */
export const RELEASE_MANAGERS: Partial<Record<'canary' | 'blueGreen', ReleaseManager>> = {
  canary: canaryReleaseManager,
  blueGreen: blueGreenReleaseManager,
};

export interface RolloutReconcileInput {
  /** The Rollout, v1beta1 shape (a stored v1alpha1 object converted first). */
  rollout: KubeObject;
  workload?: KubeObject;
  /** What the workload's kind reads beside it (a Deployment's ReplicaSets). */
  related?: WorkloadRelated;
  batchRelease?: KubeObject;
  now: Date;
  gracePeriodMs?: number;
  /** The Kruise Rollout release imitated (default v0.6). */
  release?: KruiseRolloutRelease;
  /** The Services and Ingresses of the namespace the trafficRoutings name (see trafficObjectNames). */
  traffic?: TrafficObjects;
}

export interface RolloutReconcileResult {
  /** The status to write; undefined when nothing changed. */
  status?: RolloutStatusObj;
  writes: RolloutWrite[];
  recheckMs?: number;
}

export function readRolloutSpec(obj: KubeObject): RolloutSpecView {
  const strategy = at(obj, 'spec', 'strategy');
  const blueGreen = isObj(at(strategy, 'blueGreen'));
  const stratObj = at(strategy, blueGreen ? 'blueGreen' : 'canary');
  const rawSteps = at(stratObj, 'steps');
  const steps = (Array.isArray(rawSteps) ? rawSteps : []).map((s: unknown): RolloutStepSpec => {
    const r = at(s, 'replicas');
    const d = at(s, 'pause', 'duration');
    const m = at(s, 'matches');
    return {
      replicas: typeof r === 'number' || typeof r === 'string' ? r : undefined,
      traffic: strAt(s, 'traffic'),
      hasMatches: Array.isArray(m) && m.length > 0,
      matches: Array.isArray(m) ? m : undefined,
      pauseSeconds: typeof d === 'number' ? d : undefined,
    };
  });
  const ref = at(obj, 'spec', 'workloadRef');
  const kind = strAt(ref, 'kind');
  const name = strAt(ref, 'name');
  const routings = at(stratObj, 'trafficRoutings');
  const extra = boolAt(stratObj, 'enableExtraWorkloadForCanary');
  return {
    namespace: obj.metadata.namespace ?? '',
    name: obj.metadata.name ?? '',
    uid: obj.metadata.uid,
    generation: obj.metadata.generation ?? 1,
    workloadRef: kind && name ? { apiVersion: strAt(ref, 'apiVersion') ?? '', kind, name } : undefined,
    strategy: blueGreen ? 'blueGreen' : 'canary',
    steps,
    strategySpec: isObj(stratObj) ? stratObj : {},
    planHash: rolloutPlanHash(isObj(stratObj) ? stratObj : {}),
    paused: boolAt(strategy, 'paused'),
    disabled: boolAt(obj, 'spec', 'disabled'),
    deleting: Boolean(obj.metadata.deletionTimestamp),
    // RolloutStrategy.GetRollingStyle (v1beta1): blue-green, canary with an extra workload, else partition
    rollingStyle: blueGreen ? 'BlueGreen' : extra ? 'Canary' : 'Partition',
    hasTrafficRoutings: (Array.isArray(routings) && routings.length > 0) || Boolean(strAt(stratObj, 'trafficRoutingRef')),
  };
}

function stepsCountOf(r: RolloutSpecView): number {
  return r.steps.length;
}

/**
 * Reads the workload through its kind's control in `release` (undefined when the release does not
 * release the kind, or it is absent), with what the reading writes back (a native DaemonSet's revisions).
 */
function readWorkload(spec: RolloutSpecView, obj: KubeObject | undefined, related: WorkloadRelated | undefined, release: KruiseRolloutRelease): { view?: RolloutWorkload; patch?: MergePatch } {
  if (!obj || !spec.workloadRef) return {};
  const control = releaseControlFor(spec.workloadRef.apiVersion, spec.workloadRef.kind, spec.rollingStyle, release);
  const view = control?.readWorkload(obj, related);
  return { view, patch: view && view.statusConsistent ? control?.annotateWorkloadView?.(obj, view) : undefined };
}

/** One reconcile. */
export function reconcileRollout(input: RolloutReconcileInput): RolloutReconcileResult {
  const spec = readRolloutSpec(input.rollout);
  // blue-green keeps its sub-status in blueGreenStatus: read and written as canaryStatus here
  const blueGreen = spec.strategy === 'blueGreen';
  const oldStatus = readStatusObj(blueGreen ? blueGreenStatusAsCanary(input.rollout) : input.rollout);
  const nowIso = input.now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const release = input.release ?? 'v0.6';
  const read = readWorkload(spec, input.workload, input.related, release);
  const workload = read.view;
  const c: RolloutContext = {
    rollout: spec,
    rolloutObject: input.rollout,
    oldStatus,
    newStatus: structuredClone(oldStatus),
    workload,
    workloadObject: input.workload,
    batchRelease: input.batchRelease,
    now: input.now,
    nowIso,
    gracePeriodMs: input.gracePeriodMs ?? DEFAULT_GRACE_PERIOD_MS,
    release,
    traffic: input.traffic ?? { services: new Map(), ingresses: new Map() },
    writes: [],
  };
  if (read.patch) c.writes.push({ kind: 'patchWorkload', patch: read.patch });
  // calculateRolloutHash: the annotation follows the plan (a metadata patch of the Rollout)
  if (input.rollout.metadata.annotations?.[ROLLOUT_HASH_ANNOTATION] !== spec.planHash) {
    c.writes.push({ kind: 'patchRollout', patch: { metadata: { annotations: { [ROLLOUT_HASH_ANNOTATION]: spec.planHash } } } });
  }
  const retry = calculateRolloutStatus(c);
  if (retry) return { writes: c.writes, recheckMs: c.gracePeriodMs };
  switch (oldStatus.phase) {
    case ROLLOUT_PHASE.Progressing:
      reconcileProgressing(c);
      break;
    case ROLLOUT_PHASE.Disabling:
      reconcileDisabling(c);
      break;
    case ROLLOUT_PHASE.Terminating:
      reconcileTerminating(c);
      break;
  }
  mirrorStepFields(c.newStatus);
  if (c.release === 'v0.4') withoutV05Fields(c.newStatus);
  const changed = JSON.stringify(c.newStatus) !== JSON.stringify(oldStatus);
  return { status: changed ? (blueGreen ? canaryStatusAsBlueGreen(c.newStatus) : c.newStatus) : undefined, writes: c.writes, recheckMs: c.recheckMs };
}

/**
 * v0.4.4's CanaryStatus has no nextStepIndex nor finalisingStep (they came with v0.5): its controller
 * never writes them (so no step jumps either); the zero values the rules work with are dropped.
 */
function withoutV05Fields(status: RolloutStatusObj): void {
  const sub = status.canaryStatus as Partial<SubStatusObj> | undefined;
  if (!sub) return;
  delete sub.nextStepIndex;
  delete sub.finalisingStep;
}

/** rollout_status.go calculateRolloutStatus; true: the workload's status lags, look again later. */
function calculateRolloutStatus(c: RolloutContext): boolean {
  const { rollout } = c;
  const s = c.newStatus;
  s.observedGeneration = rollout.generation;
  if (rollout.deleting) {
    if (s.phase !== ROLLOUT_PHASE.Terminating) {
      s.phase = ROLLOUT_PHASE.Terminating;
      setCondition(s, newCondition('Terminating', 'True', 'InTerminating', 'Rollout is in terminating', c.nowIso));
    }
    return false;
  }
  if (rollout.disabled && s.phase !== ROLLOUT_PHASE.Disabled && s.phase !== ROLLOUT_PHASE.Disabling) {
    if (s.phase === ROLLOUT_PHASE.Progressing) {
      s.phase = ROLLOUT_PHASE.Disabling;
      s.message = 'Disabling rollout, release resources';
    } else {
      s.phase = ROLLOUT_PHASE.Disabled;
      s.message = 'Rollout is disabled';
    }
  }
  if (!s.phase) s.phase = ROLLOUT_PHASE.Initial;
  const w = c.workload;
  if (!w) {
    if (!rollout.disabled) {
      c.newStatus = { observedGeneration: rollout.generation, phase: ROLLOUT_PHASE.Initial, message: 'Workload Not Found', currentStepIndex: 0, currentStepState: '' };
    }
    return false;
  }
  if (!w.statusConsistent) return true;
  const sub = s.canaryStatus;
  if (sub && sub.canaryRevision !== '' && sub.canaryRevision === w.canaryRevision) {
    sub.observedRolloutID = rolloutIDOf(w);
    sub.observedWorkloadGeneration = w.generation;
  }
  switch (s.phase) {
    case ROLLOUT_PHASE.Initial:
      s.phase = ROLLOUT_PHASE.Healthy;
      s.message = 'rollout is healthy';
      break;
    case ROLLOUT_PHASE.Healthy:
      if (w.inRolloutProgressing) {
        s.phase = ROLLOUT_PHASE.Progressing;
        setCondition(s, newCondition('Progressing', 'True', PROGRESSING_REASON.Initializing, 'Rollout is in Progressing', c.nowIso));
        removeCondition(s, 'Succeeded');
      } else if (!sub) {
        // first deployment: the status reads as a completed release so that PaaS checks pass
        const steps = stepsCountOf(rollout);
        s.canaryStatus = {
          ...emptySubStatus(),
          observedRolloutID: rolloutIDOf(w),
          observedWorkloadGeneration: w.generation,
          podTemplateHash: w.podTemplateHash,
          stableRevision: w.stableRevision,
          canaryRevision: w.canaryRevision,
          currentStepIndex: steps,
          nextStepIndex: nextBatchIndex(steps, steps),
          currentStepState: STEP_STATE.Completed,
          rolloutHash: rollout.planHash,
        };
        s.message = 'workload deployment is completed';
      }
      break;
    case ROLLOUT_PHASE.Disabled:
      if (!rollout.disabled) {
        s.phase = ROLLOUT_PHASE.Healthy;
        s.message = 'rollout is healthy';
      }
      break;
  }
  return false;
}

function recheckAfterGrace(c: RolloutContext): void {
  c.recheckMs = c.recheckMs === undefined ? c.gracePeriodMs : Math.min(c.recheckMs, c.gracePeriodMs);
}

/** rollout_progressing.go reconcileRolloutProgressing. */
function reconcileProgressing(c: RolloutContext): void {
  const cond = getCondition(c.oldStatus, 'Progressing');
  const w = c.workload;
  if (!w || !w.statusConsistent) return;
  const manager = RELEASE_MANAGERS[c.rollout.strategy];
  if (!manager) return;
  const s = c.newStatus;
  switch (cond?.reason) {
    case PROGRESSING_REASON.Initializing: {
      // clear and create the sub-status
      const steps = stepsCountOf(c.rollout);
      s.canaryStatus = {
        ...emptySubStatus(),
        observedWorkloadGeneration: w.generation,
        observedRolloutID: rolloutIDOf(w),
        stableRevision: w.stableRevision,
        canaryRevision: w.canaryRevision,
        currentStepIndex: 1,
        nextStepIndex: nextBatchIndex(steps, 1),
        currentStepState: stepStartState(c),
        lastUpdateTime: c.nowIso,
        rolloutHash: c.rollout.planHash,
      };
      // doProgressingInitializing: wait a grace period after the condition was set (the Rollout spec
      // may arrive a little after the workload's)
      const since = Date.parse(getCondition(s, 'Progressing')?.lastUpdateTime ?? '') || 0;
      const waitMs = since + c.gracePeriodMs - c.now.getTime();
      if (waitMs > 0) {
        recheckIn(c, waitMs);
        return;
      }
      progressingTransition(s, 'True', PROGRESSING_REASON.InRolling, 'Rollout is in Progressing', c.nowIso);
      return;
    }
    case PROGRESSING_REASON.InRolling:
      doProgressingInRolling(c, manager);
      return;
    case PROGRESSING_REASON.Finalising: {
      c.waitReady = true;
      c.finalizeReason = 'Success';
      if (manager.finalise(c)) {
        progressingTransition(s, 'False', PROGRESSING_REASON.Completed, 'Rollout progressing has been completed', c.nowIso);
        setSucceeded(s, 'True', c.nowIso);
      } else recheckAfterGrace(c);
      return;
    }
    case PROGRESSING_REASON.Paused:
      if (!c.rollout.paused) progressingTransition(s, 'True', PROGRESSING_REASON.InRolling, '', c.nowIso);
      return;
    case PROGRESSING_REASON.Cancelling: {
      c.finalizeReason = 'Rollback';
      if (manager.finalise(c)) {
        progressingTransition(s, 'False', PROGRESSING_REASON.Completed, 'Rollout progressing has been cancelled', c.nowIso);
        setSucceeded(s, 'False', c.nowIso);
      } else recheckAfterGrace(c);
      return;
    }
    case PROGRESSING_REASON.Completed:
      s.phase = ROLLOUT_PHASE.Healthy;
      return;
  }
}

/** doProgressingInRolling: the special cases in upstream's order, then normal rolling. */
function doProgressingInRolling(c: RolloutContext, manager: ReleaseManager): void {
  const w = c.workload!;
  const s = c.newStatus;
  const sub = s.canaryStatus;
  const oldRevision = c.oldStatus.canaryStatus?.canaryRevision ?? '';
  const inBatchRollback = c.rollout.rollingStyle !== 'BlueGreen' && c.rolloutObject.metadata.annotations?.['rollouts.kruise.io/rollback-in-batch'] === 'true';
  // 1. rolled back directly (isRollingBackDirectly)
  if (w.inRollback && w.canaryRevision !== oldRevision && !inBatchRollback) {
    if (sub) sub.canaryRevision = w.canaryRevision;
    progressingTransition(s, 'True', PROGRESSING_REASON.Cancelling, 'The workload has been rolled back and the rollout process will be cancelled', c.nowIso);
    return;
  }
  // 2. paused (isRolloutPaused)
  if (c.rollout.paused) {
    progressingTransition(s, 'True', PROGRESSING_REASON.Paused, 'Rollout has been paused, you can resume it by kube-cli', c.nowIso);
    return;
  }
  // 3. rollback in batches (isRollingBackInBatches): restart from the first step
  if (w.inRollback && w.canaryRevision !== oldRevision && inBatchRollback && sub) {
    const steps = stepsCountOf(c.rollout);
    Object.assign(sub, { currentStepIndex: 1, nextStepIndex: nextBatchIndex(steps, 1), canaryRevision: w.canaryRevision, currentStepState: stepStartState(c), lastUpdateTime: c.nowIso, rolloutHash: c.rollout.planHash });
    return;
  }
  // 4. continuous release v1 -> v2 -> v3 (isContinuousRelease): reset, then initialise again
  if (oldRevision !== '' && w.canaryRevision !== oldRevision && !w.inRollback) {
    if (c.rollout.strategy === 'blueGreen') {
      const cond = getCondition(s, 'Progressing');
      const msg = 'new version releasing detected in the progress of blue-green release, please rollback first';
      if (cond) setCondition(s, { ...cond, message: msg });
      s.message = msg;
      return;
    }
    if (c.batchRelease) {
      if (!c.batchRelease.metadata.deletionTimestamp) c.writes.push({ kind: 'deleteBatchRelease' });
      return;
    }
    delete s.canaryStatus;
    progressingTransition(s, 'True', PROGRESSING_REASON.Initializing, 'Workload is continuous release', c.nowIso);
    return;
  }
  // 5. the plan changed (isRolloutPlanChanged): recalculate the step (handleRolloutPlanChanged)
  const oldHash = c.oldStatus.canaryStatus?.rolloutHash ?? '';
  if (sub && oldHash !== '' && oldHash !== c.rollout.planHash) {
    const plan = c.batchRelease ? releasePlanOf(c.batchRelease) : undefined;
    const target = recalculateCanaryStep(c.rollout.steps, plan?.batches, plan?.batchPartition, w.replicas, sub.currentStepIndex);
    sub.lastUpdateTime = c.nowIso;
    sub.rolloutHash = c.rollout.planHash;
    if (c.release === 'v0.4') {
      // v0.4.4: straight to the recalculated step's upgrade
      sub.currentStepIndex = target;
      sub.currentStepState = STEP_STATE.Upgrade;
    } else if (sub.nextStepIndex === target) sub.currentStepState = STEP_STATE.Ready;
    else {
      sub.nextStepIndex = target;
      manager.jump?.(c);
    }
    return;
  }
  // normal rolling
  if (sub?.currentStepState === STEP_STATE.Completed) {
    progressingTransition(s, 'True', PROGRESSING_REASON.Finalising, 'Rollout has been completed and some closing work is being done', c.nowIso);
    return;
  }
  if (sub) {
    // util.CheckNextBatchIndexWithCorrect: a nextStepIndex out of range is recomputed
    const steps = stepsCountOf(c.rollout);
    if (sub.nextStepIndex <= 0 || sub.nextStepIndex > steps) sub.nextStepIndex = nextBatchIndex(steps, sub.currentStepIndex);
  }
  manager.run(c);
}

/** rollout_status.go reconcileRolloutDisabling. */
function reconcileDisabling(c: RolloutContext): void {
  const manager = RELEASE_MANAGERS[c.rollout.strategy];
  c.finalizeReason = 'Disabled';
  if (!manager || manager.finalise(c)) {
    c.newStatus.phase = ROLLOUT_PHASE.Disabled;
    c.newStatus.message = 'Rollout is disabled';
  } else recheckAfterGrace(c);
}

/** rollout_status.go reconcileRolloutTerminating. */
function reconcileTerminating(c: RolloutContext): void {
  const cond = getCondition(c.oldStatus, 'Terminating');
  if (cond?.reason === 'Completed') return;
  const manager = RELEASE_MANAGERS[c.rollout.strategy];
  c.finalizeReason = 'Delete';
  if (!manager || manager.finalise(c)) {
    const cur = getCondition(c.newStatus, 'Terminating') ?? newCondition('Terminating', 'False', 'Completed', '', c.nowIso);
    setCondition(c.newStatus, { ...cur, reason: 'Completed', status: 'False' });
  } else recheckAfterGrace(c);
}

export type { SubStatusObj, RolloutStatusObj };
