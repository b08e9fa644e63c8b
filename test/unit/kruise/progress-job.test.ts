// src/kruise/progress-job.ts: a batch/v1 Job as a gate. The conditions are those kube v1.32's job
// controller writes (pkg/controller/job/job_controller.go: FailureTarget then Failed, SuccessCriteriaMet
// then Complete, once the pods are gone; Suspended while spec.suspend), as src/kruise/rules/job.ts does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateJob } from '../../../src/kruise/progress-job';
import type { KubeObject, Pod } from '../../../src/kruise/types';

const NOW = Date.parse('2026-11-28T12:00:00Z');
function job(status: Record<string, unknown>, spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'migrate', namespace: 'default' }, spec: { completions: 2, ...spec }, status };
}
const cond = (type: string, reason = '', message = '') => ({ type, status: 'True', reason, message });

test('progress-job: the terminal conditions decide; FailureTarget already fails; Suspended pauses', () => {
  const rows: Array<[string, KubeObject, string, RegExp]> = [
    ['running', job({ active: 1, succeeded: 1 }), 'Progressing', /Waiting for job "migrate" to complete: 1 of 2 completions succeeded, 1 active/],
    ['success decided, pods finishing', job({ succeeded: 2, conditions: [cond('SuccessCriteriaMet', 'CompletionsReached')] }), 'Progressing', /its pods are finishing/],
    ['complete', job({ succeeded: 2, conditions: [cond('SuccessCriteriaMet'), cond('Complete', 'CompletionsReached')] }), 'Complete', /job "migrate" completed: 2 of 2/],
    ['failure decided', job({ failed: 7, conditions: [cond('FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit')] }), 'Failed', /failed: BackoffLimitExceeded: Job has reached the specified backoff limit/],
    ['failed', job({ failed: 1, conditions: [cond('FailureTarget', 'DeadlineExceeded'), cond('Failed', 'DeadlineExceeded', 'Job was active longer than specified deadline')] }), 'Failed', /DeadlineExceeded/],
    ['suspended', job({ conditions: [cond('Suspended', 'JobSuspended')] }, { suspend: true }), 'Paused', /suspended/],
  ];
  for (const [name, j, state, message] of rows) {
    const p = evaluateJob(j, [], NOW, { podsListed: true });
    assert.equal(p.state, state, name);
    assert.match(p.message, message, name);
  }
});

test('progress-job: a failed job names its failed pod once the pods are listed; a crash-looping OnFailure pod fails after the grace', () => {
  const failed = job({ failed: 1, conditions: [cond('Failed', 'BackoffLimitExceeded')] });
  assert.equal(evaluateJob(failed, [], NOW).needsPods, true);
  const pod: Pod = { metadata: { name: 'migrate-x' }, spec: { containers: [{ name: 'm', image: 'busybox:exit-3' }] }, status: { phase: 'Failed', containerStatuses: [{ name: 'm', image: 'busybox:exit-3', state: { terminated: { exitCode: 3, reason: 'Error' } } }] } } as Pod;
  const p = evaluateJob(failed, [pod], NOW, { podsListed: true });
  assert.deepEqual(p.failedPod, { name: 'migrate-x', reason: 'exit code 3', container: 'm' });
  assert.match(p.message, /container "m" exited with code 3/);
  const looping: Pod = { metadata: { name: 'migrate-y', creationTimestamp: '2026-11-28T11:50:00Z' }, spec: { containers: [{ name: 'm', image: 'busybox:crashloop' }] }, status: { phase: 'Running', containerStatuses: [{ name: 'm', image: 'busybox:crashloop', restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off' } } }] } } as Pod;
  const first = new Map([[`migrate-y/CrashLoopBackOff`, NOW - 120_000]]);
  const q = evaluateJob(job({ active: 1 }), [looping], NOW, { podsListed: true, failureGraceMs: 60_000, firstSeenStuck: first });
  assert.equal(q.state, 'Failed');
  assert.equal(q.failedPod?.reason, 'CrashLoopBackOff');
});
