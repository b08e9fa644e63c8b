// bin/kubectl-kruise runs the bundle through V8's code cache (dist/cache/<fingerprint>/<command>.v8).
// Each test works on its own copy of bin/ and dist/, so caches start empty and nothing races
// with the other tests' processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, testEnv } from '../helpers/cli';

function installCopy(): { root: string; bin: string; cacheDir: () => string | undefined } {
  const root = mkdtempSync(join(tmpdir(), 'kk-launcher-'));
  cpSync(join(REPO_ROOT, 'bin'), join(root, 'bin'), { recursive: true });
  cpSync(join(REPO_ROOT, 'dist', 'cli.cjs'), join(root, 'dist', 'cli.cjs'));
  symlinkSync(join(REPO_ROOT, 'dist', 'vendor'), join(root, 'dist', 'vendor'));
  const cacheRoot = join(root, 'dist', 'cache');
  return {
    root,
    bin: join(root, 'bin', 'kubectl-kruise'),
    cacheDir: () => (existsSync(cacheRoot) ? join(cacheRoot, readdirSync(cacheRoot)[0]!) : undefined),
  };
}

function run(bin: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(bin, args, { env: testEnv(undefined, { KUBECONFIG: '/nonexistent/kubeconfig' }), encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const EXPLAIN = ['explain', 'partition', '--replicas', '8', '--partition', '90%', '-o', 'json'];

test('a successful command leaves its code cache, named after the bundle fingerprint and the command', () => {
  const { bin, root, cacheDir } = installCopy();
  const first = run(bin, EXPLAIN);
  assert.equal(first.code, 0, first.stderr);
  const fingerprint = /^\/\*([0-9a-f]{16})\*\//.exec(readFileSync(join(root, 'dist', 'cli.cjs'), 'latin1'))![1]!;
  const dir = cacheDir()!;
  assert.equal(dir.endsWith(fingerprint), true);
  assert.deepEqual(readdirSync(dir), ['explain-partition.v8']);
  const written = statSync(join(dir, 'explain-partition.v8'));
  assert.ok(written.size > 10_000, `a real code cache (${written.size} bytes)`);

  // The second run uses it (same answer) and, V8 having accepted it, leaves it alone.
  const second = run(bin, EXPLAIN);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stdout, first.stdout);
  assert.equal(statSync(join(dir, 'explain-partition.v8')).mtimeMs, written.mtimeMs);
});

test('a failing command writes no cache', () => {
  const { bin, cacheDir } = installCopy();
  const r = run(bin, ['explain', 'partition', '--replicas', '8', '--partition', 'lots']);
  assert.equal(r.code, 2);
  assert.equal(cacheDir(), undefined);
});

test('a cache V8 rejects (corrupt, or from another Node.js) is ignored and rewritten', () => {
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

test('a read-only install works without a cache and says nothing about it', () => {
  const { bin, root, cacheDir } = installCopy();
  chmodSync(join(root, 'dist'), 0o555);
  try {
    const r = run(bin, EXPLAIN);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    if (process.getuid?.() !== 0) assert.equal(cacheDir(), undefined); // root writes anyway
  } finally {
    chmodSync(join(root, 'dist'), 0o755);
  }
});

test('a bundle without a fingerprint runs uncached (V8 would accept a cache of any same-length source)', () => {
  const { bin, root, cacheDir } = installCopy();
  const file = join(root, 'dist', 'cli.cjs');
  writeFileSync(file, readFileSync(file, 'latin1').replace(/^\/\*[0-9a-f]{16}\*\//, ''), 'latin1');
  const r = run(bin, EXPLAIN);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(cacheDir(), undefined);
});

test('without a build the launcher says how to build, in one line', () => {
  const { bin, root } = installCopy();
  rmSync(join(root, 'dist'), { recursive: true });
  const r = run(bin, ['version', '--client']);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, 'error: kubectl-kruise is not built; run "npm run build" in its folder\n');
});
