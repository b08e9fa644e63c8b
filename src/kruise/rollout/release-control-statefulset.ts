// The StatefulSet-like batch release controls, partition style (openkruise/rollouts v0.6.2
// pkg/controller/batchrelease/control/partitionstyle/statefulset/control.go), for Advanced StatefulSet
// (apps.kruise.io, v1alpha1/v1beta1) and the native StatefulSet (apps/v1, which has no `paused`):
// Initialize sets rollingUpdate.partition to MaxInt16, a batch lowers it to the stable pods' count
// (ordinals at or above it update), Finalize removes it. Workload view: controller_finder.go
// getStatefulSetLikeWorkload; webhook: unified_update_handler.go handleStatefulSetLikeWorkload.
import type { KubeObject } from '../types';
import { numAt, strAt } from '../workloads/access';
import {
  IN_ROLLOUT_PROGRESSING_ANNOTATION,
  countUpdatedReadyPods,
  isEffectiveRevisionChange,
  statusConsistent,
  workloadIdentity,
  type ReleaseControl,
  type RolloutWorkload,
} from './release-workload';
import { MAX_INT16, finalizePartition, partitionBatchContext, holdAtMaxPartition, initializePartition, lowerPartition } from './rolling-update-partition';

/** util.IsStatefulSetRollingUpdate. */
function isRollingUpdate(obj: KubeObject): boolean {
  const t = strAt(obj, 'spec', 'updateStrategy', 'type');
  return t === undefined || t === '' || t === 'RollingUpdate';
}

function readStatefulSetLike(kind: string) {
  return (obj: KubeObject): RolloutWorkload => {
    const id = workloadIdentity(obj, kind);
    const update = strAt(obj, 'status', 'updateRevision') ?? '';
    const current = strAt(obj, 'status', 'currentRevision') ?? '';
    const updated = numAt(obj, 'status', 'updatedReplicas') ?? 0;
    const inProgressing = IN_ROLLOUT_PROGRESSING_ANNOTATION in id.annotations;
    return {
      ...id,
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
      return isEffectiveRevisionChange(next, old) ? holdAtMaxPartition(next, rolloutName) : undefined;
    },
    initialize(workload, br) {
      return initializePartition(workload, br, hasPaused ? { partition: MAX_INT16, paused: false } : { partition: MAX_INT16 });
    },
    batchContext(workload, br, pods) {
      const replicas = numAt(workload, 'spec', 'replicas') ?? 1;
      const update = strAt(br, 'status', 'updateRevision') || (strAt(workload, 'status', 'updateRevision') ?? '');
      let updatedReady = numAt(workload, 'status', 'updatedReadyReplicas') ?? 0;
      // the native StatefulSet has no updatedReadyReplicas: count its ready pods of the update revision
      if (updatedReady <= 0) updatedReady = countUpdatedReadyPods(pods, update);
      return partitionBatchContext(workload, br, replicas, update, { updatedReplicas: numAt(workload, 'status', 'updatedReplicas') ?? 0, updatedReadyReplicas: updatedReady });
    },
    upgradeBatch: (_workload, ctx) => lowerPartition(ctx),
    finalize: (_workload, br) => finalizePartition(br, { partition: null }),
  };
}

export const advancedStatefulSetReleaseControl = statefulSetLikeControl('apps.kruise.io', true);
export const statefulSetReleaseControl = statefulSetLikeControl('apps', false);
