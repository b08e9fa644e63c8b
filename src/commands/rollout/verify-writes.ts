// The writes of `rollout verify`, each conditional on what it was decided on and re-decided after a refusal:
// - recording a step's verdict on the Rollout (kruise/verify/verdict.ts), adopting one another run recorded;
// - approving the step (rollout/patches.ts approvePatch), held to the recorded pass (a `test` of the
//   annotation), so an approval never follows another run's decision to roll back;
// - --on-failure: undo (the stable template back: the Rollout cancels its release), undo-fast (status
//   nextStepIndex back, as `rollout undo --fast`), pause (spec.strategy.paused) or none. Each is idempotent:
//   a rerun after an interrupted rollback finishes it and never goes back twice.
import type { KubeClient, KubeObject, ResourceType } from '../../kube/client';
import { isStaleWrite } from '../../kube/conflict';
import { failure } from '../../cli/exit';
import { isForbidden } from '../../kube/errors';
import { readRollout } from '../../kruise/rollout/read';
import { approvePatch, jumpPatch, pausePatch } from '../../kruise/rollout/patches';
import { fastRollbackStep } from '../../kruise/rollout/fast-rollback';
import { STEP_STATE } from '../../kruise/rollout/labels';
import { afterRefusedRecord, recordedVerdict, recordVerdictPatch, verdictTest, type VerdictRecord } from '../../kruise/verify/verdict';
import { adapterFor } from '../../kruise/workloads/index';
import { undoPatch, undoTarget, type Revision } from '../../kruise/revisions';
import { loadRevisions } from './revision-source';

const ATTEMPTS = 6;

export interface RolloutRef {
  client: KubeClient;
  rt: ResourceType;
  name: string;
  namespace: string;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function forbidden(err: unknown, what: string, permission: string, namespace: string): never {
  if (isForbidden(err)) throw failure(`${what}: ${err.message}`, `hint: this needs ${permission} in namespace "${namespace}" (see the README's Role for rollout verify)`);
  throw err;
}

export type RecordOutcome = { kind: 'recorded'; record: VerdictRecord } | { kind: 'adopted'; record: VerdictRecord } | { kind: 'gone'; why: string };

/** Records `record` (the verdict of this run), or adopts the one another run recorded first. */
export async function recordVerdict(r: RolloutRef, record: VerdictRecord): Promise<RecordOutcome> {
  for (let attempt = 1; ; attempt++) {
    const fresh = await r.client.get(r.rt, r.name, r.namespace);
    const view = readRollout(fresh);
    const now = afterRefusedRecord(fresh, view, record);
    if (now.kind === 'adopt') return { kind: 'adopted', record: now.record };
    if (now.kind === 'gone') return now;
    try {
      await r.client.patch(r.rt, r.name, 'json', recordVerdictPatch(fresh, view, record).patch, r.namespace);
      return { kind: 'recorded', record };
    } catch (err) {
      if (!isStaleWrite(err)) forbidden(err, `rollout/${r.name}: the verdict of step ${record.step} was not recorded`, 'the "patch" verb on "rollouts" (group rollouts.kruise.io)', r.namespace);
      if (attempt >= ATTEMPTS) throw failure(`rollout/${r.name}: the verdict of step ${record.step} could not be recorded: the Rollout kept changing (${ATTEMPTS} attempts)`);
      await pause(50 * attempt);
    }
  }
}

export type ApproveOutcome = { kind: 'approved' } | { kind: 'skipped'; why: string };

/**
 * Approves step `step` of the release of `revision` while it waits (StepPaused); with `held`, only while the
 * pass recorded for it is there. Someone else's approval first is no error: the step went on.
 */
export async function approveStep(r: RolloutRef, step: number, revision: string, held: boolean): Promise<ApproveOutcome> {
  for (let attempt = 1; ; attempt++) {
    const fresh = await r.client.get(r.rt, r.name, r.namespace);
    const s = readRollout(fresh).status;
    if (s.canaryRevision !== revision) return { kind: 'skipped', why: `the release of revision ${revision} is over` };
    if (s.currentStepIndex !== step || s.currentStepState !== STEP_STATE.Paused) return { kind: 'skipped', why: `already approved (the release is at step ${s.currentStepIndex ?? '?'} ${s.currentStepState ?? ''})`.trim() };
    const test = held ? verdictTest(fresh, step) : undefined;
    if (held && (!test || recordedVerdict(fresh, step, revision)?.verdict !== 'pass')) return { kind: 'skipped', why: 'no pass is recorded for it any more' };
    const decision = approvePatch(fresh);
    if (!decision.patch) return { kind: 'skipped', why: decision.reason };
    try {
      await r.client.patch(r.rt, r.name, 'json', test ? [test, ...decision.patch] : decision.patch, r.namespace, { subresource: 'status' });
      return { kind: 'approved' };
    } catch (err) {
      if (!isStaleWrite(err)) forbidden(err, `rollout/${r.name}: step ${step} was not approved`, 'the "patch" verb on "rollouts/status" (group rollouts.kruise.io)', r.namespace);
      if (attempt >= ATTEMPTS) throw failure(`rollout/${r.name}: step ${step} could not be approved: the Rollout kept changing (${ATTEMPTS} attempts)`);
      await pause(50 * attempt);
    }
  }
}

export type OnFailure = 'undo' | 'undo-fast' | 'pause' | 'none';
export const ON_FAILURE: readonly OnFailure[] = ['undo', 'undo-fast', 'pause', 'none'];

/** What the rollback did, in words (nothing to do is said too: a rerun finishing an earlier run's rollback). */
export async function rollBack(r: RolloutRef, record: VerdictRecord, action: OnFailure, workloadRt: ResourceType | undefined): Promise<string> {
  if (action === 'none') return 'left as it is (--on-failure=none)';
  if (action === 'pause') {
    for (let attempt = 1; ; attempt++) {
      const fresh = await r.client.get(r.rt, r.name, r.namespace);
      const d = pausePatch(fresh, true);
      if (!d.patch) return `rollout/${r.name} is paused (spec.strategy.paused)`;
      try {
        await r.client.patch(r.rt, r.name, 'json', d.patch, r.namespace);
        return `rollout/${r.name} paused (spec.strategy.paused)`;
      } catch (err) {
        if (!isStaleWrite(err) || attempt >= ATTEMPTS) forbidden(err, `rollout/${r.name} was not paused`, 'the "patch" verb on "rollouts"', r.namespace);
      }
    }
  }
  if (action === 'undo-fast') {
    for (let attempt = 1; ; attempt++) {
      const fresh = await r.client.get(r.rt, r.name, r.namespace);
      const s = readRollout(fresh).status;
      // Gone back already (this run, or an earlier one interrupted after its write): never twice.
      if (s.canaryRevision !== record.revision || (s.currentStepIndex ?? 0) < record.step || (s.nextStepIndex !== undefined && s.nextStepIndex > 0 && s.nextStepIndex < record.step)) {
        return `rollout/${r.name} is back before step ${record.step}`;
      }
      const target = fastRollbackStep(fresh);
      if (target.error !== undefined) throw failure(`rollout/${r.name}: step ${record.step} failed its checks, and it cannot go back fast: ${target.error}`, 'hint: --on-failure=undo restores the stable template instead');
      const d = jumpPatch(fresh, target.step);
      if (!d.patch) throw failure(`rollout/${r.name}: step ${record.step} failed its checks, and it cannot go back fast: ${d.reason}`);
      try {
        await r.client.patch(r.rt, r.name, 'json', d.patch, r.namespace, { subresource: 'status' });
        return `rollout/${r.name} goes back to step ${target.step} (status nextStepIndex, the template kept)`;
      } catch (err) {
        if (!isStaleWrite(err) || attempt >= ATTEMPTS) forbidden(err, `rollout/${r.name} did not go back`, 'the "patch" verb on "rollouts/status"', r.namespace);
      }
    }
  }
  // undo: the stable revision's template back on the workload; the Rollout then cancels its release.
  const fresh = await r.client.get(r.rt, r.name, r.namespace);
  const view = readRollout(fresh);
  const ref = view.workloadRef;
  if (!workloadRt || !ref) throw failure(`rollout/${r.name}: cannot roll back its workload: unknown workload kind`);
  const stable = view.status.stableRevision;
  if (!stable) throw failure(`rollout/${r.name}: no stable revision in its status: nothing to roll back to`);
  for (let attempt = 1; ; attempt++) {
    const workload = await r.client.get(workloadRt, ref.name, r.namespace);
    const adapter = adapterFor(workload);
    if (!adapter) throw failure(`no rollout support for ${workload.apiVersion} ${workload.kind} "${ref.name}"`);
    const { revisions } = await loadRevisions(r.client, workload, adapter);
    const target = revisions.find((rev) => namesRevision(rev, stable));
    const what = `${ref.kind.toLowerCase()}/${ref.name}`;
    if (!target) throw failure(`${what}: the stable revision ${stable} is not in its history: not rolled back`);
    const decision = undoTarget({ label: what, revisions, currentTemplate: adapter.template(workload), updateRevision: adapter.status(workload).updateRevision, toRevision: target.revision });
    if (decision.kind === 'error') throw failure(decision.message);
    if (decision.kind === 'skip') return `${what} is back on its stable revision ${stable} (rollout/${r.name} cancels its release)`;
    try {
      await r.client.patch(workloadRt, ref.name, 'json', undoPatch(workload, decision.target.template, adapter.templatePointer(workload)), r.namespace);
      return `${what} rolled back to its stable revision ${stable} (revision ${decision.target.revision}): rollout/${r.name} cancels its release`;
    } catch (err) {
      if (!isStaleWrite(err) || attempt >= ATTEMPTS) forbidden(err, `${what} was not rolled back`, `the "patch" verb on "${workloadRt.resource}" (group ${workloadRt.group || 'core'}) and "list" on "${adapter.kindName === 'Deployment' ? 'replicasets' : 'controllerrevisions'}"`, r.namespace);
    }
  }
}

/** Whether a revision of the workload is the Rollout's stable one (a bare hash, or the revision's name). */
function namesRevision(rev: Revision, stable: string): boolean {
  return rev.hash === stable || rev.name === stable || rev.name.endsWith(`-${stable}`) || rev.hash.endsWith(`-${stable}`) || stable.endsWith(`-${rev.hash}`);
}

export type { KubeObject };
