import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CANARY_DEPLOYMENT_FINALIZER, CANARY_DEPLOYMENT_LABEL, deploymentCanaryControl } from '../../../../src/kruise/rollout/release-control-deployment-canary';
import type { KubeObject } from '../../../../src/kruise/types';

const CONTROL = 'openkruise/rollouts pkg/controller/batchrelease/control/canarystyle/deployment/control_test.go';

const stable = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'echoserver', namespace: 'default', uid: 'dep-uid', generation: 1 },
  spec: { replicas: 10, paused: true, selector: { matchLabels: { app: 'echoserver' } }, template: { metadata: { labels: { app: 'echoserver' } }, spec: { containers: [{ name: 'echoserver', image: 'echoserver:v2' }] } } },
  status: { replicas: 10, updatedReplicas: 0, availableReplicas: 10, observedGeneration: 1 },
});
const release = (): KubeObject => ({
  apiVersion: 'rollouts.kruise.io/v1beta1',
  kind: 'BatchRelease',
  metadata: { name: 'release', namespace: 'default', uid: 'br-uid' },
  spec: { releasePlan: { failureThreshold: '20%', finalizingPolicy: 'WaitResume', batches: [{ canaryReplicas: '20%' }], batchPartition: 0 } },
  status: { canaryStatus: { currentBatch: 0 } },
});

test(`TestCalculateBatchContext row "normal case" (${CONTROL}): desired 20% of 10 = 2, updated and ready read from the canary Deployment (5/5)`, () => {
  const canary: KubeObject = {
    ...stable(),
    metadata: { name: 'echoserver-x', namespace: 'default', uid: 'c-uid', ownerReferences: [{ apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'BatchRelease', name: 'release', uid: 'br-uid', controller: true }] },
    spec: { ...(stable().spec as object), replicas: 5 },
    status: { replicas: 5, updatedReplicas: 5, availableReplicas: 5 },
  };
  const ctx = deploymentCanaryControl.batchContext(stable(), release(), [], { deployments: [stable(), canary] });
  assert.equal(ctx.currentBatch, 0);
  assert.equal(ctx.replicas, 10);
  assert.equal(ctx.updatedReplicas, 5);
  assert.equal(ctx.updatedReadyReplicas, 5);
  assert.equal(ctx.desiredUpdatedReplicas, 2);
  assert.equal(ctx.failureThreshold, '20%');
});

test(`TestRealStableController + TestRealCanaryController (${CONTROL}): Initialize annotates the stable and creates a canary (BatchRelease-owned, finalizer, 0 replicas, same template); UpgradeBatch scales it; Finalize drops the annotation and the finalizer`, () => {
  const br = release();
  const init = deploymentCanaryControl.initialize(stable(), br) as { metadata: { annotations: Record<string, string> } };
  assert.equal(JSON.parse(init.metadata.annotations['batchrelease.rollouts.kruise.io/control-info']!).uid, 'br-uid');
  const [create] = deploymentCanaryControl.sideWrites!('initialize', stable(), br, { deployments: [stable()] });
  assert.ok(create && create.kind === 'create');
  const canary: KubeObject = { ...create.object, metadata: { ...create.object.metadata, uid: 'c-uid' } };
  assert.equal(canary.metadata.ownerReferences?.[0]?.uid, 'br-uid');
  assert.equal(canary.metadata.ownerReferences?.[0]?.controller, true);
  assert.deepEqual(canary.metadata.finalizers, [CANARY_DEPLOYMENT_FINALIZER]);
  assert.equal(canary.metadata.labels?.[CANARY_DEPLOYMENT_LABEL], 'echoserver');
  assert.equal((canary.spec as { replicas: number }).replicas, 0);
  assert.deepEqual((canary.spec as { template: unknown }).template, (stable().spec as { template: unknown }).template);
  // once it exists, Initialize creates no second one
  assert.deepEqual(deploymentCanaryControl.sideWrites!('initialize', stable(), br, { deployments: [stable(), canary] }), []);

  const related = { deployments: [stable(), canary] };
  const ctx = deploymentCanaryControl.batchContext(stable(), br, [], related);
  const [scale] = deploymentCanaryControl.sideWrites!('upgrade', stable(), br, related, ctx);
  assert.deepEqual(scale, { kind: 'patch', resource: { group: 'apps', resource: 'deployments' }, name: canary.metadata.name, patch: { spec: { replicas: ctx.desiredUpdatedReplicas } } });
  assert.equal(deploymentCanaryControl.upgradeBatch(stable(), ctx), undefined, 'the stable Deployment is not touched by a batch');

  const finalBr: KubeObject = { ...br, spec: { releasePlan: { batches: [{ canaryReplicas: '20%' }] } } };
  assert.deepEqual(deploymentCanaryControl.finalize(stable(), finalBr), { metadata: { annotations: { 'batchrelease.rollouts.kruise.io/control-info': null } }, spec: { paused: false } });
  const [release2] = deploymentCanaryControl.sideWrites!('finalize', stable(), finalBr, related);
  assert.deepEqual(release2, { kind: 'patch', resource: { group: 'apps', resource: 'deployments' }, name: canary.metadata.name, patch: { metadata: { finalizers: [] } } });
});
