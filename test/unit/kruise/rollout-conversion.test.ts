// Kruise Rollout's Rollout conversion (openkruise/rollouts api/v1alpha1/conversion.go at v0.6.2,
// Rollout.ConvertTo / Rollout.ConvertFrom and the traffic-routing helpers). Kruise Rollout has no
// unit-test table for it, so each test names the function and the rule it ports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { convertRolloutObject, rolloutV1alpha1ToV1beta1, rolloutV1beta1ToV1alpha1, weightOfTraffic } from '../../../src/kruise/rollout-conversion';
import type { KubeObject } from '../../../src/kruise/types';

const fixture = (name: string): KubeObject => parse(readFileSync(new URL(`../../fixtures/rollout-kruise/${name}`, import.meta.url), 'utf8')) as KubeObject;
const SRC = 'openkruise/rollouts v0.6.2 api/v1alpha1/conversion.go';

test(`Rollout.ConvertTo (${SRC}): objectRef.workloadRef → workloadRef, steps kept, rolling-style "partition" → no extra workload`, () => {
  const alpha = fixture('sandbox-rollout-web-v1alpha1.yaml');
  const before = structuredClone(alpha);
  const beta = rolloutV1alpha1ToV1beta1(alpha);
  assert.equal(beta.apiVersion, 'rollouts.kruise.io/v1beta1');
  assert.deepEqual(beta.spec, {
    workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web' },
    strategy: { canary: { steps: [{ replicas: '20%', pause: {} }, { replicas: '50%', pause: { duration: 5 } }, { replicas: '100%', pause: {} }] } },
  });
  assert.deepEqual(beta.metadata, alpha.metadata, 'ObjectMeta is copied as is');
  assert.deepEqual(alpha, before, 'the input is not mutated');
});

test(`Rollout.ConvertTo (${SRC}): without rolling-style "partition" (any case) enableExtraWorkloadForCanary is true`, () => {
  const alpha = fixture('sandbox-rollout-web-v1alpha1.yaml');
  for (const [style, extra] of [[undefined, true], ['canary', true], ['Partition', undefined], ['PARTITION', undefined]] as const) {
    const a = structuredClone(alpha);
    a.metadata.annotations = style === undefined ? {} : { 'rollouts.kruise.io/rolling-style': style };
    const canary = (rolloutV1alpha1ToV1beta1(a).spec as { strategy: { canary: { enableExtraWorkloadForCanary?: boolean } } }).strategy.canary;
    assert.equal(canary.enableExtraWorkloadForCanary, extra, `rolling-style ${String(style)}`);
  }
});

test(`Rollout.ConvertTo (${SRC}): a step weight becomes traffic "N%" and, without replicas, replicas "N%"; the trafficrouting annotation becomes trafficRoutingRef`, () => {
  const alpha: KubeObject = {
    apiVersion: 'rollouts.kruise.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'shop', annotations: { 'rollouts.kruise.io/trafficrouting': 'shop-routing' } },
    spec: {
      objectRef: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' } },
      strategy: { canary: { steps: [{ weight: 5 }, { weight: 40, replicas: 2, pause: { duration: 30 } }] } },
    },
  };
  const canary = (rolloutV1alpha1ToV1beta1(alpha).spec as { strategy: { canary: Record<string, unknown> } }).strategy.canary;
  assert.deepEqual(canary.steps, [
    { traffic: '5%', replicas: '5%', pause: {} },
    { traffic: '40%', replicas: 2, pause: { duration: 30 } },
  ]);
  assert.equal(canary.trafficRoutingRef, 'shop-routing');
});

test(`Rollout.ConvertTo (${SRC}): status phase, message, conditions and canaryStatus cross over; v1beta1's currentStepIndex/State get Go's zero values`, () => {
  const alpha = fixture('sandbox-rollout-web-v1alpha1.yaml');
  alpha.status = {
    observedGeneration: 2,
    phase: 'Progressing',
    message: 'Rollout is in step(1/3), and wait approve',
    conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', lastTransitionTime: '2026-11-25T01:00:00Z' }],
    canaryStatus: { currentStepIndex: 1, currentStepState: 'StepPaused', canaryReplicas: 2, canaryReadyReplicas: 2, stableRevision: 'a', canaryRevision: 'b', podTemplateHash: 'b', notAField: 1 },
  };
  const status = rolloutV1alpha1ToV1beta1(alpha).status as Record<string, unknown>;
  assert.deepEqual(status, {
    observedGeneration: 2,
    phase: 'Progressing',
    message: 'Rollout is in step(1/3), and wait approve',
    conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', lastTransitionTime: '2026-11-25T01:00:00Z' }],
    canaryStatus: { currentStepIndex: 1, currentStepState: 'StepPaused', canaryReplicas: 2, canaryReadyReplicas: 2, stableRevision: 'a', canaryRevision: 'b', podTemplateHash: 'b' },
    currentStepIndex: 0,
    currentStepState: '',
  });
});

test(`Rollout.ConvertFrom (${SRC}): workloadRef → objectRef.workloadRef, rolling-style annotation written from enableExtraWorkloadForCanary`, () => {
  const beta = fixture('sandbox-rollout-web-v1beta1.yaml');
  const alpha = rolloutV1beta1ToV1alpha1(beta);
  assert.equal(alpha.apiVersion, 'rollouts.kruise.io/v1alpha1');
  assert.deepEqual(alpha.spec, {
    objectRef: { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web' } },
    strategy: { canary: { steps: [{ replicas: '20%', pause: {} }, { replicas: '50%', pause: { duration: 5 } }, { replicas: '100%', pause: {} }] } },
  });
  assert.equal(alpha.metadata.annotations?.['rollouts.kruise.io/rolling-style'], 'partition');
});

test(`Rollout.ConvertFrom + ConversionToV1alpha1TrafficRoutingStrategy/Ref (${SRC}): traffic "N%" → weight N, matches keep headers, trafficRoutings and trafficRoutingRef carried`, () => {
  const alpha = rolloutV1beta1ToV1alpha1(fixture('sandbox-rollout-web-v1beta1-traffic.yaml'));
  assert.equal(alpha.metadata.annotations?.['rollouts.kruise.io/rolling-style'], 'canary');
  assert.equal(alpha.metadata.annotations?.['rollouts.kruise.io/trafficrouting'], 'shop-routing');
  assert.deepEqual(alpha.spec, {
    objectRef: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' } },
    strategy: {
      paused: false,
      canary: {
        failureThreshold: '10%',
        steps: [
          { weight: 5, matches: [{ headers: [{ name: 'user-agent', type: 'Exact', value: 'canary' }] }], replicas: 1, pause: {} },
          { weight: 50, replicas: '50%', pause: { duration: 60 } },
        ],
        trafficRoutings: [{ service: 'shop', gracePeriodSeconds: 3, ingress: { classType: 'nginx', name: 'shop' } }],
      },
    },
  });
});

test(`Rollout.ConvertFrom (${SRC}): a blue-green v1beta1 Rollout (not IsCanaryStragegy) keeps only its ObjectMeta in v1alpha1`, () => {
  const beta = fixture('sandbox-rollout-web-v1beta1.yaml');
  (beta.spec as { strategy: Record<string, unknown> }).strategy = { blueGreen: { steps: [{ replicas: '50%' }] } };
  beta.status = { phase: 'Progressing' };
  const alpha = rolloutV1beta1ToV1alpha1(beta);
  assert.deepEqual(alpha.spec, { objectRef: {}, strategy: {} });
  assert.deepEqual(alpha.status, {});
  assert.equal(alpha.metadata.name, 'rollout-web');
});

test(`ConversionToV1alpha1TrafficRoutingStrategy (${SRC}): intstr.GetScaledValueFromIntOrPercent of traffic, an error ignored as weight 0`, () => {
  assert.equal(weightOfTraffic('20%'), 20);
  assert.equal(weightOfTraffic('100%'), 100);
  assert.equal(weightOfTraffic('20'), 0);
});

test(`Rollout round trip v1beta1 → v1alpha1 → v1beta1 (${SRC}): the canary spec comes back the same`, () => {
  for (const name of ['sandbox-rollout-web-v1beta1.yaml', 'sandbox-rollout-web-v1beta1-traffic.yaml']) {
    const beta = fixture(name);
    const back = convertRolloutObject(convertRolloutObject(beta, 'v1alpha1'), 'v1beta1');
    const spec = structuredClone(beta.spec) as { strategy: { canary: { steps: Array<Record<string, unknown>> } } };
    for (const s of spec.strategy.canary.steps) s.pause ??= {};
    // Partition style is the default for v1beta1 and stays implicit; ConvertTo writes only `true`.
    const canary = spec.strategy.canary as Record<string, unknown>;
    if (canary.enableExtraWorkloadForCanary === false) delete canary.enableExtraWorkloadForCanary;
    assert.deepEqual(back.spec, spec, name);
  }
});

test(`BatchRelease.ConvertFrom (${SRC}): workloadRef → targetReference.workloadRef, rolling-style annotation from releasePlan.rollingStyle in lower case, status copied`, () => {
  const beta = fixture('sandbox-batchrelease-web-v1beta1.yaml');
  const alpha = convertRolloutObject(beta, 'v1alpha1');
  assert.equal(alpha.apiVersion, 'rollouts.kruise.io/v1alpha1');
  assert.equal(alpha.metadata.annotations?.['rollouts.kruise.io/rolling-style'], 'partition');
  assert.deepEqual(alpha.metadata.ownerReferences, beta.metadata.ownerReferences);
  assert.deepEqual(alpha.spec, {
    targetReference: { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web' } },
    releasePlan: {
      batchPartition: 0,
      finalizingPolicy: 'Immediate',
      batches: [{ canaryReplicas: '20%' }, { canaryReplicas: '50%' }, { canaryReplicas: '100%' }],
      rollingStyle: 'Partition',
      enableExtraWorkloadForCanary: false,
    },
  });
  assert.deepEqual(alpha.status, beta.status);
});

test(`BatchRelease.ConvertTo (${SRC}): rollingStyle comes from the rolling-style annotation (any case), not from v1alpha1's releasePlan.rollingStyle`, () => {
  const alpha = convertRolloutObject(fixture('sandbox-batchrelease-web-v1beta1.yaml'), 'v1alpha1');
  for (const [annotation, style] of [['partition', 'Partition'], ['CANARY', 'Canary'], ['bluegreen', 'BlueGreen'], ['', undefined]] as const) {
    const a = structuredClone(alpha);
    a.metadata.annotations = { 'rollouts.kruise.io/rolling-style': annotation };
    const plan = (convertRolloutObject(a, 'v1beta1').spec as { releasePlan: { rollingStyle?: string } }).releasePlan;
    assert.equal(plan.rollingStyle, style, `annotation "${annotation}"`);
  }
  const back = convertRolloutObject(alpha, 'v1beta1');
  assert.deepEqual(back.spec, fixture('sandbox-batchrelease-web-v1beta1.yaml').spec, 'round trip');
});

test('convertRolloutObject: TrafficRouting and RolloutHistory (one version) only change apiVersion', () => {
  const tr: KubeObject = { apiVersion: 'rollouts.kruise.io/v1alpha1', kind: 'TrafficRouting', metadata: { name: 't' }, spec: { objectRef: [{ service: 's' }] } };
  assert.deepEqual(convertRolloutObject(tr, 'v1beta1'), { ...tr, apiVersion: 'rollouts.kruise.io/v1beta1' });
});
