// Adapters of the apps/v1 kinds: Deployment (spec.paused, no partition, pod-template-hash),
// StatefulSet (ordinal partition converted to pods kept old, no pause) and DaemonSet (no partition,
// no pause). Same interface as the Kruise kinds so commands never branch on kind.
import type { KubeObject } from '../types';
import type { PodUpdatePolicy, WorkloadAdapter, WorkloadStatus } from './types';
import { at, boolAt, conditionsOf, groupVersion, intOrStringAt, mergePatchAt, numAt, pointerOf, strAt } from './access';
import { commonAccessors, CONTROLLER_REVISION_HASH, noPauseField, POD_TEMPLATE_HASH } from './base';
import { daemonSetRollingLimits, deploymentRollingLimits, explainStatefulSetOrdinalPartition, InvalidValueError, statefulSetMaxUnavailable } from '../partition';

const isApps = (obj: KubeObject): boolean => groupVersion(obj).group === 'apps';
const replicas = (obj: KubeObject): number => numAt(obj, 'spec', 'replicas') ?? 1;

function replicaStatus(obj: KubeObject): WorkloadStatus {
  return {
    observedGeneration: numAt(obj, 'status', 'observedGeneration'),
    replicas: numAt(obj, 'status', 'replicas') ?? 0,
    readyReplicas: numAt(obj, 'status', 'readyReplicas') ?? 0,
    availableReplicas: numAt(obj, 'status', 'availableReplicas') ?? 0,
    updatedReplicas: numAt(obj, 'status', 'updatedReplicas') ?? 0,
    updatedReadyReplicas: undefined,
    expectedUpdatedReplicas: undefined,
    updateRevision: strAt(obj, 'status', 'updateRevision'),
    currentRevision: strAt(obj, 'status', 'currentRevision'),
    conditions: conditionsOf(obj),
  };
}

const DEPLOY_ROLLING = ['spec', 'strategy', 'rollingUpdate'];

export const deploymentAdapter: WorkloadAdapter = {
  ...commonAccessors,
  kindName: 'Deployment',
  group: 'apps',
  revisionLabelKey: POD_TEMPLATE_HASH,
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

const STS_ROLLING = ['spec', 'updateStrategy', 'rollingUpdate'];

function statefulSetKeptOld(obj: KubeObject): number {
  if (strAt(obj, 'spec', 'updateStrategy', 'type') === 'OnDelete') return 0;
  try {
    return explainStatefulSetOrdinalPartition(at(obj, ...STS_ROLLING, 'partition'), replicas(obj), numAt(obj, 'spec', 'ordinals', 'start') ?? 0).partitionReplicas;
  } catch (e) {
    if (e instanceof InvalidValueError) return 0;
    throw e;
  }
}

export const statefulSetAdapter: WorkloadAdapter = {
  ...commonAccessors,
  kindName: 'StatefulSet',
  group: 'apps',
  revisionLabelKey: CONTROLLER_REVISION_HASH,
  supportsPause: false,
  matches: (obj) => obj.kind === 'StatefulSet' && isApps(obj),
  desiredReplicas: replicas,
  partition: (obj) => intOrStringAt(obj, ...STS_ROLLING, 'partition'),
  partitionReplicas: statefulSetKeptOld,
  expectedUpdatedReplicas: (obj) => replicas(obj) - statefulSetKeptOld(obj),
  partitionPointer: () => pointerOf([...STS_ROLLING, 'partition']),
  paused: () => false,
  pausePatch: () => {
    throw noPauseField('StatefulSet');
  },
  pausedPointer: () => {
    throw noPauseField('StatefulSet');
  },
  updatePolicy: (obj) => (strAt(obj, 'spec', 'updateStrategy', 'type') === 'OnDelete' ? 'OnDelete' : 'ReCreate'),
  maxUnavailable: (obj) => intOrStringAt(obj, ...STS_ROLLING, 'maxUnavailable'),
  maxSurge: () => undefined,
  rollingLimits: (obj) => ({ maxUnavailable: statefulSetMaxUnavailable(at(obj, ...STS_ROLLING, 'maxUnavailable'), replicas(obj)), maxSurge: 0 }),
  status: replicaStatus,
};

const DS_ROLLING = ['spec', 'updateStrategy', 'rollingUpdate'];
const scheduled = (obj: KubeObject): number => numAt(obj, 'status', 'desiredNumberScheduled') ?? 0;

export const daemonSetAdapter: WorkloadAdapter = {
  ...commonAccessors,
  kindName: 'DaemonSet',
  group: 'apps',
  revisionLabelKey: CONTROLLER_REVISION_HASH,
  supportsPause: false,
  matches: (obj) => obj.kind === 'DaemonSet' && isApps(obj),
  desiredReplicas: scheduled,
  partition: () => undefined,
  partitionReplicas: () => 0,
  expectedUpdatedReplicas: scheduled,
  partitionPointer: () => undefined,
  paused: () => false,
  pausePatch: () => {
    throw noPauseField('DaemonSet');
  },
  pausedPointer: () => {
    throw noPauseField('DaemonSet');
  },
  updatePolicy: (obj) => (strAt(obj, 'spec', 'updateStrategy', 'type') === 'OnDelete' ? 'OnDelete' : 'ReCreate'),
  maxUnavailable: (obj) => intOrStringAt(obj, ...DS_ROLLING, 'maxUnavailable'),
  maxSurge: (obj) => intOrStringAt(obj, ...DS_ROLLING, 'maxSurge'),
  rollingLimits(obj) {
    const r = daemonSetRollingLimits({ desiredNumberScheduled: scheduled(obj), maxUnavailable: at(obj, ...DS_ROLLING, 'maxUnavailable'), maxSurge: at(obj, ...DS_ROLLING, 'maxSurge') });
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
      updateRevision: undefined,
      currentRevision: undefined,
      conditions: conditionsOf(obj),
    };
  },
};
