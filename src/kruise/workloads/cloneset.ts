// CloneSet adapter, both shapes (kruise-semantics §3.1/§3.2):
// v1alpha1 keeps the rolling fields (partition, maxUnavailable, maxSurge, paused) directly under
// spec.updateStrategy, whose `type` is the pod update policy; v1beta1 has type RollingUpdate|OnDelete
// and moves them (plus podUpdatePolicy) under spec.updateStrategy.rollingUpdate.
import type { KubeObject } from '../types';
import type { PodUpdatePolicy, WorkloadAdapter, WorkloadStatus } from './types';
import { at, boolAt, groupVersion, intOrStringAt, numAt, pointerOf, strAt } from './access';
import { commonAccessors, isOnDelete, keptOldByPartition, pausedUnder, replicaStatus } from './base';
import { cloneSetRollingPath, isCloneSetV1beta1 } from './cloneset-shape';
import { REVISION_HASH_LABEL } from '../rules/revisions';
import { cloneSetRollingLimits, explainCloneSetPartition } from '../partition';
import { cloneSetControllerPartition } from '../rules/cloneset';

function rollingField(obj: KubeObject, field: string): unknown {
  return at(obj, ...cloneSetRollingPath(obj), field);
}

function replicas(obj: KubeObject): number {
  return numAt(obj, 'spec', 'replicas') ?? 1;
}

/**
 * Kruise's controller reads the partition under OnDelete too (v1beta1 with `rollingUpdate`), so the
 * pods kept old and expectedUpdatedReplicas come from the same rule the sandbox's status uses.
 */
function keptOld(obj: KubeObject): number {
  if (isOnDelete(obj)) return cloneSetControllerPartition(obj) ?? 0;
  return keptOldByPartition(obj, () => explainCloneSetPartition(rollingField(obj, 'partition'), numAt(obj, 'spec', 'replicas')).partitionReplicas);
}

export const cloneSetAdapter: WorkloadAdapter = {
  ...commonAccessors,
  kindName: 'CloneSet',
  group: 'apps.kruise.io',
  ...pausedUnder(cloneSetRollingPath),
  revisionLabelKey: REVISION_HASH_LABEL,
  matches: (obj) => obj.kind === 'CloneSet' && groupVersion(obj).group === 'apps.kruise.io',
  desiredReplicas: replicas,
  partition: (obj) => intOrStringAt(obj, ...cloneSetRollingPath(obj), 'partition'),
  partitionReplicas: keptOld,
  partitionCountsOldPods: () => true,
  expectedUpdatedReplicas: (obj) => replicas(obj) - keptOld(obj),
  partitionPointer: (obj) => pointerOf([...cloneSetRollingPath(obj), 'partition']),
  updatePolicy(obj): PodUpdatePolicy | 'OnDelete' {
    if (isOnDelete(obj)) return 'OnDelete';
    const policy = isCloneSetV1beta1(obj) ? strAt(obj, 'spec', 'updateStrategy', 'rollingUpdate', 'podUpdatePolicy') : strAt(obj, 'spec', 'updateStrategy', 'type');
    return policy === 'InPlaceIfPossible' || policy === 'InPlaceOnly' ? policy : 'ReCreate';
  },
  maxUnavailable: (obj) => intOrStringAt(obj, ...cloneSetRollingPath(obj), 'maxUnavailable'),
  maxSurge: (obj) => intOrStringAt(obj, ...cloneSetRollingPath(obj), 'maxSurge'),
  rollingLimits(obj) {
    const r = cloneSetRollingLimits({
      replicas: replicas(obj),
      maxUnavailable: rollingField(obj, 'maxUnavailable'),
      maxSurge: rollingField(obj, 'maxSurge'),
      paused: boolAt(obj, ...cloneSetRollingPath(obj), 'paused'),
    });
    return { maxUnavailable: r.maxUnavailable, maxSurge: r.maxSurge };
  },
  status: (obj): WorkloadStatus => ({
    ...replicaStatus(obj),
    updatedReadyReplicas: numAt(obj, 'status', 'updatedReadyReplicas'),
    updatedAvailableReplicas: numAt(obj, 'status', 'updatedAvailableReplicas'),
    expectedUpdatedReplicas: numAt(obj, 'status', 'expectedUpdatedReplicas'),
  }),
};
