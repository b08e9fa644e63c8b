// CloneSet controller rules (kruise-semantics §2.2–2.3, §3), pure so the sandbox controller and
// client-side tools share them. Arithmetic of partition/maxUnavailable/maxSurge is done by the
// caller (src/kruise/partition.ts) and passed in as numbers.
// - `isKruisePodReady`, `isKruisePodAvailable`: Kruise's readiness (Running, Ready, InPlaceUpdateReady)
//   and availability (minReadySeconds, lifecycle state Normal).
// - `planCloneSetSync(input)`: one reconcile step, either scaling (create/delete) or updating pods,
//   following Kruise's calculateDiffsWithExpectation / limitUpdateIndexes.
// - `cloneSetStatus(input)`: the status Kruise writes, incl. expectedUpdatedReplicas and currentRevision.
// - `progressingCondition(...)`: the Progressing condition when progressDeadlineSeconds is set.
import type { KubeObject, Pod } from '../types';
import { labelSelectorMatches, type LabelSelector } from '../selectors';
import { INPLACE_READY_CONDITION, isoSeconds } from './cloneset-inplace';
import { EXCLUDE_PREPARING_DELETE_LABEL } from '../conversion';
import { isCloneSetV1beta1 } from '../workloads/cloneset';
import { DEFAULT_REVISION_HISTORY_LIMIT } from './revisions';
import { explainCloneSetPartition } from '../partition';
import { calculateCloneSetDiffs, type ExpectationDiffs } from './cloneset-diffs';
import { scatterSort, type ScatterTerm } from './scatter-sort';

export const LIFECYCLE_STATE_LABEL = 'lifecycle.apps.kruise.io/state';
export const CLONESET_INSTANCE_ID_LABEL = 'apps.kruise.io/cloneset-instance-id';
export const SPECIFIED_DELETE_LABEL = 'apps.kruise.io/specified-delete';
/** Sandbox-only switch imitating Kruise < v1.2, which does not write expectedUpdatedReplicas. */
export const OMIT_EXPECTED_UPDATED_ANNOTATION = 'sandbox.kruise.io/omit-expected-updated-replicas';

export type UpdatePolicy = 'ReCreate' | 'InPlaceIfPossible' | 'InPlaceOnly' | 'OnDelete';

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

/** A pod as the planner sees it. */
export interface PlannedPod {
  name: string;
  /** At the update revision. */
  updated: boolean;
  ready: boolean;
  available: boolean;
  scheduled: boolean;
  phase: string;
  creationTimestamp: string;
  /** Named in scaleStrategy.podsToDelete or labelled apps.kruise.io/specified-delete. */
  specifiedDelete: boolean;
  /** Lifecycle state PreparingDelete: waiting for its preDelete hook, already on its way out. */
  preparingDelete?: boolean;
  /** lifecycle.apps.kruise.io/state (PreparingUpdate pods are updated first, Updated ones even in grace). */
  lifecycleState?: string;
  /** updateStrategy.priorityStrategy rank (podUpdatePriority): higher is updated first. */
  updatePriority?: number[];
  /**
   * Carries the in-place grace annotation (images parked for inPlaceUpdateStrategy.gracePeriodSeconds):
   * Kruise skips it when choosing pods to update, so a newer revision cannot overwrite the parked change.
   */
  inGracePeriod?: boolean;
  /** The pod's labels (for updateStrategy.scatterStrategy). */
  labels?: Record<string, string>;
}

export interface CloneSetSyncInput {
  replicas: number;
  /** Pods kept at the current (old) revision (partition.ts). */
  partitionReplicas: number;
  /** maxUnavailable after rounding (partition.ts). */
  maxUnavailable: number;
  /** maxSurge after rounding; zeroed while paused. */
  maxSurge: number;
  paused: boolean;
  policy: UpdatePolicy;
  pods: PlannedPod[];
  /** scaleStrategy.maxUnavailable after scaling (rounding up): at most this many unavailable pods while scaling up. */
  scaleMaxUnavailable?: number;
  /** Do not count PreparingDelete pods as replicas (label / scaleStrategy.excludePreparingDelete). */
  excludePreparingDelete?: boolean;
  /** currentRevision == updateRevision. */
  revisionConsistent?: boolean;
  /** updateStrategy.scatterStrategy. */
  scatterStrategy?: ScatterTerm[];
  /** A preDelete or inPlaceUpdate hook has markPodNotReady: PreparingDelete is then never cancelled. */
  lifecycleMarksNotReady?: boolean;
}

export type CloneSetSyncStep =
  | { kind: 'cancel-delete'; pods: string[] }
  | { kind: 'delete-specified'; pods: string[] }
  | { kind: 'scale'; createOld: number; createNew: number; deletePods: string[] }
  | { kind: 'update'; pods: string[] }
  | { kind: 'none' };

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/** kube's ActivePods order: the pods to delete (or update) first come first. */
export function deletionOrder(a: PlannedPod, b: PlannedPod): number {
  if (a.scheduled !== b.scheduled) return a.scheduled ? 1 : -1;
  const pa = PHASE_RANK[a.phase] ?? 0;
  const pb = PHASE_RANK[b.phase] ?? 0;
  if (pa !== pb) return pa - pb;
  if (a.ready !== b.ready) return a.ready ? 1 : -1;
  // newer pods go first
  if (a.creationTimestamp !== b.creationTimestamp) return a.creationTimestamp > b.creationTimestamp ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Kruise's choosePodsToDelete order (ActivePodsWithRanks): availability instead of readiness. */
function scaleInOrder(a: PlannedPod, b: PlannedPod): number {
  if (a.scheduled !== b.scheduled) return a.scheduled ? 1 : -1;
  const pa = PHASE_RANK[a.phase] ?? 0;
  const pb = PHASE_RANK[b.phase] ?? 0;
  if (pa !== pb) return pa - pb;
  if (a.available !== b.available) return a.available ? 1 : -1;
  return deletionOrder(a, b);
}

/** The priority sorter's comparison (pkg/util/updatesort/priority_sort.go): higher rank first, ties keep their order. */
function priorityOrder(a: PlannedPod, b: PlannedPod): number {
  return compareUpdatePriority(a.updatePriority, b.updatePriority);
}

/** Negative when rank `pa` goes first, 0 when neither does (the sort keeps their order). */
export function compareUpdatePriority(pa: number[] = [], pb: number[] = []): number {
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pb[i] ?? 0) - (pa[i] ?? 0);
  }
  return 0;
}

/**
 * Kruise's SortUpdateIndexes (sync/cloneset_update.go): ActivePods order, then the priority
 * strategy (stable), then the scatter strategy (judged on all pods), then PreparingUpdate pods first. Array.prototype.sort is stable.
 */
export function sortPodsToUpdate(pods: PlannedPod[], all: readonly PlannedPod[] = pods, scatter?: readonly ScatterTerm[]): PlannedPod[] {
  let out = pods.slice().sort(deletionOrder);
  if (out.some((p) => p.updatePriority)) out.sort(priorityOrder);
  if (scatter?.length) {
    const index = new Map(all.map((p, i) => [p, i]));
    const order = scatterSort(scatter, all.map((p) => p.labels ?? {}), out.map((p) => index.get(p) ?? -1));
    out = order.map((i) => all[i]);
  }
  out.sort((a, b) => Number(b.lifecycleState === 'PreparingUpdate') - Number(a.lifecycleState === 'PreparingUpdate'));
  return out;
}

export interface UpdatePriorityStrategy {
  weightPriority?: Array<{ weight: number; matchSelector?: LabelSelector }>;
  orderPriority?: Array<{ orderedKey: string }>;
}

/** The integer at the end of a label value, 0 without one (getIntFromStringSuffix). */
function intSuffix(v: string): number {
  const m = /(\d+)$/.exec(v);
  return m ? Number(m[1]) : 0;
}

/**
 * Kruise's priority sorter as a rank, higher first: with weightPriority, the sum of the weights of
 * the terms whose selector matches; with orderPriority, the first ordered key the pod has (earlier
 * keys first, a pod with none before all) and then the integer suffix of its value (higher first).
 */
export function podUpdatePriority(strategy: UpdatePriorityStrategy | undefined, labels: Record<string, string>): number[] | undefined {
  if (!strategy) return undefined;
  if (strategy.weightPriority?.length) {
    let sum = 0;
    for (const t of strategy.weightPriority) if (labelSelectorMatches(t.matchSelector, labels)) sum += t.weight;
    return [sum];
  }
  if (strategy.orderPriority?.length) {
    const level = strategy.orderPriority.findIndex((o) => o.orderedKey in labels);
    if (level < 0) return [1, 0];
    return [-level || 0, intSuffix(labels[strategy.orderPriority[level].orderedKey])];
  }
  return undefined;
}

/** Kruise's isPodReady for deletions: ready and lifecycle state empty or Normal. */
function readyNormal(p: PlannedPod): boolean {
  return p.ready && (!p.lifecycleState || p.lifecycleState === 'Normal');
}

/**
 * One reconcile step as Kruise's Scale then Update (sync/cloneset_scale.go, sync/cloneset_update.go),
 * on the numbers of calculateCloneSetDiffs: create (up to scaleStrategy.maxUnavailable), delete
 * specified pods, scale in (ready pods only within deleteReadyLimit = maxUnavailable + surplus −
 * unavailable), else update within updateMaxUnavailable. Scaling and updating never share a step.
 */
export function planCloneSetSync(input: CloneSetSyncInput): CloneSetSyncStep {
  const { pods } = input;
  const cancel = preparingDeleteToCancel(input);
  if (cancel.length > 0) return { kind: 'cancel-delete', pods: cancel };
  const diffs = calculateCloneSetDiffs({
    replicas: input.replicas,
    partition: input.partitionReplicas,
    maxSurge: input.maxSurge,
    maxUnavailable: input.maxUnavailable,
    scaleMaxUnavailable: input.scaleMaxUnavailable,
    paused: input.paused,
    excludePreparingDelete: input.excludePreparingDelete === true,
    revisionConsistent: input.revisionConsistent === true,
    pods: pods.map((p) => ({ updated: p.updated, preparingDelete: p.preparingDelete === true, specifiedDelete: p.specifiedDelete, available: p.available })),
  });
  const scale = planScale(pods, diffs);
  if (scale !== 'update') return scale;

  if (input.paused || input.policy === 'OnDelete') return { kind: 'none' };
  const updateNum = diffs.updateNum ?? 0;
  if (updateNum <= 0) return { kind: 'none' };
  // pods in an in-place grace period wait; PreparingDelete pods are on their way out
  const waiting = pods.filter((p) => !p.updated && !p.preparingDelete && (p.lifecycleState === 'Updated' || !p.inGracePeriod));
  const chosen = limitUpdates(sortPodsToUpdate(waiting, pods, input.scatterStrategy), pods, diffs);
  return chosen.length > 0 ? { kind: 'update', pods: chosen.map((p) => p.name) } : { kind: 'none' };
}

/**
 * Kruise's managePreparingDelete (sync/cloneset_scale.go): when replicas grew back, PreparingDelete
 * pods that were not specified for deletion return to PreparingNormal instead of new pods being made.
 */
function preparingDeleteToCancel(input: CloneSetSyncInput): string[] {
  if (input.lifecycleMarksNotReady) return [];
  const { pods } = input;
  let diff = input.replicas - pods.length + pods.filter((p) => p.specifiedDelete || p.preparingDelete).length;
  const out: string[] = [];
  for (const p of pods) {
    if (diff <= 0) break;
    if (!p.preparingDelete || p.specifiedDelete) continue;
    out.push(p.name);
    diff--;
  }
  return out;
}

/** The Scale half: a step, or 'update' when scaling does nothing this time. */
function planScale(pods: PlannedPod[], diffs: ExpectationDiffs): CloneSetSyncStep | 'update' {
  const scaleUp = diffs.scaleUpNum ?? 0;
  if (scaleUp > 0) {
    const n = diffs.scaleUpLimit ?? 0;
    if (n <= 0) return 'update';
    const createOld = Math.min(n, diffs.scaleUpNumOldRevision ?? 0);
    return { kind: 'scale', createOld, createNew: n - createOld, deletePods: [] };
  }
  let readyLimit = diffs.deleteReadyLimit ?? 0;
  const withinLimit = (list: PlannedPod[]) =>
    list.filter((p) => {
      if (!readyNormal(p)) return true;
      if (readyLimit <= 0) return false;
      readyLimit--;
      return true;
    });
  const specified = pods.filter((p) => p.specifiedDelete && !p.preparingDelete);
  if (specified.length > 0) {
    const can = withinLimit(specified);
    if (can.length > 0) return { kind: 'delete-specified', pods: can.map((p) => p.name) };
  }
  const scaleDown = diffs.scaleDownNum ?? 0;
  if (scaleDown <= 0) return 'update';
  // pods already on their way out (specified or PreparingDelete) go first
  if (pods.some((p) => p.specifiedDelete || p.preparingDelete)) return 'update';
  const oldPods = pods.filter((p) => !p.updated);
  const newPods = pods.filter((p) => p.updated);
  const choose = (list: PlannedPod[], n: number) => (n >= list.length ? list : list.slice().sort(scaleInOrder).slice(0, n));
  const oldDiff = diffs.scaleDownNumOldRevision ?? 0;
  let chosen: PlannedPod[];
  if (oldDiff >= scaleDown) chosen = choose(oldPods, scaleDown);
  else if (oldDiff > 0) chosen = [...choose(oldPods, oldDiff), ...choose(newPods, scaleDown - oldDiff)];
  else chosen = choose(newPods, scaleDown);
  const deletePods = withinLimit(chosen);
  if (deletePods.length === 0) return 'update';
  return { kind: 'scale', createOld: 0, createNew: 0, deletePods: deletePods.map((p) => p.name) };
}

/**
 * Kruise's limitUpdateIndexes: at most |updateNum| of the sorted waiting pods, and while updating
 * them keeps unavailable pods (and unavailable pods at the target revision) within updateMaxUnavailable.
 */
export function limitUpdates<P extends { updated: boolean; available: boolean }>(waiting: P[], pods: readonly P[], diffs: ExpectationDiffs): P[] {
  const updateMaxUnavailable = diffs.updateMaxUnavailable ?? 0;
  waiting = waiting.slice(0, Math.abs(diffs.updateNum ?? 0));
  let unavailable = pods.filter((p) => !p.available).length;
  const targetUnavailable = pods.filter((p) => p.updated && !p.available).length;
  const out: P[] = [];
  for (const p of waiting) {
    if (targetUnavailable + out.length >= updateMaxUnavailable) break;
    if (p.available) {
      if (unavailable >= updateMaxUnavailable) break;
      unavailable++;
    }
    out.push(p);
  }
  return out;
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

export interface ProgressingInput {
  progressDeadlineSeconds?: number;
  paused: boolean;
  specReplicas: number;
  /** The status computed in this sync (counts, revisions, expectedUpdatedReplicas). */
  status: CloneSetStatus;
  /** expectedUpdatedReplicas as Kruise computes it (also when it is omitted from JSON). */
  expectedUpdatedReplicas: number;
  /** The Progressing condition carried over from the stored status (Kruise copies the conditions). */
  previousCondition?: Record<string, string>;
  now: Date;
}

/** Kruise writes no Progressing condition without a deadline or with MaxInt32 (HasProgressDeadline). */
const MAX_INT32 = 2147483647;

/**
 * The Progressing condition (Kruise v1.9 cloneset_status.go calculateProgressingStatus), first match:
 * CloneSetAvailable, CloneSetPaused (True), ProgressPartitionAvailable, ProgressDeadlineExceeded
 * (False; once written it stays until one of the three above), CloneSetUpdated. Like Kruise's
 * SetCloneSetCondition the stored condition is kept as it is while status and reason stay the same,
 * so the deadline runs from the last change of reason, not from the last change of counts.
 */
export function progressingCondition(input: ProgressingInput): Record<string, string> | undefined {
  const pds = input.progressDeadlineSeconds;
  if (pds === undefined || pds === null || pds === MAX_INT32) return undefined;
  const { status: s, previousCondition: prev, now } = input;
  const set = (status: string, reason: string, message: string): Record<string, string> => {
    if (prev && prev.status === status && prev.reason === reason) return prev;
    const ts = isoSeconds(now);
    const lastTransitionTime = prev && prev.status === status ? prev.lastTransitionTime ?? ts : ts;
    return { type: 'Progressing', status, lastUpdateTime: ts, lastTransitionTime, reason, message };
  };
  const spec = input.specReplicas;
  // CloneSetAvailable (cloneset_utils.go)
  if (s.currentRevision === s.updateRevision && s.replicas === spec && s.updatedReplicas === spec && s.updatedAvailableReplicas === spec) {
    return set('True', 'CloneSetAvailable', 'CloneSet is available');
  }
  if (input.paused) return set('True', 'CloneSetPaused', 'CloneSet is paused');
  // CloneSetPartitionAvailable
  const expected = input.expectedUpdatedReplicas;
  if (expected < spec && expected <= s.updatedAvailableReplicas) {
    return set('True', 'ProgressPartitionAvailable', 'CloneSet has been paused due to partition ready');
  }
  // CloneSetDeadlineExceeded: judged on the carried condition, whatever its reason
  if (prev) {
    const since = Date.parse(prev.lastUpdateTime ?? '');
    if (prev.reason === 'ProgressDeadlineExceeded' || (Number.isFinite(since) && since + pds * 1000 < now.getTime())) {
      return set('False', 'ProgressDeadlineExceeded', `CloneSet revision ${s.updateRevision} has timed out progressing`);
    }
  }
  return set('True', 'CloneSetUpdated', 'CloneSet is progressing');
}

/**
 * Ms until the progress deadline passes (for re-queueing), like getRequeueSecondsFromCondition:
 * only while the condition is CloneSetUpdated. A little past the deadline, as Kruise's check is strict.
 */
export function msUntilProgressDeadline(cond: Record<string, string> | undefined, deadlineSeconds: number | undefined, now: Date): number | undefined {
  if (!cond || deadlineSeconds === undefined || cond.reason !== 'CloneSetUpdated') return undefined;
  const since = Date.parse(cond.lastUpdateTime ?? '');
  if (!Number.isFinite(since)) return undefined;
  return Math.max(0, since + deadlineSeconds * 1000 - now.getTime()) + 5;
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
