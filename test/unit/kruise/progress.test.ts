import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject, Pod } from '../../../src/kruise/types';
import { evaluateRollout, stuckKey } from '../../../src/kruise/progress';
import { REPO_ROOT } from '../../helpers/cli';

function load<T = KubeObject>(file: string): T {
  const text = readFileSync(join(REPO_ROOT, 'test/fixtures/rollout', file), 'utf8');
  return parseAllDocuments(text)[0]!.toJS() as T;
}

type Obj = KubeObject & { spec: Record<string, any>; status: Record<string, any> };

/** The fixture with some status (and spec) fields changed. */
function variant(file: string, status: Record<string, unknown>, edit?: (o: Obj) => void): Obj {
  const o = load<Obj>(file);
  Object.assign(o.status, status);
  for (const [k, v] of Object.entries(status)) if (v === undefined) delete o.status[k];
  edit?.(o);
  return o;
}

const NOW = Date.parse('2026-11-22T09:00:30Z');

test('CloneSet 8 replicas, partition 90%: waits for the one updated pod to be ready, then PartitionComplete', () => {
  const waiting = evaluateRollout(load('cloneset-v1alpha1-partition.yaml'), [], NOW);
  assert.equal(waiting.state, 'Progressing');
  assert.equal(waiting.message, 'Waiting for cloneset "web" rollout to finish: 0 of 1 updated pods are ready (expected 1 of 8, partition keeps 7)...');
  assert.equal(waiting.expectedUpdatedReplicas, 1);
  assert.equal(waiting.partition, 7);

  const done = evaluateRollout(variant('cloneset-v1alpha1-partition.yaml', { updatedReadyReplicas: 1, updatedAvailableReplicas: 1, readyReplicas: 8, availableReplicas: 8 }), [], NOW);
  assert.equal(done.state, 'PartitionComplete');
  assert.equal(done.message, 'cloneset "web" partition rollout complete: 1 of 8 pods updated (7 kept at the old revision by the partition)');
  assert.equal(done.expectedUpdatedReplicas, 1);
  assert.equal(done.updatedReadyReplicas, 1);
  assert.equal(done.replicas, 8);
  assert.equal(done.updateRevision, 'web-7d4f8b9c5');
  assert.equal(done.currentRevision, 'web-5c9d6f7b8');
  assert.equal(done.expectedFromStatus, true);
});

test('observedGeneration behind generation: nothing else counts yet', () => {
  const o = variant('cloneset-v1alpha1-partition.yaml', { observedGeneration: 1, updatedReadyReplicas: 1 });
  const p = evaluateRollout(o, [], NOW);
  assert.equal(p.state, 'Progressing');
  assert.equal(p.message, 'Waiting for cloneset "web" spec update to be observed...');
});

test('partition 0: all 8 updated and ready, surge pods gone and all available before Complete', () => {
  const noPartition = (o: Obj): void => {
    o.spec.updateStrategy.partition = 0;
  };
  // Every pod updated: Kruise moves currentRevision to the update revision in the same pass (CloneSetAvailable wants both).
  const base = { currentRevision: 'web-7d4f8b9c5', expectedUpdatedReplicas: 8, updatedReplicas: 8, updatedReadyReplicas: 8, updatedAvailableReplicas: 8, readyReplicas: 8, availableReplicas: 8, replicas: 8 };
  const updating = evaluateRollout(variant('cloneset-v1alpha1-partition.yaml', { ...base, updatedReplicas: 5, updatedReadyReplicas: 4, updatedAvailableReplicas: 4 }, noPartition), [], NOW);
  assert.equal(updating.state, 'Progressing');
  assert.equal(updating.message, 'Waiting for cloneset "web" rollout to finish: 5 of 8 pods updated...');
  const surge = evaluateRollout(variant('cloneset-v1alpha1-partition.yaml', { ...base, replicas: 9 }, noPartition), [], NOW);
  assert.equal(surge.state, 'Progressing');
  assert.match(surge.message, /1 old pod is pending termination/);
  const unavailable = evaluateRollout(variant('cloneset-v1alpha1-partition.yaml', { ...base, availableReplicas: 7 }, noPartition), [], NOW);
  assert.equal(unavailable.state, 'Progressing');
  assert.match(unavailable.message, /7 of 8 pods are available/);
  const done = evaluateRollout(variant('cloneset-v1alpha1-partition.yaml', base, noPartition), [], NOW);
  assert.equal(done.state, 'Complete');
  assert.equal(done.message, 'cloneset "web" successfully rolled out');
  assert.equal(done.partition, 0);
});

test('a partition with nothing left to update (template unchanged) is Complete, not PartitionComplete', () => {
  const o = variant('cloneset-v1alpha1-partition.yaml', { currentRevision: 'web-7d4f8b9c5', updatedReplicas: 8, updatedReadyReplicas: 8, updatedAvailableReplicas: 8, readyReplicas: 8, availableReplicas: 8 });
  assert.equal(evaluateRollout(o, [], NOW).state, 'Complete');
});

test('Kruise < v1.2 (no status.expectedUpdatedReplicas): computed client-side from the spec', () => {
  const legacy = evaluateRollout(load('cloneset-kruise-v1.1.yaml'), [], NOW);
  assert.equal(legacy.expectedFromStatus, false);
  assert.equal(legacy.expectedUpdatedReplicas, 3);
  assert.equal(legacy.partition, 7);
  assert.equal(legacy.state, 'PartitionComplete');
  // 90% of 8 without the status field: the v1.2 rule still gives 1 expected.
  const pct = variant('cloneset-v1alpha1-partition.yaml', { expectedUpdatedReplicas: undefined });
  const p = evaluateRollout(pct, [], NOW);
  assert.equal(p.expectedFromStatus, false);
  assert.equal(p.expectedUpdatedReplicas, 1);
  assert.equal(p.state, 'Progressing');
});

test('paused and not done: Paused (v1beta1 shape: rollingUpdate.paused)', () => {
  const o = variant('cloneset-v1beta1.yaml', { updatedReplicas: 2, updatedReadyReplicas: 2, updatedAvailableReplicas: 2 }, (x) => {
    x.spec.updateStrategy.rollingUpdate.paused = true;
  });
  const p = evaluateRollout(o, [], NOW);
  assert.equal(p.state, 'Paused');
  assert.match(p.message, /cloneset "web" rollout is paused: 2 of 8 pods updated/);
  const doneAnyway = variant('cloneset-v1beta1.yaml', {}, (x) => {
    x.spec.updateStrategy.rollingUpdate.paused = true;
  });
  assert.equal(evaluateRollout(doneAnyway, [], NOW).state, 'Complete');
});

test('CloneSet v1beta1 finished rollout is Complete', () => {
  const p = evaluateRollout(load('cloneset-v1beta1.yaml'), [], NOW);
  assert.equal(p.state, 'Complete');
  assert.equal(p.apiVersion, 'apps.kruise.io/v1beta1');
});

test('ProgressDeadlineExceeded fails the rollout', () => {
  const o = variant('cloneset-v1alpha1-partition.yaml', {
    conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'CloneSet web has timed out progressing.' }],
  });
  const p = evaluateRollout(o, [], NOW);
  assert.equal(p.state, 'Failed');
  assert.match(p.message, /exceeded its progress deadline/);
});

test('an updated pod stuck in ImagePullBackOff fails after the grace, naming the pod and reason', () => {
  const cs = load('cloneset-v1alpha1-partition.yaml');
  const pod = load<Pod>('pod-web-fail-pull.yaml');
  // Not ready since 09:00:01; now is 09:00:30.
  const early = evaluateRollout(cs, [pod], NOW, { failureGraceMs: 60_000 });
  assert.equal(early.state, 'Progressing');
  // The whole-second stamp 09:00:01 may stand for 09:00:01.999: the grace counts from the end of that second.
  assert.equal(early.recheckAt, Date.parse('2026-11-22T09:00:02Z') + 60_000);
  const late = evaluateRollout(cs, [pod], NOW, { failureGraceMs: 2_000 });
  assert.equal(late.state, 'Failed');
  assert.deepEqual(late.failedPod, { name: 'web-x7k2p', reason: 'ImagePullBackOff', container: 'app' });
  assert.match(late.message, /pod "web-x7k2p" container "app" is in ImagePullBackOff/);
  const atOnce = evaluateRollout(cs, [pod], NOW, { failureGraceMs: 0 });
  assert.equal(atOnce.state, 'Failed');
});

test('failure grace without pod timestamps uses when the watcher first saw the state', () => {
  const cs = load('cloneset-v1alpha1-partition.yaml');
  const pod = load<Pod>('pod-web-fail-pull.yaml');
  delete pod.metadata.creationTimestamp;
  delete pod.status!.startTime;
  pod.status!.conditions = [];
  const seen = new Map([[stuckKey(pod, 'ImagePullBackOff'), NOW - 1_000]]);
  assert.equal(evaluateRollout(cs, [pod], NOW, { failureGraceMs: 2_000, firstSeenStuck: seen }).state, 'Progressing');
  assert.equal(evaluateRollout(cs, [pod], NOW + 1_500, { failureGraceMs: 2_000, firstSeenStuck: seen }).state, 'Failed');
});

test('stuck pods of the old revision do not fail the rollout', () => {
  const cs = load('cloneset-v1alpha1-partition.yaml');
  const pod = load<Pod>('pod-web-fail-pull.yaml');
  pod.metadata.labels!['controller-revision-hash'] = 'web-5c9d6f7b8';
  assert.equal(evaluateRollout(cs, [pod], NOW, { failureGraceMs: 0 }).state, 'Progressing');
});

test('Advanced StatefulSet: partition counts pods kept old', () => {
  const p = evaluateRollout(load('asts-v1beta1.yaml'), [], NOW);
  assert.equal(p.expectedUpdatedReplicas, 2);
  assert.equal(p.partition, 3);
  assert.equal(p.state, 'PartitionComplete');
  assert.match(p.message, /^advanced statefulset "db" partition rollout complete: 2 of 5 pods updated \(3 kept/);
  const notReady = evaluateRollout(variant('asts-v1beta1.yaml', { updatedReadyReplicas: 1, readyReplicas: 4 }), [], NOW);
  assert.equal(notReady.state, 'Progressing');
});

test('Advanced DaemonSet v1alpha1 (daemonSetHash) and v1beta1 with a partition', () => {
  const a = evaluateRollout(load('ads-v1alpha1.yaml'), [], NOW);
  assert.equal(a.state, 'Progressing');
  assert.equal(a.replicas, 3);
  assert.equal(a.updatedReplicas, 1);
  assert.match(a.message, /^Waiting for advanced daemonset "agent" rollout to finish: 1 of 3 pods updated/);
  const b = evaluateRollout(load('ads-v1beta1.yaml'), [], NOW);
  assert.equal(b.expectedUpdatedReplicas, 2);
  assert.equal(b.state, 'PartitionComplete');
  const done = evaluateRollout(variant('ads-v1alpha1.yaml', { updatedNumberScheduled: 3, numberReady: 3, numberAvailable: 3, numberUnavailable: 0 }), [], NOW);
  assert.equal(done.state, 'Complete');
});

test('Deployment like kubectl: updated, old replicas terminated, available', () => {
  const p = evaluateRollout(load('deployment-api.yaml'), [], NOW);
  assert.equal(p.state, 'Progressing');
  assert.equal(p.message, 'Waiting for deployment "api" rollout to finish: 2 of 4 pods updated...');
  const oldLeft = evaluateRollout(variant('deployment-api.yaml', { updatedReplicas: 4, replicas: 5, readyReplicas: 5, availableReplicas: 5 }), [], NOW);
  assert.equal(oldLeft.state, 'Progressing');
  assert.match(oldLeft.message, /1 old pod is pending termination/);
  const done = evaluateRollout(variant('deployment-api.yaml', { updatedReplicas: 4, replicas: 4, readyReplicas: 4, availableReplicas: 4 }), [], NOW);
  assert.equal(done.state, 'Complete');
  assert.equal(done.message, 'deployment "api" successfully rolled out');
  const deadline = variant('deployment-api.yaml', {
    conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "api-85b9c7d6f" has timed out progressing.' }],
  });
  assert.equal(evaluateRollout(deadline, [], NOW).state, 'Failed');
});

test('Deployment: a stuck pod running the template images counts as updated', () => {
  const deploy = load('deployment-api.yaml');
  const pod = load<Pod>('pod-web-fail-pull.yaml');
  pod.metadata.labels = { app: 'api', 'pod-template-hash': '85b9c7d6f' };
  pod.spec.containers = [{ name: 'api', image: 'ghcr.io/example/api:1.8.0' }];
  pod.status!.containerStatuses![0]!.name = 'api';
  assert.equal(evaluateRollout(deploy, [pod], NOW, { failureGraceMs: 0 }).state, 'Failed');
  pod.spec.containers = [{ name: 'api', image: 'ghcr.io/example/api:1.7.3' }];
  assert.equal(evaluateRollout(deploy, [pod], NOW, { failureGraceMs: 0 }).state, 'Progressing');
});

test('native StatefulSet: the partition is an ordinal', () => {
  const p = evaluateRollout(load('statefulset-native.yaml'), [], NOW);
  assert.equal(p.partition, 2);
  assert.equal(p.expectedUpdatedReplicas, 2);
  assert.equal(p.state, 'PartitionComplete');
});

test('native DaemonSet finished', () => {
  const p = evaluateRollout(load('daemonset-native.yaml'), [], NOW);
  assert.equal(p.state, 'Complete');
  assert.equal(p.message, 'daemon set "node-exporter" successfully rolled out');
});

test('OnDelete: the waiting line says old pods update only when deleted', () => {
  const o = variant('statefulset-native.yaml', {}, (x) => {
    x.spec.updateStrategy = { type: 'OnDelete' };
    x.status.updatedReplicas = 1;
  });
  const p = evaluateRollout(o, [], NOW);
  assert.equal(p.state, 'Progressing');
  assert.match(p.message, /OnDelete: old pods are updated only when deleted/);
});

test('the -o json view carries the contract fields', async () => {
  const { statusJsonLine } = await import('../../../src/printers/rollout-status');
  const view = JSON.parse(statusJsonLine(evaluateRollout(load('cloneset-v1alpha1-partition.yaml'), [], NOW)));
  for (const key of ['kind', 'apiVersion', 'namespace', 'name', 'state', 'replicas', 'expectedUpdatedReplicas', 'updatedReplicas', 'updatedReadyReplicas', 'partition', 'updateRevision', 'currentRevision', 'message']) {
    assert.ok(key in view, key);
  }
  assert.deepEqual(
    [view.kind, view.apiVersion, view.namespace, view.name, view.state, view.replicas, view.expectedUpdatedReplicas, view.partition],
    ['CloneSet', 'apps.kruise.io/v1alpha1', 'default', 'web', 'Progressing', 8, 1, 7],
  );
});
