// Bundles the CLI into dist/:
//   dist/cli.cjs          the CLI and the small libraries: one CommonJS module body, written
//                         already wrapped as `/*FINGERPRINT*/(function (exports, require, module,
//                         __filename, __dirname) {...})` for bin/kubectl-kruise to compile. Code reached only
//                         through import() stays uninitialised until that path runs.
//   dist/cli-GROUP.cjs    the same with one command group only (rollout, set, ...), wrapped alike: what
//                         the launcher runs for a command line that starts with the group's name.
//   dist/sandbox.cjs      the sandbox (API server, controllers): a third of our code, which no
//                         other command should have to read on every start.
//   dist/vendor/*.cjs     the large libraries (Kubernetes client, YAML, diff, spinner), each read
//                         from disk only when a command needs it.
// CommonJS because bin/kubectl-kruise runs the bundle through V8's code cache (vm.Script
// cachedData), which Node 20 offers for scripts but not for ES modules, and because one
// CommonJS file skips the ES module loader's per-file resolve/link work (~20 ms for the
// ~30 chunks a split ESM build loads for one API command).
// Builds into a fresh folder and swaps it in, so a running test never sees a half-written
// dist/ (and a rebuilt bundle never meets a code cache made for the old one).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleGroups, bundleModules, root } from './bundle-config.mjs';

const tmp = `dist.tmp-${process.pid}`;

await bundleModules(join(root, tmp));
const groupFiles = await bundleGroups(join(root, tmp));
// Wrapped here rather than at every start: the launcher compiles the file's text as it is. The
// launcher reads it as latin1 (no UTF-8 decoding), so it must be ASCII, esbuild's default charset.
// A fingerprint of the bundle leads the file: the launcher keeps code caches per fingerprint, as
// V8 checks only the length of the source a cache was made for.
for (const file of [join(root, tmp, 'cli.cjs'), ...groupFiles]) {
  const body = readFileSync(file, 'latin1');
  if (/[^\x00-\x7f]/.test(body)) throw new Error(`${file} is not ASCII`);
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${body}\n})`;
  const fingerprint = createHash('sha256').update(wrapped).digest('hex').slice(0, 16);
  writeFileSync(file, `/*${fingerprint}*/${wrapped}`, 'latin1');
}
const dist = join(root, 'dist');
const old = `${dist}.old-${process.pid}`;
try {
  renameSync(dist, old);
} catch {
  /* no previous build */
}
renameSync(join(root, tmp), dist);
// The standalone executables and release archives are built by their own scripts: keep them.
for (const keep of ['exe', 'release']) {
  try {
    renameSync(join(old, keep), join(dist, keep));
  } catch {
    /* not built */
  }
}
rmSync(old, { recursive: true, force: true });

// completions/: the scripts `completion <shell>` prints, under the names the npm package and the
// release archives ship (generated, never edited: the CLI is their one source). Each is written
// beside and renamed into place, so a shell or test reading one never sees half a file.
const launcher = join(root, 'bin', 'kubectl-kruise');
const COMPLETION_FILES = { bash: 'kubectl-kruise.bash', zsh: '_kubectl-kruise', fish: 'kubectl-kruise.fish' };
mkdirSync(join(root, 'completions'), { recursive: true });
for (const [shell, file] of Object.entries(COMPLETION_FILES)) {
  const r = spawnSync(process.execPath, [launcher, 'completion', shell], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 30_000 });
  if (r.status !== 0 || !r.stdout) throw new Error(`kubectl-kruise completion ${shell} failed (exit ${r.status}): ${r.stderr || r.error?.message}`);
  const target = join(root, 'completions', file);
  writeFileSync(`${target}.tmp-${process.pid}`, r.stdout);
  renameSync(`${target}.tmp-${process.pid}`, target);
}

// Seed the code cache with the offline commands, so even the first runs after a build start
// warm (API commands add themselves the first time they succeed; see bin/kubectl-kruise).
for (const args of [['--help'], ['version', '--client'], ['explain', 'partition', '--replicas', '8', '--partition', '90%']]) {
  // Best effort: a seed that fails or hangs (it never should) costs a warm first start, not the build.
  // With the Node that runs npm (the system's), whose cache users get, not node_modules/.bin's Node 26.
  spawnSync(process.env.npm_node_execpath || process.execPath, [launcher, ...args], { stdio: 'ignore', env: { ...process.env, NO_COLOR: '1' }, timeout: 30_000 });
}
