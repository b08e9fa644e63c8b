// The sandbox's simulated Kruise Rollout controller (openkruise/rollouts v0.6.2 pkg/controller/rollout,
// pkg/controller/batchrelease, pkg/webhook/workload/mutating) on the real CRDs (kruise v1.9.0 +
// kruise-rollout v0.6.2, so every status write is validated against the real schema): a canary
// release of a CloneSet of 10 driven only through real kubectl and the API (approval is a status patch),
// then a cancellation, spec.strategy.paused, spec.disabled, the rollout-id label and a missing workload.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl } from '../helpers/cli';
import { waitUntil, type Sandbox } from '../helpers/sandbox';
import { applyRolloutFixtures, approveStep, cond, haveCrds, patchImage, ROLLOUT_FIXTURES, startWithRolloutCrds, waitReleaseEnded } from './rollout-kruise-helpers';

const skip = !haveCrds('v0.6.2') && 'no ../shared CRDs';
const RO_PATH = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts';
const BR_PATH = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/batchreleases';
const CS_PATH = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets';

describe('sandbox Kruise Rollout controller: canary on a CloneSet (v0.6.2 CRDs)', { skip }, () => {
  let sb: Sandbox;
  const rollout = async (name = 'rollout-web') => (await sb.api('GET', `${RO_PATH}/${name}`)).body;
  const cloneSet = async (name = 'web') => (await sb.api('GET', `${CS_PATH}/${name}`)).body;
  const setImage = (image: string, name = 'web') => patchImage(sb, ['cloneset', name], image);
  const approve = (name = 'rollout-web') => approveStep(sb, name);
  // (the write entering StepPaused still carries the previous message: doCanaryPaused writes its own on the
  // next reconcile, as upstream does, so a test reading the message waits for it too)
  const waitStep = (what: string, index: number, state: string, message?: string, name = 'rollout-web', timeoutMs = 20_000) =>
    waitUntil(
      what,
      async () => {
        const ro = await rollout(name);
        const at = ro.status?.currentStepIndex === index && ro.status?.currentStepState === state && ro.status.canaryStatus?.currentStepState === state;
        return at && (message === undefined || ro.status.message === message) ? ro : undefined;
      },
      timeoutMs,
    );
  const waitHealthy = (what: string, name = 'rollout-web') => waitReleaseEnded(what, () => rollout(name));

  before(async () => {
    sb = await startWithRolloutCrds('v0.6.2');
    await applyRolloutFixtures(sb, ['sandbox-cloneset-web-10.yaml', 'sandbox-rollout-web-v1beta1.yaml']);
  });
  after(async () => {
    await sb.stop();
  });

  it('a new Rollout over a settled CloneSet turns Healthy, its status reading as a completed release (rollout_status.go calculateRolloutStatus)', async () => {
    const ro = await waitUntil('Healthy', async () => {
      const r = await rollout();
      return r.status?.phase === 'Healthy' && r.status.canaryStatus ? r : undefined;
    });
    assert.equal(ro.status.message, 'workload deployment is completed');
    assert.equal(ro.status.currentStepIndex, 3);
    assert.equal(ro.status.currentStepState, 'Completed');
    assert.equal(ro.status.observedGeneration, ro.metadata.generation);
    const cs = await cloneSet();
    assert.equal(ro.status.canaryStatus.stableRevision, cs.status.currentRevision.replace(/^web-/, ''));
    assert.equal(ro.status.canaryStatus.observedWorkloadGeneration, cs.metadata.generation);
    assert.ok(ro.metadata.finalizers.includes('rollouts.kruise.io/rollout'));
  });

  it('acceptance: image change → 2 pods and StepPaused at step 1; approval → step 2 (5 pods); 5 s later step 3; then Completed, Healthy, Succeeded=True, 10 updated, partition handed back', async () => {
    const stable = (await cloneSet()).status.currentRevision as string;
    await setImage('nginx:1.26');
    // the webhook held the new revision at once: nothing rolled before the controller acted
    const held = await cloneSet();
    assert.equal(held.spec.updateStrategy.partition, '100%');
    assert.deepEqual(JSON.parse(held.metadata.annotations['rollouts.kruise.io/in-progressing']), { rolloutName: 'rollout-web' });

    let ro = await waitStep('step 1 StepPaused', 1, 'StepPaused', 'Rollout is in step(1/3), and you need manually confirm to enter the next step');
    assert.equal(ro.status.phase, 'Progressing');
    assert.equal(cond(ro, 'Progressing')?.reason, 'InRolling');
    assert.equal(ro.status.message, 'Rollout is in step(1/3), and you need manually confirm to enter the next step');
    assert.equal(ro.status.canaryStatus.canaryReplicas, 2);
    assert.equal(ro.status.canaryStatus.canaryReadyReplicas, 2);
    assert.equal(ro.status.canaryStatus.nextStepIndex, 2);
    assert.equal(ro.status.canaryStatus.stableRevision, stable.replace(/^web-/, ''));
    let cs = await cloneSet();
    assert.equal(cs.status.updatedReplicas, 2);
    assert.equal(cs.spec.updateStrategy.partition, '80%');
    const br = (await sb.api('GET', `${BR_PATH}/rollout-web`)).body;
    assert.deepEqual(br.spec.releasePlan.batches, [{ canaryReplicas: '20%' }, { canaryReplicas: '50%' }, { canaryReplicas: '100%' }]);
    assert.equal(br.spec.releasePlan.batchPartition, 0);
    assert.equal(br.status.canaryStatus.batchState, 'Ready');
    assert.equal(br.status.canaryStatus.updatedReplicas, 2);
    assert.equal(br.metadata.ownerReferences[0].kind, 'Rollout');
    // updated pods carry the rollout ID (the canary revision: no rollout-id label) and batch 1
    const pods = (await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items as Array<{ metadata: { labels: Record<string, string> } }>;
    const batch1 = pods.filter((p) => p.metadata.labels['rollouts.kruise.io/rollout-batch-id'] === '1');
    assert.equal(batch1.length, 2);
    for (const p of batch1) assert.equal(p.metadata.labels['rollouts.kruise.io/rollout-id'], cs.status.updateRevision.replace(/^web-/, ''));

    // a step without duration waits for a person
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await rollout()).status.currentStepIndex, 1);
    await approve();
    ro = await waitStep('step 2 StepPaused', 2, 'StepPaused', 'Rollout is in step(2/3), and wait duration(5 seconds) to enter the next step');
    // the pause counts from the step's lastUpdateTime (doCanaryPaused); read on the controller's own clock
    const pausedAt = Date.parse(ro.status.canaryStatus.lastUpdateTime);
    assert.equal(ro.status.message, 'Rollout is in step(2/3), and wait duration(5 seconds) to enter the next step');
    assert.equal(ro.status.canaryStatus.canaryReplicas, 5);
    assert.equal((await cloneSet()).status.updatedReplicas, 5);

    // the timed pause moves on by itself
    ro = await waitHealthy('Completed and Healthy');
    const movedOn = Date.parse(ro.status.canaryStatus.lastUpdateTime);
    assert.ok(movedOn - pausedAt >= 5000, `step 2 paused at ${ro.status.canaryStatus.lastUpdateTime}, but the release went on ${movedOn - pausedAt} ms later`);
    assert.equal(cond(ro, 'Succeeded')?.status, 'True');
    assert.equal(cond(ro, 'Progressing')?.status, 'False');
    assert.equal(ro.status.message, 'Rollout progressing has been completed');
    assert.equal(ro.status.canaryStatus.currentStepIndex, 3);
    assert.equal(ro.status.canaryStatus.currentStepState, 'Completed');
    assert.equal(ro.status.canaryStatus.finalisingStep, 'END');
    cs = await waitUntil('10 updated', async () => {
      const c = await cloneSet();
      return c.status.updatedReplicas === 10 && c.status.updatedReadyReplicas === 10 ? c : undefined;
    });
    assert.equal(cs.spec.updateStrategy.partition ?? 0, 0);
    assert.equal(cs.spec.updateStrategy.paused ?? false, false);
    assert.equal(cs.metadata.annotations['rollouts.kruise.io/in-progressing'], undefined);
    assert.equal(cs.metadata.annotations['batchrelease.rollouts.kruise.io/control-info'], undefined);
    assert.equal((await sb.api('GET', `${BR_PATH}/rollout-web`)).status, 404);
  });

  it('cancellation: the template put back to the stable revision mid-release → Cancelling → Succeeded=False, every pod back on the stable revision (isRollingBackDirectly)', async () => {
    const stable = (await cloneSet()).status.currentRevision as string;
    await setImage('nginx:1.27');
    await waitStep('step 1 StepPaused', 1, 'StepPaused');
    await setImage('nginx:1.26');
    const ro = await waitHealthy('cancelled and Healthy');
    assert.equal(cond(ro, 'Succeeded')?.status, 'False');
    assert.equal(ro.status.message, 'Rollout progressing has been cancelled');
    const cs = await waitUntil('every pod on the stable revision', async () => {
      const c = await cloneSet();
      return c.status.updateRevision === stable && c.status.currentRevision === stable && c.status.updatedReadyReplicas === 10 ? c : undefined;
    });
    assert.equal(cs.spec.updateStrategy.partition ?? 0, 0);
    const pods = (await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items as Array<{ metadata: { labels: Record<string, string> } }>;
    assert.deepEqual([...new Set(pods.map((p) => p.metadata.labels['controller-revision-hash']))], [stable]);
  });

  it('spec.strategy.paused: Progressing reason Paused and no progress; resumed, the release goes on (isRolloutPaused)', async () => {
    let res = await kubectl(['patch', 'rollout', 'rollout-web', '--type=merge', '-p', '{"spec":{"strategy":{"paused":true}}}'], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    await setImage('nginx:1.28');
    const ro = await waitUntil('Paused', async () => {
      const r = await rollout();
      return cond(r, 'Progressing')?.reason === 'Paused' ? r : undefined;
    });
    assert.equal(ro.status.message, 'Rollout has been paused, you can resume it by kube-cli');
    assert.equal((await cloneSet()).status.updatedReplicas, 0);
    res = await kubectl(['patch', 'rollout', 'rollout-web', '--type=merge', '-p', '{"spec":{"strategy":{"paused":false}}}'], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    await waitStep('step 1 StepPaused after resume', 1, 'StepPaused');
    assert.equal((await cloneSet()).status.updatedReplicas, 2);
  });

  it('spec.disabled mid-release: Disabling then Disabled, the workload handed back; enabled again: Healthy', async () => {
    let res = await kubectl(['patch', 'rollout', 'rollout-web', '--type=merge', '-p', '{"spec":{"disabled":true}}'], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    const ro = await waitUntil('Disabled', async () => {
      const r = await rollout();
      return r.status?.phase === 'Disabled' ? r : undefined;
    });
    assert.equal(ro.status.message, 'Rollout is disabled');
    const cs = await waitUntil('10 updated', async () => {
      const c = await cloneSet();
      return c.status.updatedReadyReplicas === 10 ? c : undefined;
    });
    assert.equal(cs.metadata.annotations['rollouts.kruise.io/in-progressing'], undefined);
    assert.equal((await sb.api('GET', `${BR_PATH}/rollout-web`)).status, 404);
    // a disabled Rollout does not hold the workload (fetchMatchedRollout skips it)
    await setImage('nginx:1.29');
    assert.equal((await cloneSet()).spec.updateStrategy.partition ?? 0, 0);
    res = await kubectl(['patch', 'rollout', 'rollout-web', '--type=merge', '-p', '{"spec":{"disabled":false}}'], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    await waitUntil('Healthy again', async () => (await rollout()).status?.phase === 'Healthy');
  });

  it('the workload\'s rollout-id label: observedRolloutID and the pods\' rollout-id label follow it', async () => {
    const res = await kubectl(['label', 'cloneset', 'web', 'rollouts.kruise.io/rollout-id=release-7'], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    await setImage('nginx:1.30');
    // (the status still shows the release the Rollout was disabled in until this one initialises)
    const ro = await waitUntil('step 1 StepPaused of release-7', async () => {
      const r = await rollout();
      return r.status?.canaryStatus?.observedRolloutID === 'release-7' && r.status.currentStepIndex === 1 && r.status.currentStepState === 'StepPaused' ? r : undefined;
    });
    assert.equal(ro.status.canaryStatus.canaryReplicas, 2);
    const pods = (await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=rollouts.kruise.io%2Frollout-id%3Drelease-7')).body.items;
    assert.equal(pods.length, 2);
    await approve();
    await waitStep('step 2 StepPaused', 2, 'StepPaused');
    await waitHealthy('Healthy');
  });

  it('a patched nextStepIndex jumps: from step 1 straight to step 3 (doStepJump), then Completed', async () => {
    await setImage('nginx:1.31');
    await waitUntil('step 1 StepPaused of a new release', async () => {
      const r = await rollout();
      return r.status?.canaryStatus?.canaryRevision === (await cloneSet()).status.updateRevision.replace(/^web-/, '') && r.status.currentStepIndex === 1 && r.status.currentStepState === 'StepPaused';
    }, 20_000);
    const res = await kubectl(['patch', 'rollout', 'rollout-web', '--subresource=status', '--type=merge', '-p', '{"status":{"canaryStatus":{"nextStepIndex":3}}}'], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    const ro = await waitHealthy('Completed after the jump');
    assert.equal(cond(ro, 'Succeeded')?.status, 'True');
    assert.equal(ro.status.canaryStatus.currentStepIndex, 3);
    await waitUntil('10 updated', async () => (await cloneSet()).status.updatedReadyReplicas === 10);
  });

  it('kubectl delete rollout mid-release: Terminating, the workload handed back (FinaliseReasonDelete), then the Rollout and its BatchRelease are gone', async () => {
    await setImage('nginx:1.32');
    await waitStep('step 1 StepPaused', 1, 'StepPaused');
    const del = await kubectl(['delete', 'rollout', 'rollout-web', '--timeout=20s'], sb.kubeconfig);
    assert.equal(del.code, 0, del.stderr);
    assert.equal((await sb.api('GET', `${RO_PATH}/rollout-web`)).status, 404);
    const cs = await waitUntil('10 updated', async () => {
      const c = await cloneSet();
      return c.status.updatedReadyReplicas === 10 ? c : undefined;
    });
    assert.equal(cs.spec.updateStrategy.partition ?? 0, 0);
    assert.equal(cs.metadata.annotations['rollouts.kruise.io/in-progressing'], undefined);
    assert.equal((await sb.api('GET', `${BR_PATH}/rollout-web`)).status, 404);
  });

  it('a Rollout of a missing workload: phase Initial, message "Workload Not Found"', async () => {
    const obj = { apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name: 'rollout-ghost', namespace: 'default' }, spec: { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'ghost' }, strategy: { canary: { steps: [{ replicas: '50%' }] } } } };
    const created = await sb.api('POST', RO_PATH, obj);
    assert.equal(created.status, 201, created.text);
    const ro = await waitUntil('Workload Not Found', async () => {
      const r = await rollout('rollout-ghost');
      return r.status?.message === 'Workload Not Found' ? r : undefined;
    });
    assert.equal(ro.status.phase, 'Initial');
    const del = await kubectl(['delete', 'rollout', 'rollout-ghost', '--timeout=10s'], sb.kubeconfig);
    assert.equal(del.code, 0, del.stderr);
  });
});

describe('sandbox Kruise Rollout controller: traffic on an nginx Ingress (v0.6.2 CRDs)', { skip }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startWithRolloutCrds('v0.6.2');
    const res = await kubectl(['apply', '-f', join(ROLLOUT_FIXTURES, 'sandbox-cloneset-web-10.yaml'), '-f', join(ROLLOUT_FIXTURES, 'sandbox-rollout-web-ingress.yaml')], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
  });
  after(async () => {
    await sb.stop();
  });

  it('step 1: canary Service on the canary revision, stable Service pinned, "web-canary" Ingress with canary "true", canary-weight "20" and the header match; completed: all removed', async () => {
    const rollout = async () => (await sb.api('GET', `${RO_PATH}/rollout-web`)).body;
    await waitUntil('Healthy', async () => (await rollout()).status?.phase === 'Healthy');
    await patchImage(sb, ['cloneset', 'web'], 'nginx:1.26');
    const ro = await waitUntil('step 1 StepPaused', async () => {
      const r = await rollout();
      return r.status?.currentStepIndex === 1 && r.status.currentStepState === 'StepPaused' ? r : undefined;
    }, 30_000);
    const cs = (await sb.api('GET', `${CS_PATH}/web`)).body;
    const canaryHash = cs.status.updateRevision.replace(/^web-/, '');
    const stableHash = cs.status.currentRevision.replace(/^web-/, '');
    assert.equal(ro.status.canaryStatus.podTemplateHash, canaryHash);
    const ing = await kubectl(['get', 'ingress', 'web-canary', '-o', 'json'], sb.kubeconfig);
    assert.equal(ing.code, 0, ing.stderr);
    const canary = JSON.parse(ing.stdout);
    assert.equal(canary.metadata.annotations['nginx.ingress.kubernetes.io/canary'], 'true');
    assert.equal(canary.metadata.annotations['nginx.ingress.kubernetes.io/canary-weight'], '20');
    assert.equal(canary.metadata.annotations['nginx.ingress.kubernetes.io/canary-by-header'], 'x-canary');
    assert.equal(canary.metadata.annotations['nginx.ingress.kubernetes.io/canary-by-header-value'], 'yes');
    assert.equal(canary.spec.rules[0].http.paths[0].backend.service.name, 'web-canary');
    const svc = (await sb.api('GET', '/api/v1/namespaces/default/services/web-canary')).body;
    assert.deepEqual(svc.spec.selector, { app: 'web', 'pod-template-hash': canaryHash });
    assert.equal((await sb.api('GET', '/api/v1/namespaces/default/services/web')).body.spec.selector['pod-template-hash'], stableHash);

    await approveStep(sb, 'rollout-web');
    await waitUntil('Completed', async () => {
      const r = await rollout();
      return r.status?.phase === 'Healthy' && cond(r, 'Succeeded')?.status === 'True';
    }, 30_000);
    assert.equal((await sb.api('GET', '/apis/networking.k8s.io/v1/namespaces/default/ingresses/web-canary')).status, 404);
    assert.equal((await sb.api('GET', '/api/v1/namespaces/default/services/web-canary')).status, 404);
    assert.deepEqual((await sb.api('GET', '/api/v1/namespaces/default/services/web')).body.spec.selector, { app: 'web' });
  });
});
