// The partition-style release steps written as `spec.updateStrategy.rollingUpdate` patches, alike in
// openkruise/rollouts v0.6.2 pkg/controller/batchrelease/control/partitionstyle/{daemonset,statefulset}/control.go:
// the webhook holds every pod at MaxInt16, Initialize writes the control info with the first partition,
// a batch only lowers the partition, Finalize removes it (and what else the kind unpauses).
import type { KubeObject } from '../types';
import { numAt } from '../workloads/access';
import {
  BATCH_RELEASE_CONTROL_ANNOTATION,
  isControlledByBatchRelease,
  markInRolloutProgressing,
  partitionBatchNumbers,
  releaseControlInfo,
  releasePlanOf,
  type BatchContext,
  type MergePatch,
} from './release-workload';

/** math.MaxInt16: the partition that holds every ordinal. */
export const MAX_INT16 = 32767;

/** A merge patch of spec.updateStrategy.rollingUpdate. */
export function rollingUpdatePatch(value: Record<string, unknown>): MergePatch {
  return { spec: { updateStrategy: { rollingUpdate: value } } };
}

/** The webhook's hold: the new template stays behind partition MaxInt16, marked in progressing. */
export function holdAtMaxPartition(next: KubeObject, rolloutName: string): KubeObject {
  const held = structuredClone(next);
  const spec = (held.spec ?? {}) as { updateStrategy?: { rollingUpdate?: Record<string, unknown> } };
  spec.updateStrategy = { ...(spec.updateStrategy ?? {}), rollingUpdate: { ...(spec.updateStrategy?.rollingUpdate ?? {}), partition: MAX_INT16 } };
  held.spec = spec as Record<string, unknown>;
  return markInRolloutProgressing(held, rolloutName);
}

/** Initialize: the control info and the kind's first rollingUpdate; nothing once the BatchRelease controls it. */
export function initializePartition(workload: KubeObject, br: KubeObject, rollingUpdate: Record<string, unknown>): MergePatch | undefined {
  if (isControlledByBatchRelease(workload, br)) return undefined;
  return {
    metadata: { annotations: { [BATCH_RELEASE_CONTROL_ANNOTATION]: releaseControlInfo(br) } },
    ...rollingUpdatePatch(rollingUpdate),
  };
}

/**
 * CalculateBatchContext: the batch's numbers (partitionBatchNumbers) against rollingUpdate.partition; the kind
 * brings its updated counts and may bound the desired partition (default: the stable pods' count).
 */
export function partitionBatchContext(
  workload: KubeObject,
  br: KubeObject,
  replicas: number,
  updateRevision: string,
  counts: { updatedReplicas: number; updatedReadyReplicas: number },
  desiredPartition: (desiredStable: number) => number = (d) => d,
): BatchContext {
  const n = partitionBatchNumbers(br, replicas);
  return {
    currentBatch: n.currentBatch,
    replicas,
    rolloutID: releasePlanOf(br).rolloutID,
    updateRevision,
    plannedUpdatedReplicas: n.planned,
    desiredUpdatedReplicas: n.planned,
    desiredPartition: desiredPartition(n.desiredStable),
    currentPartition: numAt(workload, 'spec', 'updateStrategy', 'rollingUpdate', 'partition') ?? 0,
    updatedReplicas: counts.updatedReplicas,
    updatedReadyReplicas: counts.updatedReadyReplicas,
    failureThreshold: releasePlanOf(br).failureThreshold,
  };
}

/** UpgradeBatch: the partition only goes down (a lower one already lets enough pods update). */
export function lowerPartition(ctx: BatchContext): MergePatch | undefined {
  const desired = typeof ctx.desiredPartition === 'number' ? ctx.desiredPartition : 0;
  const current = typeof ctx.currentPartition === 'number' ? ctx.currentPartition : 0;
  return current <= desired ? undefined : rollingUpdatePatch({ partition: desired });
}

/** Finalize: the control info removed; without a batchPartition left, the kind's rollingUpdate reset too. */
export function finalizePartition(br: KubeObject, rollingUpdate: Record<string, unknown>): MergePatch {
  const patch: MergePatch = { metadata: { annotations: { [BATCH_RELEASE_CONTROL_ANNOTATION]: null } } };
  if (releasePlanOf(br).batchPartition === undefined) Object.assign(patch, rollingUpdatePatch(rollingUpdate));
  return patch;
}
