// bin/kubectl-kruise runs the bundle through V8's code cache (dist/cache/<fingerprint>/<node release>/<command>.v8).
// Each test works on its own copy of bin/ and dist/, so caches start empty and nothing races
// with the other tests' processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CLI_BIN, REPO_ROOT, kubectl, npmFormOnly, testEnv } from '../helpers/cli';
import { startSandbox } from '../helpers/sandbox';

/** The command groups' own bundles the build wrote (dist/cli-GROUP.cjs), by group name. */
const groupBundles = (dist: string): string[] =>
  readdirSync(dist)
    .map((f) => /^cli-([a-z]+)\.cjs$/.exec(f)?.[1])
    .filter((g): g is string => g !== undefined)
    .sort();

/** A copy of bin/ and dist/cli.cjs; with `groups`, the command groups' bundles too (else the launcher runs cli.cjs for all). */
function installCopy({ groups = false } = {}): { root: string; bin: string; cacheDir: () => string | undefined } {
  const root = mkdtempSync(join(tmpdir(), 'kk-launcher-'));
  cpSync(join(REPO_ROOT, 'bin'), join(root, 'bin'), { recursive: true });
  cpSync(join(REPO_ROOT, 'dist', 'cli.cjs'), join(root, 'dist', 'cli.cjs'));
  if (groups) for (const g of groupBundles(join(REPO_ROOT, 'dist'))) cpSync(join(REPO_ROOT, 'dist', `cli-${g}.cjs`), join(root, 'dist', `cli-${g}.cjs`));
  symlinkSync(join(REPO_ROOT, 'dist', 'vendor'), join(root, 'dist', 'vendor'));
  const cacheRoot = join(root, 'dist', 'cache');
  return {
    root,
    bin: join(root, 'bin', 'kubectl-kruise'),
    // dist/cache/<fingerprint>/<node release>: the folder holding the .v8 files, once there is one.
    cacheDir: () => (existsSync(cacheRoot) ? join(cacheRoot, readdirSync(cacheRoot)[0]!, NODE_RELEASE) : undefined),
  };
}

function run(bin: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(bin, args, { env: testEnv(undefined, { KUBECONFIG: '/nonexistent/kubeconfig' }), encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The launcher keeps caches per Node.js release: V8 checks only its own version (11.3.244.8 in many Node 20 releases). */
const NODE_RELEASE = `${process.version}-${process.arch}`;

// The Node launcher's code cache and the npm build: nothing of them is in the standalone executable.
const launcherOnly = { skip: npmFormOnly("the Node launcher's V8 code cache") };

/** The fingerprint the build writes at the head of a bundle (the launcher's cache folder name). */
const fingerprintOf = (file: string): string => /^\/\*([0-9a-f]{16})\*\//.exec(readFileSync(file, 'latin1'))![1]!;

const EXPLAIN = ['explain', 'partition', '--replicas', '8', '--partition', '90%', '-o', 'json'];

test('a successful command leaves its code cache, named after the bundle fingerprint, the Node.js release and the command', launcherOnly, () => {
  const { bin, root, cacheDir } = installCopy();
  const first = run(bin, EXPLAIN);
  assert.equal(first.code, 0, first.stderr);
  const fingerprint = fingerprintOf(join(root, 'dist', 'cli.cjs'));
  const dir = cacheDir()!;
  assert.equal(dir, join(root, 'dist', 'cache', fingerprint, NODE_RELEASE));
  assert.deepEqual(readdirSync(dir), ['explain-partition.v8']);
  const written = statSync(join(dir, 'explain-partition.v8'));
  assert.ok(written.size > 10_000, `a real code cache (${written.size} bytes)`);

  // The second run uses it (same answer) and, V8 having accepted it, leaves it alone.
  const second = run(bin, EXPLAIN);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stdout, first.stdout);
  assert.equal(statSync(join(dir, 'explain-partition.v8')).mtimeMs, written.mtimeMs);
});

test("a command line that starts with a command group's name runs that group's own bundle: the same help and answers as the whole CLI", launcherOnly, () => {
  const { bin, root } = installCopy({ groups: true });
  const dist = join(root, 'dist');
  // Every command the root help lists has its bundle (the build finds the groups in src/commands/index.ts).
  const listed = [...run(bin, ['--help']).stdout.split('\nAvailable Commands:\n')[1]!.split('\n\n')[0]!.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!).sort();
  assert.ok(listed.length >= 15, listed.join(' '));
  assert.deepEqual(groupBundles(dist), listed);
  const whole = statSync(join(dist, 'cli.cjs')).size;
  for (const group of listed) {
    // Each leaves out the other groups: well under the whole CLI.
    assert.ok(statSync(join(dist, `cli-${group}.cjs`)).size < whole * 0.6, `cli-${group}.cjs is a part of cli.cjs`);
    // A global flag first makes the launcher run the whole CLI (cli.cjs): the group's help is the same.
    const own = run(bin, [group, '--help']);
    const fromWhole = run(bin, ['-n', 'default', group, '--help']);
    assert.equal(own.code, 0, own.stderr);
    assert.equal(fromWhole.code, 0, fromWhole.stderr);
    assert.equal(own.stdout, fromWhole.stdout, `${group} --help`);
    // The help ran in the group's bundle: its code cache sits under that bundle's fingerprint.
    assert.ok(existsSync(join(dist, 'cache', fingerprintOf(join(dist, `cli-${group}.cjs`)), NODE_RELEASE, 'help.v8')), `${group}: help.v8 of cli-${group}.cjs`);
  }
  // A command's answer, and a usage error, are the same from either bundle.
  for (const args of [['completion', 'bash'], ['version', '--client'], EXPLAIN]) {
    const own = run(bin, args);
    const fromWhole = run(bin, ['-n', 'default', ...args]);
    assert.equal(own.code, 0, own.stderr);
    assert.equal(own.stdout, fromWhole.stdout, args.join(' '));
  }
  assert.ok(existsSync(join(dist, 'cache', fingerprintOf(join(dist, 'cli-explain.cjs')), NODE_RELEASE, 'explain-partition.v8')));
  assert.ok(existsSync(join(dist, 'cache', fingerprintOf(join(dist, 'cli.cjs')), NODE_RELEASE, 'explain-partition.v8')));
  const bad = run(bin, ['rollout', 'frobnicate']);
  const badWhole = run(bin, ['-n', 'default', 'rollout', 'frobnicate']);
  assert.equal(bad.code, 2);
  assert.deepEqual([bad.code, bad.stdout, bad.stderr], [badWhole.code, badWhole.stdout, badWhole.stderr]);
  // A word that names no group (or no bundle) runs the whole CLI: commander's suggestion, exit 2.
  const unknown = run(bin, ['rolout', 'status']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command 'rolout'[\s\S]*rollout/);
});

test('20 concurrent first runs of one command all succeed and leave one whole cache file', launcherOnly, async () => {
  const { bin, cacheDir } = installCopy();
  const once = () =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(bin, EXPLAIN, { env: testEnv(undefined, { KUBECONFIG: '/nonexistent/kubeconfig' }) });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  const runs = await Promise.all(Array.from({ length: 20 }, once));
  for (const r of runs) {
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, runs[0]!.stdout);
  }
  // Every writer renamed its own temporary file into place: one file, no leftovers, and V8 takes it.
  const dir = cacheDir()!;
  assert.deepEqual(readdirSync(dir), ['explain-partition.v8']);
  const written = statSync(join(dir, 'explain-partition.v8')).mtimeMs;
  const after = run(bin, EXPLAIN);
  assert.equal(after.code, 0, after.stderr);
  assert.equal(statSync(join(dir, 'explain-partition.v8')).mtimeMs, written, 'accepted, so not rewritten');
});

test('a failing command writes no cache', launcherOnly, () => {
  const { bin, cacheDir } = installCopy();
  const r = run(bin, ['explain', 'partition', '--replicas', '8', '--partition', 'lots']);
  assert.equal(r.code, 2);
  assert.equal(cacheDir(), undefined);
});

test("a command's young generation stays at its first size while it reads 3 MB of manifest (6 MB less RSS in a 5,000-pod gate; bench/rollout-status-memory.mjs)", launcherOnly, () => {
  const dir = mkdtempSync(join(tmpdir(), 'kk-young-'));
  const manifest = join(dir, 'configmaps.yaml');
  const doc = (i: number): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c-${i}\n  annotations:\n    note: "${'x'.repeat(3000)}"\n`;
  writeFileSync(manifest, Array.from({ length: 1000 }, (_, i) => doc(i)).join('---\n'));
  // Reports the young generation's size at exit, from inside the launcher's process.
  const probe = join(dir, 'probe.cjs');
  writeFileSync(probe, "process.on('exit', () => { const s = require('v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space'); require('fs').writeSync(2, `new_space ${s.space_size}\\n`); });\n");
  const youngAfter = (args: string[]): number => {
    const r = spawnSync(CLI_BIN, args, { env: testEnv(undefined, { KUBECONFIG: '/nonexistent/kubeconfig', NODE_OPTIONS: `--require ${probe}` }), encoding: 'utf8' });
    const m = /new_space (\d+)/.exec(r.stderr);
    assert.ok(m, r.stderr);
    return Number(m[1]);
  };
  // Untuned, V8 doubles it twice while 3 MB are decoded (8 MB); here it stays at 1-2 MB.
  assert.ok(youngAfter(['rollout', 'status', '-f', manifest]) <= 2 * 1024 * 1024);
});

test('a cache V8 rejects (damaged header, other V8 flags) is ignored and rewritten', launcherOnly, () => {
  const { bin, cacheDir } = installCopy();
  assert.equal(run(bin, EXPLAIN).code, 0);
  const file = join(cacheDir()!, 'explain-partition.v8');
  const good = readFileSync(file);
  writeFileSync(file, Buffer.alloc(good.length, 0x5a));
  const r = run(bin, EXPLAIN);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.notDeepEqual(readFileSync(file).subarray(0, 64), Buffer.alloc(64, 0x5a));
});

// Root writes into a read-only folder anyway: as root, run the launcher as "nobody" instead.
const asNobody = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;

test('a read-only install works without a cache and says nothing about it', { skip: npmFormOnly("the Node launcher's V8 code cache") || (process.getuid?.() === 0 && !asNobody && 'root without setpriv') }, () => {
  const { bin, root, cacheDir } = installCopy();
  chmodSync(root, 0o755); // mkdtemp's 0700 would keep "nobody" out altogether
  chmodSync(join(root, 'dist'), 0o555);
  try {
    const r = asNobody ? run('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', bin, ...EXPLAIN]) : run(bin, EXPLAIN);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.equal(JSON.parse(r.stdout).replicas, 8);
    assert.equal(cacheDir(), undefined);
  } finally {
    chmodSync(join(root, 'dist'), 0o755);
  }
});

test('a bundle without a fingerprint runs uncached (V8 would accept a cache of any same-length source)', launcherOnly, () => {
  const { bin, root, cacheDir } = installCopy();
  const file = join(root, 'dist', 'cli.cjs');
  writeFileSync(file, readFileSync(file, 'latin1').replace(/^\/\*[0-9a-f]{16}\*\//, ''), 'latin1');
  const r = run(bin, EXPLAIN);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(cacheDir(), undefined);
});

test('without a build the launcher says how to build, in one line', launcherOnly, () => {
  const { bin, root } = installCopy();
  rmSync(join(root, 'dist'), { recursive: true });
  const r = run(bin, ['version', '--client']);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, 'error: kubectl-kruise is not built; run "npm run build" in its folder\n');
});

// util-linux script(1) gives the command a pseudo-terminal (-e: its exit code comes back).
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

test('on a terminal, a waiting command shows its spinner (ora, read from dist/vendor)', { skip: !hasScript && 'no script(1)' }, async () => {
  const sb = await startSandbox({ readyDelay: '50ms' });
  try {
    const path = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets';
    const applied = await kubectl(['apply', '-f', join(REPO_ROOT, 'test/fixtures/rollout/cloneset-web-paused.yaml')], sb.kubeconfig);
    assert.equal(applied.code, 0, applied.stderr);
    // A paused rollout with a new template: `rollout status` waits (spinner) until its --timeout.
    const patch = { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] } } } };
    assert.equal((await sb.api('PATCH', `${path}/web`, patch, { contentType: 'application/merge-patch+json' })).status, 200);
    const r = spawnSync('script', ['-qec', `stty cols 100 rows 20; exec '${CLI_BIN}' rollout status cloneset/web --timeout=1s`, '/dev/null'], {
      env: testEnv(sb.kubeconfig, { CI: undefined, NO_COLOR: undefined, TERM: 'xterm' }),
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      timeout: 20_000,
    });
    // The pty carries stdout and stderr together.
    assert.doesNotMatch(r.stdout, /error: (?!timed out)/, r.stdout);
    assert.equal(r.status, 3, r.stdout);
    assert.match(r.stdout, /[\u2800-\u28ff]\S* cloneset "web" rollout is paused/, 'a spinner frame (braille) leads the status line');
    assert.match(r.stdout, /error: timed out waiting for cloneset "web"/);
  } finally {
    await sb.stop();
  }
});

test('the build runs from a folder whose path has a space, twice in a row, and seeds the offline caches', { skip: npmFormOnly('scripts/build.mjs and the launcher it seeds') }, () => {
  // scripts/build.mjs once used URL.pathname, which is percent-encoded: esbuild found no src/.
  const root = join(mkdtempSync(join(tmpdir(), 'kk-build-')), 'My Projects', 'kubectl-kruise');
  for (const part of ['src', 'scripts', 'bin', 'package.json']) cpSync(join(REPO_ROOT, part), join(root, part), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'));
  for (const round of [1, 2]) {
    const b = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: tmpdir(), encoding: 'utf8', timeout: 60_000 });
    assert.equal(b.status, 0, `build ${round}: ${b.stderr}`);
    assert.deepEqual(readdirSync(root).filter((f) => f.startsWith('dist')), ['dist'], `build ${round} leaves no temporary folder`);
  }
  // Each seed ran in its bundle (help in the whole CLI, the others in their group's), and completion.v8
  // comes from the build writing completions/ by running `completion bash|zsh|fish`.
  const seeded = Object.entries({ 'cli.cjs': 'help.v8', 'cli-completion.cjs': 'completion.v8', 'cli-explain.cjs': 'explain-partition.v8', 'cli-version.cjs': 'version.v8' });
  const cache = join(root, 'dist', 'cache');
  assert.deepEqual(readdirSync(cache).sort(), seeded.map(([bundle]) => fingerprintOf(join(root, 'dist', bundle))).sort());
  for (const [bundle, file] of seeded) {
    const fingerprint = fingerprintOf(join(root, 'dist', bundle));
    assert.deepEqual(readdirSync(join(cache, fingerprint)), [NODE_RELEASE], bundle);
    assert.deepEqual(readdirSync(join(cache, fingerprint, NODE_RELEASE)), [file], bundle);
  }
  const r = run(join(root, 'bin', 'kubectl-kruise'), ['version', '--client']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Plugin Version: v\d+\.\d+\.\d+/);
});

test('installed as a symlink (as npm and krew do), found on PATH, run by kubectl or under another name', () => {
  // The launcher finds dist/ from its real location; the program name in help comes from the name it was run by
  // (the executable's too, when KUBECTL_KRUISE_BIN names it).
  const dir = mkdtempSync(join(tmpdir(), 'kk-link-'));
  symlinkSync(CLI_BIN, join(dir, 'kubectl-kruise'));
  symlinkSync(relative(dir, CLI_BIN), join(dir, 'kruise')); // a relative link, too
  const env = testEnv(undefined, { PATH: `${dir}:${process.env.PATH}` });
  const viaKubectl = spawnSync('/usr/bin/kubectl', ['kruise', 'version', '--client'], { env, encoding: 'utf8', cwd: tmpdir() });
  assert.equal(viaKubectl.status, 0, viaKubectl.stderr);
  assert.match(viaKubectl.stdout, /^Plugin Version: v/);
  const help = spawnSync('kubectl-kruise', ['rollout', '--help'], { env, encoding: 'utf8', cwd: '/' });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /\nUsage:\n {2}kubectl kruise rollout /);
  const renamed = spawnSync('kruise', ['--help'], { env, encoding: 'utf8', cwd: dir });
  assert.equal(renamed.status, 0, renamed.stderr);
  assert.match(renamed.stdout, /\nUsage:\n {2}kruise \[flags\] \[options\]\n/);
});
