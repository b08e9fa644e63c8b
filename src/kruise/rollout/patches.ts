// Writes the CLI makes on a Kruise Rollout, each with the reason when there is nothing to write. Field
// names follow openkruise/rollouts v0.6.2:
// - approve: the controller leaves StepPaused for StepReady (rollout_canary.go / rollout_bluegreen.go
//   runCanary, case StepPaused) and reads only the sub-status' currentStepState; v1beta1 mirrors it at the
//   top of status (rollout_status.go updateRolloutStatusInternal), v1alpha1 has no mirror. A status patch.
// - jump: status.<sub>.nextStepIndex, which api/v1beta1/rollout_types.go documents as patchable; the
//   controller acts on it in doStepJump (rollout_status.go) only during InRolling, for 1..steps, and
//   ignores the natural next step. Releases before v0.5 have no nextStepIndex.
// - pause/resume: spec.strategy.paused (the main resource).
// Each is a JSON patch conditional on what it was decided on (conditional-write.ts): approve and jump test
// the step, its state, the next step and the release's revision (the controller may have moved on since the
// read: an approval landing on the next step would promote a step nobody saw), pause/resume the generation
// (the spec as read; the controller's status writes leave it alone). movedSince is the re-decision.
import type { KubeObject } from '../types';
import type { JsonPatchOp } from '../containers';
import { changedFields, conditionalWrite, type ObservedField } from '../conditional-write';
import { readRollout } from './read';
import { PROGRESSING_REASON, STEP_STATE } from './labels';
import type { RolloutView } from './types';

export type PatchTarget = 'status' | 'main';

/** The state a write was decided on, for the words of movedSince. */
export interface RolloutIntent {
  verb: 'approve' | 'jump' | 'pause' | 'resume';
  step?: number;
  state?: string;
  next?: number;
  revision?: string;
}

export type RolloutPatchResult =
  | { patch: JsonPatchOp[]; subresource: PatchTarget; description: string; observed: ObservedField[]; intent: RolloutIntent }
  | { patch: undefined; reason: string; /** The request itself is invalid (exit 2), rather than the rollout not being there (exit 1). */ invalid?: boolean };

/**
 * The sub-status fields a step decision rests on: the step, its state and the release's revision (a new
 * release may stop at the same step), and for a jump the next step it overwrites.
 */
function stepFields(view: RolloutView, withNext: boolean): string[][] {
  const sub = ['status', view.subStatusField];
  const revision = view.subStatusField === 'canaryStatus' ? 'canaryRevision' : 'updatedRevision';
  return [[...sub, 'currentStepIndex'], [...sub, 'currentStepState'], [...sub, revision], ...(withNext ? [[...sub, 'nextStepIndex']] : [])];
}

function stepIntent(verb: RolloutIntent['verb'], view: RolloutView): RolloutIntent {
  const s = view.status;
  return { verb, step: s.currentStepIndex, state: s.currentStepState, next: s.nextStepIndex, revision: s.canaryRevision };
}

function stepLabel(view: RolloutView): string {
  const i = view.status.currentStepIndex;
  return i !== undefined ? `step ${i}/${view.steps.length}` : 'no step';
}

/** StepPaused → StepReady on the status subresource; nothing when no step waits. */
export function approvePatch(rollout: KubeObject): RolloutPatchResult {
  const view = readRollout(rollout);
  const s = view.status;
  const label = `rollout "${view.name}"`;
  if (!s.hasSubStatus || s.currentStepState !== STEP_STATE.Paused) {
    const where = s.currentStepState ? `${stepLabel(view)} is ${s.currentStepState}` : `phase ${s.phase ?? 'unknown'}`;
    return { patch: undefined, reason: `${label} is not waiting for approval (${where})` };
  }
  const changes: JsonPatchOp[] = [{ op: 'add', path: `/status/${view.subStatusField}/currentStepState`, value: STEP_STATE.Ready }];
  if (view.apiVersion === 'v1beta1') changes.push({ op: 'add', path: '/status/currentStepState', value: STEP_STATE.Ready });
  return {
    ...conditionalWrite(rollout, { rests: stepFields(view, false), changes }),
    subresource: 'status',
    description: `${label} approved at ${stepLabel(view)}`,
    intent: stepIntent('approve', view),
  };
}

/** Asks the controller to move to step `toStep` (1-based) through nextStepIndex. */
export function jumpPatch(rollout: KubeObject, toStep: number): RolloutPatchResult {
  const view = readRollout(rollout);
  const s = view.status;
  const label = `rollout "${view.name}"`;
  const steps = view.steps.length;
  if (!Number.isInteger(toStep) || toStep < 1 || toStep > steps) {
    return { patch: undefined, invalid: true, reason: `${label} has steps 1..${steps}: cannot jump to step ${toStep}` };
  }
  if (s.phase !== 'Progressing' || !s.hasSubStatus || s.currentStepState === STEP_STATE.Completed) {
    return { patch: undefined, reason: `${label} has no release in progress to jump in (phase ${s.phase ?? 'unknown'}${s.currentStepState ? `, ${s.currentStepState}` : ''})` };
  }
  if (s.progressing?.reason !== PROGRESSING_REASON.InRolling && s.progressing?.reason !== PROGRESSING_REASON.Paused) {
    return { patch: undefined, reason: `${label} is ${s.progressing?.reason ?? 'not rolling'}: the controller only jumps steps while InRolling` };
  }
  if (s.nextStepIndex === undefined) {
    return { patch: undefined, reason: `${label} has no status nextStepIndex: this Kruise Rollout release (before v0.5) cannot jump steps` };
  }
  const natural = (s.currentStepIndex ?? 0) >= steps ? -1 : (s.currentStepIndex ?? 0) + 1;
  // doStepJump's own test of a jump asked for: someone's jump the controller has not made yet is theirs to
  // finish (two fast rollbacks at once would otherwise go back twice).
  if (s.nextStepIndex !== natural && s.nextStepIndex > 0 && s.nextStepIndex <= steps) {
    return { patch: undefined, reason: `${label}: a jump from ${stepLabel(view)} to step ${s.nextStepIndex} is already under way (status nextStepIndex): run the command again once the controller has made it` };
  }
  if (toStep === natural) {
    return { patch: undefined, reason: `${label}: step ${toStep} is already the next step${s.currentStepState === STEP_STATE.Paused ? ' (approve the current one instead)' : ''}` };
  }
  return {
    ...conditionalWrite(rollout, { rests: stepFields(view, true), changes: [{ op: 'add', path: `/status/${view.subStatusField}/nextStepIndex`, value: toStep }] }),
    subresource: 'status',
    description: `${label} jumps from ${stepLabel(view)} to step ${toStep}`,
    intent: stepIntent('jump', view),
  };
}

/** Where the release is now, in words: `is at step 2/4 StepPaused`, `is complete`. */
function whereNow(view: RolloutView): string {
  const s = view.status;
  if (s.phase === 'Healthy' || s.currentStepState === STEP_STATE.Completed) return 'is complete';
  return `is at ${stepLabel(view)} ${s.currentStepState ?? ''}`.trim();
}

/**
 * Whether a Rollout re-read after a conflict is no longer in the state a write was decided on: undefined when it
 * still is (only fields the decision did not rest on changed: the write goes again), else why not, in the user's
 * terms (exit 1, nothing written).
 */
export function movedSince(decided: { observed: readonly ObservedField[]; intent: RolloutIntent }, fresh: KubeObject): string | undefined {
  const { intent } = decided;
  const view = readRollout(fresh);
  const label = `rollout "${view.name}"`;
  // Pausing rests on the Rollout not being paused yet, whatever else changed in its spec.
  if (intent.verb === 'pause' || intent.verb === 'resume') return view.paused === (intent.verb === 'pause') ? `${label} is already ${view.paused ? 'paused' : 'resumed'}` : undefined;
  if (changedFields(decided.observed, fresh).length === 0) return undefined;
  const s = view.status;
  const now = whereNow(view);
  const again = s.currentStepState === STEP_STATE.Paused ? `: run approve again to promote step ${s.currentStepIndex ?? '?'}` : '';
  if (intent.revision !== undefined && s.canaryRevision !== intent.revision) {
    return `${label}: a new release (revision ${s.canaryRevision ?? 'none'}) replaced the one read (revision ${intent.revision}): nothing was changed; the release ${now}${intent.verb === 'approve' ? again : ''}`;
  }
  const forward = (s.currentStepIndex ?? 0) > (intent.step ?? 0) || (s.currentStepIndex === intent.step && s.currentStepState === STEP_STATE.Ready) || now === 'is complete';
  if (intent.verb === 'approve' && forward) return `${label}: step ${intent.step ?? '?'} was already approved; the release ${now}${s.currentStepIndex !== intent.step ? again : ''}`;
  const next = s.nextStepIndex !== intent.next && intent.verb === 'jump' ? `, next step ${s.nextStepIndex ?? '?'}` : '';
  return `${label} moved on since it was read (it was at step ${intent.step ?? '?'}/${view.steps.length} ${intent.state ?? ''}; it ${now}${next}): nothing was changed; run the command again to act on where it is now`;
}

/** spec.strategy.paused = `paused`; nothing when it already is. */
export function pausePatch(rollout: KubeObject, paused: boolean): RolloutPatchResult {
  const view = readRollout(rollout);
  const label = `rollout "${view.name}"`;
  if (view.paused === paused) return { patch: undefined, reason: `${label} is already ${paused ? 'paused' : 'resumed'}` };
  return {
    ...conditionalWrite(rollout, { rests: [['spec', 'strategy', 'paused']], guards: [['metadata', 'generation']], changes: [{ op: 'add', path: '/spec/strategy/paused', value: paused }] }),
    subresource: 'main',
    description: `${label} ${paused ? 'paused' : 'resumed'}`,
    intent: { verb: paused ? 'pause' : 'resume' },
  };
}
