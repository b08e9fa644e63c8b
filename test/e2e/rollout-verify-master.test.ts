// `rollout verify` (issue #30) on the master Rollout CRDs (rollout-verify.test.ts runs everything on v0.6.2's):
// a healthy canary has every manual step checked and approved; a failing one is rolled back at step 1; an --http
// check through the API server's service proxy (the sandbox's Service annotation sandbox.kubectl-kruise.io/proxy-to
// sends it to this test's exporter) steers a release too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli';
import { haveCrds } from './rollout-kruise-helpers';
import { jsonLines, summary } from './rollout-helpers';
import { RO, startVerifyWorld, type VerifyWorld } from './verify-helpers';

describe('rollout verify on the master Rollout CRDs', { skip: !haveCrds('master') && 'no ../shared CRDs' }, () => {
  let w: VerifyWorld;
  before(async () => {
    w = await startVerifyWorld('master');
  });
  after(() => w?.stop());

  it('healthy canary: both manual steps checked and approved, exit 0, every pod updated', { timeout: 60_000 }, async () => {
    await w.release('nginx:1.26', 0.01);
    const r = await runCli(['rollout', 'verify', 'rollout/rollout-web', ...w.prom(), '--timeout=50s', '-o', 'json'], { kubeconfig: w.sb.kubeconfig, timeoutMs: 55_000 });
    assert.equal(r.code, 0, summary(r));
    const events = jsonLines(r.stdout);
    assert.deepEqual(events.filter((e) => e.event === 'approved').map((e) => e.step), [1, 2]);
    assert.equal(events.filter((e) => e.event === 'measurement' && e.outcome === 'pass').length, 6);
    assert.equal(events.at(-1).result, 'complete');
    const ro = (await w.sb.api('GET', RO)).body;
    assert.equal(JSON.parse(ro.metadata.annotations['verify.kubectl-kruise.io/step-2']).verdict, 'pass');
    await w.allOn('nginx:1.26');
  });

  it('failing canary: step 1 fails, rolled back to the stable image, exit 1 naming the query and values', { timeout: 60_000 }, async () => {
    await w.release('nginx:1.27', 0.3);
    const r = await runCli(['rollout', 'verify', 'rollout/rollout-web', ...w.prom(), '--failure-limit', '1', '--timeout=50s'], { kubeconfig: w.sb.kubeconfig, timeoutMs: 55_000 });
    assert.equal(r.code, 1, summary(r));
    assert.match(r.stderr, /step 1 failed its checks: prometheus-1 \(prometheus max\(app_error_ratio\{pod_template_hash="[a-z0-9]+"\}\)\) fail: 2 of 2 measurements failed \(failureLimit 1\): 0\.3: not result < 0\.05; 0\.3: not result < 0\.05; cloneset\/web rolled back to its stable revision/);
    assert.doesNotMatch(r.stdout, /approved/);
    await w.allOn('nginx:1.26');
    assert.deepEqual(await w.podImages(), { 'nginx:1.26': 10 });
  });

  it('--http through services/NAME:PORT/proxy: the sandbox forwards to the annotated address (503 without it); the check approves each step', { timeout: 60_000 }, async () => {
    const svc = (name: string, annotations?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default', annotations }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } });
    assert.equal((await w.sb.api('POST', '/api/v1/namespaces/default/services', svc('web-health', { 'sandbox.kubectl-kruise.io/proxy-to': w.exporterUrl.slice('http://'.length) }))).status, 201);
    assert.equal((await w.sb.api('POST', '/api/v1/namespaces/default/services', svc('web-plain'))).status, 201);
    const none = await w.sb.api('GET', '/api/v1/namespaces/default/services/web-plain:80/proxy/health');
    assert.deepEqual([none.status, none.body.reason, none.body.message], [503, 'ServiceUnavailable', 'no endpoints available for service "web-plain"']);
    const direct = await w.sb.api('GET', '/api/v1/namespaces/default/services/web-health:80/proxy/health?hash=none');
    assert.deepEqual([direct.status, direct.body], [503, { errorRate: 1 }], 'the backend\'s own answer, status and body');
    await w.release('nginx:1.28', 0.01);
    const url = '/api/v1/namespaces/default/services/web-health:80/proxy/health?hash={{canaryHash}}';
    const r = await runCli(['rollout', 'verify', 'rollout/rollout-web', '--http', url, '--jsonpath', '{.errorRate}', '--condition', 'result < 0.05', '--timeout=50s', '-o', 'json'], { kubeconfig: w.sb.kubeconfig, timeoutMs: 55_000 });
    assert.equal(r.code, 0, summary(r));
    const events = jsonLines(r.stdout);
    assert.deepEqual(events.filter((e) => e.event === 'approved').map((e) => e.step), [1, 2]);
    assert.match(events.find((e) => e.event === 'measurement').message, /^HTTP 200: \{\.errorRate\} = 0\.01: result < 0\.05$/);
    await w.allOn('nginx:1.28');
  });
});
