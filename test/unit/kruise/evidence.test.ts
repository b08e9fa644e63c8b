// src/kruise/evidence.ts: which pods a failed gate shows and which log explains each. The container
// states are the kubelet's (kuberuntime: CrashLoopBackOff with lastState.terminated, ErrImagePull and
// ImagePullBackOff before any start, a finished container's terminated state); `kubectl logs
// --previous` reads the instance before a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { podTrouble, troubledPods } from '../../../src/kruise/evidence';
import type { Pod } from '../../../src/kruise/types';

function pod(name: string, status: Pod['status'], extra: Partial<Pod['metadata']> = {}): Pod {
  return { metadata: { name, ...extra }, spec: { containers: [{ name: 'app', image: 'x' }], nodeName: 'node-1' }, status } as Pod;
}
const ready = [{ type: 'Ready', status: 'True' }];
const notReady = [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady' }];

test('evidence.ts podTrouble: the worst container, and the log that tells why', () => {
  const crash = pod('db-2', { phase: 'Running', conditions: notReady, containerStatuses: [{ name: 'app', image: 'x', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s' } }, lastState: { terminated: { exitCode: 1, reason: 'Error' } } }] });
  const t = podTrouble(crash)!;
  assert.equal(t.summary, 'container app: CrashLoopBackOff (back-off 40s), restarted 4 times, last exit code 1 (Error)');
  assert.deepEqual(t.log, { container: 'app', previous: true });
  // Never started: no log to read.
  const pull = pod('web-1', { phase: 'Pending', conditions: notReady, containerStatuses: [{ name: 'app', image: 'x', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "x"' } } }] });
  assert.equal(podTrouble(pull)!.log, undefined);
  assert.match(podTrouble(pull)!.summary, /ImagePullBackOff/);
  // A job's container that exited badly: its own (current) log.
  const exited = pod('job-x', { phase: 'Failed', containerStatuses: [{ name: 'app', image: 'x', ready: false, restartCount: 0, state: { terminated: { exitCode: 3, reason: 'Error' } } }] });
  assert.deepEqual(podTrouble(exited)!.log, { container: 'app', previous: false });
  assert.equal(podTrouble(exited)!.summary, 'container app: exit code 3 (Error)');
  // Unschedulable: said by the condition, no container to read.
  const pending = pod('web-2', { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available' }] });
  assert.equal(podTrouble(pending)!.summary, 'not scheduled: 0/3 nodes are available');
  // Healthy pods and finished ones are no evidence.
  assert.equal(podTrouble(pod('ok', { phase: 'Running', conditions: ready, containerStatuses: [{ name: 'app', image: 'x', ready: true, restartCount: 0, state: { running: {} } }] })), undefined);
  assert.equal(podTrouble(pod('done', { phase: 'Succeeded', containerStatuses: [{ name: 'app', image: 'x', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] })), undefined);
});

test('evidence.ts troubledPods: the pod the verdict named first, then the worst, at most three, none being deleted', () => {
  const crash = (name: string) => pod(name, { phase: 'Running', conditions: notReady, containerStatuses: [{ name: 'app', image: 'x', ready: false, restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } }] });
  const slow = (name: string) => pod(name, { phase: 'Running', conditions: notReady, containerStatuses: [{ name: 'app', image: 'x', ready: false, restartCount: 0, state: { running: {} } }] });
  const gone = pod('gone', crash('gone').status, { deletionTimestamp: '2026-11-28T12:00:00Z' });
  const shown = troubledPods([slow('a'), crash('b'), crash('c'), gone, slow('d'), crash('e')], ['d']);
  assert.deepEqual(shown.map((p) => p.name), ['d', 'b', 'c']);
});
