// What every adapter shares: template, selector, containers, the revision label, and the pieces
// several kinds have in common (pause fields, kept-old arithmetic, status shapes). Each kind's
// module spreads these and adds its own field paths and arithmetic.
import type { KubeObject } from '../types';
import type { WorkloadAdapter, WorkloadStatus } from './types';
import { boolAt, conditionsOf, mergePatchAt, numAt, objAt, pointerOf, strAt, templateContainers } from './access';
import { InvalidValueError } from '../partition';

/** Where StatefulSet, DaemonSet and their Kruise twins (and CloneSet v1beta1) keep the rolling fields. */
export const ROLLING_UPDATE = ['spec', 'updateStrategy', 'rollingUpdate'];

type Common = Pick<WorkloadAdapter, 'template' | 'selector' | 'templatePointer' | 'containers'>;

export const commonAccessors: Common = {
  template: (obj: KubeObject) => objAt(obj, 'spec', 'template'),
  selector: (obj: KubeObject) => objAt(obj, 'spec', 'selector') as ReturnType<WorkloadAdapter['selector']>,
  templatePointer: () => '/spec/template',
  containers: templateContainers,
};

type PauseAccessors = Pick<WorkloadAdapter, 'supportsPause' | 'paused' | 'pausePatch' | 'pausedPointer'>;

/** A `paused` boolean in the object that `rollingPath(obj)` leads to (the path may depend on the shape). */
export function pausedUnder(rollingPath: (obj: KubeObject) => string[]): PauseAccessors {
  return {
    supportsPause: true,
    paused: (obj) => boolAt(obj, ...rollingPath(obj), 'paused'),
    pausePatch: (obj, paused) => mergePatchAt([...rollingPath(obj), 'paused'], paused),
    pausedPointer: (obj) => pointerOf([...rollingPath(obj), 'paused']),
  };
}

/** Kinds without a paused field: never paused, and asking for the field is an error. */
export function withoutPause(kind: string): PauseAccessors {
  return {
    supportsPause: false,
    paused: () => false,
    pausePatch: () => {
      throw noPauseField(kind);
    },
    pausedPointer: () => {
      throw noPauseField(kind);
    },
  };
}

/** Error for pause operations on kinds without a paused field. */
function noPauseField(kind: string): Error {
  return new Error(`a ${kind} has no paused field`);
}

export function isOnDelete(obj: KubeObject): boolean {
  return strAt(obj, 'spec', 'updateStrategy', 'type') === 'OnDelete';
}

/**
 * Pods a partition keeps at the old revision: none with OnDelete (nothing is rolled at all), and
 * none when the partition cannot be read: the webhook rejects such values, and an object that has
 * one anyway updates nothing we can predict.
 */
export function keptOldByPartition(obj: KubeObject, explain: () => number): number {
  if (isOnDelete(obj)) return 0;
  try {
    return explain();
  } catch (e) {
    if (e instanceof InvalidValueError) return 0;
    throw e;
  }
}

/** The `replicas`-style status (Deployment, StatefulSet, CloneSet, Advanced StatefulSet). */
export function replicaStatus(obj: KubeObject): WorkloadStatus {
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

/** The per-node status of DaemonSets (native and Advanced), whose "replicas" are scheduled nodes. */
export function daemonStatus(obj: KubeObject, updateRevision: string | undefined): WorkloadStatus {
  return {
    observedGeneration: numAt(obj, 'status', 'observedGeneration'),
    replicas: numAt(obj, 'status', 'currentNumberScheduled') ?? 0,
    readyReplicas: numAt(obj, 'status', 'numberReady') ?? 0,
    availableReplicas: numAt(obj, 'status', 'numberAvailable') ?? 0,
    updatedReplicas: numAt(obj, 'status', 'updatedNumberScheduled') ?? 0,
    updatedReadyReplicas: undefined,
    expectedUpdatedReplicas: undefined,
    updateRevision,
    currentRevision: undefined,
    conditions: conditionsOf(obj),
  };
}
