// One reconcile of Kruise Rollout's BatchRelease controller, pure (openkruise/rollouts v0.6.2
// pkg/controller/batchrelease: batchrelease_executor.go Do/executeBatchReleasePlan/progressBatches/
// moveToNextBatch, batchrelease_status.go syncStatusBeforeExecuting/refreshStatus,
// control/partitionstyle/control_plane.go Initialize/UpgradeBatch/EnsureBatchPodsReadyAndLabeled/Finalize,
// context/context.go IsBatchReady, labelpatch/patcher.go PatchPodBatchLabel).
// The per-kind pieces come from the workload's ReleaseControl (release-control.ts).
import type { KubeObject } from '../types';
import { at, numAt, strAt } from '../workloads/access';
import { ROLLOUT_BATCH_ID_LABEL, ROLLOUT_ID_LABEL } from './labels';
import { releaseControlFor } from './release-control';
import { calculateBatchReplicas, countUpdatedReadyPods, isConsistentWithRevision, releasePlanOf, type BatchContext, type KruiseRolloutRelease, type MergePatch, type SideWrite, type WorkloadRelated } from './release-workload';
import { rolloutScaledValue } from './step-math';

/** DefaultDuration of the executor (requeue while a batch progresses). */
export const BATCH_RELEASE_REQUEUE_MS = 2000;

export interface BatchReleaseStatusObj {
  phase?: string;
  message?: string;
  observedGeneration?: number;
  observedRolloutID?: string;
  observedWorkloadReplicas?: number;
  observedReleasePlanHash?: string;
  stableRevision?: string;
  updateRevision?: string;
  conditions?: Array<Record<string, string>>;
  canaryStatus: {
    currentBatch: number;
    batchState?: string;
    batchReadyTime?: string;
    updatedReplicas?: number;
    updatedReadyReplicas?: number;
    noNeedUpdateReplicas?: number;
  };
}

export interface PodLabelPatch {
  name: string;
  labels: Record<string, string>;
}

export interface BatchReleaseReconcileInput {
  batchRelease: KubeObject;
  workload?: KubeObject;
  /** What the workload's kind reads beside it (a Deployment's ReplicaSets). */
  related?: WorkloadRelated;
  /** The workload's active pods (for batch labels). */
  pods: KubeObject[];
  now: Date;
  /** The Kruise Rollout release imitated (default v0.6): which kinds have a control. */
  release?: KruiseRolloutRelease;
}

export interface BatchReleaseReconcileResult {
  status?: BatchReleaseStatusObj;
  workloadPatch?: MergePatch;
  /** Writes to other objects (canary style: the canary Deployment), after the workload's patch. */
  sideWrites?: SideWrite[];
  podPatches: PodLabelPatch[];
  recheckMs?: number;
}

/** util.HashReleasePlanBatches stand-in: a stable digest of the plan's batches and rollout ID (FNV-1a). */
export function batchReleasePlanHash(br: KubeObject): string {
  const plan = at(br, 'spec', 'releasePlan');
  const text = JSON.stringify({ batches: at(plan, 'batches') ?? [], rolloutID: strAt(plan, 'rolloutID') ?? '', failureThreshold: at(plan, 'failureThreshold') ?? null });
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

function readStatus(br: KubeObject): BatchReleaseStatusObj {
  const s = (br.status ?? {}) as Partial<BatchReleaseStatusObj>;
  const out = structuredClone({ ...s, canaryStatus: { currentBatch: 0, ...(s.canaryStatus ?? {}) } }) as BatchReleaseStatusObj;
  // getInitializedStatus: an empty phase resets the status
  if (!out.phase) {
    out.phase = 'Preparing';
    out.stableRevision = '';
    out.updateRevision = '';
    out.observedReleasePlanHash = '';
    out.observedWorkloadReplicas = -1;
    out.canaryStatus = { currentBatch: 0 };
  }
  return out;
}

/** context.go IsBatchReady (+ batchLabelSatisfied): undefined when ready, else why not. */
export function batchNotReadyReason(ctx: BatchContext, pods: KubeObject[]): string | undefined {
  if (ctx.updatedReplicas < ctx.desiredUpdatedReplicas) {
    return `current batch not ready: updated replicas not satisfied, UpdatedReplicas ${ctx.updatedReplicas} < DesiredUpdatedReplicas ${ctx.desiredUpdatedReplicas}`;
  }
  const tolerated = ctx.failureThreshold === undefined ? 0 : (rolloutScaledValue(ctx.failureThreshold, ctx.updatedReplicas) ?? 0);
  if (tolerated + ctx.updatedReadyReplicas < ctx.desiredUpdatedReplicas) {
    return `current batch not ready: updated ready replicas not satisfied, allowedUnavailable + UpdatedReadyReplicas ${tolerated + ctx.updatedReadyReplicas} < DesiredUpdatedReplicas ${ctx.desiredUpdatedReplicas}`;
  }
  if (ctx.desiredUpdatedReplicas > 0 && ctx.updatedReadyReplicas === 0) {
    return `current batch not ready: no updated ready replicas, DesiredUpdatedReplicas ${ctx.desiredUpdatedReplicas} > 0 and UpdatedReadyReplicas 0`;
  }
  if (ctx.rolloutID !== '' && pods.length > 0) {
    const labelled = pods.filter((p) => !p.metadata.deletionTimestamp && p.metadata.labels?.[ROLLOUT_ID_LABEL] === ctx.rolloutID).length;
    if (labelled < ctx.plannedUpdatedReplicas) return `current batch not ready: pods with batch label not satisfied, RolloutID ${ctx.rolloutID}, PlannedUpdatedReplicas ${ctx.plannedUpdatedReplicas}`;
  }
  return undefined;
}

/**
 * labelpatch/patcher.go PatchPodBatchLabel: updated pods without this rollout's ID get the rollout-id
 * and the batch-id of the batch whose planned increment they fill (latest batch first).
 */
export function podBatchLabels(batches: ReadonlyArray<number | string>, ctx: BatchContext, pods: KubeObject[]): PodLabelPatch[] {
  if (ctx.rolloutID === '' || pods.length === 0) return [];
  // calculatePlannedStepIncrements
  const planned: number[] = batches.map(() => 0);
  for (let i = 0; i <= ctx.currentBatch && i < batches.length; i++) {
    const here = calculateBatchReplicas(batches[i]!, ctx.replicas);
    const before = i === 0 ? 0 : calculateBatchReplicas(batches[i - 1]!, ctx.replicas);
    planned[i] = Math.max(0, here - before);
  }
  const unpatched: KubeObject[] = [];
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    const labels = pod.metadata.labels ?? {};
    // the active old revision's pods are not labelled
    if (!isConsistentWithRevision(labels, ctx.updateRevision)) continue;
    if (labels[ROLLOUT_ID_LABEL] !== ctx.rolloutID) {
      unpatched.push(pod);
      continue;
    }
    const id = Number(labels[ROLLOUT_BATCH_ID_LABEL]);
    if (Number.isInteger(id) && id > 0 && id <= planned.length) planned[id - 1]!--;
    else unpatched.push(pod);
  }
  const out: PodLabelPatch[] = [];
  for (let i = planned.length - 1; i >= 0; i--) {
    for (; planned[i]! > 0 && unpatched.length > 0; planned[i]!--) {
      const pod = unpatched.pop()!;
      out.push({ name: pod.metadata.name ?? '', labels: { [ROLLOUT_ID_LABEL]: ctx.rolloutID, [ROLLOUT_BATCH_ID_LABEL]: String(i + 1) } });
    }
  }
  return out;
}

/** One reconcile of a BatchRelease. */
export function reconcileBatchRelease(input: BatchReleaseReconcileInput): BatchReleaseReconcileResult {
  const br = input.batchRelease;
  const old = JSON.stringify(br.status ?? {});
  const status = readStatus(br);
  const plan = releasePlanOf(br);
  const ref = at(br, 'spec', 'workloadRef');
  const control = releaseControlFor(strAt(ref, 'apiVersion') ?? '', strAt(ref, 'kind') ?? '', plan.rollingStyle, input.release);
  const res: BatchReleaseReconcileResult = { podPatches: [] };
  const finish = (): BatchReleaseReconcileResult => {
    status.observedGeneration = br.metadata.generation ?? 1;
    if (JSON.stringify(status) !== old) res.status = status;
    return res;
  };
  if (!control) {
    status.message = `the workload type '${strAt(ref, 'apiVersion') ?? ''}, Kind=${strAt(ref, 'kind') ?? ''}' is not supported`;
    return finish();
  }
  const w = input.workload;
  const info = w ? (control.parseWorkload ?? control.readWorkload)(w, input.related) : undefined;
  // BuildController counts the Ready pods of the update revision for kinds whose status has no such count
  if (info && control.countsUpdatedReadyPods === true && info.updatedReadyReplicas <= 0) info.updatedReadyReplicas = countUpdatedReadyPods(input.pods, info.updateRevisionName);
  const planHash = batchReleasePlanHash(br);

  // ── syncStatusBeforeExecuting ──
  const before = JSON.stringify(status);
  let stop = false;
  if (status.phase === 'Completed') stop = true;
  else if (br.metadata.deletionTimestamp || status.phase === 'Finalizing' || plan.batchPartition === undefined) status.phase = 'Finalizing';
  else if (status.observedReleasePlanHash !== planHash && status.phase === 'Progressing') {
    // signalRecalculate
    const currentBatch = plan.batchPartition !== undefined && plan.rolloutID === status.observedRolloutID ? Math.min(plan.batchPartition, plan.batches.length - 1) : 0;
    status.canaryStatus = { ...status.canaryStatus, currentBatch, batchState: 'Upgrading' };
    delete status.canaryStatus.batchReadyTime;
    status.observedReleasePlanHash = planHash;
  } else if (!info && status.phase !== 'Initial' && status.phase !== 'Preparing') status.phase = 'Finalizing';
  else if (info && !info.statusConsistent) stop = true;
  else if (info && status.phase === 'Progressing' && info.replicas !== status.observedWorkloadReplicas && info.updatedReadyReplicas !== info.replicas) {
    // workload scaling: restart the batch
    status.canaryStatus = { ...status.canaryStatus, batchState: 'Upgrading' };
    delete status.canaryStatus.batchReadyTime;
    status.observedWorkloadReplicas = info.replicas;
  } else if (info && status.phase === 'Progressing' && status.updateRevision && info.updateRevisionName !== status.updateRevision && info.updatedReadyReplicas !== info.replicas) {
    // workload revision changed: record and stop (the Rollout restarts the release)
    status.updateRevision = info.updateRevisionName;
    stop = true;
  }
  // refreshStatus
  if (info) {
    status.canaryStatus.updatedReplicas = info.updatedReplicas;
    // batchrelease_status.go refreshStatus copies the workload's count (counted from the pods above for the
    // native StatefulSet and the DaemonSets, never a CloneSet's or Deployment's)
    status.canaryStatus.updatedReadyReplicas = info.updatedReadyReplicas;
  }
  if (!status.observedReleasePlanHash) status.observedReleasePlanHash = planHash;
  status.observedRolloutID = plan.rolloutID;
  if (stop || JSON.stringify(status) !== before) {
    res.recheckMs = BATCH_RELEASE_REQUEUE_MS;
    return finish();
  }

  // ── executeBatchReleasePlan ──
  switch (status.phase) {
    case 'Preparing':
    default: {
      status.phase = 'Preparing';
      if (!w || !info) return finish();
      res.workloadPatch = control.initialize(w, br);
      res.sideWrites = control.sideWrites?.('initialize', w, br, input.related);
      status.stableRevision = info.stableRevisionName;
      status.updateRevision = info.updateRevisionName;
      status.observedWorkloadReplicas = info.replicas;
      status.phase = 'Progressing';
      res.recheckMs = BATCH_RELEASE_REQUEUE_MS;
      return finish();
    }
    case 'Progressing': {
      if (!w || !info) return finish();
      progressBatches(br, status, control, w, input, res, plan.batches, plan.batchPartition, input.now);
      return finish();
    }
    case 'Finalizing': {
      if (w) {
        const patch = control.finalize(w, br);
        if (Object.keys(patch).length > 0) res.workloadPatch = patch;
        res.sideWrites = control.sideWrites?.('finalize', w, br, input.related);
      }
      // blue-green Finalize answers "retry" until the workload is done rolling; a restore just written is
      // read back on the next pass
      if (w && control.finalizePending && (res.workloadPatch !== undefined || control.finalizePending(w, br, input.related))) {
        res.recheckMs = BATCH_RELEASE_REQUEUE_MS;
        return finish();
      }
      status.phase = 'Completed';
      return finish();
    }
    case 'Completed':
      return finish();
  }
}

function progressBatches(
  br: KubeObject,
  status: BatchReleaseStatusObj,
  control: NonNullable<ReturnType<typeof releaseControlFor>>,
  w: KubeObject,
  input: BatchReleaseReconcileInput,
  res: BatchReleaseReconcileResult,
  batches: ReadonlyArray<number | string>,
  batchPartition: number | undefined,
  now: Date,
): void {
  // the control reads the batch from the status being written
  const view: KubeObject = { ...br, status };
  const ctx = () => control.batchContext(w, view, input.pods, input.related);
  const cs = status.canaryStatus;
  if (cs.batchState !== 'Verifying' && cs.batchState !== 'Ready') cs.batchState = 'Upgrading';
  switch (cs.batchState) {
    case 'Upgrading': {
      const c = ctx();
      if ((numAt(w, 'spec', 'replicas') ?? 1) !== 0) {
        res.workloadPatch = control.upgradeBatch(w, c);
        res.sideWrites = control.sideWrites?.('upgrade', w, view, input.related, c);
        res.podPatches = podBatchLabels(batches, c, input.pods);
      }
      status.conditions = (status.conditions ?? []).filter((x) => x.type !== 'Progressing');
      if (status.conditions.length === 0) delete status.conditions;
      status.message = '';
      cs.batchState = 'Verifying';
      res.recheckMs = BATCH_RELEASE_REQUEUE_MS;
      return;
    }
    case 'Verifying': {
      const why = (numAt(w, 'spec', 'replicas') ?? 1) === 0 ? undefined : batchNotReadyReason(ctx(), input.pods);
      if (why) {
        cs.batchState = 'Upgrading';
        res.recheckMs = BATCH_RELEASE_REQUEUE_MS;
        return;
      }
      cs.batchReadyTime = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
      cs.batchState = 'Ready';
      res.recheckMs = BATCH_RELEASE_REQUEUE_MS;
      return;
    }
    case 'Ready': {
      const why = (numAt(w, 'spec', 'replicas') ?? 1) === 0 ? undefined : batchNotReadyReason(ctx(), input.pods);
      if (why) {
        delete cs.batchReadyTime;
        cs.batchState = 'Upgrading';
        res.recheckMs = BATCH_RELEASE_REQUEUE_MS;
        return;
      }
      // isPartitioned: the Rollout has not released the next batch yet
      if (batchPartition !== undefined && batchPartition <= cs.currentBatch) return;
      // moveToNextBatch
      if (batchPartition === undefined || batchPartition > cs.currentBatch) cs.currentBatch++;
      cs.batchState = 'Upgrading';
      delete cs.batchReadyTime;
      res.recheckMs = BATCH_RELEASE_REQUEUE_MS;
      void batches;
      return;
    }
  }
}
