// ContainerRecreateRequest rules (kruise-semantics §4) as pure functions, shared by the
// sandbox's webhook/controller and the CLI's client-side checks: validation of a request
// (alone and against its pod), phase transitions and per-container progress, deadlines, TTL.
import type { KubeObject, Pod } from '../types';

export const CRR_POD_UID_LABEL = 'crr.apps.kruise.io/pod-uid';
export const CRR_NODE_NAME_LABEL = 'crr.apps.kruise.io/node-name';
export const CRR_ACTIVE_LABEL = 'crr.apps.kruise.io/active';
export const CRR_MIN_ACTIVE_DEADLINE_SECONDS = 3;

export type CrrPhase = 'Pending' | 'Recreating' | 'Completed';
export type ContainerRecreatePhase = 'Pending' | 'Recreating' | 'Succeeded' | 'Failed';

export interface CrrContainer {
  name: string;
  preStop?: unknown;
  ports?: unknown[];
  statusContext?: { containerID?: string; restartCount?: number };
}

export interface CrrSpec {
  podName?: string;
  containers?: CrrContainer[];
  strategy?: {
    failurePolicy?: 'Fail' | 'Ignore' | string;
    orderedRecreate?: boolean;
    forceRecreate?: boolean;
    terminationGracePeriodSeconds?: number;
    unreadyGracePeriodSeconds?: number;
    minStartedSeconds?: number;
  };
  activeDeadlineSeconds?: number;
  ttlSecondsAfterFinished?: number;
}

export interface ContainerRecreateState {
  name: string;
  phase: ContainerRecreatePhase;
  message?: string;
  isKilled?: boolean;
}

export interface CrrCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CrrStatus {
  phase?: CrrPhase;
  completionTime?: string;
  message?: string;
  containerRecreateStates?: ContainerRecreateState[];
  /** v1beta1 (Kruise master) only: what v1alpha1 keeps in the sync-container-statuses annotation. */
  containerStatusSnapshot?: CrrSyncContainerStatus[];
  /** v1beta1 only: PreRecreateGrace, what v1alpha1 keeps in the unready-acquired annotation. */
  conditions?: CrrCondition[];
}

export interface FieldProblem {
  field: string;
  message: string;
}

/** Rules that need nothing but the request itself. */
export function validateCrrSpec(spec: CrrSpec | undefined): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!spec?.podName) problems.push({ field: 'spec.podName', message: 'Required value: podName is required' });
  const containers = spec?.containers ?? [];
  if (containers.length === 0) problems.push({ field: 'spec.containers', message: 'Required value: at least one container is required' });
  const seen = new Set<string>();
  containers.forEach((c, i) => {
    if (!c?.name) problems.push({ field: `spec.containers[${i}].name`, message: 'Required value: container name is required' });
    else if (seen.has(c.name)) problems.push({ field: `spec.containers[${i}].name`, message: `Duplicate value: "${c.name}"` });
    else seen.add(c.name);
  });
  const s = spec?.strategy;
  if (s?.failurePolicy !== undefined && s.failurePolicy !== 'Fail' && s.failurePolicy !== 'Ignore') {
    problems.push({ field: 'spec.strategy.failurePolicy', message: `Unsupported value: "${s.failurePolicy}": supported values: "Fail", "Ignore"` });
  }
  for (const k of ['terminationGracePeriodSeconds', 'unreadyGracePeriodSeconds', 'minStartedSeconds'] as const) {
    const v = s?.[k];
    if (v !== undefined && (!Number.isInteger(v) || v < 0)) problems.push({ field: `spec.strategy.${k}`, message: `Invalid value: ${v}: must be a non-negative integer` });
  }
  if (spec?.activeDeadlineSeconds !== undefined && (!Number.isInteger(spec.activeDeadlineSeconds) || spec.activeDeadlineSeconds < CRR_MIN_ACTIVE_DEADLINE_SECONDS)) {
    problems.push({ field: 'spec.activeDeadlineSeconds', message: `Invalid value: ${spec.activeDeadlineSeconds}: must be greater than or equal to ${CRR_MIN_ACTIVE_DEADLINE_SECONDS}` });
  }
  if (spec?.ttlSecondsAfterFinished !== undefined && (!Number.isInteger(spec.ttlSecondsAfterFinished) || spec.ttlSecondsAfterFinished < 0)) {
    problems.push({ field: 'spec.ttlSecondsAfterFinished', message: `Invalid value: ${spec.ttlSecondsAfterFinished}: must be a non-negative integer` });
  }
  return problems;
}

/**
 * Why a CRR cannot recreate container `name` of the pod: it is neither a container nor an init
 * container of the pod, or it has no containerID in the pod status yet (never started).
 */
export function crrContainerProblem(pod: Pod, name: string): 'not-found' | 'not-started' | undefined {
  if (![...(pod.spec.containers ?? []), ...(pod.spec.initContainers ?? [])].some((c) => c.name === name)) return 'not-found';
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  return statuses.find((s) => s.name === name)?.containerID ? undefined : 'not-started';
}

/** Rules against the target pod: active, scheduled, every container present with a containerID. */
export function validateCrrAgainstPod(spec: CrrSpec, pod: Pod | undefined): FieldProblem[] {
  if (!pod) return [{ field: 'spec.podName', message: `Not found: "${spec.podName ?? ''}"` }];
  const problems: FieldProblem[] = [];
  const phase = pod.status?.phase;
  if (pod.metadata.deletionTimestamp || phase === 'Succeeded' || phase === 'Failed') {
    problems.push({ field: 'spec.podName', message: `Invalid value: "${pod.metadata.name}": pod is not active` });
  }
  if (!pod.spec.nodeName) problems.push({ field: 'spec.podName', message: `Invalid value: "${pod.metadata.name}": pod has not been scheduled` });
  (spec.containers ?? []).forEach((c, i) => {
    const problem = crrContainerProblem(pod, c.name);
    if (problem === 'not-found') {
      problems.push({ field: `spec.containers[${i}].name`, message: `Invalid value: "${c.name}": container not found in pod ${pod.metadata.name}` });
    } else if (problem === 'not-started') {
      problems.push({ field: `spec.containers[${i}].name`, message: `Invalid value: "${c.name}": container has no containerID in pod status, it has not started yet` });
    }
  });
  return problems;
}

export function isCrrCompleted(crr: KubeObject): boolean {
  return (crr.status as CrrStatus | undefined)?.phase === 'Completed';
}

// ---------------------------------------------------------------- controller + daemon (Kruise v1.9.0)

/** Annotation the controller keeps the running containers' statuses in, for the daemon to judge Ready. */
export const CRR_SYNC_CONTAINER_STATUSES_KEY = 'crr.apps.kruise.io/sync-container-statuses';
/** Annotation (RFC 3339 time) and finalizer: the pod was made not-ready for unreadyGracePeriodSeconds. */
export const CRR_UNREADY_ACQUIRED_KEY = 'crr.apps.kruise.io/unready-acquired';
/** The readiness gate Kruise flips to hold a pod not-ready (apis/apps/pub KruisePodReadyConditionType). */
export const KRUISE_POD_READY_CONDITION = 'KruisePodReady';
/** User agent of CRR entries in the KruisePodReady condition message (getReadinessMessage). */
export const CRR_READINESS_USER_AGENT = 'ContainerRecreateRequest';

export interface CrrSyncContainerStatus {
  name: string;
  ready: boolean;
  restartCount: number;
  containerID?: string;
}

function podContainerStatus(pod: Pod, name: string) {
  return pod.status?.containerStatuses?.find((s) => s.name === name) ?? pod.status?.initContainerStatuses?.find((s) => s.name === name);
}

/**
 * What the controller copies from the pod into CRR_SYNC_CONTAINER_STATUSES_KEY
 * (crr_controller.go syncContainerStatuses): the requested containers that are running and
 * were started no earlier than the CRR was created (history is ignored). Times are kube's
 * whole seconds, so "before" compares seconds.
 */
export function crrSyncContainerStatuses(spec: CrrSpec, pod: Pod, crrCreatedMs: number): CrrSyncContainerStatus[] {
  const out: CrrSyncContainerStatus[] = [];
  for (const c of spec.containers ?? []) {
    const cs = podContainerStatus(pod, c.name);
    const startedAt = Date.parse(cs?.state?.running?.startedAt ?? '');
    if (!cs || !cs.state?.running || (!Number.isNaN(startedAt) && startedAt < crrCreatedMs)) continue;
    const entry: CrrSyncContainerStatus = { name: cs.name, ready: cs.ready, restartCount: cs.restartCount };
    if (cs.containerID) entry.containerID = cs.containerID;
    out.push(entry);
  }
  return out;
}

/** v1beta1 condition type that records when the pod was made not-ready (ContainerRecreateRequestPreRecreateGraceType). */
export const CRR_PRE_RECREATE_GRACE_CONDITION = 'PreRecreateGrace';

/**
 * Whether the request keeps its progress in status (v1beta1, as Kruise master's controller and daemon
 * read and write it) rather than in annotations (v1alpha1, Kruise up to v1.9). The version-neutral
 * readers below pick the place; the two forms convert into each other (src/kruise/conversions/crr.ts).
 */
export function crrStateInStatus(crr: KubeObject): boolean {
  return (crr.apiVersion ?? '').endsWith('/v1beta1');
}

/**
 * The container statuses the controller last synced into the request (crr_daemon_util.go
 * getCRRSyncContainerStatuses): status.containerStatusSnapshot in v1beta1, the sync-container-statuses
 * annotation in v1alpha1.
 */
export function crrSyncedContainerStatuses(crr: KubeObject): Map<string, CrrSyncContainerStatus> {
  if (!crrStateInStatus(crr)) return parseCrrSyncContainerStatuses(crr.metadata.annotations?.[CRR_SYNC_CONTAINER_STATUSES_KEY]);
  const out = new Map<string, CrrSyncContainerStatus>();
  for (const s of (crr.status as CrrStatus | undefined)?.containerStatusSnapshot ?? []) if (s && typeof s.name === 'string') out.set(s.name, s);
  return out;
}

/**
 * When the controller made the pod not-ready for unreadyGracePeriodSeconds: the PreRecreateGrace
 * condition's lastTransitionTime in v1beta1 (crr_daemon_controller.go getPreRecreateGraceTime), the
 * unready-acquired annotation in v1alpha1. `raw` is the text as stored (for an unreadable one); none yet: undefined.
 */
export function crrUnreadyAcquired(crr: KubeObject): { raw: string } | undefined {
  if (!crrStateInStatus(crr)) {
    const raw = crr.metadata.annotations?.[CRR_UNREADY_ACQUIRED_KEY];
    return raw ? { raw } : undefined;
  }
  const grace = (crr.status as CrrStatus | undefined)?.conditions?.find((c) => c.type === CRR_PRE_RECREATE_GRACE_CONDITION && c.status === 'True');
  return grace ? { raw: grace.lastTransitionTime ?? '' } : undefined;
}

/** The PreRecreateGrace condition Kruise master's controller sets once (meta.SetStatusCondition keeps its first time). */
export function preRecreateGraceCondition(now: string): CrrCondition {
  return { type: CRR_PRE_RECREATE_GRACE_CONDITION, status: 'True', lastTransitionTime: now, reason: CRR_PRE_RECREATE_GRACE_CONDITION, message: 'Pod has been forced to not-ready for unreadyGracePeriodSeconds drain' };
}

export function parseCrrSyncContainerStatuses(raw: string | undefined): Map<string, CrrSyncContainerStatus> {
  const out = new Map<string, CrrSyncContainerStatus>();
  if (!raw) return out;
  try {
    const list = JSON.parse(raw) as unknown;
    if (Array.isArray(list)) for (const s of list as CrrSyncContainerStatus[]) if (s && typeof s.name === 'string') out.set(s.name, s);
  } catch {
    // Kruise logs and treats an unreadable annotation as absent.
  }
  return out;
}

/** A container as the node's runtime sees it (what the daemon reads through CRI). */
export interface RuntimeContainer {
  name: string;
  containerID: string;
  restartCount: number;
  /** false: the latest instance has exited (crashed, or killed and not yet started again). */
  running: boolean;
  startedAtMs?: number;
}

/**
 * The runtime's view of a pod's containers, read from pod status: a container with no
 * containerID has no instance on the node; one waiting (CrashLoopBackOff) or terminated has
 * an exited instance.
 */
export function runtimeContainersOf(pod: Pod): RuntimeContainer[] {
  return [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])]
    .filter((s) => s.containerID)
    .map((s) => {
      const started = Date.parse(s.state?.running?.startedAt ?? '');
      const rc: RuntimeContainer = { name: s.name, containerID: s.containerID ?? '', restartCount: s.restartCount, running: Boolean(s.state?.running) };
      if (!Number.isNaN(started)) rc.startedAtMs = started;
      return rc;
    });
}

function recreateState(name: string, phase: ContainerRecreatePhase, isKilled: boolean, message?: string): ContainerRecreateState {
  // Go's omitempty: no isKilled when false, no message when empty.
  const s: ContainerRecreateState = { name, phase };
  if (message) s.message = message;
  if (isKilled) s.isKilled = true;
  return s;
}

/**
 * Each container's phase now (crr_daemon_util.go getCurrentCRRContainersRecreateStates):
 * finished states stay; no instance on the node → Pending "not found container on Node"; an
 * exited instance → Recreating (it will be restarted); forceRecreate before the kill →
 * Pending; a new containerID or a higher restartCount than at creation → Recreating, and
 * Succeeded once the controller saw that same instance Ready and it has run longer than
 * minStartedSeconds; otherwise Pending. A crashing container therefore never succeeds: it
 * stays Recreating until activeDeadlineSeconds.
 */
export function currentContainerRecreateStates(
  spec: CrrSpec,
  previous: readonly ContainerRecreateState[] | undefined,
  runtime: readonly RuntimeContainer[],
  synced: Map<string, CrrSyncContainerStatus>,
  nowMs: number,
): ContainerRecreateState[] {
  const minStartedMs = (spec.strategy?.minStartedSeconds ?? 0) * 1000;
  return (spec.containers ?? []).map((c) => {
    const prev = previous?.find((s) => s.name === c.name);
    if (prev && (prev.phase === 'Failed' || prev.phase === 'Succeeded')) return { ...prev };
    const wasKilled = prev?.isKilled === true;
    const rc = runtime.find((r) => r.name === c.name);
    if (!rc) return recreateState(c.name, 'Pending', wasKilled, 'not found container on Node');
    if (!rc.running) return recreateState(c.name, 'Recreating', wasKilled);
    if (spec.strategy?.forceRecreate && !wasKilled) return recreateState(c.name, 'Pending', false);
    const ctx = c.statusContext;
    if (ctx && (rc.containerID !== ctx.containerID || rc.restartCount > (ctx.restartCount ?? 0))) {
      const sync = synced.get(c.name);
      const succeeded = sync !== undefined && sync.containerID === rc.containerID && nowMs - (rc.startedAtMs ?? nowMs) > minStartedMs && sync.ready;
      return recreateState(c.name, succeeded ? 'Succeeded' : 'Recreating', wasKilled);
    }
    return recreateState(c.name, 'Pending', wasKilled);
  });
}

export interface CrrManageStep {
  states: ContainerRecreateState[];
  /** Container to kill now (at most one per pass, as the daemon does). */
  kill?: string;
  /** Complete the request now (message stays empty: success is read from the states). */
  complete: boolean;
}

/**
 * One pass of the daemon over the current states (crr_daemon_controller.go manage): a
 * Failed container completes the request at once under failurePolicy Fail (the others are
 * left as they are) and is skipped under Ignore; Recreating ones count as killed and, with
 * orderedRecreate, hold back the rest; the first Pending one found on the node is killed and
 * nothing more happens in this pass. Completes when every container Succeeded or Failed.
 */
export function crrManageStep(current: readonly ContainerRecreateState[], strategy: CrrSpec['strategy'], runtime: readonly RuntimeContainer[]): CrrManageStep {
  const states = current.map((s) => ({ ...s }));
  let completed = 0;
  for (const state of states) {
    if (state.phase === 'Succeeded') {
      completed++;
      continue;
    }
    if (state.phase === 'Failed') {
      completed++;
      if (strategy?.failurePolicy === 'Ignore') continue;
      // completeCRRStatus(crr, ""): the stored states are kept as they were.
      return { states: current.map((s) => ({ ...s })), complete: true };
    }
    if (state.phase === 'Recreating') {
      state.isKilled = true;
      if (strategy?.orderedRecreate) break;
      continue;
    }
    if (!runtime.some((r) => r.name === state.name)) break;
    state.isKilled = true;
    state.phase = 'Recreating';
    return { states, kill: state.name, complete: false };
  }
  return { states, complete: completed === states.length };
}

const PHASE_WEIGHT: Record<string, number> = { Completed: 1, Recreating: 2, Pending: 3 };

/**
 * Which of a pod's requests the daemon works on (crr_daemon_util.go crrListByPhaseAndCreated
 * + pickRecreateRequest): Recreating before Pending before new, then oldest first; finished or
 * deleting ones are skipped. The others wait (a new one is marked Pending).
 */
export function pickCrr<T extends KubeObject>(crrs: readonly T[]): T | undefined {
  const weight = (c: KubeObject) => PHASE_WEIGHT[(c.status as CrrStatus | undefined)?.phase ?? ''] ?? 4;
  const created = (c: KubeObject) => Date.parse(c.metadata.creationTimestamp ?? '') || 0;
  const sorted = [...crrs].sort((a, b) => (weight(a) === weight(b) ? created(a) - created(b) : weight(a) - weight(b)));
  return sorted.find((c) => !c.metadata.deletionTimestamp && !(c.status as CrrStatus | undefined)?.completionTime);
}

/** One entry of the KruisePodReady condition's message (pkg/util/podreadiness Message). */
export interface ReadinessMessage {
  userAgent: string;
  key: string;
}

/**
 * The KruisePodReady condition message with `msg` added or removed (podreadiness addMessage /
 * removeMessage, dumped sorted by userAgent then key). `changed` is false when nothing moved.
 */
export function editReadinessMessage(base: string | undefined, msg: ReadinessMessage, op: 'add' | 'remove'): { changed: boolean; message: string; count: number } {
  let list: ReadinessMessage[] = [];
  if (base) {
    try {
      const parsed = JSON.parse(base) as unknown;
      if (Array.isArray(parsed)) list = parsed as ReadinessMessage[];
    } catch {
      list = [];
    }
  }
  const has = list.some((m) => m.userAgent === msg.userAgent && m.key === msg.key);
  if (op === 'add' ? has : !has) return { changed: false, message: base ?? '', count: list.length };
  const next = op === 'add' ? [...list, msg] : list.filter((m) => !(m.userAgent === msg.userAgent && m.key === msg.key));
  next.sort((a, b) => (a.userAgent === b.userAgent ? (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) : a.userAgent < b.userAgent ? -1 : 1));
  return { changed: true, message: JSON.stringify(next.map((m) => ({ userAgent: m.userAgent, key: m.key }))), count: next.length };
}

/** Milliseconds left before activeDeadlineSeconds (Infinity without a deadline). */
export function crrDeadlineLeftMs(crr: KubeObject, nowMs: number): number {
  const spec = crr.spec as CrrSpec | undefined;
  if (spec?.activeDeadlineSeconds === undefined) return Infinity;
  const created = Date.parse(crr.metadata.creationTimestamp ?? '');
  if (Number.isNaN(created)) return Infinity;
  return created + spec.activeDeadlineSeconds * 1000 - nowMs;
}

/** When a completed request is due for deletion (ms since epoch), or undefined. */
export function crrTtlExpiryMs(crr: KubeObject): number | undefined {
  const spec = crr.spec as CrrSpec | undefined;
  const done = Date.parse((crr.status as CrrStatus | undefined)?.completionTime ?? '');
  if (spec?.ttlSecondsAfterFinished === undefined || Number.isNaN(done)) return undefined;
  return done + spec.ttlSecondsAfterFinished * 1000;
}

export const CRR_MESSAGE_POD_GONE = 'pod has gone';
export const CRR_MESSAGE_DEADLINE = 'recreating has exceeded the activeDeadlineSeconds';
