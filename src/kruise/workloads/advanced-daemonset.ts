// Advanced DaemonSet adapter (apps.kruise.io DaemonSet, kruise-semantics §2.5): "replicas" are the
// scheduled nodes (status.desiredNumberScheduled); partition (int, or int-or-percent since v1.9,
// rounding down), maxUnavailable/maxSurge and paused under spec.updateStrategy.rollingUpdate;
// the revision hash is status.daemonSetHash (v1alpha1) or status.updateRevision (v1beta1).
import type { KubeObject } from '../types';
import type { PodUpdatePolicy, WorkloadAdapter, WorkloadStatus } from './types';
import { at, groupVersion, intOrStringAt, numAt, pointerOf, strAt } from './access';
import { commonAccessors, daemonStatus, isOnDelete, keptOldByPartition, pausedUnder, ROLLING_UPDATE as ROLLING } from './base';
import { REVISION_HASH_LABEL } from '../rules/revisions';
import { daemonSetRollingLimits, explainAdvancedDaemonSetPartition } from '../partition';

function scheduled(obj: KubeObject): number {
  return numAt(obj, 'status', 'desiredNumberScheduled') ?? 0;
}

function keptOld(obj: KubeObject): number {
  return keptOldByPartition(obj, () => explainAdvancedDaemonSetPartition(at(obj, ...ROLLING, 'partition'), scheduled(obj)).partitionReplicas);
}

export const advancedDaemonSetAdapter: WorkloadAdapter = {
  ...commonAccessors,
  kindName: 'AdvancedDaemonSet',
  group: 'apps.kruise.io',
  ...pausedUnder(() => ROLLING),
  revisionLabelKey: REVISION_HASH_LABEL,
  matches: (obj) => obj.kind === 'DaemonSet' && groupVersion(obj).group === 'apps.kruise.io',
  desiredReplicas: scheduled,
  partition: (obj) => intOrStringAt(obj, ...ROLLING, 'partition'),
  partitionReplicas: keptOld,
  expectedUpdatedReplicas: (obj) => scheduled(obj) - keptOld(obj),
  partitionPointer: () => pointerOf([...ROLLING, 'partition']),
  updatePolicy(obj): PodUpdatePolicy | 'OnDelete' {
    if (isOnDelete(obj)) return 'OnDelete';
    // rollingUpdateType: Standard (and deprecated Surging) recreate pods; InPlaceIfPossible updates in place.
    return strAt(obj, ...ROLLING, 'rollingUpdateType') === 'InPlaceIfPossible' ? 'InPlaceIfPossible' : 'ReCreate';
  },
  maxUnavailable: (obj) => intOrStringAt(obj, ...ROLLING, 'maxUnavailable'),
  maxSurge: (obj) => intOrStringAt(obj, ...ROLLING, 'maxSurge'),
  rollingLimits(obj) {
    const r = daemonSetRollingLimits({
      desiredNumberScheduled: scheduled(obj),
      maxUnavailable: at(obj, ...ROLLING, 'maxUnavailable'),
      maxSurge: at(obj, ...ROLLING, 'maxSurge'),
      advanced: true,
    });
    return { maxUnavailable: r.maxUnavailable, maxSurge: r.maxSurge };
  },
  status: (obj): WorkloadStatus => daemonStatus(obj, strAt(obj, 'status', 'updateRevision') ?? strAt(obj, 'status', 'daemonSetHash')),
};
