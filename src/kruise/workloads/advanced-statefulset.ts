// Advanced StatefulSet adapter (apps.kruise.io StatefulSet, v1alpha1 and v1beta1 share the shape,
// kruise-semantics §2.4): partition counts pods kept old (since v1.8), rolling fields and paused
// under spec.updateStrategy.rollingUpdate, no maxSurge; updatedReadyReplicas only in v1beta1 status.
import type { KubeObject } from '../types';
import type { PodUpdatePolicy, WorkloadAdapter, WorkloadStatus } from './types';
import { at, groupVersion, intOrStringAt, numAt, pointerOf, strAt } from './access';
import { commonAccessors, isOnDelete, keptOldByPartition, pausedUnder, replicaStatus, ROLLING_UPDATE as ROLLING } from './base';
import { REVISION_HASH_LABEL } from '../rules/revisions';
import { advancedStatefulSetMaxUnavailable, explainAdvancedStatefulSetPartition } from '../partition';

function replicas(obj: KubeObject): number {
  return numAt(obj, 'spec', 'replicas') ?? 1;
}

function keptOld(obj: KubeObject): number {
  return keptOldByPartition(obj, () => explainAdvancedStatefulSetPartition(at(obj, ...ROLLING, 'partition'), numAt(obj, 'spec', 'replicas')).partitionReplicas);
}

export const advancedStatefulSetAdapter: WorkloadAdapter = {
  ...commonAccessors,
  kindName: 'AdvancedStatefulSet',
  group: 'apps.kruise.io',
  ...pausedUnder(() => ROLLING),
  revisionLabelKey: REVISION_HASH_LABEL,
  matches: (obj) => obj.kind === 'StatefulSet' && groupVersion(obj).group === 'apps.kruise.io',
  desiredReplicas: replicas,
  partition: (obj) => intOrStringAt(obj, ...ROLLING, 'partition'),
  partitionReplicas: keptOld,
  expectedUpdatedReplicas: (obj) => replicas(obj) - keptOld(obj),
  partitionPointer: () => pointerOf([...ROLLING, 'partition']),
  updatePolicy(obj): PodUpdatePolicy | 'OnDelete' {
    if (isOnDelete(obj)) return 'OnDelete';
    const policy = strAt(obj, ...ROLLING, 'podUpdatePolicy');
    return policy === 'InPlaceIfPossible' || policy === 'InPlaceOnly' ? policy : 'ReCreate';
  },
  maxUnavailable: (obj) => intOrStringAt(obj, ...ROLLING, 'maxUnavailable'),
  maxSurge: () => undefined,
  rollingLimits: (obj) => ({ maxUnavailable: advancedStatefulSetMaxUnavailable(at(obj, ...ROLLING, 'maxUnavailable'), replicas(obj)).value, maxSurge: 0 }),
  status: (obj): WorkloadStatus => ({
    ...replicaStatus(obj),
    // When a status lacks availableReplicas, ready pods stand in for available ones.
    availableReplicas: numAt(obj, 'status', 'availableReplicas') ?? numAt(obj, 'status', 'readyReplicas') ?? 0,
    updatedReadyReplicas: numAt(obj, 'status', 'updatedReadyReplicas'),
    updatedAvailableReplicas: numAt(obj, 'status', 'updatedAvailableReplicas'),
  }),
};
