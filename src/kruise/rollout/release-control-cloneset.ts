// CloneSet's batch release control, partition style (openkruise/rollouts v0.6.2
// pkg/controller/batchrelease/control/partitionstyle/cloneset/control.go), its Workload view
// (pkg/util/controller_finder.go getKruiseCloneSet) and its workload webhook rule
// (pkg/webhook/workload/mutating/workload_update_handler.go handleCloneSet). Both CloneSet shapes:
// the rolling fields sit where cloneSetRollingPath says (v1alpha1 updateStrategy, v1beta1 rollingUpdate).
import type { KubeObject } from '../types';
import { intOrStringAt, mergePatchAt, numAt, strAt } from '../workloads/access';
import { cloneSetRollingPath } from '../workloads/cloneset-shape';
import { rolloutScaledValue } from './step-math';
import {
  BATCH_RELEASE_CONTROL_ANNOTATION,
  IN_ROLLOUT_PROGRESSING_ANNOTATION,
  calculateBatchReplicas,
  integerAsPercentage,
  isControlledByBatchRelease,
  isEffectiveRevisionChange,
  markInRolloutProgressing,
  releaseControlInfo,
  releasePlanOf,
  revisionSuffix,
  setAt,
  statusConsistent,
  workloadIdentity,
  type BatchContext,
  type MergePatch,
  type ReleaseControl,
  type RolloutWorkload,
} from './release-workload';

function readCloneSet(obj: KubeObject): RolloutWorkload {
  const id = workloadIdentity(obj, 'CloneSet');
  const updateRevision = strAt(obj, 'status', 'updateRevision') ?? '';
  const currentRevision = strAt(obj, 'status', 'currentRevision') ?? '';
  const replicas = numAt(obj, 'status', 'replicas') ?? 0;
  const updated = numAt(obj, 'status', 'updatedReplicas') ?? 0;
  const inProgressing = IN_ROLLOUT_PROGRESSING_ANNOTATION in id.annotations;
  return {
    ...id,
    replicas: numAt(obj, 'spec', 'replicas') ?? 1,
    statusConsistent: statusConsistent(obj),
    stableRevision: revisionSuffix(currentRevision),
    canaryRevision: revisionSuffix(updateRevision),
    podTemplateHash: revisionSuffix(updateRevision),
    updateRevisionName: updateRevision,
    stableRevisionName: currentRevision,
    inRolloutProgressing: inProgressing,
    // getKruiseCloneSet: current == update while not every pod is updated
    inRollback: inProgressing && currentRevision === updateRevision && updated !== replicas,
    updatedReplicas: updated,
    updatedReadyReplicas: numAt(obj, 'status', 'updatedReadyReplicas') ?? 0,
  };
}

function partitionPath(obj: KubeObject): string[] {
  return [...cloneSetRollingPath(obj), 'partition'];
}

function pausedPath(obj: KubeObject): string[] {
  return [...cloneSetRollingPath(obj), 'paused'];
}

/** A merge patch setting several paths of the workload's spec at once. */
function patchOf(entries: Array<[string[], unknown]>): MergePatch {
  const patch: MergePatch = {};
  for (const [path, value] of entries) setAt(patch, path, value);
  return patch;
}

export const cloneSetReleaseControl: ReleaseControl = {
  group: 'apps.kruise.io',
  kind: 'CloneSet',
  style: 'Partition',
  readWorkload: readCloneSet,

  holdOnRevisionChange(next, old, { rolloutName, hasTrafficRoutings }) {
    if ((numAt(next, 'spec', 'replicas') ?? 1) === 0) return undefined;
    if (!isEffectiveRevisionChange(next, old)) return undefined;
    // with traffic routing, only a CloneSet whose pods are all on one revision enters a release
    if (hasTrafficRoutings && (numAt(next, 'status', 'replicas') ?? 0) !== (numAt(next, 'status', 'updatedReplicas') ?? 0)) return undefined;
    const held = structuredClone(next);
    setAt(held as unknown as Record<string, unknown>, partitionPath(held), '100%');
    return markInRolloutProgressing(held, rolloutName);
  },

  initialize(workload, br) {
    if (isControlledByBatchRelease(workload, br)) return undefined;
    return {
      ...mergePatchAt(['metadata', 'annotations'], { [BATCH_RELEASE_CONTROL_ANNOTATION]: releaseControlInfo(br) }),
      ...patchOf([
        [pausedPath(workload), false],
        [partitionPath(workload), '100%'],
      ]),
    };
  },

  batchContext(workload, br, _pods): BatchContext {
    const plan = releasePlanOf(br);
    const replicas = numAt(workload, 'spec', 'replicas') ?? 1;
    const currentBatch = numAt(br, 'status', 'canaryStatus', 'currentBatch') ?? 0;
    const batchPlan = plan.batches[currentBatch] ?? 0;
    const planned = calculateBatchReplicas(batchPlan, replicas);
    const desiredStable = replicas - planned;
    return {
      currentBatch,
      replicas,
      rolloutID: plan.rolloutID,
      updateRevision: strAt(br, 'status', 'updateRevision') ?? strAt(workload, 'status', 'updateRevision') ?? '',
      plannedUpdatedReplicas: planned,
      desiredUpdatedReplicas: planned,
      desiredPartition: typeof batchPlan === 'string' ? integerAsPercentage(desiredStable, replicas, batchPlan) : desiredStable,
      currentPartition: intOrStringAt(workload, ...partitionPath(workload)) ?? 0,
      updatedReplicas: numAt(workload, 'status', 'updatedReplicas') ?? 0,
      updatedReadyReplicas: numAt(workload, 'status', 'updatedReadyReplicas') ?? 0,
      failureThreshold: plan.failureThreshold,
    };
  },

  upgradeBatch(workload, ctx) {
    const desired = rolloutScaledValue(ctx.desiredPartition, ctx.replicas) ?? 0;
    const current = rolloutScaledValue(ctx.currentPartition, ctx.replicas) ?? 0;
    // a partition already at or below the desired one lets enough pods update
    if (current <= desired) return undefined;
    return patchOf([[partitionPath(workload), ctx.desiredPartition]]);
  },

  finalize(workload, br) {
    const patch: MergePatch = mergePatchAt(['metadata', 'annotations'], { [BATCH_RELEASE_CONTROL_ANNOTATION]: null });
    if (releasePlanOf(br).batchPartition === undefined) {
      setAt(patch, partitionPath(workload), null);
      setAt(patch, pausedPath(workload), false);
    }
    return patch;
  },
};
