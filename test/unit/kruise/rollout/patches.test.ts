import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { approvePatch, jumpPatch, pausePatch } from '../../../../src/kruise/rollout/patches';
import type { KubeObject } from '../../../../src/kruise/types';
import { haveRolloutCrds, loadKind, mergePatch, rolloutSchemaErrors } from './helpers';

const rollout = (file: string): KubeObject => loadKind(file, 'Rollout');

/** The object after the server applies the merge patch, validated against the release's CRD. */
function assertFits(release: string, obj: KubeObject, patch: Record<string, unknown>): KubeObject {
  const after = mergePatch(obj, patch) as KubeObject;
  if (haveRolloutCrds) assert.deepEqual(rolloutSchemaErrors(release, after), [], release);
  return after;
}

describe('approve: StepPaused → StepReady (rollout_canary.go / rollout_bluegreen.go runCanary, case StepPaused)', () => {
  test('v1beta1 canary: the sub-status and the top-level mirror (rollout_status.go updateRolloutStatusInternal), on the status subresource, guarded by resourceVersion', () => {
    const obj = rollout('v1beta1-canary-manual-step.yaml');
    const r = approvePatch(obj);
    assert.ok(r.patch);
    assert.equal(r.subresource, 'status');
    assert.deepEqual(r.patch, { metadata: { resourceVersion: '4711' }, status: { canaryStatus: { currentStepState: 'StepReady' }, currentStepState: 'StepReady' } });
    for (const release of ['v0.6.2', 'master']) {
      const after = assertFits(release, obj, r.patch) as unknown as { status: { canaryStatus: { currentStepState: string; currentStepIndex: number } } };
      assert.equal(after.status.canaryStatus.currentStepState, 'StepReady');
      assert.equal(after.status.canaryStatus.currentStepIndex, 1);
    }
  });

  test('v1beta1 blue-green: blueGreenStatus', () => {
    const obj = rollout('v1beta1-bluegreen.yaml');
    const r = approvePatch(obj);
    assert.ok(r.patch);
    assert.deepEqual(r.patch.status, { blueGreenStatus: { currentStepState: 'StepReady' }, currentStepState: 'StepReady' });
    for (const release of ['v0.6.2', 'master']) assertFits(release, obj, r.patch);
  });

  test('v1alpha1: only canaryStatus (v1alpha1 has no top-level mirror: the v0.4.4 schema would refuse it)', () => {
    const obj = rollout('v1alpha1-canary-manual-step.yaml');
    const r = approvePatch(obj);
    assert.ok(r.patch);
    assert.deepEqual(r.patch.status, { canaryStatus: { currentStepState: 'StepReady' } });
    assertFits('v0.4.4', obj, r.patch);
    if (haveRolloutCrds) {
      const wrong = mergePatch(obj, { status: { currentStepState: 'StepReady' } }) as KubeObject;
      assert.deepEqual(rolloutSchemaErrors('v0.4.4', wrong), ['.status.currentStepState: unknown field']);
    }
  });

  test('nothing to approve, with the reason, when no step waits', () => {
    for (const [file, why] of [
      ['v1beta1-paused.yaml', /rollout "demo" is not waiting for approval \(step 2\/3 is StepUpgrade\)/],
      ['v1beta1-completed.yaml', /not waiting for approval \(step 3\/3 is Completed\)/],
      ['v1beta1-workload-missing.yaml', /not waiting for approval \(phase Initial\)/],
    ] as const) {
      const r = approvePatch(rollout(file));
      assert.equal(r.patch, undefined, file);
      assert.ok(!r.patch && why.test(r.reason), file);
    }
  });
});

describe('jump: status.<sub>.nextStepIndex (api/v1beta1/rollout_types.go; rollout_status.go doStepJump)', () => {
  test('back to step 1 from a timed pause at step 2 (re-execution, what undo --fast does)', () => {
    const obj = rollout('v1beta1-canary-timed-pause.yaml');
    const r = jumpPatch(obj, 1);
    assert.ok(r.patch);
    assert.deepEqual(r.patch, { metadata: { resourceVersion: '4711' }, status: { canaryStatus: { nextStepIndex: 1 } } });
    for (const release of ['v0.6.2', 'master']) assertFits(release, obj, r.patch);
  });

  test('forward past the natural next step; blue-green writes blueGreenStatus', () => {
    const r = jumpPatch(rollout('v1beta1-canary-manual-step.yaml'), 3);
    assert.ok(r.patch);
    const bg = jumpPatch(rollout('v1beta1-bluegreen.yaml'), 1);
    assert.ok(bg.patch);
    assert.deepEqual(bg.patch.status, { blueGreenStatus: { nextStepIndex: 1 } });
  });

  test('the natural next step is no jump (doStepJump ignores nextStepIndex == NextBatchIndex): nothing written, says approve instead', () => {
    const r = jumpPatch(rollout('v1beta1-canary-manual-step.yaml'), 2);
    assert.ok(!r.patch && /step 2 is already the next step \(approve the current one instead\)/.test(r.reason));
  });

  test('out of range (doStepJump: 1..steps) is invalid input', () => {
    for (const n of [0, 4, -1, 1.5]) {
      const r = jumpPatch(rollout('v1beta1-canary-manual-step.yaml'), n);
      assert.ok(!r.patch && r.invalid === true && /has steps 1\.\.3: cannot jump to step/.test(r.reason), String(n));
    }
  });

  test('no release in progress, or a v0.4 status without nextStepIndex: nothing written', () => {
    const done = jumpPatch(rollout('v1beta1-completed.yaml'), 1);
    assert.ok(!done.patch && /no release in progress/.test(done.reason));
    const old = jumpPatch(rollout('v1alpha1-canary-manual-step.yaml'), 3);
    assert.ok(!old.patch && /before v0\.5\) cannot jump steps/.test(old.reason));
  });
});

describe('pause / resume: spec.strategy.paused', () => {
  test('pause a running canary, resume a paused one (both fit the CRD)', () => {
    const running = rollout('v1beta1-canary-manual-step.yaml');
    const p = pausePatch(running, true);
    assert.ok(p.patch);
    assert.equal(p.subresource, 'main');
    assert.deepEqual(p.patch, { metadata: { resourceVersion: '4711' }, spec: { strategy: { paused: true } } });
    assertFits('v0.6.2', running, p.patch);
    const paused = rollout('v1beta1-paused.yaml');
    const r = pausePatch(paused, false);
    assert.ok(r.patch);
    assertFits('v0.6.2', paused, r.patch);
    const old = pausePatch(rollout('v1alpha1-canary-manual-step.yaml'), true);
    assert.ok(old.patch);
    assertFits('v0.4.4', rollout('v1alpha1-canary-manual-step.yaml'), old.patch);
  });

  test('already in that state: nothing written', () => {
    const r = pausePatch(rollout('v1beta1-paused.yaml'), true);
    assert.ok(!r.patch && /rollout "demo" is already paused/.test(r.reason));
  });
});

test('v1alpha1 served by v0.6 (status has nextStepIndex): jump and approve patch canaryStatus only, and fit the v0.6.2 v1alpha1 schema', () => {
  const obj = rollout('v1alpha1-canary-manual-step.yaml');
  Object.assign((obj.status as { canaryStatus: Record<string, unknown> }).canaryStatus, { nextStepIndex: 2, finalisingStep: '' });
  const j = jumpPatch(obj, 3);
  assert.ok(j.patch);
  assert.deepEqual(j.patch.status, { canaryStatus: { nextStepIndex: 3 } });
  const a = approvePatch(obj);
  assert.ok(a.patch);
  for (const release of ['v0.6.2', 'master']) {
    assertFits(release, obj, j.patch);
    assertFits(release, obj, a.patch);
  }
});
