// Rollout progress evaluation (contract "rollout status"): one pure function decides,
// from a workload, its pods and the clock, whether a rollout is progressing, paused,
// complete (wholly or up to its partition) or failed. The command only watches and prints.
//
// - `evaluateRollout(workload, pods, now, opts)`: the decision, via the workload's adapter.
// - `evaluateRolloutWith(adapter, ...)`: the same with an explicit adapter.
// - `stuckPodSince(pod)`: when a pod's current failure most likely started (for the grace).
// - `FAILING_REASONS`, `failingContainer(pod)`: container waiting reasons that fail a rollout.
// - `stuckKey(pod, reason)`: key of a pod's failing state for the watcher's first-seen map.
// - `stuckPods(pods, now, opts)`: which failing pod ends the grace (fails the verdict) or ends it first.
// Per-kind differences come from the adapter (desired replicas, partition arithmetic,
// normalised status) and from the small `KIND_LABELS` table used in messages.
import type { KubeObject, Pod } from './types';
import type { SubsetProgress, WorkloadAdapter, WorkloadKindName, WorkloadStatus } from './workloads/types';
import { adapterFor } from './workloads/index';
import { POD_TEMPLATE_HASH_LABEL, REVISION_HASH_LABEL, revisionLabelMatches } from './rules/revisions';
import { numAt } from './workloads/access';
import { isReady, podAvailableAt, templateImageMismatch, type ImageMismatch } from './rollout-pods';

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
  /** Updated pods available (ready for minReadySeconds): from the status, or its sound lower bound, or the pods. */
  updatedAvailableReplicas: number;
  /** Pods kept at the old revision by the partition. */
  partition: number;
  updateRevision?: string;
  currentRevision?: string;
  /** Human line (kubectl-like wording). */
  message: string;
  /** Why a rollout that is not done waits, without the "Waiting for ... to finish" frame (for the timeout error). */
  detail?: string;
  /** Whether `expectedUpdatedReplicas` came from the status (false: computed client-side). */
  expectedFromStatus: boolean;
  /** Kinds made of subsets (UnitedDeployment): each subset's progress. */
  subsets?: SubsetProgress[];
  /** For Failed because of a pod: which pod and why. */
  failedPod?: { name: string; reason: string; container: string };
  /** An updated pod in a failing state whose grace runs down: the rollout fails at `failAt` (ms) unless it recovers. */
  failing?: { name: string; reason: string; container: string; failAt: number };
  /**
   * Earliest time (ms since epoch) at which re-evaluating could change the outcome without any
   * new event (a stuck pod reaching the failure grace, a pod reaching minReadySeconds).
   */
  recheckAt?: number;
  /** Job kinds (BroadcastJob): their own counts, printed instead of the rollout ones. */
  job?: JobProgress;
  /** The verdict would name more with the pods listed (a failed job's failed pod): a watcher lists them first. */
  needsPods?: boolean;
}

/** The numbers of a job kind's verdict (JSON Lines: desired, active, succeeded, failed, phase). */
export interface JobProgress {
  desired: number;
  active: number;
  succeeded: number;
  failed: number;
  phase: string;
}

export interface EvaluateOptions {
  /** How long an updated pod may stay in a failing state before the rollout fails (ms). Default 60 s; 0 = at once. */
  failureGraceMs?: number;
  /**
   * When the watcher first saw each pod in its failing state (key `stuckKey(pod, reason)`), on our
   * own clock, for pods whose object carries no usable timestamp and against early server stamps.
   */
  firstSeenStuck?: ReadonlyMap<string, number>;
  /**
   * `pods` is the workload's whole pod list, listed after the workload object was read: a verdict
   * must then agree with it (pods labelled updated really run the template, enough are ready).
   * Without it, `pods` may hold only the pods in a failing state.
   */
  podsListed?: boolean;
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
  UnitedDeployment: 'uniteddeployment',
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
  const whole = evaluateWhole(adapter, workload, pods, now, opts);
  if (!adapter.subsets) return whole;
  // A kind made of subsets is done only when every subset is, given its own partition: the sums
  // can hide one subset ahead and another behind.
  const subsets = adapter.subsets(workload, opts.podsListed ? pods : undefined);
  const p: RolloutProgress = { ...whole, subsets };
  if (p.state !== 'Complete' && p.state !== 'PartitionComplete') return p;
  const label = `${KIND_LABELS[adapter.kindName]} "${workload.metadata.name ?? ''}"`;
  if (!opts.podsListed) {
    const detail = "the subsets' pods are not listed yet";
    return { ...p, state: 'Progressing', detail, message: `Waiting for ${label} rollout to finish: ${detail}...` };
  }
  const behind = subsets.find((s) => !s.done);
  if (!behind) return p;
  const detail = `subset "${behind.name}" has ${behind.updatedReadyReplicas ?? 0} of ${behind.expectedUpdatedReplicas} updated pods ready`;
  return { ...p, state: 'Progressing', detail, message: `Waiting for ${label} rollout to finish: ${detail}...` };
}

function evaluateWhole(adapter: WorkloadAdapter, workload: KubeObject, pods: readonly Pod[], now: number, opts: EvaluateOptions): RolloutProgress {
  const label = `${KIND_LABELS[adapter.kindName]} "${workload.metadata.name ?? ''}"`;
  const status = adapter.status(workload);
  const desired = adapter.desiredReplicas(workload);
  const expectedFromStatus = status.expectedUpdatedReplicas !== undefined;
  // Kruise < v1.2 does not write expectedUpdatedReplicas (and ≥ v1.2 omits it when 0): compute it.
  const specExpected = clamp(status.expectedUpdatedReplicas ?? adapter.expectedUpdatedReplicas(workload), 0, desired);
  const updated = status.updatedReplicas;
  // Once the current revision IS the update revision (a new object, everything updated, or
  // `rollout undo` back to it) the spec's partition no longer says what is kept:
  // - CloneSet counts every pod not at the update revision against the partition (cloneset_update.go
  //   calculateDiffsWithExpectation), so it keeps at most the pods that are not updated: none while a
  //   new CloneSet creates its pods at the update revision, the pods of the undone revision after undo;
  //   a UnitedDeployment of CloneSets the same, per subset (the subsets' own check is exact);
  // - (Advanced) StatefulSets keep ordinals already at that revision and update every other pod.
  const sameRevision = status.updateRevision !== undefined && status.currentRevision !== undefined && revisionLabelMatches(status.currentRevision, status.updateRevision);
  const specKept = desired - specExpected;
  const kept = !sameRevision ? specKept : adapter.partitionCountsOldPods?.(workload) ? clamp(status.replicas - updated, 0, specKept) : 0;
  const expected = desired - kept;
  const updatedReady = updatedReadyReplicas(status);
  const minReadySeconds = Math.max(0, numAt(workload, 'spec', 'minReadySeconds') ?? 0);
  const statusAvailable = updatedAvailableFromStatus(status, updatedReady, minReadySeconds);

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
    updatedAvailableReplicas: statusAvailable.value,
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
  const waitingFor = (detail: string, extra: Partial<RolloutProgress> = {}): RolloutProgress =>
    result('Progressing', `Waiting for ${label} rollout to finish: ${detail}...`, { ...extra, detail });

  // 1. The controller has not seen the latest spec yet: every other number is stale.
  const generation = workload.metadata.generation;
  if (generation !== undefined && (status.observedGeneration ?? 0) < generation) {
    return result('Progressing', `Waiting for ${label} spec update to be observed...`, { detail: 'spec update not observed yet' });
  }
  // Numbers that contradict each other come from a status written halfway: decide nothing on them.
  const contradiction = contradictoryCounts(status, adapter.kindName);
  if (contradiction) return waitingFor(`status counts disagree (${contradiction})`);

  // What the pods say, when they were listed: updated means labelled with the update revision AND
  // running the workload's template (the update revision's template once the generation is observed).
  const podView = opts.podsListed ? verifyPods(adapter, workload, status, pods, now, minReadySeconds) : undefined;
  // The status field when the cluster writes it; else the pods; else the status' sound lower bound.
  let updatedAvailable = statusAvailable.value;
  if (!statusAvailable.exact && podView) updatedAvailable = Math.max(updatedAvailable, podView.available);
  base.updatedAvailableReplicas = updatedAvailable;
  let recheckAt = !statusAvailable.exact && podView ? podView.nextAvailableAt : undefined;

  // 2. Done: wholly (every pod updated, surge gone, all available), or up to the partition.
  const surgeGone = status.replicas === desired;
  const allAvailable = status.availableReplicas >= desired;
  // Kruise's CloneSetAvailable also wants currentRevision == updateRevision (its status moves
  // currentRevision in the same pass that counts every pod updated, so they never disagree there).
  const revisionsSettled = adapter.kindName !== 'CloneSet' || status.currentRevision === undefined || sameRevision;
  const statusComplete = updated >= desired && updatedReady >= desired && updatedAvailable >= desired && surgeGone && allAvailable && revisionsSettled;
  // Kruise's CloneSetPartitionAvailable: expected < replicas && expected <= updatedAvailableReplicas,
  // and the old pods the partition keeps must really be there (no updated pods beyond it).
  const oldPods = status.replicas - updated;
  const statusPartitionDone = kept > 0 && updated >= expected && updatedReady >= expected && updatedAvailable >= expected && oldPods >= kept && updated <= expected;
  if (statusComplete || statusPartitionDone) {
    const need = statusComplete ? desired : expected;
    const disagreement = podView && podsDisagree(podView, need);
    if (!disagreement) {
      if (statusComplete) return result('Complete', `${label} successfully rolled out`);
      return result(
        'PartitionComplete',
        `${label} partition rollout complete: ${updated} of ${desired} pods updated (${kept} kept at the old revision by the partition)`,
      );
    }
  }

  // 3. Failed: the controller gave up, or an updated pod is stuck beyond the grace.
  const deadline = status.conditions.find((c) => c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded');
  if (deadline) {
    return result('Failed', `${label} exceeded its progress deadline${deadline.message ? `: ${deadline.message}` : ''}`);
  }
  const { stuck, failing } = stuckPods(updatedPods(adapter, workload, status, pods), now, opts);
  if (stuck) return result('Failed', `${label} rollout failed: ${stuckPodText(stuck)}`, { failedPod: { name: stuck.name, reason: stuck.reason, container: stuck.container } });
  if (failing) recheckAt = Math.min(recheckAt ?? Infinity, failing.failAt);
  const extra: Partial<RolloutProgress> = { ...(recheckAt === undefined ? {} : { recheckAt }), ...(failing ? { failing } : {}) };

  // 4. Still going (or paused, which only a resume will change).
  const detail =
    waitingDetail(status, desired, expected, kept, updated, updatedReady, updatedAvailable, adapter.kindName === 'CloneSet' && !sameRevision) ??
    (podView ? podsDisagree(podView, statusComplete || kept === 0 ? desired : expected) : undefined) ??
    `${updatedAvailable} of ${desired} updated pods are available`;
  if (adapter.paused(workload)) {
    return result('Paused', `${label} rollout is paused: ${updated} of ${desired} pods updated${kept > 0 ? ` (expected ${expected}, partition keeps ${kept})` : ''}`, {
      ...extra,
      detail: `paused, ${detail}`,
    });
  }
  // With OnDelete nothing happens until someone deletes the old pods: say so instead of waiting silently.
  const onDelete = adapter.updatePolicy(workload) === 'OnDelete' ? ' (OnDelete: old pods are updated only when deleted)' : '';
  return waitingFor(`${detail}${onDelete}`, extra);
}

/**
 * Why a not-done rollout is still waiting, in kubectl's words, most fundamental reason first;
 * undefined when the status numbers themselves are all met.
 */
function waitingDetail(
  status: WorkloadStatus,
  desired: number,
  expected: number,
  kept: number,
  updated: number,
  updatedReady: number,
  updatedAvailable: number,
  rollsBack: boolean,
): string | undefined {
  const partitionNote = kept > 0 ? ` (expected ${expected} of ${desired}, partition keeps ${kept})` : '';
  if (updated < expected) return `${updated} of ${expected} pods updated${partitionNote}`;
  if (updatedReady < expected) return `${updatedReady} of ${expected} updated pods are ready${partitionNote}`;
  if (updatedAvailable < expected) return `${updatedAvailable} of ${expected} updated pods are available${partitionNote}`;
  if (kept > 0 && updated > expected) {
    const beyond = updated - expected;
    return rollsBack
      ? `${beyond} updated ${plural(beyond, 'pod')} beyond the partition to be rolled back (partition keeps ${kept} of ${desired})`
      : `${updated} of ${desired} pods updated, more than the partition allows (partition keeps ${kept})`;
  }
  if (status.replicas > desired) {
    const extra = status.replicas - desired;
    return `${extra} old ${extra === 1 ? 'pod is' : 'pods are'} pending termination`;
  }
  if (status.replicas < desired) return `${status.replicas} of ${desired} pods exist`;
  if (kept > 0 && status.replicas - updated < kept) return `${status.replicas - updated} old ${plural(status.replicas - updated, 'pod')} left where the partition keeps ${kept}`;
  if (kept > 0) return undefined;
  if (updatedReady < desired) return `${updatedReady} of ${desired} updated pods are ready`;
  if (updatedAvailable < desired) return `${updatedAvailable} of ${desired} updated pods are available`;
  if (status.availableReplicas < desired) return `${status.availableReplicas} of ${desired} pods are available`;
  return undefined;
}

/** Counts that cannot all be true at once (a status written halfway, or not by a real controller). */
function contradictoryCounts(status: WorkloadStatus, kind: WorkloadKindName): string | undefined {
  const daemon = kind === 'DaemonSet' || kind === 'AdvancedDaemonSet';
  const pods = daemon ? 'scheduled' : 'replicas';
  if (status.updatedReplicas > status.replicas) return `${status.updatedReplicas} updated but ${status.replicas} ${pods}`;
  if (status.readyReplicas > status.replicas) return `${status.readyReplicas} ready but ${status.replicas} ${pods}`;
  if (status.updatedReadyReplicas !== undefined && status.updatedReadyReplicas > status.updatedReplicas) {
    return `${status.updatedReadyReplicas} updated ready but ${status.updatedReplicas} updated`;
  }
  if (status.updatedAvailableReplicas !== undefined && status.updatedReadyReplicas !== undefined && status.updatedAvailableReplicas > status.updatedReadyReplicas) {
    return `${status.updatedAvailableReplicas} updated available but ${status.updatedReadyReplicas} updated ready`;
  }
  return undefined;
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
 * Updated-and-available pods: the status field where the kind has it (CloneSet, Advanced
 * StatefulSet: updatedAvailableReplicas); with minReadySeconds 0 available is ready; else the
 * sound lower bound available − (pods not updated) (exact once every pod is updated), which the
 * pods may raise (Kruise before updatedAvailableReplicas, DaemonSets, Deployments).
 */
function updatedAvailableFromStatus(status: WorkloadStatus, updatedReady: number, minReadySeconds: number): { value: number; exact: boolean } {
  if (status.updatedAvailableReplicas !== undefined) return { value: status.updatedAvailableReplicas, exact: true };
  if (minReadySeconds === 0) return { value: updatedReady, exact: true };
  const notUpdated = Math.max(0, status.replicas - status.updatedReplicas);
  return { value: clamp(status.availableReplicas - notUpdated, 0, updatedReady), exact: false };
}

interface PodView {
  /** Pods labelled with the update revision and running the template, ready. */
  ready: number;
  /** ... and available at `now`. */
  available: number;
  nextAvailableAt?: number;
  /** A pod labelled updated that does not run the template (the first one). */
  mismatch?: { pod: string } & ImageMismatch;
}

function verifyPods(adapter: WorkloadAdapter, workload: KubeObject, status: WorkloadStatus, pods: readonly Pod[], now: number, minReadySeconds: number): PodView {
  const view: PodView = { ready: 0, available: 0 };
  const template = adapter.template(workload) as Parameters<typeof templateImageMismatch>[1];
  for (const pod of updatedPods(adapter, workload, status, pods)) {
    const mismatch = templateImageMismatch(pod, template);
    if (mismatch) {
      view.mismatch ??= { pod: pod.metadata.name ?? '', ...mismatch };
      continue;
    }
    if (!isReady(pod)) continue;
    view.ready++;
    const at = podAvailableAt(pod, minReadySeconds);
    if (at !== undefined && at <= now) view.available++;
    else if (at !== undefined) view.nextAvailableAt = Math.min(view.nextAvailableAt ?? Infinity, at);
  }
  return view;
}

/** Why the listed pods do not (yet) bear out `need` updated ready pods, or undefined when they do. */
function podsDisagree(view: PodView, need: number): string | undefined {
  if (view.ready >= need) return undefined;
  if (view.mismatch) {
    const m = view.mismatch;
    return `pod "${m.pod}" has the update revision's label but container "${m.container}" runs "${m.got}", not "${m.want}"`;
  }
  return `${view.ready} of ${need} updated pods seen ready so far`;
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

/**
 * Pods of the update revision. Kinds whose status names no update revision (Deployment, native
 * DaemonSet) fall back to pods running exactly the template's images.
 */
function updatedPods(adapter: WorkloadAdapter, workload: KubeObject, status: WorkloadStatus, pods: readonly Pod[]): Pod[] {
  const isUpdated = updatedPodTest(adapter, workload);
  return pods.filter((p) => !p.metadata.deletionTimestamp && isUpdated(p));
}

/**
 * The test "this pod is at the update revision" for a workload, and the identity of that test
 * (`key`: changes when another revision is rolled out). Only such pods can change a verdict, so
 * a watcher keeps only them (and starts over when the key changes).
 */
export function updatedPodTest(adapter: WorkloadAdapter, workload: KubeObject): ((pod: Pod) => boolean) & { key: string } {
  const revision = adapter.status(workload).updateRevision;
  if (revision) {
    const test = (p: Pod): boolean => {
      const labels = p.metadata.labels ?? {};
      // the kind's own label first: UnitedDeployment pods also carry their subset workload's controller-revision-hash
      const value = labels[adapter.revisionLabelKey] ?? labels[REVISION_HASH_LABEL] ?? labels[POD_TEMPLATE_HASH_LABEL];
      return value !== undefined && revisionLabelMatches(value, revision);
    };
    return Object.assign(test, { key: `revision:${revision}` });
  }
  const template = adapter.template(workload) as { spec?: { containers?: Array<{ name: string; image?: string }> } } | undefined;
  const images = new Map((template?.spec?.containers ?? []).map((c) => [c.name, c.image]));
  const test = (p: Pod): boolean => images.size > 0 && (p.spec?.containers ?? []).every((c) => images.get(c.name) === c.image);
  return Object.assign(test, { key: `images:${[...images].map(([n, i]) => `${n}=${i ?? ''}`).join(',')}` });
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

/** A pod in a failing state: the container and its waiting reason and message. */
export interface StuckPod {
  name: string;
  container: string;
  reason: string;
  message?: string;
}

/**
 * The pods in a failing state against the grace (`opts.failureGraceMs`): the first one stuck beyond
 * it (`stuck`: the verdict fails on it), else the one whose grace runs out first (`failing`).
 */
export function stuckPods(pods: Iterable<Pod>, now: number, opts: EvaluateOptions): { stuck?: StuckPod; failing?: RolloutProgress['failing'] } {
  const grace = opts.failureGraceMs ?? DEFAULT_FAILURE_GRACE_MS;
  let failing: RolloutProgress['failing'];
  for (const pod of pods) {
    const trouble = failingContainer(pod);
    if (!trouble) continue;
    const since = stuckSince(pod, trouble.reason, now, opts.firstSeenStuck);
    const name = pod.metadata.name ?? '';
    if (now - since >= grace) return { stuck: { name, ...trouble } };
    if (!failing || since + grace < failing.failAt) failing = { name, reason: trouble.reason, container: trouble.container, failAt: since + grace };
  }
  return { failing };
}

/** `pod "web-1" container "app" is in ImagePullBackOff: Back-off pulling image` */
export function stuckPodText(s: StuckPod): string {
  return `pod "${s.name}" container "${s.container}" is in ${s.reason}${s.message ? `: ${s.message}` : ''}`;
}

function stuckSince(pod: Pod, reason: string, now: number, firstSeen?: ReadonlyMap<string, number>): number {
  const stamp = stuckPodSince(pod);
  // Server stamps have whole seconds: the trouble may have started up to 1 s after the stamp,
  // so count from the end of that second (a 5 s grace must never fire after 4.03 s).
  const fromPod = stamp === undefined ? undefined : stamp % 1000 === 0 ? stamp + 1000 : stamp;
  const seen = firstSeen?.get(stuckKey(pod, reason));
  const candidates = [fromPod, seen].filter((t): t is number => t !== undefined && t <= now);
  return candidates.length ? Math.min(...candidates) : now;
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, n));
}
