// Advanced DaemonSet's batch release control, partition style (openkruise/rollouts v0.6.2
// pkg/controller/batchrelease/control/partitionstyle/daemonset/control.go): Initialize sets
// rollingUpdate.partition to the desired number of scheduled pods (paused false), a batch lowers it,
// Finalize removes it. Workload view: controller_finder.go getKruiseDaemonSet (replicas =
// desiredNumberScheduled, revision = daemonSetHash, never "in rollback"); webhook: handleDaemonSet.
import type { KubeObject } from '../types';
import { numAt, strAt } from '../workloads/access';
import {
  IN_ROLLOUT_PROGRESSING_ANNOTATION,
  countUpdatedReadyPods,
  isEffectiveRevisionChange,
  revisionSuffix,
  statusConsistent,
  workloadIdentity,
  type ReleaseControl,
  type RolloutWorkload,
} from './release-workload';
import { finalizePartition, partitionBatchContext, holdAtMaxPartition, initializePartition, lowerPartition } from './rolling-update-partition';

/** status.daemonSetHash (v1alpha1) or status.updateRevision (v1beta1 storage). */
function daemonHash(obj: KubeObject): string {
  return strAt(obj, 'status', 'daemonSetHash') ?? strAt(obj, 'status', 'updateRevision') ?? '';
}

function readDaemonSet(obj: KubeObject): RolloutWorkload {
  const id = workloadIdentity(obj, 'DaemonSet');
  const hash = revisionSuffix(daemonHash(obj));
  return {
    ...id,
    replicas: numAt(obj, 'status', 'desiredNumberScheduled') ?? 0,
    statusConsistent: statusConsistent(obj),
    stableRevision: '',
    canaryRevision: hash,
    podTemplateHash: hash,
    updateRevisionName: daemonHash(obj),
    stableRevisionName: '',
    inRolloutProgressing: IN_ROLLOUT_PROGRESSING_ANNOTATION in id.annotations,
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
    return isEffectiveRevisionChange(next, old) ? holdAtMaxPartition(next, rolloutName) : undefined;
  },
  initialize(workload, br) {
    return initializePartition(workload, br, { paused: false, partition: numAt(workload, 'status', 'desiredNumberScheduled') ?? 0 });
  },
  batchContext(workload, br, pods) {
    const replicas = numAt(workload, 'status', 'desiredNumberScheduled') ?? 0;
    const update = strAt(br, 'status', 'updateRevision') || daemonHash(workload);
    const counts = {
      updatedReplicas: numAt(workload, 'status', 'updatedNumberScheduled') ?? 0,
      // the Advanced DaemonSet has no updatedReadyReplicas: its ready pods of the update revision
      updatedReadyReplicas: countUpdatedReadyPods(pods, update),
    };
    return partitionBatchContext(workload, br, replicas, update, counts, (desiredStable) => Math.max(0, desiredStable));
  },
  upgradeBatch: (_workload, ctx) => lowerPartition(ctx),
  finalize: (_workload, br) => finalizePartition(br, { partition: null, paused: false }),
};
