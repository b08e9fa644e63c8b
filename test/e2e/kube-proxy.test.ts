// Proxies and client certificates, as kubectl reaches a cluster (issue 26, items 3 and 4), on one
// sandbox served with --tls --tls-san kruise-sandbox.invalid --require-client-cert:
// - The kubeconfig names the server kruise-sandbox.invalid, a name only the test proxies (an HTTP CONNECT
//   one and a SOCKS5 one, test/helpers/proxies.ts) resolve: a command reaches it through them or not at
//   all. HTTPS_PROXY / https_proxy, NO_PROXY / no_proxy and the cluster's proxy-url (http with credentials,
//   socks5) decide as in kubectl; a list, a write, rollout status (a watch) and exec (a WebSocket) go
//   through; the proxy sees the CONNECT line and never our token (TLS runs end to end in the tunnel).
// - The server requires a client certificate: without one, or with one from another CA, the command
//   exits 1 with one line naming the certificate.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { generateTlsMaterial } from '../../src/sandbox/server/tls';
import { REPO_ROOT, runCli, type RunResult } from '../helpers/cli';
import { startConnectProxy, startSocks5Proxy, type TestProxy } from '../helpers/proxies';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const HOST = 'kruise-sandbox.invalid';
const PROXY_USER = 'proxyuser';
const PROXY_PASSWORD = 'pa55-w0rd-of-the-proxy';

describe('proxies and client certificates', () => {
  let sb: Sandbox;
  let port: string;
  let named: string;
  let connect: TestProxy;
  let connectWithAuth: TestProxy;
  let socks: TestProxy;
  let pod: string;
  const files: Record<string, string> = {};
  const cli = (file: string, args: string[], env: Record<string, string> = {}): Promise<RunResult> => runCli(args, { kubeconfig: files[file], env, timeoutMs: 40_000 });
  const ok = (r: RunResult, what: string): void => assert.equal(r.code, 0, `${what}: exit ${r.code}\n${r.stderr}`);

  before(async () => {
    sb = await startSandbox({ tls: true, readyDelay: '50ms', extraArgs: ['--tls-san', HOST, '--require-client-cert'] });
    port = new URL(sb.url).port;
    named = `https://${HOST}:${port}`;
    const hosts = { [HOST]: '127.0.0.1' };
    [connect, connectWithAuth, socks] = await Promise.all([startConnectProxy({ hosts }), startConnectProxy({ hosts, credentials: `${PROXY_USER}:${PROXY_PASSWORD}` }), startSocks5Proxy({ hosts })]);
    const text = readFileSync(sb.kubeconfig, 'utf8');
    const byName = text.replace(sb.url, named);
    const withProxyUrl = (url: string): string => byName.replace(`    server: ${named}\n`, `    server: ${named}\n    proxy-url: ${url}\n`);
    const other = (await generateTlsMaterial({ clientUsers: ['admin'] })).clients.admin!;
    const b64 = (pem: string): string => Buffer.from(pem).toString('base64');
    const variants: Record<string, string> = {
      named: byName,
      proxyUrlHttp: withProxyUrl(`http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:${connectWithAuth.port}`),
      proxyUrlWrongPassword: withProxyUrl(`http://${PROXY_USER}:not-the-password@127.0.0.1:${connectWithAuth.port}`),
      proxyUrlSocks: withProxyUrl(`socks5://127.0.0.1:${socks.port}`),
      proxyUrlFtp: withProxyUrl(`ftp://127.0.0.1:${socks.port}`),
      noCert: text.replace(/^ {4}client-(certificate|key)-data: .*\n/gm, ''),
      otherCa: text.replace(/(client-certificate-data: ).*/, `$1${b64(other.certPem)}`).replace(/(client-key-data: ).*/, `$1${b64(other.keyPem)}`),
    };
    for (const [name, body] of Object.entries(variants)) {
      files[name] = join(sb.dir, `${name}.kubeconfig`);
      writeFileSync(files[name], body, { mode: 0o600 });
    }
    const cloneset = parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'sandbox', 'cloneset-web.yaml'), 'utf8'));
    const created = await sb.api('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets', cloneset);
    assert.equal(created.status, 201, created.text);
    pod = await waitUntil('a running web pod', async () => {
      const items = ((await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items ?? []) as Array<{ metadata: { name: string }; status?: { phase?: string } }>;
      return items.find((p) => p.status?.phase === 'Running')?.metadata.name;
    });
  });
  after(async () => {
    await Promise.all([connect, connectWithAuth, socks].map((p) => p?.close()));
    await sb?.stop();
  });

  /** What a proxy saw outside its tunnels carried nothing of ours but the CONNECT request (and only the proxy's own credentials). */
  const assertSawNothingOfOurs = (proxy: TestProxy): void => {
    assert.ok(proxy.records.length > 0, 'the proxy was used');
    for (const r of proxy.records) {
      assert.ok(r.kind === 'connect' || r.kind === 'socks5', `only tunnels, not ${r.kind}: ${r.head}`);
      assert.equal(r.target, `${HOST}:${port}`);
      assert.doesNotMatch(r.head, /^authorization:/im, 'no Authorization header outside the tunnel');
    }
    assert.equal(proxy.saw(sb.tokens.admin!), false, 'the bearer token never crossed the proxy in clear');
    assert.equal(proxy.saw('\r\nAuthorization:'), false, 'no Authorization header in clear');
  };

  test('HTTPS_PROXY naming a CONNECT proxy: a list, a write, rollout status (a watch) and exec (a WebSocket) reach a server only the proxy resolves; it sees CONNECT lines only', async () => {
    const direct = await cli('named', ['get', 'all']);
    assert.equal(direct.code, 1);
    assert.equal(direct.stderr.trim(), `error: the server at ${named} is unreachable: host ${HOST} not found`, 'without the proxy the name does not resolve');

    const env = { HTTPS_PROXY: connect.url };
    const list = await cli('named', ['get', 'all'], env);
    ok(list, 'get all');
    assert.match(list.stdout, /^cloneset\.apps\.kruise\.io\/web\s/m);
    sb.clearAudit();
    ok(await cli('named', ['set', 'image', 'cloneset/web', 'nginx=nginx:1.26.0'], env), 'set image');
    const status = await cli('named', ['rollout', 'status', 'cloneset/web', '--timeout=60s'], env);
    ok(status, 'rollout status');
    assert.match(status.stdout, /successfully rolled out/);
    const exec = await cli('named', ['exec', pod, '-c', 'nginx', '--', 'echo', 'through', 'the', 'proxy'], env);
    ok(exec, 'exec');
    assert.equal(exec.stdout, 'through the proxy\n');
    const audit = sb.audit();
    assert.ok(audit.some((e) => e.verb === 'patch' && e.path.endsWith('/clonesets/web')), 'the write arrived');
    assert.ok(audit.some((e) => e.verb === 'watch'), 'rollout status watched');
    assert.ok(audit.some((e) => e.path.endsWith(`/pods/${pod}/exec`) && e.code === 101), 'exec upgraded');
    assertSawNothingOfOurs(connect);
    assert.ok(connect.records.every((r) => r.credentials === undefined), 'no Proxy-Authorization to a proxy URL without userinfo');
  });

  test('https_proxy (lower case) naming a SOCKS5 proxy: the same through SOCKS5 CONNECT; -v=6 names the proxy; HTTPS_PROXY wins over https_proxy', async () => {
    const env = { https_proxy: socks.url };
    const list = await cli('named', ['get', 'all', '-v=6'], env);
    ok(list, 'get all');
    assert.match(list.stderr, new RegExp(`^Proxy: ${socks.url} \\(https_proxy\\): SOCKS5 CONNECT ${HOST}:${port}$`, 'm'));
    ok(await cli('named', ['rollout', 'status', 'cloneset/web', '--timeout=30s'], env), 'rollout status');
    const exec = await cli('named', ['exec', pod, '--', 'echo', 'socks'], env);
    ok(exec, 'exec');
    assert.equal(exec.stdout, 'socks\n');
    assertSawNothingOfOurs(socks);

    const before = socks.records.length;
    const both = await cli('named', ['get', 'all', '-v=6'], { HTTPS_PROXY: connect.url, https_proxy: socks.url });
    ok(both, 'get all');
    assert.match(both.stderr, new RegExp(`^Proxy: ${connect.url} \\(HTTPS_PROXY\\): CONNECT ${HOST}:${port}$`, 'm'));
    assert.equal(socks.records.length, before);
  });

  test('NO_PROXY / no_proxy exempt the server (a domain with a leading dot, the host with its port): the name then does not resolve, and the proxy sees nothing', async () => {
    const before = connect.records.length;
    const exempt: Array<Record<string, string>> = [{ HTTPS_PROXY: connect.url, NO_PROXY: 'example.com, .invalid' }, { HTTPS_PROXY: connect.url, no_proxy: `${HOST}:${port}` }];
    for (const env of exempt) {
      const r = await cli('named', ['get', 'all', '-v=6'], env);
      assert.equal(r.code, 1, JSON.stringify(env));
      assert.match(r.stderr, new RegExp(`^Proxy: none for ${named}: (NO_PROXY|no_proxy) matches ${HOST}$`, 'm'));
      assert.match(r.stderr, new RegExp(`^error: the server at ${named} is unreachable: host ${HOST} not found$`, 'm'));
    }
    assert.equal(connect.records.length, before, 'the proxy saw no connection');
    // Another port is another address: the proxy applies.
    ok(await cli('named', ['get', 'all'], { HTTPS_PROXY: connect.url, NO_PROXY: `${HOST}:1` }), 'get all');
    assert.ok(connect.records.length > before);
  });

  test("the cluster's proxy-url (http with credentials) wins over HTTPS_PROXY and NO_PROXY; the password is never printed, even at -v=9; a wrong one is the proxy's 407", async () => {
    const env = { HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: '*' };
    const list = await cli('proxyUrlHttp', ['get', 'all', '-v=9'], env);
    ok(list, 'get all');
    assert.match(list.stderr, new RegExp(`^Proxy: http://\\*\\*\\*\\*@127\\.0\\.0\\.1:${connectWithAuth.port} \\(proxy-url of cluster "kruise-sandbox"\\): CONNECT ${HOST}:${port}$`, 'm'));
    const exec = await cli('proxyUrlHttp', ['exec', pod, '--', 'echo', 'proxy-url'], env);
    ok(exec, 'exec');
    assert.equal(exec.stdout, 'proxy-url\n');
    for (const out of [list.stdout, list.stderr, exec.stderr]) assert.ok(!out.includes(PROXY_PASSWORD), 'the proxy password is never printed');
    assertSawNothingOfOurs(connectWithAuth);
    assert.ok(connectWithAuth.records.every((r) => r.credentials === `${PROXY_USER}:${PROXY_PASSWORD}` && r.allowed));

    const wrong = await cli('proxyUrlWrongPassword', ['get', 'all', '-v=9']);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, new RegExp(`^error: the proxy at http://\\*\\*\\*\\*@127\\.0\\.0\\.1:${connectWithAuth.port} \\(proxy-url of cluster "kruise-sandbox"\\) refused CONNECT ${HOST}:${port}: 407 Proxy Authentication Required$`, 'm'));
    assert.ok(!wrong.stderr.includes('not-the-password'));
  });

  test("the cluster's proxy-url naming a SOCKS5 proxy; a scheme client-go does not take is a usage error", async () => {
    const before = socks.records.length;
    ok(await cli('proxyUrlSocks', ['get', 'all']), 'get all');
    const exec = await cli('proxyUrlSocks', ['exec', pod, '--', 'echo', 'socks5'], { NO_PROXY: HOST });
    ok(exec, 'exec');
    assert.equal(exec.stdout, 'socks5\n');
    assert.ok(socks.records.length > before);
    assertSawNothingOfOurs(socks);

    const ftp = await cli('proxyUrlFtp', ['get', 'all']);
    assert.equal(ftp.code, 2);
    assert.equal(ftp.stderr.trim(), `error: invalid 'proxy-url' "ftp://127.0.0.1:${socks.port}" for cluster "kruise-sandbox": unsupported scheme "ftp", must be http, https, or socks5`);
  });

  test('a server that requires a client certificate, given none: exit 1 naming it (a read, a write, exec)', async () => {
    for (const args of [['get', 'all'], ['set', 'image', 'cloneset/web', 'nginx=nginx:1.27.0'], ['exec', pod, '--', 'true']]) {
      const r = await cli('noCert', args);
      assert.equal(r.code, 1, args.join(' '));
      assert.equal(r.stderr.split('\n')[0], `error: the server at ${sb.url} requires a client certificate and none was given (kubeconfig user "kruise-sandbox-admin")`, args.join(' '));
    }
  });

  test('a server that requires a client certificate, given one from another CA: exit 1 naming it (a read, a write, exec)', async () => {
    for (const args of [['get', 'all'], ['set', 'image', 'cloneset/web', 'nginx=nginx:1.27.0'], ['exec', pod, '--', 'true']]) {
      const r = await cli('otherCa', args);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.stderr.split('\n')[0]!, new RegExp(`^error: the server at ${sb.url} rejected the client certificate \\(kubeconfig user "kruise-sandbox-admin"\\)`), args.join(' '));
    }
  });
});
