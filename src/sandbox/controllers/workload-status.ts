// The tail every native workload controller (ReplicaSet, StatefulSet, DaemonSet) ends a sync
// with: count available pods, then write status the way kube serialises it, and only when it
// changed, so an idle controller produces no writes and no watch events.
import type { KubeObject, Pod } from '../../kruise/types';
import type { GroupResource, Store } from '../store-api';
import { canonicalJson } from '../canonical-json';
import { isPodAvailable, isPodReady, msUntilAvailable } from './pods';

/**
 * How many pods are available after minReadySeconds, and how long until the next ready pod
 * becomes available (0 when none is waiting), so the caller can re-sync exactly then.
 */
export function countAvailable(pods: Pod[], minReadySeconds: number, nowMs: number): { available: number; recheckMs: number } {
  let available = 0;
  let recheckMs = 0;
  for (const p of pods) {
    if (isPodAvailable(p, minReadySeconds, nowMs)) available++;
    else if (isPodReady(p)) recheckMs = Math.max(recheckMs, msUntilAvailable(p, minReadySeconds, nowMs));
  }
  return { available, recheckMs };
}

/**
 * Drops the `omitempty` integer fields that are 0 (kube leaves them out of the JSON), carries over
 * what this controller does not compute (conditions; collisionCount where the revision code owns it)
 * and writes the status when it differs from the stored one.
 */
export function writeStatusIfChanged(
  store: Store,
  gr: GroupResource,
  obj: KubeObject,
  status: Record<string, unknown>,
  omitWhenZero: readonly string[],
  opts: { keepCollisionCount?: boolean } = {},
): void {
  for (const k of omitWhenZero) if (status[k] === 0) delete status[k];
  const old = (obj.status ?? {}) as Record<string, unknown>;
  if (old.conditions) status.conditions = old.conditions;
  if (opts.keepCollisionCount && old.collisionCount !== undefined) status.collisionCount = old.collisionCount;
  if (canonicalJson(status) !== canonicalJson(old)) store.updateStatus(gr, { ...obj, status });
}
