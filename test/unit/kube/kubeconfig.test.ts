import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { loadKubeconfig, normaliseServer, resolveConnection } from '../../../src/kube/kubeconfig';
import { defaultGlobals, type GlobalFlags } from '../../../src/cli/globals';
import { CliError } from '../../../src/cli/exit';

const dir = mkdtempSync(join(tmpdir(), 'kk-kubeconfig-'));

function file(name: string, doc: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof doc === 'string' ? doc : stringify(doc));
  return p;
}

function config(opts: { current?: string; clusters?: Record<string, unknown>; users?: Record<string, unknown>; contexts?: Record<string, unknown> }) {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': opts.current,
    clusters: Object.entries(opts.clusters ?? {}).map(([name, cluster]) => ({ name, cluster })),
    users: Object.entries(opts.users ?? {}).map(([name, user]) => ({ name, user })),
    contexts: Object.entries(opts.contexts ?? {}).map(([name, context]) => ({ name, context })),
  };
}

const first = file(
  'first.yaml',
  config({
    current: 'dev',
    clusters: { shared: { server: 'https://first:6443' }, dev: { server: 'https://dev:6443', 'insecure-skip-tls-verify': true } },
    users: { shared: { token: 'first-token-123' }, dev: { token: 'dev-token-123' } },
    contexts: { shared: { cluster: 'shared', user: 'shared', namespace: 'first-ns' }, dev: { cluster: 'dev', user: 'dev' } },
  }),
);
const second = file(
  'second.yaml',
  config({
    current: 'prod',
    clusters: { shared: { server: 'https://second:6443' }, prod: { server: 'https://prod:6443' } },
    users: { shared: { token: 'second-token-123' }, prod: { token: 'prod-token-123' } },
    contexts: { shared: { cluster: 'shared', user: 'shared' }, prod: { cluster: 'prod', user: 'prod', namespace: 'apps' } },
  }),
);

function globals(over: Partial<GlobalFlags> = {}): GlobalFlags {
  return { ...defaultGlobals(), ...over };
}

async function connect(env: { KUBECONFIG?: string; HOME?: string }, over: Partial<GlobalFlags> = {}) {
  const g = globals(over);
  return resolveConnection(await loadKubeconfig(g, env), g);
}

async function usage(fn: () => unknown, re: RegExp): Promise<void> {
  await assert.rejects(async () => fn(), (e: unknown) => {
    assert.ok(e instanceof CliError, String(e));
    assert.equal(e.exitCode, 2, e.message);
    assert.match(e.message, re);
    assert.ok(!e.message.includes('\n'), 'one line');
    return true;
  });
}

test('KUBECONFIG merge: the first file wins for duplicate names and for current-context', async () => {
  const conn = await connect({ KUBECONFIG: `${first}:${second}` });
  assert.equal(conn.contextName, 'dev');
  assert.equal(conn.server, 'https://dev:6443');
  const shared = await connect({ KUBECONFIG: `${first}:${second}` }, { context: 'shared' });
  assert.equal(shared.server, 'https://first:6443');
  assert.equal(shared.token, 'first-token-123');
  // Names only the second file defines are still available.
  const prod = await connect({ KUBECONFIG: `${first}:${second}` }, { context: 'prod' });
  assert.equal(prod.server, 'https://prod:6443');
  assert.equal(prod.namespace, 'apps');
  // Reversed order: the second file wins now.
  assert.equal((await connect({ KUBECONFIG: `${second}:${first}` })).contextName, 'prod');
  assert.equal((await connect({ KUBECONFIG: `${second}:${first}` }, { context: 'shared' })).server, 'https://second:6443');
});

test('KUBECONFIG: missing files are skipped; empty current-context falls through to the next file', async () => {
  const noCurrent = file('nocurrent.yaml', config({ clusters: { x: { server: 'https://x' } } }));
  const conn = await connect({ KUBECONFIG: `${join(dir, 'missing.yaml')}:${noCurrent}:${second}` });
  assert.equal(conn.contextName, 'prod');
});

test('--kubeconfig names exactly one file and it must exist', async () => {
  await usage(() => connect({ KUBECONFIG: first }, { kubeconfig: join(dir, 'nope.yaml') }), /kubeconfig file ".*nope.yaml" does not exist/);
  const conn = await connect({ KUBECONFIG: first }, { kubeconfig: second });
  assert.equal(conn.contextName, 'prod');
});

test('default file is ~/.kube/config; none at all is a clear error unless --server is given', async () => {
  const home = mkdtempSync(join(tmpdir(), 'kk-home-'));
  await usage(() => connect({ HOME: home }), /no kubeconfig found/);
  const conn = await connect({ HOME: home }, { server: 'https://direct:6443', token: 'abcdefgh' });
  assert.equal(conn.server, 'https://direct:6443');
  assert.equal(conn.namespace, 'default');
});

test('bad kubeconfig files: not YAML, not a mapping, no current context, dangling references', async () => {
  const bad = file('bad.yaml', 'clusters: [\n  - name: x\n   bad: : :\n');
  await usage(() => connect({}, { kubeconfig: bad }), /kubeconfig ".*bad.yaml" is not valid YAML/);
  // The position and the cause, not a dangling "... at line 4, column 1:" (yaml's code frame was cut off).
  const flow = file('flow.yaml', 'apiVersion: v1\nkind: Config\nclusters: [{name: c\n');
  await usage(() => connect({}, { kubeconfig: flow }), /^kubeconfig ".*flow\.yaml" is not valid YAML \(line 4, column 1\): Flow map in block collection must be sufficiently indented and end with a \}$/);
  const list = file('list.yaml', '- a\n- b\n');
  await usage(() => connect({}, { kubeconfig: list }), /is not valid: expected a YAML mapping/);
  const noCtx = file('noctx.yaml', config({ clusters: { a: { server: 'https://a' } }, users: { a: {} }, contexts: { a: { cluster: 'a', user: 'a' } } }));
  await usage(() => connect({}, { kubeconfig: noCtx }), /no current context is set/);
  const dangling = file('dangling.yaml', config({ current: 'c', clusters: { a: { server: 'https://a' } }, contexts: { c: { cluster: 'a', user: 'ghost' } } }));
  await usage(() => connect({}, { kubeconfig: dangling }), /context "c" names user "ghost", which does not exist/);
  const noCluster = file('nocluster.yaml', config({ current: 'c', contexts: { c: { cluster: 'gone' } } }));
  await usage(() => connect({}, { kubeconfig: noCluster }), /context "c" names cluster "gone", which does not exist/);
  const noServer = file('noserver.yaml', config({ current: 'c', clusters: { a: {} }, contexts: { c: { cluster: 'a' } } }));
  await usage(() => connect({}, { kubeconfig: noServer }), /no server is set for cluster "a"/);
  const missingCurrent = file('missingcurrent.yaml', config({ current: 'ghost', clusters: { a: { server: 'https://a' } }, contexts: { c: { cluster: 'a' } } }));
  await usage(() => connect({}, { kubeconfig: missingCurrent }), /current context "ghost" does not exist/);
});

test('--context is validated with a clear error (exit 2)', async () => {
  await usage(() => connect({ KUBECONFIG: first }, { context: 'x' }), /^context "x" does not exist in the kubeconfig$/);
  await usage(() => connect({ KUBECONFIG: first }, { cluster: 'x' }), /cluster "x" does not exist/);
  await usage(() => connect({ KUBECONFIG: first }, { user: 'x' }), /user "x" does not exist/);
});

test('flags override the kubeconfig field by field', async () => {
  const caFile = file('ca.pem', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  const conn = await connect(
    { KUBECONFIG: `${first}:${second}` },
    { context: 'prod', cluster: 'shared', user: 'dev', server: 'https://override:1234', namespace: 'ns1', certificateAuthority: caFile, tlsServerName: 'api.internal', as: 'alice', asGroups: ['devs', 'ops'] },
  );
  assert.equal(conn.server, 'https://override:1234');
  assert.equal(conn.clusterName, 'shared');
  assert.equal(conn.userEntryName, 'dev');
  assert.equal(conn.token, 'dev-token-123');
  assert.equal(conn.namespace, 'ns1');
  assert.equal(conn.tlsServerName, 'api.internal');
  assert.equal(conn.insecureSkipTlsVerify, false);
  assert.match(conn.ca!.toString(), /BEGIN CERTIFICATE/);
  assert.deepEqual(conn.impersonate, { user: 'alice', groups: ['devs', 'ops'] });
  assert.equal((await connect({ KUBECONFIG: first }, { token: 'flag-token-1' })).token, 'flag-token-1');
  // --insecure-skip-tls-verify=false overrides a kubeconfig that says insecure.
  assert.equal((await connect({ KUBECONFIG: first })).insecureSkipTlsVerify, true);
  assert.equal((await connect({ KUBECONFIG: first }, { insecureSkipTlsVerify: false })).insecureSkipTlsVerify, false);
  await usage(() => connect({ KUBECONFIG: first }, { insecureSkipTlsVerify: true, certificateAuthority: caFile }), /insecure flag is not allowed/);
});

test('namespace: -n, else the context namespace, else default; validated', async () => {
  assert.equal((await connect({ KUBECONFIG: first }, { context: 'shared' })).namespace, 'first-ns');
  assert.equal((await connect({ KUBECONFIG: first }, { context: 'shared', namespace: 'mine' })).namespace, 'mine');
  assert.equal((await connect({ KUBECONFIG: first }, { context: 'shared', namespace: 'mine' })).namespaceFromFlag, true);
  assert.equal((await connect({ KUBECONFIG: first }, { context: 'dev' })).namespace, 'default');
  await usage(() => connect({ KUBECONFIG: first }, { namespace: 'Bad_NS' }), /invalid namespace "Bad_NS"/);
  await usage(() => connect({ KUBECONFIG: first }, { namespace: '../x' }), /invalid namespace/);
});

test('credentials: data fields, files relative to the kubeconfig, token files, missing files', async () => {
  const sub = mkdtempSync(join(dir, 'rel-'));
  writeFileSync(join(sub, 'token'), 'file-token-xyz\n');
  writeFileSync(join(sub, 'client.crt'), 'CERT');
  writeFileSync(join(sub, 'client.key'), 'KEY');
  const kc = join(sub, 'config');
  writeFileSync(
    kc,
    stringify(
      config({
        current: 'a',
        clusters: { a: { server: 'https://a', 'certificate-authority-data': Buffer.from('CA-PEM').toString('base64') } },
        users: { a: { tokenFile: 'token', 'client-certificate': 'client.crt', 'client-key': 'client.key' }, b: { 'client-certificate-data': Buffer.from('C').toString('base64') }, c: { tokenFile: 'nope' } },
        contexts: { a: { cluster: 'a', user: 'a' }, b: { cluster: 'a', user: 'b' }, c: { cluster: 'a', user: 'c' } },
      }),
    ),
  );
  const conn = await connect({}, { kubeconfig: kc });
  assert.equal(conn.token, 'file-token-xyz');
  assert.equal(conn.clientCert!.toString(), 'CERT');
  assert.equal(conn.clientKey!.toString(), 'KEY');
  assert.equal(conn.ca!.toString(), 'CA-PEM');
  await usage(() => connect({}, { kubeconfig: kc, context: 'b' }), /client certificate given without a client key/);
  await usage(() => connect({}, { kubeconfig: kc, context: 'c' }), /cannot read token file ".*nope": no such file/);
});

test('exec and auth-provider users are handed to the plugin path; --token replaces them', async () => {
  const kc = file(
    'exec.yaml',
    config({ current: 'a', clusters: { a: { server: 'https://a' } }, users: { a: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'get-token' } } }, contexts: { a: { cluster: 'a', user: 'a' } } }),
  );
  assert.equal((await connect({}, { kubeconfig: kc })).pluginUser?.name, 'a');
  assert.equal((await connect({}, { kubeconfig: kc, token: 'explicit1' })).pluginUser, undefined);
});

test('server addresses are normalised; bad ones are usage errors', async () => {
  assert.equal(normaliseServer('127.0.0.1:6443'), 'https://127.0.0.1:6443');
  assert.equal(normaliseServer('https://host:6443/'), 'https://host:6443');
  assert.equal(normaliseServer('http://host/prefix/'), 'http://host/prefix');
  await usage(() => normaliseServer('ftp://x'), /only http and https/);
  await usage(() => normaliseServer('https://user:pw@host'), /credentials/);
});

test('a JSON kubeconfig is read too', async () => {
  const kc = file('json.conf', JSON.stringify(config({ current: 'a', clusters: { a: { server: 'https://json:1' } }, contexts: { a: { cluster: 'a' } } })));
  assert.equal((await connect({}, { kubeconfig: kc })).server, 'https://json:1');
});
