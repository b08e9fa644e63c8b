// Compressed answers, as between kubectl and kube-apiserver: the client asks for gzip (client-go's
// transport does) unless --disable-compression or the cluster's disable-compression says not to, and
// inflates what comes back as it arrives (a list page through its decoder too); the sandbox compresses
// answers over 128 KiB at level 1, as responsewriters/writers.go does (TestSerializeObject's rows:
// "compress on gzip", "ignore compression on small objects", no Accept-Encoding, q=0).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { ListDecoder } from '../../../src/kube/list-decoder';
import { acceptsGzip, GZIP_THRESHOLD_BYTES } from '../../../src/sandbox/server/request';
import { startFakeApi, testTransport } from './fake-api';

const api = await startFakeApi();
after(() => api.close());

const get = (path: string) => ({ method: 'GET', path, context: { verb: 'list', resource: 'pods' } });
const pods = (n: number) => ({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: Array.from({ length: n }, (_, i) => ({ metadata: { name: `p-${i}`, labels: { app: 'web' } }, spec: { nodeName: `node-${i % 3}` } })) });

function gzipAnswer(body: unknown): void {
  api.handle((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
    res.end(gzipSync(JSON.stringify(body), { level: 1 }));
  });
}

test('asks for gzip and reads a gzip answer, whole or item by item; --disable-compression asks for none', async () => {
  gzipAnswer(pods(3000));
  api.requests.length = 0;
  const { transport } = testTransport(api.url);
  const whole = await transport.json<{ items: unknown[] }>(get('/api/v1/pods'));
  assert.equal(whole.items.length, 3000);
  assert.equal(api.requests[0]!.headers['accept-encoding'], 'gzip');
  const decoded = await transport.decode(get('/api/v1/pods'), () => new ListDecoder((p) => (p.metadata.name?.endsWith('7') ? p : undefined)));
  assert.equal(decoded.items.length, 300);
  assert.equal(decoded.metadata?.resourceVersion, '7');
  const off = testTransport(api.url, { disableCompression: true }).transport;
  api.requests.length = 0;
  api.handle((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(pods(2)));
  });
  assert.equal((await off.json<{ items: unknown[] }>(get('/api/v1/pods'))).items.length, 2);
  assert.equal(api.requests[0]!.headers['accept-encoding'], undefined);
});

test('a corrupt gzip body is an error naming the URL, not a hang or a crash; the inflated size is what the limit bounds', async () => {
  api.handle((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    res.end(Buffer.from('not gzip at all'));
  });
  const { transport } = testTransport(api.url);
  await assert.rejects(transport.json(get('/api/v1/pods')), (e: Error) => /^the response from http:\/\/127\.0\.0\.1:\d+\/api\/v1\/pods is not valid gzip \(Content-Encoding: gzip\): incorrect header check$/.test(e.message));
  assert.equal(api.requests.filter((r) => r.path === '/api/v1/pods').length > 0, true);
  // 1 MiB of spaces inflating past a 64 KiB limit.
  api.handle((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    res.end(gzipSync(Buffer.alloc(1024 * 1024, 0x20)));
  });
  await assert.rejects(transport.json({ ...get('/api/v1/pods'), maxBytes: 64 * 1024 }), /too large/);
});

test('the sandbox compresses like kube-apiserver: over 128 KiB, to a client that takes gzip', () => {
  assert.equal(GZIP_THRESHOLD_BYTES, 128 * 1024);
  for (const [header, want] of [
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['deflate, gzip;q=0.5', true],
    ['*', true],
    ['gzip;q=0', false],
    ['identity', false],
    ['', false],
    [undefined, false],
  ] as const) {
    assert.equal(acceptsGzip(header), want, String(header));
  }
});
