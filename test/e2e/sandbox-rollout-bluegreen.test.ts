// Kruise Rollout blue-green (v1beta1 spec.strategy.blueGreen, openkruise/rollouts v0.6.2
// rollout_bluegreen.go + batchrelease control/bluegreenstyle) on a CloneSet in the sandbox, on the
// real CRDs (kruise v1.9.0 + kruise-rollout v0.6.2 validate every write): the new pods come up beside
// the old ones (maxSurge, minReadySeconds MaxReadySeconds so no old pod is removed), the status lives in
// status.blueGreenStatus, and at the end the saved rolling settings come back and the old pods go.
// Driven only through real kubectl and the API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil, type Sandbox } from '../helpers/sandbox';
import { applyRolloutFixtures, approveStep, cond, haveCrds, patchImage, podImages, startWithRolloutCrds, waitReleaseEnded } from './rollout-kruise-helpers';

const RO_PATH = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts/rollout-blue';
const CS_PATH = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/blue';
const MAX_READY_SECONDS = 2 ** 31 - 2;
const skip = !haveCrds('v0.6.2') && 'no ../shared CRDs';

describe('sandbox Kruise Rollout: blue-green on a CloneSet of 4 (v0.6.2 CRDs)', { skip }, () => {
  let sb: Sandbox;
  const rollout = async () => (await sb.api('GET', RO_PATH)).body;
  const cloneSet = async () => (await sb.api('GET', CS_PATH)).body;
  /** Live pods by image. */
  const images = () => podImages(sb, 'blue');
  const waitStep = (what: string, index: number, state: string, timeoutMs = 30_000) =>
    waitUntil(what, async () => {
      const ro = await rollout();
      return ro.status?.currentStepIndex === index && ro.status?.currentStepState === state && ro.status.blueGreenStatus?.currentStepState === state ? ro : undefined;
    }, timeoutMs);

  before(async () => {
    sb = await startWithRolloutCrds('v0.6.2');
    await applyRolloutFixtures(sb, ['sandbox-cloneset-blue-4.yaml', 'sandbox-rollout-blue-bluegreen.yaml']);
    await waitUntil('4 ready', async () => (await cloneSet()).status?.readyReplicas === 4, 20_000);
    await waitUntil('Rollout Healthy', async () => (await rollout()).status?.phase === 'Healthy', 20_000);
  });
  after(async () => {
    await sb.stop();
  });

  it('image change → step 1 StepPaused: 2 new pods beside the 4 old ones (6 pods), status in blueGreenStatus, the CloneSet surging with minReadySeconds MaxReadySeconds', async () => {
    await patchImage(sb, ['cloneset', 'blue'], 'nginx:1.27');
    // the write entering StepPaused still carries the previous message (doCanaryPaused writes its own on
    // the next reconcile, as upstream does): wait for that one too
    const ro = await waitUntil('step 1 StepPaused, its message written', async () => {
      const r = await waitStep('step 1 StepPaused', 1, 'StepPaused');
      return r.status.message === 'Rollout is in step(1/2), and you need manually confirm to enter the next step' ? r : undefined;
    }, 30_000);
    assert.equal(ro.status.phase, 'Progressing');
    assert.equal(ro.status.canaryStatus, undefined);
    assert.equal(ro.status.blueGreenStatus.updatedReplicas, 2);
    assert.equal(ro.status.blueGreenStatus.updatedReadyReplicas, 2);
    assert.equal(ro.status.blueGreenStatus.nextStepIndex, 2);
    assert.equal(ro.status.message, 'Rollout is in step(1/2), and you need manually confirm to enter the next step');
    const cs = await cloneSet();
    assert.equal(ro.status.blueGreenStatus.updatedRevision, cs.status.updateRevision.replace(/^blue-/, ''));
    assert.equal(cs.spec.minReadySeconds, MAX_READY_SECONDS);
    assert.equal(cs.spec.updateStrategy.maxSurge, '50%');
    assert.equal(cs.spec.updateStrategy.maxUnavailable, 0);
    assert.deepEqual(JSON.parse(cs.metadata.annotations['rollouts.kruise.io/original-deployment-strategy']), { maxUnavailable: '25%', maxSurge: 0 }); // Kruise's defaulting wrote maxSurge 0
    assert.deepEqual(await images(), { 'nginx:1.25': 4, 'nginx:1.27': 2 });
  });

  it('cancellation: the template back to the stable image → Cancelling → Succeeded=False; the new pods go, the 4 stable ones stay, the settings come back', async () => {
    const stable = (await cloneSet()).status.currentRevision as string;
    await patchImage(sb, ['cloneset', 'blue'], 'nginx:1.25');
    const ro = await waitReleaseEnded('cancelled and Healthy', rollout);
    assert.equal(cond(ro, 'Succeeded')?.status, 'False');
    assert.equal(ro.status.message, 'Rollout progressing has been cancelled');
    await waitUntil('only the 4 stable pods', async () => JSON.stringify(await images()) === JSON.stringify({ 'nginx:1.25': 4 }), 20_000);
    const cs = await cloneSet();
    assert.equal(cs.status.updateRevision, stable);
    assert.equal(cs.spec.minReadySeconds ?? 0, 0);
    assert.equal(cs.spec.updateStrategy.maxSurge, 0);
    assert.equal(cs.spec.updateStrategy.maxUnavailable, '25%');
    for (const a of ['rollouts.kruise.io/original-deployment-strategy', 'batchrelease.rollouts.kruise.io/control-info', 'rollouts.kruise.io/in-progressing']) assert.equal(cs.metadata.annotations?.[a], undefined, a);
  });
});

describe('sandbox Kruise Rollout: blue-green of a CloneSet of 4 in one 100% step, completed (v0.6.2 CRDs)', { skip }, () => {
  let sb: Sandbox;
  const rollout = async () => (await sb.api('GET', '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts/rollout-green')).body;
  const cloneSet = async () => (await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/green')).body;
  const images = () => podImages(sb, 'green');

  before(async () => {
    sb = await startWithRolloutCrds('v0.6.2');
    await applyRolloutFixtures(sb, ['sandbox-cloneset-green-4.yaml', 'sandbox-rollout-green-bluegreen.yaml']);
    await waitUntil('4 ready', async () => (await cloneSet()).status?.readyReplicas === 4, 20_000);
    await waitUntil('Rollout Healthy', async () => (await rollout()).status?.phase === 'Healthy', 20_000);
  });
  after(async () => {
    await sb.stop();
  });

  it('image change → 4 new pods beside the 4 old (8) while paused; approval → Completed, Succeeded=True, the old pods gone, the settings back', async () => {
    await patchImage(sb, ['cloneset', 'green'], 'nginx:1.27');
    const paused = await waitUntil('step 1 StepPaused', async () => {
      const r = await rollout();
      return r.status?.currentStepIndex === 1 && r.status?.currentStepState === 'StepPaused' ? r : undefined;
    }, 30_000);
    assert.equal(paused.status.blueGreenStatus.updatedReplicas, 4);
    assert.deepEqual(await images(), { 'nginx:1.25': 4, 'nginx:1.27': 4 });
    await approveStep(sb, 'rollout-green', 'blueGreenStatus');
    const ro = await waitReleaseEnded('Completed and Healthy', rollout);
    assert.equal(cond(ro, 'Succeeded')?.status, 'True');
    assert.equal(ro.status.blueGreenStatus.finalisingStep, 'END');
    // bluegreenstyle Finalize waits for every pod updated and ready: by Completed the old pods are gone
    assert.deepEqual(await images(), { 'nginx:1.27': 4 });
    const cs = await cloneSet();
    assert.equal(cs.spec.minReadySeconds ?? 0, 0);
    assert.equal(cs.spec.updateStrategy.maxSurge, 0);
    assert.equal(cs.spec.updateStrategy.maxUnavailable, '25%');
    for (const a of ['rollouts.kruise.io/original-deployment-strategy', 'batchrelease.rollouts.kruise.io/control-info', 'rollouts.kruise.io/in-progressing']) assert.equal(cs.metadata.annotations?.[a], undefined, a);
  });
});
