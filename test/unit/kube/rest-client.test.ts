import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Discovery } from '../../../src/kube/discovery';
import { RestClient } from '../../../src/kube/rest-client';
import { makeRedactor } from '../../../src/kube/redact';
import { nativeResourceType } from '../../../src/kube/resolve';
import { CliError } from '../../../src/cli/exit';
import { isNotFound } from '../../../src/kube/errors';
import type { ResourceType } from '../../../src/kube/client';
import { sendJson, startFakeApi, status, testTransport } from './fake-api';

const api = await startFakeApi();
after(() => api.close());

const CS: ResourceType = { group: 'apps.kruise.io', version: 'v1alpha1', resource: 'clonesets', kind: 'CloneSet', namespaced: true };

function client(over: Parameters<typeof testTransport>[1] = {}) {
  const { transport, lines } = testTransport(api.url, over);
  const c = new RestClient({ transport, discovery: new Discovery(async () => ({ kind: 'APIGroupList', groups: [] }), api.url, undefined), namespace: 'prod', userName: 'admin' });
  return { c, lines };
}

const obj = (name: string, rv = '1') => ({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name, namespace: 'prod', resourceVersion: rv } });

test('URLs, patch content types, dry run and field manager', async () => {
  api.requests.length = 0;
  api.handle((req, res) => sendJson(res, req.method === 'POST' ? 201 : 200, obj('web')));
  const { c } = client();
  await c.get(CS, 'web');
  await c.get(nativeResourceType('pods'), 'web-1', 'other');
  await c.get(nativeResourceType('nodes'), 'node-1', 'ignored');
  await c.patch(CS, 'web', 'merge', { spec: { replicas: 3 } });
  await c.patch(CS, 'web', 'json', [{ op: 'replace', path: '/spec/replicas', value: 2 }], undefined, { dryRun: true });
  await c.patch(nativeResourceType('deployments'), 'd', 'strategic', { spec: {} }, undefined, { subresource: 'status' });
  await c.create(CS, { metadata: { name: 'new' } });
  await c.update(CS, obj('web', '7'), undefined, { fieldManager: 'me' });
  await c.delete(CS, 'web', undefined, { propagationPolicy: 'Foreground', dryRun: true });
  const r = api.requests;
  assert.equal(r[0]!.url, '/apis/apps.kruise.io/v1alpha1/namespaces/prod/clonesets/web');
  assert.equal(r[1]!.url, '/api/v1/namespaces/other/pods/web-1');
  assert.equal(r[2]!.url, '/api/v1/nodes/node-1');
  assert.equal(r[3]!.headers['content-type'], 'application/merge-patch+json');
  assert.equal(r[3]!.query.get('fieldManager'), 'kubectl-kruise');
  assert.equal(r[3]!.query.get('dryRun'), null);
  assert.equal(r[4]!.headers['content-type'], 'application/json-patch+json');
  assert.equal(r[4]!.query.get('dryRun'), 'All');
  assert.equal(r[5]!.headers['content-type'], 'application/strategic-merge-patch+json');
  assert.equal(r[5]!.path, '/apis/apps/v1/namespaces/prod/deployments/d/status');
  assert.equal(r[6]!.method, 'POST');
  assert.equal(r[6]!.path, '/apis/apps.kruise.io/v1alpha1/namespaces/prod/clonesets');
  assert.deepEqual(JSON.parse(r[6]!.body), { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'new', namespace: 'prod' } });
  assert.equal(r[7]!.method, 'PUT');
  assert.equal(r[7]!.query.get('fieldManager'), 'me');
  assert.equal(r[8]!.method, 'DELETE');
  assert.equal(r[8]!.query.get('dryRun'), 'All');
  assert.equal(JSON.parse(r[8]!.body).propagationPolicy, 'Foreground');
  assert.ok(r.every((x) => x.headers['user-agent'] === 'test'));
});

test('names and namespaces are validated before they reach a URL (exit 2, nothing sent)', async () => {
  api.requests.length = 0;
  const { c } = client();
  for (const bad of ['../etc', 'a%2Fb', 'Web', 'a/b', 'x'.repeat(300), '']) {
    await assert.rejects(c.get(CS, bad), (e: unknown) => e instanceof CliError && e.exitCode === 2, bad);
  }
  await assert.rejects(c.get(CS, 'web', 'Bad_NS'), (e: unknown) => e instanceof CliError && e.exitCode === 2);
  assert.equal(api.requests.length, 0);
});

test('list follows continue tokens with limit=500 and restores apiVersion/kind on items', async () => {
  api.requests.length = 0;
  api.handle((req, res) => {
    const cont = req.query.get('continue');
    if (!cont) return sendJson(res, 200, { kind: 'CloneSetList', apiVersion: 'apps.kruise.io/v1alpha1', metadata: { resourceVersion: '10', continue: 'p2' }, items: [{ metadata: { name: 'a' } }] });
    return sendJson(res, 200, { kind: 'CloneSetList', apiVersion: 'apps.kruise.io/v1alpha1', metadata: { resourceVersion: '10' }, items: [{ metadata: { name: 'b' } }] });
  });
  const { c } = client();
  const list = await c.list(CS, 'prod', { labelSelector: 'app=web' });
  assert.deepEqual(list.items.map((i) => i.metadata.name), ['a', 'b']);
  assert.equal(list.items[0]!.kind, 'CloneSet');
  assert.equal(list.metadata.resourceVersion, '10');
  assert.equal(api.requests.length, 2);
  assert.equal(api.requests[0]!.query.get('limit'), '500');
  assert.equal(api.requests[0]!.query.get('labelSelector'), 'app=web');
  assert.equal(api.requests[1]!.query.get('continue'), 'p2');
  // All namespaces when namespace is undefined.
  await c.list(CS, undefined);
  assert.equal(api.requests[2]!.path, '/apis/apps.kruise.io/v1alpha1/clonesets');
});

test('a mapped list is decoded item by item as each page arrives: mapItem runs before the page has ended, undefined leaves an item out', async () => {
  api.requests.length = 0;
  const mapped: string[] = [];
  let mappedBeforePageEnd = 0;
  const item = (name: string) => JSON.stringify({ metadata: { name, annotations: { big: 'x'.repeat(1000) } } });
  api.handle(async (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    if (req.query.get('continue')) return void res.end(`{"kind":"CloneSetList","apiVersion":"apps.kruise.io/v1alpha1","metadata":{"resourceVersion":"10"},"items":[${item('c')}]}`);
    res.write(`{"kind":"CloneSetList","apiVersion":"apps.kruise.io/v1alpha1","metadata":{"resourceVersion":"10","continue":"p2"},"items":[${item('a')},`);
    // The rest of the page only once the first item has been mapped (or after 2 s).
    for (let i = 0; i < 400 && mapped.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    mappedBeforePageEnd = mapped.length;
    res.end(`${item('b')}]}`);
  });
  const { c } = client();
  const list = await c.list(CS, 'prod', {
    limit: 2,
    mapItem: (o) => {
      mapped.push(o.metadata.name!);
      return o.metadata.name === 'b' ? undefined : { metadata: { name: o.metadata.name } };
    },
  });
  assert.deepEqual(list.items, [
    { metadata: { name: 'a' }, apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' },
    { metadata: { name: 'c' }, apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' },
  ]);
  assert.deepEqual(mapped, ['a', 'b', 'c']);
  assert.equal(mappedBeforePageEnd, 1, 'the first item was mapped while its page was still arriving');
  assert.equal(list.metadata.resourceVersion, '10');
  assert.deepEqual(api.requests.map((r) => [r.query.get('limit'), r.query.get('continue')]), [['2', null], ['2', 'p2']]);
});

test('GET retries 500/503 and 429 with Retry-After; writes retry 429 but not 500', async () => {
  let n = 0;
  const sleeps: number[] = [];
  api.handle((req, res) => {
    n++;
    if (req.method === 'GET' && n === 1) return sendJson(res, 503, status(503, 'ServiceUnavailable', 'try later'));
    if (req.method === 'GET' && n === 2) return sendJson(res, 429, status(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '2' });
    if (req.method === 'PATCH' && n === 4) return sendJson(res, 429, status(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '1' });
    if (req.method === 'PUT') return sendJson(res, 500, status(500, 'InternalError', 'boom'));
    return sendJson(res, 200, obj('web'));
  });
  const { c } = client({ sleep: async (ms) => void sleeps.push(ms), random: () => 0 });
  assert.equal((await c.get(CS, 'web')).metadata.name, 'web');
  assert.equal(n, 3);
  assert.equal(sleeps[1], 2000, 'Retry-After honoured');
  await c.patch(CS, 'web', 'merge', {});
  assert.equal(n, 5, 'PATCH retried once after 429');
  await assert.rejects(c.update(CS, obj('web')), /the server returned 500 Internal Server Error for update clonesets.apps.kruise.io web: boom/);
  assert.equal(n, 6, 'PUT not retried on 500');
});

test('retries are bounded and end in a one-line error', async () => {
  let n = 0;
  api.handle((_req, res) => {
    n++;
    sendJson(res, 502, status(502, 'BadGateway', 'upstream down'));
  });
  const { c } = client();
  await assert.rejects(c.get(CS, 'web'), (e: unknown) => e instanceof CliError && e.exitCode === 1 && /502/.test(e.message) && !e.message.includes('\n'));
  assert.equal(n, 5);
});

test('404 becomes one line naming the object; isNotFound works for callers', async () => {
  api.handle((_req, res) => sendJson(res, 404, status(404, 'NotFound', 'clonesets.apps.kruise.io "web" not found', { name: 'web', group: 'apps.kruise.io', kind: 'clonesets' })));
  const { c } = client();
  await assert.rejects(c.get(CS, 'web'), (e: unknown) => {
    assert.ok(isNotFound(e));
    assert.equal((e as Error).message, 'clonesets.apps.kruise.io "web" not found in namespace "prod"');
    return true;
  });
});

test('server Warning headers go to stderr once as "Warning: <text>"', async () => {
  api.handle((_req, res) => sendJson(res, 200, obj('web'), { Warning: '299 - "apps.kruise.io/v1alpha1 CloneSet is deprecated; use v1beta1"' }));
  const { c, lines } = client();
  await c.get(CS, 'web');
  await c.get(CS, 'web');
  assert.deepEqual(lines, ['Warning: apps.kruise.io/v1alpha1 CloneSet is deprecated; use v1beta1']);
});

test('-v=6 logs one line per request; -v=9 never shows the token, even when the server echoes it', async () => {
  const token = 'sekrit-token-0123456789';
  api.handle((req, res) => sendJson(res, 200, { ...obj('web'), echoed: req.headers.authorization, data: { token } }));
  const redact = makeRedactor([token]);
  const v6 = client({ verbosity: 6, credentials: () => ({ authorization: `Bearer ${token}` }), redact });
  await v6.c.get(CS, 'web');
  assert.equal(v6.lines.length, 1);
  assert.match(v6.lines[0]!, /^GET http:\/\/127\.0\.0\.1:\d+\/apis\/apps\.kruise\.io\/v1alpha1\/namespaces\/prod\/clonesets\/web 200 OK in \d+ milliseconds$/);
  const v9 = client({ verbosity: 9, credentials: () => ({ authorization: `Bearer ${token}` }), redact });
  await v9.c.patch(CS, 'web', 'merge', { metadata: { annotations: { note: token } } });
  const all = v9.lines.join('\n');
  assert.match(all, /Request Header: "Authorization: Bearer <redacted>"/);
  assert.match(all, /Request Body:/);
  assert.match(all, /Response Body:/);
  assert.ok(!all.includes(token), all);
  assert.ok(!all.includes('sekrit'), all);
});

test('--request-timeout ends a hanging request with a clear error', async () => {
  api.handle(() => undefined); // never answers
  const { c } = client({ requestTimeoutMs: 150 });
  const started = Date.now();
  await assert.rejects(c.get(CS, 'web'), /timed out after 150ms \(--request-timeout\)/);
  assert.ok(Date.now() - started < 2000);
});

test('--request-timeout also covers a body that stops arriving, reported as a timeout', async () => {
  api.handle((_r, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{"apiVersion":'); // headers and part of the body, then nothing
  });
  const { c } = client({ requestTimeoutMs: 150 });
  const started = Date.now();
  await assert.rejects(c.get(CS, 'web'), /timed out after 150ms \(--request-timeout\)/);
  assert.ok(Date.now() - started < 5000);
});

test('an aborted signal stops a request', async () => {
  api.handle(() => undefined);
  const { c } = client();
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 50);
  await assert.rejects(c.get(CS, 'web', undefined, { signal: ac.signal }), (e: unknown) => (e as Error).name === 'AbortError');
});

test('connection refused is one line naming the server', async () => {
  const { c } = client();
  const { transport } = testTransport('http://127.0.0.1:1');
  const dead = new RestClient({ transport, discovery: new Discovery(async () => ({}), 'http://127.0.0.1:1', undefined), namespace: 'default', userName: 'x' });
  await assert.rejects(dead.get(CS, 'web'), (e: unknown) => e instanceof CliError && e.message === 'the server at http://127.0.0.1:1 is unreachable: connection refused');
  c.close();
});

test('listTable: asks for a meta.k8s.io Table like kubectl get, joins continue pages, all namespaces for a cluster-scoped kind', async () => {
  api.requests.length = 0;
  api.handle((req, res) => {
    const cont = req.query.get('continue');
    const columnDefinitions = [{ name: 'Name', type: 'string', format: 'name', priority: 0 }, { name: 'DESIRED', type: 'integer', priority: 0 }];
    if (!cont) sendJson(res, 200, { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { continue: 'p2' }, columnDefinitions, rows: [{ cells: ['a', 1], object: { metadata: { name: 'a', namespace: 'prod' } } }] });
    else sendJson(res, 200, { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: {}, columnDefinitions, rows: [{ cells: ['b', null], object: { metadata: { name: 'b', namespace: 'prod' } } }] });
  });
  const { c } = client();
  const t = await c.listTable(CS, 'prod', { labelSelector: 'app=web', limit: 1 });
  assert.deepEqual(t.rows.map((r) => r.cells), [['a', 1], ['b', null]]);
  assert.deepEqual(t.columnDefinitions.map((col) => col.name), ['Name', 'DESIRED']);
  const [first, second] = api.requests;
  assert.equal(first!.path, '/apis/apps.kruise.io/v1alpha1/namespaces/prod/clonesets');
  assert.match(String(first!.headers.accept), /^application\/json;as=Table;v=v1;g=meta\.k8s\.io,/);
  assert.equal(first!.query.get('labelSelector'), 'app=web');
  assert.equal(second!.query.get('continue'), 'p2');
  api.requests.length = 0;
  await c.listTable({ group: 'apps.kruise.io', version: 'v1alpha1', resource: 'sidecarsets', kind: 'SidecarSet', namespaced: false }, 'prod');
  assert.equal(api.requests[0]!.path, '/apis/apps.kruise.io/v1alpha1/sidecarsets');
});

test('listTable: a server answering with a plain list instead of a Table: one error line naming the kind (exit 1)', async () => {
  api.handle((_req, res) => sendJson(res, 200, { kind: 'CloneSetList', apiVersion: 'apps.kruise.io/v1alpha1', metadata: {}, items: [obj('web')] }));
  const { c } = client();
  await assert.rejects(c.listTable(CS, 'prod'), (e: CliError) => e.exitCode === 1 && e.message === 'the server answered the list of clonesets.apps.kruise.io with CloneSetList, not a meta.k8s.io Table (server-side printing)');
});

test('listTable: an expired continue token (410) starts the list over instead of failing or joining two lists', async () => {
  let calls = 0;
  api.handle((req, res) => {
    calls++;
    const columnDefinitions = [{ name: 'Name', type: 'string', format: 'name' }];
    if (req.query.get('continue') === 'old') return sendJson(res, 410, status(410, 'Expired', 'the provided continue parameter is too old'));
    sendJson(res, 200, { kind: 'Table', metadata: calls === 1 ? { continue: 'old' } : {}, columnDefinitions, rows: [{ cells: [`row-${calls}`] }] });
  });
  const { c } = client();
  const t = await c.listTable(CS, 'prod');
  assert.deepEqual(t.rows.map((r) => r.cells[0]), ['row-3']);
});

test('discovered: the preferred version of a served resource of apps/policy/rollouts.kruise.io, undefined when not served', async () => {
  const resources = (kind: string, resource: string, scope = 'Namespaced') => [{ resource, responseKind: { kind }, scope, verbs: ['list'] }];
  const doc = {
    kind: 'APIGroupDiscoveryList',
    items: [
      { metadata: { name: 'apps.kruise.io' }, versions: [{ version: 'v1beta1', resources: resources('SidecarSet', 'sidecarsets', 'Cluster') }, { version: 'v1alpha1', resources: [...resources('SidecarSet', 'sidecarsets', 'Cluster'), ...resources('UnitedDeployment', 'uniteddeployments')] }] },
      { metadata: { name: 'policy.kruise.io' }, versions: [{ version: 'v1alpha1', resources: resources('PodUnavailableBudget', 'podunavailablebudgets') }] },
    ],
  };
  const { transport } = testTransport(api.url, {});
  const c = new RestClient({ transport, discovery: new Discovery(async () => doc, api.url, undefined), namespace: 'prod', userName: 'admin' });
  assert.deepEqual(await c.discovered('apps.kruise.io', 'sidecarsets'), { group: 'apps.kruise.io', version: 'v1beta1', resource: 'sidecarsets', kind: 'SidecarSet', namespaced: false, shortNames: undefined, verbs: ['list'], subresources: [] });
  assert.equal((await c.discovered('apps.kruise.io', 'uniteddeployments'))?.version, 'v1alpha1');
  assert.equal((await c.discovered('policy.kruise.io', 'podunavailablebudgets'))?.kind, 'PodUnavailableBudget');
  assert.equal(await c.discovered('apps.kruise.io', 'broadcastjobs'), undefined);
  assert.equal(await c.discovered('rollouts.kruise.io', 'rollouts'), undefined);
});
