import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, Pod } from '../../../src/kruise/types';
import { impactWarning, sidecarSetImpact } from '../../../src/kruise/sidecarset-impact';
import { explainPartition } from '../../../src/kruise/partition';
import { readSidecarSet } from '../../../src/kruise/workloads/sidecarset';

const ss = (strategy: Record<string, unknown>): KubeObject => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'SidecarSet',
  metadata: { name: 'log' },
  spec: { selector: { matchLabels: { logging: 'on' } }, containers: [{ name: 'logger', image: 'fluent-bit:3.1' }], updateStrategy: strategy },
});

function pod(ns: string, name: string, owner?: { kind: string; name: string }, injected = true): Pod {
  return {
    metadata: {
      name,
      namespace: ns,
      labels: { logging: 'on' },
      annotations: injected ? { 'kruise.io/sidecarset-injected-list': 'log' } : {},
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: owner.kind, name: owner.name, uid: `${name}-owner`, controller: true }] } : {}),
    },
    spec: { containers: [] },
    status: { phase: 'Running' },
  };
}

const PODS = [
  pod('default', 'web-a', { kind: 'CloneSet', name: 'web' }),
  pod('default', 'web-b', { kind: 'CloneSet', name: 'web' }),
  pod('default', 'web-c', { kind: 'CloneSet', name: 'web' }),
  pod('default', 'api-1', { kind: 'ReplicaSet', name: 'api-7d9' }),
  pod('default', 'api-2', { kind: 'ReplicaSet', name: 'api-7d9' }),
  pod('default', 'not-injected', { kind: 'CloneSet', name: 'web' }, false),
];
const RS = new Map([['default/api-7d9', 'deployment/api']]);

test('impact: matched pods grouped by workload, ReplicaSets under their Deployment, not-injected pods left out', () => {
  const view = readSidecarSet(ss({ partition: 2 }));
  const impact = sidecarSetImpact(view, PODS, RS);
  assert.equal(impact.matched, 5);
  assert.equal(impact.partition, 2);
  assert.deepEqual(impact.groups.map((g) => [g.owner, g.count]), [['cloneset/web', 3], ['deployment/api', 2]]);
  assert.deepEqual(impactWarning(view, impact, { sidecars: ['logger'], init: [] }), [
    'Warning: sidecarset "log" will update the sidecar "logger" in place in 5 pods: cloneset/web (3), deployment/api (2) (the partition keeps 2 on the old sidecars)',
  ]);
});

test('impact warning: pods of several namespaces, a paused SidecarSet, a bare pod, init containers', () => {
  const view = readSidecarSet(ss({ paused: true }));
  const impact = sidecarSetImpact(view, [...PODS.slice(0, 2), pod('team', 'lonely')], RS);
  assert.deepEqual(impactWarning(view, impact, { sidecars: ['logger'], init: ['init-log'] }), [
    'Warning: sidecarset "log" will update the sidecar "logger" in place in 3 pods: cloneset/web (2 in default), pod/lonely (1 in team) (it is paused: nothing changes until `rollout resume`)',
    'Warning: sidecarset "log": init containers (init-log) are injected only into pods created from now on; running pods keep theirs',
  ]);
  assert.deepEqual(impactWarning(view, sidecarSetImpact(view, [], RS), { sidecars: ['logger'], init: [] }), [
    'Warning: sidecarset "log" matches no pods: sidecar "logger" changes only in pods created from now on',
  ]);
});

// sidecarset_strategy_test.go TestGetNextUpgradePods rows: the partition and maxUnavailable arithmetic.
test('explainPartition sidecarset: "maxUnavailable(5) partition(99%), pods(count=5)" keeps 4, updates 1', () => {
  const r = explainPartition({ kind: 'sidecarset', replicas: 5, partition: '99%', maxUnavailable: 5 });
  assert.equal(r.partitionReplicas, 4);
  assert.equal(r.expectedUpdatedReplicas, 1);
  assert.equal(r.maxUnavailable, 5);
});

test('explainPartition sidecarset: "only maxUnavailable(string=10%), pods(count=1000)" → 100; default maxUnavailable 1; no maxSurge', () => {
  assert.equal(explainPartition({ kind: 'sidecarset', replicas: 1000, maxUnavailable: '10%' }).maxUnavailable, 100);
  assert.equal(explainPartition({ kind: 'sidecarset', replicas: 1000, maxUnavailable: '5%' }).maxUnavailable, 50);
  assert.equal(explainPartition({ kind: 'sidecarset', replicas: 7 }).maxUnavailable, 1);
  assert.throws(() => explainPartition({ kind: 'sidecarset', replicas: 7, maxSurge: 1 }), /no maxSurge/);
});
