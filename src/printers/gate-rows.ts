// The outcome of one followed object in a release-level gate (`rollout status -f FILE`): one row of
// the summary table, the JUnit testcase and the CI annotations, pure. A workload's own verdict
// (progress.ts RolloutProgress) and a Kruise Rollout's release (gate.ts, printers/rollout-release.ts)
// become the same row. The exit code of the whole gate is the worst row: failed (1) > timed out (3)
// > not finished (4, --watch=false) > done (0).
import type { RolloutProgress } from '../kruise/progress';
import type { ReleaseReport } from './rollout-release';

/** done: the point awaited is reached; stopped: not waited for further once another object failed (the exit code was decided). */
export type GateVerdict = 'done' | 'failed' | 'timed-out' | 'not-finished' | 'stopped';

export interface GateRow {
  /** `cloneset/web`, `rollout/web-canary` (kind lower-cased, as kubectl names objects). */
  ref: string;
  kind: string;
  apiVersion: string;
  namespace: string;
  name: string;
  /** The object's own state word (Complete, PartitionComplete, StepPaused, Failed, TimedOut...). */
  state: string;
  verdict: GateVerdict;
  /** The exit code this row alone would give. */
  code: number;
  /** Pods: desired, at the new revision, and of those ready (a Rollout: its canary's). */
  desired?: number;
  updated?: number;
  ready?: number;
  /** Seconds from the start of the gate to this row's verdict (or to the end). */
  seconds: number;
  /** The last message (why it failed or what it waits for). */
  reason: string;
  /** The workload a Rollout releases (`CloneSet/web`). */
  workload?: string;
  /** A Rollout: where its release is (`step 2/4 StepPaused`). */
  step?: string;
  /** The pod named by the verdict (failed, or failing with a grace running down). */
  pod?: { name: string; container: string; reason: string };
}

export const GATE_EXIT = { done: 0, failed: 1, 'timed-out': 3, 'not-finished': 4, stopped: 0 } as const;

/** Worst first: 1 > 3 > 4 > 0 (a failure decides a release; a timeout says less; not finished least). */
const SEVERITY: Record<number, number> = { 1: 4, 3: 3, 4: 2, 0: 0 };

export function worstExitCode(codes: readonly number[]): number {
  let worst = 0;
  for (const c of codes) if ((SEVERITY[c] ?? 5) > (SEVERITY[worst] ?? 5)) worst = c;
  return worst;
}

function verdictOf(state: string, reached: boolean, final: boolean): GateVerdict {
  if (state === 'Failed') return 'failed';
  if (state === 'TimedOut') return 'timed-out';
  if (reached) return 'done';
  return final ? 'not-finished' : 'stopped';
}

/** A workload or job kind followed on its own. `final`: the watch gave its verdict (else it was stopped). */
/** kubectl's name of an object: `cloneset/web`, and `statefulset.apps.kruise.io/db` where the kind alone would be the native one. */
export function objectRef(kind: string, apiVersion: string, name: string): string {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const lower = kind.toLowerCase();
  const ambiguous = group === 'apps.kruise.io' && (kind === 'StatefulSet' || kind === 'DaemonSet');
  return `${lower}${ambiguous ? `.${group}` : ''}/${name}`;
}

export function rowFromProgress(p: RolloutProgress, seconds: number, final: boolean): GateRow {
  const reached = p.state === 'Complete' || p.state === 'PartitionComplete';
  const verdict = verdictOf(p.state, reached, final);
  const pod = p.failedPod ?? (p.failing ? { name: p.failing.name, container: p.failing.container, reason: p.failing.reason } : undefined);
  return {
    ref: objectRef(p.kind, p.apiVersion, p.name),
    kind: p.kind,
    apiVersion: p.apiVersion,
    namespace: p.namespace,
    name: p.name,
    state: p.state,
    verdict,
    code: GATE_EXIT[verdict],
    desired: p.job ? p.job.desired : p.replicas,
    updated: p.job ? p.job.succeeded : p.updatedReplicas,
    ready: p.job ? p.job.succeeded : p.updatedReadyReplicas,
    seconds,
    reason: p.message,
    ...(pod ? { pod: { name: pod.name, container: pod.container, reason: pod.reason } } : {}),
  };
}

/** A Kruise Rollout followed with its workload. */
export function rowFromRelease(r: ReleaseReport, seconds: number, final: boolean): GateRow {
  const verdict = verdictOf(r.state, r.reached, final);
  const step = r.step !== undefined ? `step ${r.step}/${r.steps}${r.stepState ? ` ${r.stepState}` : ''}` : undefined;
  return {
    ref: `rollout/${r.name}`,
    kind: 'Rollout',
    apiVersion: r.apiVersion,
    namespace: r.namespace,
    name: r.name,
    state: r.state,
    verdict,
    code: GATE_EXIT[verdict],
    ...(r.canaryReplicas !== undefined ? { desired: r.canaryReplicas, updated: r.canaryReplicas, ready: r.canaryReadyReplicas ?? 0 } : {}),
    seconds,
    reason: r.message,
    ...(r.workload ? { workload: r.workload } : {}),
    ...(step ? { step } : {}),
    ...(r.failing ? { pod: { name: r.failing.name, container: r.failing.container, reason: r.failing.reason } } : {}),
  };
}

/** Rows that need evidence: failed or timed out (a stopped row only waited; it is shown as it stood). */
export function needsEvidence(row: GateRow): boolean {
  return row.verdict === 'failed' || row.verdict === 'timed-out';
}

/** `1m05s`, `12s`, `0.4s`: how long a row took, for the table. */
export function formatTaken(seconds: number): string {
  if (seconds < 10) return `${(Math.round(seconds * 10) / 10).toFixed(1)}s`;
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return `${m}m${String(s % 60).padStart(2, '0')}s`;
}

/** What the table's VERDICT column says. */
export function verdictWord(row: GateRow): string {
  switch (row.verdict) {
    case 'done':
      return row.state === 'PartitionComplete' ? 'partition-complete' : row.kind === 'Rollout' && row.state !== 'Complete' ? `reached (${row.state})` : 'complete';
    case 'failed':
      return 'failed';
    case 'timed-out':
      return 'timed out';
    case 'not-finished':
      return row.state === 'StepPaused' ? 'waiting for approval' : 'not finished';
    case 'stopped':
      return row.state === 'StepPaused' ? 'waiting for approval' : `not finished (${row.state})`;
  }
}
