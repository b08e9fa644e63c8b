// Startup budget guard (deterministic, unlike timings): the code every invocation loads
// (the entry chunk and its static imports) must not contain the YAML parser, the cluster
// layer, the Kubernetes client, printers, colours or spinners. Those load lazily.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, type Metafile } from 'esbuild';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../../..');

async function startupInputs(): Promise<string[]> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: { cli: 'src/cli.ts' },
    outdir: 'out',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = (result.metafile as Metafile).outputs;
  const seen = new Set<string>();
  const inputs = new Set<string>();
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    const out = outputs[path];
    if (!out) return;
    Object.keys(out.inputs).forEach((i) => inputs.add(i));
    for (const imp of out.imports) if (imp.kind === 'import-statement' && !imp.external) visit(imp.path);
  };
  visit(Object.keys(outputs).find((p) => p.endsWith('out/cli.js'))!);
  return [...inputs];
}

test('the startup path loads only the command tree, never heavy modules', async () => {
  const inputs = await startupInputs();
  const forbidden = [/node_modules\/yaml\//, /node_modules\/@kubernetes\//, /node_modules\/(chalk|ora|cli-table3|diff|node-forge|ws)\//, /^src\/kube\//, /^src\/printers\//, /^src\/sandbox\//, /^src\/engine\//];
  const offenders = inputs.filter((i) => forbidden.some((re) => re.test(i)));
  assert.deepEqual(offenders, [], `loaded at startup: ${offenders.join(', ')}`);
  assert.ok(inputs.some((i) => i.includes('node_modules/commander/')), 'sanity: commander is in the startup graph');
});
