// How `rollout status rollout/NAME` reports a change of a Kruise Rollout release: a human line
// (the gate's message, with the traffic weight of the step) or one JSON Lines object with the
// contract's fields (state, step, steps, stepState, revisions, canary pods, trafficWeight).
import type { FailingPod, ReleaseStage, RolloutRelease } from '../kruise/rollout/gate';
import { apiGroupOf } from '../kruise/api-version';
import { resourceName } from './output';

/** The gate's states plus the watcher's own TimedOut. */
export type ReleaseReportState = RolloutRelease['state'] | 'TimedOut';

export interface ReleaseReport extends Omit<RolloutRelease, 'state'> {
  state: ReleaseReportState;
  /** "rollouts.kruise.io/v1beta1" */
  apiVersion: string;
  /** The workload the Rollout releases, e.g. "CloneSet/web". */
  workload?: string;
  /** Where the workload's current template stands with the Rollout (gate.ts releaseStage). */
  release?: ReleaseStage;
  /** The workload's own verdict state (progress.ts), when computed. */
  workloadState?: string;
  /** A failing pod of the workload whose grace runs down. */
  failing?: FailingPod;
  /** The objects named on the command line that this release gates (its workload, the Rollout, or both), as -o name prints them. */
  gated?: readonly string[];
}

/** -o name: the objects the release gates, else the Rollout itself (`rollout.rollouts.kruise.io/web`). */
export function releaseNames(r: Pick<ReleaseReport, 'gated' | 'apiVersion' | 'name'>): readonly string[] {
  return r.gated?.length ? r.gated : [resourceName('Rollout', apiGroupOf(r.apiVersion), r.name)];
}

/** `pod web-2rh8p ImagePullBackOff, failing the rollout in 56s` (the same words as a workload's gate). */
export function releaseFailingNote(r: Pick<ReleaseReport, 'failing'>, now: number): string | undefined {
  if (!r.failing) return undefined;
  return `pod ${r.failing.name} ${r.failing.reason}, failing the rollout in ${Math.max(0, Math.ceil((r.failing.failAt - now) / 1000))}s`;
}

/** The message, the step's traffic weight when it routes some, and a failing pod's countdown. */
export function releaseLine(r: ReleaseReport, now: number = Date.now()): string {
  const notes: string[] = [];
  if (r.trafficWeight && r.state !== 'Complete' && r.state !== 'Failed' && r.state !== 'Blocked') notes.push(`traffic ${r.trafficWeight}`);
  const failing = r.state === 'Failed' ? undefined : releaseFailingNote(r, now);
  if (failing) notes.push(failing);
  if (notes.length === 0) return r.message;
  if (r.message.endsWith('...')) return `${r.message.slice(0, -3)}; ${notes.join('; ')}...`;
  return notes.length === 1 && !failing ? `${r.message} (${notes[0]})` : `${r.message}; ${notes.join('; ')}`;
}

/** The contract's JSON Lines object, fields in a stable order; absent values are null, not missing. */
export function releaseView(r: ReleaseReport, now: number = Date.now()): Record<string, unknown> {
  return {
    kind: 'Rollout',
    apiVersion: r.apiVersion,
    namespace: r.namespace,
    name: r.name,
    workload: r.workload ?? null,
    state: r.state,
    reached: r.reached,
    step: r.step ?? null,
    steps: r.steps,
    stepState: r.stepState ?? null,
    canaryRevision: r.canaryRevision ?? null,
    stableRevision: r.stableRevision ?? null,
    canaryReadyReplicas: r.canaryReadyReplicas ?? null,
    canaryReplicas: r.canaryReplicas ?? null,
    trafficWeight: r.trafficWeight ?? null,
    release: r.release ?? null,
    workloadState: r.workloadState ?? null,
    ...(r.failing ? { failingPod: { name: r.failing.name, reason: r.failing.reason, container: r.failing.container, failingInSeconds: Math.max(0, Math.ceil((r.failing.failAt - now) / 1000)) } } : {}),
    message: releaseLine(r, now),
  };
}

export function releaseJsonLine(r: ReleaseReport, now: number = Date.now()): string {
  return JSON.stringify(releaseView(r, now));
}

/**
 * Identity of a state for de-duplication: a timed pause's countdown ("12s left") changes on every
 * event without being news, so it is left out.
 */
export function releaseKey(r: ReleaseReport): string {
  return [r.state, r.reached, r.step, r.stepState, r.canaryReadyReplicas, r.canaryReplicas, r.trafficWeight, r.release, r.failing?.name, r.failing?.reason, r.message.replace(/ \(\d+s left\)/, '')].join('\u0000');
}

/** Whether the report ends the wait (with --watch): the --until point, a failure or a timeout. */
export function releaseIsFinal(r: ReleaseReport): boolean {
  return r.reached || r.state === 'Failed' || r.state === 'TimedOut';
}
