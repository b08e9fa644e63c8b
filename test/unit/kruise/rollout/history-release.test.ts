import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rolloutHistoryRelease } from '../../../../src/kruise/rollout/history-release';
import type { HistoryRow } from '../../../../src/kruise/revisions';
import { loadKind } from './helpers';

// Revision names as the Rollout status carries them: openkruise/rollouts v0.6.2 pkg/util/controller_finder.go
// (getKruiseCloneSet: hash suffixes of currentRevision/updateRevision; getDeploymentWorkload: pod-template-hash labels).
const SRC = 'pkg/util/controller_finder.go (openkruise/rollouts v0.6.2)';
const cloneSet = loadKind('cloneset-demo.yaml', 'CloneSet');
const NOW = Date.parse('2026-11-25T01:00:30Z');
const row = (revision: number, name: string): HistoryRow => ({ revision, name, changeCause: '<none>', images: [], pods: 0 });
const CLONESET_ROWS = [row(1, 'demo-5d4c3b2a1'), row(2, 'demo-6c4f9b7d8'), row(3, 'demo-7b5d6c9f4')];

test(`${SRC} getKruiseCloneSet: stable and canary found among the ControllerRevisions; step and approval in the summary`, () => {
  const r = rolloutHistoryRelease(loadKind('v1beta1-canary-manual-step.yaml', 'Rollout'), cloneSet, CLONESET_ROWS, NOW);
  assert.deepEqual([r?.stableRevision, r?.canaryRevision, r?.roles], [2, 3, { 2: 'stable', 3: 'canary' }]);
  assert.equal(r?.summary, 'rollout/demo releases revision 2 → revision 3, step 1/3 StepPaused (waiting for approval)');
  assert.deepEqual([r?.step, r?.steps, r?.stepState, r?.state], [1, 3, 'StepPaused', 'StepPaused']);
});

test(`${SRC}: a completed release names the released revision only`, () => {
  const r = rolloutHistoryRelease(loadKind('v1beta1-completed.yaml', 'Rollout'), cloneSet, CLONESET_ROWS, NOW);
  assert.equal(r?.state, 'Complete');
  assert.deepEqual(r?.roles, { 3: 'canary' });
  assert.equal(r?.summary, 'rollout/demo released revision 3 (complete)');
});

test(`${SRC} getDeploymentWorkload: ReplicaSet names end in the pod-template-hash the blue-green status names`, () => {
  const deploy = loadKind('v1beta1-bluegreen.yaml', 'Deployment');
  const rows = [row(4, 'checkout-6d9c8b7f5'), row(5, 'checkout-5f8d7c6b9')];
  const r = rolloutHistoryRelease(loadKind('v1beta1-bluegreen.yaml', 'Rollout'), deploy, rows, NOW);
  assert.deepEqual(r?.roles, { 4: 'stable', 5: 'canary' });
  assert.match(r?.summary ?? '', /^rollout\/checkout releases revision 4 → revision 5, step 1\/2 StepPaused/);
});

test(`${SRC}: history trimmed below the stable revision: the hash is named instead; no sub-status: nothing to say`, () => {
  const r = rolloutHistoryRelease(loadKind('v1beta1-canary-manual-step.yaml', 'Rollout'), cloneSet, [row(3, 'demo-7b5d6c9f4')], NOW);
  assert.equal(r?.summary, 'rollout/demo releases revision demo-6c4f9b7d8 → revision 3, step 1/3 StepPaused (waiting for approval)');
  assert.equal(rolloutHistoryRelease(loadKind('v1beta1-workload-missing.yaml', 'Rollout'), cloneSet, CLONESET_ROWS, NOW), undefined);
});
