// Kruise Rollout's nginx Ingress traffic routing (src/kruise/rollout/traffic.ts), ported from
// openkruise/rollouts v0.6.2 pkg/trafficrouting/network/ingress/ingress_test.go (the nginx part of the
// annotations; the test's own mse Lua additions are not nginx's) and lua_configuration/trafficrouting_ingress/nginx.lua.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCanaryIngress, nginxCanaryAnnotations, trafficObjectNames } from '../../../../src/kruise/rollout/traffic';
import { reconcileRollout } from '../../../../src/kruise/rollout/state-machine';
import type { KubeObject } from '../../../../src/kruise/types';
import { loadFixture } from './helpers';

const N = 'nginx.ingress.kubernetes.io';

describe('nginx canary Ingress (ingress.go + nginx.lua)', () => {
  it('TestEnsureRoutes row "ensure routes test1" (ingress_test.go): a header match and a canary-by-cookie match, no traffic: no canary-weight', () => {
    const before = { [`${N}/canary`]: 'true', [`${N}/canary-weight`]: '0' };
    const out = nginxCanaryAnnotations(before, undefined, [{ headers: [{ name: 'user_id', value: '123456' }] }, { headers: [{ name: 'canary-by-cookie', value: 'demo' }] }]);
    assert.deepEqual(out, { [`${N}/canary`]: 'true', [`${N}/canary-by-cookie`]: 'demo', [`${N}/canary-by-header`]: 'user_id', [`${N}/canary-by-header-value`]: '123456' });
  });

  it('TestEnsureRoutes row "ensure routes test2" (ingress_test.go): traffic 40% replaces the matches with canary-weight "40"', () => {
    const before = { [`${N}/canary`]: 'true', [`${N}/canary-by-cookie`]: 'demo', [`${N}/canary-by-header`]: 'user_id', [`${N}/canary-by-header-value`]: '123456' };
    assert.deepEqual(nginxCanaryAnnotations(before, 40, undefined), { [`${N}/canary`]: 'true', [`${N}/canary-weight`]: '40' });
  });

  it('TestEnsureRoutes row "ensure routes test3" (ingress_test.go): a RegularExpression header gives canary-by-header-pattern', () => {
    const out = nginxCanaryAnnotations({ [`${N}/canary`]: 'true' }, undefined, [{ headers: [{ name: 'user_id', value: '123*', type: 'RegularExpression' }] }]);
    assert.deepEqual(out, { [`${N}/canary`]: 'true', [`${N}/canary-by-header`]: 'user_id', [`${N}/canary-by-header-pattern`]: '123*' });
  });

  it('buildCanaryIngress (ingress.go): "<name>-canary", the stable annotations, only the paths to the stable Service, pointed at "<service>-canary"', () => {
    const ingress = loadFixture('sandbox-rollout-web-ingress.yaml').find((o) => o.kind === 'Ingress')!;
    const spec = ingress.spec as { rules: Array<{ host: string; http: { paths: unknown[] } }> };
    spec.rules[0]!.http.paths.push({ path: '/other', pathType: 'Prefix', backend: { service: { name: 'other', port: { number: 80 } } } });
    const canary = buildCanaryIngress(ingress, 'web', 'web-canary', { kind: 'Rollout', name: 'rollout-web', uid: 'u' });
    assert.equal(canary.metadata.name, 'web-canary');
    assert.equal(canary.metadata.annotations?.['kubernetes.io/ingress.class'], 'nginx');
    assert.deepEqual(canary.spec, { rules: [{ host: 'web.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web-canary', port: { number: 80 } } } }] } }] });
  });

  it('trafficObjectNames: the first trafficRouting\'s Service and Ingress and their canary twins', () => {
    const ro = loadFixture('sandbox-rollout-web-ingress.yaml').find((o) => o.kind === 'Rollout')!;
    const canary = (ro.spec as { strategy: { canary: Record<string, unknown> } }).strategy.canary;
    assert.deepEqual(trafficObjectNames(canary), { services: ['web', 'web-canary'], ingresses: ['web', 'web-canary'] });
  });
});

describe('a step without traffic after a step with traffic (rollout_canary.go runCanary → FinalisingTrafficRouting)', () => {
  it('restores the stable Service, then deletes the canary Ingress, then the canary Service, then the step runs', () => {
    const objs = loadFixture('sandbox-rollout-web-ingress.yaml');
    const ro = objs.find((o) => o.kind === 'Rollout')!;
    ro.metadata.generation = 1;
    const svc = objs.find((o) => o.kind === 'Service')!;
    const ing = objs.find((o) => o.kind === 'Ingress')!;
    const cs = loadFixture('sandbox-cloneset-web-10.yaml')[0]!;
    cs.metadata.generation = 2;
    cs.metadata.annotations = { 'rollouts.kruise.io/in-progressing': '{"rolloutName":"rollout-web"}' };
    cs.status = { observedGeneration: 2, replicas: 10, updatedReplicas: 2, updatedReadyReplicas: 2, currentRevision: 'web-6bd8c7d4c9', updateRevision: 'web-88bd5dbfd' };
    const status = { phase: 'Progressing', canaryStatus: { canaryRevision: '88bd5dbfd', podTemplateHash: '88bd5dbfd', stableRevision: '6bd8c7d4c9', canaryReplicas: 2, canaryReadyReplicas: 2, currentStepIndex: 2, currentStepState: 'StepInit', nextStepIndex: -1, finalisingStep: '' }, conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', message: '' }] };
    const pinned = { ...svc, spec: { ...(svc.spec as object), selector: { app: 'web', 'pod-template-hash': '6bd8c7d4c9' } } };
    const canarySvc = { ...svc, metadata: { ...svc.metadata, name: 'web-canary' } };
    const canaryIng = { ...ing, metadata: { ...ing.metadata, name: 'web-canary' } };
    const run = (services: KubeObject[], ingresses: KubeObject[]) =>
      reconcileRollout({ rollout: { ...ro, status }, workload: cs, now: new Date(), traffic: { services: new Map(services.map((o) => [o.metadata.name!, o])), ingresses: new Map(ingresses.map((o) => [o.metadata.name!, o])) } }).writes.filter((w) => w.kind !== 'patchRollout');
    assert.deepEqual(run([pinned, canarySvc], [ing, canaryIng]), [{ kind: 'patchObject', gr: { group: '', resource: 'services' }, name: 'web', patch: { spec: { selector: { 'pod-template-hash': null } } } }]);
    assert.deepEqual(run([svc, canarySvc], [ing, canaryIng]), [{ kind: 'deleteObject', gr: { group: 'networking.k8s.io', resource: 'ingresses' }, name: 'web-canary' }]);
    assert.deepEqual(run([svc, canarySvc], [ing]), [{ kind: 'deleteObject', gr: { group: '', resource: 'services' }, name: 'web-canary' }]);
    assert.deepEqual(run([svc], [ing]), []);
  });
});
