// One `restart` at a time per workload: the operation lease (lease.ts) named after the workload,
// whose annotation carries the record of the run (what it did), so that a rerun resumes exactly
// instead of restarting pods twice.
import type { KubeClient } from '../kube/client';
import { parseRunRecord, RESTART_RUN_ANNOTATION, serializeRunRecord, type RestartRunRecord } from '../kruise/plans/restart-run';
import { acquireLease, leaseState, operationLeaseName, type AcquireOptions as LeaseAcquireOptions, type LeasePurpose } from './lease';

export function restartLeaseName(kind: string, name: string): string {
  return operationLeaseName('restart', kind, name);
}

export interface RestartLease {
  readonly name: string;
  /** The record of the previous run, as found when the lease was taken. */
  readonly previous: RestartRunRecord | undefined;
  /** Whether another run held it first (the pods may have changed meanwhile). */
  readonly waited: boolean;
  /** Aborted when the lease was lost (taken over after we failed to renew it). */
  readonly lost: AbortSignal;
  /** Stores the record with the next write (now, queued behind any write in flight). */
  save(record: RestartRunRecord): Promise<void>;
  /** Stores the record and gives the lease up; never throws (an unreleased lease expires). */
  release(record?: RestartRunRecord): Promise<void>;
}

export interface AcquireOptions extends LeaseAcquireOptions {
  /** The workload as users write it, in the lease's messages ("cloneset/web"). */
  what: string;
}

function purpose(kind: string, name: string, what: string): LeasePurpose {
  return { name: restartLeaseName(kind, name), operation: 'restart', what, doing: 'restarted', recordAnnotation: RESTART_RUN_ANNOTATION };
}

/**
 * Who holds the workload's restart lease now (the message a second run prints) and the record of
 * the last run it carries, read only.
 */
export async function restartLeaseState(
  client: KubeClient,
  ns: string,
  kind: string,
  name: string,
  what: string,
  signal?: AbortSignal,
): Promise<{ holder?: string; previous?: RestartRunRecord }> {
  const state = await leaseState(client, ns, purpose(kind, name, what), signal);
  const previous = parseRunRecord(state.previous);
  return { ...(state.holder ? { holder: state.holder } : {}), ...(previous ? { previous } : {}) };
}

export async function acquireRestartLease(client: KubeClient, ns: string, kind: string, name: string, opts: AcquireOptions): Promise<RestartLease> {
  const lease = await acquireLease(client, ns, purpose(kind, name, opts.what), opts);
  return {
    name: lease.name,
    previous: parseRunRecord(lease.previous),
    waited: lease.waited,
    lost: lease.lost,
    save: (record) => lease.save(serializeRunRecord(record)),
    release: (record) => lease.release(record ? serializeRunRecord(record) : undefined),
  };
}
