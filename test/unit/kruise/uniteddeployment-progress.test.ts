// rollout status for a UnitedDeployment: the whole is done only when every subset is, given its
// own partition (the sums can hide one subset ahead of its partition and another behind).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateRollout } from '../../../src/kruise/progress';
import type { KubeObject, Pod } from '../../../src/kruise/types';

const UD: KubeObject = {
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'UnitedDeployment',
  metadata: { name: 'web', namespace: 'default', generation: 2 },
  spec: {
    replicas: 4,
    selector: { matchLabels: { app: 'web' } },
    template: { cloneSetTemplate: { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } } } },
    topology: { subsets: [{ name: 'a', replicas: 2 }, { name: 'b' }] },
    updateStrategy: { type: 'Manual', manualUpdate: { partitions: { a: 1, b: 1 } } },
  },
  status: {
    observedGeneration: 2,
    replicas: 4,
    readyReplicas: 4,
    updatedReplicas: 2,
    updatedReadyReplicas: 2,
    currentRevision: 'web-old',
    subsetReplicas: { a: 2, b: 2 },
    updateStatus: { updatedRevision: 'web-new', currentPartitions: { a: 1, b: 1 } },
  },
};

function pod(name: string, subset: string, revision: string): Pod {
  return {
    metadata: { name, namespace: 'default', labels: { app: 'web', 'apps.kruise.io/subset-name': subset, 'apps.kruise.io/controller-revision-hash': revision, 'controller-revision-hash': `${name}-cs` } },
    spec: { containers: [{ name: 'nginx', image: revision === 'web-new' ? 'nginx:1.27' : 'nginx:1.25' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  } as Pod;
}

test('UD rollout: 2 of 4 updated with partitions 1+1 is done only when each subset has its 1 updated pod', () => {
  const balanced = [pod('a0', 'a', 'web-old'), pod('a1', 'a', 'web-new'), pod('b0', 'b', 'web-old'), pod('b1', 'b', 'web-new')];
  const done = evaluateRollout(UD, balanced, Date.now(), { podsListed: true });
  assert.equal(done.state, 'PartitionComplete');
  assert.deepEqual(done.subsets?.map((s) => [s.name, s.expectedUpdatedReplicas, s.updatedReadyReplicas, s.done]), [['a', 1, 1, true], ['b', 1, 1, true]]);

  // same sums, but subset a is past its partition and b behind it
  const skewed = [pod('a0', 'a', 'web-new'), pod('a1', 'a', 'web-new'), pod('b0', 'b', 'web-old'), pod('b1', 'b', 'web-old')];
  const behind = evaluateRollout(UD, skewed, Date.now(), { podsListed: true });
  assert.equal(behind.state, 'Progressing');
  assert.match(behind.message, /subset "b" has 0 of 1 updated pods ready/);
});

test('UD rollout: without the pods listed, a status that looks done still waits for them', () => {
  const p = evaluateRollout(UD, [], Date.now(), { podsListed: false });
  assert.equal(p.state, 'Progressing');
  assert.match(p.message, /the subsets' pods are not listed yet/);
});

test('the watch cache keeps the UD revision and subset labels of a pod (trimPod): without them no subset is ever done', async () => {
  const { trimPod } = await import('../../../src/kruise/rollout-pods');
  const trimmed = trimPod(pod('a1', 'a', 'web-new'));
  assert.equal(trimmed.metadata.labels?.['apps.kruise.io/controller-revision-hash'], 'web-new');
  assert.equal(trimmed.metadata.labels?.['apps.kruise.io/subset-name'], 'a');
  const p = evaluateRollout(UD, [trimPod(pod('a0', 'a', 'web-old')), trimPod(pod('a1', 'a', 'web-new')), trimPod(pod('b0', 'b', 'web-old')), trimPod(pod('b1', 'b', 'web-new'))], Date.now(), { podsListed: true });
  assert.equal(p.state, 'PartitionComplete');
});

// `rollout undo` back to the revision the UD never left (its currentRevision): Kruise writes the subsets'
// manual partitions as they are (uniteddeployment_controller.go calcNextPartitions), and a CloneSet subset's
// partition counts the pods not at its update revision (cloneset_update.go calculateDiffsWithExpectation): zone
// a keeps its one pod of the revision undone; the gate sees only the updated pods (the watch keeps no others).
const AFTER_UNDO: KubeObject = {
  ...UD,
  spec: {
    ...(UD.spec as object),
    template: { cloneSetTemplate: { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } } } } },
    updateStrategy: { type: 'Manual', manualUpdate: { partitions: { a: 1 } } },
  },
  status: {
    observedGeneration: 2,
    replicas: 4,
    readyReplicas: 4,
    updatedReplicas: 3,
    updatedReadyReplicas: 3,
    currentRevision: 'web-old',
    subsetReplicas: { a: 2, b: 2 },
    updateStatus: { updatedRevision: 'web-old', currentPartitions: { a: 1, b: 0 } },
  },
};

test('UD of CloneSets after undo with a subset partition: 3 of 4 updated is done (zone a keeps 1 of the revision undone), as its subsets say', () => {
  const updatedOnly = [pod('a0', 'a', 'web-old'), pod('b0', 'b', 'web-old'), pod('b1', 'b', 'web-old')];
  const p = evaluateRollout(AFTER_UNDO, updatedOnly, Date.now(), { podsListed: true });
  assert.equal(p.state, 'PartitionComplete', p.message);
  assert.equal(p.expectedUpdatedReplicas, 3);
  assert.deepEqual(p.subsets?.map((s) => [s.name, s.expectedUpdatedReplicas, s.done]), [['a', 1, true], ['b', 2, true]]);
  // One pod of subset b still on the undone revision: not done, and the subset says why.
  const behind = evaluateRollout({ ...AFTER_UNDO, status: { ...(AFTER_UNDO.status as object), updatedReplicas: 2, updatedReadyReplicas: 2 } }, [pod('a0', 'a', 'web-old'), pod('b0', 'b', 'web-old')], Date.now(), { podsListed: true });
  assert.equal(behind.state, 'Progressing');
});

test('a new UD of CloneSets (current revision = updated): a subset with a partition has all its pods updated ("2 of 2", not "2 of 1")', () => {
  const created: KubeObject = { ...AFTER_UNDO, status: { ...(AFTER_UNDO.status as object), updatedReplicas: 4, updatedReadyReplicas: 4 } };
  const p = evaluateRollout(created, [pod('a0', 'a', 'web-old'), pod('a1', 'a', 'web-old'), pod('b0', 'b', 'web-old'), pod('b1', 'b', 'web-old')], Date.now(), { podsListed: true });
  assert.equal(p.state, 'Complete');
  assert.deepEqual(p.subsets?.map((s) => [s.name, s.expectedUpdatedReplicas, s.updatedReadyReplicas]), [['a', 2, 2], ['b', 2, 2]]);
});
