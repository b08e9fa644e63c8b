// KruisePodReady readiness gate rules (src/kruise/rules/pod-readiness.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initialKruisePodReadyCondition, injectKruisePodReadyGate, isPodOwnedByKruise } from '../../../../src/kruise/rules/pod-readiness';
import type { Pod } from '../../../../src/kruise/types';

function pod(owner?: { apiVersion: string; kind: string; controller?: boolean }, gates: string[] = []): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'pod0',
      namespace: 'default',
      ...(owner ? { ownerReferences: [{ ...owner, name: 'x', uid: 'u1', controller: owner.controller ?? true }] } : {}),
    },
    spec: { containers: [{ name: 'main', image: 'nginx' }], ...(gates.length ? { readinessGates: gates.map((conditionType) => ({ conditionType })) } : {}) },
  } as Pod;
}
const gates = (p: Pod | undefined) => ((p?.spec.readinessGates ?? []) as Array<{ conditionType: string }>).map((g) => g.conditionType);

test('IsPodOwnedByKruise (pkg/util/pods.go): the controller owner reference of group apps.kruise.io, any version', () => {
  assert.equal(isPodOwnedByKruise(pod({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' })), true);
  assert.equal(isPodOwnedByKruise(pod({ apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet' })), true);
  assert.equal(isPodOwnedByKruise(pod({ apiVersion: 'apps.kruise.io/v1beta1', kind: 'DaemonSet' })), true);
  assert.equal(isPodOwnedByKruise(pod({ apiVersion: 'apps/v1', kind: 'ReplicaSet' })), false);
  assert.equal(isPodOwnedByKruise(pod({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', controller: false })), false, 'not the controller');
  assert.equal(isPodOwnedByKruise(pod()), false);
});

test('injectPodReadinessGate (pkg/webhook/pod/mutating/pod_readiness.go): Kruise workload pods get KruisePodReady, others only with the KruisePodReadinessGate feature gate', () => {
  assert.deepEqual(gates(injectKruisePodReadyGate(pod({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' }, ['InPlaceUpdateReady']), false)), ['InPlaceUpdateReady', 'KruisePodReady']);
  assert.equal(injectKruisePodReadyGate(pod({ apiVersion: 'apps/v1', kind: 'ReplicaSet' }), false), undefined, 'native pod, gate off');
  assert.deepEqual(gates(injectKruisePodReadyGate(pod({ apiVersion: 'apps/v1', kind: 'ReplicaSet' }), true)), ['KruisePodReady'], 'native pod, gate on');
  // InjectReadinessGateToPod (pkg/util/pods.go): not twice
  assert.equal(injectKruisePodReadyGate(pod({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' }, ['KruisePodReady']), false), undefined);
});

test('TestReconcile (pkg/controller/podreadiness/pod_readiness_controller_test.go): pod0 with the gate gets KruisePodReady True, pod1 without the gate gets none', () => {
  const pod0 = pod(undefined, ['KruisePodReady']);
  const pod1 = pod(undefined, []);
  assert.deepEqual(initialKruisePodReadyCondition(pod0, '2026-01-01T00:00:00Z'), { type: 'KruisePodReady', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' });
  assert.equal(initialKruisePodReadyCondition(pod1, '2026-01-01T00:00:00Z'), undefined);
});

test('Reconcile (pkg/controller/podreadiness/pod_readiness_controller.go): an existing condition (held False by a CRR) and a deleting pod are left alone', () => {
  const held = pod(undefined, ['KruisePodReady']);
  held.status = { conditions: [{ type: 'KruisePodReady', status: 'False' }] };
  assert.equal(initialKruisePodReadyCondition(held, 'now'), undefined);
  const deleting = pod(undefined, ['KruisePodReady']);
  deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  assert.equal(initialKruisePodReadyCondition(deleting, 'now'), undefined);
});
