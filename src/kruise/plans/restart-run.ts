// What a `restart` run did, kept on the cluster (in the annotation of its Lease) so that a rerun
// after Ctrl-C, --timeout or a killed process does only what is left, and the lease rules that
// let exactly one run drive a restart of a workload at a time. Pure: no I/O.
import { jsonObjectOf } from '../workloads/access';

/** Annotation of the restart Lease holding the last run's record (JSON). */
export const RESTART_RUN_ANNOTATION = 'kubectl-kruise/restart-run';

/** A Lease is renewed every third of its duration; a holder that died loses it after this. */
export const RESTART_LEASE_SECONDS = 15;

export type RunState = 'running' | 'done' | 'failed';

export interface RestartRunRecord {
  id: string;
  via: 'kruise' | 'client';
  /** The -c list as given (comma-joined; empty = every container). */
  containers: string;
  state: RunState;
  startedAt: string;
  /** UIDs of the pods the run set out to restart: a pod created later started after the run began. */
  pods: string[];
  /** UIDs of the pods whose ContainerRecreateRequest the server accepted (kruise executor). */
  created: string[];
  /** Ready pods before the run (client executor): a resumed run first waits for as many again. */
  readyBefore?: number;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The record in a Lease annotation; undefined when absent or unreadable (then nothing is resumed). */
export function parseRunRecord(text: string | undefined): RestartRunRecord | undefined {
  const r = jsonObjectOf(text);
  if (!r) return undefined;
  if (typeof r.id !== 'string' || (r.via !== 'kruise' && r.via !== 'client')) return undefined;
  const state: RunState = r.state === 'done' || r.state === 'failed' ? r.state : 'running';
  return {
    id: r.id,
    via: r.via,
    containers: typeof r.containers === 'string' ? r.containers : '',
    state,
    startedAt: typeof r.startedAt === 'string' ? r.startedAt : '',
    pods: strings(r.pods),
    created: strings(r.created),
    ...(typeof r.readyBefore === 'number' ? { readyBefore: r.readyBefore } : {}),
  };
}

export function serializeRunRecord(record: RestartRunRecord): string {
  return JSON.stringify(record);
}

/**
 * The earlier run a rerun continues: one that did not end (interrupted, timed out, its process
 * killed) with the same executor and containers. A run that finished or failed is not resumed:
 * running the command again then means restarting again.
 */
export function resumableRun(record: RestartRunRecord | undefined, via: 'kruise' | 'client', containers: readonly string[]): RestartRunRecord | undefined {
  if (!record || record.state !== 'running') return undefined;
  return record.via === via && record.containers === containers.join(',') ? record : undefined;
}

/**
 * Pods a rerun leaves out of its checks and its work: those an unfinished client-side run deleted
 * (its own pods, now terminating) are that run's work in progress, which the rerun waits for rather
 * than calling them unrestartable or deleting them again.
 */
export function deletedByRun(record: RestartRunRecord | undefined, pod: { metadata: { uid?: string; deletionTimestamp?: string } }): boolean {
  return record?.via === 'client' && record.state === 'running' && Boolean(pod.metadata.deletionTimestamp) && record.pods.includes(pod.metadata.uid ?? '');
}

/** Pods an earlier run covers: created after it began (not among its pods), or given a CRR that the server accepted. */
export function coveredByRun(record: RestartRunRecord, podUid: string): 'new-pod' | 'crr-created' | undefined {
  if (!record.pods.includes(podUid)) return 'new-pod';
  if (record.created.includes(podUid)) return 'crr-created';
  return undefined;
}

export interface LeaseSpecShape {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/**
 * Who holds the lease at `nowMs`, or undefined when it is free: released (no holder) or not
 * renewed within its duration (the holder died). `sameSinceMs`: since when this client has seen
 * the lease unchanged, which judges expiry on our own clock when the holder's clock is skewed.
 */
export function leaseHolder(spec: LeaseSpecShape | undefined, nowMs: number, sameSinceMs?: number): { holder: string; renewedMs: number; expiresInMs: number } | undefined {
  const holder = spec?.holderIdentity;
  if (!holder) return undefined;
  const durationMs = (spec?.leaseDurationSeconds ?? RESTART_LEASE_SECONDS) * 1000;
  const renewed = Date.parse(spec?.renewTime ?? spec?.acquireTime ?? '');
  const renewedMs = Number.isNaN(renewed) ? 0 : renewed;
  const expiresInMs = renewedMs + durationMs - nowMs;
  if (expiresInMs <= 0) return undefined;
  if (sameSinceMs !== undefined && nowMs - sameSinceMs > durationMs) return undefined;
  return { holder, renewedMs, expiresInMs };
}

/** Lease times are MicroTime: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
