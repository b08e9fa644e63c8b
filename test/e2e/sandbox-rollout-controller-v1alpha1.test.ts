// The simulated Kruise Rollout controller on v1alpha1 Rollouts (Kruise Rollout v0.4: the built-in
// --kruise-rollout v0.4 definitions and the real v0.4.4 CRDs, which serve v1alpha1 only): the controller
// works on the stored v1alpha1 object through the v1alpha1↔v1beta1 conversion, writes a status v0.4.4's
// schema accepts (no nextStepIndex/finalisingStep there: it finalises as v0.4.4 doCanaryFinalising does)
// and completes the same canary release of a CloneSet.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { applyRolloutFixtures, approveStep, haveCrds, KRUISE_CRDS, patchImage, ROLLOUT_CRDS } from './rollout-kruise-helpers';
const RO = '/apis/rollouts.kruise.io/v1alpha1/namespaces/default/rollouts/rollout-web-alpha';
const BR = '/apis/rollouts.kruise.io/v1alpha1/namespaces/default/batchreleases/rollout-web-alpha';
const CS = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web';

const SETUPS = [
  { name: 'built-in --kruise-rollout v0.4', args: ['--kruise-rollout', 'v0.4'], skip: false },
  { name: '--crds kruise v1.9.0 --crds kruise-rollout v0.4.4', args: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS('v0.4.4')], skip: !haveCrds('v0.4.4') },
];

for (const setup of SETUPS) {
  describe(`sandbox ${setup.name}: the Rollout controller on a v1alpha1 Rollout`, { skip: setup.skip && 'no ../shared CRDs' }, () => {
    let sb: Sandbox;
    before(async () => {
      sb = await startSandbox({ readyDelay: '50ms', extraArgs: setup.args });
      await applyRolloutFixtures(sb, ['sandbox-cloneset-web-10.yaml', 'sandbox-rollout-web-v1alpha1.yaml']);
    });
    after(async () => {
      await sb.stop();
    });

    it('image change → step 1 paused with 2 pods; approval → step 2 → 5 s → Completed/Healthy, Succeeded=True, 10 updated; the BatchRelease (v1alpha1) is gone', async () => {
      const rollout = async () => (await sb.api('GET', RO)).body;
      await waitUntil('Healthy', async () => (await rollout()).status?.phase === 'Healthy');
      await patchImage(sb, ['cloneset', 'web'], 'nginx:1.26');
      const paused = await waitUntil('step 1 StepPaused', async () => {
        const r = await rollout();
        return r.status?.canaryStatus?.currentStepIndex === 1 && r.status.canaryStatus.currentStepState === 'StepPaused' ? r : undefined;
      }, 20_000);
      assert.equal(paused.apiVersion, 'rollouts.kruise.io/v1alpha1');
      assert.equal(paused.status.canaryStatus.canaryReplicas, 2);
      assert.equal(paused.status.currentStepIndex, undefined, 'v1alpha1 has no top-level step mirrors');
      assert.equal(paused.status.canaryStatus.nextStepIndex, undefined, 'v0.4.4 has no nextStepIndex');
      assert.equal(paused.status.canaryStatus.finalisingStep, undefined, 'nor finalisingStep');
      const br = (await sb.api('GET', BR)).body;
      assert.equal(br.spec.targetReference.workloadRef.name, 'web');
      assert.equal(br.metadata.ownerReferences[0].apiVersion, 'rollouts.kruise.io/v1alpha1');
      await approveStep(sb, 'rollout-web-alpha');
      const done = await waitUntil('Completed', async () => {
        const r = await rollout();
        return r.status?.phase === 'Healthy' && r.status.conditions?.find((c: { type: string }) => c.type === 'Succeeded')?.status === 'True' ? r : undefined;
      }, 30_000);
      assert.equal(done.status.canaryStatus.currentStepState, 'Completed');
      await waitUntil('10 updated', async () => (await sb.api('GET', CS)).body.status?.updatedReadyReplicas === 10);
      assert.equal((await sb.api('GET', BR)).status, 404);
    });
  });
}
