// The verdict of `rollout verify` on one step of one release, recorded on the Rollout before anything is done
// about it, so that a second or concurrent run (or a rerun after kill -9 or Ctrl-C) acts on the same verdict
// instead of checking again and deciding otherwise: never two approvals of a step, never an approval after
// another run decided to roll back.
//
// One annotation per step, `verify.kubectl-kruise.io/step-N`, whose value is JSON:
//   {"rollout":"web","revision":"6d9c8b7f5","step":1,"verdict":"pass","run":"ci-4f2a91c0","at":"2026-...","summary":"..."}
// `revision` is the release's canary revision: a verdict about another revision (an earlier release stopped at
// the same step) is no verdict on this one, and is overwritten. The write is a JSON patch on the Rollout (the
// main resource: a status write would drop metadata) whose `test` ops hold it to the state it was decided on:
// the annotation as read (its absence: the resourceVersion read), the canary revision, and for a pass the step
// still waiting at StepPaused. After a refusal the caller re-reads: a verdict someone else recorded meanwhile
// is adopted, never overwritten. Pure.
import type { JsonPatchOp } from '../containers';
import { conditionalWrite, type ConditionalWrite } from '../conditional-write';
import type { KubeObject } from '../types';
import { STEP_STATE } from '../rollout/labels';
import type { RolloutView } from '../rollout/types';
import { pointerOf } from '../workloads/access';
import type { StepVerdict } from './measurements';

export const VERDICT_ANNOTATION_PREFIX = 'verify.kubectl-kruise.io/step-';

/** The verdicts that are recorded: an inconclusive step is left to people and a rerun checks it again. */
export type RecordedVerdict = Exclude<StepVerdict, 'inconclusive'>;

export interface VerdictRecord {
  rollout: string;
  revision: string;
  step: number;
  verdict: RecordedVerdict;
  run: string;
  at: string;
  /** One line: what was measured (the failing measurements, for a fail). */
  summary: string;
}

export function verdictAnnotation(step: number): string {
  return `${VERDICT_ANNOTATION_PREFIX}${step}`;
}

/** The verdict recorded for `step` of the release of `revision`, if any (a malformed value is none). */
export function recordedVerdict(rollout: KubeObject, step: number, revision: string | undefined): VerdictRecord | undefined {
  const raw = rollout.metadata.annotations?.[verdictAnnotation(step)];
  if (raw === undefined || revision === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const r = v as Partial<VerdictRecord>;
  if (r.revision !== revision || r.step !== step || (r.verdict !== 'pass' && r.verdict !== 'fail')) return undefined;
  return { rollout: String(r.rollout ?? ''), revision: r.revision, step: r.step, verdict: r.verdict, run: String(r.run ?? ''), at: String(r.at ?? ''), summary: String(r.summary ?? '') };
}

/** Every verdict recorded for the release of `revision`, by step. */
export function recordedVerdicts(rollout: KubeObject, revision: string | undefined): Map<number, VerdictRecord> {
  const out = new Map<number, VerdictRecord>();
  for (const key of Object.keys(rollout.metadata.annotations ?? {})) {
    if (!key.startsWith(VERDICT_ANNOTATION_PREFIX)) continue;
    const step = Number(key.slice(VERDICT_ANNOTATION_PREFIX.length));
    if (!Number.isInteger(step) || step < 1) continue;
    const r = recordedVerdict(rollout, step, revision);
    if (r) out.set(step, r);
  }
  return out;
}

/** The sub-status paths a step decision rests on. */
function subPath(view: RolloutView, field: string): string[] {
  return ['status', view.subStatusField, field];
}

/**
 * The conditional write recording `record` on `rollout` as read. A pass also rests on the step still waiting
 * for approval (an approval by someone else in between: nothing left to decide); a fail only on the release
 * (a failing canary is rolled back even if a person let the step go on meanwhile).
 */
export function recordVerdictPatch(rollout: KubeObject, view: RolloutView, record: VerdictRecord): ConditionalWrite {
  const key = verdictAnnotation(record.step);
  const value = JSON.stringify(record);
  const rests: string[][] = [['metadata', 'annotations', key], subPath(view, view.subStatusField === 'canaryStatus' ? 'canaryRevision' : 'updatedRevision')];
  if (record.verdict === 'pass') rests.push(subPath(view, 'currentStepIndex'), subPath(view, 'currentStepState'));
  const changes: JsonPatchOp[] = rollout.metadata.annotations
    ? [{ op: 'add', path: pointerOf(['metadata', 'annotations', key]), value }]
    : [{ op: 'add', path: '/metadata/annotations', value: { [key]: value } }];
  return conditionalWrite(rollout, { rests, changes });
}

/**
 * Whether a Rollout re-read after the record was refused still calls for recording `record`: 'adopt' a
 * verdict someone else recorded for the same release and step, 'gone' when the release or (for a pass) the
 * waiting step is not there any more, 'again' when only other fields changed.
 */
export function afterRefusedRecord(fresh: KubeObject, view: RolloutView, record: VerdictRecord): { kind: 'adopt'; record: VerdictRecord } | { kind: 'gone'; why: string } | { kind: 'again' } {
  const theirs = recordedVerdict(fresh, record.step, record.revision);
  if (theirs) return { kind: 'adopt', record: theirs };
  const s = view.status;
  if (s.canaryRevision !== record.revision) return { kind: 'gone', why: `the release of revision ${record.revision} is over (now ${s.canaryRevision ? `revision ${s.canaryRevision}` : 'no release'})` };
  if (record.verdict === 'pass' && (s.currentStepIndex !== record.step || s.currentStepState !== STEP_STATE.Paused)) {
    return { kind: 'gone', why: `step ${record.step} no longer waits for approval (step ${s.currentStepIndex ?? '?'} ${s.currentStepState ?? ''})`.trim() };
  }
  return { kind: 'again' };
}

/** A `test` op holding an approval to the verdict of `step` as `rollout` has it (added to approvePatch's ops). */
export function verdictTest(rollout: KubeObject, step: number): JsonPatchOp | undefined {
  const key = verdictAnnotation(step);
  const value = rollout.metadata.annotations?.[key];
  return value === undefined ? undefined : { op: 'test', path: pointerOf(['metadata', 'annotations', key]), value };
}
