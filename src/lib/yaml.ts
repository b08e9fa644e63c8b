// The `yaml` library (~115 KB) stays out of the hot paths (status, pause, JSON output):
// commands whose flags call for YAML (-o yaml, -f FILE) get it preloaded as its own chunk
// before they run (see commands/lazy.ts); any other caller that needs it synchronously
// falls back to loading the installed package, so correctness never depends on the preload.
import { createRequire } from 'node:module';
import type * as YAML from 'yaml';

let lib: typeof YAML | undefined;

export async function preloadYaml(): Promise<void> {
  // Bundled, a CommonJS package's dynamic import exposes only `default`; under tsx, named exports too.
  const mod = (await import('yaml')) as typeof YAML & { default?: typeof YAML };
  lib ??= typeof mod.parseAllDocuments === 'function' ? mod : mod.default!;
}

export function yamlLib(): typeof YAML {
  lib ??= createRequire(import.meta.url)('yaml') as typeof YAML;
  return lib;
}
