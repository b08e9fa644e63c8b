// Kruise Rollout's nginx Ingress traffic routing (src/kruise/rollout/traffic.ts), ported from
// openkruise/rollouts v0.6.2 pkg/trafficrouting/network/ingress/ingress_test.go (the nginx part of the
// annotations; the test's own mse Lua additions are not nginx's) and lua_configuration/trafficrouting_ingress/nginx.lua.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCanaryIngress, nginxCanaryAnnotations, trafficObjectNames } from '../../../../src/kruise/rollout/traffic';
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
