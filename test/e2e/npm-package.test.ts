// The npm package as a user gets it: `npm pack` of this checkout, installed with `npm install -g`
// into an empty prefix (offline: the package has no dependencies to download), then driven through
// kubectl's plugin mechanism with only <prefix>/bin, node and kubectl on PATH, from a scratch folder.
// No source tree is copied: what the tarball lacks, these commands lack.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_ROOT, KUBECTL_BIN, npmFormOnly } from '../helpers/cli';
import { waitUntil } from '../helpers/sandbox';

const work = mkdtempSync(join(tmpdir(), 'kk-npm-package-'));
const prefix = join(work, 'prefix');
const home = join(work, 'home');
const cwd = join(work, 'cwd');
for (const dir of [prefix, home, cwd]) mkdirSync(dir, { recursive: true });
const installed = join(prefix, 'lib', 'node_modules', 'kubectl-kruise');

/** No npm_* variables: `npm test` exports its own config (prefix, cache, ...) to its scripts. */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return { ...env, HOME: home, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false' };
}

interface Packed {
  tarball: string;
  size: number;
  unpackedSize: number;
  files: string[];
}

/** `npm pack` of the built checkout (scripts ignored: `npm test` has just built dist/), or why it cannot run. */
function pack(): Packed | { skip: string } {
  if (!existsSync(join(REPO_ROOT, 'dist', 'cli.cjs'))) return { skip: 'dist/ is not built: run `npm run build` first' };
  const r = spawnSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: REPO_ROOT, env: npmEnv(), encoding: 'utf8', timeout: 60_000 });
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : (r.stderr.trim().split('\n').pop() ?? `exit ${r.status}`);
    return { skip: `npm pack is not possible here (${why})` };
  }
  const [info] = JSON.parse(r.stdout) as Array<{ filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> }>;
  return { tarball: join(work, info!.filename), size: info!.size, unpackedSize: info!.unpackedSize, files: info!.files.map((f) => f.path).sort() };
}

const exeRun = npmFormOnly('the npm tarball (test/e2e/standalone-exe.test.ts covers the executable alone)');
const packed = exeRun ? { skip: exeRun } : pack();
const skip = 'skip' in packed ? packed.skip : false;

/** Only the installed package's bin/, node (for its #! line) and kubectl: nothing from this checkout. */
const PATH = [join(prefix, 'bin'), dirname(process.execPath), dirname(KUBECTL_BIN), '/bin'].join(':');

function userEnv(kubeconfig?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH, HOME: home, CI: 'true', NO_COLOR: '1', KUBECACHEDIR: join(home, '.kube', 'cache') };
  env.KUBECONFIG = kubeconfig ?? join(work, 'no-cluster.kubeconfig');
  return env;
}

function run(cmd: string, args: string[], kubeconfig?: string, input?: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd, env: userEnv(kubeconfig), encoding: 'utf8', timeout: 60_000, input });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    total += entry.isDirectory() ? bytesUnder(p) : statSync(p).size;
  }
  return total;
}

describe('the npm package, installed from its tarball into an empty prefix', { skip }, () => {
  let install: { code: number | null; stdout: string; stderr: string };

  before(() => {
    const p = packed as Packed;
    const r = spawnSync('npm', ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', p.tarball], { cwd, env: npmEnv(), encoding: 'utf8', timeout: 120_000 });
    install = { code: r.status, stdout: r.stdout, stderr: r.stderr };
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('packs only files that exist and are needed, and installs offline as one package with no dependencies and no install script', (t) => {
    const p = packed as Packed;
    assert.deepEqual(p.files, [
      'LICENSE',
      'README.md',
      'bin/kubectl-kruise',
      'bin/kubectl_complete-kruise',
      'bin/package.json',
      'completions/_kubectl-kruise',
      'completions/kubectl-kruise.bash',
      'completions/kubectl-kruise.fish',
      ...['completion', 'create', 'describe', 'exec', 'explain', 'expose', 'get', 'gitops', 'migrate', 'predownload', 'restart', 'rollout', 'sandbox', 'scaledown', 'set', 'version', 'why'].map((g) => `dist/cli-${g}.cjs`),
      'dist/cli.cjs',
      'dist/sandbox.cjs',
      'dist/vendor/client-node.cjs',
      'dist/vendor/diff.cjs',
      'dist/vendor/js-yaml.cjs',
      'dist/vendor/ora.cjs',
      'dist/vendor/ws.cjs',
      'dist/vendor/yaml.cjs',
      'package.json',
    ]);
    assert.equal(install.code, 0, install.stderr);
    assert.match(install.stdout, /added 1 package\b/);
    // A prepare/install script would be announced (npm 11 asks to allow it) or run dev tools.
    assert.doesNotMatch(install.stderr, /install-scripts|prepare|allow-scripts/);
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { dependencies?: object; scripts?: Record<string, string> };
    assert.deepEqual(Object.keys(manifest.dependencies ?? {}), [], 'no runtime dependencies');
    assert.equal(manifest.scripts?.prepare, undefined);
    assert.equal(existsSync(join(installed, 'node_modules')), false, 'the installed package has no node_modules of its own');
    assert.deepEqual(readdirSync(join(prefix, 'lib', 'node_modules')), ['kubectl-kruise']);
    assert.deepEqual(readdirSync(join(prefix, 'bin')).sort(), ['kubectl-kruise', 'kubectl_complete-kruise']);
    t.diagnostic(`npm pack: ${(p.size / 1e3).toFixed(1)} kB packed, ${(p.unpackedSize / 1e6).toFixed(2)} MB unpacked; installed: ${(bytesUnder(prefix) / 1e6).toFixed(2)} MB`);
  });

  it('`kubectl plugin list` finds kubectl-kruise in the prefix, exits 0 and warns about nothing', () => {
    const list = run(KUBECTL_BIN, ['plugin', 'list']);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(list.stdout.split('\n').filter((l) => l.startsWith('/')), [join(prefix, 'bin', 'kubectl-kruise')]);
    assert.doesNotMatch(list.stdout + list.stderr, /warning|overshadow/i);
  });

  it('offline commands run through kubectl: version --client and explain partition', () => {
    const version = run(KUBECTL_BIN, ['kruise', 'version', '--client']);
    assert.equal(version.code, 0, version.stderr);
    const { version: pkgVersion } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.match(version.stdout, new RegExp(`^Plugin Version: v${pkgVersion.replace(/\./g, '\\.')}$`, 'm'));
    const explain = run(KUBECTL_BIN, ['kruise', 'explain', 'partition', '--replicas', '8', '--partition', '90%']);
    assert.equal(explain.code, 0, explain.stderr);
    assert.match(explain.stdout, /7 pods stay at the old revision → expectedUpdatedReplicas 1/);
  });

  it('`kubectl kruise sandbox` from the prefix serves a CloneSet whose `kubectl kruise rollout status` completes and whose pod `kubectl kruise exec` runs in', async () => {
    const kc = join(work, 'sandbox.kubeconfig');
    const child = spawn(KUBECTL_BIN, ['kruise', 'sandbox', '--port', '0', '--kubeconfig-out', kc], { cwd, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    try {
      await waitUntil("the sandbox's kubeconfig", () => existsSync(kc) && readFileSync(kc, 'utf8').includes('server: http'), 30_000).catch((err: Error) => {
        throw new Error(`${err.message}; sandbox output: ${out}`);
      });
      const apply = run(KUBECTL_BIN, ['apply', '-f', '-'], kc, readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'npm-package', 'cloneset-web.yaml'), 'utf8'));
      assert.equal(apply.code, 0, apply.stderr);
      const status = run(KUBECTL_BIN, ['kruise', 'rollout', 'status', 'cloneset/web', '--timeout', '60s'], kc);
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, /cloneset "web" successfully rolled out/);
      // exec: the WebSocket library (dist/vendor/ws.cjs) on both sides, the client's and the sandbox's.
      const exec = run(KUBECTL_BIN, ['kruise', 'exec', 'cloneset/web', '--', 'sh', '-c', 'echo from the package; exit 3'], kc);
      assert.equal(exec.code, 3, exec.stderr);
      assert.equal(exec.stdout, 'from the package\n');
      assert.match(exec.stderr, /command terminated with exit code 3\n$/);

      // kubectl_complete-kruise on PATH: kubectl asks it for `kubectl kruise <TAB>` candidates.
      const words = run(KUBECTL_BIN, ['__complete', 'kruise', 'roll'], kc);
      assert.equal(words.code, 0, words.stderr);
      assert.match(words.stdout, /^rollout$/m);
      const direct = run('kubectl_complete-kruise', ['rollout', 'stat'], kc);
      assert.equal(direct.code, 0, direct.stderr);
      assert.match(direct.stdout, /^status$/m);
      child.kill('SIGINT');
      assert.equal(await exited, 0, out);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
