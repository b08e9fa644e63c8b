// `rollout status broadcastjob/NAME`: the verdict (src/kruise/progress-broadcastjob.ts) on statuses as
// Kruise's controller writes them (phase, Complete/Failed conditions), the JSON Lines view
// (src/printers/rollout-status.ts) and the progress-kind table the command dispatches through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateBroadcastJob } from '../../../src/kruise/progress-broadcastjob';
import { hasProgressKind, jobProgressKind, progressKindFor } from '../../../src/kruise/progress-kinds';
import { statusView, statusSpinnerText } from '../../../src/printers/rollout-status';
import type { KubeObject, Pod } from '../../../src/kruise/types';

const NOW = Date.parse('2025-10-10T09:00:00Z');

function bcj(status: Record<string, unknown> | undefined, spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'apps.kruise.io/v1beta1', kind: 'BroadcastJob', metadata: { name: 'warm', namespace: 'default', uid: 'u1' }, spec: { completionPolicy: { type: 'Always' }, failurePolicy: { type: 'FailFast' }, ...spec }, ...(status ? { status } : {}) };
}
const failedPod: Pod = {
  metadata: { name: 'warm-x7k2p' },
  spec: { nodeName: 'node-2', containers: [{ name: 'warm' }] },
  status: { phase: 'Failed', containerStatuses: [{ name: 'warm', image: 'b', ready: false, restartCount: 0, state: { terminated: { exitCode: 3, reason: 'Error' } } }] },
};

test('verdicts: not started, running, completed, completed with failures under Continue, failed (condition, and the pod once listed), paused, Never', () => {
  assert.equal(evaluateBroadcastJob(bcj(undefined), [], NOW).message, 'Waiting for broadcastjob "warm" to start...');
  const running = evaluateBroadcastJob(bcj({ phase: 'running', desired: 4, active: 2, succeeded: 2, failed: 0 }), [], NOW);
  assert.deepEqual([running.state, running.message], ['Progressing', 'Waiting for broadcastjob "warm" to complete: 2 of 4 pods succeeded, 2 active...']);
  const complete = (failed: number) => ({ phase: 'completed', desired: 4, active: 0, succeeded: 4 - failed, failed, conditions: [{ type: 'Complete', status: 'True', reason: 'Complete', message: `Job completed, ${4 - failed} pods succeeded, ${failed} pods failed` }] });
  assert.deepEqual([evaluateBroadcastJob(bcj(complete(0)), [], NOW).state, evaluateBroadcastJob(bcj(complete(0)), [], NOW).message], ['Complete', 'broadcastjob "warm" completed: 4 of 4 pods succeeded']);
  assert.equal(evaluateBroadcastJob(bcj(complete(1), { failurePolicy: { type: 'Continue' } }), [], NOW).message, 'broadcastjob "warm" completed: 3 of 4 pods succeeded (failurePolicy Continue: 1 failed)');
  const failedStatus = { phase: 'failed', desired: 4, active: 0, succeeded: 1, failed: 3, conditions: [{ type: 'Failed', status: 'True', reason: 'Failed', message: 'failure policy is FailurePolicyTypeFailFast and failed pod is found' }] };
  const unlisted = evaluateBroadcastJob(bcj(failedStatus), [], NOW);
  assert.deepEqual([unlisted.state, unlisted.needsPods], ['Failed', true], 'a watcher lists the pods to name the failed one');
  const listed = evaluateBroadcastJob(bcj(failedStatus), [failedPod], NOW, { podsListed: true });
  assert.equal(listed.message, 'broadcastjob "warm" failed: failure policy is FailurePolicyTypeFailFast and failed pod is found (1 of 4 pods succeeded, 3 failed); pod "warm-x7k2p" on node "node-2": container "warm" exited with code 3 (Error)');
  assert.deepEqual(listed.failedPod, { name: 'warm-x7k2p', reason: 'exit code 3', container: 'warm' });
  assert.equal(listed.needsPods, undefined);
  const paused = evaluateBroadcastJob(bcj({ phase: 'paused', desired: 4, active: 0, succeeded: 1, failed: 1 }, { failurePolicy: { type: 'Pause' } }), [], NOW);
  assert.deepEqual([paused.state, paused.message], ['Paused', 'broadcastjob "warm" is paused: failurePolicy Pause stopped it after 1 failed pod (1 of 4 pods succeeded, 1 failed)']);
  assert.match(evaluateBroadcastJob(bcj({ phase: 'paused', desired: 4, active: 3, succeeded: 0, failed: 0 }, { paused: true }), [], NOW).message, /is paused: spec\.paused is true/);
  assert.match(evaluateBroadcastJob(bcj({ phase: 'running', desired: 4, active: 0, succeeded: 4, failed: 0 }, { completionPolicy: { type: 'Never' } }), [], NOW).message, /completionPolicy Never: it runs until deleted/);
  assert.match(evaluateBroadcastJob(bcj({ phase: 'running', desired: 0, active: 0, succeeded: 0, failed: 0 }), [], NOW).message, /no node is eligible for its pods yet/);
});

test('a status no schema checked (conditions a map, counts as strings) is read as nothing there, not thrown on', () => {
  const odd = evaluateBroadcastJob(bcj({ phase: 'running', desired: '4', succeeded: 2, conditions: { Complete: { status: 'True' } } }), [], NOW);
  assert.deepEqual([odd.state, odd.job], ['Progressing', { desired: 0, active: 0, succeeded: 2, failed: 0, phase: 'running' }]);
  const junk = evaluateBroadcastJob(bcj({ phase: 7, conditions: [null, 'x', { type: 'Complete', status: 'True' }] }), [], NOW);
  assert.equal(junk.state, 'Complete');
});

test('a pod stuck in ImagePullBackOff fails the gate after --failure-grace, with a countdown before', () => {
  const stuck: Pod = {
    metadata: { name: 'warm-abc', uid: 'p1' },
    spec: { containers: [{ name: 'warm' }] },
    status: { phase: 'Pending', startTime: '2025-10-10T08:59:30Z', containerStatuses: [{ name: 'warm', image: 'x:fail-pull', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image' } } }] },
  };
  const job = bcj({ phase: 'running', desired: 1, active: 1, succeeded: 0, failed: 0 });
  const counting = evaluateBroadcastJob(job, [stuck], NOW, { failureGraceMs: 60_000, podsListed: true });
  assert.equal(counting.state, 'Progressing');
  assert.equal(counting.failing?.name, 'warm-abc');
  assert.equal(counting.recheckAt, counting.failing?.failAt);
  const failed = evaluateBroadcastJob(job, [stuck], NOW, { failureGraceMs: 0, podsListed: true });
  assert.deepEqual([failed.state, failed.message], ['Failed', 'broadcastjob "warm" failed: pod "warm-abc" container "warm" is in ImagePullBackOff: Back-off pulling image']);
});

test('an init container stuck in ErrImagePull fails the gate too, also through the watch\'s trimmed pods (trimPod keeps init container states)', () => {
  const stuck: Pod = {
    metadata: { name: 'warm-init', uid: 'p2', creationTimestamp: '2025-10-10T08:58:00Z' },
    spec: { initContainers: [{ name: 'fetch', image: 'x:fail-pull' }], containers: [{ name: 'warm', image: 'b' }] },
    status: {
      phase: 'Pending',
      startTime: '2025-10-10T08:58:00Z',
      initContainerStatuses: [{ name: 'fetch', image: 'x:fail-pull', ready: false, restartCount: 0, state: { waiting: { reason: 'ErrImagePull', message: 'pull access denied' } } }],
      containerStatuses: [{ name: 'warm', image: 'b', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
    },
  };
  const job = bcj({ phase: 'running', desired: 1, active: 1, succeeded: 0, failed: 0 });
  const want = ['Failed', 'broadcastjob "warm" failed: pod "warm-init" container "fetch" is in ErrImagePull: pull access denied'];
  const direct = evaluateBroadcastJob(job, [stuck], NOW, { failureGraceMs: 60_000, podsListed: true });
  assert.deepEqual([direct.state, direct.message], want);
  const trimmed = evaluateBroadcastJob(job, [progressKindFor(job)!.trimPod(stuck)], NOW, { failureGraceMs: 60_000, podsListed: true });
  assert.deepEqual([trimmed.state, trimmed.message], want);
});

test('JSON Lines of a job kind: the general fields plus desired/active/succeeded/failed/phase, no rollout counts', () => {
  const p = evaluateBroadcastJob(bcj({ phase: 'running', desired: 4, active: 3, succeeded: 1, failed: 0 }), [], NOW);
  assert.deepEqual(statusView(p, NOW), {
    kind: 'BroadcastJob',
    apiVersion: 'apps.kruise.io/v1beta1',
    namespace: 'default',
    name: 'warm',
    state: 'Progressing',
    desired: 4,
    active: 3,
    succeeded: 1,
    failed: 0,
    phase: 'running',
    message: 'Waiting for broadcastjob "warm" to complete: 1 of 4 pods succeeded, 3 active...',
  });
  assert.match(statusSpinnerText(p, NOW), /\[desired 4, active 3, succeeded 1, failed 0\]$/);
});

test('the progress-kind table: BroadcastJob is a job kind watched through its uid label; workloads keep their adapters', () => {
  const kind = progressKindFor(bcj({ phase: 'running' }))!;
  assert.deepEqual(kind.selector(bcj(undefined)), { matchLabels: { 'broadcastjob-controller-uid': 'u1' } });
  assert.equal(kind.podTest(bcj(undefined)).key, 'all');
  assert.equal(kind.trimPod(failedPod).spec.nodeName, 'node-2', 'the pod fields the verdict reads survive the trim');
  assert.ok(jobProgressKind('apps.kruise.io', 'BroadcastJob'));
  assert.equal(jobProgressKind('apps.kruise.io', 'CloneSet'), undefined);
  assert.ok(hasProgressKind('apps.kruise.io', 'CloneSet'));
  assert.equal(hasProgressKind('apps.kruise.io', 'AdvancedCronJob'), false);
  assert.equal(progressKindFor({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: {} })?.awaited.after, 'rollout to finish');
});
