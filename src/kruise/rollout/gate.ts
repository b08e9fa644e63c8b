// The CI gate over a Kruise Rollout (contract "Kruise Rollout": `rollout status rollout/NAME`): one pure
// function decides, from the Rollout, its workload and the clock, where the release stands and whether
// the `--until` point is reached. The command only watches and prints.
//
// "Done" is the controller's own notion (openkruise/rollouts v0.6.2):
// - rollout_progressing.go reconcileRolloutProgressing: Finalising ends with Progressing=False reason
//   Completed and Succeeded=True; the next pass (reason Completed) sets phase Healthy.
// - rollout_status.go calculateRolloutStatus: the sub-status keeps currentStepState Completed, and
//   observedWorkloadGeneration / observedRolloutID follow the workload once it is the canary revision;
//   its comment gives the advice "observedRolloutID == rolloutID && currentStepState == Completed".
// - Cancelling (the workload rolled back) ends with Succeeded=False: the release failed.
// - Phase Initial with message "Workload Not Found": nothing can happen until the workload exists.
import type { KubeObject } from '../types';
import { readRollout } from './read';
import { isFinalFullStep } from './step-math';
import { PROGRESSING_REASON, STEP_STATE } from './labels';

export type RolloutReleaseState = 'Progressing' | 'StepPaused' | 'Paused' | 'Complete' | 'Failed' | 'Blocked';

export type RolloutUntil = { kind: 'complete' } | { kind: 'paused' } | { kind: 'step'; step: number };

export interface RolloutRelease {
  namespace: string;
  name: string;
  state: RolloutReleaseState;
  /** Whether the `--until` point is reached (always false for Failed and Blocked). */
  reached: boolean;
  /** Human line. */
  message: string;
  // JSON Lines fields named by the contract.
  step?: number;
  steps: number;
  stepState?: string;
  canaryRevision?: string;
  stableRevision?: string;
  canaryReadyReplicas?: number;
  canaryReplicas?: number;
  trafficWeight?: string;
  /** A timed step pause ends at this time (ms since epoch). */
  pauseEndsAt?: number;
  /** Re-evaluate at this time even without events (the end of a timed pause). */
  recheckAt?: number;
}

/** The failure verdict of `rollout status` on the workload itself (src/kruise/progress.ts), when computed. */
export interface WorkloadVerdict {
  state: string;
  message: string;
}

export interface RolloutGateOptions {
  until?: RolloutUntil;
  /** The workload's own rollout verdict: a `Failed` one (pods failing) fails the release. */
  workloadVerdict?: WorkloadVerdict;
}

/** Exit codes by outcome (contract: 0 reached, 1 failed/cancelled, 4 not there yet with --watch=false; 3 timeout is the watcher's). */
export const ROLLOUT_RELEASE_EXIT = { reached: 0, failed: 1, notYet: 4 } as const;

export function rolloutReleaseExitCode(r: RolloutRelease): number {
  if (r.reached) return ROLLOUT_RELEASE_EXIT.reached;
  return r.state === 'Failed' ? ROLLOUT_RELEASE_EXIT.failed : ROLLOUT_RELEASE_EXIT.notYet;
}

export class RolloutUntilError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RolloutUntilError';
  }
}

/** Parses `--until=paused|step=N|complete`. */
export function parseRolloutUntil(text: string | undefined): RolloutUntil {
  if (text === undefined || text === 'complete') return { kind: 'complete' };
  if (text === 'paused') return { kind: 'paused' };
  const m = /^step=([1-9]\d*)$/.exec(text);
  if (m) return { kind: 'step', step: Number(m[1]) };
  throw new RolloutUntilError(`invalid --until ${JSON.stringify(text)}: expected paused, step=N (N ≥ 1) or complete`);
}

/**
 * Where the release of `rollout` stands. `workload`: the referenced workload, `null` when it was looked up
 * and is missing, undefined when not looked up. Throws RolloutUntilError when `until` names a step the
 * Rollout does not have.
 */
export function evaluateRolloutRelease(rollout: KubeObject, workload: KubeObject | null | undefined, now: number, opts: RolloutGateOptions = {}): RolloutRelease {
  const view = readRollout(rollout, workload);
  const until = opts.until ?? { kind: 'complete' };
  if (until.kind === 'step' && until.step > view.steps.length) {
    throw new RolloutUntilError(`rollout "${view.name}" has ${view.steps.length} steps: --until=step=${until.step} cannot be reached`);
  }
  const s = view.status;
  const steps = view.steps.length;
  const stepIndex = s.currentStepIndex;
  const current = stepIndex !== undefined ? view.steps[stepIndex - 1] : undefined;
  const base: RolloutRelease = {
    namespace: view.namespace,
    name: view.name,
    state: 'Progressing',
    reached: false,
    message: '',
    step: stepIndex,
    steps,
    stepState: s.currentStepState,
    canaryRevision: s.canaryRevision,
    stableRevision: s.stableRevision,
    canaryReadyReplicas: s.canaryReadyReplicas,
    canaryReplicas: s.canaryReplicas,
    trafficWeight: current?.traffic,
  };
  const label = `rollout "${view.name}"`;
  const stepText = stepIndex !== undefined ? `step ${stepIndex}/${steps}` : `${steps} steps`;
  const out = (state: RolloutReleaseState, message: string, extra: Partial<RolloutRelease> = {}): RolloutRelease => {
    const r = { ...base, ...extra, state, message };
    return { ...r, reached: isReached(r, until) };
  };
  const waiting = (detail: string, extra: Partial<RolloutRelease> = {}): RolloutRelease =>
    out('Progressing', `Waiting for ${label} to finish: ${detail}...`, extra);

  if (workload === null || (s.phase === 'Initial' && s.message === 'Workload Not Found')) {
    const ref = view.workloadRef ? `${view.workloadRef.kind}/${view.workloadRef.name}` : 'its workload';
    return out('Blocked', `${label} is blocked: workload ${ref} not found`);
  }
  if (view.disabled || s.phase === 'Disabled' || s.phase === 'Disabling') return out('Blocked', `${label} is disabled (spec.disabled): it does not drive the release`);
  if (s.phase === 'Terminating') return out('Blocked', `${label} is being deleted`);
  if (view.generation !== undefined && s.observedGeneration !== view.generation) {
    return waiting(`the controller has not observed generation ${view.generation} yet`);
  }
  const wlGeneration = workload?.metadata.generation;
  if (wlGeneration !== undefined && s.hasSubStatus && s.observedWorkloadGeneration !== wlGeneration) {
    return waiting(`the controller has not observed workload generation ${wlGeneration} yet`);
  }
  if (s.succeeded?.status === 'False') {
    return out('Failed', `${label} was cancelled${s.progressing?.message ? `: ${s.progressing.message}` : ''} (Succeeded=False)`);
  }
  if (opts.workloadVerdict?.state === 'Failed') return out('Failed', `${label} failed: ${opts.workloadVerdict.message}`);
  const idMatches = view.rolloutID === undefined || s.observedRolloutID === view.rolloutID;
  if (s.phase === 'Healthy' && s.currentStepState === STEP_STATE.Completed && idMatches) {
    return out('Complete', `${label} successfully rolled out`);
  }
  if (s.progressing?.reason === PROGRESSING_REASON.Cancelling) return waiting('cancelling (the workload was rolled back)');
  if (view.paused || s.progressing?.reason === PROGRESSING_REASON.Paused) {
    return out('Paused', `${label} is paused (spec.strategy.paused) at ${stepText}: resume it to continue`);
  }
  if (s.currentStepState === STEP_STATE.Paused && stepIndex !== undefined && current && !isFinalFullStep(view.steps, stepIndex, view.strategy)) {
    if (current.pauseSeconds === undefined) {
      return out('StepPaused', `${label} is waiting for approval at ${stepText} (${s.canaryReadyReplicas ?? 0} of ${s.canaryReplicas ?? 0} canary pods ready): approve it to continue`);
    }
    const since = s.lastUpdateTime ? Date.parse(s.lastUpdateTime) : NaN;
    if (Number.isFinite(since)) {
      const endsAt = since + current.pauseSeconds * 1000;
      const left = Math.max(0, Math.ceil((endsAt - now) / 1000));
      return waiting(`${stepText} pauses for ${current.pauseSeconds}s (${left}s left)`, { pauseEndsAt: endsAt, recheckAt: endsAt > now ? endsAt : undefined });
    }
    return waiting(`${stepText} pauses for ${current.pauseSeconds}s`);
  }
  if (s.currentStepState === STEP_STATE.Completed) return waiting('finalising');
  if (!s.hasSubStatus) return waiting(`phase ${s.phase ?? 'unknown'}`);
  return waiting(`${stepText} ${s.currentStepState ?? ''}, ${s.canaryReadyReplicas ?? 0} of ${s.canaryReplicas ?? 0} canary pods ready`.trim());
}

const STEP_DONE_STATES: ReadonlySet<string> = new Set([STEP_STATE.Paused, STEP_STATE.Ready, STEP_STATE.Completed]);

function isReached(r: RolloutRelease, until: RolloutUntil): boolean {
  if (r.state === 'Failed' || r.state === 'Blocked') return false;
  if (r.state === 'Complete') return true;
  switch (until.kind) {
    case 'complete':
      return false;
    case 'paused':
      // Stopped at a step: waiting for a person, paused by one, or in a timed pause (the canary is up).
      return r.state === 'StepPaused' || r.state === 'Paused' || (r.stepState === STEP_STATE.Paused && r.pauseEndsAt !== undefined);
    case 'step':
      // Step N is reached once its batch is up (StepPaused onwards) or the release is past it.
      if (r.step === undefined) return false;
      return r.step > until.step || (r.step === until.step && r.stepState !== undefined && STEP_DONE_STATES.has(r.stepState));
  }
}

