// ImagePullJob status and ordering rules, ported from Kruise v1.9.0's controller tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { calculatePullJobStatus, imageListPullJobCounts, pullParallelism, pullRunningMessage, validateImagePullJobSpec, type NodePullPhase } from '../../../../src/kruise/rules/imagepull';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const nodes = (...list: Array<[string, NodePullPhase]>) => list.map(([name, phase]) => ({ name, phase }));
const TABLE = 'pkg/controller/imagepulljob/imagepulljob_controller_test.go';

test(`TestReconcileImagePullJob_calculateStatus row "all nodes succeeded" (${TABLE})`, () => {
  const { status } = calculatePullJobStatus({ nodes: nodes(['node1', 'succeeded'], ['node2', 'succeeded']), nowMs: NOW, completionType: 'Always' });
  assert.deepEqual(status, { startTime: '2026-11-24T12:00:00Z', completionTime: '2026-11-24T12:00:00Z', desired: 2, active: 0, succeeded: 2, failed: 0, message: 'job has completed' });
});

test(`TestReconcileImagePullJob_calculateStatus row "nodes in different states" (${TABLE})`, () => {
  const { status } = calculatePullJobStatus({ nodes: nodes(['node1', 'succeeded'], ['node2', 'pulling'], ['node3', 'failed']), nowMs: NOW, completionType: 'Always' });
  assert.deepEqual(
    { desired: status.desired, succeeded: status.succeeded, active: status.active, failed: status.failed, failedNodes: status.failedNodes, message: status.message },
    { desired: 3, succeeded: 1, active: 1, failed: 1, failedNodes: ['node3'], message: 'job is running, progress 66.7%' },
  );
  assert.equal(status.completionTime, undefined);
});

test(`TestReconcileImagePullJob_calculateStatus rows "node with image just patched" / "nodes not synced ..." (${TABLE}): not yet asked → progress 0.0%, listed to sync`, () => {
  const { status, notSynced } = calculatePullJobStatus({ nodes: nodes(['node1', 'notSynced']), nowMs: NOW, completionType: 'Always' });
  assert.equal(status.message, 'job is running, progress 0.0%');
  assert.equal(status.active, 0);
  assert.deepEqual(notSynced, ['node1']);
});

test(`TestReconcileImagePullJob_calculateStatus_CompletionPolicy row "job completed with completion policy" (${TABLE})`, () => {
  const { status } = calculatePullJobStatus({ nodes: nodes(['node1', 'succeeded']), nowMs: NOW, completionType: 'Always', activeDeadlineSeconds: 300 });
  assert.equal(status.message, 'job has completed');
  assert.ok(status.completionTime);
});

test(`TestReconcileImagePullJob_calculateStatus_CompletionPolicy row "job timeout with active deadline seconds" (${TABLE}): a node still pulling counts as failed`, () => {
  const { status, notSynced } = calculatePullJobStatus({
    nodes: nodes(['node1', 'pulling']),
    startTime: '2026-11-24T11:50:00Z', // 10 minutes ago
    nowMs: NOW,
    completionType: 'Always',
    activeDeadlineSeconds: 300,
  });
  assert.deepEqual(status, {
    startTime: '2026-11-24T11:50:00Z',
    completionTime: '2026-11-24T12:00:00Z',
    desired: 1,
    active: 0,
    succeeded: 0,
    failed: 1,
    failedNodes: ['node1'],
    message: 'job exceeds activeDeadlineSeconds',
  });
  assert.deepEqual(notSynced, []);
});

test(`imagepulljob_controller.go calculateStatus: at the deadline failed = failed, then pulling, then never-asked nodes (sorted); Never has no deadline; done before the deadline is not failed`, () => {
  const input = { nodes: nodes(['b', 'failed'], ['c', 'succeeded'], ['a', 'pulling'], ['z', 'notSynced'], ['d', 'notSynced']), startTime: '2026-11-24T11:50:00Z', nowMs: NOW, activeDeadlineSeconds: 600 };
  const late = calculatePullJobStatus({ ...input, completionType: 'Always' }).status;
  assert.deepEqual([late.succeeded, late.failed, late.failedNodes], [1, 4, ['b', 'a', 'd', 'z']]);
  assert.equal(calculatePullJobStatus({ ...input, completionType: 'Never' }).status.message, 'job is running, progress 40.0%');
  const done = calculatePullJobStatus({ ...input, nodes: nodes(['a', 'succeeded']), completionType: 'Always' }).status;
  assert.equal(done.message, 'job has completed');
  // One second before the deadline: still running.
  assert.equal(calculatePullJobStatus({ ...input, startTime: '2026-11-24T11:50:01Z', completionType: 'Always' }).status.message, 'job is running, progress 40.0%');
});

test('imagepulljob_controller.go calculateStatus + syncNodeImages: nodes are asked to pull in sets.String order (byte order of names)', () => {
  const { notSynced } = calculatePullJobStatus({ nodes: nodes(['node-2', 'notSynced'], ['node-10', 'notSynced'], ['node-1', 'notSynced'], ['node-11', 'pulling']), nowMs: NOW, completionType: 'Always' });
  assert.deepEqual(notSynced, ['node-1', 'node-10', 'node-2']);
});

test('imagepulljob_utils.go formatStatusMessage: no target node while running → "job is running, no progress"', () => {
  assert.equal(pullRunningMessage({ desired: 0, succeeded: 0, failed: 0 }), 'job is running, no progress');
  assert.equal(calculatePullJobStatus({ nodes: [], nowMs: NOW, completionType: 'Never' }).status.message, 'job is running, no progress');
  assert.equal(calculatePullJobStatus({ nodes: [], nowMs: NOW, completionType: 'Always' }).status.message, 'job has completed');
});

test('imagepulljob_create_update_handler.go validate + imagepulljob_controller.go syncNodeImages: parallelism 0 is valid and pulls nothing; negatives and percentages are refused; unset means 1', () => {
  assert.deepEqual(validateImagePullJobSpec({ image: 'nginx:1.27', parallelism: 0 }), []);
  assert.deepEqual(validateImagePullJobSpec({ image: 'nginx:1.27', parallelism: '3' }), []);
  assert.match(validateImagePullJobSpec({ image: 'nginx:1.27', parallelism: -1 })[0]?.message ?? '', /parallelism must be non-negative/);
  assert.match(validateImagePullJobSpec({ image: 'nginx:1.27', parallelism: '50%' })[0]?.message ?? '', /parallelism does not support percentage value/);
  assert.equal(pullParallelism(0), 0);
  assert.equal(pullParallelism(undefined), 1);
  assert.equal(pullParallelism('4'), 4);
});

test('TestReconcile row "test-imagelistpulljob-controller" (pkg/controller/imagelistpulljob/imagelistpulljob_controller_test.go): active 1, succeeded 1, completed 2, one failed image', () => {
  const now = '2026-11-24T12:00:00Z';
  const counts = imageListPullJobCounts([
    { name: 'j01', image: 'nginx:1.25', status: { active: 0, startTime: now, completionTime: now, succeeded: 1, failed: 0, desired: 1 } },
    { name: 'j02', image: 'redis:7.2', status: { desired: 1, active: 1, startTime: now } },
    { name: 'j03', image: 'busybox:1.36', status: { desired: 1, active: 0, startTime: now, completionTime: now, failed: 1, succeeded: 0, failedNodes: ['1.1.1.1'] } },
    // Not started yet: not counted at all.
    { name: 'j04', image: 'alpine:3.20', status: {} },
  ]);
  assert.deepEqual([counts.active, counts.succeeded, counts.completed], [1, 1, 2]);
  assert.deepEqual(counts.failedImageStatuses, [{ imagePullJob: 'j03', name: 'busybox:1.36', message: "Please check for details which nodes failed by 'kubectl get ImagePullJob j03'." }]);
});
