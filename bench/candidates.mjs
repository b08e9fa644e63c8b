// Bench section `candidates`: the runtimes the standalone executable could be built on, from the
// same one-file bundle (scripts/build-exe.mjs bundleOneFile): Node 26 single executable
// applications (`node --build-sea`) with V8's code cache, and with a startup snapshot, against the
// Bun executable `npm run build:exe` writes. The figures behind choosing Bun; reported, not budgeted.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleOneFile } from '../scripts/build-exe.mjs';
import { node26 } from './lib.mjs';

function buildSea(dir, name, config) {
  const out = join(dir, name, 'kubectl-kruise');
  mkdirSync(join(dir, name), { recursive: true });
  const configFile = join(dir, `${name}.json`);
  writeFileSync(configFile, JSON.stringify({ ...config, output: out, disableExperimentalSEAWarning: true }));
  const r = spawnSync(node26, ['--build-sea', configFile], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) return { name, error: `${r.stderr || r.stdout}`.trim().split('\n')[0] };
  return { name, file: out };
}

/**
 * Builds the Node 26 candidates into `dir`: `sea-code-cache` (useCodeCache) and `sea-snapshot`
 * (useSnapshot). Our bundle runs the command as it loads, so the snapshot can hold it compiled but
 * not initialized: its main is the bundle wrapped in a function the snapshot calls on start.
 * Each result is {name, file} or {name, error}.
 */
export async function buildSeaCandidates(dir) {
  const bundle = join(dir, 'kubectl-kruise.cjs');
  await bundleOneFile(bundle);
  const wrapped = join(dir, 'snapshot-main.cjs');
  writeFileSync(
    wrapped,
    [
      "'use strict';",
      'function kubectlKruise(require, module, exports, __filename, __dirname) {',
      readFileSync(bundle, 'latin1'),
      '}',
      "require('node:v8').startupSnapshot.setDeserializeMainFunction(() => {",
      '  const module = { exports: {} };',
      "  kubectlKruise(require, module, module.exports, process.execPath, require('node:path').dirname(process.execPath));",
      '});',
    ].join('\n'),
    'latin1',
  );
  return [buildSea(dir, 'sea-code-cache', { main: bundle, useCodeCache: true }), buildSea(dir, 'sea-snapshot', { main: wrapped, useSnapshot: true })];
}
