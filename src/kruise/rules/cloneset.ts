// CloneSet controller rules (kruise-semantics §2.2–2.3, §3), pure so the sandbox controller and
// client-side tools share them. Arithmetic of partition/maxUnavailable/maxSurge is done by the
// caller (src/kruise/partition.ts) and passed in as numbers.
// - `isKruisePodReady`, `isKruisePodAvailable`: Kruise's readiness (Running, Ready, InPlaceUpdateReady)
//   and availability (minReadySeconds, lifecycle state Normal).
// - `cloneSetStatus(input)`: the status Kruise writes, incl. expectedUpdatedReplicas and currentRevision.
// - `readCloneSetSpec(obj)`: the spec fields the controller needs, from either shape.
// The reconcile step is in cloneset-plan.ts (on cloneset-diffs.ts), the Progressing condition in
// cloneset-progressing.ts.
import type { KubeObject, Pod } from '../types';
import type { LabelSelector } from '../selectors';
import { INPLACE_READY_CONDITION } from './cloneset-inplace';
import { EXCLUDE_PREPARING_DELETE_LABEL } from '../conversion';
import { isCloneSetV1beta1 } from '../workloads/cloneset-shape';
import { DEFAULT_REVISION_HISTORY_LIMIT } from './revisions';
import { explainCloneSetPartition } from '../partition';
import type { ScatterTerm } from './scatter-sort';
import type { UpdatePolicy, UpdatePriorityStrategy } from './cloneset-types';

export const LIFECYCLE_STATE_LABEL = 'lifecycle.apps.kruise.io/state';
export const CLONESET_INSTANCE_ID_LABEL = 'apps.kruise.io/cloneset-instance-id';
export const SPECIFIED_DELETE_LABEL = 'apps.kruise.io/specified-delete';
/** Sandbox-only switch imitating Kruise < v1.2, which does not write expectedUpdatedReplicas. */
export const OMIT_EXPECTED_UPDATED_ANNOTATION = 'sandbox.kruise.io/omit-expected-updated-replicas';

export type { UpdatePolicy };

function condition(pod: Pod, type: string): { status: string; lastTransitionTime?: string } | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

/** Kruise: Running, PodReady True, and InPlaceUpdateReady True when the pod has that condition. */
export function isKruisePodReady(pod: Pod): boolean {
  if (pod.metadata.deletionTimestamp) return false;
  if (pod.status?.phase !== 'Running') return false;
  if (condition(pod, 'Ready')?.status !== 'True') return false;
  const inplace = condition(pod, INPLACE_READY_CONDITION);
  return !inplace || inplace.status === 'True';
}

/** Ready for at least minReadySeconds and lifecycle state empty or Normal. */
export function isKruisePodAvailable(pod: Pod, minReadySeconds: number, now: Date): boolean {
  if (!isKruisePodReady(pod)) return false;
  const state = pod.metadata.labels?.[LIFECYCLE_STATE_LABEL];
  if (state && state !== 'Normal') return false;
  if (minReadySeconds <= 0) return true;
  const since = condition(pod, 'Ready')?.lastTransitionTime;
  if (!since) return false;
  return now.getTime() - Date.parse(since) >= minReadySeconds * 1000;
}

/** Ms until the pod turns available (for re-queueing), or undefined when it will not by waiting. */
export function msUntilAvailable(pod: Pod, minReadySeconds: number, now: Date): number | undefined {
  if (!isKruisePodReady(pod) || minReadySeconds <= 0) return undefined;
  const since = condition(pod, 'Ready')?.lastTransitionTime;
  if (!since) return undefined;
  const left = Date.parse(since) + minReadySeconds * 1000 - now.getTime();
  return left > 0 ? left : undefined;
}

export interface LifecycleHook {
  finalizersHandler?: string[];
  labelsHandler?: Record<string, string>;
  markPodNotReady?: boolean;
}

/** Kruise's IsPodHooked: the pod carries any of the hook's finalizers or labels. */
export function isPodHooked(hook: LifecycleHook | undefined, pod: Pod): boolean {
  if (!hook) return false;
  if ((hook.finalizersHandler ?? []).some((f) => (pod.metadata.finalizers ?? []).includes(f))) return true;
  return Object.entries(hook.labelsHandler ?? {}).some(([k, v]) => pod.metadata.labels?.[k] === v);
}

/** Kruise's IsPodAllHooked (preNormal): every finalizer and label of the hook is on the pod. */
export function isPodAllHooked(hook: LifecycleHook | undefined, pod: Pod): boolean {
  if (!hook) return false;
  if (!(hook.finalizersHandler ?? []).every((f) => (pod.metadata.finalizers ?? []).includes(f))) return false;
  return Object.entries(hook.labelsHandler ?? {}).every(([k, v]) => pod.metadata.labels?.[k] === v);
}


export interface CloneSetStatusInput {
  generation: number;
  specReplicas: number;
  /** Kruise's expectedUpdatedReplicas (`cloneSetExpectedUpdatedReplicas`). */
  expectedUpdatedReplicas: number;
  updateRevision: string;
  /** currentRevision as previously written (undefined on the first sync). */
  previousCurrentRevision?: string;
  collisionCount: number;
  labelSelector: string;
  pods: Array<{ updated: boolean; ready: boolean; available: boolean }>;
  omitExpectedUpdatedReplicas?: boolean;
}

export interface CloneSetStatus {
  observedGeneration: number;
  replicas: number;
  readyReplicas: number;
  availableReplicas: number;
  updatedReplicas: number;
  updatedReadyReplicas: number;
  updatedAvailableReplicas: number;
  expectedUpdatedReplicas?: number;
  updateRevision: string;
  currentRevision: string;
  collisionCount: number;
  labelSelector: string;
  conditions?: Array<Record<string, string>>;
}

/** The pod counts behind Kruise's status (CloneSet and Advanced StatefulSet count alike). */
export function countPodStates(pods: ReadonlyArray<{ updated: boolean; ready: boolean; available: boolean }>): {
  ready: number;
  available: number;
  updated: number;
  updatedReady: number;
  updatedAvailable: number;
} {
  let ready = 0;
  let available = 0;
  let updated = 0;
  let updatedReady = 0;
  let updatedAvailable = 0;
  for (const p of pods) {
    if (p.ready) ready++;
    if (p.available) available++;
    if (p.updated) {
      updated++;
      if (p.ready) updatedReady++;
      if (p.available) updatedAvailable++;
    }
  }
  return { ready, available, updated, updatedReady, updatedAvailable };
}

/**
 * The partition Kruise's controller works with (calculateDiffsWithExpectation, calculateStatus): read
 * even under OnDelete (v1.9 v1alpha1 and master v1beta1 alike), none on v1beta1 without `rollingUpdate`
 * (OnDelete converted from v1alpha1). Undefined when unreadable (Kruise logs it and uses none).
 */
export function cloneSetControllerPartition(obj: { apiVersion?: string; spec?: unknown; metadata?: unknown }): number | undefined {
  const spec = (obj.spec ?? {}) as { replicas?: number; updateStrategy?: { partition?: unknown; rollingUpdate?: { partition?: unknown } } };
  const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1;
  const us = spec.updateStrategy ?? {};
  let partition: unknown;
  if (isCloneSetV1beta1(obj as KubeObject)) {
    if (!us.rollingUpdate) return 0;
    partition = us.rollingUpdate.partition;
  } else partition = us.partition;
  try {
    return explainCloneSetPartition(partition, replicas).partitionReplicas;
  } catch {
    return undefined;
  }
}

/** expectedUpdatedReplicas as Kruise's calculateStatus writes it: replicas − partition (0 when the partition is unreadable). */
export function cloneSetExpectedUpdatedReplicas(obj: { apiVersion?: string; spec?: unknown; metadata?: unknown }): number {
  const replicas = (obj.spec as { replicas?: unknown } | undefined)?.replicas;
  const partition = cloneSetControllerPartition(obj);
  return partition === undefined ? 0 : (typeof replicas === 'number' ? replicas : 1) - partition;
}

/** The status fields Kruise computes from the pods (conditions are added separately). */
export function cloneSetStatus(input: CloneSetStatusInput): CloneSetStatus {
  const { ready, available, updated, updatedReady, updatedAvailable } = countPodStates(input.pods);
  const replicas = input.pods.length;
  const expected = input.expectedUpdatedReplicas;
  let currentRevision = input.previousCurrentRevision || input.updateRevision;
  if (updated === replicas && replicas === input.specReplicas) currentRevision = input.updateRevision;
  const status: CloneSetStatus = {
    observedGeneration: input.generation,
    replicas,
    readyReplicas: ready,
    availableReplicas: available,
    updatedReplicas: updated,
    updatedReadyReplicas: updatedReady,
    updatedAvailableReplicas: updatedAvailable,
    updateRevision: input.updateRevision,
    currentRevision,
    collisionCount: input.collisionCount,
    labelSelector: input.labelSelector,
  };
  // omitempty in Kruise's types: 0 is not written
  if (expected > 0 && !input.omitExpectedUpdatedReplicas) status.expectedUpdatedReplicas = expected;
  return status;
}

/** The CloneSet spec fields the controller needs, read from either shape (v1alpha1 or v1beta1). */
export interface CloneSetSpecView {
  replicas: number;
  selector?: LabelSelector;
  template: Record<string, unknown>;
  policy: UpdatePolicy;
  partition?: number | string;
  maxUnavailable?: number | string;
  maxSurge?: number | string;
  paused: boolean;
  minReadySeconds: number;
  progressDeadlineSeconds?: number;
  revisionHistoryLimit: number;
  podsToDelete: string[];
  scaleMaxUnavailable?: number | string;
  lifecycle: { preDelete?: LifecycleHook; preNormal?: LifecycleHook; inPlaceUpdate?: LifecycleHook };
  excludePreparingDelete: boolean;
  priorityStrategy?: UpdatePriorityStrategy;
  scatterStrategy?: ScatterTerm[];
}

/**
 * v1alpha1 keeps everything in `spec.updateStrategy` with `type` = the pod update policy; v1beta1
 * (main branch) has `type` RollingUpdate/OnDelete and the rest under `rollingUpdate` (§3.2).
 */
export function readCloneSetSpec(obj: { apiVersion?: string; spec?: unknown; metadata?: unknown }): CloneSetSpecView {
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const us = (spec.updateStrategy ?? {}) as Record<string, unknown>;
  const beta = isCloneSetV1beta1(obj as KubeObject);
  const ru = (beta ? us.rollingUpdate ?? {} : us) as Record<string, unknown>;
  let policy: UpdatePolicy;
  if (beta) policy = us.type === 'OnDelete' ? 'OnDelete' : ((ru.podUpdatePolicy as UpdatePolicy | undefined) ?? 'ReCreate');
  else policy = (us.type as UpdatePolicy | undefined) || 'ReCreate';
  const scale = (spec.scaleStrategy ?? {}) as { podsToDelete?: string[]; maxUnavailable?: number | string; excludePreparingDelete?: boolean };
  const labels = ((obj as { metadata?: { labels?: Record<string, string> } }).metadata?.labels ?? {}) as Record<string, string>;
  const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  return {
    replicas: num(spec.replicas) ?? 1,
    selector: spec.selector as CloneSetSpecView['selector'],
    template: (spec.template ?? {}) as Record<string, unknown>,
    policy,
    partition: ru.partition as number | string | undefined,
    maxUnavailable: ru.maxUnavailable as number | string | undefined,
    maxSurge: ru.maxSurge as number | string | undefined,
    paused: ru.paused === true,
    minReadySeconds: num(spec.minReadySeconds) ?? 0,
    progressDeadlineSeconds: num(spec.progressDeadlineSeconds),
    revisionHistoryLimit: num(spec.revisionHistoryLimit) ?? DEFAULT_REVISION_HISTORY_LIMIT,
    podsToDelete: scale.podsToDelete ?? [],
    scaleMaxUnavailable: scale.maxUnavailable,
    lifecycle: (spec.lifecycle ?? {}) as CloneSetSpecView['lifecycle'],
    // v1alpha1 uses a label on the CloneSet (v1.3+), v1beta1 a scaleStrategy field (§3.2)
    excludePreparingDelete: beta ? scale.excludePreparingDelete === true : labels[EXCLUDE_PREPARING_DELETE_LABEL] === 'true',
    priorityStrategy: ru.priorityStrategy as UpdatePriorityStrategy | undefined,
    scatterStrategy: ru.scatterStrategy as ScatterTerm[] | undefined,
  };
}

/**
 * Kruise's truncatePodsToDelete (pkg/controller/cloneset/cloneset_controller.go, every release
 * since v1.0): after a sync, names in spec.scaleStrategy.podsToDelete that no active pod of the
 * CloneSet has any more are dropped. Returns the new list, or undefined when nothing changes.
 */
export function truncatedPodsToDelete(podsToDelete: readonly string[], activePodNames: Iterable<string>): string[] | undefined {
  if (podsToDelete.length === 0) return undefined;
  const existing = new Set(activePodNames);
  const kept = podsToDelete.filter((n) => existing.has(n));
  return kept.length === podsToDelete.length ? undefined : kept;
}
