import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { adapterFor, adapterForGroupKind } from '../../../src/kruise/workloads/index';
import { convertKruiseObject } from '../../../src/kruise/conversion';
import type { KubeObject } from '../../../src/kruise/types';
import { cloneSetExpectedUpdatedReplicas } from '../../../src/kruise/rules/cloneset';

const fixture = (name: string): KubeObject => parse(readFileSync(new URL(`../../fixtures/workloads/${name}`, import.meta.url), 'utf8')) as KubeObject;
const need = (obj: KubeObject) => {
  const a = adapterFor(obj);
  assert.ok(a, `adapter for ${obj.apiVersion} ${obj.kind}`);
  return a;
};

test('adapterFor picks the kind by group, never confusing Kruise and native StatefulSet/DaemonSet', () => {
  assert.equal(need(fixture('cloneset-v1alpha1.yaml')).kindName, 'CloneSet');
  assert.equal(need(fixture('cloneset-v1beta1.yaml')).kindName, 'CloneSet');
  assert.equal(need(fixture('asts-v1beta1.yaml')).kindName, 'AdvancedStatefulSet');
  assert.equal(need(fixture('asts-v1alpha1.yaml')).kindName, 'AdvancedStatefulSet');
  assert.equal(need(fixture('ads-v1alpha1.yaml')).kindName, 'AdvancedDaemonSet');
  assert.equal(need(fixture('ads-v1beta1.yaml')).kindName, 'AdvancedDaemonSet');
  assert.equal(need(fixture('deployment.yaml')).kindName, 'Deployment');
  assert.equal(need(fixture('statefulset.yaml')).kindName, 'StatefulSet');
  assert.equal(need(fixture('daemonset.yaml')).kindName, 'DaemonSet');
  assert.equal(adapterFor({ apiVersion: 'v1', kind: 'Pod', metadata: {} }), undefined);
  assert.equal(adapterFor(fixture('pps-v1alpha1.yaml')), undefined);
  assert.equal(adapterForGroupKind('apps.kruise.io', 'DaemonSet')?.kindName, 'AdvancedDaemonSet');
});

test('CloneSet v1alpha1 and v1beta1 read the same values from different paths', () => {
  for (const name of ['cloneset-v1alpha1.yaml', 'cloneset-v1beta1.yaml']) {
    const obj = fixture(name);
    const a = need(obj);
    assert.equal(a.desiredReplicas(obj), 8, name);
    assert.equal(a.partition(obj), '90%', name);
    assert.equal(a.partitionReplicas(obj), 7, name);
    assert.equal(a.expectedUpdatedReplicas(obj), 1, name);
    assert.equal(a.paused(obj), false, name);
    assert.equal(a.updatePolicy(obj), 'InPlaceIfPossible', name);
    assert.equal(a.maxUnavailable(obj), '20%', name);
    assert.equal(a.maxSurge(obj), 1, name);
    assert.deepEqual(a.rollingLimits(obj), { maxUnavailable: 1, maxSurge: 1 }, name); // 1.6 rounds down with surge
    assert.equal(a.templatePointer(obj), '/spec/template');
    assert.equal(a.revisionLabelKey, 'controller-revision-hash');
    assert.deepEqual(a.selector(obj), { matchLabels: { app: 'web' } });
    assert.deepEqual(
      a.containers(obj).map((c) => [c.name, c.image, c.init, c.pointer]),
      [
        ['nginx', 'nginx:1.25.3', false, '/spec/template/spec/containers/0'],
        ['log-agent', 'fluent/fluent-bit:2.2', false, '/spec/template/spec/containers/1'],
        ['init-config', 'busybox:1.36', true, '/spec/template/spec/initContainers/0'],
      ],
    );
    const s = a.status(obj);
    assert.deepEqual(
      [s.observedGeneration, s.replicas, s.updatedReplicas, s.updatedReadyReplicas, s.expectedUpdatedReplicas, s.updateRevision, s.currentRevision],
      [4, 8, 1, 1, 1, 'web-7c9b8d6f5', 'web-5d4c7b9f8'],
    );
    assert.equal(s.conditions[0]?.reason, 'ProgressPartitionAvailable');
  }
});

test('CloneSet pause patch and pointer follow the shape', () => {
  const alpha = fixture('cloneset-v1alpha1.yaml');
  const beta = fixture('cloneset-v1beta1.yaml');
  const a = need(alpha);
  assert.deepEqual(a.pausePatch(alpha, true), { spec: { updateStrategy: { paused: true } } });
  assert.equal(a.pausedPointer(alpha), '/spec/updateStrategy/paused');
  assert.equal(a.partitionPointer(alpha), '/spec/updateStrategy/partition');
  assert.deepEqual(a.pausePatch(beta, true), { spec: { updateStrategy: { rollingUpdate: { paused: true } } } });
  assert.equal(a.pausedPointer(beta), '/spec/updateStrategy/rollingUpdate/paused');
  assert.equal(a.partitionPointer(beta), '/spec/updateStrategy/rollingUpdate/partition');
  // a v1alpha1 object converted to v1beta1 reads identically
  const converted = convertKruiseObject(alpha, 'apps.kruise.io/v1beta1');
  assert.equal(a.partitionReplicas(converted), 7);
  assert.equal(a.pausedPointer(converted), '/spec/updateStrategy/rollingUpdate/paused');
});

test('CloneSet before Kruise v1.2: no expectedUpdatedReplicas in status, computed from spec', () => {
  const obj = fixture('cloneset-v1alpha1-pre-v1.2.yaml');
  const a = need(obj);
  assert.equal(a.status(obj).expectedUpdatedReplicas, undefined);
  assert.equal(a.expectedUpdatedReplicas(obj), 3);
  assert.equal(a.paused(obj), true);
  assert.equal(a.updatePolicy(obj), 'ReCreate');
  assert.deepEqual(a.rollingLimits(obj), { maxUnavailable: 1, maxSurge: 0 }); // default 20% of 5 = 1
});

test('CloneSet v1beta1 OnDelete expects every replica', () => {
  const obj = fixture('cloneset-v1beta1-ondelete.yaml');
  const a = need(obj);
  assert.equal(a.updatePolicy(obj), 'OnDelete');
  assert.equal(a.partitionReplicas(obj), 0);
  assert.equal(a.expectedUpdatedReplicas(obj), 3);
});

test('CloneSet v1beta1 OnDelete with rollingUpdate.partition 2 of 5: 2 kept, 3 expected, as Kruise main calculateStatus writes it (pkg/controller/cloneset/cloneset_status.go)', () => {
  const obj = fixture('cloneset-v1beta1-ondelete-partition.yaml');
  const a = need(obj);
  assert.equal(a.updatePolicy(obj), 'OnDelete');
  assert.equal(a.partitionReplicas(obj), 2);
  assert.equal(a.expectedUpdatedReplicas(obj), 3);
  assert.equal(a.expectedUpdatedReplicas(obj), cloneSetExpectedUpdatedReplicas(obj));
});

test('Advanced StatefulSet: pods-kept partition, rolling fields under rollingUpdate', () => {
  const obj = fixture('asts-v1beta1.yaml');
  const a = need(obj);
  assert.equal(a.partitionReplicas(obj), 2);
  assert.equal(a.expectedUpdatedReplicas(obj), 3);
  assert.equal(a.updatePolicy(obj), 'InPlaceIfPossible');
  assert.deepEqual(a.rollingLimits(obj), { maxUnavailable: 2, maxSurge: 0 });
  assert.equal(a.maxSurge(obj), undefined);
  assert.equal(a.status(obj).updatedReadyReplicas, 3);
  assert.deepEqual(a.pausePatch(obj, true), { spec: { updateStrategy: { rollingUpdate: { paused: true } } } });
  const alpha = fixture('asts-v1alpha1.yaml');
  assert.equal(a.paused(alpha), true);
  assert.equal(a.status(alpha).updatedReadyReplicas, undefined);
  assert.equal(a.status(alpha).availableReplicas, 3); // falls back to ready when absent
  assert.equal(a.partitionReplicas(alpha), 0);
  assert.deepEqual(a.rollingLimits(alpha), { maxUnavailable: 1, maxSurge: 0 });
});

test('Advanced DaemonSet: scheduled nodes, v1alpha1 daemonSetHash vs v1beta1 updateRevision', () => {
  const alpha = fixture('ads-v1alpha1.yaml');
  const a = need(alpha);
  assert.equal(a.desiredReplicas(alpha), 3);
  assert.equal(a.partitionReplicas(alpha), 1);
  assert.equal(a.expectedUpdatedReplicas(alpha), 2);
  assert.equal(a.updatePolicy(alpha), 'InPlaceIfPossible');
  assert.deepEqual(a.rollingLimits(alpha), { maxUnavailable: 1, maxSurge: 0 }); // 30% of 3 = 0.9 → 1
  const sa = a.status(alpha);
  assert.deepEqual([sa.replicas, sa.readyReplicas, sa.availableReplicas, sa.updatedReplicas, sa.updateRevision], [3, 3, 3, 2, '7c6f5d8b9']);
  const beta = fixture('ads-v1beta1.yaml');
  assert.equal(a.partitionReplicas(beta), 2); // 50% of 5 = 2.5 → down
  assert.equal(a.expectedUpdatedReplicas(beta), 3);
  assert.equal(a.paused(beta), true);
  assert.equal(a.updatePolicy(beta), 'ReCreate');
  assert.deepEqual(a.rollingLimits(beta), { maxUnavailable: 0, maxSurge: 1 });
  assert.equal(a.status(beta).updateRevision, '6d9f8c7b5');
  assert.equal(a.pausedPointer(beta), '/spec/updateStrategy/rollingUpdate/paused');
});

test('Deployment: spec.paused, no partition, pod-template-hash', () => {
  const obj = fixture('deployment.yaml');
  const a = need(obj);
  assert.equal(a.paused(obj), true);
  assert.deepEqual(a.pausePatch(obj, false), { spec: { paused: false } });
  assert.equal(a.pausedPointer(obj), '/spec/paused');
  assert.equal(a.partition(obj), undefined);
  assert.equal(a.partitionReplicas(obj), 0);
  assert.equal(a.expectedUpdatedReplicas(obj), 4);
  assert.equal(a.revisionLabelKey, 'pod-template-hash');
  assert.deepEqual(a.rollingLimits(obj), { maxUnavailable: 1, maxSurge: 1 });
  assert.equal(a.status(obj).conditions.length, 2);
});

test('native StatefulSet: ordinal partition becomes pods kept old; no pause', () => {
  const obj = fixture('statefulset.yaml');
  const a = need(obj);
  assert.equal(a.partition(obj), 3);
  assert.equal(a.partitionReplicas(obj), 3);
  assert.equal(a.expectedUpdatedReplicas(obj), 2);
  assert.equal(a.supportsPause, false);
  assert.equal(a.paused(obj), false);
  assert.throws(() => a.pausePatch(obj, true), /no paused field/);
  const started = structuredClone(obj);
  (started.spec as Record<string, unknown>).ordinals = { start: 2 };
  assert.equal(a.partitionReplicas(started), 1); // ordinals 2..6: only 2 is below 3
});

test('native DaemonSet: status normalised, no partition, no pause', () => {
  const obj = fixture('daemonset.yaml');
  const a = need(obj);
  assert.equal(a.desiredReplicas(obj), 3);
  assert.equal(a.expectedUpdatedReplicas(obj), 3);
  const s = a.status(obj);
  assert.deepEqual([s.replicas, s.readyReplicas, s.availableReplicas, s.updatedReplicas], [3, 2, 2, 3]);
  assert.equal(a.supportsPause, false);
  assert.deepEqual(a.rollingLimits(obj), { maxUnavailable: 1, maxSurge: 0 });
});

test('replicas default to 1 when spec.replicas is absent', () => {
  const obj: KubeObject = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'x' }, spec: { updateStrategy: { partition: '50%' } } };
  const a = need(obj);
  assert.equal(a.desiredReplicas(obj), 1);
  assert.equal(a.partitionReplicas(obj), 1);
  assert.equal(a.expectedUpdatedReplicas(obj), 0);
  assert.deepEqual(a.status(obj).conditions, []);
});
