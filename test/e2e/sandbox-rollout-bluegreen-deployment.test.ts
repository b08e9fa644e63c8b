// Kruise Rollout blue-green of a Deployment (openkruise/rollouts v0.6.2 rollout_bluegreen.go +
// batchrelease control/bluegreenstyle/deployment) in the sandbox, on the real v0.6.2 CRDs: the
// Deployment keeps RollingUpdate with maxUnavailable 0 and minReadySeconds MaxReadySeconds, each step
// raises maxSurge, so the new ReplicaSet grows beside the old one; at the end the saved settings come
// back (original-deployment-strategy annotation) and the native controller removes the old pods.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectl } from '../helpers/cli';
import { waitUntil, type Sandbox } from '../helpers/sandbox';
import { applyRolloutFixtures, approveStep, cond, haveCrds, podImages, startWithRolloutCrds, waitReleaseEnded } from './rollout-kruise-helpers';

const RO_PATH = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts/rollout-shop';
const DEP_PATH = '/apis/apps/v1/namespaces/default/deployments/shop';

describe('sandbox Kruise Rollout: blue-green of a Deployment of 10 (v0.6.2 CRDs)', { skip: !haveCrds('v0.6.2') && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  const rollout = async () => (await sb.api('GET', RO_PATH)).body;
  const deployment = async () => (await sb.api('GET', DEP_PATH)).body;
  /** Live pods by image. */
  const images = () => podImages(sb, 'shop');
  const approve = () => approveStep(sb, 'rollout-shop', 'blueGreenStatus');
  const waitStep = (what: string, index: number, timeoutMs = 30_000) =>
    waitUntil(what, async () => {
      const ro = await rollout();
      return ro.status?.currentStepIndex === index && ro.status?.blueGreenStatus?.currentStepState === 'StepPaused' ? ro : undefined;
    }, timeoutMs);

  before(async () => {
    sb = await startWithRolloutCrds('v0.6.2');
    await applyRolloutFixtures(sb, ['deployment-shop.yaml', 'sandbox-rollout-shop-bluegreen.yaml']);
    await waitUntil('10 available', async () => (await deployment()).status?.availableReplicas === 10, 20_000);
    await waitUntil('Rollout Healthy', async () => (await rollout()).status?.phase === 'Healthy', 20_000);
  });
  after(async () => {
    await sb.stop();
  });

  it('new image → step 1: 5 new pods beside the 10 old (15), RollingUpdate maxSurge 50% / maxUnavailable 0, settings saved', async () => {
    const res = await kubectl(['set', 'image', 'deployment/shop', 'shop=nginx:1.27'], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    const ro = await waitStep('step 1 StepPaused', 1);
    assert.equal(ro.status.blueGreenStatus.updatedReplicas, 5);
    assert.equal(ro.status.blueGreenStatus.updatedReadyReplicas, 5);
    assert.deepEqual(await images(), { 'nginx:1.25': 10, 'nginx:1.27': 5 });
    const d = await deployment();
    assert.equal(d.spec.paused ?? false, false);
    assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: '50%', maxUnavailable: 0 } });
    assert.equal(d.spec.minReadySeconds, 2 ** 31 - 2);
    assert.equal(d.spec.progressDeadlineSeconds, 2 ** 31 - 1);
    assert.deepEqual(JSON.parse(d.metadata.annotations['rollouts.kruise.io/original-deployment-strategy']), { maxUnavailable: '25%', maxSurge: '25%', progressDeadlineSeconds: 600 });
  });

  it('approval → step 2: 10 new beside 10 old (20); approval → Completed, only the 10 new pods, the settings back', async () => {
    await approve();
    await waitStep('step 2 StepPaused', 2);
    assert.deepEqual(await images(), { 'nginx:1.25': 10, 'nginx:1.27': 10 });
    await approve();
    const ro = await waitReleaseEnded('Completed and Healthy', rollout);
    assert.equal(cond(ro, 'Succeeded')?.status, 'True');
    // waitAllUpdatedAndReady before the BatchRelease completes: by Completed no old pod is left
    assert.deepEqual(await images(), { 'nginx:1.27': 10 });
    const d = await deployment();
    assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
    assert.equal(d.spec.minReadySeconds ?? 0, 0);
    assert.equal(d.spec.progressDeadlineSeconds, 600);
    for (const a of ['rollouts.kruise.io/original-deployment-strategy', 'batchrelease.rollouts.kruise.io/control-info', 'rollouts.kruise.io/in-progressing']) assert.equal(d.metadata.annotations?.[a], undefined, a);
    const status = await kubectl(['rollout', 'status', 'deployment/shop', '--timeout=20s'], sb.kubeconfig);
    assert.equal(status.code, 0, status.stderr);
  });
});
