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

export interface CrrStatus {
  phase?: CrrPhase;
  completionTime?: string;
  message?: string;
  containerRecreateStates?: ContainerRecreateState[];
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

/** Containers to act on now: all pending ones, or (orderedRecreate) the first unfinished one. */
export function containersToRecreate(states: ContainerRecreateState[], ordered: boolean): string[] {
  if (!ordered) return states.filter((s) => s.phase === 'Pending').map((s) => s.name);
  const next = states.find((s) => s.phase !== 'Succeeded' && s.phase !== 'Failed');
  return next && next.phase === 'Pending' ? [next.name] : [];
}

/**
 * Whether every container reached a final phase, applying the failure policy: with `Fail`
 * (the default) the first failure ends the request and marks the rest Failed too.
 */
export function settleCrrStates(states: ContainerRecreateState[], failurePolicy: string | undefined): { states: ContainerRecreateState[]; done: boolean } {
  const out = states.map((s) => ({ ...s }));
  const failed = out.find((s) => s.phase === 'Failed');
  if (failed && (failurePolicy ?? 'Fail') === 'Fail') {
    for (const s of out) if (s.phase === 'Pending') Object.assign(s, { phase: 'Failed', message: `stopped because container ${failed.name} failed` });
  }
  return { states: out, done: out.every((s) => s.phase === 'Succeeded' || s.phase === 'Failed') };
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
