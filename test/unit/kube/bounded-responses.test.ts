// What the client reads from a server is bounded (issue #14 item 6): an endless or oversized body
// stops with an error naming the URL instead of growing the process; a watch line without an end
// stops the watch naming the resource; a body that is not JSON is said to be so (item 7), not
// reported as "the server returned 200 OK".
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_RESPONSE_BYTES } from '../../../src/kube/http';
import { ListDecoder } from '../../../src/kube/list-decoder';
import { MAX_WATCH_EVENT_CHARS, streamLines } from '../../../src/kube/watch';
import { sendJson, startFakeApi, testTransport } from './fake-api';

const api = await startFakeApi();
after(() => api.close());

const get = (path: string) => ({ method: 'GET', path, context: { verb: 'get', resource: 'pods' } });

test('a body that never ends stops at MAX_RESPONSE_BYTES with an error naming the URL, and is not retried', async () => {
  api.requests.length = 0;
  let sent = 0;
  api.handle((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk)) sent += chunk.length;
      if (!res.destroyed) res.once('drain', pump);
    };
    res.on('close', () => undefined);
    pump();
  });
  const { transport } = testTransport(api.url);
  await assert.rejects(transport.json(get('/api/v1/pods')), (e: Error) => {
    assert.match(e.message, /^the response from http:\/\/127\.0\.0\.1:\d+\/api\/v1\/pods is too large: more than 64 MiB \(the limit for one response is 64 MiB\)/);
    return true;
  });
  assert.equal(api.requests.length, 1);
  assert.ok(sent < MAX_RESPONSE_BYTES * 2, `the server could send ${sent} bytes`);
});

test('a declared Content-Length above the limit is refused before reading the body', async () => {
  api.handle((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(MAX_RESPONSE_BYTES + 1) });
    res.write('{');
  });
  const { transport } = testTransport(api.url);
  await assert.rejects(transport.json(get('/api/v1/namespaces/default/pods')), /the response from \S+\/api\/v1\/namespaces\/default\/pods is too large: 64 MiB \(the limit/);
});

test('a large but honest page (20 MiB, 500 pods of ~40 KiB) is read whole', async () => {
  const pod = { metadata: { name: 'p', annotations: { big: 'x'.repeat(40 * 1024) } } };
  const items = Array.from({ length: 500 }, () => pod);
  api.handle((_req, res) => sendJson(res, 200, { kind: 'PodList', items }));
  const { transport } = testTransport(api.url);
  const list = await transport.json<{ items: unknown[] }>(get('/api/v1/pods'));
  assert.equal(list.items.length, 500);
});

test('a body that is not JSON names the URL and says it was not valid JSON (not "200 OK")', async () => {
  api.handle((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<html><body>Proxy login</body></html>');
  });
  const { transport } = testTransport(api.url);
  await assert.rejects(transport.json(get('/apis/apps.kruise.io/v1alpha1/clonesets')), (e: Error) => {
    assert.match(e.message, /^the response from http:\/\/127\.0\.0\.1:\d+\/apis\/apps\.kruise\.io\/v1alpha1\/clonesets was not valid JSON \(200 OK, 37 bytes of text\/html, starting "<html><body>Proxy login<\/body><\/html>"\)$/);
    assert.doesNotMatch(e.message, /server returned 200/);
    return true;
  });
});

test('a watch line longer than MAX_WATCH_EVENT_CHARS stops the stream with the given error', async () => {
  async function* endless(): AsyncGenerator<string> {
    yield '{"type":"ADDED","object":{}}\n';
    for (;;) yield 'x'.repeat(1024 * 1024);
  }
  const seen: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const l of streamLines(endless(), MAX_WATCH_EVENT_CHARS, () => new Error('a watch event of pods is larger than 16 MiB'))) seen.push(l);
    })(),
    /a watch event of pods is larger than 16 MiB/,
  );
  assert.deepEqual(seen, ['{"type":"ADDED","object":{}}']);
});

test('a mapped list whose body is not JSON says so the same way, whether read whole (-v=8) or item by item', async () => {
  api.handle((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<html><body>Proxy login</body></html>');
  });
  for (const verbosity of [0, 8]) {
    const { transport } = testTransport(api.url, { verbosity });
    await assert.rejects(transport.decode(get('/api/v1/pods'), () => new ListDecoder((o) => o)), (e: Error) => {
      assert.match(e.message, /^the response from http:\/\/127\.0\.0\.1:\d+\/api\/v1\/pods was not valid JSON \(200 OK, 37 bytes of text\/html, starting "<html><body>Proxy login<\/body><\/html>"\)$/);
      return true;
    });
  }
});
