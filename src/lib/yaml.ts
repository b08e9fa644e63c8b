// The `yaml` library (~115 KB) stays out of the hot paths (status, pause, JSON output):
// commands whose flags call for YAML (-o yaml, -f FILE) get it preloaded (its own file in
// dist/vendor) before they run (see commands/lazy.ts); any other caller that needs it
// synchronously loads it on the spot, so correctness never depends on the preload.
import type * as YAML from 'yaml';
import type * as JsYaml from 'js-yaml';

let lib: typeof YAML | undefined;
let reader: typeof JsYaml | undefined;

export async function preloadYaml(): Promise<void> {
  // Bundled, a CommonJS package's dynamic import exposes only `default`; under tsx, named exports too.
  const mod = (await import('yaml')) as typeof YAML & { default?: typeof YAML };
  lib ??= typeof mod.parseAllDocuments === 'function' ? mod : mod.default!;
}

/**
 * js-yaml (~40 KB) reads -f manifests: it parses a manifest 5-6x faster than yaml on a cold
 * start (42 documents: ~7 ms against ~35 ms), which is most of what a release gate of a
 * rendered chart costs beyond a one-workload gate. yaml keeps writing (-o yaml, kyaml).
 */
export async function preloadManifestReader(): Promise<void> {
  const mod = (await import('js-yaml')) as typeof JsYaml & { default?: typeof JsYaml };
  reader ??= typeof mod.loadAll === 'function' ? mod : mod.default!;
}

export function manifestReader(): typeof JsYaml {
  reader ??= (typeof require === 'function' ? require('js-yaml') : process.getBuiltinModule('node:module').createRequire(import.meta.url)('js-yaml')) as typeof JsYaml;
  return reader;
}

export function yamlLib(): typeof YAML {
  // In the CommonJS bundle `require` exists and esbuild points it at dist/vendor/yaml.cjs;
  // running from source (ES modules under tsx) it does not. node:module is asked for only
  // then: loading it brings in the ES module loader.
  lib ??= (typeof require === 'function' ? require('yaml') : process.getBuiltinModule('node:module').createRequire(import.meta.url)('yaml')) as typeof YAML;
  return lib;
}

/**
 * A YAML syntax error as one line: yaml's message ends "at line L, column C:" and a code frame on
 * the lines below (cut off, that left a dangling colon); the position moves to the front.
 */
export function yamlErrorLine(err: unknown): { line?: number; column?: number; message: string } {
  const text = String((err as Error)?.message ?? err);
  const first = text.split('\n')[0]!.trim();
  const m = /^(.*?)\s+at line (\d+), column (\d+):?$/.exec(first);
  if (m) return { line: Number(m[2]), column: Number(m[3]), message: m[1]! };
  return { message: first.replace(/:$/, '') };
}
