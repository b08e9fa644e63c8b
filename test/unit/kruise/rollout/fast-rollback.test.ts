import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fastRollbackStep, rollsBackInBatches } from '../../../../src/kruise/rollout/fast-rollback';
import { jumpPatch } from '../../../../src/kruise/rollout/patches';
import type { KubeObject } from '../../../../src/kruise/types';
import { jsonPatch } from '../../../../src/lib/json-patch';
import { haveRolloutCrds, loadKind, rolloutSchemaErrors } from './helpers';

const SRC = 'TestRolloutRollbackGetter (openkruise/kruise-tools pkg/internal/polymorphichelpers/steps_test.go)';

type Step = [replicas: string | number, traffic: string];

/** The test's getRollout: a canary and a blue-green Rollout at currentIdx with these steps. */
function rollouts(currentIdx: number, steps: Step[]): KubeObject[] {
  const list = steps.map(([replicas, traffic]) => ({ replicas, ...(traffic ? { traffic } : {}) }));
  return (['canary', 'blueGreen'] as const).map((style) => ({
    apiVersion: 'rollouts.kruise.io/v1beta1',
    kind: 'Rollout',
    metadata: { name: 'r', namespace: 'default' },
    spec: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, strategy: { [style]: { steps: list } } },
    status: { currentStepIndex: currentIdx, [style === 'canary' ? 'canaryStatus' : 'blueGreenStatus']: { currentStepIndex: currentIdx } },
  }) as KubeObject);
}

describe(SRC, () => {
  const rows: Array<{ name: string; current: number; steps: Step[]; target: number; expected?: number; error?: string }> = [
    { name: 'valid rollback to previous step', current: 3, steps: [['10%', ''], ['20%', ''], ['30%', '']], target: 2, expected: 2 },
    { name: 'invalid rollback to same or future step', current: 3, steps: [['10%', ''], ['20%', ''], ['30%', '']], target: 3, error: 'specified step 3 is not a previous step (current step is 3)' },
    { name: 'rollback to previous step with no traffic and most replicas', current: 4, steps: [['10%', ''], ['20%', ''], ['30%', '50%'], ['40%', '50%']], target: -1, expected: 2 },
    { name: 'no previous step with no traffic found', current: 5, steps: [['10%', '10%'], ['20%', '10%'], ['30%', '10%'], ['40%', '10%'], ['50%', '10%']], target: -1, error: 'no previous step with no traffic found' },
    { name: 'already at the first step', current: 1, steps: [['10%', '']], target: 2, error: 'already at the first step' },
    { name: 'current step index out of range', current: 3, steps: [['10%', ''], ['20%', '']], target: 2, error: 'has 2 steps, but current step is too large 3' },
  ];
  for (const row of rows) {
    test(`row "${row.name}" (canary and blue-green)`, () => {
      for (const obj of rollouts(row.current, row.steps)) {
        const got = fastRollbackStep(obj, row.target);
        if (row.error) assert.deepEqual(got, { error: row.error });
        else assert.deepEqual(got, { step: row.expected });
      }
    });
  }
});

test('steps.go findPreviousStepWithNoTrafficAndMostReplicas: a step with "0%" traffic counts as none; counts compare with percents scaled to 100; ties keep the later step', () => {
  assert.deepEqual(fastRollbackStep(rollouts(4, [[5, '0%'], ['50%', '20%'], [5, ''], ['100%', '']])[0]!), { step: 3 });
  assert.deepEqual(fastRollbackStep(rollouts(3, [['30%', ''], ['30%', ''], ['100%', '']])[0]!), { step: 2 });
});

test('fast rollback of the v1beta1 manual-step fixture at step 2: jumpPatch writes nextStepIndex, valid against the v0.6.2 and master CRDs', () => {
  const obj = loadKind('v1beta1-canary-manual-step.yaml', 'Rollout') as KubeObject & { status: Record<string, unknown> & { canaryStatus: Record<string, unknown> } };
  const at2: KubeObject = { ...obj, status: { ...obj.status, currentStepIndex: 2, canaryStatus: { ...obj.status.canaryStatus, currentStepIndex: 2, nextStepIndex: 3 } } } as KubeObject;
  const target = fastRollbackStep(at2);
  assert.deepEqual(target, { step: 1 });
  const r = jumpPatch(at2, 1);
  assert.ok(r.patch);
  assert.deepEqual(r.patch.at(-1), { op: 'add', path: '/status/canaryStatus/nextStepIndex', value: 1 });
  if (haveRolloutCrds) for (const release of ['v0.6.2', 'master']) assert.deepEqual(rolloutSchemaErrors(release, jsonPatch(at2, r.patch) as KubeObject), [], release);
});

describe('IsRollbackInBatchPolicy (openkruise/rollouts v0.6.2 pkg/util/rollout_utils.go): what restoring the template makes the Rollout do', () => {
  const base = (kind: string, annotation?: string, routed = false): KubeObject => ({
    apiVersion: 'rollouts.kruise.io/v1beta1',
    kind: 'Rollout',
    metadata: { name: 'r', namespace: 'default', ...(annotation !== undefined ? { annotations: { 'rollouts.kruise.io/rollback-in-batch': annotation } } : {}) },
    spec: {
      workloadRef: { apiVersion: kind === 'Deployment' ? 'apps/v1' : 'apps.kruise.io/v1alpha1', kind, name: 'web' },
      strategy: { canary: { steps: [{ replicas: 1 }], ...(routed ? { trafficRoutings: [{ service: 'web', ingress: { name: 'web' } }] } : {}) } },
    },
  }) as KubeObject;
  test('annotation "true" on a CloneSet or StatefulSet without traffic routing: in batches', () => {
    assert.equal(rollsBackInBatches(base('CloneSet', 'true')), true);
    assert.equal(rollsBackInBatches(base('StatefulSet', 'true')), true);
  });
  test('no annotation, not "true", traffic routing, or a Deployment: cancelled at once', () => {
    assert.equal(rollsBackInBatches(base('CloneSet')), false);
    assert.equal(rollsBackInBatches(base('CloneSet', 'yes')), false);
    assert.equal(rollsBackInBatches(base('CloneSet', 'true', true)), false);
    assert.equal(rollsBackInBatches(base('Deployment', 'true')), false);
  });
  test('a workload labelled rollouts.kruise.io/workload-type: statefulset counts as a StatefulSet (strings.EqualFold)', () => {
    assert.equal(rollsBackInBatches(base('Deployment', 'true'), { 'rollouts.kruise.io/workload-type': 'statefulset' }), true);
  });
});
