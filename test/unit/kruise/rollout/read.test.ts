import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readRollout } from '../../../../src/kruise/rollout/read';
import { loadKind } from './helpers';

const cloneSet = loadKind('cloneset-demo.yaml', 'CloneSet');

test('v1beta1 canary: workloadRef, steps resolved against the CloneSet\'s 5 replicas, manual pause, top-level mirrors', () => {
  const v = readRollout(loadKind('v1beta1-canary-manual-step.yaml', 'Rollout'), cloneSet);
  assert.equal(v.apiVersion, 'v1beta1');
  assert.equal(v.strategy, 'canary');
  assert.deepEqual(v.workloadRef, { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'demo' });
  assert.deepEqual(
    v.steps.map((s) => [s.index, s.replicas, s.canaryReplicas, s.pauseSeconds]),
    [
      [1, 1, 1, undefined],
      [2, '40%', 2, 60],
      [3, '100%', 5, undefined],
    ],
  );
  assert.equal(v.status.currentStepIndex, 1);
  assert.equal(v.status.topCurrentStepIndex, 1);
  assert.equal(v.status.topCurrentStepState, 'StepPaused');
  assert.equal(v.status.nextStepIndex, 2);
  assert.equal(v.status.stableRevision, 'demo-6c4f9b7d8');
  assert.equal(v.status.canaryRevision, 'demo-7b5d6c9f4');
  assert.equal(v.status.progressing?.reason, 'InRolling');
  assert.equal(v.paused, false);
  assert.equal(v.disabled, false);
});

test('v1alpha1 (api/v1alpha1/conversion.go ConvertTo): objectRef.workloadRef, weight → traffic "N%", a step with only a weight releases weight% of the pods, spec.rolloutID kept apart', () => {
  const v = readRollout(loadKind('v1alpha1-canary-manual-step.yaml', 'Rollout'), cloneSet);
  assert.equal(v.apiVersion, 'v1alpha1');
  assert.equal(v.workloadRef?.name, 'demo');
  assert.deepEqual(
    v.steps.map((s) => [s.replicas, s.canaryReplicas, s.traffic]),
    [
      [1, 1, '20%'],
      ['50%', 3, '50%'],
      ['100%', 5, undefined],
    ],
  );
  assert.equal(v.specRolloutID, 'release-42');
  assert.equal(v.rolloutID, undefined); // getRolloutID reads the workload's label only
  assert.equal(v.status.topCurrentStepState, undefined); // v1alpha1 has no mirror at the top
  assert.equal(v.status.nextStepIndex, undefined); // v0.4 status
});

test('v1beta1 blue-green: blueGreenStatus.updatedRevision / updatedReplicas read as the canary side', () => {
  const v = readRollout(loadKind('v1beta1-bluegreen.yaml', 'Rollout'), loadKind('v1beta1-bluegreen.yaml', 'Deployment'));
  assert.equal(v.strategy, 'blueGreen');
  assert.equal(v.subStatusField, 'blueGreenStatus');
  assert.equal(v.status.canaryRevision, '5f8d7c6b9');
  assert.equal(v.status.canaryReplicas, 2);
  assert.equal(v.status.canaryReadyReplicas, 2);
  assert.deepEqual(v.steps.map((s) => [s.canaryReplicas, s.traffic]), [[2, '0%'], [4, '100%']]);
});

test('a v1beta1 Rollout takes its rollout ID from the workload\'s rollouts.kruise.io/rollout-id label (rollout_status.go getRolloutID)', () => {
  const wl = structuredClone(cloneSet);
  wl.metadata.labels = { ...wl.metadata.labels, 'rollouts.kruise.io/rollout-id': 'r-7' };
  assert.equal(readRollout(loadKind('v1beta1-completed.yaml', 'Rollout'), wl).rolloutID, 'r-7');
  assert.equal(readRollout(loadKind('v1beta1-completed.yaml', 'Rollout'), cloneSet).rolloutID, undefined);
});

test('an object that is not a Rollout of a known version is refused with its name', () => {
  assert.throws(() => readRollout({ apiVersion: 'rollouts.kruise.io/v2', kind: 'Rollout', metadata: { name: 'x' } }), /rollout "x": unsupported apiVersion "rollouts.kruise.io\/v2"/);
});

test('a DaemonSet\'s replicas are its nodes, status.desiredNumberScheduled (workloads_utils.go GetReplicas), for a native and an Advanced one alike', () => {
  const rollout = loadKind('master-native-daemonset-released.yaml', 'Rollout');
  const ds = loadKind('master-native-daemonset-released.yaml', 'DaemonSet');
  assert.deepEqual(readRollout(rollout, ds).steps.map((s) => s.canaryReplicas), [2, 4]);
  assert.deepEqual(readRollout(rollout, { ...ds, apiVersion: 'apps.kruise.io/v1alpha1' }).steps.map((s) => s.canaryReplicas), [2, 4]);
});
