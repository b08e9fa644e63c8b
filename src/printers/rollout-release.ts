// How `rollout status rollout/NAME` reports a change of a Kruise Rollout release: a human line
// (the gate's message, with the traffic weight of the step) or one JSON Lines object with the
// contract's fields (state, step, steps, stepState, revisions, canary pods, trafficWeight).
import type { RolloutRelease } from '../kruise/rollout/gate';

/** The gate's states plus the watcher's own TimedOut. */
export type ReleaseReportState = RolloutRelease['state'] | 'TimedOut';

export interface ReleaseReport extends Omit<RolloutRelease, 'state'> {
  state: ReleaseReportState;
  /** "rollouts.kruise.io/v1beta1" */
  apiVersion: string;
  /** The workload the Rollout releases, e.g. "CloneSet/web". */
  workload?: string;
}

/** The message, and the step's traffic weight when it routes some. */
export function releaseLine(r: ReleaseReport): string {
  if (!r.trafficWeight || r.state === 'Complete' || r.state === 'Failed' || r.state === 'Blocked') return r.message;
  const note = `traffic ${r.trafficWeight}`;
  return r.message.endsWith('...') ? `${r.message.slice(0, -3)}; ${note}...` : `${r.message} (${note})`;
}

/** The contract's JSON Lines object, fields in a stable order; absent values are null, not missing. */
export function releaseView(r: ReleaseReport): Record<string, unknown> {
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
    message: releaseLine(r),
  };
}

export function releaseJsonLine(r: ReleaseReport): string {
  return JSON.stringify(releaseView(r));
}

/**
 * Identity of a state for de-duplication: a timed pause's countdown ("12s left") changes on every
 * event without being news, so it is left out.
 */
export function releaseKey(r: ReleaseReport): string {
  return [r.state, r.reached, r.step, r.stepState, r.canaryReadyReplicas, r.canaryReplicas, r.trafficWeight, r.message.replace(/ \(\d+s left\)/, '')].join('\u0000');
}

/** Whether the report ends the wait (with --watch): the --until point, a failure or a timeout. */
export function releaseIsFinal(r: ReleaseReport): boolean {
  return r.reached || r.state === 'Failed' || r.state === 'TimedOut';
}
