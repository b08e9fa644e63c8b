// The rules of a coordination.k8s.io Lease that let exactly one run (`restart`, `migrate`) drive a
// workload at a time: who holds it, when it expires, its MicroTime format. Pure: no I/O
// (engine/lease.ts acquires, renews and releases).

/** A Lease is renewed every third of its duration; a holder that died loses it after this. */
export const LEASE_SECONDS = 15;

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
  const durationMs = (spec?.leaseDurationSeconds ?? LEASE_SECONDS) * 1000;
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

/**
 * Annotation of the Lease: where its holder runs, "<boot id> <pid namespace> <pid>". A rerun on the
 * same machine, in the same pid namespace, can then tell that the holder has exited (Ctrl-C that
 * could not release it in time, kill -9, a closed terminal) and take the lease at once instead of
 * waiting for it to expire. Anywhere else the pid means nothing and only expiry frees the lease.
 */
export const LEASE_HOLDER_PROCESS_ANNOTATION = 'kubectl-kruise/holder-process';

/** This process as the annotation names it (engine/lease.ts reads /proc). */
export interface HolderProcess {
  boot: string;
  pidNamespace: string;
  pid: number;
}

export function formatHolderProcess(p: HolderProcess): string {
  return `${p.boot} ${p.pidNamespace} ${p.pid}`;
}

/**
 * The holder's pid when it is comparable with ours: the annotation names our boot and pid
 * namespace, and the holder identity is the same process (a run of an older version that took
 * the lease over keeps the annotation of the run before it). Undefined otherwise.
 */
export function comparableHolderPid(annotation: string | undefined, holderIdentity: string, local: Omit<HolderProcess, 'pid'>): number | undefined {
  const m = /^(\S+) (\S+) (\d+)$/.exec(annotation ?? '');
  if (!m || m[1] !== local.boot || m[2] !== local.pidNamespace) return undefined;
  const pid = Number(m[3]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return holderIdentity.includes(` pid ${pid} `) ? pid : undefined;
}
