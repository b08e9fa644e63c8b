// Security against a `sandbox --tls`: TLS verification is on by default and only skipped when
// asked; bearer tokens, client keys and exec-plugin output are never printed (not at -v=9, not in
// errors); 403s read `<user> cannot <verb> <resource> in namespace <ns>`; names never reach a URL
// unvalidated; exec credential plugins run without a shell.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { REPO_ROOT, runCli, type RunResult } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';
import { keyFragments, selfSigned } from './certs';
import { FIXTURES, assertNoStackTrace, assertOneErrorLine, createCloneSet, describeRun, getCloneSet, writes } from './helpers';

let sb: Sandbox;
let adminToken: string;
let viewerToken: string;

before(async () => {
  sb = await startSandbox({ tls: true, readyDelay: '50ms' });
  adminToken = sb.tokens.admin!;
  viewerToken = sb.tokens.viewer!;
  assert.ok(adminToken.length >= 16 && viewerToken.length >= 16, 'the sandbox issued real tokens');
  await createCloneSet(sb, { replicas: 2 });
});
after(async () => {
  await sb?.stop();
});

/** A copy of the sandbox kubeconfig, changed by `edit`, written next to it. */
function kubeconfigVariant(name: string, edit: (c: any) => void): string {
  const c = parseYaml(readFileSync(sb.kubeconfig, 'utf8'));
  edit(c);
  const path = join(sb.dir, `${name}.kubeconfig`);
  writeFileSync(path, toYaml(c));
  return path;
}

const cli = (args: string[], kubeconfig = sb.kubeconfig, env?: Record<string, string>, cwd?: string): Promise<RunResult> => runCli(args, { kubeconfig, env, cwd, timeoutMs: 30_000 });

describe('TLS verification', () => {
  test('a kubeconfig without the CA fails with a certificate error and a --certificate-authority hint, never a silent fallback', async () => {
    const noCa = kubeconfigVariant('no-ca', (c) => delete c.clusters[0].cluster['certificate-authority-data']);
    const wrongCa = selfSigned('not-the-sandbox-ca', true);
    const otherCa = kubeconfigVariant('other-ca', (c) => (c.clusters[0].cluster['certificate-authority-data'] = Buffer.from(wrongCa.certPem).toString('base64')));
    for (const kubeconfig of [noCa, otherCa]) {
      const requests = sb.audit().length;
      for (const args of [['rollout', 'history', 'cloneset/web'], ['rollout', 'pause', 'cloneset/web'], ['set', 'image', 'cloneset/web', 'nginx=nginx:9.9'], ['rollout', 'status', 'cloneset/web', '-v=6']]) {
        const r = await cli(args, kubeconfig);
        assert.equal(r.code, 1, `${args.join(' ')}: ${describeRun(r)}`);
        assertOneErrorLine(r, /certificate/i);
        assert.match(r.stderr, /--certificate-authority/, 'the hint names --certificate-authority');
        assert.equal(r.stdout, '');
        assert.doesNotMatch(r.stderr, / 200 OK /, 'no request got through');
      }
      assert.equal(sb.audit().length, requests, 'no request reached the API server');
    }
    assert.equal((await getCloneSet(sb)).spec.updateStrategy.paused ?? false, false, 'nothing changed');
  });

  test('--insecure-skip-tls-verify and --certificate-authority work when asked', async () => {
    const noCa = join(sb.dir, 'no-ca.kubeconfig');
    const insecure = await cli(['rollout', 'history', 'cloneset/web', '--insecure-skip-tls-verify'], noCa);
    assert.equal(insecure.code, 0, describeRun(insecure));
    assert.match(insecure.stdout, /nginx:1\.25\.3/);
    const caFile = join(sb.dir, 'ca.pem');
    writeFileSync(caFile, sb.ca!);
    const withCa = await cli(['rollout', 'history', 'cloneset/web', `--certificate-authority=${caFile}`], noCa);
    assert.equal(withCa.code, 0, describeRun(withCa));
    // A flag on one command does not stick: the next one verifies again.
    const again = await cli(['rollout', 'history', 'cloneset/web'], noCa);
    assert.equal(again.code, 1, describeRun(again));
  });
});

describe('secrets are never printed', () => {
  const wrongToken = 'Zq8xWrongTokenValue0123456789abcdef';

  function assertNoSecret(r: RunResult, secrets: string[], what: string): void {
    const all = r.stdout + r.stderr;
    for (const s of secrets) {
      assert.ok(!all.includes(s), `${what} printed a secret (${s.slice(0, 4)}…)`);
      assert.ok(!all.includes(s.slice(0, 12)), `${what} printed part of a secret (${s.slice(0, 4)}…)`);
      assert.ok(!all.includes(Buffer.from(s).toString('base64').slice(0, 16)), `${what} printed a secret in base64`);
    }
    assertNoStackTrace(r.stderr, what);
  }

  test('bearer tokens at -v=9, on success and on error paths', async () => {
    const secrets = [adminToken, viewerToken, wrongToken];
    const runs: Array<[string[], string | undefined, number]> = [
      [['rollout', 'history', 'cloneset/web', '-v=9'], undefined, 0],
      [['rollout', 'status', 'cloneset/web', '-v=9', '--timeout=20s'], undefined, 0],
      [['set', 'image', 'cloneset/web', 'log-agent=fluent/fluent-bit:2.2.1', '-v=9'], undefined, 0],
      [['rollout', 'pause', 'cloneset/web', '-v=9'], undefined, 0],
      [['rollout', 'resume', 'cloneset/web', '-v=9'], undefined, 0],
      [['restart', 'cloneset/web', '--dry-run=server', '-v=9'], undefined, 0],
      [['version', '-v=9'], undefined, 0],
      // error paths
      [['rollout', 'history', 'cloneset/missing', '-v=9'], undefined, 1],
      [['set', 'image', 'cloneset/web', 'nosuch=nginx:1', '-v=9'], undefined, 1],
      [['rollout', 'pause', 'cloneset/web', '--context=viewer', '-v=9'], undefined, 1],
      [['rollout', 'history', 'cloneset/web', `--token=${wrongToken}`, '-v=9'], undefined, 1],
      [['rollout', 'history', 'cloneset/web', `--token=${wrongToken}`], undefined, 1],
      [['rollout', 'status', 'cloneset/web', `--token=${adminToken}`, '-s', 'https://127.0.0.1:1', '-v=9'], undefined, 1],
    ];
    let logged = 0;
    for (const [args, kubeconfig, code] of runs) {
      const r = await cli(args, kubeconfig);
      assert.equal(r.code, code, `${args.join(' ')}: ${describeRun(r).replaceAll(adminToken, '<admin>')}`);
      assertNoSecret(r, secrets, args.join(' '));
      if (/Authorization: Bearer <redacted>/.test(r.stderr)) logged++;
    }
    assert.ok(logged >= 8, `-v=9 really logged request headers (${logged} runs did)`);
  });

  test('token files and basic-auth passwords at -v=9', async () => {
    const tokenFile = join(sb.dir, 'token');
    writeFileSync(tokenFile, `${adminToken}\n`);
    const fromFile = kubeconfigVariant('token-file', (c) => {
      delete c.users[0].user.token;
      c.users[0].user.tokenFile = tokenFile;
    });
    const ok = await cli(['rollout', 'history', 'cloneset/web', '-v=9'], fromFile);
    assert.equal(ok.code, 0, describeRun(ok).replaceAll(adminToken, '<admin>'));
    assert.match(ok.stderr, /Authorization: Bearer <redacted>/);
    assertNoSecret(ok, [adminToken], 'tokenFile run');
    const password = 'Corr3ct-Horse-Battery-Staple';
    const basic = kubeconfigVariant('basic-auth', (c) => (c.users[0].user = { username: 'jane', password }));
    const denied = await cli(['rollout', 'history', 'cloneset/web', '-v=9'], basic);
    assert.equal(denied.code, 1, describeRun(denied));
    assertOneErrorLine(denied, /Unauthorized|logged in/);
    assertNoSecret(denied, [password, Buffer.from(`jane:${password}`).toString('base64')], 'basic-auth run');
  });

  test('client certificate keys at -v=9 and when the key does not match', async () => {
    const client = selfSigned('jane', false);
    const other = selfSigned('someone-else', false);
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    const withKey = kubeconfigVariant('client-cert', (c) => {
      c.users[0].user['client-certificate-data'] = b64(client.certPem);
      c.users[0].user['client-key-data'] = b64(client.keyPem);
    });
    const mismatched = kubeconfigVariant('client-cert-mismatch', (c) => {
      c.users[0].user['client-certificate-data'] = b64(client.certPem);
      c.users[0].user['client-key-data'] = b64(other.keyPem);
    });
    const fragments = [...keyFragments(client.keyPem), ...keyFragments(other.keyPem), b64(client.keyPem).slice(0, 40), b64(other.keyPem).slice(0, 40)];
    const ok = await cli(['rollout', 'history', 'cloneset/web', '-v=9'], withKey);
    assert.equal(ok.code, 0, describeRun(ok).replaceAll(adminToken, '<admin>'));
    const bad = await cli(['rollout', 'history', 'cloneset/web', '-v=9'], mismatched);
    assert.notEqual(bad.code, 0, describeRun(bad));
    assert.match(bad.stderr, /^error: .*(key|certificate)/m);
    for (const r of [ok, bad]) {
      const all = r.stdout + r.stderr;
      assert.doesNotMatch(all, /PRIVATE KEY/);
      for (const f of fragments) assert.ok(!all.includes(f), 'key material was printed');
      assertNoSecret(r, [adminToken], 'client-cert run');
    }
  });
});

describe('RBAC: the read-only viewer', () => {
  test('writes fail with "<user> cannot <verb> <resource> in namespace <ns>" and change nothing', async () => {
    const before = await getCloneSet(sb);
    const cases: Array<[string[], RegExp]> = [
      [['rollout', 'pause', 'cloneset/web'], /^error: viewer cannot patch clonesets\.apps\.kruise\.io in namespace default$/m],
      [['set', 'image', 'cloneset/web', 'nginx=nginx:1.27.0'], /^error: viewer cannot patch clonesets\.apps\.kruise\.io in namespace default$/m],
      // restart first takes its lease (one run per workload): that is the write refused.
      [['restart', 'cloneset/web'], /^error: viewer cannot create leases\.coordination\.k8s\.io in namespace default$/m],
      [['rollout', 'restart', 'cloneset/web'], /^error: viewer cannot (create leases\.coordination\.k8s\.io|patch clonesets\.apps\.kruise\.io) in namespace default$/m],
    ];
    const from = sb.audit().length;
    for (const [args, message] of cases) {
      const r = await cli([...args, '--context=viewer']);
      assert.equal(r.code, 1, `${args.join(' ')}: ${describeRun(r)}`);
      assertOneErrorLine(r, message);
    }
    const viewerWrites = writes(sb.audit().slice(from));
    assert.ok(viewerWrites.length >= cases.length && viewerWrites.every((e) => e.user === 'viewer' && e.code === 403), 'every write was the viewer\'s, and refused');
    const after = await getCloneSet(sb);
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, 'the CloneSet did not change');
    const read = await cli(['rollout', 'history', 'cloneset/web', '--context=viewer']);
    assert.equal(read.code, 0, describeRun(read));
  });
});

describe('names are validated before they enter URLs', () => {
  test('no path with "..", an encoded slash or an encoded dot reaches the server', async () => {
    const attempts: string[][] = [
      ['rollout', 'status', 'cloneset/../../api/v1/secrets'],
      ['rollout', 'history', 'cloneset/..'],
      ['rollout', 'undo', 'cloneset/web%2F..%2Fsecrets'],
      ['rollout', 'pause', 'cloneset/%2e%2e'],
      ['rollout', 'status', 'cloneset/web', '-n', '../kube-system'],
      ['rollout', 'status', 'cloneset/web', '-n', 'default%2F..'],
      ['set', 'image', 'cloneset/..%2f..', 'nginx=nginx:1'],
      ['set', 'image', 'deployment/a/../b', 'api=api:1'],
      ['set', 'image', '-f', join(FIXTURES, 'traversal-names.yaml'), 'nginx=nginx:1'],
      ['set', 'image', '--all', 'clonesets', 'nginx=nginx:1', '-n', '..'],
      ['restart', 'pod/../../nodes/node-1'],
      ['restart', 'cloneset/web', '-n', 'kube-system/../default'],
      ['predownload', 'cloneset/..'],
      ['create', 'pps', '../evil', '--for', 'asts/db', '--required-topology', 'kubernetes.io/hostname'],
      ['create', 'pps', 'ok', '--for', 'asts/..%2F..', '--required-topology', 'kubernetes.io/hostname'],
      ['get', 'pps', '..'],
      ['describe', 'pps', 'a%2Fb'],
      ['explain', 'partition', 'cloneset/..'],
    ];
    const from = sb.audit().length;
    for (const args of attempts) {
      const r = await cli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${describeRun(r)}`);
      assertNoStackTrace(r.stderr);
    }
    const paths = sb.audit().slice(from).map((e) => e.path);
    const bad = paths.filter((p) => /\.\.|%2f|%2e|\/\//i.test(p));
    assert.deepEqual(bad, [], 'no unvalidated name entered a URL');
  });
});

describe('exec credential plugins', () => {
  let dir: string;
  let plugin: string;
  const pwnedFiles = (): string[] => [dir, join(dir, 'work')].flatMap((d) => readdirSync(d).filter((f) => /^pwned/i.test(f)));

  before(() => {
    // A folder whose name is shell syntax: a plugin run through a shell would split or expand it.
    dir = join(sb.dir, 'plugins');
    const odd = join(dir, 'bin;touch pwned-semicolon;$(touch pwned-subst)');
    mkdirSync(odd, { recursive: true });
    mkdirSync(join(dir, 'work'), { recursive: true });
    plugin = join(odd, 'kube-login `touch pwned-backtick`.mjs');
    copyFileSync(join(FIXTURES, 'exec-credential-plugin.mjs'), plugin);
    chmodSync(plugin, 0o755);
  });

  function execKubeconfig(name: string, exec: Record<string, unknown>): string {
    return kubeconfigVariant(name, (c) => {
      c.users = [{ name: 'sso-user', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Never', ...exec } } }];
      c.contexts = [{ name: 'sso', context: { cluster: c.clusters[0].name, user: 'sso-user', namespace: 'default' } }];
      c['current-context'] = 'sso';
    });
  }

  test('authenticates against the TLS sandbox, runs without a shell, and its token is never printed', async () => {
    const kubeconfig = execKubeconfig('exec', {
      command: plugin,
      args: ['--profile=$(touch pwned-arg)', '; touch pwned-arg2'],
      env: [{ name: 'KK_PLUGIN_TOKEN', value: adminToken }],
    });
    const from = sb.audit().length;
    for (const args of [['rollout', 'history', 'cloneset/web', '-v=9'], ['set', 'image', 'cloneset/web', 'log-agent=fluent/fluent-bit:2.2.2', '-v=9']]) {
      const r = await cli(args, kubeconfig, undefined, join(dir, 'work'));
      assert.equal(r.code, 0, describeRun(r).replaceAll(adminToken, '<admin>'));
      const all = r.stdout + r.stderr;
      assert.ok(!all.includes(adminToken) && !all.includes(adminToken.slice(0, 12)), 'the plugin\'s token was printed');
      assert.doesNotMatch(all, /plugin issued|ExecCredential/, 'the plugin\'s own output was printed');
    }
    assert.ok(sb.audit().slice(from).some((e) => e.user === 'admin' && e.verb === 'patch' && e.code === 200), 'requests were authenticated with the plugin\'s token');
    assert.equal((await getCloneSet(sb)).spec.template.spec.containers[1].image, 'fluent/fluent-bit:2.2.2');
    assert.deepEqual(pwnedFiles(), [], 'nothing was interpreted by a shell');
  });

  test('a failing plugin is one error line without its token; a command string with shell syntax is not interpreted', async () => {
    // Real tokens and one without digits (shape-based redaction alone would miss it).
    for (const secret of [adminToken, 'SsoSessionTokenWithoutAnyDigits_xyzXYZ']) {
      const failing = execKubeconfig('exec-fail', { command: plugin, env: [{ name: 'KK_PLUGIN_TOKEN', value: secret }, { name: 'KK_PLUGIN_FAIL', value: '1' }] });
      const r = await cli(['rollout', 'history', 'cloneset/web', '-v=9'], failing, undefined, join(dir, 'work'));
      assert.equal(r.code, 1, describeRun(r).replaceAll(secret, '<secret>'));
      assertOneErrorLine(r, /sso-user|exec plugin|credentials/i);
      assert.ok(!(r.stdout + r.stderr).includes(secret), `the failing plugin's token was printed: ${r.stderr.replaceAll(secret, '<secret>')}`);
    }

    const shelly = execKubeconfig('exec-shell', { command: `node ${plugin}; touch pwned-command $(touch pwned-command2)`, env: [{ name: 'KK_PLUGIN_TOKEN', value: adminToken }] });
    const s = await cli(['rollout', 'history', 'cloneset/web'], shelly, undefined, join(dir, 'work'));
    assert.equal(s.code, 1, describeRun(s).replaceAll(adminToken, '<admin>'));
    assertOneErrorLine(s, /sso-user|exec plugin|credentials/i);
    assert.deepEqual(pwnedFiles(), [], 'the command string was not run by a shell');
    assert.ok(!existsSync(join(sb.dir, 'pwned-command')));
  });
});


describe('no shell is ever spawned', () => {
  test('the sources start subprocesses only through spawn/execFile without a shell', () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts')) {
          const text = readFileSync(path, 'utf8');
          if (/shell\s*:\s*(true|['"`])/.test(text)) offenders.push(`${path}: shell option`);
          if (/child_process/.test(text) && /\b(exec|execSync)\s*\(/.test(text)) offenders.push(`${path}: exec() runs a shell`);
          if (/\/bin\/(ba)?sh\b|['"`]sh['"`]\s*,\s*\[\s*['"`]-c/.test(text)) offenders.push(`${path}: explicit shell`);
        }
      }
    };
    walk(join(REPO_ROOT, 'src'));
    assert.deepEqual(offenders, []);
  });
});
