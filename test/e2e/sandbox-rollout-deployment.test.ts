// Kruise Rollout's default release of a Deployment (openkruise/rollouts v0.6.2: partition style, no
// extra workload) in the sandbox, on the real CRDs (kruise-rollout v0.6.2 validates every status write):
// the workload webhook pauses the Deployment on a new image, the BatchRelease hands it to Kruise
// Rollout's deployment controller (paused + Recreate + rollouts.kruise.io/deployment-strategy) and
// raises its partition step by step; at the end the Deployment is the native controller's again.
// Driven only through real kubectl and the API (approval is a status patch).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectl } from '../helpers/cli';
import { waitUntil, type Sandbox } from '../helpers/sandbox';
import { applyRolloutFixtures, approveStep, cond, haveCrds, startWithRolloutCrds, waitReleaseEnded } from './rollout-kruise-helpers';

const RO_PATH = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts/rollout-shop';
const DEP_PATH = '/apis/apps/v1/namespaces/default/deployments/shop';

interface RS {
  metadata: { name: string; labels: Record<string, string> };
  spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } };
  status?: { readyReplicas?: number };
}

describe('sandbox Kruise Rollout: canary of a Deployment by partition (v0.6.2 CRDs)', { skip: !haveCrds('v0.6.2') && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  const rollout = async () => (await sb.api('GET', RO_PATH)).body;
  const deployment = async () => (await sb.api('GET', DEP_PATH)).body;
  /** Pod counts by image, from the ReplicaSets' specs. */
  const sizes = async (): Promise<Record<string, number>> => {
    const items = (await sb.api('GET', '/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dshop')).body.items as RS[];
    const out: Record<string, number> = {};
    for (const rs of items) if (rs.spec.replicas > 0) out[rs.spec.template.spec.containers[0]!.image] = rs.spec.replicas;
    return out;
  };
  const waitStep = (what: string, index: number, state: string, timeoutMs = 20_000) =>
    waitUntil(what, async () => {
      const ro = await rollout();
      return ro.status?.currentStepIndex === index && ro.status?.currentStepState === state ? ro : undefined;
    }, timeoutMs);

  before(async () => {
    sb = await startWithRolloutCrds('v0.6.2');
    await applyRolloutFixtures(sb, ['deployment-shop.yaml', 'sandbox-rollout-shop-deployment.yaml']);
    await waitUntil('10 available', async () => (await deployment()).status?.availableReplicas === 10, 20_000);
    await waitUntil('Rollout Healthy', async () => (await rollout()).status?.phase === 'Healthy', 20_000);
  });
  after(async () => {
    await sb.stop();
  });

  it('image change: the webhook pauses the Deployment and labels the stable hash; step 1 ends StepPaused with 2 pods on the new ReplicaSet', async () => {
    const stableHash = (await sb.api('GET', '/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dshop')).body.items[0].metadata.labels['pod-template-hash'];
    const res = await kubectl(['set', 'image', 'deployment/shop', 'shop=nginx:1.27'], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    const held = await deployment();
    assert.equal(held.spec.paused, true);
    assert.deepEqual(JSON.parse(held.metadata.annotations['rollouts.kruise.io/in-progressing']), { rolloutName: 'rollout-shop' });
    assert.equal(held.metadata.labels['rollouts.kruise.io/stable-revision'], stableHash);

    const ro = await waitStep('step 1 StepPaused', 1, 'StepPaused');
    assert.equal(ro.status.phase, 'Progressing');
    assert.equal(cond(ro, 'Progressing')?.reason, 'InRolling');
    assert.equal(ro.status.canaryStatus.canaryReplicas, 2);
    assert.equal(ro.status.canaryStatus.canaryReadyReplicas, 2);
    assert.equal(ro.status.canaryStatus.stableRevision, stableHash);
    assert.deepEqual(await sizes(), { 'nginx:1.27': 2, 'nginx:1.25': 8 });
    // canaryRevision (ComputeHash of the template) and podTemplateHash are the new ReplicaSet's hash, as on a cluster
    const newRS = ((await sb.api('GET', '/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dshop')).body.items as RS[]).find((rs) => rs.spec.template.spec.containers[0]!.image === 'nginx:1.27')!;
    assert.equal(ro.status.canaryStatus.canaryRevision, newRS.metadata.labels['pod-template-hash']);
    assert.equal(ro.status.canaryStatus.podTemplateHash, newRS.metadata.labels['pod-template-hash']);
    // the Deployment is Kruise Rollout's: paused, Recreate, partition 20% in its strategy annotation
    const d = await deployment();
    assert.equal(d.spec.paused, true);
    assert.equal(d.spec.strategy.type, 'Recreate');
    const strategy = JSON.parse(d.metadata.annotations['rollouts.kruise.io/deployment-strategy']);
    assert.equal(strategy.rollingStyle, 'Partition');
    assert.equal(strategy.partition, '20%');
    assert.deepEqual(strategy.rollingUpdate, { maxSurge: '25%', maxUnavailable: '25%' });
    // the new pods carry the batch labels (util.ListOwnedPods goes through the ReplicaSets)
    const pods = (await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dshop')).body.items as Array<{ metadata: { labels: Record<string, string> } }>;
    assert.equal(pods.filter((p) => p.metadata.labels['rollouts.kruise.io/rollout-batch-id'] === '1').length, 2);
  });

  it('approval (kubectl patch --subresource=status) → 5 pods and a timed pause; then 10, Completed, Healthy, the Deployment handed back', async () => {
    await approveStep(sb, 'rollout-shop');
    const ro2 = await waitStep('step 2 StepPaused', 2, 'StepPaused');
    assert.equal(ro2.status.canaryStatus.canaryReplicas, 5);
    assert.deepEqual(await sizes(), { 'nginx:1.27': 5, 'nginx:1.25': 5 });
    const ro = await waitReleaseEnded('Completed and Healthy', rollout);
    assert.equal(cond(ro, 'Succeeded')?.status, 'True');
    assert.equal(ro.status.canaryStatus.currentStepState, 'Completed');
    const d = await waitUntil('10 updated and available', async () => {
      const x = await deployment();
      return x.status?.updatedReplicas === 10 && x.status?.availableReplicas === 10 && x.status?.replicas === 10 ? x : undefined;
    }, 20_000);
    assert.equal(d.spec.paused ?? false, false);
    assert.equal(d.spec.strategy.type, 'RollingUpdate');
    for (const a of ['rollouts.kruise.io/deployment-strategy', 'batchrelease.rollouts.kruise.io/control-info', 'rollouts.kruise.io/in-progressing']) assert.equal(d.metadata.annotations?.[a], undefined, a);
    assert.deepEqual(await sizes(), { 'nginx:1.27': 10 });
    const status = await kubectl(['rollout', 'status', 'deployment/shop', '--timeout=10s'], sb.kubeconfig);
    assert.equal(status.code, 0, status.stderr);
  });

  it('cancellation: the image put back mid-release → Cancelling → Succeeded=False, all 10 pods on the stable ReplicaSet, the Deployment handed back', async () => {
    let res = await kubectl(['set', 'image', 'deployment/shop', 'shop=nginx:1.28'], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    await waitStep('step 1 StepPaused', 1, 'StepPaused');
    assert.deepEqual(await sizes(), { 'nginx:1.28': 2, 'nginx:1.27': 8 });
    res = await kubectl(['set', 'image', 'deployment/shop', 'shop=nginx:1.27'], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    const ro = await waitReleaseEnded('cancelled and Healthy', rollout);
    assert.equal(cond(ro, 'Succeeded')?.status, 'False');
    assert.equal(ro.status.message, 'Rollout progressing has been cancelled');
    await waitUntil('10 pods back on nginx:1.27', async () => JSON.stringify(await sizes()) === JSON.stringify({ 'nginx:1.27': 10 }), 20_000);
    const d = await waitUntil('available again', async () => {
      const x = await deployment();
      return x.status?.availableReplicas === 10 && x.status?.updatedReplicas === 10 ? x : undefined;
    }, 20_000);
    assert.equal(d.spec.paused ?? false, false);
    assert.equal(d.spec.strategy.type, 'RollingUpdate');
    for (const a of ['rollouts.kruise.io/deployment-strategy', 'batchrelease.rollouts.kruise.io/control-info', 'rollouts.kruise.io/in-progressing']) assert.equal(d.metadata.annotations?.[a], undefined, a);
  });
});
