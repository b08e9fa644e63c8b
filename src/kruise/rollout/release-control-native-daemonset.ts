// The native (apps/v1) DaemonSet's batch release control, partition style, Kruise Rollout master only
// (openkruise/rollouts master pkg/controller/batchrelease/control/partitionstyle/nativedaemonset/control.go;
// earlier releases find no such workload). A native DaemonSet has no partition: the workload webhook
// (workload_update_handler.go handleNativeDaemonSet) switches it to OnDelete and keeps the original
// update strategy in an annotation; each batch writes its partition in another annotation, and Kruise
// Rollout's own native-daemonset-controller deletes old pods for kube's DaemonSet controller to recreate
// (native-daemonset-pods.ts); Finalize restores the strategy. Workload view: controller_finder.go
// getNativeDaemonSet (revisions from the ControllerRevisions, only while the release holds the
// DaemonSet) and util.ParseWorkload (revisions from the annotation getNativeDaemonSet writes).
import type { KubeObject } from '../types';
import { isObj, numAt, strAt } from '../workloads/access';
import {
  DAEMONSET_ADVANCED_CONTROL_ANNOTATION,
  DAEMONSET_ORIGINAL_UPDATE_STRATEGY_ANNOTATION,
  DAEMONSET_REVISION_ANNOTATION,
  daemonSetAdvancedControl,
  daemonSetAdvancedControlValue,
  daemonSetRevisions,
  daemonSetRevisionValue,
} from './native-daemonset-annotations';
import {
  BATCH_RELEASE_CONTROL_ANNOTATION,
  IN_ROLLOUT_PROGRESSING_ANNOTATION,
  calculateBatchReplicas,
  countUpdatedReadyPods,
  isControlledByBatchRelease,
  isEffectiveRevisionChange,
  markInRolloutProgressing,
  releaseControlInfo,
  releasePlanOf,
  statusConsistent,
  workloadIdentity,
  type BatchContext,
  type MergePatch,
  type ReleaseControl,
  type RolloutWorkload,
  type WorkloadRelated,
} from './release-workload';

/** apps.ControllerRevisionHashLabelKey: the label kube's DaemonSet controller puts on its revisions and pods. */
const REVISION_HASH_LABEL = 'controller-revision-hash';

/** getControllerRevisionsForDaemonSet: the DaemonSet's ControllerRevisions (controller owner uid), newest first. */
export function daemonSetRevisionsNewestFirst(ds: KubeObject, revisions: readonly KubeObject[]): KubeObject[] {
  const owned = revisions.filter((r) => (r.metadata.ownerReferences ?? []).some((o) => o.controller && o.uid === ds.metadata.uid));
  const number = (r: KubeObject) => (typeof r.revision === 'number' ? r.revision : 0);
  return owned.sort((a, b) => number(b) - number(a));
}

function baseView(obj: KubeObject): RolloutWorkload {
  const id = workloadIdentity(obj, 'DaemonSet', 'apps/v1');
  return {
    ...id,
    replicas: numAt(obj, 'status', 'desiredNumberScheduled') ?? 0,
    statusConsistent: statusConsistent(obj),
    stableRevision: '',
    canaryRevision: '',
    podTemplateHash: '',
    updateRevisionName: '',
    stableRevisionName: '',
    inRolloutProgressing: IN_ROLLOUT_PROGRESSING_ANNOTATION in id.annotations,
    inRollback: false,
    updatedReplicas: numAt(obj, 'status', 'updatedNumberScheduled') ?? 0,
    // the DaemonSet's status has no updatedReadyReplicas: BuildController counts the pods
    updatedReadyReplicas: 0,
  };
}

/**
 * getNativeDaemonSet: revisions only while the release holds the DaemonSet (in-progressing mark): the
 * canary is the newest ControllerRevision, the stable the one before (or the same when there is one,
 * which reads as a rollback).
 */
function readNativeDaemonSet(obj: KubeObject, related?: WorkloadRelated): RolloutWorkload {
  const view = baseView(obj);
  if (!view.inRolloutProgressing) return view;
  const revisions = daemonSetRevisionsNewestFirst(obj, related?.controllerRevisions ?? []);
  const hash = (r: KubeObject | undefined) => r?.metadata.labels?.[REVISION_HASH_LABEL] ?? '';
  if (revisions.length > 0) {
    view.canaryRevision = hash(revisions[0]);
    view.podTemplateHash = view.canaryRevision;
    view.stableRevision = revisions.length > 1 ? hash(revisions[1]) : view.canaryRevision;
  }
  view.inRollback = view.stableRevision !== '' && view.stableRevision === view.canaryRevision;
  view.updateRevisionName = view.canaryRevision;
  view.stableRevisionName = view.stableRevision;
  return view;
}

/** util.ParseWorkload of a native DaemonSet: update and stable revisions from the revision annotation. */
function parseNativeDaemonSet(obj: KubeObject): RolloutWorkload {
  const view = baseView(obj);
  const { canary, stable } = daemonSetRevisions(obj);
  return { ...view, canaryRevision: canary, podTemplateHash: canary, stableRevision: stable, updateRevisionName: canary, stableRevisionName: stable };
}

/** patchDaemonSetRevisionAnnotations: the revisions read, when one of them is new to the annotation. */
function revisionAnnotationPatch(obj: KubeObject, view: RolloutWorkload): MergePatch | undefined {
  if (!view.inRolloutProgressing) return undefined;
  const existing = daemonSetRevisions(obj);
  const changed = (view.canaryRevision !== '' && existing.canary !== view.canaryRevision) || (view.stableRevision !== '' && existing.stable !== view.stableRevision);
  if (!changed) return undefined;
  return { metadata: { annotations: { [DAEMONSET_REVISION_ANNOTATION]: daemonSetRevisionValue(view.canaryRevision, view.stableRevision) } } };
}

/** handleNativeDaemonSet: OnDelete, the original strategy kept, the in-progressing mark. */
function holdNativeDaemonSet(next: KubeObject, old: KubeObject, rolloutName: string): KubeObject | undefined {
  if (!isEffectiveRevisionChange(next, old)) return undefined;
  const held = structuredClone(next);
  // the CD-tools case: an update without a uid keeps the old object's
  if (!held.metadata.uid && old.metadata.uid) held.metadata.uid = old.metadata.uid;
  const spec = (isObj(held.spec) ? held.spec : {}) as { updateStrategy?: Record<string, unknown> };
  const strategy = isObj(spec.updateStrategy) ? spec.updateStrategy : {};
  held.metadata.annotations = { ...(held.metadata.annotations ?? {}), [DAEMONSET_ORIGINAL_UPDATE_STRATEGY_ANNOTATION]: typeof strategy.type === 'string' ? strategy.type : '' };
  spec.updateStrategy = { ...strategy, type: 'OnDelete' };
  held.spec = spec as Record<string, unknown>;
  return markInRolloutProgressing(held, rolloutName);
}

/** CalculateBatchContext: the stable pods' count as the partition; updated ready pods counted from the pods. */
function nativeDaemonSetBatchContext(workload: KubeObject, br: KubeObject, pods: readonly KubeObject[]): BatchContext {
  const plan = releasePlanOf(br);
  const replicas = numAt(workload, 'status', 'desiredNumberScheduled') ?? 0;
  const currentBatch = numAt(br, 'status', 'canaryStatus', 'currentBatch') ?? 0;
  const noNeedUpdate = numAt(br, 'status', 'canaryStatus', 'noNeedUpdateReplicas');
  const batch = plan.batches[currentBatch] ?? 0;
  const planned = calculateBatchReplicas(batch, replicas);
  let desiredUpdate = planned;
  let desiredStable = replicas - desiredUpdate;
  // the pods marked no-need-update before the release (a rollback in batches) are left out
  if (noNeedUpdate !== undefined && noNeedUpdate > 0) {
    desiredStable = replicas - noNeedUpdate - calculateBatchReplicas(batch, replicas - noNeedUpdate);
    desiredUpdate = replicas - desiredStable;
  }
  const updateRevision = strAt(br, 'status', 'updateRevision') ?? '';
  return {
    currentBatch,
    replicas,
    rolloutID: plan.rolloutID,
    updateRevision,
    plannedUpdatedReplicas: planned,
    desiredUpdatedReplicas: desiredUpdate,
    desiredPartition: Math.max(0, desiredStable),
    currentPartition: 0,
    updatedReplicas: numAt(workload, 'status', 'updatedNumberScheduled') ?? 0,
    updatedReadyReplicas: countUpdatedReadyPods(pods, updateRevision),
    failureThreshold: plan.failureThreshold,
  };
}

export const nativeDaemonSetReleaseControl: ReleaseControl = {
  group: 'apps',
  kind: 'DaemonSet',
  style: 'Partition',
  releases: ['master'],
  readWorkload: readNativeDaemonSet,
  annotateWorkloadView: revisionAnnotationPatch,
  parseWorkload: parseNativeDaemonSet,
  countsUpdatedReadyPods: true,
  holdOnRevisionChange: (next, old, { rolloutName }) => holdNativeDaemonSet(next, old, rolloutName),
  initialize(workload, br) {
    if (isControlledByBatchRelease(workload, br)) return undefined;
    return { metadata: { annotations: { [BATCH_RELEASE_CONTROL_ANNOTATION]: releaseControlInfo(br) } }, spec: { updateStrategy: { type: 'OnDelete' } } };
  },
  batchContext: (workload, br, pods) => nativeDaemonSetBatchContext(workload, br, pods),
  upgradeBatch(workload, ctx) {
    const desired = String(ctx.desiredPartition);
    if (daemonSetAdvancedControl(workload).partition === desired) return undefined;
    return { metadata: { annotations: { [DAEMONSET_ADVANCED_CONTROL_ANNOTATION]: daemonSetAdvancedControlValue(desired, ctx.updateRevision) } } };
  },
  finalize(workload, br) {
    return nativeDaemonSetRestore(workload, releasePlanOf(br).batchPartition === undefined);
  },
};

/**
 * Finalize (partitionstyle/nativedaemonset/control.go): the release's annotations go; with no batchPartition
 * left (`withStrategy`) the DaemonSet gets its own update strategy type back from the original-strategy
 * annotation (RollingUpdate when unknown). Also what `why --fix` writes for such a leftover.
 */
export function nativeDaemonSetRestore(workload: KubeObject, withStrategy: boolean): MergePatch {
  const annotations = Object.fromEntries(
    [BATCH_RELEASE_CONTROL_ANNOTATION, DAEMONSET_REVISION_ANNOTATION, DAEMONSET_ADVANCED_CONTROL_ANNOTATION, DAEMONSET_ORIGINAL_UPDATE_STRATEGY_ANNOTATION].map((k) => [k, null]),
  );
  const patch: MergePatch = { metadata: { annotations } };
  if (withStrategy) {
    const original = workload.metadata.annotations?.[DAEMONSET_ORIGINAL_UPDATE_STRATEGY_ANNOTATION];
    patch.spec = { updateStrategy: { type: original || 'RollingUpdate' } };
  }
  return patch;
}
