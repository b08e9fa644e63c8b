// Kruise Rollout v1alpha1 (v0.4.4 CRDs: v1alpha1 Rollout and BatchRelease only) on Deployments of 10
// with steps [20% manual, 50% pause 5 s, 100%]: partition style (the rolling-style annotation) and the
// v1alpha1 default for a Deployment, a canary Deployment beside the stable one. Through real kubectl
// and the API: step 1 pauses with 2 new pods, an approval (status patch) releases the rest, and the
// Deployment ends on 10 new pods.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectl } from '../helpers/cli';
import { waitUntil, type Sandbox } from '../helpers/sandbox';
import { applyRolloutFixtures, approveStep, cond, haveCrds, startWithRolloutCrds, waitReleaseEnded } from './rollout-kruise-helpers';

describe('sandbox Kruise Rollout v1alpha1 on Deployments (v0.4.4 CRDs)', { skip: !haveCrds('v0.4.4') && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startWithRolloutCrds('v0.4.4');
  });
  after(async () => {
    await sb.stop();
  });

  for (const [style, name] of [['partition', 'cart'], ['canary', 'cart-canary']] as const) {
    it(`${style === 'partition' ? 'rolling-style partition' : 'no rolling-style (canary Deployment)'}: 2 new pods at step 1, approval → Completed, Succeeded=True, 10 new pods`, async () => {
      const ro = `/apis/rollouts.kruise.io/v1alpha1/namespaces/default/rollouts/rollout-${name}`;
      const rollout = async () => (await sb.api('GET', ro)).body;
      const newPods = async () =>
        ((await sb.api('GET', `/api/v1/namespaces/default/pods?labelSelector=app%3D${name}`)).body.items as Array<{ metadata: { deletionTimestamp?: string }; spec: { containers: Array<{ image: string }> } }>)
          .filter((p) => !p.metadata.deletionTimestamp)
          .map((p) => p.spec.containers[0]!.image);
      await applyRolloutFixtures(sb, [`sandbox-v1alpha1-deployment-${style}.yaml`]);
      await waitUntil('Healthy', async () => (await rollout()).status?.phase === 'Healthy', 20_000);
      const res = await kubectl(['set', 'image', `deployment/${name}`, 'cart=nginx:1.27'], sb.kubeconfig);
      assert.equal(res.code, 0, res.stderr);
      const paused = await waitUntil('step 1 StepPaused', async () => {
        const r = await rollout();
        return r.status?.canaryStatus?.currentStepIndex === 1 && r.status.canaryStatus.currentStepState === 'StepPaused' ? r : undefined;
      }, 30_000);
      assert.equal(paused.status.canaryStatus.canaryReplicas, 2);
      assert.equal((await newPods()).filter((i) => i === 'nginx:1.27').length, 2);
      await approveStep(sb, `rollout-${name}`);
      const done = await waitReleaseEnded('Completed and Healthy', rollout, 40_000);
      assert.equal(cond(done, 'Succeeded')?.status, 'True');
      await waitUntil('10 new pods only', async () => JSON.stringify(await newPods()) === JSON.stringify(Array(10).fill('nginx:1.27')), 30_000);
    });
  }
});
