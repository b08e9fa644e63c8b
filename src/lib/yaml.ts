// The `yaml` library (~115 KB) evaluated on first use only: most invocations (status,
// pause, JSON output) never touch YAML, and its module setup is a visible share of
// startup. esbuild bundles the require() below as a lazily-initialised module; under
// tsx (tests) there is no require in ESM scope, so createRequire loads it instead.
import { createRequire } from 'node:module';
import type * as YAML from 'yaml';

let lib: typeof YAML | undefined;

export function yamlLib(): typeof YAML {
  lib ??= (typeof require === 'function' ? require('yaml') : createRequire(import.meta.url)('yaml')) as typeof YAML;
  return lib;
}
