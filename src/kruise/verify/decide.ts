// What `rollout verify` does next, from one read of the Rollout (and its workload): the pure decision the
// command loops on. The Rollout's own state machine says where the release is (rollout/gate.ts
// evaluateRolloutRelease); the verdicts recorded on it (verdict.ts) say what was decided about its steps.
// In order:
// - the release complete: done (exit 0), whatever was recorded (a person may have let a failed step go on);
// - a verdict `fail` recorded for this release: carry out --on-failure (idempotent: a rerun after an
//   interrupted rollback finishes it), then exit 1; a release cancelled without one: exit 1;
// - `--until=step=N` reached (the release at step N or past it): done (exit 0), step N unchecked;
// - a step waiting for approval: its recorded `pass` → approve; its checks not yet decided → check; a step
//   without checks → approve with --approve-unchecked, else leave it to people (wait);
// - anything else: wait for the Rollout to change.
// Pure.
import type { KubeObject } from '../types';
import { evaluateRolloutRelease } from '../rollout/gate';
import { readRollout } from '../rollout/read';
import { unreleasedTemplate, unreleasedTemplateText } from '../rollout/unreleased-template';
import { isFinalFullStep } from '../rollout/step-math';
import type { RolloutView } from '../rollout/types';
import { CheckInputError, stepsOf, type VerifyCheck } from './checks';
import { recordedVerdicts, type VerdictRecord } from './verdict';

export interface VerifyPlan {
  /** Step → the names of the checks run there. */
  checked: ReadonlyMap<number, readonly string[]>;
  approveUnchecked: boolean;
  untilStep?: number;
}

/** Where the release stands, for the output. */
export interface ReleasePoint {
  revision?: string;
  podTemplateHash?: string;
  stableRevision?: string;
  step?: number;
  steps: number;
  stepState?: string;
}

export type VerifyAction =
  | { kind: 'complete'; message: string }
  | { kind: 'until'; message: string }
  | { kind: 'cancelled'; message: string }
  /** A template its Rollout will never release (unreleased-template.ts): nothing to steer. */
  | { kind: 'unreleased'; message: string }
  | { kind: 'rollback'; record: VerdictRecord }
  | { kind: 'check'; step: number; revision: string; checks: readonly string[] }
  | { kind: 'approve'; step: number; revision: string; record?: VerdictRecord }
  | { kind: 'wait'; message: string };

/** The steps a person must approve: no pause duration, and not a canary's final "100%" step (it goes on by itself). */
export function manualSteps(view: RolloutView): number[] {
  return view.steps.filter((s) => s.pauseSeconds === undefined && !isFinalFullStep(view.steps, s.index, view.strategy)).map((s) => s.index);
}

/**
 * Which checks run at which step, refusing (CheckInputError: exit 2, nothing written) a step the Rollout does
 * not have or one that does not wait for a person: the controller would move on while the checks run.
 */
export function planChecks(rollout: KubeObject, checks: readonly VerifyCheck[], o: { approveUnchecked: boolean; untilStep?: number }): VerifyPlan {
  const view = readRollout(rollout);
  const manual = manualSteps(view);
  const label = `rollout "${view.name}"`;
  const checked = new Map<number, string[]>();
  for (const c of checks) {
    const steps = stepsOf(c, manual);
    if (steps.length === 0) throw new CheckInputError(`${c.origin}: ${label} has no step waiting for approval to check (its steps: ${describeSteps(view)}); name one with step`);
    for (const n of steps) {
      const step = view.steps[n - 1];
      if (!step) throw new CheckInputError(`${c.origin}: ${label} has steps 1..${view.steps.length}: there is no step ${n}`);
      if (!manual.includes(n)) {
        const why = step.pauseSeconds !== undefined ? `pauses for ${step.pauseSeconds}s and then goes on by itself` : 'is the last step (100%): the release completes with it';
        throw new CheckInputError(`${c.origin}: step ${n} of ${label} ${why}; checks run at steps waiting for approval (${manual.length ? manual.join(', ') : 'none'})`);
      }
      checked.set(n, [...(checked.get(n) ?? []), c.name]);
    }
  }
  if (o.untilStep !== undefined && o.untilStep > view.steps.length) throw new CheckInputError(`--until=step=${o.untilStep}: ${label} has ${view.steps.length} steps`);
  return { checked, approveUnchecked: o.approveUnchecked, untilStep: o.untilStep };
}

function describeSteps(view: RolloutView): string {
  return view.steps.map((s) => `${s.index}: ${s.replicas ?? '?'}${s.pauseSeconds !== undefined ? ` ${s.pauseSeconds}s` : isFinalFullStep(view.steps, s.index, view.strategy) ? '' : ' manual'}`).join(', ');
}

export function releasePoint(view: RolloutView): ReleasePoint {
  const s = view.status;
  return { revision: s.canaryRevision, podTemplateHash: s.podTemplateHash, stableRevision: s.stableRevision, step: s.currentStepIndex, steps: view.steps.length, stepState: s.currentStepState };
}

export function decideVerify(rollout: KubeObject, workload: KubeObject | null | undefined, plan: VerifyPlan, now: number): VerifyAction {
  const release = evaluateRolloutRelease(rollout, workload, now);
  const view = readRollout(rollout, workload);
  const s = view.status;
  const revision = s.canaryRevision;
  const label = `rollout "${view.name}"`;
  if (release.state === 'Complete') return { kind: 'complete', message: release.message };
  const unreleased = unreleasedTemplate(view, workload);
  if (unreleased && workload) return { kind: 'unreleased', message: unreleasedTemplateText(view, workload, unreleased, undefined) };
  const failed = [...recordedVerdicts(rollout, revision).values()].find((r) => r.verdict === 'fail');
  if (failed) return { kind: 'rollback', record: failed };
  if (release.state === 'Failed') return { kind: 'cancelled', message: release.message };
  const step = s.currentStepIndex;
  if (plan.untilStep !== undefined && step !== undefined && release.state !== 'Blocked') {
    const up = step > plan.untilStep || (step === plan.untilStep && (s.currentStepState === 'StepPaused' || s.currentStepState === 'StepReady' || s.currentStepState === 'Completed'));
    if (up) return { kind: 'until', message: `${label} reached step ${plan.untilStep} (--until=step=${plan.untilStep}): its checks are left for later` };
  }
  if (release.state === 'StepPaused' && step !== undefined && revision) {
    const record = recordedVerdicts(rollout, revision).get(step);
    if (record?.verdict === 'pass') return { kind: 'approve', step, revision, record };
    const checks = plan.checked.get(step);
    if (checks) return { kind: 'check', step, revision, checks };
    if (plan.approveUnchecked) return { kind: 'approve', step, revision };
    return { kind: 'wait', message: `${label} waits for approval at step ${step}/${view.steps.length}, which has no checks: left to people (--approve-unchecked approves such steps)` };
  }
  return { kind: 'wait', message: release.message };
}
