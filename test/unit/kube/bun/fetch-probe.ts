// Run by fetch-transport.test.ts under Bun (the standalone executable's runtime), where the
// transport's plain requests go through fetch: each scenario against a local server, one JSON
// line of what the transport did.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transport, type HttpRequest } from '../../../../src/kube/http';
import { ListDecoder } from '../../../../src/kube/list-decoder';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let handler: Handler = (_q, s) => s.end();
let requests = 0;
const server = createServer((req, res) => {
  requests++;
  handler(req, res);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

function transport(over: { requestTimeoutMs?: number; verbosity?: number; headers?: Record<string, string | string[]> } = {}): { t: Transport; lines: string[] } {
  const lines: string[] = [];
  const t = new Transport({
    server: url, insecureSkipTlsVerify: false, headers: over.headers ?? {}, credentials: () => ({ authorization: 'Bearer s3cr3t-token' }),
    requestTimeoutMs: over.requestTimeoutMs ?? 0, verbosity: over.verbosity ?? 0, log: (l) => lines.push(l),
    redact: (s) => s.replaceAll('s3cr3t-token', '<redacted>'), userAgent: 'probe', sleep: async () => undefined, random: () => 0.5,
  });
  return { t, lines };
}
const get = (path: string, extra: Partial<HttpRequest> = {}): HttpRequest => ({ method: 'GET', path, context: { verb: 'get', resource: 'pods' }, ...extra });

async function scenario(name: string, h: Handler, run: () => Promise<unknown>): Promise<void> {
  handler = h;
  requests = 0;
  let out: Record<string, unknown>;
  try {
    out = { ok: await run() };
  } catch (e) {
    out = { error: e instanceof Error ? e.message : String(e), errorName: (e as Error).name };
  }
  process.stdout.write(`${JSON.stringify({ name, requests, ...out })}\n`);
}

const usesFetch = (t: Transport): boolean => (t as unknown as { fetchTls?: object }).fetchTls !== undefined;

await scenario('uses fetch', (_q, s) => s.end('{}'), async () => usesFetch(transport().t));
await scenario('json, warnings once, -v=9 headers redacted', (q, s) => {
  s.writeHead(200, { 'Content-Type': 'application/json', Warning: '299 - "apps.kruise.io/v1alpha1 CloneSet is deprecated"' });
  s.end(JSON.stringify({ auth: q.headers.authorization, ua: q.headers['user-agent'], method: q.method }));
}, async () => {
  const { t, lines } = transport({ verbosity: 9 });
  const body = await t.json(get('/api/v1/pods'));
  await t.json(get('/api/v1/pods'));
  return { body, warnings: lines.filter((l) => l.startsWith('Warning:')), leaked: lines.some((l) => l.includes('s3cr3t')), logged: lines.some((l) => /^GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/pods 200 OK in \d+ milliseconds$/.test(l)) };
});
await scenario('a PATCH body and content type arrive', (q, s) => {
  let text = '';
  q.on('data', (d: Buffer) => (text += d));
  q.on('end', () => s.end(JSON.stringify({ ct: q.headers['content-type'], len: q.headers['content-length'], text })));
}, async () => transport().t.json({ method: 'PATCH', path: '/x', body: '{"spec":{"paused":true}}', contentType: 'application/merge-patch+json', context: { verb: 'patch', resource: 'clonesets' } }));
await scenario('--as-group twice: two Impersonate-Group headers (node:http; fetch would join them)', (q, s) => s.end(JSON.stringify(q.headersDistinct['impersonate-group'])), async () => {
  const { t } = transport({ headers: { 'Impersonate-User': 'jane', 'Impersonate-Group': ['devs', 'ops'] } });
  return { fetch: usesFetch(t), groups: await t.json(get('/api/v1/pods')) };
});
await scenario('--as-group once: one header, through fetch', (q, s) => s.end(JSON.stringify(q.headersDistinct['impersonate-group'])), async () => {
  const { t } = transport({ headers: { 'Impersonate-Group': ['devs'] } });
  return await t.json(get('/api/v1/pods'));
});
await scenario('redirects are not followed', (_q, s) => {
  s.writeHead(302, { Location: '/elsewhere' });
  s.end();
}, async () => (await transport().t.send(get('/api/v1/pods'))).status);
await scenario('503 with Retry-After is retried', (_q, s) => {
  if (requests === 1) {
    s.writeHead(503, { 'Retry-After': '1' });
    s.end('{}');
  } else s.end('{"kind":"PodList"}');
}, async () => transport().t.json(get('/api/v1/pods')));
await scenario('an endless body stops at the limit', (_q, s) => {
  s.writeHead(200, { 'Content-Type': 'application/json' });
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  const pump = (): void => {
    while (!s.destroyed && s.write(chunk));
    if (!s.destroyed) s.once('drain', pump);
  };
  pump();
}, async () => transport().t.json(get('/api/v1/pods', { maxBytes: 4 * 1024 * 1024 })));
await scenario('a declared length above the limit', (_q, s) => {
  s.writeHead(200, { 'Content-Length': String(8 * 1024 * 1024) });
  s.write('{');
}, async () => transport().t.json(get('/api/v1/pods', { maxBytes: 4 * 1024 * 1024 })));
await scenario('--request-timeout', () => undefined, async () => transport({ requestTimeoutMs: 300 }).t.json({ ...get('/api/v1/pods'), maxAttempts: 1 }));
await scenario('a reset mid-body fails as a reset connection', (_q, s) => {
  s.writeHead(200, { 'Content-Length': '100' });
  s.write('{"kind":');
  setTimeout(() => s.socket?.destroy(), 20);
}, async () => transport().t.json({ ...get('/api/v1/pods'), maxAttempts: 2 }));
await scenario('a list decoded item by item as it arrives', (_q, s) => {
  s.writeHead(200, { 'Content-Type': 'application/json' });
  s.write('{"kind":"PodList","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}},');
  setTimeout(() => s.end('{"metadata":{"name":"b"}}]}'), 20);
}, async () => transport().t.decode(get('/api/v1/pods'), () => new ListDecoder((o) => (o.metadata.name === 'b' ? undefined : o))));
await scenario('a watch: its events as they come, then a reset the watch resumes after', (_q, s) => {
  s.writeHead(200, { 'Content-Type': 'application/json' });
  s.write('{"type":"ADDED","object":{}}\n');
  setTimeout(() => {
    s.write('{"type":"MODIFIED","object":{}}\n');
    setTimeout(() => s.socket?.destroy(), 20);
  }, 20);
}, async () => {
  const { t } = transport();
  const res = await t.stream(get('/api/v1/pods', { query: { watch: 'true' }, context: { verb: 'watch', resource: 'pods' } }));
  let text = '';
  try {
    for await (const chunk of res) text += Buffer.from(chunk).toString();
    return { text, ended: true };
  } catch (e) {
    // What watch.ts resumes after (its recoverable()).
    return { text, resumes: ['ECONNRESET', 'ERR_STREAM_PREMATURE_CLOSE'].includes(String((e as NodeJS.ErrnoException).code)), fetch: usesFetch(t) === Boolean((globalThis as { Bun?: unknown }).Bun) };
  }
});
await scenario('Ctrl-C aborts', () => undefined, async () => {
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(), 100);
  return transport().t.json(get('/api/v1/pods', { signal: ctl.signal }));
});
server.close();
server.closeAllConnections();
process.exit(0);
