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
//
// `evaluateGate` is the CI gate over the composition (a workload and the Rollout releasing it): the
// workload's own verdict (src/kruise/progress.ts) decides unless a release of its current template is
// under way, and then the release's --until point must also be reached. Kruise Rollout marks a first
// deployment Healthy/Completed at once (rollout_status.go: "update the status just like the rollout was
// completed"), and a cancelled release stays Succeeded=False until the next one: neither says anything
// about the pods, so the workload's readiness is what the gate reads then.
import type { KubeObject } from '../types';
import { readRollout } from './read';
import { isFinalFullStep } from './step-math';
import { IN_ROLLOUT_PROGRESSING_ANNOTATION, PROGRESSING_REASON, STEP_STATE } from './labels';
import { unreleasedTemplate, unreleasedTemplateText } from './unreleased-template';
import type { RolloutView } from './types';

export type RolloutReleaseState = 'Progressing' | 'StepPaused' | 'Paused' | 'Complete' | 'Failed' | 'Blocked';

export type RolloutUntilPoint = { kind: 'complete' } | { kind: 'paused' } | { kind: 'step'; step: number };
/** One point, or several that must all hold (`--until` repeated, ANDed as `kubectl wait --for` does). */
export type RolloutUntil = RolloutUntilPoint | { kind: 'all'; points: RolloutUntilPoint[] };

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

/** A pod in a failing state whose grace runs down (progress.ts RolloutProgress.failing). */
export interface FailingPod {
  name: string;
  reason: string;
  container: string;
  /** The gate fails at this time (ms since epoch) unless the pod recovers. */
  failAt: number;
}

/** The verdict of `rollout status` on the workload itself (src/kruise/progress.ts), when computed. */
export interface WorkloadVerdict {
  /** progress.ts RolloutState: Progressing, Paused, PartitionComplete, Complete, Failed. */
  state: string;
  message: string;
  failing?: FailingPod;
}

export interface RolloutGateOptions {
  until?: RolloutUntil;
  /** The workload's own rollout verdict: a `Failed` one (pods failing) fails the release. */
  workloadVerdict?: WorkloadVerdict;
  /**
   * The user named the Rollout (`rollout status rollout/NAME`), asking whether its release went out: a
   * cancelled release (Succeeded=False, once the cancellation is done) is then its answer, a failure with
   * the reason, until the next release. Named by its workload (TYPE/NAME), the question is whether the workload is rolled out: the
   * stable pods coming back decide.
   */
  followsRollout?: boolean;
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

/** Parses `--until=paused|step=N|complete`, given once or several times (then all must hold). */
export function parseRolloutUntil(text: string | readonly string[] | undefined): RolloutUntil {
  if (Array.isArray(text)) {
    const points = text.map((t) => parseUntilPoint(t));
    return points.length === 1 ? points[0]! : { kind: 'all', points };
  }
  return parseUntilPoint(text as string | undefined);
}

function parseUntilPoint(text: string | undefined): RolloutUntilPoint {
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
  for (const point of until.kind === 'all' ? until.points : [until]) {
    if (point.kind === 'step' && point.step > view.steps.length) {
      throw new RolloutUntilError(`rollout "${view.name}" has ${view.steps.length} steps: --until=step=${point.step} cannot be reached`);
    }
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
  // What the wait is for says the --until point: a pipeline stopping at the canary is not waiting "to finish".
  const waiting = (detail: string, extra: Partial<RolloutRelease> = {}): RolloutRelease =>
    out('Progressing', `Waiting for ${label} ${untilGoal(until)}: ${detail}...`, extra);

  if (workload === null || (s.phase === 'Initial' && s.message === 'Workload Not Found')) {
    const ref = view.workloadRef ? `${view.workloadRef.kind}/${view.workloadRef.name}` : 'its workload';
    return out('Blocked', `${label} is blocked: workload ${ref} not found`);
  }
  if (view.disabled || s.phase === 'Disabled' || s.phase === 'Disabling') return out('Blocked', `${label} is disabled (spec.disabled): it does not drive the release`);
  if (s.phase === 'Terminating') return out('Blocked', `${label} is being deleted`);
  // "X of Y canary pods ready": Y is what the step waits for (its replicas resolved against the
  // workload's), not status.canaryReplicas, which is 0 until the step's first pods exist.
  const canaryWanted = current?.canaryReplicas ?? s.canaryReplicas ?? 0;
  const canaryText = `${s.canaryReadyReplicas ?? 0} of ${canaryWanted} canary pods ready`;
  const stepLine = `${stepText} ${s.currentStepState ?? ''}, ${canaryText}`;
  // A release under way whose status lags a write (the controller's own patch of the workload bumps
  // its generation several times a step): nothing is decided on the stale status, and the line stays
  // the step's rather than alternating with "has not observed" for a moment each time.
  const inStep = s.hasSubStatus && stepIndex !== undefined && s.phase === 'Progressing';
  if (view.generation !== undefined && s.observedGeneration !== view.generation) {
    return waiting(inStep ? stepLine : `the controller has not observed generation ${view.generation} yet`);
  }
  const wlGeneration = workload?.metadata.generation;
  if (wlGeneration !== undefined && workload && s.hasSubStatus && s.observedWorkloadGeneration !== wlGeneration && followsWorkloadGeneration(workload)) {
    return waiting(inStep ? stepLine : `the controller has not observed workload generation ${wlGeneration} yet`);
  }
  if (s.succeeded?.status === 'False') {
    return out('Failed', `${label} was cancelled${s.progressing?.message ? `: ${s.progressing.message}` : ''} (Succeeded=False)`);
  }
  if (opts.workloadVerdict?.state === 'Failed') return out('Failed', `${label} failed: ${opts.workloadVerdict.message}`);
  const idMatches = view.rolloutID === undefined || s.observedRolloutID === view.rolloutID;
  if (s.phase === 'Healthy' && s.currentStepState === STEP_STATE.Completed && idMatches) {
    return out('Complete', `${label} successfully rolled out`);
  }
  // Phase Healthy drives no release, whatever step the sub-status still shows: a Rollout disabled mid-release and
  // enabled again keeps the abandoned release's step (rollout_status.go: Disabled → Healthy leaves canaryStatus as
  // it was until the next release), which read as "waiting for approval" would have a person, or rollout verify,
  // approve a step of a release that no longer runs. (Found by the GitOps corpus, test/fixtures/gitops/corpus.)
  if (s.phase === 'Healthy' && s.hasSubStatus && idMatches) {
    return out('Complete', `${label} is healthy: no release in progress (its status keeps ${stepText} ${s.currentStepState ?? ''} of a release it no longer drives)`, { step: undefined, stepState: undefined });
  }
  if (s.progressing?.reason === PROGRESSING_REASON.Cancelling) return waiting('cancelling (the workload was rolled back)');
  if (view.paused || s.progressing?.reason === PROGRESSING_REASON.Paused) {
    return out('Paused', `${label} is paused (spec.strategy.paused) at ${stepText}: resume it to continue`);
  }
  if (s.currentStepState === STEP_STATE.Paused && stepIndex !== undefined && current && !isFinalFullStep(view.steps, stepIndex, view.strategy)) {
    if (current.pauseSeconds === undefined) {
      return out('StepPaused', `${label} is waiting for approval at ${stepText} (${canaryText}): approve it to continue`);
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
  return waiting(stepLine);
}

/** "to finish", "to pause at a step", "to reach step 2", "to pause at a step and reach step 2". */
function untilGoal(until: RolloutUntil): string {
  const one = (p: RolloutUntilPoint): string => (p.kind === 'complete' ? 'finish' : p.kind === 'paused' ? 'pause at a step' : `reach step ${p.step}`);
  return `to ${until.kind === 'all' ? until.points.map(one).join(' and ') : one(until)}`;
}

const STEP_DONE_STATES: ReadonlySet<string> = new Set([STEP_STATE.Paused, STEP_STATE.Ready, STEP_STATE.Completed]);

function isReached(r: RolloutRelease, until: RolloutUntil): boolean {
  if (r.state === 'Failed' || r.state === 'Blocked') return false;
  if (r.state === 'Complete') return true;
  switch (until.kind) {
    case 'all':
      return until.points.every((p) => isReached(r, p));
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


/**
 * How the workload's current template stands with its Rollout (openkruise/rollouts v0.6.2, the same in
 * v0.4.4):
 * - `none`: no release of it (first deployment, release completed, Rollout disabled): the workload decides;
 * - `cancelled`: as `none`, the last release having been cancelled (Succeeded=False: the template went
 *   back to the stable revision, rollout_progressing.go handleRollbackDirectly → Cancelling → Completed);
 * - `starting`: the workload webhook holds the new template (in-progressing annotation) or the controller
 *   has not observed the workload's generation yet (rollout_status.go only follows it once canaryRevision
 *   is the workload's): the release has not started, and the workload's partition is not its own;
 * - `in-progress`: phase Progressing (Initializing, InRolling, Paused, Finalising), a rollback in batches included
 *   (reason Completed under phase Progressing is the end of one: finalised, phase Healthy next);
 * - `cancelling`: Progressing reason Cancelling: the Rollout hands the workload back (doFinalising);
 * - `detaching`: Disabling or Terminating: the same hand-back, for a disabled or deleted Rollout.
 */
export type ReleaseStage = 'none' | 'cancelled' | 'starting' | 'in-progress' | 'cancelling' | 'detaching';

/**
 * Whether status.observedWorkloadGeneration follows the workload now. rollout_status.go
 * calculateRolloutStatus updates it only while the workload's canary revision is the status' one, and
 * Kruise Rollout master reads a native (apps/v1) DaemonSet's revisions only while it holds it
 * (controller_finder.go getNativeDaemonSet, under the in-progressing mark): once the release hands it
 * back, the field stays behind, and the hand-back itself (Finalize restoring updateStrategy) bumps the
 * generation. Unheld, a template change of such a DaemonSet is not the Rollout's (its webhook holds every
 * change it releases), so the lag says nothing and the DaemonSet's own verdict decides.
 */
export function followsWorkloadGeneration(workload: KubeObject): boolean {
  const nativeDaemonSet = workload.kind === 'DaemonSet' && workload.apiVersion === 'apps/v1';
  return !nativeDaemonSet || IN_ROLLOUT_PROGRESSING_ANNOTATION in (workload.metadata.annotations ?? {});
}

export function releaseStage(view: RolloutView, workload: KubeObject): ReleaseStage {
  const s = view.status;
  if (s.phase === 'Disabling' || s.phase === 'Terminating') return 'detaching';
  if (view.disabled || s.phase === 'Disabled') return 'none';
  // Reason Completed under phase Progressing: finalised, the workload handed back; phase Healthy follows.
  if (s.phase === 'Progressing' && s.progressing?.reason !== PROGRESSING_REASON.Completed) {
    return s.progressing?.reason === PROGRESSING_REASON.Cancelling ? 'cancelling' : 'in-progress';
  }
  const held = IN_ROLLOUT_PROGRESSING_ANNOTATION in (workload.metadata.annotations ?? {});
  const generation = workload.metadata.generation;
  const lagging = s.hasSubStatus && generation !== undefined && s.observedWorkloadGeneration !== generation && followsWorkloadGeneration(workload);
  if (held || lagging) return 'starting';
  return s.succeeded?.status === 'False' ? 'cancelled' : 'none';
}

export interface GateVerdict extends RolloutRelease {
  release: ReleaseStage;
  /** The workload's own verdict state (undefined until computed). */
  workloadState?: string;
  /** A failing pod of the workload whose grace runs down (shown as a countdown). */
  failing?: FailingPod;
}

const DONE_WORKLOAD_STATES: ReadonlySet<string> = new Set(['Complete', 'PartitionComplete']);

/**
 * The gate of a workload under a Rollout (`rollout status TYPE/NAME`, and `rollout/NAME` for its
 * workload): the workload's own verdict and, while a release of its current template is under way, the
 * release's --until point. `workload` null: looked up and missing; undefined: a kind the CLI does not
 * read (the Rollout alone decides). Throws RolloutUntilError for a step the Rollout does not have.
 */
export function evaluateGate(rollout: KubeObject, workload: KubeObject | null | undefined, now: number, opts: RolloutGateOptions = {}): GateVerdict {
  const verdict = opts.workloadVerdict;
  const release = evaluateRolloutRelease(rollout, workload, now, { until: opts.until });
  if (!workload) return { ...release, release: 'none', workloadState: verdict?.state, failing: verdict?.failing };
  const view = readRollout(rollout, workload);
  const stage = releaseStage(view, workload);
  const label = `rollout "${view.name}"`;
  const base: GateVerdict = { ...release, release: stage, workloadState: verdict?.state, failing: verdict?.failing };
  const releasing = stage === 'in-progress' || stage === 'cancelling';
  // The sub-status describes the last release: its step means nothing once none is under way.
  const fields: Partial<GateVerdict> = releasing ? {} : { step: undefined, stepState: undefined, trafficWeight: undefined, canaryReplicas: undefined, canaryReadyReplicas: undefined, pauseEndsAt: undefined, recheckAt: undefined };
  const out = (state: RolloutReleaseState, reached: boolean, message: string): GateVerdict => ({ ...base, ...fields, state, reached, message });
  const workloadWaits = (): string => verdict?.message ?? `Waiting for the workload ${view.workloadRef ? `${view.workloadRef.kind}/${view.workloadRef.name}` : ''} to be read...`;

  if (view.generation !== undefined && view.status.observedGeneration !== view.generation) return out('Progressing', false, release.message);
  if (verdict?.state === 'Failed') return out('Failed', false, `${label} failed: ${verdict.message}`);
  // The controller does not find a workload that exists: it has not looked again yet, or its release does
  // not release the kind (a native DaemonSet before Kruise Rollout master). The Rollout's answer is that it
  // is blocked; the workload, released by nobody, answers for itself.
  if (release.state === 'Blocked' && view.status.phase === 'Initial' && view.status.message === 'Workload Not Found') {
    const nativeDaemonSet = workload.kind === 'DaemonSet' && workload.apiVersion === 'apps/v1';
    const why = nativeDaemonSet ? 'Kruise Rollout releases native DaemonSets from master on' : 'the controller has not found it yet';
    if (opts.followsRollout) return out('Blocked', false, `${label} is blocked: its controller reports Workload Not Found although ${workload.kind ?? ''}/${workload.metadata.name ?? ''} exists (${why})`);
    if (verdict && DONE_WORKLOAD_STATES.has(verdict.state)) return out('Complete', true, verdict.message);
    if (verdict?.state === 'Paused') return out('Paused', false, verdict.message);
    return out('Progressing', false, workloadWaits());
  }
  const unreleased = stage === 'starting' ? unreleasedTemplate(view, workload) : undefined;
  if (unreleased) {
    // Nobody will release it: the workload's own verdict is the answer, and a hold is a failure.
    const held = verdict !== undefined && (verdict.state === 'PartitionComplete' || verdict.state === 'Paused');
    const text = unreleasedTemplateText(view, workload, unreleased, held);
    if (held) return { ...out('Failed', false, text), release: 'none' };
    if (verdict?.state === 'Complete') return { ...out('Complete', true, `${label} successfully rolled out (${text})`), release: 'none' };
    return { ...out('Progressing', false, `${workloadWaits()} (${text})`), release: 'none' };
  }
  switch (stage) {
    case 'detaching':
      return out('Progressing', false, `Waiting for ${label} to hand the workload back (phase ${view.status.phase ?? ''})...`);
    case 'starting':
      return out('Progressing', false, `Waiting for ${label} to start releasing workload generation ${workload.metadata.generation ?? '?'}...`);
    case 'cancelling':
      return out('Progressing', false, `Waiting for ${label} to cancel its release (the workload was rolled back)...`);
    case 'in-progress':
      // A step is reached (--until=paused|step=N) once its batch is Ready: the BatchRelease counts the
      // batch's updated pods ready (batchrelease_executor.go checkBatchReady), whatever the workload's
      // own availability says (blue-green holds new pods unavailable on purpose: minReadySeconds).
      // --until=complete needs phase Healthy, which is stage `none`: the workload's readiness then.
      return base;
    case 'none':
    case 'cancelled': {
      const cancelled = stage === 'cancelled' ? ` (its last release was cancelled: the workload was rolled back)` : '';
      const done = verdict !== undefined && DONE_WORKLOAD_STATES.has(verdict.state);
      if (stage === 'cancelled' && opts.followsRollout) return out('Failed', false, cancelledText(label, view));
      // Finalised (Progressing, reason Completed): the very next pass sets phase Healthy
      // (rollout_progressing.go, case ProgressingReasonCompleted). Passing before it would let a pipeline
      // read the Rollout as Progressing right after the gate said done (seen in CI).
      if (done && view.status.phase === 'Progressing') return out('Progressing', false, `Waiting for ${label} to finish: finalised, phase Healthy next...`);
      if (verdict && done) {
        return out('Complete', true, verdict.state === 'Complete' ? `${label} successfully rolled out${cancelled}` : `${label}: ${verdict.message}${cancelled}`);
      }
      if (verdict?.state === 'Paused') return out('Paused', false, verdict.message);
      return out('Progressing', false, workloadWaits());
    }
  }
}

/** `rollout "web" was cancelled: the workload was rolled back to its stable revision: Rollout progressing has been cancelled (Succeeded=False)` */
function cancelledText(label: string, view: RolloutView): string {
  const why = view.status.succeeded?.message || view.status.progressing?.message;
  return `${label} was cancelled: the workload was rolled back to its stable revision${why ? `: ${why}` : ''} (Succeeded=False)`;
}

/**
 * What Kruise Rollout does when `rollout undo` puts `targetHash` (the hash of the revision restored) on a
 * workload it releases (rollout_progressing.go doProgressingInRolling): during a release, going back to
 * its stable revision cancels it (isRollingBackDirectly; in batches with the rollback-in-batch
 * annotation: isRollingBackInBatches), any other template restarts it (isContinuousRelease); with no
 * release under way the template change starts one.
 */
export function undoUnderRollout(rollout: KubeObject, workload: KubeObject, targetHash: string, inBatches: boolean): 'cancel' | 'rollback-in-batches' | 'restart' | 'release' {
  const view = readRollout(rollout, workload);
  const stage = releaseStage(view, workload);
  if (stage !== 'in-progress' && stage !== 'starting') return 'release';
  // master's getNativeDaemonSet sees a rollback only when the DaemonSet has a single ControllerRevision;
  // an undo makes the stable revision the newest, i.e. a new canary: the release starts again
  if (workload.kind === 'DaemonSet' && workload.apiVersion === 'apps/v1') return 'restart';
  const stable = view.status.stableRevision;
  if (stable !== undefined && (stable === targetHash || stable.endsWith(`-${targetHash}`))) return inBatches ? 'rollback-in-batches' : 'cancel';
  return 'restart';
}
