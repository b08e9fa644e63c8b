// Rollout progress evaluation (contract "rollout status"): one pure function decides,
// from a workload, its pods and the clock, whether a rollout is progressing, paused,
// complete (wholly or up to its partition) or failed. The command only watches and prints.
//
// - `evaluateRollout(workload, pods, now, opts)`: the decision, via the workload's adapter.
// - `evaluateRolloutWith(adapter, ...)`: the same with an explicit adapter.
// - `stuckPodSince(pod)`: when a pod's current failure most likely started (for the grace).
// - `FAILING_REASONS`, `failingContainer(pod)`: container waiting reasons that fail a rollout.
// - `stuckKey(pod, reason)`: key of a pod's failing state for the watcher's first-seen map.
// Per-kind differences come from the adapter (desired replicas, partition arithmetic,
// normalised status) and from the small `KIND_LABELS` table used in messages.
import type { KubeObject, Pod } from './types';
import type { WorkloadAdapter, WorkloadKindName, WorkloadStatus } from './workloads/types';
import { adapterFor } from './workloads/index';
import { POD_TEMPLATE_HASH_LABEL, REVISION_HASH_LABEL, revisionLabelMatches } from './rules/revisions';

export type RolloutState = 'Progressing' | 'Paused' | 'PartitionComplete' | 'Complete' | 'Failed' | 'TimedOut';

export interface RolloutProgress {
  kind: string;
  apiVersion: string;
  namespace: string;
  name: string;
  state: RolloutState;
  /** Desired pods (spec.replicas; DaemonSets: desiredNumberScheduled). */
  replicas: number;
  expectedUpdatedReplicas: number;
  updatedReplicas: number;
  updatedReadyReplicas: number;
  /** Pods kept at the old revision by the partition. */
  partition: number;
  updateRevision?: string;
  currentRevision?: string;
  /** Human line (kubectl-like wording). */
  message: string;
  /** Whether `expectedUpdatedReplicas` came from the status (false: computed client-side). */
  expectedFromStatus: boolean;
  /** For Failed because of a pod: which pod and why. */
  failedPod?: { name: string; reason: string; container: string };
  /**
   * Earliest time (ms since epoch) at which re-evaluating could change the outcome without any
   * new event (a stuck pod reaching the failure grace). The watcher sets one timer for it.
   */
  recheckAt?: number;
}

export interface EvaluateOptions {
  /** How long an updated pod may stay in a failing state before the rollout fails (ms). Default 60 s; 0 = at once. */
  failureGraceMs?: number;
  /**
   * When the watcher first saw each pod in its failing state (key `stuckKey(pod, reason)`), for pods
   * whose object carries no usable timestamp.
   */
  firstSeenStuck?: ReadonlyMap<string, number>;
}

/** Container waiting reasons that mean the updated pods will not come up by themselves. */
export const FAILING_REASONS: ReadonlySet<string> = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CrashLoopBackOff',
]);

/** Lower-case kind words used in messages (kubectl says "daemon set", "deployment"...). */
export const KIND_LABELS: Record<WorkloadKindName, string> = {
  CloneSet: 'cloneset',
  AdvancedStatefulSet: 'advanced statefulset',
  AdvancedDaemonSet: 'advanced daemonset',
  Deployment: 'deployment',
  StatefulSet: 'statefulset',
  DaemonSet: 'daemon set',
};

const DEFAULT_FAILURE_GRACE_MS = 60_000;

export function evaluateRollout(workload: KubeObject, pods: readonly Pod[], now: number, opts: EvaluateOptions = {}): RolloutProgress {
  const adapter = adapterFor(workload);
  if (!adapter) throw new Error(`no rollout rules for ${workload.apiVersion ?? '?'} ${workload.kind ?? '?'}`);
  return evaluateRolloutWith(adapter, workload, pods, now, opts);
}

export function evaluateRolloutWith(
  adapter: WorkloadAdapter,
  workload: KubeObject,
  pods: readonly Pod[],
  now: number,
  opts: EvaluateOptions = {},
): RolloutProgress {
  const label = `${KIND_LABELS[adapter.kindName]} "${workload.metadata.name ?? ''}"`;
  const status = adapter.status(workload);
  const desired = adapter.desiredReplicas(workload);
  const expectedFromStatus = status.expectedUpdatedReplicas !== undefined;
  // Kruise < v1.2 does not write expectedUpdatedReplicas (and ≥ v1.2 omits it when 0): compute it.
  const expected = clamp(status.expectedUpdatedReplicas ?? adapter.expectedUpdatedReplicas(workload), 0, desired);
  const kept = desired - expected;
  const updated = status.updatedReplicas;
  const updatedReady = updatedReadyReplicas(status);

  const base: RolloutProgress = {
    kind: workload.kind ?? adapter.kindName,
    apiVersion: workload.apiVersion ?? '',
    namespace: workload.metadata.namespace ?? '',
    name: workload.metadata.name ?? '',
    state: 'Progressing',
    replicas: desired,
    expectedUpdatedReplicas: expected,
    updatedReplicas: updated,
    updatedReadyReplicas: updatedReady,
    partition: kept,
    updateRevision: status.updateRevision,
    currentRevision: status.currentRevision,
    message: '',
    expectedFromStatus,
  };
  const result = (state: RolloutState, message: string, extra: Partial<RolloutProgress> = {}): RolloutProgress => ({
    ...base,
    ...extra,
    state,
    message,
  });

  // 1. The controller has not seen the latest spec yet: every other number is stale.
  const generation = workload.metadata.generation;
  if (generation !== undefined && (status.observedGeneration ?? 0) < generation) {
    return result('Progressing', `Waiting for ${label} spec update to be observed...`);
  }

  // 2. Done: wholly (every pod updated, surge gone, all available), or up to the partition.
  const surgeGone = status.replicas === desired;
  const allAvailable = status.availableReplicas >= desired;
  if (updated >= desired && updatedReady >= desired && surgeGone && allAvailable) {
    return result('Complete', `${label} successfully rolled out`);
  }
  if (kept > 0 && updated >= expected && updatedReady >= expected) {
    return result(
      'PartitionComplete',
      `${label} partition rollout complete: ${updated} of ${desired} pods updated (${kept} kept at the old revision by the partition)`,
    );
  }

  // 3. Failed: the controller gave up, or an updated pod is stuck beyond the grace.
  const deadline = status.conditions.find((c) => c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded');
  if (deadline) {
    return result('Failed', `${label} exceeded its progress deadline${deadline.message ? `: ${deadline.message}` : ''}`);
  }
  const grace = opts.failureGraceMs ?? DEFAULT_FAILURE_GRACE_MS;
  let recheckAt: number | undefined;
  for (const pod of updatedPods(adapter, workload, status, pods)) {
    const stuck = failingContainer(pod);
    if (!stuck) continue;
    const since = stuckSince(pod, stuck.reason, now, opts.firstSeenStuck);
    if (now - since >= grace) {
      const podName = pod.metadata.name ?? '';
      const detail = stuck.message ? `: ${stuck.message}` : '';
      return result('Failed', `${label} rollout failed: pod "${podName}" container "${stuck.container}" is in ${stuck.reason}${detail}`, {
        failedPod: { name: podName, reason: stuck.reason, container: stuck.container },
      });
    }
    recheckAt = Math.min(recheckAt ?? Infinity, since + grace);
  }
  const extra: Partial<RolloutProgress> = recheckAt === undefined ? {} : { recheckAt };

  // 4. Still going (or paused, which only a resume will change).
  const waiting = waitingDetail(status, desired, expected, kept, updated, updatedReady);
  if (adapter.paused(workload)) {
    return result('Paused', `${label} rollout is paused: ${updated} of ${desired} pods updated${kept > 0 ? ` (expected ${expected}, partition keeps ${kept})` : ''}`, extra);
  }
  // With OnDelete nothing happens until someone deletes the old pods: say so instead of waiting silently.
  const onDelete = adapter.updatePolicy(workload) === 'OnDelete' ? ' (OnDelete: old pods are updated only when deleted)' : '';
  return result('Progressing', `Waiting for ${label} rollout to finish: ${waiting}${onDelete}...`, extra);
}

/** Why a not-done rollout is still waiting, in kubectl's words, most fundamental reason first. */
function waitingDetail(status: WorkloadStatus, desired: number, expected: number, kept: number, updated: number, updatedReady: number): string {
  const partitionNote = kept > 0 ? ` (expected ${expected} of ${desired}, partition keeps ${kept})` : '';
  if (updated < expected) return `${updated} of ${expected} pods updated${partitionNote}`;
  if (updatedReady < expected) return `${updatedReady} of ${expected} updated pods are ready${partitionNote}`;
  if (status.replicas > desired) {
    const extra = status.replicas - desired;
    return `${extra} old ${extra === 1 ? 'pod is' : 'pods are'} pending termination`;
  }
  if (status.replicas < desired) return `${status.replicas} of ${desired} pods exist`;
  if (updatedReady < desired) return `${updatedReady} of ${desired} updated pods are ready`;
  return `${status.availableReplicas} of ${desired} pods are available`;
}

/**
 * Updated-and-ready pods. Kinds that do not report it get the sound lower bound
 * ready − (pods not updated), which is exact once all pods are ready or all are updated.
 */
function updatedReadyReplicas(status: WorkloadStatus): number {
  if (status.updatedReadyReplicas !== undefined) return status.updatedReadyReplicas;
  const notUpdated = Math.max(0, status.replicas - status.updatedReplicas);
  return clamp(status.readyReplicas - notUpdated, 0, status.updatedReplicas);
}

/**
 * Pods of the update revision. Kinds whose status names no update revision (Deployment, native
 * DaemonSet) fall back to pods running exactly the template's images.
 */
function updatedPods(adapter: WorkloadAdapter, workload: KubeObject, status: WorkloadStatus, pods: readonly Pod[]): Pod[] {
  const live = pods.filter((p) => !p.metadata.deletionTimestamp);
  const revision = status.updateRevision;
  if (revision) {
    return live.filter((p) => {
      const labels = p.metadata.labels ?? {};
      const value = labels[REVISION_HASH_LABEL] ?? labels[POD_TEMPLATE_HASH_LABEL];
      return value !== undefined && revisionLabelMatches(value, revision);
    });
  }
  const template = adapter.template(workload) as { spec?: { containers?: Array<{ name: string; image?: string }> } } | undefined;
  const images = new Map((template?.spec?.containers ?? []).map((c) => [c.name, c.image]));
  if (images.size === 0) return [];
  return live.filter((p) => (p.spec?.containers ?? []).every((c) => images.get(c.name) === c.image));
}

/** The first container of the pod waiting for a failing reason, if any. */
export function failingContainer(pod: Pod): { container: string; reason: string; message?: string } | undefined {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  for (const cs of statuses) {
    const reason = cs.state?.waiting?.reason;
    if (reason && FAILING_REASONS.has(reason)) return { container: cs.name, reason, message: cs.state?.waiting?.message };
  }
  return undefined;
}

/** Key of a pod's failing state for `EvaluateOptions.firstSeenStuck`. */
export function stuckKey(pod: Pod, reason: string): string {
  return `${pod.metadata.uid ?? pod.metadata.name ?? ''}/${reason === 'ImagePullBackOff' ? 'ErrImagePull' : reason}`;
}

/**
 * When the pod's trouble most likely started: the time it last became not ready (covers
 * in-place updates of old pods), else when it started or was created. ImagePullBackOff and
 * ErrImagePull alternate, so they count as one state.
 */
export function stuckPodSince(pod: Pod): number | undefined {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status !== 'True');
  const stamp = ready?.lastTransitionTime ?? pod.status?.startTime ?? pod.metadata.creationTimestamp;
  if (!stamp) return undefined;
  const t = Date.parse(stamp);
  return Number.isNaN(t) ? undefined : t;
}

function stuckSince(pod: Pod, reason: string, now: number, firstSeen?: ReadonlyMap<string, number>): number {
  const fromPod = stuckPodSince(pod);
  const seen = firstSeen?.get(stuckKey(pod, reason));
  const candidates = [fromPod, seen].filter((t): t is number => t !== undefined && t <= now);
  return candidates.length ? Math.min(...candidates) : now;
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, n));
}
