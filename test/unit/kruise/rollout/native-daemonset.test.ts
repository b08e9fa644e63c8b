// Kruise Rollout master's native DaemonSet release, pure rules, against rows of openkruise/rollouts
// master's own tests (@9dd6279d; each test names its Go file and test):
// - pkg/controller/nativedaemonset/util/nativedaemoset_util_test.go and nativedaemonset_controller_test.go
//   (which pods the native-daemonset-controller deletes),
// - pkg/controller/batchrelease/control/partitionstyle/nativedaemonset/control_test.go (the batch control),
// - pkg/util/controller_finder_test.go (the Rollout's view of the DaemonSet),
// - pkg/webhook/workload/mutating/workload_update_handler_test.go (the workload webhook's hold).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../../src/kruise/types';
import {
  analyzeNativeDaemonSetPods,
  desiredUpdatedReplicas,
  nativeDaemonSetMaxUnavailable,
  nativeDaemonSetPodsToDelete,
  sortPodsForDeletion,
} from '../../../../src/kruise/rollout/native-daemonset-pods';
import { daemonSetAdvancedControl, daemonSetAdvancedControlValue, daemonSetRevisionValue } from '../../../../src/kruise/rollout/native-daemonset-annotations';
import { nativeDaemonSetReleaseControl as control } from '../../../../src/kruise/rollout/release-control-native-daemonset';
import { releaseControlFor } from '../../../../src/kruise/rollout/release-control';
import { mergePatch } from './helpers';

const UTIL = 'pkg/controller/nativedaemonset/util/nativedaemoset_util_test.go';
const CTRL = 'pkg/controller/nativedaemonset/nativedaemonset_controller_test.go';
const CONTROL = 'pkg/controller/batchrelease/control/partitionstyle/nativedaemonset/control_test.go';
const FINDER = 'pkg/util/controller_finder_test.go';
const HOOK = 'pkg/webhook/workload/mutating/workload_update_handler_test.go';

interface PodSpec {
  name: string;
  revision?: string;
  ready?: boolean;
  terminating?: boolean;
  phase?: string;
  cost?: string;
  /** hours before now */
  age?: number;
}

function pod(p: PodSpec): KubeObject {
  const now = Date.parse('2026-11-25T12:00:00Z');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: p.name,
      namespace: 'default',
      labels: { app: 'daemon-demo', ...(p.revision ? { 'controller-revision-hash': p.revision } : {}) },
      ...(p.cost !== undefined && p.cost !== '' ? { annotations: { 'controller.kubernetes.io/pod-deletion-cost': p.cost } } : {}),
      ...(p.terminating ? { deletionTimestamp: '2026-11-25T12:00:00Z' } : {}),
      creationTimestamp: new Date(now - (p.age ?? 0) * 3600_000).toISOString(),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'daemon-demo', uid: 'uid-daemon-demo', controller: true }],
    },
    status: { phase: p.phase ?? 'Running', conditions: [{ type: 'Ready', status: p.ready === false ? 'False' : 'True' }] },
  };
}

/** daemonDemo of control_test.go: 5 nodes, OnDelete, controlled by release-demo. */
function daemonDemo(annotations: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      name: 'daemon-demo',
      namespace: 'default',
      uid: 'uid-daemon-demo',
      generation: 1,
      annotations: { 'batchrelease.rollouts.kruise.io/control-info': '{"name":"release-demo","uid":"606132e0-85ef-460e-8a04-438496a92951","controller":true,"blockOwnerDeletion":true}', ...annotations },
    },
    spec: { selector: { matchLabels: { app: 'daemon-demo' } }, template: { metadata: { labels: { app: 'daemon-demo' } }, spec: { containers: [{ name: 'main', image: 'nginx:v1' }] } }, updateStrategy: { type: 'OnDelete' } },
    status: { observedGeneration: 1, currentNumberScheduled: 5, desiredNumberScheduled: 5, numberReady: 5, updatedNumberScheduled: 0, numberAvailable: 5 },
  };
}

/** batchReleaseDemo of control_test.go: batches 1, 3, 100%. */
function batchReleaseDemo(over: { currentBatch?: number; rolloutID?: string; batchPartition?: number | null; noNeedUpdate?: number } = {}): KubeObject {
  return {
    apiVersion: 'rollouts.kruise.io/v1beta1',
    kind: 'BatchRelease',
    metadata: { name: 'release-demo', namespace: 'default', uid: '606132e0-85ef-460e-8a04-438496a92951' },
    spec: {
      workloadRef: { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'daemon-demo' },
      releasePlan: {
        batches: [{ canaryReplicas: 1 }, { canaryReplicas: 3 }, { canaryReplicas: '100%' }],
        ...(over.rolloutID ? { rolloutID: over.rolloutID } : {}),
        ...(over.batchPartition !== undefined && over.batchPartition !== null ? { batchPartition: over.batchPartition } : {}),
      },
    },
    status: { canaryStatus: { currentBatch: over.currentBatch ?? 0, ...(over.noNeedUpdate !== undefined ? { noNeedUpdateReplicas: over.noNeedUpdate } : {}) }, updateRevision: 'update-revision-123' },
  };
}

describe(`which pods the native-daemonset-controller deletes (${UTIL}, ${CTRL})`, () => {
  // TestCalculateDesiredUpdatedReplicas: [name, partition, total, expected (undefined: error)]
  const desiredRows: Array<[string, string, number, number | undefined]> = [
    ['valid partition - normal case', '2', 5, 3],
    ['zero partition', '0', 5, 5],
    ['partition equals total', '5', 5, 0],
    ['partition greater than total', '10', 5, 0],
    ['negative partition', '-1', 5, 6],
    ['large partition value', '1000', 10, 0],
    ['zero total pods', '0', 0, 0],
    ['zero total pods with partition', '5', 0, 0],
    ['invalid partition string - alphabetic', 'abc', 5, undefined],
    ['invalid partition string - empty', '', 5, undefined],
    ['invalid partition string - mixed characters', '2abc', 5, 3],
    ['partition with spaces', ' 3 ', 8, 5],
    ['float partition value', '2.5', 7, 5],
    ['hex format partition', '0x5', 10, 10],
    ['very large negative partition', '-999999', 5, 1000004],
    ['special characters', '@#$', 5, undefined],
    ['single character number', '7', 10, 3],
  ];
  for (const [name, partition, total, expected] of desiredRows) {
    it(`TestCalculateDesiredUpdatedReplicas row "${name}"`, () => assert.equal(desiredUpdatedReplicas(partition, total), expected));
  }

  // TestGetMaxUnavailable: [name, strategy type, maxUnavailable (absent: undefined), desiredNumberScheduled, expected]
  const maxRows: Array<[string, string, number | string | undefined, number, number]> = [
    ['default value when no rolling update config', 'RollingUpdate', undefined, 5, 1],
    ['integer maxUnavailable value', 'RollingUpdate', 3, 10, 3],
    ['percentage maxUnavailable - 50%', 'RollingUpdate', '50%', 10, 5],
    ['percentage maxUnavailable - 25%', 'RollingUpdate', '25%', 8, 2],
    ['percentage maxUnavailable - 100%', 'RollingUpdate', '100%', 4, 4],
    ['invalid percentage - fallback to default', 'RollingUpdate', 'invalid%', 10, 1],
    ['zero maxUnavailable - fallback to default', 'RollingUpdate', 0, 10, 1],
    ['negative maxUnavailable - fallback to default', 'RollingUpdate', -1, 10, 1],
    ['OnDelete strategy - fallback to default', 'OnDelete', undefined, 10, 1],
    ['zero desired number scheduled', 'RollingUpdate', '50%', 0, 1],
    ['percentage with odd number - rounding', 'RollingUpdate', '33%', 7, 2],
    ['large integer maxUnavailable', 'RollingUpdate', 1000, 5, 1000],
    ['single replica with percentage', 'RollingUpdate', '50%', 1, 1],
    ['empty percentage string - invalid', 'RollingUpdate', '', 10, 1],
  ];
  for (const [name, type, maxUnavailable, desired, expected] of maxRows) {
    it(`TestGetMaxUnavailable row "${name}"`, () => {
      const ds: KubeObject = { metadata: { name: 'd' }, spec: { updateStrategy: { type, ...(maxUnavailable !== undefined ? { rollingUpdate: { maxUnavailable } } : {}) } }, status: { desiredNumberScheduled: desired } };
      assert.equal(nativeDaemonSetMaxUnavailable(ds), expected);
    });
  }

  // TestSortPodsForDeletion
  const sortRows: Array<[string, PodSpec[], string[]]> = [
    ['pending pods first', [{ name: 'pod-running', age: 1 }, { name: 'pod-pending', phase: 'Pending', ready: false, age: 2 }, { name: 'pod-running2', age: 3 }], ['pod-pending', 'pod-running', 'pod-running2']],
    ['not ready pods before ready pods', [{ name: 'pod-ready', age: 1 }, { name: 'pod-not-ready', ready: false, age: 2 }, { name: 'pod-unknown', ready: false, age: 3 }], ['pod-not-ready', 'pod-unknown', 'pod-ready']],
    ['low deletion cost pods first', [{ name: 'pod-low-cost', cost: '10', age: 1 }, { name: 'pod-high-cost', cost: '100', age: 2 }, { name: 'pod-no-cost', age: 3 }], ['pod-no-cost', 'pod-low-cost', 'pod-high-cost']],
    ['newer pods before older pods (same readiness and cost)', [{ name: 'pod-old', age: 3 }, { name: 'pod-new', age: 1 }, { name: 'pod-middle', age: 2 }], ['pod-new', 'pod-middle', 'pod-old']],
    [
      'complex priority ordering',
      [{ name: 'pod-ready-old', age: 5 }, { name: 'pod-pending-new', phase: 'Pending', ready: false, age: 1 }, { name: 'pod-not-ready-middle', ready: false, age: 3 }, { name: 'pod-high-cost-ready', cost: '200', age: 4 }, { name: 'pod-ready-new', age: 2 }],
      ['pod-pending-new', 'pod-not-ready-middle', 'pod-ready-new', 'pod-ready-old', 'pod-high-cost-ready'],
    ],
  ];
  for (const [name, pods, expected] of sortRows) {
    it(`TestSortPodsForDeletion row "${name}"`, () => assert.deepEqual(sortPodsForDeletion(pods.map(pod)).map((p) => p.metadata.name), expected));
  }

  // TestAnalyzePods (maxUnavailable 1, revision "test-revision-123"): [name, pods, desired, expected to delete, needToDelete]
  const R = 'test-revision-123';
  const old = 'old-revision';
  const analyzeRows: Array<[string, PodSpec[], number, number, number]> = [
    ['no pods to update', [{ name: 'pod-1', revision: R }, { name: 'pod-2', revision: R }], 2, 0, 0],
    ['need to delete one pod', [{ name: 'pod-1', revision: R }, { name: 'pod-2', revision: old }, { name: 'pod-3', revision: old }], 2, 1, 1],
    ['already have enough updated pods', [{ name: 'pod-1', revision: R }, { name: 'pod-2', revision: R }, { name: 'pod-3', revision: old }], 2, 1, 0],
    ['no revision label on pods', [{ name: 'pod-1' }, { name: 'pod-2' }], 2, 1, 1],
    ['streaming deletion with not-ready updated pods', [{ name: 'pod-1', revision: R, ready: false }, { name: 'pod-2', revision: old }, { name: 'pod-3', revision: old }], 2, 0, 0],
    ['streaming deletion with not-ready old pods', [{ name: 'pod-1', revision: R }, { name: 'pod-2', revision: old, ready: false }, { name: 'pod-3', revision: old }, { name: 'pod-4', revision: old }], 3, 2, 2],
    ['streaming deletion maxUnavailable reached', [{ name: 'pod-1', revision: R, ready: false }, { name: 'pod-2', revision: old }, { name: 'pod-3', revision: old }, { name: 'pod-4', revision: old }], 3, 0, 0],
    ['terminating pods block deletion when maxUnavailable reached', [{ name: 'pod-1', revision: R }, { name: 'pod-2', revision: old, terminating: true }, { name: 'pod-3', revision: old }, { name: 'pod-4', revision: old }], 3, 0, 0],
    ['multiple terminating pods block deletion', [{ name: 'pod-1', revision: R }, { name: 'pod-2', revision: old, terminating: true }, { name: 'pod-3', revision: old, terminating: true }, { name: 'pod-4', revision: old, terminating: true }, { name: 'pod-5', revision: old }], 4, 0, 0],
    ['not ready old pods can be deleted without consuming quota', [{ name: 'pod-1', revision: R }, { name: 'pod-2', revision: old, ready: false }, { name: 'pod-3', revision: old, ready: false }, { name: 'pod-4', revision: old }], 4, 3, 3],
    ['terminating and not-ready pods together', [{ name: 'pod-1', revision: R }, { name: 'pod-2', revision: old, terminating: true }, { name: 'pod-3', revision: old, ready: false }, { name: 'pod-4', revision: old }], 3, 1, 1],
    ['updated not-ready pod blocks ready pod deletion', [{ name: 'pod-1', revision: R, ready: false }, { name: 'pod-2', revision: R }, { name: 'pod-3', revision: old }, { name: 'pod-4', revision: old }], 3, 0, 0],
  ];
  for (const [name, pods, desired, toDelete, need] of analyzeRows) {
    it(`TestAnalyzePods row "${name}"`, () => {
      const res = analyzeNativeDaemonSetPods(pods.map(pod), R, desired, 1);
      // with needToDelete 0 upstream hands back the candidates and processBatch deletes none: none here
      assert.equal(res.pods.length, need === 0 ? 0 : toDelete);
      assert.equal(res.needToDelete, need);
    });
  }

  it(`TestReconcile_WithPartitionAnnotation / TestReconcile_NoPartitionAnnotation (${CTRL}): the annotation's partition and revision decide; none, nothing`, () => {
    const ds = daemonDemo({ 'rollouts.kruise.io/daemonset-advanced-control': daemonSetAdvancedControlValue('1', R) });
    (ds.spec as Record<string, unknown>).updateStrategy = { type: 'OnDelete', rollingUpdate: { maxUnavailable: 1 } };
    const pods = [pod({ name: 'pod-1', revision: old }), pod({ name: 'pod-2', revision: old }), pod({ name: 'pod-3', revision: old })];
    assert.deepEqual(nativeDaemonSetPodsToDelete(ds, pods).pods.length, 1);
    assert.deepEqual(nativeDaemonSetPodsToDelete(daemonDemo(), pods).pods, []);
    const invalid = daemonDemo({ 'rollouts.kruise.io/daemonset-advanced-control': daemonSetAdvancedControlValue('abc', R) });
    assert.deepEqual(nativeDaemonSetPodsToDelete(invalid, pods).pods, [], 'TestReconcile_InvalidPartition: an error, nothing deleted');
  });

  it(`TestDaemonSetAnnotationParsing rows (${CTRL}): absent, empty or not JSON reads as no partition`, () => {
    assert.deepEqual(daemonSetAdvancedControl({ metadata: {} }), { partition: '', batchRevision: '' });
    assert.deepEqual(daemonSetAdvancedControl({ metadata: { annotations: { 'rollouts.kruise.io/daemonset-advanced-control': '' } } }), { partition: '', batchRevision: '' });
    assert.deepEqual(daemonSetAdvancedControl({ metadata: { annotations: { 'rollouts.kruise.io/daemonset-advanced-control': '{"partition":"3","batch-revision":"rev-1"}' } } }), { partition: '3', batchRevision: 'rev-1' });
    assert.deepEqual(daemonSetAdvancedControl({ metadata: { annotations: { 'rollouts.kruise.io/daemonset-advanced-control': '{invalid' } } }), { partition: '', batchRevision: '' });
  });
});

describe(`the batch control (${CONTROL})`, () => {
  it('TestInitialize, TestInitializeWithRollingUpdateStrategy: OnDelete and the control info naming the BatchRelease; TestInitializeAlreadyControlled: nothing', () => {
    const fresh = daemonDemo();
    delete fresh.metadata.annotations!['batchrelease.rollouts.kruise.io/control-info'];
    (fresh.spec as Record<string, unknown>).updateStrategy = { type: 'RollingUpdate' };
    const patched = mergePatch(fresh, control.initialize(fresh, batchReleaseDemo())) as KubeObject;
    assert.equal((patched.spec as { updateStrategy: { type: string } }).updateStrategy.type, 'OnDelete');
    const info = patched.metadata.annotations?.['batchrelease.rollouts.kruise.io/control-info'] ?? '';
    assert.match(info, /release-demo/);
    assert.match(info, /606132e0-85ef-460e-8a04-438496a92951/);
    assert.equal(control.initialize(daemonDemo(), batchReleaseDemo()), undefined);
  });

  const ctxOf = (desiredPartition: number) => ({ currentBatch: 0, replicas: 5, rolloutID: '', updateRevision: 'update-revision-123', plannedUpdatedReplicas: 2, desiredUpdatedReplicas: 2, desiredPartition, currentPartition: 0, updatedReplicas: 0, updatedReadyReplicas: 0 });
  it('TestUpgradeBatchFirstTime, TestUpgradeBatchSamePartition, TestUpgradeBatchDifferentPartition: the advanced-control annotation, written only when its partition differs', () => {
    const first = mergePatch(daemonDemo(), control.upgradeBatch(daemonDemo(), ctxOf(3))) as KubeObject;
    assert.deepEqual(daemonSetAdvancedControl(first), { partition: '3', batchRevision: 'update-revision-123' });
    assert.equal(first.metadata.annotations?.['rollouts.kruise.io/daemonset-advanced-control'], '{"partition":"3","batch-revision":"update-revision-123"}');
    assert.equal(control.upgradeBatch(first, ctxOf(3)), undefined);
    const stale = daemonDemo({ 'rollouts.kruise.io/daemonset-advanced-control': daemonSetAdvancedControlValue('3', 'old-revision') });
    const next = mergePatch(stale, control.upgradeBatch(stale, { ...ctxOf(1), currentBatch: 1 })) as KubeObject;
    assert.deepEqual(daemonSetAdvancedControl(next), { partition: '1', batchRevision: 'update-revision-123' });
  });

  const released = (annotations: Record<string, string> = {}) =>
    daemonDemo({ 'rollouts.kruise.io/daemonset-advanced-control': daemonSetAdvancedControlValue('2', 'update-revision-123'), 'rollouts.kruise.io/daemonset-revision': daemonSetRevisionValue('canary-revision-123', 'stable-revision-123'), ...annotations });
  const annotationsGone = (o: KubeObject) =>
    ['batchrelease.rollouts.kruise.io/control-info', 'rollouts.kruise.io/daemonset-revision', 'rollouts.kruise.io/daemonset-advanced-control', 'rollouts.kruise.io/daemonset-original-update-strategy'].every((a) => o.metadata.annotations?.[a] === undefined);
  const finalRows: Array<[string, Record<string, string>, number | null, string]> = [
    ['TestFinalizeWithBatchPartitionNil', {}, null, 'RollingUpdate'],
    ['TestFinalizeWithOriginalRollingUpdateStrategy', { 'rollouts.kruise.io/daemonset-original-update-strategy': 'RollingUpdate' }, null, 'RollingUpdate'],
    ['TestFinalizeWithOriginalOnDeleteStrategy', { 'rollouts.kruise.io/daemonset-original-update-strategy': 'OnDelete' }, null, 'OnDelete'],
    ['TestFinalizeWithMissingOriginalStrategy', {}, null, 'RollingUpdate'],
    ['TestFinalizeWithBatchPartitionNotNil', {}, 1, 'OnDelete'],
  ];
  for (const [name, annotations, batchPartition, strategy] of finalRows) {
    it(`${name}: every release annotation removed, the update strategy ${batchPartition === null ? 'restored' : 'kept'} (${strategy})`, () => {
      const ds = released(annotations);
      const done = mergePatch(ds, control.finalize(ds, batchReleaseDemo({ batchPartition }))) as KubeObject;
      assert.ok(annotationsGone(done), JSON.stringify(done.metadata.annotations));
      assert.equal((done.spec as { updateStrategy: { type: string } }).updateStrategy.type, strategy);
    });
  }

  it('TestCalculateBatchContext: batch 0 (1 of 5): partition 4, current 0, the BatchRelease\'s update revision; TestCalculateBatchContext_DesiredPartitionZero: the 100% batch, 0', () => {
    const ctx = control.batchContext(daemonDemo(), batchReleaseDemo(), []);
    assert.deepEqual([ctx.currentBatch, ctx.updateRevision, ctx.replicas, ctx.currentPartition, ctx.desiredPartition], [0, 'update-revision-123', 5, 0, 4]);
    assert.equal(control.batchContext(daemonDemo(), batchReleaseDemo({ currentBatch: 2 }), []).desiredPartition, 0);
  });

  it('TestCalculateBatchContextWithRollback / _ComplexScenario: no-need-update pods are left out of the batch', () => {
    // 5 nodes, 2 need no update, batch 0 (1 pod of the 3 others): 5 − 2 − 1 = 2 stay stable
    const ctx = control.batchContext(daemonDemo(), batchReleaseDemo({ noNeedUpdate: 2, rolloutID: 'test-rollout-id' }), []);
    assert.deepEqual([ctx.desiredPartition, ctx.desiredUpdatedReplicas, ctx.plannedUpdatedReplicas], [2, 3, 1]);
  });

  const readyRows: Array<[string, PodSpec[], number]> = [
    ['TestCalculateBatchContextWithPods', [{ name: 'pod-1', revision: 'update-revision-123' }, { name: 'pod-2', revision: 'old-revision' }], 1],
    ['TestCalculateBatchContext_WithPodsBeingDeleted', [{ name: 'pod-1', revision: 'update-revision-123', terminating: true }, { name: 'pod-2', revision: 'update-revision-123' }], 1],
    ['TestCalculateBatchContext_WithNotReadyPods', [{ name: 'pod-1', revision: 'update-revision-123', ready: false }, { name: 'pod-2', revision: 'update-revision-123' }], 1],
    ['TestCalculateBatchContext_WithDifferentRevisionPods', [{ name: 'pod-1', revision: 'different-revision' }], 0],
  ];
  for (const [name, pods, ready] of readyRows) {
    it(`${name}: updated ready pods counted from the pods (the DaemonSet's status has no such count)`, () => {
      assert.equal(control.batchContext(daemonDemo(), batchReleaseDemo({ rolloutID: 'test-rollout-id' }), pods.map(pod)).updatedReadyReplicas, ready);
    });
  }
});

describe(`the Rollout's view: getNativeDaemonSet (${FINDER} TestGetWorkloadForRef)`, () => {
  const nativeDaemonSet = (inProgress: boolean): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'daemonset-demo', namespace: 'default', uid: 'ds-uid', generation: 1, annotations: { 'rollouts.kruise.io/unit-test-anno': 'true', ...(inProgress ? { 'rollouts.kruise.io/in-progressing': 'true' } : {}) }, labels: { 'rollouts.kruise.io/unit-test-label': 'true' } },
    spec: {},
    status: { observedGeneration: 1, desiredNumberScheduled: 5 },
  });
  const revision = (hash: string, number: number): KubeObject => ({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: `daemonset-demo-${hash}`, namespace: 'default', labels: { 'controller-revision-hash': hash }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'daemonset-demo', uid: 'ds-uid', controller: true }] }, revision: number });
  const pick = (w: ReturnType<typeof control.readWorkload>) => ({ replicas: w.replicas, stable: w.stableRevision, canary: w.canaryRevision, hash: w.podTemplateHash, consistent: w.statusConsistent, progressing: w.inRolloutProgressing, rollback: w.inRollback });

  it('row "native daemonset, not in rollout progress": no revisions read', () => {
    assert.deepEqual(pick(control.readWorkload(nativeDaemonSet(false), { controllerRevisions: [revision('rev2hash', 2), revision('rev1hash', 1)] })), { replicas: 5, stable: '', canary: '', hash: '', consistent: true, progressing: false, rollback: false });
  });
  it('row "native daemonset in rollout progress": the newest revision is the canary, the one before the stable', () => {
    assert.deepEqual(pick(control.readWorkload(nativeDaemonSet(true), { controllerRevisions: [revision('rev1hash', 1), revision('rev2hash', 2)] })), { replicas: 5, stable: 'rev1hash', canary: 'rev2hash', hash: 'rev2hash', consistent: true, progressing: true, rollback: false });
  });
  it('row "native daemonset in rollback": one revision is both, which reads as a rollback', () => {
    assert.deepEqual(pick(control.readWorkload(nativeDaemonSet(true), { controllerRevisions: [revision('rev1hash', 1)] })), { replicas: 5, stable: 'rev1hash', canary: 'rev1hash', hash: 'rev1hash', consistent: true, progressing: true, rollback: true });
  });
  it('row "native daemonset not consistent": generation 12 not observed', () => {
    const ds = nativeDaemonSet(true);
    ds.metadata.generation = 12;
    assert.equal(control.readWorkload(ds).statusConsistent, false);
  });
  it('TestPatchDaemonSetRevisionAnnotations rows: written when a revision is new to the annotation, not when it already says so', () => {
    const ds = nativeDaemonSet(true);
    const view = control.readWorkload(ds, { controllerRevisions: [revision('rev1hash', 1), revision('rev2hash', 2)] });
    const patch = control.annotateWorkloadView!(ds, view);
    assert.deepEqual(patch, { metadata: { annotations: { 'rollouts.kruise.io/daemonset-revision': '{"canary-revision":"rev2hash","stable-revision":"rev1hash"}' } } });
    const annotated = mergePatch(ds, patch) as KubeObject;
    assert.equal(control.annotateWorkloadView!(annotated, view), undefined);
    // and the BatchRelease reads the revisions back from it (util.ParseWorkload)
    const parsed = control.parseWorkload!(annotated);
    assert.deepEqual([parsed.updateRevisionName, parsed.stableRevisionName], ['rev2hash', 'rev1hash']);
  });
});

describe(`the workload webhook: handleNativeDaemonSet (${HOOK} TestHandlerNativeDaemonSet)`, () => {
  const daemon = (image: string, over: { annotations?: Record<string, string>; type?: string } = {}): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'echoserver', namespace: 'default', uid: 'ds-uid', ...(over.annotations ? { annotations: over.annotations } : {}) },
    spec: { selector: { matchLabels: { app: 'echoserver' } }, updateStrategy: { type: over.type ?? 'RollingUpdate' }, template: { metadata: { labels: { app: 'echoserver' } }, spec: { containers: [{ name: 'echoserver', image }] } } },
  });
  const hook = { rolloutName: 'rollout-demo', hasTrafficRoutings: false, list: () => [] };
  const hold = (next: KubeObject, old: KubeObject) => control.holdOnRevisionChange(next, old, hook);
  const held = (o: KubeObject | undefined) => o && { strategy: (o.spec as { updateStrategy: { type: string } }).updateStrategy.type, original: o.metadata.annotations?.['rollouts.kruise.io/daemonset-original-update-strategy'], mark: o.metadata.annotations?.['rollouts.kruise.io/in-progressing'] };
  const HELD = { strategy: 'OnDelete', original: 'RollingUpdate', mark: '{"rolloutName":"rollout-demo"}' };

  it('row "native daemonSet image v1->v2, matched rollout" and "with nil annotations": OnDelete, RollingUpdate kept, in-progressing', () => {
    assert.deepEqual(held(hold(daemon('echoserver:v2'), daemon('echoserver:v1'))), HELD);
  });
  it('row "native daemonSet no change, matched rollout": let through', () => assert.equal(hold(daemon('echoserver:v1'), daemon('echoserver:v1')), undefined));
  it('rows on the rollout-id annotation: a new id holds even without a template change, the same id never holds', () => {
    const id = (v: string) => ({ annotations: { 'rollouts.kruise.io/rollout-id': v } });
    assert.deepEqual(held(hold(daemon('echoserver:v1', id('new-id')), daemon('echoserver:v1', id('old-id')))), HELD, 'rolloutID change, no template change');
    assert.equal(hold(daemon('echoserver:v2', id('same-id')), daemon('echoserver:v1', id('same-id'))), undefined, 'rolloutID no change, template change');
    assert.deepEqual(held(hold(daemon('echoserver:v2', id('new-id')), daemon('echoserver:v1', id('old-id')))), HELD, 'rolloutID change, template change');
    assert.deepEqual(held(hold(daemon('echoserver:v1', id('new-rollout-id')), daemon('echoserver:v1'))), HELD, 'empty rolloutID becomes non-empty');
  });
  it('row "native daemonSet with already OnDelete strategy": the original strategy recorded is OnDelete', () => {
    assert.deepEqual(held(hold(daemon('echoserver:v2', { type: 'OnDelete' }), daemon('echoserver:v1', { type: 'OnDelete' }))), { ...HELD, original: 'OnDelete' });
  });
});

describe('getReleaseController (batchrelease_executor.go): the native DaemonSet has a control on master only', () => {
  it('master: the native DaemonSet control, also for a Canary rolling style; v0.6 and v0.4: none (the Rollout reads "Workload Not Found")', () => {
    assert.equal(releaseControlFor('apps/v1', 'DaemonSet', 'Partition', 'master'), control);
    assert.equal(releaseControlFor('apps/v1', 'DaemonSet', 'Canary', 'master'), control);
    assert.equal(releaseControlFor('apps/v1', 'DaemonSet', 'Partition', 'v0.6'), undefined);
    assert.equal(releaseControlFor('apps/v1', 'DaemonSet', 'Partition', 'v0.4'), undefined);
    assert.notEqual(releaseControlFor('apps.kruise.io/v1alpha1', 'DaemonSet', 'Partition', 'v0.6'), undefined, 'the Advanced DaemonSet in every release');
  });
});
