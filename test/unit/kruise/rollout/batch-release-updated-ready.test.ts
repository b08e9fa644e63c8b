// Where a BatchRelease's updatedReadyReplicas comes from (issue #15): batchrelease_status.go
// refreshStatus copies the workload info BuildController built. A CloneSet's info is its status as is
// (partitionstyle/cloneset/control.go BuildController); only the StatefulSet and Advanced DaemonSet
// controls count Ready pods of the update revision when the status says none (statefulset/control.go,
// daemonset/control.go BuildController). A CloneSet mid in-place update (updatedReadyReplicas 0, pods
// relabelled but their Ready condition not yet turned) must not read as 2 ready canary pods.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchReleasePlanHash, reconcileBatchRelease } from '../../../../src/kruise/rollout/batch-release';
import type { KubeObject } from '../../../../src/kruise/types';

const UPDATE = 'web-794476f85b';
const STABLE = 'web-7868f8cd6';

function batchRelease(kind: string, apiVersion: string): KubeObject {
  const br: KubeObject = {
    apiVersion: 'rollouts.kruise.io/v1beta1',
    kind: 'BatchRelease',
    metadata: { name: 'rollout-web', namespace: 'default', generation: 1 },
    spec: { workloadRef: { apiVersion, kind, name: 'web' }, releasePlan: { batches: [{ canaryReplicas: '25%' }, { canaryReplicas: '100%' }], batchPartition: 0 } },
  };
  br.status = {
    phase: 'Progressing',
    observedGeneration: 1,
    observedReleasePlanHash: batchReleasePlanHash(br),
    observedWorkloadReplicas: 8,
    stableRevision: STABLE,
    updateRevision: UPDATE,
    canaryStatus: { currentBatch: 0, batchState: 'Verifying', updatedReplicas: 2, updatedReadyReplicas: 0 },
  };
  return br;
}

/** The workload right after it relabelled 2 pods in place: 2 updated, none of them ready yet. */
function workload(kind: string, apiVersion: string, partition: unknown): KubeObject {
  return {
    apiVersion,
    kind,
    metadata: { name: 'web', namespace: 'default', generation: 4, annotations: { 'batchrelease.rollouts.kruise.io/control-info': '{}' } },
    spec: { replicas: 8, updateStrategy: kind === 'CloneSet' ? { type: 'InPlaceIfPossible', partition } : { type: 'RollingUpdate', rollingUpdate: { partition } } },
    status: { observedGeneration: 4, replicas: 8, updatedReplicas: 2, updatedReadyReplicas: 0, readyReplicas: 6, updateRevision: UPDATE, currentRevision: STABLE },
  };
}

/** A pod already at the update revision whose Ready condition still says True (the kubelet has not synced). */
function staleReadyPod(name: string, inPlaceReady: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: 'web', 'controller-revision-hash': UPDATE } },
    spec: { containers: [{ name: 'nginx', image: 'nginx:1.25.5' }], readinessGates: [{ conditionType: 'InPlaceUpdateReady' }] },
    status: { phase: 'Running', conditions: [{ type: 'InPlaceUpdateReady', status: inPlaceReady }, { type: 'Ready', status: 'True' }] },
  };
}

describe('BatchRelease updatedReadyReplicas (batchrelease_status.go refreshStatus)', () => {
  const pods = [staleReadyPod('web-a', 'False'), staleReadyPod('web-b', 'False')];

  it('CloneSet: status.updatedReadyReplicas 0 is copied as is, pods are not counted, the batch stays unverified (partitionstyle/cloneset/control.go BuildController)', () => {
    const res = reconcileBatchRelease({ batchRelease: batchRelease('CloneSet', 'apps.kruise.io/v1alpha1'), workload: workload('CloneSet', 'apps.kruise.io/v1alpha1', '75%'), pods, now: new Date() });
    assert.equal(res.status?.canaryStatus.updatedReadyReplicas ?? 0, 0);
    assert.notEqual(res.status?.canaryStatus.batchState, 'Ready');
  });

  it('Advanced StatefulSet: status.updatedReadyReplicas 0 → the Ready pods of the update revision are counted (partitionstyle/statefulset/control.go BuildController)', () => {
    const res = reconcileBatchRelease({ batchRelease: batchRelease('StatefulSet', 'apps.kruise.io/v1beta1'), workload: workload('StatefulSet', 'apps.kruise.io/v1beta1', 6), pods, now: new Date() });
    assert.equal(res.status?.canaryStatus.updatedReadyReplicas, 2);
  });
});
