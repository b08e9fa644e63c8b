// What both builds share: the npm form (scripts/build.mjs) and the standalone executable
// (scripts/build-exe.mjs) bundle the same sources with the same esbuild settings.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// A file path, not URL.pathname: that one is percent-encoded (a checkout in "My Projects" would not build).
export const root = fileURLToPath(new URL('..', import.meta.url));
export const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// commander requires node:child_process at load time for executable subcommands, which we
// never use; loading it pulls in net, dgram and friends (~4 ms on every start). Give commander
// a stand-in that loads the real module only if it is ever touched.
export const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes('node_modules/commander/') ? { path: 'lazy-child-process', namespace: 'lazy' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents: "let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
  },
};

// NO_MINIFY=1 keeps function names readable in CPU profiles. import() becomes require(): the npm
// form's bundle is compiled through vm (no import() there), and the executable is one file.
export const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: !process.env.NO_MINIFY,
  legalComments: 'none',
  logLevel: 'warning',
  supported: { 'dynamic-import': false },
};

// The bundles run as CommonJS: the one import.meta.url in the sources (createRequire) gets the file name.
export const define = { __PLUGIN_VERSION__: JSON.stringify(pkg.version), 'import.meta.url': '__filename' };
