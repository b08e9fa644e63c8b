// Adapters of the apps/v1 kinds: Deployment (spec.paused, no partition, pod-template-hash),
// StatefulSet (ordinal partition converted to pods kept old, no pause) and DaemonSet (no partition,
// no pause). Same interface as the Kruise kinds so commands never branch on kind.
import type { KubeObject } from '../types';
import type { PodUpdatePolicy, WorkloadAdapter } from './types';
import { at, boolAt, groupVersion, intOrStringAt, mergePatchAt, numAt, pointerOf, strAt } from './access';
import { commonAccessors, daemonStatus, isOnDelete, keptOldByPartition, replicaStatus, ROLLING_UPDATE, withoutPause } from './base';
import { POD_TEMPLATE_HASH_LABEL, REVISION_HASH_LABEL } from '../rules/revisions';
import { daemonSetRollingLimits, deploymentRollingLimits, explainStatefulSetOrdinalPartition, statefulSetMaxUnavailable } from '../partition';

const isApps = (obj: KubeObject): boolean => groupVersion(obj).group === 'apps';
const replicas = (obj: KubeObject): number => numAt(obj, 'spec', 'replicas') ?? 1;
/** StatefulSet and DaemonSet either roll (replacing pods) or wait for deletions. */
const recreateOrOnDelete = (obj: KubeObject): PodUpdatePolicy | 'OnDelete' => (isOnDelete(obj) ? 'OnDelete' : 'ReCreate');

const DEPLOY_ROLLING = ['spec', 'strategy', 'rollingUpdate'];

export const deploymentAdapter: WorkloadAdapter = {
  ...commonAccessors,
  kindName: 'Deployment',
  group: 'apps',
  revisionLabelKey: POD_TEMPLATE_HASH_LABEL,
  supportsPause: true,
  matches: (obj) => obj.kind === 'Deployment' && isApps(obj),
  desiredReplicas: replicas,
  partition: () => undefined,
  partitionReplicas: () => 0,
  expectedUpdatedReplicas: replicas,
  partitionPointer: () => undefined,
  paused: (obj) => boolAt(obj, 'spec', 'paused'),
  pausePatch: (_obj, paused) => mergePatchAt(['spec', 'paused'], paused),
  pausedPointer: () => '/spec/paused',
  // Both RollingUpdate and Recreate replace pods.
  updatePolicy: (): PodUpdatePolicy => 'ReCreate',
  maxUnavailable: (obj) => intOrStringAt(obj, ...DEPLOY_ROLLING, 'maxUnavailable'),
  maxSurge: (obj) => intOrStringAt(obj, ...DEPLOY_ROLLING, 'maxSurge'),
  rollingLimits(obj) {
    if (strAt(obj, 'spec', 'strategy', 'type') === 'Recreate') return { maxUnavailable: replicas(obj), maxSurge: 0 };
    const r = deploymentRollingLimits({ replicas: replicas(obj), maxUnavailable: at(obj, ...DEPLOY_ROLLING, 'maxUnavailable'), maxSurge: at(obj, ...DEPLOY_ROLLING, 'maxSurge') });
    return { maxUnavailable: r.maxUnavailable, maxSurge: r.maxSurge };
  },
  status: replicaStatus,
};

const STS_ROLLING = ROLLING_UPDATE;

function statefulSetKeptOld(obj: KubeObject): number {
  return keptOldByPartition(obj, () => explainStatefulSetOrdinalPartition(at(obj, ...STS_ROLLING, 'partition'), replicas(obj), numAt(obj, 'spec', 'ordinals', 'start') ?? 0).partitionReplicas);
}

export const statefulSetAdapter: WorkloadAdapter = {
  ...commonAccessors,
  kindName: 'StatefulSet',
  group: 'apps',
  ...withoutPause('StatefulSet'),
  revisionLabelKey: REVISION_HASH_LABEL,
  matches: (obj) => obj.kind === 'StatefulSet' && isApps(obj),
  desiredReplicas: replicas,
  partition: (obj) => intOrStringAt(obj, ...STS_ROLLING, 'partition'),
  partitionReplicas: statefulSetKeptOld,
  expectedUpdatedReplicas: (obj) => replicas(obj) - statefulSetKeptOld(obj),
  partitionPointer: () => pointerOf([...STS_ROLLING, 'partition']),
  updatePolicy: recreateOrOnDelete,
  maxUnavailable: (obj) => intOrStringAt(obj, ...STS_ROLLING, 'maxUnavailable'),
  maxSurge: () => undefined,
  rollingLimits: (obj) => ({ maxUnavailable: statefulSetMaxUnavailable(at(obj, ...STS_ROLLING, 'maxUnavailable'), replicas(obj)), maxSurge: 0 }),
  status: replicaStatus,
};

const DS_ROLLING = ROLLING_UPDATE;
const scheduled = (obj: KubeObject): number => numAt(obj, 'status', 'desiredNumberScheduled') ?? 0;

export const daemonSetAdapter: WorkloadAdapter = {
  ...commonAccessors,
  kindName: 'DaemonSet',
  group: 'apps',
  ...withoutPause('DaemonSet'),
  revisionLabelKey: REVISION_HASH_LABEL,
  matches: (obj) => obj.kind === 'DaemonSet' && isApps(obj),
  desiredReplicas: scheduled,
  partition: () => undefined,
  partitionReplicas: () => 0,
  expectedUpdatedReplicas: scheduled,
  partitionPointer: () => undefined,
  updatePolicy: recreateOrOnDelete,
  maxUnavailable: (obj) => intOrStringAt(obj, ...DS_ROLLING, 'maxUnavailable'),
  maxSurge: (obj) => intOrStringAt(obj, ...DS_ROLLING, 'maxSurge'),
  rollingLimits(obj) {
    const r = daemonSetRollingLimits({ desiredNumberScheduled: scheduled(obj), maxUnavailable: at(obj, ...DS_ROLLING, 'maxUnavailable'), maxSurge: at(obj, ...DS_ROLLING, 'maxSurge') });
    return { maxUnavailable: r.maxUnavailable, maxSurge: r.maxSurge };
  },
  status: (obj) => daemonStatus(obj, undefined),
};
