// The gate over a workload and the Kruise Rollout releasing it (gate.ts evaluateGate / releaseStage):
// the workload's own verdict (progress.ts, computed here from the fixture's status) decides unless a
// release of its current template is under way. Statuses are the ones openkruise/rollouts v0.6.2 writes,
// cited per test (rollout_status.go calculateRolloutStatus; rollout_progressing.go and the rows of
// rollout_progressing_test.go TestReconcileRolloutProgressing / rollout_status_test.go TestCalculateRolloutStatus).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateGate, evaluateRolloutRelease, parseRolloutUntil, releaseStage, rolloutReleaseExitCode, undoUnderRollout, type WorkloadVerdict } from '../../../../src/kruise/rollout/gate';
import { readRollout } from '../../../../src/kruise/rollout/read';
import { evaluateRollout } from '../../../../src/kruise/progress';
import type { KubeObject } from '../../../../src/kruise/types';
import { decideVerify } from '../../../../src/kruise/verify/decide';
import { haveRolloutCrds, loadKind, rolloutSchemaErrors } from './helpers';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const REPO = join(import.meta.dirname, '../../../..');

const NOW = Date.parse('2026-11-25T01:00:30Z');
const until = parseRolloutUntil;

function verdictOf(workload: KubeObject): WorkloadVerdict {
  const p = evaluateRollout(workload, [], NOW);
  return { state: p.state, message: p.message, failing: p.failing };
}

/** The first-deployment CloneSet with `ready` of its 10 pods ready. */
function shop(ready: number): KubeObject {
  const cs = structuredClone(loadKind('v1beta1-first-deployment.yaml', 'CloneSet'));
  Object.assign(cs.status as Record<string, unknown>, { readyReplicas: ready, availableReplicas: ready, updatedReadyReplicas: ready, updatedAvailableReplicas: ready });
  return cs;
}
const firstDeployment = (): KubeObject => structuredClone(loadKind('v1beta1-first-deployment.yaml', 'Rollout'));

/** cloneset-demo.yaml after `rollout undo` back to its stable revision: no in-progressing mark, 5 pods, `ready` of them ready at it. */
function rolledBack(ready: number, updated = 5): KubeObject {
  const cs = structuredClone(loadKind('cloneset-demo.yaml', 'CloneSet'));
  delete cs.metadata.annotations;
  const spec = cs.spec as { updateStrategy: Record<string, unknown> };
  delete spec.updateStrategy.partition; // the BatchRelease's Finalize: partition null, paused false
  Object.assign(cs.status as Record<string, unknown>, {
    updateRevision: 'demo-6c4f9b7d8',
    currentRevision: 'demo-6c4f9b7d8',
    updatedReplicas: updated,
    updatedReadyReplicas: ready,
    readyReplicas: ready,
    availableReplicas: ready,
    expectedUpdatedReplicas: 5,
  });
  return cs;
}

test('the fixture of a first deployment is a Rollout the v0.6.2 CRD accepts', { skip: !haveRolloutCrds && 'no ../shared CRDs' }, () => {
  assert.deepEqual(rolloutSchemaErrors('v0.6.2', firstDeployment()), []);
});

test('first deployment (rollout_status.go: Healthy, "workload deployment is completed" at once): the Rollout alone says Complete, the gate waits for the pods', () => {
  const rollout = firstDeployment();
  // The trap of the issue: the release's own reading passes with 0 of 10 pods ready.
  assert.equal(evaluateRolloutRelease(rollout, shop(0), NOW).state, 'Complete');
  const waiting = evaluateGate(rollout, shop(0), NOW, { workloadVerdict: verdictOf(shop(0)) });
  assert.equal(waiting.release, 'none');
  assert.equal(waiting.state, 'Progressing');
  assert.equal(waiting.reached, false);
  assert.equal(rolloutReleaseExitCode(waiting), 4);
  assert.match(waiting.message, /Waiting for cloneset "shop" rollout to finish: 0 of 10 updated pods are ready/);
  assert.equal(waiting.step, undefined, 'no release: the sub-status step is not reported');
  // No verdict yet (the workload not evaluated): still waiting, never reached.
  assert.equal(evaluateGate(rollout, shop(0), NOW).reached, false);
  const done = evaluateGate(rollout, shop(10), NOW, { workloadVerdict: verdictOf(shop(10)) });
  assert.deepEqual([done.state, done.reached, rolloutReleaseExitCode(done)], ['Complete', true, 0]);
  assert.equal(done.message, 'rollout "shop" successfully rolled out');
  // Every --until is met once the workload is rolled out and no release runs.
  for (const u of ['paused', 'step=1']) assert.equal(evaluateGate(rollout, shop(10), NOW, { until: until(u), workloadVerdict: verdictOf(shop(10)) }).reached, true, u);
});

test('cancelled release (Succeeded=False, phase Healthy: rollout_progressing.go case Cancelling → Completed): the stable pods decide, exit 0 once back and ready, not 1 for ever', () => {
  const rollout = loadKind('v1beta1-cancelled.yaml', 'Rollout');
  assert.equal(evaluateRolloutRelease(rollout, rolledBack(5), NOW).state, 'Failed', 'the release itself was cancelled');
  assert.equal(releaseStage(readRollout(rollout, rolledBack(3)), rolledBack(3)), 'cancelled');
  const back = evaluateGate(rollout, rolledBack(3), NOW, { workloadVerdict: verdictOf(rolledBack(3)) });
  assert.deepEqual([back.state, back.reached, back.release], ['Progressing', false, 'cancelled']);
  assert.match(back.message, /3 of 5 updated pods are ready/);
  const done = evaluateGate(rollout, rolledBack(5), NOW, { workloadVerdict: verdictOf(rolledBack(5)) });
  assert.deepEqual([done.state, done.reached, rolloutReleaseExitCode(done)], ['Complete', true, 0]);
  assert.match(done.message, /its last release was cancelled: the workload was rolled back/);
});

test('TestReconcileRolloutProgressing row "rolling -> rollback1": Cancelling waits, whatever the workload says (its partition is still the release\'s)', () => {
  const rollout = loadKind('v1beta1-canary-manual-step.yaml', 'Rollout');
  const st = rollout.status as Record<string, unknown>;
  st.phase = 'Progressing';
  st.conditions = [{ type: 'Progressing', status: 'True', reason: 'Cancelling', message: 'The workload has been rolled back and the rollout process will be cancelled' }];
  const r = evaluateGate(rollout, rolledBack(5), NOW, { workloadVerdict: verdictOf(rolledBack(5)) });
  assert.deepEqual([r.state, r.reached, r.release], ['Progressing', false, 'cancelling']);
  assert.match(r.message, /to cancel its release/);
});

test('the pass between the release\'s end and phase Healthy (Progressing=False reason Completed, phase still Progressing) waits one pass: a pipeline reading the Rollout after exit 0 sees Healthy (CI read Progressing)', () => {
  // rollout_progressing.go v0.6.2, case ProgressingReasonCompleted: the next pass sets phase Healthy
  const rollout = loadKind('v1beta1-cancelled.yaml', 'Rollout');
  (rollout.status as Record<string, unknown>).phase = 'Progressing';
  const r = evaluateGate(rollout, rolledBack(5), NOW, { workloadVerdict: verdictOf(rolledBack(5)) });
  assert.deepEqual([r.state, r.reached, r.release], ['Progressing', false, 'cancelled']);
  assert.match(r.message, /finalised, phase Healthy next/);
  (rollout.status as Record<string, unknown>).phase = 'Healthy';
  assert.deepEqual([evaluateGate(rollout, rolledBack(5), NOW, { workloadVerdict: verdictOf(rolledBack(5)) }).state], ['Complete']);
});

test('a new template the webhook holds (in-progressing mark, partition 100%) before the controller starts the release: never passes on the held partition', () => {
  const rollout = loadKind('v1beta1-completed.yaml', 'Rollout');
  const held = structuredClone(loadKind('cloneset-demo.yaml', 'CloneSet'));
  Object.assign(held.spec as Record<string, unknown>, { updateStrategy: { type: 'ReCreate', partition: '100%' } });
  Object.assign(held.status as Record<string, unknown>, { updatedReplicas: 0, updatedReadyReplicas: 0, expectedUpdatedReplicas: 0 });
  const verdict = verdictOf(held);
  assert.equal(verdict.state, 'PartitionComplete', 'the workload alone would pass');
  const r = evaluateGate(rollout, held, NOW, { workloadVerdict: verdict });
  assert.deepEqual([r.state, r.reached, r.release], ['Progressing', false, 'starting']);
  // The controller lagging behind the workload's generation, on the revision it released, is the same wait
  // (rollout_status.go observedWorkloadGeneration follows the workload once canaryRevision is its own).
  const lag = structuredClone(rolledBack(5));
  lag.metadata.generation = 4;
  Object.assign(lag.status as Record<string, unknown>, { observedGeneration: 4, updateRevision: 'demo-7b5d6c9f4' });
  assert.equal(evaluateGate(rollout, lag, NOW, { workloadVerdict: verdictOf(lag) }).release, 'starting');
});

test('a new template without the in-progressing mark under a Healthy Rollout is released by nobody (the mark removed by finalising, rollout_releaseManager.go removeRolloutProgressingAnnotation): held, the gate fails with the way out; rolled out by the workload itself, it passes', () => {
  const rollout = loadKind('v1beta1-cancelled.yaml', 'Rollout');
  const held = structuredClone(loadKind('cloneset-demo.yaml', 'CloneSet'));
  delete held.metadata.annotations;
  held.metadata.generation = 4;
  Object.assign(held.spec as Record<string, unknown>, { updateStrategy: { type: 'ReCreate', partition: '100%' } });
  Object.assign(held.status as Record<string, unknown>, { observedGeneration: 4, updateRevision: 'demo-84dc874b8c', currentRevision: 'demo-6c4f9b7d8', updatedReplicas: 0, updatedReadyReplicas: 0, expectedUpdatedReplicas: 0 });
  const verdict = verdictOf(held);
  assert.equal(verdict.state, 'PartitionComplete');
  const r = evaluateGate(rollout, held, NOW, { workloadVerdict: verdict });
  assert.deepEqual([r.state, r.reached, r.release], ['Failed', false, 'none']);
  assert.match(r.message, /^rollout "demo" will not release cloneset\/demo's template \(revision 84dc874b8c\): cloneset\/demo holds it without Kruise Rollout's in-progressing mark .* e\.g\. kubectl kruise rollout restart cloneset\/demo$/);
  // The same with the mark: the webhook's hold, the release about to start: a wait.
  const marked = structuredClone(held);
  marked.metadata.annotations = { 'rollouts.kruise.io/in-progressing': '{"rolloutName":"demo"}' };
  assert.deepEqual([evaluateGate(rollout, marked, NOW, { workloadVerdict: verdict }).state, evaluateGate(rollout, marked, NOW, { workloadVerdict: verdict }).release], ['Progressing', 'starting']);
  // The CloneSet's own status not caught up with its spec: its revisions say nothing yet, a wait.
  const behind = structuredClone(held);
  (behind.status as Record<string, unknown>).observedGeneration = 3;
  assert.equal(evaluateGate(rollout, behind, NOW, { workloadVerdict: verdict }).state, 'Progressing');
  // Not held (no partition): the CloneSet rolls it out itself, and the gate follows it.
  const rolled = structuredClone(held);
  delete (rolled.spec as { updateStrategy: Record<string, unknown> }).updateStrategy.partition;
  Object.assign(rolled.status as Record<string, unknown>, { currentRevision: 'demo-84dc874b8c', updatedReplicas: 5, updatedReadyReplicas: 5, readyReplicas: 5, availableReplicas: 5, updatedAvailableReplicas: 5, expectedUpdatedReplicas: 5 });
  const done = evaluateGate(rollout, rolled, NOW, { workloadVerdict: verdictOf(rolled) });
  assert.deepEqual([done.state, done.reached], ['Complete', true], done.message);
  assert.match(done.message, /does not release cloneset\/demo's template \(revision 84dc874b8c\): it has no in-progressing mark, so cloneset\/demo rolls it out by itself/);
  // rollout verify has nothing to steer: it stops (exit 1) instead of waiting for a release that never starts.
  const action = decideVerify(rollout, held, { checked: new Map([[1, ['smoke']]]), approveUnchecked: false }, NOW);
  assert.equal(action.kind, 'unreleased');
});

test('a release under way: --until=paused is reached at the step waiting for approval (its batch Ready by the BatchRelease\'s count); --until=complete is not: it needs the release over and the workload rolled out', () => {
  const rollout = loadKind('v1beta1-canary-manual-step.yaml', 'Rollout');
  const cs = loadKind('cloneset-demo.yaml', 'CloneSet');
  const verdict = verdictOf(cs);
  assert.equal(verdict.state, 'PartitionComplete');
  const paused = evaluateGate(rollout, cs, NOW, { until: until('paused'), workloadVerdict: verdict });
  assert.deepEqual([paused.state, paused.reached, paused.release, paused.step], ['StepPaused', true, 'in-progress', 1]);
  const complete = evaluateGate(rollout, cs, NOW, { workloadVerdict: verdict });
  assert.deepEqual([complete.state, complete.reached, rolloutReleaseExitCode(complete)], ['StepPaused', false, 4]);
  // Before the step's batch is Ready the release itself says so.
  const upgrading = structuredClone(rollout);
  Object.assign((upgrading.status as { canaryStatus: Record<string, unknown> }).canaryStatus, { currentStepState: 'StepUpgrade', canaryReadyReplicas: 0 });
  const r = evaluateGate(upgrading, cs, NOW, { until: until('paused'), workloadVerdict: verdictOf(cs) });
  assert.deepEqual([r.state, r.reached], ['Progressing', false]);
  assert.match(r.message, /step 1\/3 StepUpgrade, 0 of 1 canary pods ready/);
});

test('TestCalculateRolloutStatus rows "disable an working rollout" (Disabled) and "apply an enabled rollout" (Initial): no release, the workload decides; Disabling hands it back first', () => {
  const disabled = loadKind('v1beta1-canary-manual-step.yaml', 'Rollout');
  (disabled.spec as Record<string, unknown>).disabled = true;
  (disabled.status as Record<string, unknown>).phase = 'Disabled';
  const back = rolledBack(5);
  assert.deepEqual([evaluateGate(disabled, back, NOW, { workloadVerdict: verdictOf(back) }).state, releaseStage(readRollout(disabled, back), back)], ['Complete', 'none']);
  (disabled.status as Record<string, unknown>).phase = 'Disabling';
  const disabling = evaluateGate(disabled, back, NOW, { workloadVerdict: verdictOf(back) });
  assert.deepEqual([disabling.state, disabling.release], ['Progressing', 'detaching']);
  const initial = firstDeployment();
  initial.status = { observedGeneration: 1, phase: 'Initial' };
  assert.deepEqual([evaluateGate(initial, shop(10), NOW, { workloadVerdict: verdictOf(shop(10)) }).state, evaluateGate(initial, shop(0), NOW, { workloadVerdict: verdictOf(shop(0)) }).state], ['Complete', 'Progressing']);
});

test('a failing pod fails the gate in any stage, and its countdown is carried while its grace runs down', () => {
  const failing = { name: 'shop-2rh8p', reason: 'ImagePullBackOff', container: 'web', failAt: NOW + 56_000 };
  const r = evaluateGate(loadKind('v1beta1-canary-manual-step.yaml', 'Rollout'), loadKind('cloneset-demo.yaml', 'CloneSet'), NOW, { workloadVerdict: { state: 'Progressing', message: 'Waiting...', failing } });
  assert.deepEqual(r.failing, failing);
  const f = evaluateGate(firstDeployment(), shop(0), NOW, { workloadVerdict: { state: 'Failed', message: 'cloneset "shop" rollout failed: pod shop-2rh8p ImagePullBackOff for 60s' } });
  assert.deepEqual([f.state, rolloutReleaseExitCode(f)], ['Failed', 1]);
  assert.match(f.message, /^rollout "shop" failed: cloneset "shop" rollout failed/);
});

test('v1alpha1 (v0.4.4 shape): a step waiting for approval is a release in progress', () => {
  const rollout = loadKind('v1alpha1-canary-manual-step.yaml', 'Rollout');
  const cs = loadKind('cloneset-demo.yaml', 'CloneSet');
  const r = evaluateGate(rollout, cs, NOW, { until: until('paused'), workloadVerdict: verdictOf(cs) });
  assert.deepEqual([r.release, r.state, r.reached], ['in-progress', 'StepPaused', true]);
});

test('undo of a workload under a Rollout (rollout_progressing.go doProgressingInRolling): back to the stable revision cancels, another revision restarts the release, no release: a new one', () => {
  const rollout = loadKind('v1beta1-canary-manual-step.yaml', 'Rollout');
  const cs = loadKind('cloneset-demo.yaml', 'CloneSet');
  const stable = readRollout(rollout).status.stableRevision ?? '';
  const hash = stable.slice(stable.lastIndexOf('-') + 1);
  assert.equal(undoUnderRollout(rollout, cs, hash, false), 'cancel');
  assert.equal(undoUnderRollout(rollout, cs, hash, true), 'rollback-in-batches');
  assert.equal(undoUnderRollout(rollout, cs, '0a1b2c3d4', false), 'restart');
  assert.equal(undoUnderRollout(loadKind('v1beta1-cancelled.yaml', 'Rollout'), rolledBack(5), hash, false), 'release');
});

test('rollout/NAME (followsRollout) asks whether the release went out: a cancelled release fails with the reason (exit 1) until the next release; the workload gate (TYPE/NAME) exits 0 once the stable pods are back', () => {
  const cancelling = loadKind('v1beta1-canary-manual-step.yaml', 'Rollout');
  Object.assign(cancelling.status as Record<string, unknown>, { phase: 'Progressing', conditions: [{ type: 'Progressing', status: 'True', reason: 'Cancelling', message: 'The workload has been rolled back and the rollout process will be cancelled' }] });
  // While the controller cancels, the gate waits for its verdict (rollout_progressing.go: Succeeded=False once done).
  const r = evaluateGate(cancelling, rolledBack(2), NOW, { followsRollout: true, workloadVerdict: verdictOf(rolledBack(2)) });
  assert.deepEqual([r.state, rolloutReleaseExitCode(r)], ['Progressing', 4]);
  const cancelled = loadKind('v1beta1-cancelled.yaml', 'Rollout');
  const failed = evaluateGate(cancelled, rolledBack(2), NOW, { followsRollout: true, workloadVerdict: verdictOf(rolledBack(2)) });
  assert.deepEqual([failed.state, rolloutReleaseExitCode(failed)], ['Failed', 1]);
  assert.equal(failed.message, 'rollout "demo" was cancelled: the workload was rolled back to its stable revision: Rollout progressing has been cancelled (Succeeded=False)');
  const later = evaluateGate(cancelled, rolledBack(5), NOW, { followsRollout: true, workloadVerdict: verdictOf(rolledBack(5)) });
  assert.deepEqual([later.state, rolloutReleaseExitCode(later)], ['Failed', 1]);
  assert.equal(evaluateGate(cancelled, rolledBack(5), NOW, { workloadVerdict: verdictOf(rolledBack(5)) }).state, 'Complete');
});

/** master-native-daemonset-released.yaml: a DaemonSet Kruise Rollout master released and handed back. */
function nativeDaemonSetReleased(): { rollout: KubeObject; ds: KubeObject } {
  return { rollout: structuredClone(loadKind('master-native-daemonset-released.yaml', 'Rollout')), ds: structuredClone(loadKind('master-native-daemonset-released.yaml', 'DaemonSet')) };
}

test('a native DaemonSet after a master release (controller_finder.go getNativeDaemonSet, rollout_status.go calculateRolloutStatus): observedWorkloadGeneration stays behind the hand-back\'s generation, and the DaemonSet\'s own verdict decides', () => {
  const { rollout, ds } = nativeDaemonSetReleased();
  assert.equal(evaluateRolloutRelease(rollout, ds, NOW).state, 'Complete');
  const done = evaluateGate(rollout, ds, NOW, { followsRollout: true, workloadVerdict: verdictOf(ds) });
  assert.deepEqual([done.release, done.state, done.reached], ['none', 'Complete', true]);
  // a release that ended below 100 %: the restored RollingUpdate rolls the rest, the gate waits for it
  Object.assign(ds.status as Record<string, unknown>, { updatedNumberScheduled: 2 });
  const rolling = evaluateGate(rollout, ds, NOW, { followsRollout: true, workloadVerdict: verdictOf(ds) });
  assert.deepEqual([rolling.release, rolling.state, rolling.reached], ['none', 'Progressing', false]);
});

test('a native DaemonSet under OnDelete held by a release (handleNativeDaemonSet\'s mark) does not pass early, whatever its pods say', () => {
  const { rollout, ds } = nativeDaemonSetReleased();
  // the next template change, held by the workload webhook: generation 4, OnDelete, nothing rolled yet
  ds.metadata.generation = 4;
  ds.metadata.annotations = { 'rollouts.kruise.io/in-progressing': '{"rolloutName":"rollout-node-agent"}', 'rollouts.kruise.io/daemonset-original-update-strategy': 'RollingUpdate' };
  (ds.spec as { updateStrategy: Record<string, unknown> }).updateStrategy.type = 'OnDelete';
  Object.assign(ds.status as Record<string, unknown>, { observedGeneration: 4, updatedNumberScheduled: 0 });
  for (const until of [parseRolloutUntil('complete'), parseRolloutUntil('paused')]) {
    const r = evaluateGate(rollout, ds, NOW, { until, followsRollout: true, workloadVerdict: verdictOf(ds) });
    assert.deepEqual([r.release, r.state, r.reached], ['starting', 'Progressing', false]);
    assert.equal(evaluateRolloutRelease(rollout, ds, NOW, { until }).reached, false);
  }
  // even were its pods all counted as updated (the status lagging the OnDelete switch)
  Object.assign(ds.status as Record<string, unknown>, { updatedNumberScheduled: 4 });
  assert.equal(evaluateGate(rollout, ds, NOW, { followsRollout: true, workloadVerdict: verdictOf(ds) }).reached, false);
});

test('undo of a native DaemonSet under a master Rollout restarts the release (isContinuousRelease): its finder never reads the stable template coming back as a rollback', () => {
  const { rollout, ds } = nativeDaemonSetReleased();
  Object.assign(rollout.status as Record<string, unknown>, { phase: 'Progressing', conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', message: '' }] });
  ds.metadata.annotations = { 'rollouts.kruise.io/in-progressing': '{"rolloutName":"rollout-node-agent"}' };
  assert.equal(undoUnderRollout(rollout, ds, '9dc9f58b9', false), 'restart');
});

test('a Rollout of a native DaemonSet on v0.6 (no such finder before master: Initial, "Workload Not Found" while it exists): rollout/NAME is blocked and says why; the DaemonSet, released by nobody, answers for itself', () => {
  const { rollout, ds } = nativeDaemonSetReleased();
  rollout.status = { observedGeneration: 1, phase: 'Initial', message: 'Workload Not Found', currentStepIndex: 0, currentStepState: '' };
  const blocked = evaluateGate(rollout, ds, NOW, { followsRollout: true, workloadVerdict: verdictOf(ds) });
  assert.deepEqual([blocked.state, blocked.reached, rolloutReleaseExitCode(blocked)], ['Blocked', false, 4]);
  assert.equal(blocked.message, 'rollout "rollout-node-agent" is blocked: its controller reports Workload Not Found although DaemonSet/node-agent exists (Kruise Rollout releases native DaemonSets from master on)');
  const own = evaluateGate(rollout, ds, NOW, { workloadVerdict: verdictOf(ds) });
  assert.deepEqual([own.state, own.reached, own.message], ['Complete', true, verdictOf(ds).message]);
});

test('a Rollout enabled again after being disabled mid-release: phase Healthy with the abandoned step 1 StepPaused is no release (was "waiting for approval": verify would have approved it)', () => {
  // A sandbox snapshot (scripts/gitops-corpus.ts): rollout_status.go keeps canaryStatus from Disabled to Healthy.
  const text = readFileSync(join(REPO, 'test/fixtures/gitops/corpus/rollout/rollout-v1beta1-disabled-18.yaml'), 'utf8');
  const rollout = parse(text) as KubeObject;
  const st = rollout.status as { phase: string; canaryStatus: { currentStepState: string } };
  assert.deepEqual([st.phase, st.canaryStatus.currentStepState], ['Healthy', 'StepPaused']);
  const r = evaluateRolloutRelease(rollout, undefined, NOW);
  assert.deepEqual([r.state, r.reached, r.stepState], ['Complete', true, undefined]);
  assert.match(r.message, /is healthy: no release in progress \(its status keeps step 1\/\d StepPaused of a release it no longer drives\)/);
  const plan = { checked: new Map([[1, ['smoke']]]), approveUnchecked: false };
  assert.equal(decideVerify(rollout, undefined, plan, NOW).kind, 'complete');
});
