// Kruise Rollout's canary of a Deployment with an extra workload (enableExtraWorkloadForCanary: true;
// openkruise/rollouts v0.6.2 batchrelease control/canarystyle) in the sandbox, on the real v0.6.2 CRDs:
// the stable Deployment stays paused on its old pods while a canary Deployment, owned by the
// BatchRelease, runs the new template with each step's replicas; at the end the stable Deployment is
// resumed (the native controller rolls it) and the canary goes with the BatchRelease.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectl } from '../helpers/cli';
import { waitUntil, type Sandbox } from '../helpers/sandbox';
import { applyRolloutFixtures, approveStep, cond, haveCrds, podImages, startWithRolloutCrds, waitReleaseEnded } from './rollout-kruise-helpers';

const RO_PATH = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts/rollout-shop';
const DEPS_PATH = '/apis/apps/v1/namespaces/default/deployments';

interface Dep {
  metadata: { name: string; labels?: Record<string, string>; ownerReferences?: Array<{ kind: string; name: string }>; deletionTimestamp?: string };
  spec: { replicas: number; paused?: boolean; template: { spec: { containers: Array<{ image: string }> } } };
  status?: { replicas?: number; availableReplicas?: number; updatedReplicas?: number };
}

describe('sandbox Kruise Rollout: canary Deployment beside the stable one (enableExtraWorkloadForCanary, v0.6.2 CRDs)', { skip: !haveCrds('v0.6.2') && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  const rollout = async () => (await sb.api('GET', RO_PATH)).body;
  const deployments = async () => (await sb.api('GET', DEPS_PATH)).body.items as Dep[];
  const images = () => podImages(sb, 'shop');

  before(async () => {
    sb = await startWithRolloutCrds('v0.6.2');
    await applyRolloutFixtures(sb, ['deployment-shop.yaml', 'sandbox-rollout-shop-extra-canary.yaml']);
    await waitUntil('10 available', async () => (await deployments()).find((d) => d.metadata.name === 'shop')?.status?.availableReplicas === 10, 20_000);
    await waitUntil('Rollout Healthy', async () => (await rollout()).status?.phase === 'Healthy', 20_000);
  });
  after(async () => {
    await sb.stop();
  });

  it('new image → step 1 StepPaused: a canary Deployment shop-<hash> with 2 new pods, the stable one paused on its 10 old pods', async () => {
    const res = await kubectl(['set', 'image', 'deployment/shop', 'shop=nginx:1.27'], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    const ro = await waitUntil('step 1 StepPaused', async () => {
      const r = await rollout();
      return r.status?.currentStepIndex === 1 && r.status?.currentStepState === 'StepPaused' ? r : undefined;
    }, 30_000);
    assert.equal(ro.status.canaryStatus.canaryReplicas, 2);
    assert.equal(ro.status.canaryStatus.canaryReadyReplicas, 2);
    const all = await deployments();
    const canary = all.find((d) => d.metadata.labels?.['rollouts.kruise.io/canary-deployment'] === 'shop');
    assert.ok(canary, 'a canary Deployment');
    assert.match(canary.metadata.name, /^shop-[a-z0-9]+$/);
    assert.equal(canary.metadata.ownerReferences?.[0]?.kind, 'BatchRelease');
    assert.equal(canary.spec.replicas, 2);
    assert.equal(canary.spec.template.spec.containers[0]!.image, 'nginx:1.27');
    const stable = all.find((d) => d.metadata.name === 'shop')!;
    assert.equal(stable.spec.paused, true);
    assert.deepEqual(await images(), { 'nginx:1.25': 10, 'nginx:1.27': 2 });
  });

  it('approval → the last 100% step, then Completed: the stable Deployment resumed on 10 new pods, the canary gone', async () => {
    await approveStep(sb, 'rollout-shop');
    const ro = await waitReleaseEnded('Completed and Healthy', rollout, 40_000);
    assert.equal(cond(ro, 'Succeeded')?.status, 'True');
    await waitUntil('only the stable Deployment, on 10 new pods', async () => {
      const all = (await deployments()).filter((d) => !d.metadata.deletionTimestamp);
      return all.length === 1 && JSON.stringify(await images()) === JSON.stringify({ 'nginx:1.27': 10 });
    }, 30_000);
    const stable = (await deployments()).find((d) => d.metadata.name === 'shop')!;
    assert.equal(stable.spec.paused ?? false, false);
    assert.equal(stable.status?.updatedReplicas, 10);
  });
});
