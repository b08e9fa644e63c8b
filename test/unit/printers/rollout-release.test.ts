import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateRolloutRelease } from '../../../src/kruise/rollout/gate';
import { releaseKey, releaseLine, releaseView, type ReleaseReport } from '../../../src/printers/rollout-release';
import { loadKind } from '../kruise/rollout/helpers';

function report(file: string, now: number, patch: (o: any) => void = () => undefined): ReleaseReport {
  const rollout = loadKind(file, 'Rollout');
  patch(rollout);
  return { ...evaluateRolloutRelease(rollout, undefined, now), apiVersion: rollout.apiVersion ?? '', workload: 'CloneSet/demo' };
}

test('JSON Lines: the contract fields of a Kruise Rollout, absent values null, in a stable order', () => {
  const r = report('v1beta1-canary-manual-step.yaml', Date.parse('2026-11-25T01:00:00Z'));
  assert.deepEqual(Object.keys(releaseView(r)), [
    'kind', 'apiVersion', 'namespace', 'name', 'workload', 'state', 'reached', 'step', 'steps', 'stepState',
    'canaryRevision', 'stableRevision', 'canaryReadyReplicas', 'canaryReplicas', 'trafficWeight', 'release', 'workloadState', 'message',
  ]);
  const v = releaseView(r);
  assert.deepEqual([v.kind, v.apiVersion, v.state, v.step, v.steps, v.stepState, v.trafficWeight], ['Rollout', 'rollouts.kruise.io/v1beta1', 'StepPaused', 1, 3, 'StepPaused', null]);
});

test('human line: the step\'s traffic weight is added while the release runs, not once it is over', () => {
  const base: ReleaseReport = { namespace: 'd', name: 'r', apiVersion: 'rollouts.kruise.io/v1beta1', state: 'Progressing', reached: false, steps: 3, step: 2, trafficWeight: '20%', message: 'Waiting for rollout "r" to finish: step 2/3 StepUpgrade...' };
  assert.equal(releaseLine(base), 'Waiting for rollout "r" to finish: step 2/3 StepUpgrade; traffic 20%...');
  assert.equal(releaseLine({ ...base, state: 'StepPaused', message: 'rollout "r" is waiting for approval at step 2/3' }), 'rollout "r" is waiting for approval at step 2/3 (traffic 20%)');
  assert.equal(releaseLine({ ...base, state: 'Complete', message: 'rollout "r" successfully rolled out' }), 'rollout "r" successfully rolled out');
});

test('de-duplication: a timed pause\'s countdown is not a change; a new step state is', () => {
  const at = (now: number): ReleaseReport => report('v1beta1-canary-timed-pause.yaml', now);
  const a = at(Date.parse('2026-11-25T01:00:01Z'));
  const b = at(Date.parse('2026-11-25T01:00:05Z'));
  assert.match(a.message, /s left\)/);
  assert.equal(releaseKey(a), releaseKey(b));
  assert.notEqual(releaseKey(a), releaseKey({ ...a, stepState: 'StepReady' }));
});
