// sandbox --tls (HTTPS, bearer tokens, the read-only viewer) and --faults (latency, error
// rates with Retry-After, dropped watches, expired resourceVersions, periodic conflicts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { kubectl, REPO_ROOT } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'sandbox');
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } });

describe('sandbox --tls', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ tls: true, readyDelay: '50ms' });
  });
  after(async () => {
    await sb.stop();
  });

  it('serves HTTPS with a CA and token from the kubeconfig', async () => {
    assert.match(sb.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await kubectl(['apply', '-f', join(FIXTURES, 'cloneset-web.yaml')], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
  });

  it('lets the viewer read but answers its writes with 403 Forbidden', async () => {
    const read = await kubectl(['--context', 'viewer', 'get', 'clonesets'], sb.kubeconfig);
    assert.equal(read.code, 0, read.stderr);
    assert.match(read.stdout, /^web\s/m);
    const write = await kubectl(['--context', 'viewer', 'patch', 'cloneset', 'web', '--type', 'merge', '-p', '{"spec":{"replicas":1}}'], sb.kubeconfig);
    assert.equal(write.code, 1);
    assert.match(write.stderr, /clonesets\.apps\.kruise\.io "web" is forbidden: User "viewer" cannot patch resource "clonesets" in API group "apps\.kruise\.io" in the namespace "default"/);
    const raw = await sb.api('DELETE', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web', undefined, { user: 'viewer' });
    assert.equal(raw.status, 403);
    assert.equal(raw.body.reason, 'Forbidden');
    assert.equal((await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web')).body.spec.replicas, 4, 'nothing changed');
    const audit = sb.audit().filter((e) => e.user === 'viewer' && e.code === 403);
    assert.deepEqual(audit.map((e) => e.verb).sort(), ['delete', 'patch']);
  });

  it('answers kubectl auth can-i / whoami for each user', async () => {
    const admin = await kubectl(['auth', 'can-i', 'patch', 'clonesets'], sb.kubeconfig);
    assert.equal(admin.stdout.trim(), 'yes');
    const viewer = await kubectl(['--context', 'viewer', 'auth', 'can-i', 'patch', 'clonesets'], sb.kubeconfig);
    assert.equal(viewer.code, 1);
    assert.match(viewer.stdout, /^no/);
    const reads = await kubectl(['--context', 'viewer', 'auth', 'can-i', 'watch', 'pods'], sb.kubeconfig);
    assert.equal(reads.stdout.trim(), 'yes');
    const who = await kubectl(['--context', 'viewer', 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'], sb.kubeconfig);
    assert.equal(who.stdout, 'viewer');
  });

  it('rejects requests without a valid token with 401', async () => {
    const res = await kubectl(['--token', 'not-a-token', 'get', 'pods'], sb.kubeconfig);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /Unauthorized/);
  });
});

describe('sandbox --faults', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({
      readyDelay: '50ms',
      faults: { expireResourceVersionsAfter: 5, conflictEveryNthUpdate: 2, dropWatchAfterEvents: 3, errorRate: { deletecollection: { rate: 1, code: 429, retryAfterSeconds: 2 } }, seed: 7 },
    });
  });
  after(async () => {
    await sb.stop();
  });

  it('answers a watch from an expired resourceVersion with a 410 Expired ERROR event', async () => {
    const first = await sb.api('POST', '/api/v1/namespaces/default/configmaps', configMap('cm-0'));
    assert.equal(first.status, 201);
    const oldRv = first.body.metadata.resourceVersion;
    for (let i = 1; i <= 8; i++) assert.equal((await sb.api('POST', '/api/v1/namespaces/default/configmaps', configMap(`cm-${i}`))).status, 201);
    const res = await sb.api('GET', `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${oldRv}`);
    assert.equal(res.status, 200);
    const event = JSON.parse(res.text.trim().split('\n')[0]!);
    assert.equal(event.type, 'ERROR');
    assert.equal(event.object.code, 410);
    assert.equal(event.object.reason, 'Expired');
    const recent = await sb.api('GET', '/api/v1/namespaces/default/configmaps?limit=1');
    const fresh = await sb.api('GET', `/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1&resourceVersion=${recent.body.metadata.resourceVersion}`);
    assert.equal(fresh.text.includes('"ERROR"'), false, 'a current resourceVersion is fine');
  });

  it('drops watches after a few events', async () => {
    const res = await sb.api('GET', '/api/v1/namespaces/default/configmaps?watch=true');
    const lines = res.text.trim().split('\n');
    assert.equal(lines.length, 3);
    assert.ok(lines.every((l) => JSON.parse(l).type === 'ADDED'));
  });

  it('fails every second update with 409 Conflict', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await sb.api('PATCH', '/api/v1/namespaces/default/configmaps/cm-1', { data: { k: `v${i}` } }, { contentType: 'application/merge-patch+json' });
      codes.push(res.status);
    }
    assert.deepEqual(codes, [200, 409, 200, 409]);
  });

  it('injects error rates per verb with Retry-After', async () => {
    const res = await sb.api('DELETE', '/api/v1/namespaces/default/configmaps');
    assert.equal(res.status, 429);
    assert.equal(res.headers['retry-after'], '2');
    assert.equal(res.body.reason, 'TooManyRequests');
    assert.equal((await sb.api('GET', '/api/v1/namespaces/default/configmaps/cm-2')).status, 200, 'other verbs are untouched');
  });
});

describe('sandbox --faults latency', () => {
  it('delays resource requests but not health checks', async () => {
    const sb = await startSandbox({ faults: { latencyMs: 200 } });
    try {
      const t0 = Date.now();
      assert.equal((await sb.api('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
      assert.ok(Date.now() - t0 >= 195, 'latency applied');
      const entry = sb.audit().find((e) => e.path === '/api/v1/namespaces/default/configmaps');
      assert.ok(entry && entry.durationMs >= 195);
      const t1 = Date.now();
      assert.equal((await sb.api('GET', '/healthz')).status, 200);
      assert.ok(Date.now() - t1 < 150, 'health checks answer at once');
    } finally {
      await sb.stop();
    }
  });
});
