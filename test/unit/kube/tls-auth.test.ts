// TLS verification, exec credential plugins and token redaction through connectWith(),
// against a local HTTPS server with certificates made by openssl; pods/exec (a WebSocket on a
// connection of its own) under the same settings.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';
import { stringify } from 'yaml';
import { connectWith } from '../../../src/kube/connect';
import { defaultGlobals, type GlobalFlags } from '../../../src/cli/globals';
import { CliError } from '../../../src/cli/exit';
import { CHANNEL, channelMessage } from '../../../src/lib/remotecommand';

const dir = mkdtempSync(join(tmpdir(), 'kk-tls-'));
function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}
function makeCa(name: string): void {
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`);
}
makeCa('ca');
makeCa('other-ca');
writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:api.internal\n');
openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=apiserver');
openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'san.ext');

openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=cert-user/O=devs');
openssl('x509', '-req', '-in', 'client.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.crt', '-days', '2');

const TOKEN = 'tls-test-token-abcdef123456';
const EXEC_TOKEN = 'exec-plugin-token-987654321';
const seen: Array<{ auth?: string; url?: string; impersonate?: string | string[]; impersonation?: Record<string, string[]> }> = [];
/** Who a request authenticates as: its client certificate's CN, or which token it bears. */
function authenticate(req: import('node:http').IncomingMessage): string | undefined {
  const impersonation = Object.fromEntries(Object.entries(req.headersDistinct).filter(([k]) => k.startsWith('impersonate-')).map(([k, v]) => [k, v ?? []]));
  seen.push({ auth: req.headers.authorization, url: req.url, impersonate: req.headers['impersonate-user'], impersonation });
  const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate?.();
  const certUser = peer && (req.socket as import('node:tls').TLSSocket).authorized ? peer.subject?.CN : undefined;
  if (certUser === 'cert-user') return certUser;
  return req.headers.authorization === `Bearer ${TOKEN}` ? 'token' : req.headers.authorization === `Bearer ${EXEC_TOKEN}` ? 'exec-plugin' : undefined;
}
const UNAUTHORIZED = JSON.stringify({ kind: 'Status', code: 401, reason: 'Unauthorized', message: 'Unauthorized' });
const server: Server = createServer({ key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.crt')), ca: readFileSync(join(dir, 'ca.crt')), requestCert: true, rejectUnauthorized: false }, (req, res) => {
  const ok = authenticate(req) !== undefined;
  res.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
  res.end(ok ? JSON.stringify({ major: '1', minor: '32', gitVersion: 'v1.32.0' }) : UNAUTHORIZED);
});
// pods/exec: the user it authenticated as on stdout, then a Success Status.
const webSockets = new WebSocketServer({ noServer: true, handleProtocols: (offered) => [...offered][0] ?? false });
server.on('upgrade', (req: import('node:http').IncomingMessage, socket: import('node:stream').Duplex, head: Buffer) => {
  socket.on('error', () => undefined);
  const who = authenticate(req);
  if (!who) return socket.end(`HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${UNAUTHORIZED.length}\r\n\r\n${UNAUTHORIZED}`);
  webSockets.handleUpgrade(req, socket, head, (ws) => {
    ws.send(channelMessage(CHANNEL.stdout, Buffer.from(`${who}\n`)));
    ws.send(channelMessage(CHANNEL.error, Buffer.from('{"metadata":{},"status":"Success"}')));
    ws.close(1000);
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
after(() => new Promise<void>((r) => {
  server.closeAllConnections();
  server.close(() => r());
}));

function kubeconfig(name: string, cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  const p = join(dir, name);
  writeFileSync(p, stringify({ apiVersion: 'v1', kind: 'Config', 'current-context': 'c', clusters: [{ name: 'c', cluster: { server: url, ...cluster } }], users: [{ name: 'me', user }], contexts: [{ name: 'c', context: { cluster: 'c', user: 'me' } }] }));
  return p;
}

async function version(kc: string, over: Partial<GlobalFlags> = {}, lines: string[] = []): Promise<unknown> {
  const client = await connectWith({ globals: { ...defaultGlobals(), kubeconfig: kc, ...over }, env: { HOME: dir }, log: (l) => lines.push(l) });
  try {
    return await client.raw('/version');
  } finally {
    client.close();
  }
}

/** `exec p -- whoami` through the client: what the server says the WebSocket authenticated as. */
async function execWho(kc: string, over: Partial<GlobalFlags> = {}, lines: string[] = []): Promise<string> {
  const client = await connectWith({ globals: { ...defaultGlobals(), kubeconfig: kc, ...over }, env: { HOME: dir }, log: (l) => lines.push(l) });
  let out = '';
  try {
    const outcome = await client.exec({ namespace: 'default', pod: 'p', container: 'c', command: ['whoami'], stdin: false, stdout: true, stderr: true, tty: false }, { stdout: (c) => (out += c.toString()), stderr: () => undefined });
    assert.equal(outcome.exitCode, 0);
    return out;
  } finally {
    client.close();
  }
}

const caData = readFileSync(join(dir, 'ca.crt')).toString('base64');

test('the right CA (data or file) verifies the server', async () => {
  assert.deepEqual(await version(kubeconfig('ok.yaml', { 'certificate-authority-data': caData }, { token: TOKEN })), { major: '1', minor: '32', gitVersion: 'v1.32.0' });
  assert.ok(await version(kubeconfig('okfile.yaml', { 'certificate-authority': 'ca.crt' }, { token: TOKEN })));
});

test('a wrong or missing CA fails with a clear error and a --certificate-authority hint, never silently', async () => {
  const kc = kubeconfig('wrong.yaml', { 'certificate-authority': join(dir, 'other-ca.crt') }, { token: TOKEN });
  await assert.rejects(version(kc), (e: unknown) => {
    assert.ok(e instanceof CliError);
    assert.equal(e.exitCode, 1);
    assert.match(e.message, /certificate signed by unknown authority/);
    assert.match(e.message, new RegExp(url.replace(/\./g, '\\.')));
    assert.match(e.hint ?? '', /--certificate-authority/);
    return true;
  });
  await assert.rejects(version(kubeconfig('none.yaml', {}, { token: TOKEN })), /certificate signed by unknown authority/);
  // The flag fixes it; --insecure-skip-tls-verify only when asked.
  assert.ok(await version(kc, { certificateAuthority: join(dir, 'ca.crt') }));
  assert.ok(await version(kc, { insecureSkipTlsVerify: true }));
  assert.ok(await version(kubeconfig('insecure.yaml', { 'insecure-skip-tls-verify': true }, { token: TOKEN })));
});

test('--tls-server-name verifies against another name', async () => {
  const kc = kubeconfig('sni.yaml', { 'certificate-authority-data': caData }, { token: TOKEN });
  assert.ok(await version(kc, { tlsServerName: 'api.internal' }));
  await assert.rejects(version(kc, { tlsServerName: 'wrong.example' }), /not valid for this host name/);
});

test('a wrong token is a one-line Unauthorized error that never shows the token, even at -v=9', async () => {
  const lines: string[] = [];
  const bad = 'wrong-token-value-424242';
  await assert.rejects(version(kubeconfig('badtoken.yaml', { 'certificate-authority-data': caData }, { token: bad }), { verbosity: 9 }, lines), (e: unknown) => {
    assert.ok(e instanceof CliError);
    assert.match(e.message, /Unauthorized/);
    assert.ok(!e.message.includes(bad));
    return true;
  });
  assert.ok(lines.length > 3);
  assert.ok(!lines.join('\n').includes(bad), lines.join('\n'));
  assert.ok(lines.some((l) => l.includes('Authorization: Bearer <redacted>')));
});

test('impersonation headers are sent', async () => {
  seen.length = 0;
  await version(kubeconfig('as.yaml', { 'certificate-authority-data': caData }, { token: TOKEN }), { as: 'alice' });
  assert.equal(seen[0]!.impersonate, 'alice');
});

test('--as-uid and --as-user-extra (kubectl\'s flags) send Impersonate-Uid and one Impersonate-Extra-KEY header per value, the key percent-encoded; without --as they are a usage error', async () => {
  seen.length = 0;
  const kc = kubeconfig('as-extra.yaml', { 'certificate-authority-data': caData }, { token: TOKEN });
  await version(kc, { as: 'alice', asUid: '06f6ce97-e2c5', asUserExtra: ['scopes=openid', 'scopes=profile', 'acme.com/project=shop'] });
  assert.deepEqual(seen[0]!.impersonation, {
    'impersonate-user': ['alice'],
    'impersonate-uid': ['06f6ce97-e2c5'],
    'impersonate-extra-scopes': ['openid', 'profile'],
    'impersonate-extra-acme.com%2fproject': ['shop'],
  });
  await assert.rejects(version(kc, { asUid: 'u1' }), (e: unknown) => e instanceof CliError && e.exitCode === 2 && e.message === '--as-uid needs --as (a user to impersonate)');
  await assert.rejects(version(kc, { as: 'alice', asUserExtra: ['novalue'] }), (e: unknown) => e instanceof CliError && e.exitCode === 2 && /"--as-user-extra" flag: expected KEY=VALUE/.test(e.message));
});

test('exec credential plugin: relative to the kubeconfig, runs without a shell, its token is used and never printed', async () => {
  const marker = join(dir, 'shell-ran');
  const plugin = join(dir, 'plugin.mjs');
  writeFileSync(
    plugin,
    `#!${process.execPath}\nprocess.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: '${EXEC_TOKEN}', expirationTimestamp: new Date(Date.now() + 3600e3).toISOString() } }));\n`,
  );
  chmodSync(plugin, 0o755);
  const kc = kubeconfig('exec.yaml', { 'certificate-authority-data': caData }, { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './plugin.mjs', args: [`$(touch ${marker})`, `; touch ${marker}`], interactiveMode: 'Never' } });
  const lines: string[] = [];
  seen.length = 0;
  assert.ok(await version(kc, { verbosity: 9 }, lines));
  assert.equal(seen[0]!.auth, `Bearer ${EXEC_TOKEN}`);
  assert.ok(!existsSync(marker), 'no shell interpreted the arguments');
  assert.ok(!lines.join('\n').includes(EXEC_TOKEN), lines.join('\n'));
});

test('a failing exec plugin is one line naming the user and plugin, without its secrets', async () => {
  const plugin = join(dir, 'failing.mjs');
  writeFileSync(plugin, `#!${process.execPath}\nprocess.stderr.write('token ${EXEC_TOKEN} expired\\nmore detail\\n'); process.exit(3);\n`);
  chmodSync(plugin, 0o755);
  const kc = kubeconfig('exec-fail.yaml', { 'certificate-authority-data': caData }, { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin } });
  await assert.rejects(version(kc), (e: unknown) => {
    assert.ok(e instanceof CliError);
    assert.match(e.message, /^getting credentials for user "me" from exec plugin ".*failing.mjs" failed: token <redacted> expired$/);
    assert.ok(!e.message.includes(EXEC_TOKEN));
    assert.ok(!e.message.includes('\n'));
    return true;
  });
});

test('an exec plugin that is not installed names the command, the kubeconfig user and the installHint, as client-go does (exec.go "executable X not found"); it said "spawn X ENOENT"', async () => {
  const exec = { apiVersion: 'client.authentication.k8s.io/v1', command: 'no-such-credential-plugin', interactiveMode: 'Never' };
  await assert.rejects(version(kubeconfig('exec-missing.yaml', { 'certificate-authority-data': caData }, { exec })), (e: unknown) => {
    assert.ok(e instanceof CliError);
    assert.equal(e.message, 'getting credentials for user "me": exec plugin: executable no-such-credential-plugin not found: it looks like a client-go credential plugin that is not installed (https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins)');
    return true;
  });
  const hinted = { ...exec, installHint: 'Install gke-gcloud-auth-plugin:\n  gcloud components install gke-gcloud-auth-plugin\n' };
  await assert.rejects(version(kubeconfig('exec-hint.yaml', { 'certificate-authority-data': caData }, { exec: hinted })), (e: unknown) => {
    assert.ok(e instanceof CliError);
    assert.equal(e.message, 'getting credentials for user "me": exec plugin: executable no-such-credential-plugin not found: Install gke-gcloud-auth-plugin: gcloud components install gke-gcloud-auth-plugin');
    return true;
  });
});

test('client certificates (data or files) authenticate; the key never appears at -v=9', async () => {
  const key = readFileSync(join(dir, 'client.key'), 'utf8');
  const lines: string[] = [];
  const kc = kubeconfig('cert.yaml', { 'certificate-authority-data': caData }, {
    'client-certificate-data': readFileSync(join(dir, 'client.crt')).toString('base64'),
    'client-key-data': Buffer.from(key).toString('base64'),
  });
  assert.ok(await version(kc, { verbosity: 9 }, lines));
  const all = lines.join('\n');
  assert.ok(!all.includes(Buffer.from(key).toString('base64')) && !all.includes(key.split('\n')[1]!), 'client key leaked');
  const files = kubeconfig('certfiles.yaml', { 'certificate-authority-data': caData }, { 'client-certificate': 'client.crt', 'client-key': 'client.key' });
  assert.ok(await version(files));
  // A key that does not belong to the certificate is caught with a clear message.
  const mismatch = kubeconfig('mismatch.yaml', { 'certificate-authority-data': caData }, { 'client-certificate': 'client.crt', 'client-key': 'server.key' });
  await assert.rejects(version(mismatch), (e: unknown) => e instanceof CliError && /client certificate and client key do not match/.test(e.message));
});

test('exec (WebSocket, a connection of its own) under the same settings: CA, --insecure-skip-tls-verify, --tls-server-name, client certificate, token, exec plugin, impersonation; never a secret at -v=9', async () => {
  const withToken = kubeconfig('ws-token.yaml', { 'certificate-authority-data': caData }, { token: TOKEN });
  assert.equal(await execWho(withToken), 'token\n');
  // Verified unless told otherwise.
  const wrongCa = kubeconfig('ws-wrong.yaml', { 'certificate-authority': join(dir, 'other-ca.crt') }, { token: TOKEN });
  await assert.rejects(execWho(wrongCa), (e: unknown) => e instanceof CliError && /certificate signed by unknown authority/.test(e.message) && /--certificate-authority/.test(e.hint ?? ''));
  await assert.rejects(execWho(kubeconfig('ws-none.yaml', {}, { token: TOKEN })), /certificate signed by unknown authority/);
  assert.equal(await execWho(wrongCa, { insecureSkipTlsVerify: true }), 'token\n');
  assert.equal(await execWho(kubeconfig('ws-insecure.yaml', { 'insecure-skip-tls-verify': true }, { token: TOKEN })), 'token\n');
  assert.equal(await execWho(withToken, { tlsServerName: 'api.internal' }), 'token\n');
  await assert.rejects(execWho(withToken, { tlsServerName: 'wrong.example' }), /not valid for this host name/);
  // A client certificate authenticates; its key never shows.
  const key = readFileSync(join(dir, 'client.key'), 'utf8');
  const lines: string[] = [];
  const certs = kubeconfig('ws-cert.yaml', { 'certificate-authority-data': caData }, { 'client-certificate-data': readFileSync(join(dir, 'client.crt')).toString('base64'), 'client-key-data': Buffer.from(key).toString('base64') });
  assert.equal(await execWho(certs, { verbosity: 9 }, lines), 'cert-user\n');
  assert.ok(!lines.join('\n').includes(key.split('\n')[1]!), 'client key leaked');
  // The exec plugin's token, redacted at -v=9; the impersonation header.
  const plugin = join(dir, 'ws-plugin.mjs');
  writeFileSync(plugin, `#!${process.execPath}\nprocess.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: '${EXEC_TOKEN}' } }));\n`);
  chmodSync(plugin, 0o755);
  const viaPlugin = kubeconfig('ws-exec.yaml', { 'certificate-authority-data': caData }, { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' } });
  lines.length = 0;
  seen.length = 0;
  assert.equal(await execWho(viaPlugin, { verbosity: 9, as: 'alice' }, lines), 'exec-plugin\n');
  assert.equal(seen[0]!.impersonate, 'alice');
  assert.ok(lines.some((l) => /^GET https:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/default\/pods\/p\/exec\?command=whoami&container=c&stdout=true&stderr=true 101 Switching Protocols in \d+ milliseconds$/.test(l)), lines.join('\n'));
  assert.ok(lines.includes('Request Header: "Authorization: Bearer <redacted>"'), lines.join('\n'));
  assert.ok(lines.includes('Request Header: "Impersonate-User: alice"'), lines.join('\n'));
  assert.ok(!lines.join('\n').includes(EXEC_TOKEN), lines.join('\n'));
  // A wrong token: the server's 401, one line, without the token.
  const bad = 'wrong-ws-token-31337';
  lines.length = 0;
  await assert.rejects(execWho(kubeconfig('ws-bad.yaml', { 'certificate-authority-data': caData }, { token: bad }), { verbosity: 9 }, lines), (e: unknown) => e instanceof CliError && /Unauthorized/.test(e.message) && !e.message.includes(bad) && !e.message.includes('\n'));
  assert.ok(!lines.join('\n').includes(bad), lines.join('\n'));
});
