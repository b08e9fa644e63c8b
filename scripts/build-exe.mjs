// `npm run build:exe`: the standalone executable, one file with the runtime inside.
//
//   node scripts/build-exe.mjs                      this machine's platform -> dist/exe/kubectl-kruise
//   node scripts/build-exe.mjs --target=darwin-arm64,windows-x64
//                                                   -> dist/exe/<target>/kubectl-kruise[.exe]
//   node scripts/build-exe.mjs --all                every target in TARGETS, plus the host file
//
// The runtime is Bun (`bun build --compile --bytecode`): measured side by side with a Node 26
// single executable application (`node bench/run.mjs candidates`), it starts in about a third of
// kubectl's time where Node's own start-up alone is already ~0.6x kubectl (README "Performance").
// The code is the same esbuild modules as the npm form (scripts/bundle-config.mjs bundleModules):
// the CLI, the sandbox and each large library embedded as its own module, loaded only by the commands
// that use it, as in the npm form. One file holding everything cost ~4.5 MB of peak memory on every
// command (Bun keeps the code it maps), which put API commands above kubectl's peak memory.
// --bytecode skips parsing.
//
// Each target's runtime is the @oven/bun-<platform> package of the Bun version the lockfile pins:
// the host's is installed by npm (the `bun` dev dependency); another platform's is fetched with
// `npm pack` and its sha512 checked against the lockfile before it is used.
import { build } from 'esbuild';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { bundleModules, common, define, lazyChildProcess, lazyWsBuiltins, root, wsWithoutAddons } from './bundle-config.mjs';

/** Our platform names (krew's os/arch, Node's arch) -> Bun's compile target and runtime package. */
export const TARGETS = {
  'linux-x64': { bun: 'bun-linux-x64', pkg: '@oven/bun-linux-x64', exe: '' },
  'linux-arm64': { bun: 'bun-linux-arm64', pkg: '@oven/bun-linux-aarch64', exe: '' },
  'darwin-x64': { bun: 'bun-darwin-x64', pkg: '@oven/bun-darwin-x64', exe: '' },
  'darwin-arm64': { bun: 'bun-darwin-arm64', pkg: '@oven/bun-darwin-aarch64', exe: '' },
  'windows-x64': { bun: 'bun-windows-x64', pkg: '@oven/bun-windows-x64', exe: '.exe' },
};

const hostTarget = () => `${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
const lock = () => JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));

/** The Bun that runs the build: the host's runtime package, wherever npm's postinstall left it. */
export function hostBun() {
  const host = TARGETS[hostTarget()];
  const candidates = [
    host && join(root, 'node_modules', host.pkg, 'bin', `bun${host.exe}`),
    join(root, 'node_modules', 'bun', 'bin', 'bun.exe'), // bun's postinstall moves the binary here
  ].filter(Boolean);
  for (const file of candidates) {
    if (existsSync(file) && statSync(file).size > 1_000_000) return file;
  }
  throw new Error(`no Bun runtime for ${hostTarget()} in node_modules (run "npm ci" without --ignore-scripts)`);
}

/** The runtime binary for `target`, checked against the lockfile's integrity when fetched. */
function runtimeFor(target) {
  if (target === hostTarget()) return undefined; // the Bun that builds is the host's runtime
  const { pkg, exe } = TARGETS[target];
  const entry = lock().packages[`node_modules/${pkg}`];
  if (!entry?.integrity) throw new Error(`${pkg} is not in package-lock.json (it comes with the bun dev dependency)`);
  const cache = join(root, 'node_modules', '.cache', 'kubectl-kruise-runtimes', `${pkg.replace('/', '+')}-${entry.version}`);
  const binary = join(cache, 'package', 'bin', `bun${exe}`);
  if (existsSync(binary)) return binary;
  const scratch = mkdtempSync(join(tmpdir(), 'kk-runtime-'));
  try {
    const out = execFileSync('npm', ['pack', `${pkg}@${entry.version}`, '--pack-destination', scratch, '--silent'], { encoding: 'utf8', cwd: scratch });
    const tgz = join(scratch, out.trim().split('\n').pop());
    const [algo, want] = entry.integrity.split('-');
    const got = createHash(algo).update(readFileSync(tgz)).digest('base64');
    if (got !== want) throw new Error(`${pkg}@${entry.version}: integrity ${algo}-${got} does not match package-lock.json`);
    mkdirSync(`${cache}.tmp`, { recursive: true });
    execFileSync('tar', ['-xzf', tgz, '-C', `${cache}.tmp`]);
    rmSync(cache, { recursive: true, force: true });
    renameSync(`${cache}.tmp`, cache);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return binary;
}

/** The whole CLI, sandbox and libraries included, as one CommonJS file. */
export async function bundleOneFile(outfile) {
  await build({ ...common, plugins: [lazyChildProcess, lazyWsBuiltins, wsWithoutAddons], entryPoints: ['src/cli.ts'], outfile, define });
}

/**
 * Compiles `modules` (one file, or the list bundleModules returns: the entry first, the modules it
 * requires by relative path after it, embedded beside it) for `target` into `outfile`.
 */
export function compile(modules, target, outfile) {
  const [entry, ...rest] = [modules].flat();
  const runtime = runtimeFor(target);
  // No .env or bunfig.toml from the working directory: a kubectl plugin must not take settings
  // (KUBECONFIG, proxies) from whatever folder it is run in, which the Node form never does either.
  // JIT tier-up at a tenth of the usual rate: a command of a few milliseconds gains nothing from
  // optimized code, and compiling it cost ~1.6 MB of peak memory (over kubectl's on API commands;
  // no measured time cost). The sandbox, a long-running server, restores the normal rate (useFullJit).
  const args = ['build', '--compile', '--bytecode', '--minify', '--no-compile-autoload-dotenv', '--no-compile-autoload-bunfig', '--compile-jit-policy=10', `--target=${TARGETS[target].bun}`];
  // Kept as their own modules, not inlined into the entry (bundleModules' layout).
  if (rest.length) args.push('--external', './vendor/*', '--external', './sandbox.cjs');
  args.push(entry, ...rest, '--outfile', outfile);
  if (runtime) args.push(`--compile-executable-path=${runtime}`);
  const r = spawnSync(hostBun(), args, { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bun build --compile for ${target} failed:\n${r.stdout}${r.stderr}`);
  chmodSync(outfile, 0o755);
}

async function main() {
  const argv = process.argv.slice(2);
  const all = argv.includes('--all');
  const listed = argv.find((a) => a.startsWith('--target='))?.slice('--target='.length).split(',').filter(Boolean);
  const targets = all ? Object.keys(TARGETS) : listed ?? [];
  for (const t of targets) if (!TARGETS[t]) throw new Error(`unknown target ${t} (known: ${Object.keys(TARGETS).join(', ')})`);
  const host = hostTarget();
  const scratch = mkdtempSync(join(tmpdir(), 'kk-exe-'));
  try {
    const modules = await bundleModules(join(scratch, 'modules'));
    const outDir = join(root, 'dist', 'exe');
    mkdirSync(outDir, { recursive: true });
    // Compiled in the scratch folder and renamed into place: a test running the old file never
    // sees half of one. Under its final name: Bun writes the output's base name into the file, and
    // the same input must give the same bytes (release archives are checked for that).
    const place = (target, file) => {
      mkdirSync(join(file, '..'), { recursive: true });
      const tmp = join(scratch, target, basename(file));
      mkdirSync(join(tmp, '..'), { recursive: true });
      compile(modules, target, tmp);
      copyFileSync(tmp, `${file}.tmp-${process.pid}`);
      chmodSync(`${file}.tmp-${process.pid}`, 0o755);
      renameSync(`${file}.tmp-${process.pid}`, file);
      console.log(`${file.slice(root.length)}  (${target}, ${(statSync(file).size / 1e6).toFixed(1)} MB)`);
    };
    if (targets.length === 0 || all) {
      if (!TARGETS[host]) throw new Error(`no standalone executable for ${host}; known: ${Object.keys(TARGETS).join(', ')}`);
      place(host, join(outDir, `kubectl-kruise${TARGETS[host].exe}`));
    }
    for (const t of targets) {
      const file = join(outDir, t, `kubectl-kruise${TARGETS[t].exe}`);
      if (t === host && all) {
        mkdirSync(join(file, '..'), { recursive: true });
        copyFileSync(join(outDir, `kubectl-kruise${TARGETS[host].exe}`), file);
      } else place(t, file);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    console.error(`build:exe: ${err.message}`);
    process.exit(1);
  });
}
