// Advanced DaemonSet adapter (apps.kruise.io DaemonSet, kruise-semantics §2.5): "replicas" are the
// scheduled nodes (status.desiredNumberScheduled); partition (int, or int-or-percent since v1.9,
// rounding down), maxUnavailable/maxSurge and paused under spec.updateStrategy.rollingUpdate;
// the revision hash is status.daemonSetHash (v1alpha1) or status.updateRevision (v1beta1).
import type { KubeObject } from '../types';
import type { PodUpdatePolicy, WorkloadAdapter, WorkloadStatus } from './types';
import { at, boolAt, conditionsOf, groupVersion, intOrStringAt, mergePatchAt, numAt, pointerOf, strAt } from './access';
import { commonAccessors, CONTROLLER_REVISION_HASH } from './base';
import { daemonSetRollingLimits, explainAdvancedDaemonSetPartition, InvalidValueError } from '../partition';

const ROLLING = ['spec', 'updateStrategy', 'rollingUpdate'];

function scheduled(obj: KubeObject): number {
  return numAt(obj, 'status', 'desiredNumberScheduled') ?? 0;
}

function keptOld(obj: KubeObject): number {
  if (strAt(obj, 'spec', 'updateStrategy', 'type') === 'OnDelete') return 0;
  try {
    return explainAdvancedDaemonSetPartition(at(obj, ...ROLLING, 'partition'), scheduled(obj)).partitionReplicas;
  } catch (e) {
    if (e instanceof InvalidValueError) return 0;
    throw e;
  }
}

export const advancedDaemonSetAdapter: WorkloadAdapter = {
  ...commonAccessors,
  kindName: 'AdvancedDaemonSet',
  group: 'apps.kruise.io',
  revisionLabelKey: CONTROLLER_REVISION_HASH,
  supportsPause: true,
  matches: (obj) => obj.kind === 'DaemonSet' && groupVersion(obj).group === 'apps.kruise.io',
  desiredReplicas: scheduled,
  partition: (obj) => intOrStringAt(obj, ...ROLLING, 'partition'),
  partitionReplicas: keptOld,
  expectedUpdatedReplicas: (obj) => scheduled(obj) - keptOld(obj),
  partitionPointer: () => pointerOf([...ROLLING, 'partition']),
  paused: (obj) => boolAt(obj, ...ROLLING, 'paused'),
  pausePatch: (_obj, paused) => mergePatchAt([...ROLLING, 'paused'], paused),
  pausedPointer: () => pointerOf([...ROLLING, 'paused']),
  updatePolicy(obj): PodUpdatePolicy | 'OnDelete' {
    if (strAt(obj, 'spec', 'updateStrategy', 'type') === 'OnDelete') return 'OnDelete';
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
  status(obj): WorkloadStatus {
    return {
      observedGeneration: numAt(obj, 'status', 'observedGeneration'),
      replicas: numAt(obj, 'status', 'currentNumberScheduled') ?? 0,
      readyReplicas: numAt(obj, 'status', 'numberReady') ?? 0,
      availableReplicas: numAt(obj, 'status', 'numberAvailable') ?? 0,
      updatedReplicas: numAt(obj, 'status', 'updatedNumberScheduled') ?? 0,
      updatedReadyReplicas: undefined,
      expectedUpdatedReplicas: undefined,
      updateRevision: strAt(obj, 'status', 'updateRevision') ?? strAt(obj, 'status', 'daemonSetHash'),
      currentRevision: undefined,
      conditions: conditionsOf(obj),
    };
  },
};
