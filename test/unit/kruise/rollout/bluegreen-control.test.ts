import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_PROGRESS_SECONDS,
  MAX_READY_SECONDS,
  ORIGINAL_DEPLOYMENT_STRATEGY_ANNOTATION,
  blueGreenBatchContext,
  blueGreenFinalizePending,
  blueGreenInitialize,
  blueGreenNotReady,
  blueGreenRestore,
  blueGreenUpgrade,
} from '../../../../src/kruise/rollout/bluegreen-control';
import { BATCH_RELEASE_CONTROL_ANNOTATION } from '../../../../src/kruise/rollout/deployment-partition';
import type { KubeObject } from '../../../../src/kruise/types';
import { mergePatch } from './helpers';
import { batchReleasePlanHash, reconcileBatchRelease } from '../../../../src/kruise/rollout/batch-release';
import type { IntOrString } from '../../../../src/kruise/intstr';

const CS_TEST = 'openkruise/rollouts pkg/controller/batchrelease/control/bluegreenstyle/cloneset/control_test.go';
const DEP_TEST = 'openkruise/rollouts pkg/controller/batchrelease/control/bluegreenstyle/deployment/control_test.go';
const CONTROL_INFO = '{"apiVersion":"rollouts.kruise.io/v1beta1","kind":"BatchRelease","name":"release","uid":"u-1","controller":true,"blockOwnerDeletion":true}';

const apply = (obj: KubeObject, patch: unknown): KubeObject => mergePatch(obj, patch) as KubeObject;

// cloneDemo of the Go test: 10 replicas, paused, partition "0%", maxUnavailable 1.
const cloneDemo = (): KubeObject => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name: 'cloneset', namespace: 'default', generation: 1, annotations: { type: 'unit-test' } },
  spec: { replicas: 10, updateStrategy: { paused: true, partition: '0%', maxUnavailable: 1 }, template: { spec: { containers: [{ name: 'busybox', image: 'busybox:latest' }] } } },
  status: { replicas: 10, readyReplicas: 10, availableReplicas: 10, updatedReadyReplicas: 0, observedGeneration: 1 },
});
// deploymentDemo of the Go test: 10 replicas, paused, RollingUpdate maxUnavailable 1, maxSurge 20%.
const deploymentDemo = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'deployment', namespace: 'default', generation: 1, annotations: { type: 'unit-test' } },
  spec: { paused: true, replicas: 10, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: '20%' } }, template: { spec: { containers: [{ name: 'busybox', image: 'busybox:latest' }] } } },
  status: { replicas: 10, readyReplicas: 10, availableReplicas: 10, observedGeneration: 1 },
});

test(`CloneSet Control "should initialize cloneset successfully" (${CS_TEST})`, () => {
  const patch = blueGreenInitialize('CloneSet', cloneDemo(), 'u-1', CONTROL_INFO);
  assert.ok(patch && typeof patch === 'object');
  const cs = apply(cloneDemo(), patch);
  assert.equal(cs.metadata.annotations?.[BATCH_RELEASE_CONTROL_ANNOTATION], CONTROL_INFO);
  assert.deepEqual(JSON.parse(cs.metadata.annotations?.[ORIGINAL_DEPLOYMENT_STRATEGY_ANNOTATION] ?? ''), { maxUnavailable: 1, maxSurge: '0%' });
  const spec = cs.spec as { minReadySeconds: number; updateStrategy: Record<string, unknown> };
  assert.equal(spec.updateStrategy.paused, false);
  assert.equal(spec.updateStrategy.maxSurge, 1);
  assert.equal(spec.updateStrategy.maxUnavailable, 0);
  assert.equal(spec.minReadySeconds, MAX_READY_SECONDS);
  // IsControlledByBatchRelease: the same BatchRelease does not initialize twice
  assert.equal(blueGreenInitialize('CloneSet', cs, 'u-1', CONTROL_INFO), undefined);
});

test(`CloneSet Control "should upgradBatch for CloneSet successfully": batch 0 of [10%, 50%, 100%] sets maxSurge "10%", maxUnavailable stays 0 (${CS_TEST})`, () => {
  const cs = apply(cloneDemo(), blueGreenInitialize('CloneSet', cloneDemo(), 'u-1', CONTROL_INFO));
  assert.equal(blueGreenNotReady('CloneSet', cs), undefined);
  const ctx = blueGreenBatchContext('CloneSet', cs, ['10%', '50%', '100%'], 0, 0);
  const upgraded = apply(cs, blueGreenUpgrade('CloneSet', cs, ctx));
  const strategy = (upgraded.spec as { updateStrategy: Record<string, unknown> }).updateStrategy;
  assert.equal(strategy.maxSurge, '10%');
  assert.equal(strategy.maxUnavailable, 0);
  assert.equal(strategy.partition, undefined); // UpdatePartiton(nil): no interference from the webhook's 100%
  // once raised, the same batch writes nothing
  assert.equal(blueGreenUpgrade('CloneSet', upgraded, blueGreenBatchContext('CloneSet', upgraded, ['10%', '50%', '100%'], 0, 0)), undefined);
});

test(`CloneSet Control "should finalize CloneSet successfully": without a saved setting nothing is restored; with one, the settings come back and the annotations go (${CS_TEST})`, () => {
  assert.equal(blueGreenRestore('CloneSet', cloneDemo(), undefined), undefined);
  const cs = apply(cloneDemo(), blueGreenInitialize('CloneSet', cloneDemo(), 'u-1', CONTROL_INFO));
  const restored = apply(cs, blueGreenRestore('CloneSet', cs, undefined));
  assert.equal(restored.metadata.annotations?.[ORIGINAL_DEPLOYMENT_STRATEGY_ANNOTATION], undefined);
  assert.equal(restored.metadata.annotations?.[BATCH_RELEASE_CONTROL_ANNOTATION], undefined);
  const spec = restored.spec as { minReadySeconds: number; updateStrategy: Record<string, unknown> };
  assert.equal(spec.updateStrategy.maxSurge, '0%');
  assert.equal(spec.updateStrategy.maxUnavailable, 1);
  assert.equal(spec.minReadySeconds, 0);
  // the wait after it: ready 10, updatedReady 0 → not done; updatedReady 10 → done
  assert.match(blueGreenFinalizePending('CloneSet', restored) ?? '', /readyReplicas 10 != updatedReadyReplicas 0/);
  assert.equal(blueGreenFinalizePending('CloneSet', apply(restored, { status: { updatedReadyReplicas: 10 } })), undefined);
  // continuous release (batchPartition set): not supported, nothing written
  assert.equal(blueGreenRestore('CloneSet', cs, 1), undefined);
});

// TestCalculateBatchContext (CloneSet): [name, maxSurge, status {updated, updatedReady}, current batch, desired, current, planned]
const csRows: Array<[string, IntOrString, number, number, number, IntOrString, IntOrString, number]> = [
  ['normal case batch0', 1, 0, 0, 0, '50%', 0, 5],
  ['normal case batch1', '50%', 5, 5, 1, '100%', '50%', 10],
  ['normal case batch2', '100%', 10, 10, 2, '100%', '100%', 10],
];
for (const [name, maxSurge, updated, updatedReady, batch, desired, current, planned] of csRows) {
  test(`TestCalculateBatchContext row "${name}" (${CS_TEST})`, () => {
    const cs: KubeObject = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: {}, spec: { replicas: 10, updateStrategy: { maxSurge } }, status: { updatedReplicas: updated, updatedReadyReplicas: updatedReady } };
    assert.deepEqual(blueGreenBatchContext('CloneSet', cs, ['50%', '100%', '100%'], batch, updatedReady), {
      currentBatch: batch,
      replicas: 10,
      desiredSurge: desired,
      currentSurge: current,
      plannedUpdatedReplicas: planned,
      desiredUpdatedReplicas: planned,
      updatedReplicas: updated,
      updatedReadyReplicas: updatedReady,
    });
  });
}

// TestCalculateBatchContext (Deployment): [name, replicas, maxSurge, updated, new RS ready, batches, expected planned]
const depRows: Array<[string, number, IntOrString, number, number, IntOrString[], IntOrString, IntOrString, number]> = [
  ['noraml case', 10, '50%', 5, 2, ['50%', '100%'], '100%', '50%', 10],
  ['maxSurge=99%, replicas=5', 5, '90%', 4, 4, ['90%', '99%'], '99%', '90%', 4],
];
for (const [name, replicas, maxSurge, updated, ready, batches, desired, current, planned] of depRows) {
  test(`TestCalculateBatchContext row "${name}" (${DEP_TEST})`, () => {
    const d: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: {}, spec: { replicas, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable: 0 } } }, status: { updatedReplicas: updated } };
    assert.deepEqual(blueGreenBatchContext('Deployment', d, batches, 1, ready), {
      currentBatch: 1,
      replicas,
      desiredSurge: desired,
      currentSurge: current,
      plannedUpdatedReplicas: planned,
      desiredUpdatedReplicas: planned,
      updatedReplicas: updated,
      updatedReadyReplicas: ready,
    });
  });
}

test(`Deployment Control "should initialize Deployment successfully": original setting saved, maxSurge 1, maxUnavailable 0, MaxReadySeconds, MaxProgressSeconds (${DEP_TEST})`, () => {
  const d = apply(deploymentDemo(), blueGreenInitialize('Deployment', deploymentDemo(), 'u-1', CONTROL_INFO));
  assert.equal(d.metadata.annotations?.[BATCH_RELEASE_CONTROL_ANNOTATION], CONTROL_INFO);
  assert.deepEqual(JSON.parse(d.metadata.annotations?.[ORIGINAL_DEPLOYMENT_STRATEGY_ANNOTATION] ?? ''), { maxUnavailable: 1, maxSurge: '20%', progressDeadlineSeconds: 600 });
  const spec = d.spec as { minReadySeconds: number; progressDeadlineSeconds: number; strategy: { type: string; rollingUpdate: Record<string, unknown> } };
  assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
  assert.equal(spec.minReadySeconds, MAX_READY_SECONDS);
  assert.equal(spec.progressDeadlineSeconds, MAX_PROGRESS_SECONDS);
  assert.equal(blueGreenNotReady('Deployment', d), undefined);
  assert.match(blueGreenNotReady('Deployment', deploymentDemo()) ?? '', /no control info annotation/);
});

test(`Deployment Control "should upgradBatch for Deployment successfully": resumed, maxSurge "50%", maxUnavailable 0 (${DEP_TEST})`, () => {
  const d = apply(deploymentDemo(), blueGreenInitialize('Deployment', deploymentDemo(), 'u-1', CONTROL_INFO));
  const up = apply(d, blueGreenUpgrade('Deployment', d, blueGreenBatchContext('Deployment', d, ['50%', '100%'], 0, 0)));
  const spec = up.spec as { paused: boolean; strategy: { rollingUpdate: Record<string, unknown> } };
  assert.equal(spec.paused, false);
  assert.deepEqual(spec.strategy.rollingUpdate, { maxSurge: '50%', maxUnavailable: 0 });
});

test(`Deployment Control "should finalize Deployment successfully": settings restored, progressDeadlineSeconds back, waitAllUpdatedAndReady (${DEP_TEST})`, () => {
  const d = apply(deploymentDemo(), blueGreenInitialize('Deployment', deploymentDemo(), 'u-1', CONTROL_INFO));
  const restored = apply(d, blueGreenRestore('Deployment', d, undefined));
  const spec = restored.spec as { paused: boolean; minReadySeconds: number; progressDeadlineSeconds?: number; strategy: { rollingUpdate: Record<string, unknown> } };
  assert.equal(restored.metadata.annotations?.[ORIGINAL_DEPLOYMENT_STRATEGY_ANNOTATION], undefined);
  assert.equal(restored.metadata.annotations?.[BATCH_RELEASE_CONTROL_ANNOTATION], undefined);
  assert.deepEqual(spec.strategy.rollingUpdate, { maxSurge: '20%', maxUnavailable: 1 });
  assert.equal(spec.minReadySeconds, 0);
  assert.equal(spec.progressDeadlineSeconds, 600);
  assert.equal(spec.paused, false);
  // waitAllUpdatedAndReady: 10 ready of which 0 updated → wait; all updated, ready and available → done
  assert.match(blueGreenFinalizePending('Deployment', restored) ?? '', /all ready replicas should be updated/);
  assert.equal(blueGreenFinalizePending('Deployment', apply(restored, { status: { updatedReplicas: 10, readyReplicas: 10, availableReplicas: 10, replicas: 10 } })), undefined);
  assert.match(blueGreenFinalizePending('Deployment', apply(restored, { spec: { paused: true } })) ?? '', /should not be paused/);
});

test(`bluegreenstyle cloneset control.go Finalize: the BatchRelease stays Finalizing (retry) until every ready pod is updated, then Completed (${CS_TEST} "should finalize CloneSet successfully")`, () => {
  const br: KubeObject = {
    apiVersion: 'rollouts.kruise.io/v1beta1',
    kind: 'BatchRelease',
    metadata: { name: 'release', namespace: 'default', uid: 'u-1', generation: 2 },
    spec: { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'cloneset' }, releasePlan: { rollingStyle: 'BlueGreen', finalizingPolicy: 'WaitResume', batches: [{ canaryReplicas: '100%' }] } },
    status: { phase: 'Finalizing', observedGeneration: 2, canaryStatus: { currentBatch: 0, batchState: 'Ready' } },
  };
  br.status = { ...(br.status as object), observedReleasePlanHash: batchReleasePlanHash(br) };
  let cs = apply(cloneDemo(), blueGreenInitialize('CloneSet', cloneDemo(), 'u-1', CONTROL_INFO));
  let release = br;
  /** Reconciles until the BatchRelease writes nothing more, applying its writes as the sandbox would. */
  const settle = (): void => {
    for (let i = 0; i < 5; i++) {
      const res = reconcileBatchRelease({ batchRelease: release, workload: cs, pods: [], now: new Date() });
      if (res.workloadPatch) cs = apply(cs, res.workloadPatch);
      if (!res.status && !res.workloadPatch) return;
      if (res.status) release = { ...release, status: res.status as unknown as Record<string, unknown> };
    }
  };
  settle();
  // restored (the saved settings are back), but 10 old pods still ready beside 0 updated ones: still Finalizing
  assert.equal((cs.spec as { minReadySeconds: number }).minReadySeconds, 0);
  assert.equal(cs.metadata.annotations?.[ORIGINAL_DEPLOYMENT_STRATEGY_ANNOTATION], undefined);
  assert.equal((release.status as { phase: string }).phase, 'Finalizing');
  // every ready pod updated: Completed
  cs = apply(cs, { status: { readyReplicas: 10, updatedReadyReplicas: 10, updatedReplicas: 10 } });
  settle();
  assert.equal((release.status as { phase: string }).phase, 'Completed');
});
