import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BLUE_GREEN_FINALISING_STEP as F, blueGreenStatusAsCanary, canaryStatusAsBlueGreen, nextBlueGreenTask } from '../../../../src/kruise/rollout/rollout-bluegreen';
import { reconcileRollout } from '../../../../src/kruise/rollout/state-machine';
import { batchReleasePlanHash } from '../../../../src/kruise/rollout/batch-release';
import type { KubeObject } from '../../../../src/kruise/types';
import { haveRolloutCrds, rolloutSchemaErrors } from './helpers';

const BG_TEST = 'openkruise/rollouts pkg/controller/rollout/rollout_bluegreen_test.go';
const BG_SRC = 'openkruise/rollouts pkg/controller/rollout/rollout_bluegreen.go';

// rolloutDemoBlueGreen of the Go tests, on a CloneSet: steps 50% (pause), 100%, 100%, 100% (60% traffic).
const rollout = (blueGreenStatus: Record<string, unknown>): KubeObject => ({
  apiVersion: 'rollouts.kruise.io/v1beta1',
  kind: 'Rollout',
  metadata: { name: 'rollout-demo', namespace: 'default', uid: 'ro-uid', generation: 1 },
  spec: {
    workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'echoserver' },
    strategy: { blueGreen: { steps: [{ replicas: '50%', pause: {} }, { replicas: '100%', pause: {} }, { replicas: '100%', pause: {} }, { replicas: '100%', traffic: '60%', pause: {} }] } },
  },
  status: {
    observedGeneration: 1,
    phase: 'Progressing',
    currentStepIndex: blueGreenStatus.currentStepIndex,
    currentStepState: blueGreenStatus.currentStepState,
    conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', message: '' }],
    blueGreenStatus: { updatedRevision: '6f8cc56547', podTemplateHash: '', updatedReplicas: 0, updatedReadyReplicas: 0, finalisingStep: '', observedRolloutID: '88bd5dbfd', stableRevision: '7c6b9d5f8', ...blueGreenStatus },
  },
});
const cloneSet = (): KubeObject => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name: 'echoserver', namespace: 'default', uid: 'cs-uid', generation: 2, labels: { app: 'echoserver' }, annotations: { 'rollouts.kruise.io/in-progressing': '{"rolloutName":"rollout-demo"}' } },
  spec: { replicas: 10, updateStrategy: { partition: '100%' }, template: { spec: { containers: [{ name: 'echoserver', image: 'echoserver:v2' }] } } },
  status: { observedGeneration: 2, replicas: 10, updatedReplicas: 0, updatedReadyReplicas: 0, currentRevision: 'echoserver-7c6b9d5f8', updateRevision: 'echoserver-6f8cc56547' },
});

test(`TestBlueGreenRunCanary row "run bluegreen upgrade1" (${BG_TEST}): StepUpgrade of step 1 creates the BatchRelease, BlueGreen style, batchPartition 0`, () => {
  const res = reconcileRollout({ rollout: rollout({ currentStepIndex: 1, nextStepIndex: 2, currentStepState: 'StepUpgrade' }), workload: cloneSet(), now: new Date() });
  const create = res.writes.find((w) => w.kind === 'createBatchRelease');
  assert.ok(create && create.kind === 'createBatchRelease');
  const plan = (create.object.spec as { releasePlan: Record<string, unknown> }).releasePlan;
  assert.deepEqual(plan.batches, [{ canaryReplicas: '50%' }, { canaryReplicas: '100%' }, { canaryReplicas: '100%' }, { canaryReplicas: '100%' }]);
  assert.equal(plan.batchPartition, 0);
  assert.equal(plan.rollingStyle, 'BlueGreen');
  assert.equal(plan.rolloutID, '6f8cc56547');
  // the step stays StepUpgrade until the batch is Ready, under blueGreenStatus
  const s = res.status as unknown as { canaryStatus?: unknown; blueGreenStatus: Record<string, unknown> };
  assert.ok(s, 'the message changes, so a status is written');
  assert.equal(s.canaryStatus, undefined);
  assert.equal(s.blueGreenStatus.currentStepState, 'StepUpgrade');
});

test(`TestBlueGreenRunCanary row "run bluegreen traffic routing" (${BG_TEST}): a Ready batch moves StepUpgrade to StepTrafficRouting with the BatchRelease's counts`, () => {
  const ro = rollout({ currentStepIndex: 1, nextStepIndex: 2, currentStepState: 'StepUpgrade' });
  const first = reconcileRollout({ rollout: ro, workload: cloneSet(), now: new Date() });
  const create = first.writes.find((w) => w.kind === 'createBatchRelease');
  assert.ok(create && create.kind === 'createBatchRelease');
  const br: KubeObject = { ...create.object, metadata: { ...create.object.metadata, generation: 1 } };
  br.status = { observedGeneration: 1, observedReleasePlanHash: batchReleasePlanHash(br), canaryStatus: { currentBatch: 0, batchState: 'Ready', updatedReplicas: 1, updatedReadyReplicas: 1 } };
  const res = reconcileRollout({ rollout: ro, workload: cloneSet(), batchRelease: br, now: new Date() });
  const s = res.status as unknown as { canaryStatus?: unknown; blueGreenStatus: Record<string, unknown> };
  assert.equal(s.canaryStatus, undefined);
  assert.equal(s.blueGreenStatus.currentStepState, 'StepTrafficRouting');
  assert.equal(s.blueGreenStatus.updatedReplicas, 1);
  assert.equal(s.blueGreenStatus.updatedReadyReplicas, 1);
  assert.equal(s.blueGreenStatus.updatedRevision, '6f8cc56547');
});

test(`TestBlueGreenRunCanaryPaused row "paused, last step, 60% weight" (${BG_TEST}) and doCanaryPaused: blue-green waits for a person even on a last 100% step`, () => {
  const res = reconcileRollout({ rollout: rollout({ currentStepIndex: 4, nextStepIndex: -1, currentStepState: 'StepPaused', podTemplateHash: '6f8cc56547' }), workload: cloneSet(), now: new Date() });
  const s = res.status as unknown as { blueGreenStatus: Record<string, unknown>; message: string };
  assert.equal(s.blueGreenStatus.currentStepState, 'StepPaused');
  assert.equal(s.message, 'Rollout is in step(4/4), and you need manually confirm to enter the next step');
});

test(`nextBlueGreenTask (${BG_SRC}): success, rollback and disable/delete orders, then END`, () => {
  const walk = (reason: string) => {
    const out: string[] = [];
    for (let cur = ''; ; ) {
      cur = nextBlueGreenTask(reason, cur);
      out.push(cur);
      if (cur === F.End) return out;
    }
  };
  assert.deepEqual(walk('Success'), [F.RouteTrafficToNew, F.RestoreStableService, F.ResumeWorkload, F.RouteTrafficToStable, F.RemoveCanaryService, F.ReleaseWorkloadControl, F.End]);
  assert.deepEqual(walk('Rollback'), [F.RouteTrafficToStable, F.ResumeWorkload, F.RestoreStableService, F.RemoveCanaryService, F.ReleaseWorkloadControl, F.End]);
  assert.deepEqual(walk('Disabled'), [F.RestoreStableService, F.RouteTrafficToStable, F.RemoveCanaryService, F.ResumeWorkload, F.ReleaseWorkloadControl, F.End]);
  assert.equal(F.RouteTrafficToNew, 'FinalisingStepRouteTrafficToNew'); // api/v1beta1/rollout_types.go spelling
});

test('blueGreenStatus ↔ canaryStatus: the updated* spelling round-trips, and the written status passes the v0.6.2 CRD', { skip: !haveRolloutCrds && 'no ../shared/kruise-rollout-crds' }, () => {
  const ro = rollout({ currentStepIndex: 1, nextStepIndex: 2, currentStepState: 'StepPaused', updatedReplicas: 5, updatedReadyReplicas: 4, podTemplateHash: 'abc' });
  const asCanary = blueGreenStatusAsCanary(ro);
  const sub = (asCanary.status as { canaryStatus: Record<string, unknown> }).canaryStatus;
  assert.equal(sub.canaryReplicas, 5);
  assert.equal(sub.canaryReadyReplicas, 4);
  assert.equal(sub.canaryRevision, '6f8cc56547');
  const back = canaryStatusAsBlueGreen(asCanary.status as never) as unknown as Record<string, unknown>;
  assert.deepEqual(back.blueGreenStatus, (ro.status as Record<string, unknown>).blueGreenStatus);
  assert.deepEqual(rolloutSchemaErrors('v0.6.2', { ...ro, status: back }), []);
});
