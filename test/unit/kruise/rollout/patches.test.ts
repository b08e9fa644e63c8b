import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { approvePatch, jumpPatch, movedSince, pausePatch } from '../../../../src/kruise/rollout/patches';
import type { KubeObject } from '../../../../src/kruise/types';
import { jsonPatch } from '../../../../src/lib/json-patch';
import { haveRolloutCrds, loadKind, mergePatch, rolloutSchemaErrors } from './helpers';

const rollout = (file: string): KubeObject => loadKind(file, 'Rollout');

/** The object after the server applies the JSON patch (its tests pass), validated against the release's CRD. */
function assertFits(release: string, obj: KubeObject, patch: unknown[]): KubeObject {
  const after = jsonPatch(obj, patch) as KubeObject;
  if (haveRolloutCrds) assert.deepEqual(rolloutSchemaErrors(release, after), [], release);
  return after;
}

/** The patch's changes (its `test` ops left out). */
const changes = (patch: unknown[]) => (patch as Array<{ op: string }>).filter((o) => o.op !== 'test');
const tests = (patch: unknown[]) => (patch as Array<{ op: string }>).filter((o) => o.op === 'test');

describe('approve: StepPaused → StepReady (rollout_canary.go / rollout_bluegreen.go runCanary, case StepPaused)', () => {
  test('v1beta1 canary: the sub-status and the top-level mirror (rollout_status.go updateRolloutStatusInternal), on the status subresource, conditional on the step, its state and the revision read', () => {
    const obj = rollout('v1beta1-canary-manual-step.yaml');
    const r = approvePatch(obj);
    assert.ok(r.patch);
    assert.equal(r.subresource, 'status');
    assert.deepEqual(r.patch, [
      { op: 'test', path: '/status/canaryStatus/currentStepIndex', value: 1 },
      { op: 'test', path: '/status/canaryStatus/currentStepState', value: 'StepPaused' },
      { op: 'test', path: '/status/canaryStatus/canaryRevision', value: 'demo-7b5d6c9f4' },
      { op: 'add', path: '/status/canaryStatus/currentStepState', value: 'StepReady' },
      { op: 'add', path: '/status/currentStepState', value: 'StepReady' },
    ]);
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
    assert.deepEqual(changes(r.patch), [
      { op: 'add', path: '/status/blueGreenStatus/currentStepState', value: 'StepReady' },
      { op: 'add', path: '/status/currentStepState', value: 'StepReady' },
    ]);
    assert.deepEqual(tests(r.patch).at(-1), { op: 'test', path: '/status/blueGreenStatus/updatedRevision', value: '5f8d7c6b9' });
    for (const release of ['v0.6.2', 'master']) assertFits(release, obj, r.patch);
  });

  test('v1alpha1: only canaryStatus (v1alpha1 has no top-level mirror: the v0.4.4 schema would refuse it)', () => {
    const obj = rollout('v1alpha1-canary-manual-step.yaml');
    const r = approvePatch(obj);
    assert.ok(r.patch);
    assert.deepEqual(changes(r.patch), [{ op: 'add', path: '/status/canaryStatus/currentStepState', value: 'StepReady' }]);
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
    assert.deepEqual(r.patch, [
      { op: 'test', path: '/status/canaryStatus/currentStepIndex', value: 2 },
      { op: 'test', path: '/status/canaryStatus/currentStepState', value: 'StepPaused' },
      { op: 'test', path: '/status/canaryStatus/canaryRevision', value: 'demo-7b5d6c9f4' },
      { op: 'test', path: '/status/canaryStatus/nextStepIndex', value: 3 },
      { op: 'add', path: '/status/canaryStatus/nextStepIndex', value: 1 },
    ]);
    for (const release of ['v0.6.2', 'master']) assertFits(release, obj, r.patch);
  });

  test('forward past the natural next step; blue-green writes blueGreenStatus', () => {
    const r = jumpPatch(rollout('v1beta1-canary-manual-step.yaml'), 3);
    assert.ok(r.patch);
    const bg = jumpPatch(rollout('v1beta1-bluegreen.yaml'), 1);
    assert.ok(bg.patch);
    assert.deepEqual(changes(bg.patch), [{ op: 'add', path: '/status/blueGreenStatus/nextStepIndex', value: 1 }]);
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
  test('pause a running canary, resume a paused one (both fit the CRD), conditional on the generation read (status writes leave it alone)', () => {
    const running = rollout('v1beta1-canary-manual-step.yaml');
    const p = pausePatch(running, true);
    assert.ok(p.patch);
    assert.equal(p.subresource, 'main');
    assert.deepEqual(p.patch, [{ op: 'test', path: '/metadata/generation', value: 1 }, { op: 'add', path: '/spec/strategy/paused', value: true }]);
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
  assert.deepEqual(changes(j.patch), [{ op: 'add', path: '/status/canaryStatus/nextStepIndex', value: 3 }]);
  const a = approvePatch(obj);
  assert.ok(a.patch);
  for (const release of ['v0.6.2', 'master']) {
    assertFits(release, obj, j.patch);
    assertFits(release, obj, a.patch);
  }
});

describe('conditional writes (issue #26): the server refuses a write decided on a state that is gone; movedSince re-decides', () => {
  type Sub = { currentStepIndex?: number; currentStepState?: string; nextStepIndex?: number; canaryRevision?: string; canaryReadyReplicas?: number };
  const withSub = (obj: KubeObject, sub: Sub, rv = '4800'): KubeObject => {
    const o = structuredClone(obj) as KubeObject & { status: { canaryStatus: Sub } };
    o.metadata.resourceVersion = rv;
    Object.assign(o.status.canaryStatus, sub);
    return o;
  };
  const paused1 = rollout('v1beta1-canary-manual-step.yaml');

  test('the approval of step 1 does not apply once the release moved to step 2 (even paused there), nor to a new release paused at step 1; it applies after an unrelated status write', () => {
    const r = approvePatch(paused1);
    assert.ok(r.patch);
    assert.throws(() => jsonPatch(withSub(paused1, { currentStepIndex: 2, currentStepState: 'StepPaused', nextStepIndex: 3 }), r.patch), /testing value at "\/status\/canaryStatus\/currentStepIndex" failed/);
    assert.throws(() => jsonPatch(withSub(paused1, { currentStepState: 'StepReady' }), r.patch), /currentStepState" failed/);
    assert.throws(() => jsonPatch(withSub(paused1, { canaryRevision: 'demo-5c8f9d7b6' }), r.patch), /canaryRevision" failed/);
    const after = jsonPatch(withSub(paused1, { canaryReadyReplicas: 1 }), r.patch) as { status: { canaryStatus: Sub } };
    assert.equal(after.status.canaryStatus.currentStepState, 'StepReady');
  });

  test('movedSince after an approval: unrelated status writes → write again; the step approved by someone else → exit 1 saying where the release is and what to run', () => {
    const r = approvePatch(paused1);
    assert.ok(r.patch);
    assert.equal(movedSince(r, withSub(paused1, { canaryReadyReplicas: 1 })), undefined);
    assert.equal(movedSince(r, withSub(paused1, { currentStepState: 'StepReady' })), 'rollout "demo": step 1 was already approved; the release is at step 1/3 StepReady');
    assert.equal(
      movedSince(r, withSub(paused1, { currentStepIndex: 2, currentStepState: 'StepPaused', nextStepIndex: 3 })),
      'rollout "demo": step 1 was already approved; the release is at step 2/3 StepPaused: run approve again to promote step 2',
    );
    assert.equal(
      movedSince(r, withSub(paused1, { canaryRevision: 'demo-5c8f9d7b6' })),
      'rollout "demo": a new release (revision demo-5c8f9d7b6) replaced the one read (revision demo-7b5d6c9f4): nothing was changed; the release is at step 1/3 StepPaused: run approve again to promote step 1',
    );
  });

  test('movedSince after a jump (undo --fast): another jump, or the controller following it → exit 1; a status write besides → write again', () => {
    const at2 = rollout('v1beta1-canary-timed-pause.yaml');
    const r = jumpPatch(at2, 1);
    assert.ok(r.patch);
    assert.equal(movedSince(r, withSub(at2, { canaryReadyReplicas: 3 })), undefined);
    assert.match(movedSince(r, withSub(at2, { nextStepIndex: 1 })) ?? '', /^rollout "demo" moved on since it was read \(it was at step 2\/3 StepPaused; it is at step 2\/3 StepPaused, next step 1\): nothing was changed/);
    assert.match(movedSince(r, withSub(at2, { currentStepIndex: 1, currentStepState: 'StepPaused', nextStepIndex: 2 })) ?? '', /it is at step 1\/3 StepPaused, next step 2\)/);
  });

  test('a field the decision rests on that is absent cannot be tested: the resourceVersion read stands in', () => {
    const noRevision = structuredClone(paused1) as KubeObject & { status: { canaryStatus: Sub } };
    delete noRevision.status.canaryStatus.canaryRevision;
    const r = approvePatch(noRevision);
    assert.ok(r.patch);
    assert.deepEqual(r.patch[0], { op: 'test', path: '/metadata/resourceVersion', value: '4711' });
    assert.equal(tests(r.patch).length, 3);
  });

  test('pause: a spec change besides (generation) → pause again; paused meanwhile → "already paused"', () => {
    const p = pausePatch(paused1, true);
    assert.ok(p.patch);
    const bumped = structuredClone(paused1);
    bumped.metadata.generation = 2;
    assert.throws(() => jsonPatch(bumped, p.patch), /metadata\/generation" failed/);
    assert.equal(movedSince(p, bumped), undefined);
    const pausedNow = jsonPatch(paused1, [{ op: 'add', path: '/spec/strategy/paused', value: true }]) as KubeObject;
    assert.equal(movedSince(p, pausedNow), 'rollout "demo" is already paused');
  });
});

test('jump (and undo --fast) while another jump is under way (nextStepIndex not the natural next step, doStepJump not yet run): nothing written, says so', () => {
  const at2 = rollout('v1beta1-canary-timed-pause.yaml') as KubeObject & { status: { canaryStatus: Record<string, unknown> } };
  at2.status.canaryStatus.nextStepIndex = 1;
  for (const to of [1, 3]) {
    const r = jumpPatch(at2, to);
    assert.ok(!r.patch && r.reason === 'rollout "demo": a jump from step 2/3 to step 1 is already under way (status nextStepIndex): run the command again once the controller has made it', String(to));
  }
});
