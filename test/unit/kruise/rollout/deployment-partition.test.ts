import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  advancedDeploymentStrategy,
  defaultDeploymentStrategy,
  deploymentRolloutSatisfied,
  newRSNewReplicas,
  newRSReplicasLimit,
  reconcileNewReplicaSet,
  reconcileOldReplicaSets,
  scaleDownLimitForOld,
  type AdvancedDeploymentStrategy,
  type DeploymentLike,
  type ReplicaSetSizes,
} from '../../../../src/kruise/rollout/deployment-partition';
import type { IntOrString } from '../../../../src/kruise/intstr';

const UTIL = 'openkruise/rollouts pkg/controller/deployment/util/deployment_util_test.go';
const ROLLING = 'openkruise/rollouts pkg/controller/deployment/rolling_test.go';

// TestNewRSNewReplicas: [name, old RS replicas, partition, deployment replicas, new RS replicas, maxSurge, expected]
const newReplicasRows: Array<[string, number[], IntOrString, number, number, number, number]> = [
  ['can not scale up - to newRSReplicas', [5], 1, 1, 5, 1, 5],
  ['scale up - to depReplicas', [0], '100%', 6, 2, 10, 6],
  ['scale up - to int-type partition', [8], 4, 10, 2, 10, 4],
  ['scala up without old - to depReplicas', [], 2, 10, 2, 10, 10],
  ['cannot scale due to partition - to newRSReplica', [8], 2, 10, 2, 10, 2],
  ['cannot scale because new replicas grater than partition - to newRSReplica', [5], 2, 10, 5, 10, 5],
];
for (const [name, olds, partition, replicas, newRS, maxSurge, expected] of newReplicasRows) {
  test(`TestNewRSNewReplicas row "${name}" (${UTIL})`, () => {
    const strategy: AdvancedDeploymentStrategy = { rollingUpdate: { maxUnavailable: 1, maxSurge }, partition };
    const all = olds.reduce((n, r) => n + r, 0) + newRS;
    assert.equal(newRSNewReplicas(replicas, all, newRS, strategy), expected);
  });
}

test(`TestNewRSReplicasLimit: integer partitions 0..999 of 100 replicas, percentages 0..100% of 0..999 replicas (${UTIL})`, () => {
  for (let p = 0; p < 1000; p++) assert.equal(newRSReplicasLimit(p, 100), Math.min(p, 100));
  for (let replicas = 0; replicas < 1000; replicas++) {
    for (let percent = 0; percent <= 100; percent++) {
      let expected = Math.ceil((percent * replicas) / 100);
      if (percent !== 100 && replicas > 1) expected = Math.min(expected, replicas - 1);
      assert.equal(newRSReplicasLimit(`${percent}%`, replicas), expected, `${percent}% of ${replicas}`);
    }
  }
});

// TestDeploymentRolloutSatisfied: base generation 2, replicas 10, status {replicas 10, updated 3, observed 2}, partition 3
const satisfiedBase = (): DeploymentLike => ({
  metadata: { generation: 2 },
  spec: { replicas: 10 },
  status: { replicas: 10, updatedReplicas: 3, observedGeneration: 2 },
});
const satisfiedRows: Array<[string, (d: DeploymentLike) => void, boolean]> = [
  ['generation unsatisfied', (d) => (d.status!.observedGeneration = 1), false],
  ['status.replicas greater than replicas', (d) => (d.status!.replicas = 11), false],
  ['status.replicas less than replicas', (d) => (d.status!.replicas = 9), false],
  ['partition greater than new replica set', (d) => (d.status!.updatedReplicas = 2), false],
  ['partition less than new replicas set', (d) => (d.status!.updatedReplicas = 5), true],
];
for (const [name, change, expected] of satisfiedRows) {
  test(`TestDeploymentRolloutSatisfied row "${name}" (${UTIL})`, () => {
    const d = satisfiedBase();
    change(d);
    assert.equal(deploymentRolloutSatisfied(d, 3), expected);
  });
}

// TestScaleDownLimitForOld: deployment 10, old RSes [2,2,2]; [name, new RS replicas, partition, expected]
const limitRows: Array<[string, number, IntOrString, number]> = [
  ['ScaleDownLimit > 0', 5, 5, 1],
  ['ScaleDownLimit = 0', 4, 4, 0],
  ['ScaleDownLimit < 0', 2, 2, -2],
  ['newRS replicas > partition', 5, 2, 1],
  ['newRS replicas < partition', 2, 5, 1],
];
for (const [name, newRS, partition, expected] of limitRows) {
  test(`TestScaleDownLimitForOld row "${name}" (${ROLLING})`, () => {
    assert.equal(scaleDownLimitForOld(6, newRS, 10, partition), expected);
  });
}

const rs = (name: string, replicas: number, available: number, revision: number, created: number): ReplicaSetSizes => ({ name, replicas, available, revision, created });

// TestReconcileNewReplicaSet: [name, old RS replicas, new RS replicas, deployment replicas, partition, maxSurge, expected]
const reconcileNewRows: Array<[string, number[], number, number, IntOrString, IntOrString, number]> = [
  ['limited by partition', [2, 3], 3, 10, 4, 0, 4],
  ['limited by deployment replicas', [2, 3], 3, 10, 10, 0, 5],
  ['surge first', [10], 0, 10, 3, 2, 2],
  ['surge first, but limited by partition', [10], 0, 10, 2, 3, 2],
  ['partition satisfied, no scale', [7], 3, 10, 3, 3, 3],
  ['partition satisfied, no scale even though deployment replicas not reach', [5], 3, 10, 3, 3, 3],
  ['new replica set has been greater than partition, no scale down', [7], 3, 10, 1, 3, 3],
  ['total replicas are more than deployment desired, no scale down', [7], 3, 10, 6, 0, 3],
];
for (const [name, olds, newReplicas, replicas, partition, maxSurge, expected] of reconcileNewRows) {
  test(`TestReconcileNewReplicaSet row "${name}" (${ROLLING})`, () => {
    const all = [...olds.map((r, i) => rs(`rs-${i}`, r, r, i + 1, i)), rs('rs-new', newReplicas, newReplicas, 9, 9)];
    const strategy: AdvancedDeploymentStrategy = { rollingUpdate: { maxSurge }, partition };
    assert.equal(reconcileNewReplicaSet(replicas, all, all[all.length - 1], strategy), expected);
  });
}

// TestReconcileOldReplicaSet: [name, old replicas, new replicas, deployment replicas, old available, new available,
// partition, maxSurge, maxUnavailable, expected total of old replicas]
const reconcileOldRows: Array<[string, number[], number, number, number[], number, IntOrString, IntOrString, IntOrString, number]> = [
  ['scale down: all unavailable, limited by partition', [6, 4], 0, 10, [0, 0], 0, 4, 2, '50%', 6],
  ['scale down: all available, limited by maxUnavailable', [6, 4], 0, 10, [6, 4], 0, 4, 2, '20%', 8],
  ['scale down: scale unavailable first, then scale available, limited by maxUnavailable', [6, 4], 0, 10, [6, 2], 0, 5, 0, '40%', 6],
  ['scale down: scale unavailable first, then scale available, limited by partition', [6, 4], 0, 10, [6, 2], 0, 3, 0, '40%', 7],
  ['no op: newRS replicas more than partition, limited by newRS replicas', [0, 5], 5, 10, [0, 5], 5, 3, 0, '40%', 5],
  ['no op: limited by unavailable newRS', [3, 4], 3, 10, [3, 4], 0, 5, 0, '30%', 7],
  ['scale up oldRS', [3, 0], 3, 10, [3, 0], 3, 3, 0, '30%', 7],
  ['scale down oldRS', [3], 3, 5, [3], 3, '60%', '25%', '25%', 2],
];
for (const [name, olds, newReplicas, replicas, oldAvailable, newAvailable, partition, maxSurge, maxUnavailable, expected] of reconcileOldRows) {
  test(`TestReconcileOldReplicaSet row "${name}" (${ROLLING})`, () => {
    // generateRS gives every ReplicaSet the same (zero) creation time; the names break ties, as in Go.
    const oldSets = olds.map((r, i) => rs(`rs-${i}`, r, oldAvailable[i], 0, 0));
    const strategy: AdvancedDeploymentStrategy = { rollingUpdate: { maxSurge, maxUnavailable }, partition };
    const sizes = reconcileOldReplicaSets(replicas, oldSets, rs('rs-new', newReplicas, newAvailable, 0, 0), strategy);
    const total = oldSets.reduce((n, o) => n + (sizes.get(o.name) ?? o.replicas), 0);
    assert.equal(total, expected);
  });
}

test('SetDefaultDeploymentStrategy (api/v1alpha1/deployment_types.go): 25% defaults, both zero → maxSurge 0 maxUnavailable 1, other styles untouched', () => {
  assert.deepEqual(defaultDeploymentStrategy({ rollingStyle: 'Partition' }).rollingUpdate, { maxUnavailable: '25%' });
  assert.deepEqual(defaultDeploymentStrategy({ rollingStyle: 'Partition', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } }).rollingUpdate, { maxSurge: 0, maxUnavailable: 1 });
  assert.deepEqual(defaultDeploymentStrategy({ rollingStyle: 'Partition', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }).rollingUpdate, { maxSurge: '25%', maxUnavailable: '25%' });
  assert.deepEqual(defaultDeploymentStrategy({ rollingStyle: 'Canary' }), { rollingStyle: 'Canary' });
});

test('controllerFactory.NewController (pkg/controller/deployment/controller.go): only a paused Recreate Deployment with control info and a non-Canary strategy annotation', () => {
  const d = (over: Partial<{ paused: boolean; type: string; control: string; style: string }>): DeploymentLike => ({
    metadata: {
      annotations: {
        'batchrelease.rollouts.kruise.io/control-info': over.control ?? '{"kind":"BatchRelease","name":"web"}',
        'rollouts.kruise.io/deployment-strategy': JSON.stringify({ rollingStyle: over.style ?? 'Partition', partition: 2 }),
      },
    },
    spec: { replicas: 10, paused: over.paused ?? true, strategy: { type: over.type ?? 'Recreate' } },
  });
  assert.deepEqual(advancedDeploymentStrategy(d({})), { rollingStyle: 'Partition', partition: 2 });
  assert.equal(advancedDeploymentStrategy(d({ paused: false })), undefined);
  assert.equal(advancedDeploymentStrategy(d({ type: 'RollingUpdate' })), undefined);
  assert.equal(advancedDeploymentStrategy(d({ control: '' })), undefined);
  assert.equal(advancedDeploymentStrategy(d({ style: 'Canary' })), undefined);
});
