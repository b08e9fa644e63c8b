// Which pods Kruise Rollout master's native-daemonset-controller deletes for a batch, pure
// (openkruise/rollouts master pkg/controller/nativedaemonset/nativedaemonset_controller.go Reconcile,
// analyzePods; pkg/controller/nativedaemonset/util/nativedaemoset_util.go). A released DaemonSet runs
// under OnDelete; the BatchRelease writes the batch's partition (pods to keep old) and revision in the
// daemonset-advanced-control annotation, and this controller deletes old pods, at most maxUnavailable
// unavailable at a time, so that kube's DaemonSet controller recreates them at the new revision.
import type { KubeObject } from '../types';
import { at, isObj, numAt } from '../workloads/access';
import { daemonSetAdvancedControl } from './native-daemonset-annotations';
import { isConsistentWithRevision } from './release-workload';
import { rolloutScaledValue } from './step-math';

const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';
const GO_SSCANF_INT = /^\s*([+-]?\d+)/;

/**
 * CalculateDesiredUpdatedReplicas: pods − partition, at least 0. The partition is read as Go's
 * fmt.Sscanf("%d") reads it (leading spaces, a sign, the leading digits: "2abc" is 2, "0x5" is 0);
 * undefined where Sscanf fails (the reconcile then returns its error and does nothing).
 */
export function desiredUpdatedReplicas(partition: string, totalPods: number): number | undefined {
  const m = GO_SSCANF_INT.exec(partition);
  if (!m) return undefined;
  return Math.max(0, totalPods - Number(m[1]));
}

/**
 * GetMaxUnavailable: spec.updateStrategy.rollingUpdate.maxUnavailable scaled against
 * desiredNumberScheduled, rounded down; 1 when absent, unreadable or not positive (an OnDelete
 * DaemonSet keeps the rollingUpdate it had, so its value still counts).
 */
export function nativeDaemonSetMaxUnavailable(ds: KubeObject): number {
  const raw = at(ds, 'spec', 'updateStrategy', 'rollingUpdate', 'maxUnavailable');
  if (typeof raw !== 'number' && typeof raw !== 'string') return 1;
  const v = rolloutScaledValue(raw, numAt(ds, 'status', 'desiredNumberScheduled') ?? 0, false);
  return v !== undefined && v > 0 ? v : 1;
}

function isReady(pod: KubeObject): boolean {
  const conds = at(pod, 'status', 'conditions');
  return Array.isArray(conds) && conds.some((c) => isObj(c) && c.type === 'Ready' && c.status === 'True');
}

function deletionCost(pod: KubeObject): number {
  const raw = pod.metadata.annotations?.[POD_DELETION_COST_ANNOTATION];
  if (raw === undefined || !/^[+-]?\d+$/.test(raw)) return 0;
  const n = Number(raw);
  return n >= -(2 ** 31) && n < 2 ** 31 ? n : 0;
}

const createdAt = (pod: KubeObject): number => Date.parse(pod.metadata.creationTimestamp ?? '') || 0;

/** SortPodsForDeletion: Pending first, then not ready, then lower deletion cost, then newer. */
export function sortPodsForDeletion(pods: KubeObject[]): KubeObject[] {
  const pending = (p: KubeObject) => at(p, 'status', 'phase') === 'Pending';
  return [...pods].sort((a, b) => {
    if (pending(a) !== pending(b)) return pending(a) ? -1 : 1;
    if (isReady(a) !== isReady(b)) return isReady(a) ? 1 : -1;
    const cost = deletionCost(a) - deletionCost(b);
    if (cost !== 0) return cost;
    return createdAt(b) - createdAt(a);
  });
}

export interface PodsToDelete {
  /** The pods to delete now, in order (a terminating one among them is already going). */
  pods: KubeObject[];
  /** analyzePods' actualNeedToDelete (0: the batch is done, or maxUnavailable is used up). */
  needToDelete: number;
  updatedPods: number;
}

/**
 * analyzePods: pods of the batch revision count as updated (the not-ready ones as unavailable); the others
 * are candidates, sorted; terminating candidates count as unavailable and are not deleted again, not-ready
 * ones are deleted without using maxUnavailable, ready ones only while fewer than maxUnavailable pods are
 * unavailable.
 */
export function analyzeNativeDaemonSetPods(pods: readonly KubeObject[], batchRevision: string, desiredUpdated: number, maxUnavailable: number): PodsToDelete {
  let updatedPods = 0;
  let updatedNotReady = 0;
  const candidates: KubeObject[] = [];
  for (const pod of pods) {
    if (isConsistentWithRevision(pod.metadata.labels ?? {}, batchRevision)) {
      updatedPods++;
      if (!isReady(pod)) updatedNotReady++;
    } else candidates.push(pod);
  }
  if (updatedPods >= desiredUpdated) return { pods: [], needToDelete: 0, updatedPods };
  const need = desiredUpdated - updatedPods;
  const sorted = sortPodsForDeletion(candidates);
  // CalculateDeletionQuota
  let quota = 0;
  let unavailable = updatedNotReady;
  for (const pod of sorted) {
    if (quota >= need) break;
    if (pod.metadata.deletionTimestamp) {
      unavailable++;
      continue;
    }
    if (!isReady(pod)) {
      quota++;
      continue;
    }
    if (unavailable >= maxUnavailable) break;
    unavailable++;
    quota++;
  }
  // upstream slices the sorted list at the quota, so a terminating pod in it takes the place of a
  // deletable one (deleting it again does nothing)
  return { pods: sorted.slice(0, quota), needToDelete: quota, updatedPods };
}

/**
 * Reconcile: the pods to delete for the DaemonSet's advanced-control annotation; none without the
 * annotation or with a partition Sscanf cannot read. `pods`: the DaemonSet's pods, terminating ones
 * included, completed ones not (util.ListOwnedPods).
 */
export function nativeDaemonSetPodsToDelete(ds: KubeObject, pods: readonly KubeObject[]): PodsToDelete {
  const { partition, batchRevision } = daemonSetAdvancedControl(ds);
  const none: PodsToDelete = { pods: [], needToDelete: 0, updatedPods: 0 };
  if (partition === '') return none;
  const desired = desiredUpdatedReplicas(partition, pods.length);
  if (desired === undefined) return none;
  return analyzeNativeDaemonSetPods(pods, batchRevision, desired, nativeDaemonSetMaxUnavailable(ds));
}
