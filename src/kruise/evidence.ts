// The evidence a failed or timed-out gate hands CI, pure (src/commands/rollout/evidence.ts reads it,
// src/printers/release-summary.ts prints it): which pods to show, what each container's state says,
// and which container's log answers the question (the previous instance when the current one is
// waiting to restart, as `kubectl logs --previous` for a CrashLoopBackOff).
// Only the pod's status is read: never its spec's env or anything a Secret fills in.
import type { ContainerStatus, KubeObject, Pod } from './types';
import { FAILING_REASONS } from './progress';

export interface ContainerTrouble {
  name: string;
  /** `waiting: CrashLoopBackOff (back-off 40s restarting failed container=app ...)`, `terminated: exit code 3 (Error)`, `running`. */
  state: string;
  restarts: number;
  /** The previous instance's end, when it ended badly. */
  lastExit?: { exitCode?: number; reason?: string };
  ready: boolean;
  init: boolean;
}

export interface PodTrouble {
  name: string;
  phase: string;
  ready: boolean;
  node?: string;
  /** One line: the worst container's trouble, e.g. `container app: CrashLoopBackOff, restarted 5 times, last exit code 1 (Error)`. */
  summary: string;
  containers: ContainerTrouble[];
  /** The container whose log explains it, and whether to read the previous instance. */
  log?: { container: string; previous: boolean };
}

function lastTerminated(cs: ContainerStatus): { exitCode?: number; reason?: string } | undefined {
  const t = (cs.lastState as { terminated?: { exitCode?: number; reason?: string } } | undefined)?.terminated;
  return t ? { exitCode: t.exitCode, reason: t.reason } : undefined;
}

function stateText(cs: ContainerStatus): string {
  const s = cs.state ?? {};
  if (s.waiting) return `waiting: ${s.waiting.reason ?? 'waiting'}${s.waiting.message ? ` (${s.waiting.message})` : ''}`;
  if (s.terminated) return `terminated: exit code ${s.terminated.exitCode ?? '?'}${s.terminated.reason ? ` (${s.terminated.reason})` : ''}`;
  if (s.running) return 'running';
  return 'unknown';
}

/** How bad a container is: failing waits first, then bad exits, restarts, not ready. 0 = fine. */
function badness(cs: ContainerStatus): number {
  const waiting = cs.state?.waiting?.reason;
  if (waiting && FAILING_REASONS.has(waiting)) return 4;
  if ((cs.state?.terminated?.exitCode ?? 0) !== 0) return 3;
  if ((cs.restartCount ?? 0) > 0 && !cs.ready) return 2;
  if (!cs.ready && cs.state?.terminated?.exitCode !== 0) return 1;
  return 0;
}

export function podTrouble(pod: Pod): PodTrouble | undefined {
  const all = [
    ...(pod.status?.initContainerStatuses ?? []).map((cs) => ({ cs, init: true })),
    ...(pod.status?.containerStatuses ?? []).map((cs) => ({ cs, init: false })),
  ];
  const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  const failedPhase = pod.status?.phase === 'Failed';
  let worst: { cs: ContainerStatus; init: boolean; score: number } | undefined;
  for (const { cs, init } of all) {
    const score = badness(cs);
    if (score > 0 && (!worst || score > worst.score)) worst = { cs, init, score };
  }
  if (!worst && !failedPhase && (ready || pod.status?.phase === 'Succeeded')) return undefined;
  const containers: ContainerTrouble[] = all.map(({ cs, init }) => {
    const lastExit = lastTerminated(cs);
    return { name: cs.name, state: stateText(cs), restarts: cs.restartCount ?? 0, ready: cs.ready ?? false, init, ...(lastExit && (lastExit.exitCode ?? 0) !== 0 ? { lastExit } : {}) };
  });
  const trouble: PodTrouble = { name: pod.metadata.name ?? '', phase: pod.status?.phase ?? 'Unknown', ready, ...(pod.spec?.nodeName ? { node: pod.spec.nodeName } : {}), summary: '', containers };
  if (!worst) {
    const notReady = pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status !== 'True');
    const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status !== 'True');
    trouble.summary = scheduled ? `not scheduled${scheduled.message ? `: ${scheduled.message}` : ''}` : failedPhase ? `pod ${pod.status?.phase}` : `not ready${notReady?.reason ? ` (${notReady.reason})` : ''}`;
    return trouble;
  }
  const c = trouble.containers.find((x) => x.name === worst!.cs.name && x.init === worst!.init)!;
  const parts = [`${worst.init ? 'init container' : 'container'} ${c.name}: ${c.state.replace(/^(waiting|terminated): /, '')}`];
  if (c.restarts > 0) parts.push(`restarted ${c.restarts} ${c.restarts === 1 ? 'time' : 'times'}`);
  if (c.lastExit) parts.push(`last exit code ${c.lastExit.exitCode ?? '?'}${c.lastExit.reason ? ` (${c.lastExit.reason})` : ''}`);
  trouble.summary = parts.join(', ');
  // A container waiting after a crash has no current log: its previous instance tells why. An image
  // that never pulled has no log at all.
  const waiting = worst.cs.state?.waiting?.reason;
  const neverRan = waiting === 'ErrImagePull' || waiting === 'ImagePullBackOff' || waiting === 'InvalidImageName' || waiting === 'CreateContainerConfigError' || waiting === 'ContainerCreating';
  if (!neverRan || c.restarts > 0) trouble.log = { container: c.name, previous: Boolean(worst.cs.state?.waiting) && c.restarts > 0 };
  return trouble;
}

/**
 * The pods to show for a failed or timed-out workload: those the verdict named first, then the others
 * in trouble (worst first), at most `max`.
 */
export function troubledPods(pods: readonly Pod[], named: readonly string[], max = 3): PodTrouble[] {
  const found: Array<{ t: PodTrouble; rank: number }> = [];
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    const t = podTrouble(pod);
    if (!t) continue;
    const namedAt = named.indexOf(t.name);
    const worst = Math.max(0, ...(pod.status?.containerStatuses ?? []).map(badness), ...(pod.status?.initContainerStatuses ?? []).map(badness));
    found.push({ t, rank: namedAt >= 0 ? 100 - namedAt : worst });
  }
  return found.sort((a, b) => b.rank - a.rank || (a.t.name < b.t.name ? -1 : 1)).slice(0, max).map((x) => x.t);
}

/** A core/v1 Event as evidence shows it (kubectl events' columns). */
export interface EventLine {
  type: string;
  reason: string;
  /** `Pod/web-x` */
  object: string;
  message: string;
  count: number;
  firstSeen?: string;
  lastSeen?: string;
}

interface CoreEvent {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  involvedObject?: { kind?: string; name?: string; uid?: string };
  metadata?: { creationTimestamp?: string };
}

/**
 * Events folded as `kubectl events` prints them (pkg/cmd/events/event_printer.go getInterval: a series
 * or a count above 1 is one line `LAST (xN over FIRST)`), repeats of the same object, reason and message
 * folded into one, sorted by when last seen (SortEventsByTime), the newest `max` kept.
 */
export function foldEvents(events: readonly unknown[], max = 10): EventLine[] {
  const byKey = new Map<string, EventLine>();
  for (const raw of events) {
    const e = raw as CoreEvent;
    const object = `${e.involvedObject?.kind ?? ''}/${e.involvedObject?.name ?? ''}`;
    const message = (e.message ?? '').trim();
    const first = e.eventTime || e.firstTimestamp || e.metadata?.creationTimestamp;
    const last = e.series?.lastObservedTime || e.lastTimestamp || e.eventTime || first;
    const count = e.series?.count ?? e.count ?? 1;
    const key = `${object}\u0000${e.type ?? ''}\u0000${e.reason ?? ''}\u0000${message}`;
    const seen = byKey.get(key);
    if (!seen) {
      byKey.set(key, { type: e.type ?? '', reason: e.reason ?? '', object, message, count, firstSeen: first, lastSeen: last });
      continue;
    }
    seen.count += count;
    if (first && (!seen.firstSeen || first < seen.firstSeen)) seen.firstSeen = first;
    if (last && (!seen.lastSeen || last > seen.lastSeen)) seen.lastSeen = last;
  }
  return [...byKey.values()].sort((a, b) => ((a.lastSeen ?? '') < (b.lastSeen ?? '') ? -1 : (a.lastSeen ?? '') > (b.lastSeen ?? '') ? 1 : 0)).slice(-max);
}

export interface LogEvidence {
  pod: string;
  container: string;
  previous: boolean;
  lines: string[];
  /** Why the log could not be read (forbidden, no previous instance...). */
  error?: string;
}

export interface ObjectEvidence {
  kind: string;
  name: string;
  /** One line: why it is evidence. */
  summary: string;
  /** The object as read (Kruise objects and the Rollout: no Secret data in them). */
  object: KubeObject;
}

export interface Evidence {
  ref: string;
  namespace: string;
  pods: PodTrouble[];
  /** Those pods as read, status only (the evidence directory's YAML). */
  podObjects?: KubeObject[];
  events: EventLine[];
  logs: LogEvidence[];
  objects: ObjectEvidence[];
  /** What could not be read, so an empty section is not mistaken for "nothing wrong". */
  notes: string[];
}
