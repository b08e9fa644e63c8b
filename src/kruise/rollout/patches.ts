// Writes the CLI makes on a Kruise Rollout, as merge patches, each with the reason when there is nothing
// to write. Field names follow openkruise/rollouts v0.6.2:
// - approve: the controller leaves StepPaused for StepReady (rollout_canary.go / rollout_bluegreen.go
//   runCanary, case StepPaused) and reads only the sub-status' currentStepState; v1beta1 mirrors it at the
//   top of status (rollout_status.go updateRolloutStatusInternal), v1alpha1 has no mirror. A status patch.
// - jump: status.<sub>.nextStepIndex, which api/v1beta1/rollout_types.go documents as patchable; the
//   controller acts on it in doStepJump (rollout_status.go) only during InRolling, for 1..steps, and
//   ignores the natural next step. Releases before v0.5 have no nextStepIndex.
// - pause/resume: spec.strategy.paused (the main resource).
// Every patch carries metadata.resourceVersion: the controller may have moved on since the read, and
// an approval landing on the next step's StepInit would skip that step's upgrade.
import type { KubeObject } from '../types';
import { readRollout } from './read';
import { PROGRESSING_REASON, STEP_STATE } from './labels';
import type { RolloutView } from './types';

export type PatchTarget = 'status' | 'main';

/**
 * The state a write was decided on (the step and its state, the next step asked for): after a conflict the
 * write is made again only if the Rollout is still there (movedSince), never re-decided on whatever it has
 * become — two approvals at once must promote one step, not two.
 */
export interface RolloutIntent {
  verb: 'approve' | 'jump';
  step?: number;
  state?: string;
  next?: number;
}

export type RolloutPatchResult =
  | { patch: Record<string, unknown>; subresource: PatchTarget; description: string; intent?: RolloutIntent }
  | { patch: undefined; reason: string; /** The request itself is invalid (exit 2), rather than the rollout not being there (exit 1). */ invalid?: boolean };

function withVersion(obj: KubeObject, body: Record<string, unknown>): Record<string, unknown> {
  const rv = obj.metadata.resourceVersion;
  return rv ? { metadata: { resourceVersion: rv }, ...body } : body;
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
  const status: Record<string, unknown> = { [view.subStatusField]: { currentStepState: STEP_STATE.Ready } };
  if (view.apiVersion === 'v1beta1') status.currentStepState = STEP_STATE.Ready;
  return {
    patch: withVersion(rollout, { status }),
    subresource: 'status',
    description: `${label} approved at ${stepLabel(view)}`,
    intent: { verb: 'approve', step: s.currentStepIndex, state: s.currentStepState },
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
  if (toStep === natural) {
    return { patch: undefined, reason: `${label}: step ${toStep} is already the next step${s.currentStepState === STEP_STATE.Paused ? ' (approve the current one instead)' : ''}` };
  }
  return {
    patch: withVersion(rollout, { status: { [view.subStatusField]: { nextStepIndex: toStep } } }),
    subresource: 'status',
    description: `${label} jumps from ${stepLabel(view)} to step ${toStep}`,
    intent: { verb: 'jump', step: s.currentStepIndex, state: s.currentStepState, next: s.nextStepIndex },
  };
}

/** Where the release is now, in words: `step 2/4 StepPaused`, `complete`. */
function whereNow(view: RolloutView): string {
  const s = view.status;
  if (s.phase === 'Healthy' || s.currentStepState === STEP_STATE.Completed) return 'complete';
  return `${stepLabel(view)} ${s.currentStepState ?? ''}`.trim();
}

/**
 * Whether a Rollout re-read after a conflict is no longer in the state a write was decided on: undefined when it
 * still is (the write goes again), else why not, in the user's terms (exit 1, nothing written).
 */
export function movedSince(intent: RolloutIntent, fresh: KubeObject): string | undefined {
  const view = readRollout(fresh);
  const s = view.status;
  const same = s.currentStepIndex === intent.step && s.currentStepState === intent.state && (intent.verb !== 'jump' || s.nextStepIndex === intent.next);
  if (same) return undefined;
  const label = `rollout "${view.name}"`;
  const now = whereNow(view);
  if (intent.verb === 'approve') {
    const again = s.currentStepState === STEP_STATE.Paused && s.currentStepIndex !== intent.step ? `: run approve again to promote step ${s.currentStepIndex}` : '';
    return `${label}: step ${intent.step ?? '?'} was already approved; the release is at ${now}${again}`;
  }
  return `${label} moved on since it was read (it was at step ${intent.step ?? '?'}/${view.steps.length} ${intent.state ?? ''}; it is ${now === 'complete' ? 'complete' : `at ${now}`}${s.nextStepIndex !== intent.next ? `, next step ${s.nextStepIndex ?? '?'}` : ''}): nothing was changed; run the command again to act on where it is now`;
}

/** spec.strategy.paused = `paused`; nothing when it already is. */
export function pausePatch(rollout: KubeObject, paused: boolean): RolloutPatchResult {
  const view = readRollout(rollout);
  const label = `rollout "${view.name}"`;
  if (view.paused === paused) return { patch: undefined, reason: `${label} is already ${paused ? 'paused' : 'resumed'}` };
  return {
    patch: withVersion(rollout, { spec: { strategy: { paused } } }),
    subresource: 'main',
    description: `${label} ${paused ? 'paused' : 'resumed'}`,
  };
}
