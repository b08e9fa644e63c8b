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
