import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  deploymentReleaseControl,
  holdDeployment,
  isCurrentMoreThanOrEqualToDesired,
  templateRevisionHash,
} from '../../../../src/kruise/rollout/release-control-deployment';
import { templateHash as sandboxTemplateHash } from '../../../../src/sandbox/controllers/hash';
import { templateWithoutHash } from '../../../../src/sandbox/controllers/deployment';
import type { KubeObject } from '../../../../src/kruise/types';
import { mergePatch } from './helpers';
import type { IntOrString } from '../../../../src/kruise/intstr';

const HANDLER = 'openkruise/rollouts pkg/webhook/workload/mutating/workload_update_handler_test.go';
const CONTROL = 'openkruise/rollouts pkg/controller/batchrelease/control/partitionstyle/deployment/control_test.go';
const UTIL = 'openkruise/rollouts pkg/controller/batchrelease/control/util_test.go';
const IN_PROGRESSING = 'rollouts.kruise.io/in-progressing';
const ROLLOUT_ID = 'rollouts.kruise.io/rollout-id';
const ORIGINAL = 'rollouts.kruise.io/original-deployment-strategy';

// deploymentDemo / rsDemo of the Go test: echoserver:v1, one ReplicaSet of 5 with hash 5b494f7bf.
const deploymentDemo = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'echoserver', namespace: 'default', uid: 'dep-uid', generation: 1, labels: { app: 'echoserver' }, annotations: {} },
  spec: { replicas: 10, selector: { matchLabels: { app: 'echoserver' } }, template: { metadata: { labels: { app: 'echoserver' } }, spec: { containers: [{ name: 'echoserver', image: 'echoserver:v1' }] } } },
});
const rsDemo = (name = 'echoserver-v1', image = 'echoserver:v1'): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name, namespace: 'default', labels: { app: 'echoserver', 'pod-template-hash': '5b494f7bf' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'echoserver', uid: 'dep-uid', controller: true }] },
  spec: { replicas: 5, template: { metadata: { labels: { app: 'echoserver' } }, spec: { containers: [{ name: 'echoserver', image }] } } },
});
const withImage = (d: KubeObject, image: string): KubeObject => mergePatch(d, { spec: { template: { spec: { containers: [{ name: 'echoserver', image }] } } } }) as KubeObject;
const withAnnotations = (d: KubeObject, a: Record<string, string>): KubeObject => mergePatch(d, { metadata: { annotations: a } }) as KubeObject;

interface HandlerRow {
  name: string;
  old: KubeObject;
  next: KubeObject;
  expect: KubeObject;
  rss: KubeObject[];
  traffic?: boolean;
}
const paused = (d: KubeObject) => mergePatch(d, { spec: { paused: true } }) as KubeObject;
const handlerRows: HandlerRow[] = [
  {
    name: 'deployment image v1->v2, matched rollout',
    old: deploymentDemo(),
    next: withImage(deploymentDemo(), 'echoserver:v2'),
    expect: paused(withAnnotations(withImage(deploymentDemo(), 'echoserver:v2'), { [IN_PROGRESSING]: '{"rolloutName":"rollout-demo"}' })),
    rss: [rsDemo()],
  },
  {
    name: 'deployment image v2->v3, matched rollout, but multiple rss',
    old: withImage(deploymentDemo(), 'echoserver:v2'),
    next: withImage(deploymentDemo(), 'echoserver:v3'),
    expect: withImage(deploymentDemo(), 'echoserver:v3'),
    rss: [rsDemo(), rsDemo('echoserver-v2', 'echoserver:v2')],
    traffic: true,
  },
  {
    name: 'set deployment paused = false, matched rollout, in progressing, reject',
    old: paused(withAnnotations(withImage(deploymentDemo(), 'echoserver:v2'), { [IN_PROGRESSING]: '{"rolloutName":"rollout-demo","RolloutDone":false}' })),
    next: withAnnotations(withImage(deploymentDemo(), 'echoserver:v2'), { [IN_PROGRESSING]: '{"rolloutName":"rollout-demo","RolloutDone":false}' }),
    expect: paused(withAnnotations(withImage(deploymentDemo(), 'echoserver:v2'), { [IN_PROGRESSING]: '{"rolloutName":"rollout-demo","RolloutDone":false}' })),
    rss: [rsDemo()],
  },
  {
    name: 'set deployment paused = false, matched rollout, in finalising, allow',
    old: paused(withAnnotations(withImage(deploymentDemo(), 'echoserver:v2'), { [IN_PROGRESSING]: '{"rolloutName":"rollout-demo","RolloutDone":true}' })),
    next: withAnnotations(withImage(deploymentDemo(), 'echoserver:v2'), { [IN_PROGRESSING]: '{"rolloutName":"rollout-demo","RolloutDone":true}' }),
    expect: paused(withAnnotations(withImage(deploymentDemo(), 'echoserver:v2'), { [IN_PROGRESSING]: '{"rolloutName":"rollout-demo","RolloutDone":true}' })),
    rss: [rsDemo()],
  },
  {
    name: 'rolloutId and podTemplateSpec changed',
    old: deploymentDemo(),
    next: withAnnotations(withImage(deploymentDemo(), 'echoserver:v2'), { [ROLLOUT_ID]: 'v2' }),
    expect: paused(withAnnotations(withImage(deploymentDemo(), 'echoserver:v2'), { [ROLLOUT_ID]: 'v2', [IN_PROGRESSING]: '{"rolloutName":"rollout-demo"}' })),
    rss: [rsDemo()],
  },
  {
    name: 'rolloutId change, and podTemplateSpec no change',
    old: deploymentDemo(),
    next: withAnnotations(deploymentDemo(), { [ROLLOUT_ID]: 'v1-alpha1' }),
    expect: paused(withAnnotations(deploymentDemo(), { [ROLLOUT_ID]: 'v1-alpha1', [IN_PROGRESSING]: '{"rolloutName":"rollout-demo"}' })),
    rss: [rsDemo()],
  },
  {
    name: 'rolloutId no change, and podTemplateSpec change',
    old: withAnnotations(deploymentDemo(), { [ROLLOUT_ID]: 'v1' }),
    next: withAnnotations(withImage(deploymentDemo(), 'echoserver:v2'), { [ROLLOUT_ID]: 'v1' }),
    expect: withAnnotations(withImage(deploymentDemo(), 'echoserver:v2'), { [ROLLOUT_ID]: 'v1' }),
    rss: [rsDemo()],
  },
  {
    name: 'bluegreen: normal release',
    old: deploymentDemo(),
    next: withImage(deploymentDemo(), 'echoserver:v2'),
    expect: paused(withAnnotations(withImage(deploymentDemo(), 'echoserver:v2'), { [IN_PROGRESSING]: '{"rolloutName":"rollout-demo"}' })),
    rss: [rsDemo()],
  },
  {
    name: 'bluegreen: rollback',
    old: mergePatch(withAnnotations(withImage(deploymentDemo(), 'echoserver:v2'), { [IN_PROGRESSING]: '{"rolloutName":"rollout-demo"}', [ORIGINAL]: '{"MaxSurge":"25%", "MaxUnavailable":"25%"}' }), { metadata: { labels: { 'rollouts.kruise.io/stable-revision': '5b494f7bf' } } }) as KubeObject,
    next: withAnnotations(deploymentDemo(), { [IN_PROGRESSING]: '{"rolloutName":"rollout-demo"}', [ORIGINAL]: '{"MaxSurge":"25%", "MaxUnavailable":"25%"}' }),
    expect: paused(withAnnotations(deploymentDemo(), { [IN_PROGRESSING]: '{"rolloutName":"rollout-demo"}', [ORIGINAL]: '{"MaxSurge":"25%", "MaxUnavailable":"25%"}' })),
    rss: [rsDemo(), rsDemo('echoserver-v2', 'echoserver:v2')],
  },
  {
    name: 'bluegreen: successive release',
    old: mergePatch(withAnnotations(withImage(deploymentDemo(), 'echoserver:v2'), { [IN_PROGRESSING]: '{"rolloutName":"rollout-demo"}', [ORIGINAL]: '{"MaxSurge":"25%", "MaxUnavailable":"25%"}' }), { metadata: { labels: { 'rollouts.kruise.io/stable-revision': '5b494f7bf' } } }) as KubeObject,
    next: withAnnotations(withImage(deploymentDemo(), 'echoserver:v3'), { [IN_PROGRESSING]: '{"rolloutName":"rollout-demo"}', [ORIGINAL]: '{"MaxSurge":"25%", "MaxUnavailable":"25%"}' }),
    expect: paused(withAnnotations(withImage(deploymentDemo(), 'echoserver:v3'), { [IN_PROGRESSING]: '{"rolloutName":"rollout-demo"}', [ORIGINAL]: '{"MaxSurge":"25%", "MaxUnavailable":"25%"}' })),
    rss: [rsDemo(), rsDemo('echoserver-v2', 'echoserver:v2')],
  },
];
for (const row of handlerRows) {
  test(`TestHandlerDeployment row "${row.name}" (${HANDLER})`, () => {
    const got = holdDeployment(row.next, row.old, 'rollout-demo', row.traffic ?? false, row.rss) ?? row.next;
    // the Go test drops the stable-revision label before comparing; it is checked below
    const labels = { ...(got.metadata.labels ?? {}) };
    delete labels['rollouts.kruise.io/stable-revision'];
    assert.deepEqual({ ...got, metadata: { ...got.metadata, labels } }, row.expect);
  });
}

test(`handleDeployment labels the stable ReplicaSet's pod-template-hash on a new revision (${HANDLER} "deployment image v1->v2, matched rollout")`, () => {
  const got = holdDeployment(withImage(deploymentDemo(), 'echoserver:v2'), deploymentDemo(), 'rollout-demo', false, [rsDemo()]);
  assert.equal(got?.metadata.labels?.['rollouts.kruise.io/stable-revision'], '5b494f7bf');
});

test('handleDeployment (workload_update_handler.go): in a Partition-style release a rollingUpdate written meanwhile moves into the strategy annotation, Recreate and paused are kept', () => {
  const strategy = { rollingStyle: 'Partition', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' }, partition: '20%' };
  const old = mergePatch(deploymentDemo(), {
    metadata: { annotations: { [IN_PROGRESSING]: '{"rolloutName":"r"}', 'rollouts.kruise.io/deployment-strategy': JSON.stringify(strategy) } },
    spec: { paused: true, strategy: { type: 'Recreate' } },
  }) as KubeObject;
  const next = mergePatch(old, { spec: { paused: false, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 0 } } } }) as KubeObject;
  const got = holdDeployment(next, old, 'r', false, [rsDemo()]);
  assert.ok(got);
  assert.deepEqual(got.spec, { ...(old.spec as object), paused: true, strategy: { type: 'Recreate' } });
  assert.deepEqual(JSON.parse(got.metadata.annotations?.['rollouts.kruise.io/deployment-strategy'] ?? ''), { ...strategy, rollingUpdate: { maxSurge: 3, maxUnavailable: 0 } });
});

// TestIsCurrentMoreThanOrEqualToDesired
const moreRows: Array<[IntOrString, IntOrString, boolean]> = [
  [2, 1, true],
  [1, 1, true],
  [1, 2, false],
  ['50%', '20%', true],
  ['20%', '20%', true],
  ['20%', '50%', false],
];
test(`TestIsCurrentMoreThanOrEqualToDesired: integers and percentages compared on a scale of 10,000,000 (${UTIL})`, () => {
  for (const [current, desired, expected] of moreRows) assert.equal(isCurrentMoreThanOrEqualToDesired(current, desired), expected, `${current} >= ${desired}`);
});

// TestCalculateBatchContext (partition style): [name, replicas, strategy partition, status.updatedReplicas, extra updatedReadyReplicas, batch, planned]
const ctxRows: Array<[string, number, IntOrString, number, number, IntOrString, number]> = [
  ['noraml case', 10, '20%', 2, 1, '20%', 2],
  ['partition=90%, replicas=5', 5, '20%', 4, 4, '90%', 4],
];
for (const [name, replicas, partition, updated, updatedReady, batch, planned] of ctxRows) {
  test(`TestCalculateBatchContext row "${name}" (${CONTROL})`, () => {
    const d: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        annotations: {
          'rollouts.kruise.io/deployment-strategy': JSON.stringify({ rollingStyle: 'Partition', rollingUpdate: { maxUnavailable: '20%', maxSurge: '20%' }, partition }),
          'rollouts.kruise.io/deployment-extra-status': JSON.stringify({ updatedReadyReplicas: updatedReady, expectedUpdatedReplicas: planned }),
        },
      },
      spec: { replicas },
      status: { replicas, updatedReplicas: updated },
    };
    const br: KubeObject = {
      apiVersion: 'rollouts.kruise.io/v1beta1',
      kind: 'BatchRelease',
      metadata: {},
      spec: { releasePlan: { failureThreshold: '20%', finalizingPolicy: 'WaitResume', batches: [{ canaryReplicas: batch }] } },
      status: { canaryStatus: { currentBatch: 0 }, updateRevision: 'version-2' },
    };
    const ctx = deploymentReleaseControl.batchContext(d, br, []);
    assert.deepEqual(
      { ...ctx },
      {
        currentBatch: 0,
        replicas,
        rolloutID: '',
        updateRevision: 'version-2',
        plannedUpdatedReplicas: planned,
        desiredUpdatedReplicas: planned,
        desiredPartition: batch,
        currentPartition: partition,
        updatedReplicas: updated,
        updatedReadyReplicas: updatedReady,
        failureThreshold: '20%',
      },
    );
  });
}

test(`TestRealController: Initialize (paused, Recreate, control info, strategy not paused), UpgradeBatch to "50%", Finalize (resumed, RollingUpdate, annotations gone) (${CONTROL})`, () => {
  const br: KubeObject = {
    apiVersion: 'rollouts.kruise.io/v1beta1',
    kind: 'BatchRelease',
    metadata: { name: 'release', namespace: 'default', uid: 'br-uid' },
    spec: { releasePlan: { batchPartition: 1, batches: [{ canaryReplicas: '10%' }, { canaryReplicas: '50%' }, { canaryReplicas: '100%' }] } },
    status: { canaryStatus: { currentBatch: 1 } },
  };
  let d = mergePatch(deploymentDemo(), { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } } }) as KubeObject;
  d = mergePatch(d, deploymentReleaseControl.initialize(d, br)) as KubeObject;
  assert.equal((d.spec as { paused: boolean }).paused, true);
  assert.deepEqual((d.spec as { strategy: unknown }).strategy, { type: 'Recreate' });
  assert.equal(JSON.parse(d.metadata.annotations?.['batchrelease.rollouts.kruise.io/control-info'] ?? '').uid, 'br-uid');
  const strategy = JSON.parse(d.metadata.annotations?.['rollouts.kruise.io/deployment-strategy'] ?? '');
  assert.equal(strategy.paused, undefined);
  assert.deepEqual(strategy.rollingUpdate, { maxSurge: 1, maxUnavailable: 0 });
  assert.equal(deploymentReleaseControl.initialize(d, br), undefined);

  d = mergePatch(d, deploymentReleaseControl.upgradeBatch(d, deploymentReleaseControl.batchContext(d, br, []))) as KubeObject;
  assert.equal(JSON.parse(d.metadata.annotations?.['rollouts.kruise.io/deployment-strategy'] ?? '').partition, '50%');
  assert.equal(deploymentReleaseControl.upgradeBatch(d, deploymentReleaseControl.batchContext(d, br, [])), undefined);

  const finalBr = mergePatch(br, { spec: { releasePlan: { batchPartition: null } } }) as KubeObject;
  d = mergePatch(d, deploymentReleaseControl.finalize(d, finalBr)) as KubeObject;
  for (const a of ['batchrelease.rollouts.kruise.io/control-info', 'rollouts.kruise.io/deployment-strategy', 'rollouts.kruise.io/deployment-extra-status']) assert.equal(d.metadata.annotations?.[a], undefined, a);
  assert.equal((d.spec as { paused: boolean }).paused, false);
  assert.deepEqual((d.spec as { strategy: unknown }).strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
});

test('util.ComputeHash(template, nil) (openkruise/rollouts pkg/util/workloads_utils.go): the canary revision equals the pod-template-hash the Deployment controller gives the new ReplicaSet', () => {
  const template = { metadata: { labels: { app: 'echoserver', 'pod-template-hash': 'old' }, creationTimestamp: null }, spec: { containers: [{ name: 'echoserver', image: 'echoserver:v2', resources: {} }] } };
  assert.equal(templateRevisionHash(template), sandboxTemplateHash(templateWithoutHash(template as never)));
  assert.notEqual(templateRevisionHash(template), templateRevisionHash({ ...template, spec: { containers: [{ name: 'echoserver', image: 'echoserver:v3' }] } }));
});
