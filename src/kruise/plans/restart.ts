// Planning an in-place restart: which containers of which pods, in which batches, and
// whether each pod can be restarted at all (kruise-semantics §4) — decided before any request.
import type { KubeObject, Pod } from '../types';
import { CRR_POD_UID_LABEL, crrContainerProblem, isCrrCompleted, type CrrStatus } from '../rules/crr';
import { compareNatural } from '../../lib/compare';

export interface RestartProblem {
  pod: string;
  message: string;
}

/** "2" → 2, "25%" → floor(25% of total), never below 1 (at most max-unavailable pods at once). */
export function batchSizeFor(maxUnavailable: string, total: number): number {
  const v = maxUnavailable.trim();
  if (/^\d+$/.test(v)) {
    const n = Number(v);
    if (n < 1) throw new Error(`invalid --max-unavailable "${maxUnavailable}": must be at least 1`);
    return n;
  }
  const m = /^(\d+(?:\.\d+)?)%$/.exec(v);
  if (!m) throw new Error(`invalid --max-unavailable "${maxUnavailable}": use a number of pods (2) or a percentage (25%)`);
  const pct = Number(m[1]);
  if (pct <= 0 || pct > 100) throw new Error(`invalid --max-unavailable "${maxUnavailable}": a percentage must be above 0% and at most 100%`);
  return Math.max(1, Math.floor((pct * total) / 100));
}

/** Names ordered as a person would (web-2 before web-10). */
export function comparePodNames(a: string, b: string): number {
  return compareNatural(a, b);
}

/** Splits pods into batches of `size`, in name order. */
export function planBatches<T extends { metadata: { name?: string } }>(pods: readonly T[], size: number): T[][] {
  const sorted = [...pods].sort((a, b) => comparePodNames(a.metadata.name ?? '', b.metadata.name ?? ''));
  const batches: T[][] = [];
  for (let i = 0; i < sorted.length; i += Math.max(1, size)) batches.push(sorted.slice(i, i + Math.max(1, size)));
  return batches;
}

/** Why a pod cannot take a CRR now (undefined when it can): the pod must be active and scheduled. */
export function podRestartBlocker(pod: Pod): string | undefined {
  if (pod.metadata.deletionTimestamp) return 'is being deleted';
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return `is not active (phase ${phase})`;
  if (!pod.spec.nodeName) return 'is not scheduled to a node yet';
  return undefined;
}

/**
 * Containers of `pod` to recreate: the requested ones (each must exist as a container or init
 * container and have been started, i.e. have a containerID), or all regular containers.
 */
export function containersToRestart(pod: Pod, requested: readonly string[]): { containers: string[]; problems: string[] } {
  const names = requested.length > 0 ? [...requested] : pod.spec.containers.map((c) => c.name);
  const problems: string[] = [];
  for (const name of names) {
    const problem = crrContainerProblem(pod, name);
    if (problem === 'not-found') {
      const known = new Set([...pod.spec.containers, ...(pod.spec.initContainers ?? [])].map((c) => c.name));
      problems.push(`has no container "${name}" (containers: ${[...known].join(', ')})`);
    } else if (problem === 'not-started') {
      problems.push(`container "${name}" has not been started yet (no containerID)`);
    }
  }
  return { containers: names, problems };
}

/** Validates every pod and returns what to restart in each (problems empty = go). */
export function validateRestartTargets(pods: readonly Pod[], requested: readonly string[]): { perPod: Map<string, string[]>; problems: RestartProblem[] } {
  const perPod = new Map<string, string[]>();
  const problems: RestartProblem[] = [];
  for (const pod of pods) {
    const name = pod.metadata.name ?? '';
    const blocker = podRestartBlocker(pod);
    if (blocker) problems.push({ pod: name, message: blocker });
    const r = containersToRestart(pod, requested);
    for (const m of r.problems) problems.push({ pod: name, message: m });
    perPod.set(name, r.containers);
  }
  return { perPod, problems };
}

/** Parsed -c list: comma-separated, no empty names, no duplicates. Throws with a user message. */
export function parseContainerList(values: readonly string[] | undefined): string[] {
  if (values === undefined) return [];
  const out: string[] = [];
  for (const v of values) {
    const parts = v.split(',').map((s) => s.trim());
    for (const p of parts) {
      if (p === '') throw new Error('empty container name in -c/--containers');
      if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(p) || p.length > 63) throw new Error(`invalid container name "${p}" in -c/--containers`);
      if (!out.includes(p)) out.push(p);
    }
  }
  if (out.length === 0) throw new Error('empty container name in -c/--containers');
  return out;
}

/** Whole seconds from a duration in ms; throws when not whole or out of range. */
export function wholeSeconds(ms: number, flag: string, min = 0): number {
  if (ms % 1000 !== 0) throw new Error(`invalid ${flag}: must be a whole number of seconds`);
  const s = ms / 1000;
  if (s < min) throw new Error(`invalid ${flag}: must be at least ${min}s`);
  if (s > 2147483647) throw new Error(`invalid ${flag}: too large`);
  return s;
}

export type CrrOutcome = 'Succeeded' | 'Failed' | 'Running';

/** Outcome judged from the container phases once the CRR is Completed (kruise-semantics §4). */
export function crrOutcome(crr: KubeObject): CrrOutcome {
  if (!isCrrCompleted(crr)) return 'Running';
  const states = ((crr.status ?? {}) as CrrStatus).containerRecreateStates ?? [];
  return states.length > 0 && states.every((c) => c.phase === 'Succeeded') ? 'Succeeded' : 'Failed';
}

export function crrPhase(crr: KubeObject): string {
  return ((crr.status ?? {}) as CrrStatus).phase || 'Pending';
}

export function crrMessage(crr: KubeObject): string | undefined {
  const st = (crr.status ?? {}) as CrrStatus;
  const failed = (st.containerRecreateStates ?? []).filter((c) => c.phase === 'Failed').map((c) => `${c.name}: ${c.message ?? 'failed'}`);
  return [st.message, ...failed].filter(Boolean).join('; ') || undefined;
}

/** Running with condition Ready=True: when a restarted pod is back, and which pods a PPS records. */
export function podIsReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Sum of restartCount per container name (for the before → after column). */
export function restartCounts(pod: Pod, containers: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  for (const c of containers) out[c] = statuses.find((s) => s.name === c)?.restartCount ?? 0;
  return out;
}

/**
 * restartCount of each container when the CRR was admitted, as Kruise's webhook recorded it in
 * spec.containers[].statusContext (crr_mutating_handler.go): the "before" of a restart that an
 * earlier, interrupted run started, or that a stale pod read would miscount. Undefined when a
 * container has none (a CRR not admitted by Kruise).
 */
export function crrRecordedRestarts(crr: KubeObject): Record<string, number> | undefined {
  const containers = ((crr.spec ?? {}) as { containers?: Array<{ name: string; statusContext?: { restartCount?: number } }> }).containers ?? [];
  if (containers.length === 0 || containers.some((c) => c.statusContext === undefined)) return undefined;
  return Object.fromEntries(containers.map((c) => [c.name, c.statusContext?.restartCount ?? 0]));
}

/**
 * Whether the pod a batch was planned on is gone by the time its batch comes: deleted, terminating, or replaced by
 * another pod of the same name (a StatefulSet's keeps it). `live` is the pod of that name now.
 */
export function podReplacedSince(planned: Pod, live: Pod | undefined): boolean {
  return !live || live.metadata.uid !== planned.metadata.uid || Boolean(live.metadata.deletionTimestamp);
}

/**
 * Whether Kruise's webhook bound a CRR to another pod than the one it was sent for: it sets the pod UID label from
 * the pod named in spec.podName at admission (crr_mutating_handler.go injectPodIntoContainerRecreateRequest).
 */
export function crrBoundElsewhere(crr: KubeObject, planned: Pod): boolean {
  const uid = crr.metadata.labels?.[CRR_POD_UID_LABEL];
  return uid !== undefined && uid !== planned.metadata.uid;
}
