// What both builds share: the npm form (scripts/build.mjs) and the standalone executable
// (scripts/build-exe.mjs) bundle the same sources with the same esbuild settings.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// A file path, not URL.pathname: that one is percent-encoded (a checkout in "My Projects" would not build).
export const root = fileURLToPath(new URL('..', import.meta.url));
export const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/**
 * Stand-ins for built-in modules that a library (node_modules/NAME/) requires at load time but
 * touches only on some paths: each loads the real module the first time one of its properties is read.
 */
function lazyBuiltins(library, builtins) {
  const namespace = `lazy-${library}`;
  return {
    name: namespace,
    setup(b) {
      b.onResolve({ filter: new RegExp(`^(node:)?(${builtins.join('|')})$`) }, (args) =>
        args.importer.includes(`node_modules/${library}/`) ? { path: args.path.replace(/^node:/, ''), namespace } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace }, (args) => ({
        contents: `let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require(${JSON.stringify(`node:${args.path}`)}))[key] });`,
        loader: 'js',
      }));
    },
  };
}

// commander requires node:child_process at load time for executable subcommands, which we
// never use; loading it pulls in net, dgram and friends (~4 ms on every start). Give commander
// a stand-in that loads the real module only if it is ever touched.
export const lazyChildProcess = lazyBuiltins('commander', ['child_process']);

// ws requires https and tls (used only for a wss:// connection) and zlib (only for
// permessage-deflate, which neither side offers) at load time: ~7 ms of every exec against an
// http:// server (the sandbox), and nothing saved against https:// (the transport has loaded them).
export const lazyWsBuiltins = lazyBuiltins('ws', ['https', 'tls', 'zlib']);

// NO_MINIFY=1 keeps identifiers readable in CPU profiles (whitespace and syntax are still minified:
// that drops the comments, whose non-ASCII the npm form's latin1 read cannot take). import() becomes
// require(): the npm form's bundle is compiled through vm (no import() there), and the executable is one file.
export const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: !process.env.NO_MINIFY,
  legalComments: 'none',
  logLevel: 'warning',
  supported: { 'dynamic-import': false },
};

// The bundles run as CommonJS: the one import.meta.url in the sources (createRequire) gets the file name.
export const define = { __PLUGIN_VERSION__: JSON.stringify(pkg.version), 'import.meta.url': '__filename' };

// The module layout both forms share: the CLI, the sandbox and each large library in its own file,
// so that a command reads (npm form) or maps and keeps (executable) only the code it uses.
/** Large libraries, bundled on their own and required by path (./vendor/NAME.cjs) from the CLI. */
export const VENDOR = { '@kubernetes/client-node': 'client-node', yaml: 'yaml', 'js-yaml': 'js-yaml', diff: 'diff', ora: 'ora', ws: 'ws' };

export const vendorExternal = {
  name: 'vendor-external',
  setup(b) {
    b.onResolve({ filter: /^(@kubernetes\/client-node|yaml|js-yaml|diff|ora|ws)$/ }, (args) => ({ path: `./vendor/${VENDOR[args.path]}.cjs`, external: true }));
  },
};

// ws's optional native add-ons: it requires bufferutil and utf-8-validate inside try/catch and falls
// back to its own masking and Node's buffer.isUtf8 without them. Never bundled, whatever the build
// machine has installed (they load a .node file neither form ships): each resolves to a module that
// throws as a missing one does, in the npm form and the executable alike.
export const wsWithoutAddons = {
  name: 'ws-without-addons',
  setup(b) {
    b.onResolve({ filter: /^(bufferutil|utf-8-validate)$/ }, (args) => ({ path: args.path, namespace: 'absent' }));
    b.onLoad({ filter: /.*/, namespace: 'absent' }, (args) => ({
      contents: `throw Object.assign(new Error(${JSON.stringify(`Cannot find module '${args.path}'`)}), { code: 'MODULE_NOT_FOUND' });`,
      loader: 'js',
    }));
  },
};

// The sandbox command reaches the sandbox only through src/sandbox/index.ts.
export const sandboxExternal = {
  name: 'sandbox-external',
  setup(b) {
    b.onResolve({ filter: /\/sandbox\/index$/ }, (args) =>
      args.importer.includes('/src/commands/') ? { path: './sandbox.cjs', external: true } : undefined,
    );
  },
};

// Our sources are ES modules (package.json "type": "module"), so esbuild's interop gives the
// bundle module.exports itself as the default export of a vendor file. An ES-module-only package
// with a default export (ora: `const { default: ora } = await import('ora')`) must therefore
// export that default, carrying the named exports; the others export their namespace as is.
const vendorEntry = (mod) =>
  `const ns = require(${JSON.stringify(mod)});\nmodule.exports = ns.__esModule && typeof ns.default === 'function' ? Object.assign(ns.default, ns) : ns;`;

/**
 * The command groups that get a bundle of their own: the names src/commands/index.ts compares
 * __KUBECTL_KRUISE_GROUP__ with, in its order.
 */
export function commandGroups() {
  const index = readFileSync(join(root, 'src', 'commands', 'index.ts'), 'utf8');
  const names = [...index.matchAll(/\|\|\s*__KUBECTL_KRUISE_GROUP__\s*===\s*'([a-z]+)'/g)].map((m) => m[1]);
  if (names.length === 0) throw new Error('src/commands/index.ts names no command group');
  return names;
}

/**
 * Writes `outdir`/cli-GROUP.cjs (unwrapped) for every command group: the CLI with that group's
 * commands only, for the npm form's launcher to run when a command line starts with the group's
 * name. The others' code is left out, so a command reads, deserializes and sets up about half of
 * what the whole CLI holds. Each bundle is whole (no chunk shared with another), as the launcher
 * runs one of them per process.
 */
export async function bundleGroups(outdir) {
  const groups = commandGroups();
  await Promise.all(
    groups.map((group) =>
      build({
        ...common,
        plugins: [vendorExternal, sandboxExternal, lazyChildProcess],
        entryPoints: { [`cli-${group}`]: 'src/cli.ts' },
        outdir,
        outExtension: { '.js': '.cjs' },
        define: { ...define, __KUBECTL_KRUISE_GROUP__: JSON.stringify(group) },
      }),
    ),
  );
  return groups.map((group) => join(outdir, `cli-${group}.cjs`));
}

/** Writes `outdir`/cli.cjs (unwrapped), sandbox.cjs and vendor/*.cjs; returns their paths, the CLI first. */
export async function bundleModules(outdir) {
  await build({ ...common, plugins: [vendorExternal, sandboxExternal, lazyChildProcess], entryPoints: { cli: 'src/cli.ts' }, outdir, outExtension: { '.js': '.cjs' }, define });
  await build({ ...common, plugins: [vendorExternal], entryPoints: { sandbox: 'src/sandbox/index.ts' }, outdir, outExtension: { '.js': '.cjs' }, define });
  await Promise.all(
    Object.entries(VENDOR).map(([mod, name]) =>
      build({ ...common, plugins: [wsWithoutAddons, lazyWsBuiltins], stdin: { contents: vendorEntry(mod), resolveDir: root, loader: 'js' }, outfile: join(outdir, 'vendor', `${name}.cjs`) }),
    ),
  );
  return [join(outdir, 'cli.cjs'), join(outdir, 'sandbox.cjs'), ...Object.values(VENDOR).map((name) => join(outdir, 'vendor', `${name}.cjs`))];
}
