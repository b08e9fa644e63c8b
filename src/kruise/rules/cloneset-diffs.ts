// The CloneSet controller's central arithmetic, as Kruise's calculateDiffsWithExpectation
// (pkg/controller/cloneset/sync/cloneset_sync_utils.go) has it: from the pods and the spec numbers,
// how many pods to create (and how many of them at the current revision), to delete, to update,
// and how many ready pods deleting and updating may take down.
// Inputs are already scaled (partition, maxSurge, maxUnavailable as the controller reads them).

/** A pod as the arithmetic sees it. */
export interface DiffPod {
  /** At the update revision. */
  updated: boolean;
  /** Lifecycle state PreparingDelete. */
  preparingDelete: boolean;
  /** Named in scaleStrategy.podsToDelete or labelled apps.kruise.io/specified-delete. */
  specifiedDelete: boolean;
  /** Kruise's IsPodAvailable: ready (minReadySeconds) and lifecycle state empty or Normal. */
  available: boolean;
}

export interface DiffInput {
  replicas: number;
  /** Pods kept at the current revision (partition after scaling). */
  partition: number;
  /** maxSurge after scaling (rounding up); the function zeroes it while paused. */
  maxSurge: number;
  /** maxUnavailable after scaling (rounding up when maxSurge is 0). */
  maxUnavailable: number;
  /** scaleStrategy.maxUnavailable after scaling; undefined is unlimited. */
  scaleMaxUnavailable?: number;
  paused: boolean;
  /** The exclude-preparing-delete label / scaleStrategy.excludePreparingDelete. */
  excludePreparingDelete: boolean;
  /** currentRevision == updateRevision. */
  revisionConsistent: boolean;
  /** The CloneSetPartitionRollback feature gate (off by default). */
  partitionRollback?: boolean;
  pods: readonly DiffPod[];
}

/** Kruise's expectationDiffs; absent fields are 0 (so a table row lists only what it expects). */
export interface ExpectationDiffs {
  scaleUpNum?: number;
  scaleUpNumOldRevision?: number;
  scaleDownNum?: number;
  scaleDownNumOldRevision?: number;
  scaleUpLimit?: number;
  deleteReadyLimit?: number;
  useSurge?: number;
  useSurgeOldRevision?: number;
  updateNum?: number;
  updateMaxUnavailable?: number;
}

const MAX_INT32 = 2147483647;

/** Kruise's util.IsIntPlusAndMinus: one positive and the other negative. */
function plusAndMinus(a: number, b: number): boolean {
  return (a > 0 && b < 0) || (a < 0 && b > 0);
}

/** The numbers of one reconcile (zero fields left out). */
export function calculateCloneSetDiffs(input: DiffInput): ExpectationDiffs {
  const { replicas, partition, pods } = input;
  const maxSurge = input.paused ? 0 : input.maxSurge;
  const maxUnavailable = input.maxUnavailable;
  const scaleMaxUnavailable = input.scaleMaxUnavailable ?? MAX_INT32;

  let newCount = 0;
  let newActive = 0;
  let oldCount = 0;
  let oldActive = 0;
  let unavailableNew = 0;
  let unavailableOld = 0;
  let toDeleteNew = 0;
  let toDeleteOld = 0;
  let preDeletingNew = 0;
  let preDeletingOld = 0;
  for (const p of pods) {
    if (p.updated) {
      newCount++;
      if (p.preparingDelete) preDeletingNew++;
      else {
        newActive++;
        if (p.specifiedDelete) toDeleteNew++;
        else if (!p.available) unavailableNew++;
      }
    } else {
      oldCount++;
      if (p.preparingDelete) preDeletingOld++;
      else {
        oldActive++;
        if (p.specifiedDelete) toDeleteOld++;
        else if (!p.available) unavailableOld++;
      }
    }
  }

  let updateOldDiff = oldActive - partition;
  let updateNewDiff = newActive - (replicas - partition);
  const totalUnavailable = preDeletingNew + preDeletingOld + unavailableNew + unavailableOld;
  // without rollback, pods only ever move to the update revision
  if (input.revisionConsistent || !input.partitionRollback) {
    updateOldDiff = Math.max(updateOldDiff, 0);
    updateNewDiff = Math.min(updateNewDiff, 0);
  }

  let useSurge = 0;
  let useSurgeOld = 0;
  if (maxSurge > 0) {
    // surge to replace specified deletions that maxUnavailable would not allow to take down
    let scaleSurge = 0;
    let scaleOldSurge = 0;
    const toDelete = toDeleteNew + toDeleteOld;
    if (toDelete > 0) {
      scaleSurge = Math.min(Math.max(totalUnavailable + toDelete - maxUnavailable, 0), toDelete);
      if (scaleSurge > toDeleteNew) scaleOldSurge = scaleSurge - toDeleteNew;
    }
    // surge for updating
    let updateSurge = 0;
    let updateOldSurge = 0;
    if (plusAndMinus(updateOldDiff, updateNewDiff)) {
      if (Math.abs(updateOldDiff) <= Math.abs(updateNewDiff)) {
        updateSurge = Math.abs(updateOldDiff);
        if (updateOldDiff < 0) updateOldSurge = updateSurge;
      } else {
        updateSurge = Math.abs(updateNewDiff);
        if (updateNewDiff > 0) updateOldSurge = updateSurge;
      }
    }
    // scaling and updating never happen in the same reconcile
    if (scaleSurge >= updateSurge) {
      useSurge = Math.min(maxSurge, scaleSurge);
      useSurgeOld = Math.min(useSurge, scaleOldSurge);
    } else {
      useSurge = Math.min(maxSurge, updateSurge);
      useSurgeOld = Math.min(useSurge, updateOldSurge);
    }
  }

  let currentTotal = pods.length;
  let currentTotalOld = oldCount;
  if (input.excludePreparingDelete) {
    currentTotal -= preDeletingOld + preDeletingNew;
    currentTotalOld -= preDeletingOld;
  }
  const expectedTotal = replicas + useSurge;
  const expectedTotalOld = partition + useSurgeOld;

  const res: ExpectationDiffs = {};
  const up = expectedTotal - currentTotal;
  if (up > 0) {
    res.scaleUpNum = up;
    res.scaleUpNumOldRevision = Math.max(expectedTotalOld - currentTotalOld, 0);
    res.scaleUpLimit = Math.min(up, Math.max(scaleMaxUnavailable - totalUnavailable, 0));
  }
  // pods already specified to delete are not counted again
  const down = currentTotal - toDeleteOld - toDeleteNew - expectedTotal;
  if (down > 0) {
    res.scaleDownNum = down;
    res.scaleDownNumOldRevision = Math.max(currentTotalOld - toDeleteOld - expectedTotalOld, 0);
  }
  if (toDeleteNew > 0 || toDeleteOld > 0 || down > 0) {
    res.deleteReadyLimit = Math.max(maxUnavailable + (pods.length - replicas) - totalUnavailable, 0);
  }
  res.useSurge = useSurge;
  res.useSurgeOldRevision = useSurgeOld;
  res.updateNum = Math.abs(updateOldDiff) <= Math.abs(updateNewDiff) ? updateOldDiff : -updateNewDiff;
  if (res.updateNum !== 0) res.updateMaxUnavailable = maxUnavailable + pods.length - replicas;
  for (const k of Object.keys(res) as Array<keyof ExpectationDiffs>) if (res[k] === 0) delete res[k];
  return res;
}
