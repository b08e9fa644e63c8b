import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeRollout } from '../../../../src/kruise/rollout/describe-view';
import type { Pod } from '../../../../src/kruise/types';
import { loadFixture, loadKind } from './helpers';

const cloneSet = loadKind('cloneset-demo.yaml', 'CloneSet');
const pods = loadFixture('cloneset-demo-pods.yaml') as Pod[];
const br = loadKind('batchrelease-demo.yaml', 'BatchRelease');
const NOW = Date.parse('2026-11-25T01:00:30Z');

test('describe a canary waiting at step 1: steps with the current one marked, revisions with images, batch, pods grouped by revision and batch', () => {
  const v = describeRollout(loadKind('v1beta1-canary-manual-step.yaml', 'Rollout'), cloneSet, pods, br, NOW);
  assert.deepEqual(
    v.steps.map((s) => [s.index, s.canaryReplicas, s.pause, s.progress, s.state]),
    [
      [1, 1, 'manual', 'current', 'StepPaused'],
      [2, 2, 'timed', 'pending', undefined],
      [3, 5, 'none', 'pending', undefined], // final "100%": doCanaryPaused moves on at once
    ],
  );
  assert.deepEqual(v.canary, { revision: 'demo-7b5d6c9f4', images: ['web=nginx:1.25.3'], pods: 1, readyPods: 1 });
  assert.deepEqual(v.stable, { revision: 'demo-6c4f9b7d8', images: ['web=nginx:1.24.0'], pods: 4, readyPods: 3 });
  assert.deepEqual(v.batch, { currentBatch: 1, batchState: 'Ready', updatedReplicas: 1, updatedReadyReplicas: 1, batches: 3 });
  assert.deepEqual(
    v.podGroups.map((g) => [g.role, g.revision, g.batchId, g.rolloutId, g.pods.map((p) => `${p.name}:${p.ready ? 'ready' : 'not-ready'}`)]),
    [
      ['canary', 'demo-7b5d6c9f4', '1', 'demo-7b5d6c9f4', ['demo-4xq7k:ready']],
      ['stable', 'demo-6c4f9b7d8', undefined, undefined, ['demo-8jz2m:ready', 'demo-b9w5t:ready', 'demo-h2c6p:ready', 'demo-r7n3d:not-ready']],
    ],
  );
  assert.equal(v.podGroups[0]?.pods[0]?.ageSeconds, 170);
  assert.equal(v.verdict.state, 'StepPaused');
  assert.deepEqual(v.workload, { kind: 'CloneSet', name: 'demo', found: true, replicas: 5 });
});

test('stable pods carrying the batch labels of an earlier release are one stable group, not that release\'s batches', () => {
  // The previous release's BatchRelease labelled them (labelpatch/patcher.go) and nothing removes the labels.
  const earlier = pods.map((p, i) =>
    p.metadata.labels?.['rollouts.kruise.io/rollout-batch-id'] === undefined
      ? { ...p, metadata: { ...p.metadata, labels: { ...p.metadata.labels, 'rollouts.kruise.io/rollout-batch-id': String((i % 2) + 1), 'rollouts.kruise.io/rollout-id': 'demo-6c4f9b7d8' } } }
      : p,
  );
  const v = describeRollout(loadKind('v1beta1-canary-manual-step.yaml', 'Rollout'), cloneSet, earlier, br, NOW);
  assert.deepEqual(
    v.podGroups.map((g) => [g.role, g.batchId, g.rolloutId, g.pods.length]),
    [
      ['canary', '1', 'demo-7b5d6c9f4', 1],
      ['stable', undefined, undefined, 4],
    ],
  );
});

test('describe a timed pause: the current step carries its pause timer', () => {
  const v = describeRollout(loadKind('v1beta1-canary-timed-pause.yaml', 'Rollout'), cloneSet, pods, br, NOW);
  const cur = v.steps.find((s) => s.progress === 'current');
  assert.equal(cur?.index, 2);
  assert.equal(cur?.pauseLeftSeconds, 30);
  assert.equal(cur?.pauseEndsAt, Date.parse('2026-11-25T01:01:00Z'));
  assert.equal(v.steps[0]?.progress, 'done');
});

test('describe a completed release: every step done, conditions newest first', () => {
  const v = describeRollout(loadKind('v1beta1-completed.yaml', 'Rollout'), cloneSet, [], undefined, NOW);
  assert.deepEqual(v.steps.map((s) => s.progress), ['done', 'done', 'done']);
  assert.deepEqual(v.conditions.map((c) => c.type), ['Progressing', 'Succeeded']);
  assert.equal(v.verdict.state, 'Complete');
});

test('describe with the workload missing: not found, steps unresolved, Blocked', () => {
  const v = describeRollout(loadKind('v1beta1-workload-missing.yaml', 'Rollout'), null, [], undefined, NOW);
  assert.equal(v.workload.found, false);
  assert.equal(v.steps[0]?.canaryReplicas, undefined);
  assert.equal(v.verdict.state, 'Blocked');
});

test('describe a blue-green release on a Deployment: pods matched by pod-template-hash', () => {
  const deploy = loadKind('v1beta1-bluegreen.yaml', 'Deployment');
  const mk = (name: string, hash: string): Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'shop', labels: { app: 'checkout', 'pod-template-hash': hash } },
    spec: { containers: [{ name: 'app', image: hash === '5f8d7c6b9' ? 'registry.example.com/checkout:2.4.0' : 'registry.example.com/checkout:2.3.1' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  });
  const v = describeRollout(loadKind('v1beta1-bluegreen.yaml', 'Rollout'), deploy, [mk('checkout-5f8d7c6b9-a', '5f8d7c6b9'), mk('checkout-6d9c8b7f5-b', '6d9c8b7f5')], undefined, NOW);
  assert.equal(v.strategy, 'blueGreen');
  assert.deepEqual([v.canary.pods, v.stable.pods], [1, 1]);
  assert.deepEqual(v.stable.images, ['app=registry.example.com/checkout:2.3.1']);
  assert.equal(v.trafficWeight, '0%');
});

test('describe a cancelled release (canaryRevision back at stableRevision): pods at that revision are stable, the abandoned canary pods neither side', () => {
  const v = describeRollout(loadKind('v1beta1-cancelled.yaml', 'Rollout'), cloneSet, pods, br, NOW);
  assert.equal(v.verdict.state, 'Failed');
  assert.deepEqual([v.stable.pods, v.canary.pods], [4, 0]);
  assert.deepEqual(v.stable.images, ['web=nginx:1.24.0']);
  assert.deepEqual(
    v.podGroups.map((g) => [g.role, g.revision, g.pods.length]),
    [
      ['stable', 'demo-6c4f9b7d8', 4],
      ['other', 'demo-7b5d6c9f4', 1],
    ],
  );
});
