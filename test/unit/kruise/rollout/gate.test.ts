import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateRolloutRelease, parseRolloutUntil, rolloutReleaseExitCode, RolloutUntilError } from '../../../../src/kruise/rollout/gate';
import type { KubeObject } from '../../../../src/kruise/types';
import { loadKind } from './helpers';

const cloneSet = loadKind('cloneset-demo.yaml', 'CloneSet');
const NOW = Date.parse('2026-11-25T01:00:30Z');
const rollout = (file: string): KubeObject => loadKind(file, 'Rollout');
const until = parseRolloutUntil;

test('a step without pause.duration waits for approval (rollout_canary.go doCanaryPaused): StepPaused, exit 4; --until=paused and step=1 are reached', () => {
  const r = evaluateRolloutRelease(rollout('v1beta1-canary-manual-step.yaml'), cloneSet, NOW);
  assert.equal(r.state, 'StepPaused');
  assert.match(r.message, /rollout "demo" is waiting for approval at step 1\/3/);
  assert.equal(rolloutReleaseExitCode(r), 4);
  assert.deepEqual(
    { step: r.step, steps: r.steps, stepState: r.stepState, canaryRevision: r.canaryRevision, stableRevision: r.stableRevision, canaryReadyReplicas: r.canaryReadyReplicas, canaryReplicas: r.canaryReplicas },
    { step: 1, steps: 3, stepState: 'StepPaused', canaryRevision: 'demo-7b5d6c9f4', stableRevision: 'demo-6c4f9b7d8', canaryReadyReplicas: 1, canaryReplicas: 1 },
  );
  assert.equal(evaluateRolloutRelease(rollout('v1beta1-canary-manual-step.yaml'), cloneSet, NOW, { until: until('paused') }).reached, true);
  assert.equal(evaluateRolloutRelease(rollout('v1beta1-canary-manual-step.yaml'), cloneSet, NOW, { until: until('step=1') }).reached, true);
  assert.equal(evaluateRolloutRelease(rollout('v1beta1-canary-manual-step.yaml'), cloneSet, NOW, { until: until('step=2') }).reached, false);
});

test('TestRunCanaryPaused row "paused, last step, 60% weight" (openkruise/rollouts pkg/controller/rollout/rollout_canary_test.go): step 3 of 4 without duration stays waiting', () => {
  const obj = rollout('v1beta1-canary-manual-step.yaml');
  const spec = obj.spec as { strategy: { canary: { steps: unknown[] } } };
  spec.strategy.canary.steps = [
    { replicas: 1, pause: {} },
    { replicas: 2, pause: {} },
    { replicas: 6, pause: {} },
    { replicas: 10, pause: {} },
  ];
  const st = obj.status as { canaryStatus: Record<string, unknown> };
  Object.assign(st.canaryStatus, { currentStepIndex: 3, nextStepIndex: 4, currentStepState: 'StepPaused' });
  const r = evaluateRolloutRelease(obj, cloneSet, NOW);
  assert.equal(r.state, 'StepPaused');
  assert.equal(r.step, 3);
});

test('a timed pause (pause.duration 60) is Progressing with the time left, rechecks when it ends; --until=paused is reached', () => {
  const r = evaluateRolloutRelease(rollout('v1beta1-canary-timed-pause.yaml'), cloneSet, NOW);
  assert.equal(r.state, 'Progressing');
  assert.match(r.message, /step 2\/3 pauses for 60s \(30s left\)/);
  assert.equal(r.pauseEndsAt, Date.parse('2026-11-25T01:01:00Z'));
  assert.equal(r.recheckAt, Date.parse('2026-11-25T01:01:00Z'));
  assert.equal(rolloutReleaseExitCode(r), 4);
  assert.equal(evaluateRolloutRelease(rollout('v1beta1-canary-timed-pause.yaml'), cloneSet, NOW, { until: until('paused') }).reached, true);
  assert.equal(evaluateRolloutRelease(rollout('v1beta1-canary-timed-pause.yaml'), cloneSet, NOW, { until: until('step=1') }).reached, true); // past step 1
});

test('done as the controller marks it (rollout_progressing.go Finalising → Completed + Succeeded=True, then phase Healthy): Complete, exit 0 for every --until', () => {
  for (const u of ['complete', 'paused', 'step=2']) {
    const r = evaluateRolloutRelease(rollout('v1beta1-completed.yaml'), cloneSet, NOW, { until: until(u) });
    assert.equal(r.state, 'Complete', u);
    assert.equal(rolloutReleaseExitCode(r), 0);
  }
});

test('Completed step state but phase still Progressing (Finalising) is not done yet', () => {
  const obj = rollout('v1beta1-completed.yaml');
  const st = obj.status as Record<string, unknown>;
  st.phase = 'Progressing';
  st.conditions = [{ type: 'Progressing', status: 'True', reason: 'Finalising', message: 'Rollout has been completed and some closing work is being done' }];
  const r = evaluateRolloutRelease(obj, cloneSet, NOW);
  assert.equal(r.state, 'Progressing');
  assert.match(r.message, /finalising/);
});

test('not done while the controller has not observed the workload\'s generation (rollout_status.go: observedWorkloadGeneration follows the workload)', () => {
  const wl = structuredClone(cloneSet);
  wl.metadata.generation = 4;
  const r = evaluateRolloutRelease(rollout('v1beta1-completed.yaml'), wl, NOW);
  assert.equal(r.state, 'Progressing');
  assert.match(r.message, /workload generation 4/);
});

test('not done while the Rollout\'s own generation is not observed', () => {
  const obj = rollout('v1beta1-completed.yaml');
  obj.metadata.generation = 2;
  assert.equal(evaluateRolloutRelease(obj, cloneSet, NOW).state, 'Progressing');
});

test('with a rollout ID (workload label), done needs observedRolloutID to match (rollout_status.go calculateRolloutStatus comment)', () => {
  const wl = structuredClone(cloneSet);
  wl.metadata.labels = { ...wl.metadata.labels, 'rollouts.kruise.io/rollout-id': 'next-release' };
  assert.equal(evaluateRolloutRelease(rollout('v1beta1-completed.yaml'), wl, NOW).state, 'Progressing');
  wl.metadata.labels['rollouts.kruise.io/rollout-id'] = 'demo-7b5d6c9f4';
  assert.equal(evaluateRolloutRelease(rollout('v1beta1-completed.yaml'), wl, NOW).state, 'Complete');
});

test('the next release\'s first write (rollout_status.go calculateRolloutStatus, Healthy → Progressing reason Initializing) keeps the cancelled release\'s StepPaused: not reached, not waiting for approval', () => {
  // rollout_status.go sets phase Progressing and the Initializing condition without resetting canaryStatus;
  // rollout_progressing.go replaces it a reconcile later. Until then the sub-status is the old release's.
  const obj = rollout('v1beta1-canary-manual-step.yaml');
  const st = obj.status as { conditions: Array<Record<string, unknown>>; canaryStatus: Record<string, unknown> };
  st.conditions = st.conditions.filter((c) => c.type !== 'Succeeded').map((c) => (c.type === 'Progressing' ? { ...c, reason: 'Initializing', message: 'Rollout is in Progressing' } : c));
  const wl = structuredClone(cloneSet);
  wl.metadata.generation = Number(st.canaryStatus.observedWorkloadGeneration ?? 0) + 1;
  const r = evaluateRolloutRelease(obj, wl, NOW, { until: until('paused') });
  assert.equal(r.reached, false);
  assert.notEqual(r.state, 'StepPaused');
  assert.equal(rolloutReleaseExitCode(r), 4);
});

test('cancelled (Succeeded=False after Cancelling, rollout_progressing.go): Failed, exit 1, never reached', () => {
  const r = evaluateRolloutRelease(rollout('v1beta1-cancelled.yaml'), cloneSet, NOW, { until: until('paused') });
  assert.equal(r.state, 'Failed');
  assert.match(r.message, /rollout "demo" was cancelled: Rollout progressing has been cancelled \(Succeeded=False\)/);
  assert.equal(r.reached, false);
  assert.equal(rolloutReleaseExitCode(r), 1);
});

test('the workload\'s own failure verdict (pods failing) fails the release', () => {
  const r = evaluateRolloutRelease(rollout('v1beta1-canary-manual-step.yaml'), cloneSet, NOW, { workloadVerdict: { state: 'Failed', message: 'pod demo-x: ImagePullBackOff' } });
  assert.equal(r.state, 'Failed');
  assert.equal(rolloutReleaseExitCode(r), 1);
});

test('paused by a person (spec.strategy.paused, Progressing reason Paused): Paused, exit 4 with --until=complete, reached with --until=paused', () => {
  const r = evaluateRolloutRelease(rollout('v1beta1-paused.yaml'), cloneSet, NOW);
  assert.equal(r.state, 'Paused');
  assert.match(r.message, /paused \(spec.strategy.paused\) at step 2\/3/);
  assert.equal(rolloutReleaseExitCode(r), 4);
  assert.equal(evaluateRolloutRelease(rollout('v1beta1-paused.yaml'), cloneSet, NOW, { until: until('paused') }).reached, true);
  assert.equal(evaluateRolloutRelease(rollout('v1beta1-paused.yaml'), cloneSet, NOW, { until: until('step=2') }).reached, false); // step 2 still upgrading
});

test('workload missing (rollout_status.go: phase Initial, "Workload Not Found"): Blocked, whether or not the CLI looked the workload up', () => {
  for (const wl of [null, undefined]) {
    const r = evaluateRolloutRelease(rollout('v1beta1-workload-missing.yaml'), wl, NOW);
    assert.equal(r.state, 'Blocked');
    assert.match(r.message, /rollout "orphan" is blocked: workload CloneSet\/not-there not found/);
    assert.equal(rolloutReleaseExitCode(r), 4);
  }
});

test('blue-green waiting at step 1: StepPaused with the updated (green) side as the canary fields and the step\'s traffic', () => {
  const r = evaluateRolloutRelease(rollout('v1beta1-bluegreen.yaml'), loadKind('v1beta1-bluegreen.yaml', 'Deployment'), NOW);
  assert.equal(r.state, 'StepPaused');
  assert.equal(r.canaryRevision, '5f8d7c6b9');
  assert.equal(r.canaryReplicas, 2);
  assert.equal(r.trafficWeight, '0%');
});

test('v1alpha1 canary waiting for approval, traffic from weight', () => {
  const r = evaluateRolloutRelease(rollout('v1alpha1-canary-manual-step.yaml'), cloneSet, NOW);
  assert.equal(r.state, 'StepPaused');
  assert.equal(r.trafficWeight, '20%');
});

test('--until: parsing, and a step the Rollout does not have is refused', () => {
  assert.deepEqual(parseRolloutUntil(undefined), { kind: 'complete' });
  assert.deepEqual(parseRolloutUntil('step=3'), { kind: 'step', step: 3 });
  assert.throws(() => parseRolloutUntil('step=0'), RolloutUntilError);
  assert.throws(() => parseRolloutUntil('half'), /invalid --until "half"/);
  assert.throws(() => evaluateRolloutRelease(rollout('v1beta1-canary-manual-step.yaml'), cloneSet, NOW, { until: until('step=4') }), /rollout "demo" has 3 steps: --until=step=4 cannot be reached/);
});

test('--until repeated: every point must hold, as kubectl wait --for ANDs its conditions', () => {
  assert.deepEqual(parseRolloutUntil(['paused', 'step=2']), { kind: 'all', points: [{ kind: 'paused' }, { kind: 'step', step: 2 }] });
  assert.deepEqual(parseRolloutUntil(['step=2']), { kind: 'step', step: 2 });
  const manual = rollout('v1beta1-canary-manual-step.yaml'); // waiting for approval at step 1
  const timed = rollout('v1beta1-canary-timed-pause.yaml'); // step 2 in a timed pause
  assert.equal(evaluateRolloutRelease(manual, cloneSet, NOW, { until: until(['paused', 'step=1']) }).reached, true);
  assert.equal(evaluateRolloutRelease(manual, cloneSet, NOW, { until: until(['paused', 'step=2']) }).reached, false, 'paused, but at step 1');
  assert.equal(evaluateRolloutRelease(timed, cloneSet, NOW, { until: until(['paused', 'step=2']) }).reached, true);
  assert.equal(evaluateRolloutRelease(timed, cloneSet, NOW, { until: until(['paused', 'complete']) }).reached, false);
  assert.equal(evaluateRolloutRelease(rollout('v1beta1-completed.yaml'), cloneSet, NOW, { until: until(['paused', 'step=3']) }).reached, true);
  assert.throws(() => evaluateRolloutRelease(manual, cloneSet, NOW, { until: until(['paused', 'step=4']) }), /has 3 steps: --until=step=4 cannot be reached/);
});

test('the progress line names the --until point it waits for, not "to finish" (a pipeline stopping at the canary)', () => {
  const obj = rollout('v1beta1-canary-manual-step.yaml');
  Object.assign((obj.status as { canaryStatus: Record<string, unknown> }).canaryStatus, { currentStepState: 'StepUpgrade', canaryReadyReplicas: 0 });
  const line = (u?: string | string[]): string => evaluateRolloutRelease(obj, cloneSet, NOW, u === undefined ? {} : { until: until(u) }).message;
  assert.match(line(), /^Waiting for rollout "demo" to finish: step 1\/3 StepUpgrade, 0 of 1 canary pods ready\.\.\.$/);
  assert.match(line('paused'), /^Waiting for rollout "demo" to pause at a step: step 1\/3 StepUpgrade/);
  assert.match(line('step=2'), /^Waiting for rollout "demo" to reach step 2: /);
  assert.match(line(['paused', 'step=2']), /^Waiting for rollout "demo" to pause at a step and reach step 2: /);
});

test('a step\'s progress line counts its own pods and does not alternate with "has not observed" while the controller catches up (issue #32)', () => {
  // step 2 (40% of 5 = 2 pods) just begun: status.canaryReplicas still says the last step's 1 (or 0 at StepInit)
  const obj = rollout('v1beta1-canary-manual-step.yaml');
  Object.assign(obj.status as Record<string, unknown>, { currentStepIndex: 2, currentStepState: 'StepInit' });
  Object.assign((obj.status as { canaryStatus: Record<string, unknown> }).canaryStatus, { currentStepIndex: 2, currentStepState: 'StepInit', canaryReplicas: 0, canaryReadyReplicas: 0 });
  const stepLine = 'Waiting for rollout "demo" to finish: step 2/3 StepInit, 0 of 2 canary pods ready...';
  assert.equal(evaluateRolloutRelease(obj, cloneSet, NOW).message, stepLine, 'was "0 of 0 canary pods ready"');
  // The BatchRelease's own patch bumps the CloneSet's generation: for a moment the status lags it.
  const bumped = { ...cloneSet, metadata: { ...cloneSet.metadata, generation: 4 } };
  const lagging = evaluateRolloutRelease(obj, bumped, NOW);
  assert.equal(lagging.message, stepLine, 'was "the controller has not observed workload generation 4 yet"');
  assert.equal(lagging.state, 'Progressing');
  assert.equal(lagging.reached, false, 'nothing decided on a stale status');
  // Not in a step (a new release not yet picked up): that is what the line says.
  Object.assign(obj.status as Record<string, unknown>, { phase: 'Healthy' });
  assert.match(evaluateRolloutRelease(obj, bumped, NOW).message, /the controller has not observed workload generation 4 yet/);
});

test('a final "100%" step in StepPaused moves on by itself (doCanaryPaused): not waiting for approval', () => {
  const obj = rollout('v1beta1-canary-manual-step.yaml');
  const st = obj.status as { canaryStatus: Record<string, unknown> };
  Object.assign(st.canaryStatus, { currentStepIndex: 3, nextStepIndex: -1, currentStepState: 'StepPaused' });
  assert.equal(evaluateRolloutRelease(obj, cloneSet, NOW).state, 'Progressing');
});

test('TestBlueGreenRunCanaryPaused (pkg/controller/rollout/rollout_bluegreen_test.go) / rollout_bluegreen.go doCanaryPaused: blue-green has no final-"100%" shortcut, its last step without duration waits for approval', () => {
  const obj = rollout('v1beta1-bluegreen.yaml');
  const st = obj.status as { blueGreenStatus: Record<string, unknown> };
  Object.assign(st.blueGreenStatus, { currentStepIndex: 2, nextStepIndex: -1, currentStepState: 'StepPaused', updatedReplicas: 4, updatedReadyReplicas: 4 });
  const r = evaluateRolloutRelease(obj, loadKind('v1beta1-bluegreen.yaml', 'Deployment'), NOW);
  assert.equal(r.state, 'StepPaused');
  assert.equal(r.step, 2);
  assert.equal(r.trafficWeight, '100%');
});

// Expected statuses of TestReconcileRolloutProgressing rows (openkruise/rollouts
// pkg/controller/rollout/rollout_progressing_test.go), as the gate reads them.
function withStatus(phase: string, stepState: string, conditions: Array<Record<string, string>>): KubeObject {
  const obj = rollout('v1beta1-completed.yaml');
  const st = obj.status as Record<string, unknown> & { canaryStatus: Record<string, unknown> };
  st.phase = phase;
  st.currentStepState = stepState;
  st.canaryStatus.currentStepState = stepState;
  st.conditions = conditions;
  return obj;
}
const PROG = (status: string, reason: string) => ({ type: 'Progressing', status, reason, message: '' });

test('TestReconcileRolloutProgressing row "ReconcileRolloutProgressing rolling -> finalizing": Completed step state under Finalising is not done', () => {
  const r = evaluateRolloutRelease(withStatus('Progressing', 'Completed', [PROG('True', 'Finalising')]), cloneSet, NOW);
  assert.equal(r.state, 'Progressing');
  assert.equal(rolloutReleaseExitCode(r), 4);
});

test('TestReconcileRolloutProgressing row "ReconcileRolloutProgressing finalizing -> succeeded": Succeeded=True but phase not yet Healthy is not done; with phase Healthy (case Completed) it is', () => {
  const conds = [PROG('False', 'Completed'), { type: 'Succeeded', status: 'True', reason: '', message: '' }];
  assert.equal(evaluateRolloutRelease(withStatus('Progressing', 'Completed', conds), cloneSet, NOW).state, 'Progressing');
  assert.equal(evaluateRolloutRelease(withStatus('Healthy', 'Completed', conds), cloneSet, NOW).state, 'Complete');
});

test('TestReconcileRolloutProgressing row "ReconcileRolloutProgressing rolling -> rollback1": Cancelling is still in progress, not yet failed', () => {
  const r = evaluateRolloutRelease(withStatus('Progressing', 'StepUpgrade', [PROG('True', 'Cancelling')]), cloneSet, NOW);
  assert.equal(r.state, 'Progressing');
  assert.match(r.message, /cancelling \(the workload was rolled back\)/);
});

test('TestCalculateRolloutStatus row "disable an working rollout" (pkg/controller/rollout/rollout_status_test.go): a disabled Rollout does not drive a release: Blocked', () => {
  const obj = rollout('v1beta1-canary-manual-step.yaml');
  (obj.spec as Record<string, unknown>).disabled = true;
  (obj.status as Record<string, unknown>).phase = 'Disabled';
  const r = evaluateRolloutRelease(obj, cloneSet, NOW);
  assert.equal(r.state, 'Blocked');
  assert.match(r.message, /disabled/);
});

test('a v1alpha1 spec.rolloutID does not hold back completion: the controller compares the workload label (rollout_status.go getRolloutID, v0.4.4 and v0.6.2)', () => {
  const obj = rollout('v1alpha1-canary-manual-step.yaml');
  const st = obj.status as Record<string, unknown> & { canaryStatus: Record<string, unknown> };
  st.phase = 'Healthy';
  st.canaryStatus.currentStepState = 'Completed';
  st.canaryStatus.currentStepIndex = 3;
  st.conditions = [{ type: 'Progressing', status: 'False', reason: 'Completed', message: 'Rollout progressing has been completed' }, { type: 'Succeeded', status: 'True', reason: 'Completed', message: '' }];
  assert.equal(evaluateRolloutRelease(obj, cloneSet, NOW).state, 'Complete');
});

test('first deployment (rollout_status.go calculateRolloutStatus, phase Healthy with an empty sub-status): the controller fills currentStepState Completed without conditions, and that is done', () => {
  const obj = rollout('v1beta1-completed.yaml');
  const st = obj.status as Record<string, unknown>;
  st.conditions = undefined;
  st.message = 'workload deployment is completed';
  assert.equal(evaluateRolloutRelease(obj, cloneSet, NOW).state, 'Complete');
  // Before the controller filled it: Healthy without a sub-status is not done yet.
  delete st.canaryStatus;
  st.message = 'rollout is healthy';
  assert.equal(evaluateRolloutRelease(obj, cloneSet, NOW).state, 'Progressing');
});
