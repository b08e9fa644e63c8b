// The kubelet's restart back-off for a container that exits under restartPolicy Always or OnFailure
// (CrashLoopBackOff), as kubelet v1.32 does it. There is no kubernetes/kubernetes mirror here: the
// facts below are from pkg/kubelet/kubelet.go (backOffPeriod = 10s, MaxContainerBackOff = 300s,
// flowcontrol.NewBackOff without jitter), pkg/kubelet/kuberuntime/kuberuntime_manager.go doBackOff
// and client-go util/flowcontrol/backoff.go:
// - at an exit the kubelet asks IsInBackOffSince(key, finishedAt): no entry yet (the first exit), or
//   the entry's last update more than 2 x max before the exit (the container ran 10 min fine): not in
//   back-off, so Next() (initial, or double capped at max) and the container is started again at once;
// - otherwise the container waits `reason: CrashLoopBackOff`, message "back-off 10s restarting failed
//   container=NAME pod=POD_NAMESPACE(UID)" (the back-off as a Go duration: 10s, 20s, 40s, 1m20s,
//   2m40s, 5m0s), its restartCount still the exited instance's, until finishedAt + back-off; then
//   Next() and a new instance (restartCount + 1).
// The key (getStableKey) holds the pod and the container's spec hash: a changed image starts afresh.
import { formatGoDuration } from '../../lib/go-duration';
import type { CrashBackoffSetting } from '../store-api';

export interface CrashBackoffPolicy {
  initialMs: number;
  maxMs: number;
}

/** kubelet.go: backOffPeriod, MaxContainerBackOff. */
export const KUBELET_CRASH_BACKOFF: CrashBackoffPolicy = { initialMs: 10_000, maxMs: 300_000 };

/** The back-off of one container: flowcontrol.Backoff's backoffEntry. */
export interface BackoffEntry {
  backoffMs: number;
  lastUpdateMs: number;
}

export function crashBackoffPolicy(setting: CrashBackoffSetting | undefined, readyDelayMs: number): CrashBackoffPolicy {
  if (setting === undefined || setting === 'kubelet') return KUBELET_CRASH_BACKOFF;
  if (setting === 'fast') {
    // Compressed for tests: a crash loop turns over in a few ready delays.
    const initialMs = Math.max(readyDelayMs, 100);
    return { initialMs, maxMs: 8 * initialMs };
  }
  // The kubelet's shape (5 min / 10 s) from another start.
  return { initialMs: setting.initialMs, maxMs: 30 * setting.initialMs };
}

/** --crash-backoff: kubelet, fast, or a positive Go duration (the first wait). Throws a message naming the value. */
export function parseCrashBackoff(value: string, parseDuration: (v: string) => number): CrashBackoffSetting {
  if (value === 'kubelet' || value === 'fast') return value;
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch {
    throw new Error(`invalid value "${value}" for --crash-backoff: use kubelet, fast or a duration such as 1s`);
  }
  if (!(ms >= 1)) throw new Error(`invalid value "${value}" for --crash-backoff: a duration must be at least 1ms`);
  return { initialMs: ms };
}

/** backoff.go hasExpired: the entry is forgotten once an event comes more than 2 x max after its last update. */
function expired(entry: BackoffEntry, eventMs: number, policy: CrashBackoffPolicy): boolean {
  return eventMs - entry.lastUpdateMs > 2 * policy.maxMs;
}

/** IsInBackOffSince(key, finishedAt) at the moment of the exit: whether the container must wait. */
export function waitsAfterExit(entry: BackoffEntry | undefined, exitMs: number, policy: CrashBackoffPolicy): boolean {
  return entry !== undefined && !expired(entry, exitMs, policy) && entry.backoffMs > 0;
}

/** Next(key, finishedAt) when the container is started again at `nowMs`. */
export function nextBackoff(entry: BackoffEntry | undefined, exitMs: number, nowMs: number, policy: CrashBackoffPolicy): BackoffEntry {
  if (!entry || expired(entry, exitMs, policy)) return { backoffMs: policy.initialMs, lastUpdateMs: nowMs };
  return { backoffMs: Math.min(entry.backoffMs * 2, policy.maxMs), lastUpdateMs: nowMs };
}

/** The waiting message, as kuberuntime_manager.go doBackOff words it (format.Pod: name_namespace(uid)). */
export function crashLoopMessage(backoffMs: number, container: string, pod: { name?: string; namespace?: string; uid?: string }): string {
  return `back-off ${formatGoDuration(backoffMs)} restarting failed container=${container} pod=${pod.name}_${pod.namespace}(${pod.uid})`;
}
