// The rollout-status CI gate (issue #13/#14): availability (minReadySeconds), decisions never
// taken on stale or contradictory numbers, pods checked against the template, the failure grace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject, Pod } from '../../../src/kruise/types';
import { evaluateRollout } from '../../../src/kruise/progress';
import { REPO_ROOT } from '../../helpers/cli';
import { humanLine, statusJsonLine, statusKey } from '../../../src/printers/rollout-status';

type Obj = KubeObject & { spec: Record<string, any>; status: Record<string, any> };

function load<T = Obj>(file: string): T {
  const text = readFileSync(join(REPO_ROOT, 'test/fixtures/rollout', file), 'utf8');
  return parseAllDocuments(text)[0]!.toJS() as T;
}

const NOW = Date.parse('2026-11-22T09:00:30Z');

/** CloneSet web (v1alpha1) with this many replicas, a pod-count partition and a whole status. */
function cloneSet(replicas: number, partition: number, status: Record<string, unknown>): Obj {
  const o = load('cloneset-v1alpha1-partition.yaml');
  o.spec.replicas = replicas;
  o.spec.updateStrategy.partition = partition;
  o.status = { observedGeneration: o.metadata.generation, labelSelector: 'app=web', ...status };
  return o;
}

// ── Kruise's own tables (pkg/controller/cloneset/utils/cloneset_utils_test.go) ──
// Kruise's rows set only the fields its predicate reads; the rest is filled in consistently.
const availableBase = { currentRevision: 'web-1', updateRevision: 'web-1', replicas: 3, updatedReplicas: 3, updatedReadyReplicas: 3, updatedAvailableReplicas: 3, readyReplicas: 3, availableReplicas: 3, expectedUpdatedReplicas: 3 };
for (const [name, change, done] of [
  ['All conditions met', {}, true],
  ['CurrentRevision != UpdateRevision', { currentRevision: 'web-2' }, false],
  ['Replicas != Spec.Replicas', { replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2, updatedReadyReplicas: 2, updatedAvailableReplicas: 2 }, false],
  ['UpdatedAvailableReplicas != Spec.Replicas', { updatedAvailableReplicas: 2 }, false],
] as const) {
  test(`TestCloneSetAvailable row "${name}" (pkg/controller/cloneset/utils/cloneset_utils_test.go)`, () => {
    const p = evaluateRollout(cloneSet(3, 0, { ...availableBase, ...change }), [], NOW);
    assert.equal(p.state === 'Complete', done, p.message);
  });
}

const partitionBase = { currentRevision: 'web-1', updateRevision: 'web-2', replicas: 5, readyReplicas: 5, availableReplicas: 5 };
for (const [name, partition, expected, updatedAvailable, done] of [
  ['expected <= available, not partition, false', 0, 5, 5, false],
  ['expected <= available, partition, true', 2, 3, 3, true],
  ['expected > available, partition, false', 2, 3, 2, false],
] as const) {
  test(`TestCloneSetPartitionAvailable row "${name}" (pkg/controller/cloneset/utils/cloneset_utils_test.go)`, () => {
    const status = { ...partitionBase, expectedUpdatedReplicas: expected, updatedReplicas: expected, updatedReadyReplicas: expected, updatedAvailableReplicas: updatedAvailable };
    const p = evaluateRollout(cloneSet(5, partition, status), [], NOW);
    assert.equal(p.state === 'PartitionComplete', done, p.message);
  });
}

test('partition batch: updated and ready but not yet available (minReadySeconds) is not done (CloneSetPartitionAvailable, pkg/controller/cloneset/utils/cloneset_utils.go)', () => {
  const o = cloneSet(8, 7, { currentRevision: 'web-1', updateRevision: 'web-2', replicas: 8, readyReplicas: 8, availableReplicas: 7, updatedReplicas: 1, updatedReadyReplicas: 1, updatedAvailableReplicas: 0, expectedUpdatedReplicas: 1 });
  o.spec.minReadySeconds = 30;
  const p = evaluateRollout(o, [], NOW);
  assert.equal(p.state, 'Progressing');
  assert.equal(p.message, 'Waiting for cloneset "web" rollout to finish: 0 of 1 updated pods are available (expected 1 of 8, partition keeps 7)...');
});

test('Kruise without updatedAvailableReplicas (v1.3): availability from availableReplicas, else from the pods and minReadySeconds (cloneset_status.go calculateStatus)', () => {
  const status = { currentRevision: 'web-1', updateRevision: 'web-2', replicas: 8, readyReplicas: 8, availableReplicas: 7, updatedReplicas: 1, updatedReadyReplicas: 1, expectedUpdatedReplicas: 1 };
  const o = cloneSet(8, 7, status);
  o.spec.minReadySeconds = 30;
  // available 7 − 7 old pods: the updated pod may not be available yet.
  assert.equal(evaluateRollout(o, [], NOW).state, 'Progressing');
  // minReadySeconds 0: available is ready.
  assert.equal(evaluateRollout(cloneSet(8, 7, status), [], NOW).state, 'PartitionComplete');
  // Once availableReplicas counts it: done.
  const o8 = cloneSet(8, 7, { ...status, availableReplicas: 8 });
  o8.spec.minReadySeconds = 30;
  assert.equal(evaluateRollout(o8, [], NOW).state, 'PartitionComplete');
  // From the pods: ready since 09:00:05, 30 s → available at 09:00:35 (+1 s for the whole-second stamp).
  const pod = load<Pod>('pod-web-fail-pull.yaml');
  pod.metadata.labels = { 'controller-revision-hash': 'web-2' };
  pod.spec.containers = [{ name: 'app', image: 'nginx:1.26' }];
  pod.status = { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-11-22T09:00:05Z' }], containerStatuses: [{ name: 'app', image: 'nginx:1.26', ready: true, restartCount: 0 }] };
  o.spec.template.spec.containers = [{ name: 'app', image: 'nginx:1.26' }];
  const early = evaluateRollout(o, [pod], NOW, { podsListed: true });
  assert.equal(early.state, 'Progressing');
  assert.equal(early.recheckAt, Date.parse('2026-11-22T09:00:35Z') + 999);
  assert.equal(evaluateRollout(o, [pod], Date.parse('2026-11-22T09:00:36Z'), { podsListed: true }).state, 'PartitionComplete');
});

test('ASTS uses updatedAvailableReplicas (pkg/controller/statefulset/stateful_set_control.go updateStatus)', () => {
  const o = load('asts-v1beta1.yaml');
  o.status.updatedAvailableReplicas = 1;
  o.spec.minReadySeconds = 10;
  assert.equal(evaluateRollout(o, [], NOW).state, 'Progressing');
});

// ── Contradictory or stale decisions ──
test('after `rollout undo` to the current revision a spec partition keeps nothing: wait for every pod, no "4 of 4 updated (2 kept)" line', () => {
  // ASTS 4 replicas, partition 2, rolled back: updateRevision == currentRevision, 4 pods at it, 2 not ready yet.
  const o = load('asts-v1beta1.yaml');
  o.spec.replicas = 4;
  o.spec.updateStrategy.rollingUpdate.partition = 2;
  o.status = { observedGeneration: o.metadata.generation, replicas: 4, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 4, updatedReadyReplicas: 2, updatedAvailableReplicas: 2, currentRevision: 'db-1', updateRevision: 'db-1' };
  const p = evaluateRollout(o, [], NOW);
  assert.equal(p.state, 'Progressing');
  assert.equal(p.partition, 0);
  assert.equal(p.message, 'Waiting for advanced statefulset "db" rollout to finish: 2 of 4 updated pods are ready...');
});

test('CloneSet with more pods updated than the partition allows: Kruise rolls them back (cloneset_update.go updateNum < 0), no PartitionComplete', () => {
  const o = cloneSet(4, 2, { currentRevision: 'web-1', updateRevision: 'web-2', replicas: 4, readyReplicas: 4, availableReplicas: 4, updatedReplicas: 4, updatedReadyReplicas: 3, updatedAvailableReplicas: 3, expectedUpdatedReplicas: 2 });
  const p = evaluateRollout(o, [], NOW);
  assert.equal(p.state, 'Progressing');
  assert.match(p.message, /2 updated pods beyond the partition to be rolled back/);
});

test('a new CloneSet (currentRevision == updateRevision, pods not created yet) does not claim the partition keeps pods', () => {
  const o = cloneSet(8, 7, { currentRevision: 'web-1', updateRevision: 'web-1', replicas: 0, readyReplicas: 0, availableReplicas: 0, updatedReplicas: 0, updatedReadyReplicas: 0, expectedUpdatedReplicas: 1 });
  const p = evaluateRollout(o, [], NOW);
  assert.equal(p.partition, 0);
  assert.doesNotMatch(p.message, /partition keeps/);
});

test('counts that contradict each other decide nothing', () => {
  const o = cloneSet(4, 0, { currentRevision: 'web-1', updateRevision: 'web-1', replicas: 4, readyReplicas: 4, availableReplicas: 4, updatedReplicas: 3, updatedReadyReplicas: 4, updatedAvailableReplicas: 4, expectedUpdatedReplicas: 4 });
  const p = evaluateRollout(o, [], NOW);
  assert.equal(p.state, 'Progressing');
  assert.match(p.message, /status counts disagree \(4 updated ready but 3 updated\)/);
});

/** A ready pod whose sidecar was updated in place by Kruise from an image whose ID was `sha-old` (its in-place-update state records it). */
function readyPod(name: string, revision: string, images: { spec: string; status: string; imageID?: string; inPlace?: boolean }): Pod {
  const state = { revision, lastContainerStatuses: { sidecar: { imageID: 'sha-old' } } };
  return {
    metadata: { name, uid: name, labels: { 'controller-revision-hash': revision }, annotations: images.inPlace === false ? {} : { 'apps.kruise.io/inplace-update-state': JSON.stringify(state) } },
    spec: { containers: [{ name: 'app', image: 'nginx:1.26' }, { name: 'sidecar', image: images.spec }] },
    status: {
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-11-22T09:00:00Z' }],
      containerStatuses: [
        { name: 'app', image: 'docker.io/library/nginx:1.26', imageID: 'sha-nginx', ready: true, restartCount: 0 },
        { name: 'sidecar', image: images.status, imageID: images.imageID ?? 'sha-new', ready: true, restartCount: 0 },
      ],
    },
  } as Pod;
}

test('a pod labelled with the update revision but running an old sidecar image is not updated (CheckInPlaceUpdateCompleted, pkg/util/inplaceupdate/inplace_update_defaults.go): no success while the pods say otherwise', () => {
  const o = cloneSet(2, 0, { currentRevision: 'web-2', updateRevision: 'web-2', replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2, updatedReadyReplicas: 2, updatedAvailableReplicas: 2, expectedUpdatedReplicas: 2 });
  o.spec.template.spec.containers = [{ name: 'app', image: 'nginx:1.26' }, { name: 'sidecar', image: 'envoy:1.31' }];
  const good = readyPod('web-a', 'web-2', { spec: 'envoy:1.31', status: 'docker.io/library/envoy:1.31' });
  const stale = readyPod('web-b', 'web-2', { spec: 'envoy:1.31', status: 'envoy:1.30', imageID: 'sha-old' });
  // Without pods (a finished rollout at start): the status decides.
  assert.equal(evaluateRollout(o, [], NOW).state, 'Complete');
  const p = evaluateRollout(o, [good, stale], NOW, { podsListed: true });
  assert.equal(p.state, 'Progressing');
  assert.match(p.message, /pod "web-b" has the update revision's label but container "sidecar" runs "envoy:1.30", not "envoy:1.31"/);
  const fixed = readyPod('web-b', 'web-2', { spec: 'envoy:1.31', status: 'envoy:1.31' });
  assert.equal(evaluateRollout(o, [good, fixed], NOW, { podsListed: true }).state, 'Complete');
  // Kruise's CheckInPlaceUpdateCompleted: a changed imageID completes the update whatever name the
  // runtime reports (containerd may name an image by another of its tags), and without Kruise's
  // in-place state the reported name alone proves nothing.
  const otherTag = readyPod('web-b', 'web-2', { spec: 'envoy:1.31', status: 'envoy:1.31.2', imageID: 'sha-new' });
  assert.equal(evaluateRollout(o, [good, otherTag], NOW, { podsListed: true }).state, 'Complete');
  const fresh = readyPod('web-b', 'web-2', { spec: 'envoy:1.31', status: 'envoy:1.31.2', imageID: 'sha-old', inPlace: false });
  assert.equal(evaluateRollout(o, [good, fresh], NOW, { podsListed: true }).state, 'Complete');
  // A pod list that lags behind the workload (one updated pod not seen yet): wait for it.
  assert.equal(evaluateRollout(o, [good], NOW, { podsListed: true }).state, 'Progressing');
});

test('a trimmed pod keeps container statuses only where a verdict reads them (a waiting state, an in-place update record): same verdicts as the whole pods', async () => {
  const { trimPod } = await import('../../../src/kruise/rollout-pods');
  const o = cloneSet(2, 0, { currentRevision: 'web-2', updateRevision: 'web-2', replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2, updatedReadyReplicas: 2, updatedAvailableReplicas: 2, expectedUpdatedReplicas: 2 });
  o.spec.template.spec.containers = [{ name: 'app', image: 'nginx:1.26' }, { name: 'sidecar', image: 'envoy:1.31' }];
  const good = readyPod('web-a', 'web-2', { spec: 'envoy:1.31', status: 'docker.io/library/envoy:1.31' });
  const stale = readyPod('web-b', 'web-2', { spec: 'envoy:1.31', status: 'envoy:1.30', imageID: 'sha-old' });
  const fresh = readyPod('web-b', 'web-2', { spec: 'envoy:1.31', status: 'envoy:1.31.2', imageID: 'sha-old', inPlace: false });
  assert.equal(trimPod(stale).status?.containerStatuses?.length, 2, 'updated in place: images and image IDs kept');
  assert.equal(trimPod(fresh).status?.containerStatuses, undefined, 'running, never updated in place: nothing read');
  for (const pods of [[good, stale], [good, fresh]]) {
    assert.deepEqual(evaluateRollout(o, pods.map(trimPod), NOW, { podsListed: true }), evaluateRollout(o, pods, NOW, { podsListed: true }));
  }
});

// ── The failure grace ──
test('--failure-grace never fires before the grace passed: whole-second stamps count from the end of their second', () => {
  const cs = load('cloneset-v1alpha1-partition.yaml');
  const pod = load<Pod>('pod-web-fail-pull.yaml'); // not ready since 09:00:01 (could be 09:00:01.97)
  const at = (iso: string) => evaluateRollout(cs, [pod], Date.parse(iso), { failureGraceMs: 5_000 }).state;
  assert.equal(at('2026-11-22T09:00:06.500Z'), 'Progressing');
  assert.equal(at('2026-11-22T09:00:07.000Z'), 'Failed');
});

test('while the grace runs down: which pod fails, why and when we give up (human line and JSON Lines), one line per pod state', () => {
  const cs = load('cloneset-v1alpha1-partition.yaml');
  const pod = load<Pod>('pod-web-fail-pull.yaml');
  const p = evaluateRollout(cs, [pod], NOW, { failureGraceMs: 60_000 });
  assert.equal(p.state, 'Progressing');
  assert.deepEqual(p.failing, { name: 'web-x7k2p', reason: 'ImagePullBackOff', container: 'app', failAt: Date.parse('2026-11-22T09:01:02Z') });
  assert.match(humanLine(p, NOW), /; pod web-x7k2p ImagePullBackOff, failing the rollout in 32s\.\.\.$/);
  const json = JSON.parse(statusJsonLine(p, NOW));
  assert.deepEqual(json.failingPod, { name: 'web-x7k2p', reason: 'ImagePullBackOff', container: 'app', failingInSeconds: 32 });
  const later = evaluateRollout(cs, [pod], NOW + 10_000, { failureGraceMs: 60_000 });
  assert.equal(statusKey(later), statusKey(p), 'the countdown alone is not a new line');
  const flipped = { ...later, failing: { ...later.failing!, reason: 'ErrImagePull' } };
  assert.equal(statusKey(flipped), statusKey(p), 'ErrImagePull/ImagePullBackOff alternating is one state');
});

test('CloneSet after `rollout undo` to its current revision: the partition keeps the pods of the undone revision (cloneset_update.go calculateDiffsWithExpectation counts every pod not at the update revision)', () => {
  const o = cloneSet(4, 2, { currentRevision: 'web-1', updateRevision: 'web-1', replicas: 4, readyReplicas: 4, availableReplicas: 4, updatedReplicas: 2, updatedReadyReplicas: 2, updatedAvailableReplicas: 2, expectedUpdatedReplicas: 2 });
  const p = evaluateRollout(o, [], NOW);
  assert.equal(p.state, 'PartitionComplete');
  assert.equal(p.message, 'cloneset "web" partition rollout complete: 2 of 4 pods updated (2 kept at the old revision by the partition)');
  // The same CloneSet with 3 pods at the update revision keeps only 1.
  const three = evaluateRollout(cloneSet(4, 2, { currentRevision: 'web-1', updateRevision: 'web-1', replicas: 4, readyReplicas: 4, availableReplicas: 4, updatedReplicas: 3, updatedReadyReplicas: 3, updatedAvailableReplicas: 3, expectedUpdatedReplicas: 2 }), [], NOW);
  assert.equal(three.partition, 1);
  assert.equal(three.state, 'PartitionComplete');
});

test('a trimmed pod (what a 5,000-pod watch keeps) gives the same verdict as the whole pod', async () => {
  const { trimPod } = await import('../../../src/kruise/rollout-pods');
  const cs = load('cloneset-v1alpha1-partition.yaml');
  const pod = load<Pod>('pod-web-fail-pull.yaml');
  const trimmed = trimPod(pod);
  assert.equal(JSON.stringify(trimmed).includes('ownerReferences'), false, 'owner references dropped');
  assert.equal(JSON.stringify(trimmed).includes('node-2'), false, 'node name dropped');
  for (const [now, grace] of [[NOW, 60_000], [NOW, 2_000]] as const) {
    const a = evaluateRollout(cs, [pod], now, { failureGraceMs: grace, podsListed: true });
    const b = evaluateRollout(cs, [trimmed], now, { failureGraceMs: grace, podsListed: true });
    assert.deepEqual(b, a);
  }
});

test('updatedPodTest: the pods a watcher keeps, and a key that changes with the rolled-out revision', async () => {
  const { updatedPodTest } = await import('../../../src/kruise/progress');
  const { adapterFor } = await import('../../../src/kruise/workloads/index');
  const cs = load('cloneset-v1alpha1-partition.yaml');
  const test1 = updatedPodTest(adapterFor(cs)!, cs);
  const pod = load<Pod>('pod-web-fail-pull.yaml');
  assert.equal(test1(pod), true);
  pod.metadata.labels = { 'controller-revision-hash': 'web-5c9d6f7b8' };
  assert.equal(test1(pod), false);
  const undone = load('cloneset-v1alpha1-partition.yaml');
  undone.status.updateRevision = 'web-5c9d6f7b8';
  assert.notEqual(updatedPodTest(adapterFor(undone)!, undone).key, test1.key);
});
