// The cluster access layer end to end, through the CLI and the sandbox: one-line
// errors with the contract's exit codes, discovery in one cached request, request
// logging without secrets, TLS verification and RBAC messages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSandbox, type Sandbox } from '../helpers/sandbox';
import { REPO_ROOT, runCli, type RunResult } from '../helpers/cli';
import { connectWith } from '../../src/kube/connect';
import { defaultGlobals } from '../../src/cli/globals';
import { CliError } from '../../src/cli/exit';

let sb: Sandbox;
let tls: Sandbox;
before(async () => {
  [sb, tls] = await Promise.all([startSandbox(), startSandbox({ tls: true })]);
});
after(async () => {
  await Promise.all([sb?.stop(), tls?.stop()]);
});

function oneErrorLine(r: RunResult, code: number, re: RegExp): void {
  assert.equal(r.code, code, `exit code; stderr: ${r.stderr}`);
  const lines = r.stderr.trimEnd().split('\n');
  assert.match(lines[0]!, /^error: /);
  assert.match(lines[0]!, re);
  assert.ok(lines.length <= 2, `one error line (plus an optional hint): ${r.stderr}`);
  if (lines[1] !== undefined) assert.match(lines[1], /^hint: /);
  assert.doesNotMatch(r.stderr, /\s+at .*:\d+:\d+/, 'no stack trace');
}

const writes = (s: Sandbox) => s.audit().filter((e) => !['get', 'list', 'watch'].includes(e.verb));

const cloneset = (name: string) => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name, namespace: 'default' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] } },
  },
});

test('a missing object is one line naming it, exit 1', async () => {
  const r = await runCli(['set', 'image', 'cloneset/nope', 'app=nginx:2'], { kubeconfig: sb.kubeconfig });
  oneErrorLine(r, 1, /clonesets\.apps\.kruise\.io "nope" not found/);
});

test('discovery: one GET /apis for the first Kruise command, none while the cache is warm', async () => {
  const fresh = { KUBECACHEDIR: join(sb.dir, 'fresh-cache') };
  sb.clearAudit();
  await runCli(['set', 'image', 'clone/nope', 'app=nginx:2'], { kubeconfig: sb.kubeconfig, env: fresh });
  const first = sb.audit().filter((e) => e.path.startsWith('/apis') && !e.path.includes('/namespaces/'));
  assert.deepEqual(first.map((e) => e.path), ['/apis']);
  sb.clearAudit();
  await runCli(['set', 'image', 'asts/nope', 'app=nginx:2'], { kubeconfig: sb.kubeconfig, env: fresh });
  assert.deepEqual(sb.audit().filter((e) => e.path === '/apis'), [], 'served from the cache');
  // A cache folder that cannot be written does not break anything.
  const blocked = join(sb.dir, 'blocked');
  writeFileSync(blocked, 'a file, not a folder');
  const r = await runCli(['set', 'image', 'clone/nope', 'app=nginx:2', '--cache-dir', blocked], { kubeconfig: sb.kubeconfig });
  oneErrorLine(r, 1, /"nope" not found/);
});

test('kubeconfig and flag problems are exit 2 and send nothing', async () => {
  sb.clearAudit();
  oneErrorLine(await runCli(['set', 'image', 'cloneset/web', 'app=x:1', '--context', 'nope'], { kubeconfig: sb.kubeconfig }), 2, /^error: context "nope" does not exist in the kubeconfig$/);
  oneErrorLine(await runCli(['set', 'image', 'cloneset/web', 'app=x:1', '--kubeconfig', join(sb.dir, 'missing')]), 2, /kubeconfig file ".*missing" does not exist/);
  const notYaml = join(sb.dir, 'not-yaml');
  writeFileSync(notYaml, 'clusters: [\n  - : :\n bad');
  oneErrorLine(await runCli(['set', 'image', 'cloneset/web', 'app=x:1', '--kubeconfig', notYaml]), 2, /is not valid YAML/);
  oneErrorLine(await runCli(['set', 'image', 'cloneset/web', 'app=x:1', '--user', 'ghost'], { kubeconfig: sb.kubeconfig }), 2, /user "ghost" does not exist/);
  oneErrorLine(await runCli(['set', 'image', 'cloneset/web', 'app=x:1', '-n', 'Bad_NS'], { kubeconfig: sb.kubeconfig }), 2, /invalid namespace "Bad_NS"/);
  assert.deepEqual(sb.audit(), []);
});

test('an unknown type is exit 2 (nothing sent); an unserved pinned version (after discovery) is exit 1', async () => {
  // Commands may reject kinds they never handle earlier (exit 2), so ask the layer directly.
  const client = await connectWith({ globals: { ...defaultGlobals(), kubeconfig: sb.kubeconfig }, env: { HOME: sb.dir, KUBECACHEDIR: join(sb.dir, 'cache-direct') }, log: () => undefined });
  try {
    await assert.rejects(client.resolve('foo'), (e: unknown) => e instanceof CliError && e.exitCode === 2 && e.message === 'the server doesn\'t have a resource type "foo"');
    assert.equal((await client.resolve('clonesets.v1alpha1.apps.kruise.io')).version, 'v1alpha1');
  } finally {
    client.close();
  }
  oneErrorLine(
    await runCli(['set', 'image', 'clonesets.v1beta1.apps.kruise.io/web', 'app=x:1'], { kubeconfig: sb.kubeconfig }),
    1,
    /does not serve clonesets\.apps\.kruise\.io version v1beta1 \(served: v1alpha1\)/,
  );
});

test('an unreachable server is one line naming it', async () => {
  oneErrorLine(await runCli(['set', 'image', 'deploy/web', 'app=x:1', '-s', 'http://127.0.0.1:1']), 1, /^error: the server at http:\/\/127\.0\.0\.1:1 is unreachable: connection refused$/);
});

test('-v=6 logs each request; -v=9 never prints the bearer token', async () => {
  const created = await tls.api('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets', cloneset('logged'));
  assert.equal(created.status, 201, created.text);
  const r6 = await runCli(['set', 'image', 'cloneset/logged', 'app=nginx:1.26', '-v=6'], { kubeconfig: tls.kubeconfig });
  assert.equal(r6.code, 0, r6.stderr);
  assert.match(r6.stderr, /^GET https:\/\/127\.0\.0\.1:\d+\/apis\/apps\.kruise\.io\/v1alpha1\/namespaces\/default\/clonesets\/logged 200 OK in \d+ milliseconds$/m);
  assert.match(r6.stderr, /^PATCH https:\/\/.* 200 OK in \d+ milliseconds$/m);
  const r9 = await runCli(['set', 'image', 'cloneset/logged', 'app=nginx:1.27', '-v=9'], { kubeconfig: tls.kubeconfig });
  assert.equal(r9.code, 0, r9.stderr);
  assert.match(r9.stderr, /Authorization: Bearer <redacted>/);
  for (const token of [tls.tokens.admin!, tls.tokens.viewer!]) {
    assert.ok(!(r9.stdout + r9.stderr).includes(token), 'token leaked at -v=9');
    assert.ok(!(r6.stdout + r6.stderr).includes(token));
  }
});

test('403 from the viewer user: "<user> cannot <verb> <resource> in namespace <ns>", nothing written', async () => {
  await tls.api('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets', cloneset('guarded'));
  tls.clearAudit();
  const r = await runCli(['set', 'image', 'cloneset/guarded', 'app=nginx:2', '--context', 'viewer'], { kubeconfig: tls.kubeconfig });
  oneErrorLine(r, 1, /^error: viewer cannot patch clonesets\.apps\.kruise\.io in namespace default$/);
  assert.ok(writes(tls).every((e) => e.code >= 400), 'no write succeeded');
  const obj = await tls.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/guarded');
  assert.equal(obj.body.spec.template.spec.containers[0].image, 'nginx:1.25');
});

test('TLS: a wrong CA is refused with a --certificate-authority hint; a wrong token is Unauthorized without echoing it', async () => {
  const otherCa = join(tls.dir, 'other-ca.crt');
  // Any valid CA that did not sign the sandbox certificate: a self-signed one from the plain sandbox is not available, so use the system-independent approach of a fresh openssl CA.
  const { execFileSync } = await import('node:child_process');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(tls.dir, 'other-ca.key'), '-out', otherCa, '-days', '1', '-subj', '/CN=other'], { stdio: 'ignore' });
  tls.clearAudit();
  const r = await runCli(['set', 'image', 'cloneset/guarded', 'app=nginx:2', '--certificate-authority', otherCa], { kubeconfig: tls.kubeconfig });
  oneErrorLine(r, 1, /certificate signed by unknown authority/);
  assert.match(r.stderr, /^hint: .*--certificate-authority/m);
  const wrong = 'wrong-token-0123456789abcdef';
  const u = await runCli(['set', 'image', 'cloneset/guarded', 'app=nginx:2', '--token', wrong, '-v=9'], { kubeconfig: tls.kubeconfig });
  assert.equal(u.code, 1);
  assert.match(u.stderr, /^error: you must be logged in to the server \(Unauthorized\)/m);
  assert.ok(!(u.stdout + u.stderr).includes(wrong), 'wrong token echoed');
  assert.deepEqual(writes(tls).filter((e) => e.code < 400), []);
});

test('sts is the native StatefulSet; when only an Advanced StatefulSet exists the error says so', async () => {
  const asts = {
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace: 'default' },
    spec: { replicas: 1, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'redis:7' }] } } },
  };
  const created = await sb.api('POST', '/apis/apps.kruise.io/v1beta1/namespaces/default/statefulsets', asts);
  assert.equal(created.status, 201, created.text);
  const r = await runCli(['set', 'image', 'sts/db', 'db=redis:8'], { kubeconfig: sb.kubeconfig });
  oneErrorLine(r, 1, /^error: statefulsets\.apps "db" not found.*; an Advanced StatefulSet "db" exists: use asts\/db$/);
  // rollout status watches rather than GETs: the same hint, on both its paths.
  for (const watch of ['--watch=true', '--watch=false']) {
    const status = await runCli(['rollout', 'status', 'sts/db', watch], { kubeconfig: sb.kubeconfig });
    oneErrorLine(status, 1, /^error: statefulsets\.apps "db" not found.*; an Advanced StatefulSet "db" exists: use asts\/db$/);
  }
  const plain = await runCli(['set', 'image', 'sts/none', 'db=redis:8'], { kubeconfig: sb.kubeconfig });
  oneErrorLine(plain, 1, /^error: statefulsets\.apps "none" not found in namespace "default"$/);
});

test('server Warning headers (a deprecated CRD version) reach stderr once per command; stdout stays clean', async () => {
  // The real v1.9.0 CRDs, read at test time, with CloneSet v1alpha1 marked deprecated in a scratch copy.
  const source = resolve(REPO_ROOT, '..', 'shared', 'kruise-crds', 'v1.9.0');
  const crds = mkdtempSync(join(tmpdir(), 'kk-deprecated-crds-'));
  for (const f of readdirSync(source).filter((n) => n.endsWith('.yaml'))) {
    let text = readFileSync(join(source, f), 'utf8');
    if (f === 'apps.kruise.io_clonesets.yaml') {
      const marked = text.replace('    name: v1alpha1\n    schema:', '    name: v1alpha1\n    deprecated: true\n    deprecationWarning: apps.kruise.io/v1alpha1 CloneSet is deprecated; use v1beta1\n    schema:');
      assert.notEqual(marked, text, 'the CloneSet CRD still has the expected layout');
      text = marked;
    }
    writeFileSync(join(crds, f), text);
  }
  const dep = await startSandbox({ crds, readyDelay: '50ms' });
  try {
    const created = await dep.api('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets', cloneset('web'));
    assert.equal(created.status, 201, created.text);
    assert.match(String(created.headers.warning), /deprecated/, 'the sandbox sends the warning');
    const r = await runCli(['set', 'image', 'cloneset/web', 'app=nginx:1.26'], { kubeconfig: dep.kubeconfig });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'cloneset.apps.kruise.io/web image updated\n');
    assert.equal(r.stderr, 'Warning: apps.kruise.io/v1alpha1 CloneSet is deprecated; use v1beta1\n');
  } finally {
    await dep.stop();
    rmSync(crds, { recursive: true, force: true });
  }
});
