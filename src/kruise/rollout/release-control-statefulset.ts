// The StatefulSet-like batch release controls, partition style (openkruise/rollouts v0.6.2
// pkg/controller/batchrelease/control/partitionstyle/statefulset/control.go), for Advanced StatefulSet
// (apps.kruise.io, v1alpha1/v1beta1) and the native StatefulSet (apps/v1, which has no `paused`):
// Initialize sets rollingUpdate.partition to MaxInt16, a batch lowers it to the stable pods' count
// (ordinals at or above it update), Finalize removes it. Workload view: controller_finder.go
// getStatefulSetLikeWorkload; webhook: unified_update_handler.go handleStatefulSetLikeWorkload.
import type { KubeObject } from '../types';
import { numAt, strAt } from '../workloads/access';
import {
  BATCH_RELEASE_CONTROL_ANNOTATION,
  IN_ROLLOUT_PROGRESSING_ANNOTATION,
  countUpdatedReadyPods,
  isControlledByBatchRelease,
  isEffectiveRevisionChange,
  metaMaps,
  partitionBatchNumbers,
  releaseControlInfo,
  releasePlanOf,
  statusConsistent,
  type MergePatch,
  type ReleaseControl,
  type RolloutWorkload,
} from './release-workload';

/** math.MaxInt16: the partition that holds every ordinal. */
export const MAX_INT16 = 32767;

const rolling = (value: Record<string, unknown>): MergePatch => ({ spec: { updateStrategy: { rollingUpdate: value } } });

/** util.IsStatefulSetRollingUpdate. */
function isRollingUpdate(obj: KubeObject): boolean {
  const t = strAt(obj, 'spec', 'updateStrategy', 'type');
  return t === undefined || t === '' || t === 'RollingUpdate';
}

function readStatefulSetLike(kind: string) {
  return (obj: KubeObject): RolloutWorkload => {
    const { labels, annotations } = metaMaps(obj);
    const update = strAt(obj, 'status', 'updateRevision') ?? '';
    const current = strAt(obj, 'status', 'currentRevision') ?? '';
    const updated = numAt(obj, 'status', 'updatedReplicas') ?? 0;
    const inProgressing = IN_ROLLOUT_PROGRESSING_ANNOTATION in annotations;
    return {
      apiVersion: obj.apiVersion ?? '',
      kind,
      namespace: obj.metadata.namespace ?? '',
      name: obj.metadata.name ?? '',
      uid: obj.metadata.uid,
      generation: obj.metadata.generation ?? 0,
      labels,
      annotations,
      replicas: numAt(obj, 'spec', 'replicas') ?? 1,
      statusConsistent: statusConsistent(obj),
      // getStatefulSetLikeWorkload keeps the full revision names
      stableRevision: current,
      canaryRevision: update,
      podTemplateHash: update,
      updateRevisionName: update,
      stableRevisionName: current,
      inRolloutProgressing: inProgressing,
      inRollback: inProgressing && update === current && updated !== (numAt(obj, 'status', 'replicas') ?? 0),
      updatedReplicas: updated,
      updatedReadyReplicas: numAt(obj, 'status', 'updatedReadyReplicas') ?? 0,
    };
  };
}

function statefulSetLikeControl(group: string, hasPaused: boolean): ReleaseControl {
  const read = readStatefulSetLike('StatefulSet');
  return {
    group,
    kind: 'StatefulSet',
    style: 'Partition',
    readWorkload: read,
    countsUpdatedReadyPods: true,
    holdOnRevisionChange(next, old, { rolloutName }) {
      if ((numAt(next, 'spec', 'replicas') ?? 1) === 0 || !isRollingUpdate(next)) return undefined;
      if (!isEffectiveRevisionChange(next, old)) return undefined;
      const held = structuredClone(next);
      const spec = (held.spec ?? {}) as { updateStrategy?: { type?: string; rollingUpdate?: Record<string, unknown> } };
      spec.updateStrategy = { ...(spec.updateStrategy ?? {}), rollingUpdate: { ...(spec.updateStrategy?.rollingUpdate ?? {}), partition: MAX_INT16 } };
      held.spec = spec as Record<string, unknown>;
      held.metadata.annotations = { ...(held.metadata.annotations ?? {}), [IN_ROLLOUT_PROGRESSING_ANNOTATION]: JSON.stringify({ rolloutName }) };
      return held;
    },
    initialize(workload, br) {
      if (isControlledByBatchRelease(workload, br)) return undefined;
      return {
        metadata: { annotations: { [BATCH_RELEASE_CONTROL_ANNOTATION]: releaseControlInfo(br) } },
        ...rolling(hasPaused ? { partition: MAX_INT16, paused: false } : { partition: MAX_INT16 }),
      };
    },
    batchContext(workload, br, pods) {
      const replicas = numAt(workload, 'spec', 'replicas') ?? 1;
      const n = partitionBatchNumbers(br, replicas);
      const update = strAt(br, 'status', 'updateRevision') || (strAt(workload, 'status', 'updateRevision') ?? '');
      let updatedReady = numAt(workload, 'status', 'updatedReadyReplicas') ?? 0;
      // the native StatefulSet has no updatedReadyReplicas: count its ready pods of the update revision
      if (updatedReady <= 0) updatedReady = countUpdatedReadyPods(pods, update);
      return {
        currentBatch: n.currentBatch,
        replicas,
        rolloutID: releasePlanOf(br).rolloutID,
        updateRevision: update,
        plannedUpdatedReplicas: n.planned,
        desiredUpdatedReplicas: n.planned,
        desiredPartition: n.desiredStable,
        currentPartition: numAt(workload, 'spec', 'updateStrategy', 'rollingUpdate', 'partition') ?? 0,
        updatedReplicas: numAt(workload, 'status', 'updatedReplicas') ?? 0,
        updatedReadyReplicas: updatedReady,
        failureThreshold: releasePlanOf(br).failureThreshold,
      };
    },
    upgradeBatch(_workload, ctx) {
      const desired = typeof ctx.desiredPartition === 'number' ? ctx.desiredPartition : 0;
      const current = typeof ctx.currentPartition === 'number' ? ctx.currentPartition : 0;
      return current <= desired ? undefined : rolling({ partition: desired });
    },
    finalize(_workload, br) {
      const patch: MergePatch = { metadata: { annotations: { [BATCH_RELEASE_CONTROL_ANNOTATION]: null } } };
      if (releasePlanOf(br).batchPartition === undefined) Object.assign(patch, rolling({ partition: null }));
      return patch;
    },
  };
}

export const advancedStatefulSetReleaseControl = statefulSetLikeControl('apps.kruise.io', true);
export const statefulSetReleaseControl = statefulSetLikeControl('apps', false);
