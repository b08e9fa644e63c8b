// The transport through proxies (src/kube/proxy-connect.ts via connectWith), on what the end-to-end test
// (test/e2e/kube-proxy.test.ts) does not reach: an http:// server (tunnelled too: the proxy never sees a
// request of ours in clear), an https:// proxy (TLS to the proxy, verified, then TLS to the server inside),
// and the failures, each one line naming the proxy: down, refusing CONNECT, a SOCKS5 error, silent.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { defaultGlobals } from '../../../src/cli/globals';
import { CliError } from '../../../src/cli/exit';
import { connectWith } from '../../../src/kube/connect';
import { generateTlsMaterial, type TlsMaterial } from '../../../src/sandbox/server/tls';
import { startConnectProxy, startSocks5Proxy, type TestProxy } from '../../helpers/proxies';

const TOKEN = 'proxy-transport-token-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'kk-proxy-'));
const portOf = (s: { address(): unknown }): number => (s.address() as AddressInfo).port;
const listen = (s: { listen(port: number, host: string, cb: () => void): unknown }): Promise<void> => new Promise((r) => s.listen(0, '127.0.0.1', r));

const answer = (req: IncomingMessage, res: ServerResponse): void => {
  const ok = req.headers.authorization === `Bearer ${TOKEN}`;
  res.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(ok ? { gitVersion: 'v1.32.0' } : { kind: 'Status', code: 401, reason: 'Unauthorized', message: 'Unauthorized' }));
};

function kubeconfig(name: string, server: string, cluster: Record<string, unknown> = {}): string {
  const p = join(dir, name);
  writeFileSync(p, stringify({ apiVersion: 'v1', kind: 'Config', 'current-context': 'c', clusters: [{ name: 'c', cluster: { server, ...cluster } }], users: [{ name: 'me', user: { token: TOKEN } }], contexts: [{ name: 'c', context: { cluster: 'c', user: 'me' } }] }));
  return p;
}

async function version(kc: string, env: Record<string, string>, lines: string[] = [], requestTimeoutMs = 0): Promise<unknown> {
  const client = await connectWith({ globals: { ...defaultGlobals(), kubeconfig: kc, verbosity: 6, requestTimeoutMs }, env: { HOME: dir, ...env }, log: (l) => lines.push(l) });
  try {
    return await client.raw('/version');
  } finally {
    client.close();
  }
}

async function failure(p: Promise<unknown>): Promise<CliError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof CliError, String(e));
    return e;
  }
  assert.fail('expected a failure');
}

describe('the transport through proxies', () => {
  let plain: Server;
  let secure: Server;
  let material: TlsMaterial;
  let connect: TestProxy;
  let socks: TestProxy;
  const hosts = { 'api.plain.invalid': '127.0.0.1', 'api.secure.invalid': '127.0.0.1' };

  before(async () => {
    material = await generateTlsMaterial({ sans: ['api.secure.invalid'] });
    plain = createHttpServer(answer) as unknown as Server;
    secure = createHttpsServer({ cert: material.certPem, key: material.keyPem }, answer) as unknown as Server;
    await Promise.all([listen(plain), listen(secure)]);
    [connect, socks] = await Promise.all([startConnectProxy({ hosts }), startSocks5Proxy({ hosts })]);
  });
  after(async () => {
    await Promise.all([connect.close(), socks.close()]);
    for (const s of [plain, secure]) {
      (s as unknown as { closeAllConnections(): void }).closeAllConnections();
      s.close();
    }
  });

  test('an http:// server is tunnelled too (HTTP_PROXY): the proxy is asked for one CONNECT, never handed a request of ours (kubectl hands it absolute-URI requests, token included)', async () => {
    const server = `http://api.plain.invalid:${portOf(plain)}`;
    const lines: string[] = [];
    assert.deepEqual(await version(kubeconfig('plain.yaml', server), { HTTP_PROXY: connect.url, HTTPS_PROXY: 'http://127.0.0.1:9' }, lines), { gitVersion: 'v1.32.0' });
    assert.deepEqual(connect.records.map((r) => [r.kind, r.target]), [['connect', `api.plain.invalid:${portOf(plain)}`]]);
    // No encryption inside the tunnel to an http:// server (nothing else encrypts it either), but the
    // proxy is never asked to read, log or forward a request of ours.
    assert.doesNotMatch(connect.records[0]!.head, /authorization/i);
    assert.ok(lines.includes(`Proxy: ${connect.url} (HTTP_PROXY): CONNECT api.plain.invalid:${portOf(plain)}`), lines.join('\n'));
  });

  test('an https:// proxy: TLS to the proxy (verified against the cluster CA too), then TLS to the server inside the tunnel', async () => {
    const proxy = await startConnectProxy({ hosts, tls: { cert: material.certPem, key: material.keyPem } });
    try {
      const server = `https://api.secure.invalid:${portOf(secure)}`;
      const ca = Buffer.from(material.caPem).toString('base64');
      assert.deepEqual(await version(kubeconfig('secure.yaml', server, { 'certificate-authority-data': ca }), { HTTPS_PROXY: proxy.url }), { gitVersion: 'v1.32.0' });
      assert.equal(proxy.records.length, 1);
      // A proxy certificate neither the system nor the cluster CA vouches for: refused, naming the proxy.
      const other = await generateTlsMaterial();
      const untrusted = await startConnectProxy({ hosts, tls: { cert: other.certPem, key: other.keyPem } });
      try {
        const e = await failure(version(kubeconfig('secure2.yaml', server, { 'certificate-authority-data': ca }), { HTTPS_PROXY: untrusted.url }));
        assert.match(e.message, new RegExp(`^tls: failed to verify the certificate of the proxy at ${untrusted.url} \\(HTTPS_PROXY\\): `));
        assert.equal(untrusted.records.length, 0, 'no CONNECT was sent to it');
      } finally {
        await untrusted.close();
      }
    } finally {
      await proxy.close();
    }
  });

  test('a SOCKS5 proxy for an https:// server', async () => {
    const server = `https://api.secure.invalid:${portOf(secure)}`;
    const ca = Buffer.from(material.caPem).toString('base64');
    assert.deepEqual(await version(kubeconfig('socks.yaml', server, { 'certificate-authority-data': ca }), { HTTPS_PROXY: socks.url }), { gitVersion: 'v1.32.0' });
    assert.deepEqual(socks.records.map((r) => r.target), [`api.secure.invalid:${portOf(secure)}`]);
    assert.equal(socks.saw(TOKEN), false);
  });

  test("a SOCKS5 proxy that wants a username and password (RFC 1929) gets the proxy-url's; a wrong one is refused, the password never shown", async () => {
    const guarded = await startSocks5Proxy({ hosts, credentials: 'socks-user:s0cks-pa55word' });
    try {
      const server = `https://api.secure.invalid:${portOf(secure)}`;
      const cluster = (password: string) => ({ 'certificate-authority-data': Buffer.from(material.caPem).toString('base64'), 'proxy-url': `socks5://socks-user:${password}@127.0.0.1:${guarded.port}` });
      assert.deepEqual(await version(kubeconfig('socks-auth.yaml', server, cluster('s0cks-pa55word')), {}), { gitVersion: 'v1.32.0' });
      assert.deepEqual(guarded.records.map((r) => [r.credentials, r.allowed]), [['socks-user:s0cks-pa55word', true]]);
      const lines: string[] = [];
      const e = await failure(version(kubeconfig('socks-auth2.yaml', server, cluster('wrong-pa55word')), {}, lines));
      assert.equal(e.message, `the SOCKS5 proxy at socks5://****@127.0.0.1:${guarded.port} (proxy-url of cluster "c") rejected the username and password of the proxy URL`);
      assert.ok(!lines.join('\n').includes('wrong-pa55word'));
      const none = await failure(version(kubeconfig('socks-auth3.yaml', server, { 'certificate-authority-data': Buffer.from(material.caPem).toString('base64'), 'proxy-url': `socks5://127.0.0.1:${guarded.port}` }), {}));
      assert.match(none.message, /accepts none of our authentication methods \(none\)/);
      assert.equal(none.hint, 'hint: the proxy wants credentials: write USER:PASSWORD@ before its host in the proxy URL');
    } finally {
      await guarded.close();
    }
  });

  test('failures name the proxy: down, CONNECT refused, a SOCKS5 error, a proxy that never answers (bounded by --request-timeout)', async () => {
    const server = `https://nowhere.invalid:6443`;
    const kc = kubeconfig('nowhere.yaml', server, { 'insecure-skip-tls-verify': true });
    const closed = createNetServer();
    await listen(closed);
    const closedPort = portOf(closed);
    await new Promise<void>((r) => closed.close(() => r()));
    const down = await failure(version(kc, { HTTPS_PROXY: `127.0.0.1:${closedPort}` }));
    assert.equal(down.message, `the proxy at http://127.0.0.1:${closedPort} (HTTPS_PROXY) is unreachable: connection refused`);
    assert.equal(down.exitCode, 1);

    const refused = await failure(version(kc, { HTTPS_PROXY: connect.url }));
    assert.equal(refused.message, `the proxy at ${connect.url} (HTTPS_PROXY) refused CONNECT nowhere.invalid:6443: 502 Bad Gateway`);
    const socksFailed = await failure(version(kc, { https_proxy: socks.url }));
    assert.equal(socksFailed.message, `the SOCKS5 proxy at ${socks.url} (https_proxy) could not connect to nowhere.invalid:6443: host unreachable`);

    const silent = createNetServer((s) => s.on('error', () => undefined));
    await listen(silent);
    try {
      const started = Date.now();
      const slow = await failure(version(kc, { HTTPS_PROXY: `http://127.0.0.1:${portOf(silent)}` }, [], 300));
      assert.equal(slow.message, 'the request to https://nowhere.invalid:6443 timed out after 300ms (--request-timeout)');
      assert.ok(Date.now() - started < 1000, 'not retried');
    } finally {
      (silent as unknown as { close(): void }).close();
    }
  });
});
