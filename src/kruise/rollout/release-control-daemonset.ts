// Advanced DaemonSet's batch release control, partition style (openkruise/rollouts v0.6.2
// pkg/controller/batchrelease/control/partitionstyle/daemonset/control.go): Initialize sets
// rollingUpdate.partition to the desired number of scheduled pods (paused false), a batch lowers it,
// Finalize removes it. Workload view: controller_finder.go getKruiseDaemonSet (replicas =
// desiredNumberScheduled, revision = daemonSetHash, never "in rollback"); webhook: handleDaemonSet.
import type { KubeObject } from '../types';
import { numAt, strAt } from '../workloads/access';
import { MAX_INT16 } from './release-control-statefulset';
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
  revisionSuffix,
  statusConsistent,
  type MergePatch,
  type ReleaseControl,
  type RolloutWorkload,
} from './release-workload';

const rolling = (value: Record<string, unknown>): MergePatch => ({ spec: { updateStrategy: { rollingUpdate: value } } });

/** status.daemonSetHash (v1alpha1) or status.updateRevision (v1beta1 storage). */
function daemonHash(obj: KubeObject): string {
  return strAt(obj, 'status', 'daemonSetHash') ?? strAt(obj, 'status', 'updateRevision') ?? '';
}

function readDaemonSet(obj: KubeObject): RolloutWorkload {
  const { labels, annotations } = metaMaps(obj);
  const hash = revisionSuffix(daemonHash(obj));
  return {
    apiVersion: obj.apiVersion ?? '',
    kind: 'DaemonSet',
    namespace: obj.metadata.namespace ?? '',
    name: obj.metadata.name ?? '',
    uid: obj.metadata.uid,
    generation: obj.metadata.generation ?? 0,
    labels,
    annotations,
    replicas: numAt(obj, 'status', 'desiredNumberScheduled') ?? 0,
    statusConsistent: statusConsistent(obj),
    stableRevision: '',
    canaryRevision: hash,
    podTemplateHash: hash,
    updateRevisionName: daemonHash(obj),
    stableRevisionName: '',
    inRolloutProgressing: IN_ROLLOUT_PROGRESSING_ANNOTATION in annotations,
    inRollback: false,
    updatedReplicas: numAt(obj, 'status', 'updatedNumberScheduled') ?? 0,
    updatedReadyReplicas: 0,
  };
}

export const advancedDaemonSetReleaseControl: ReleaseControl = {
  group: 'apps.kruise.io',
  kind: 'DaemonSet',
  style: 'Partition',
  readWorkload: readDaemonSet,
  countsUpdatedReadyPods: true,
  holdOnRevisionChange(next, old, { rolloutName }) {
    if (!isEffectiveRevisionChange(next, old)) return undefined;
    const held = structuredClone(next);
    const spec = (held.spec ?? {}) as { updateStrategy?: { rollingUpdate?: Record<string, unknown> } };
    spec.updateStrategy = { ...(spec.updateStrategy ?? {}), rollingUpdate: { ...(spec.updateStrategy?.rollingUpdate ?? {}), partition: MAX_INT16 } };
    held.spec = spec as Record<string, unknown>;
    held.metadata.annotations = { ...(held.metadata.annotations ?? {}), [IN_ROLLOUT_PROGRESSING_ANNOTATION]: JSON.stringify({ rolloutName }) };
    return held;
  },
  initialize(workload, br) {
    if (isControlledByBatchRelease(workload, br)) return undefined;
    return {
      metadata: { annotations: { [BATCH_RELEASE_CONTROL_ANNOTATION]: releaseControlInfo(br) } },
      ...rolling({ paused: false, partition: numAt(workload, 'status', 'desiredNumberScheduled') ?? 0 }),
    };
  },
  batchContext(workload, br, pods) {
    const replicas = numAt(workload, 'status', 'desiredNumberScheduled') ?? 0;
    const n = partitionBatchNumbers(br, replicas);
    const update = strAt(br, 'status', 'updateRevision') || daemonHash(workload);
    return {
      currentBatch: n.currentBatch,
      replicas,
      rolloutID: releasePlanOf(br).rolloutID,
      updateRevision: update,
      plannedUpdatedReplicas: n.planned,
      desiredUpdatedReplicas: n.planned,
      desiredPartition: Math.max(0, n.desiredStable),
      currentPartition: numAt(workload, 'spec', 'updateStrategy', 'rollingUpdate', 'partition') ?? 0,
      updatedReplicas: numAt(workload, 'status', 'updatedNumberScheduled') ?? 0,
      // the Advanced DaemonSet has no updatedReadyReplicas: its ready pods of the update revision
      updatedReadyReplicas: countUpdatedReadyPods(pods, update),
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
    if (releasePlanOf(br).batchPartition === undefined) Object.assign(patch, rolling({ partition: null, paused: false }));
    return patch;
  },
};
