// The CloneSet controller's reconcile step (Kruise's Scale then Update, pkg/controller/cloneset/sync):
// - `planCloneSetSync(input)`: cancel PreparingDelete on scale-up, create, delete specified pods, scale in,
//   or update, on the numbers of `calculateCloneSetDiffs` (cloneset-diffs.ts);
// - `sortPodsToUpdate`: SortUpdateIndexes (ActivePods, priority, scatter, PreparingUpdate first);
// - `limitUpdates`: limitUpdateIndexes; `podUpdatePriority`: the priority strategy as a rank.
import { labelSelectorMatches } from '../selectors';
import type { UpdatePolicy, UpdatePriorityStrategy } from './cloneset-types';

export type { UpdatePriorityStrategy };
import { calculateCloneSetDiffs, type ExpectationDiffs } from './cloneset-diffs';
import { scatterSort, type ScatterTerm } from './scatter-sort';

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
