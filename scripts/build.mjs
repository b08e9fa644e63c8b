// Bundles the CLI into dist/ with code splitting, so each subcommand (and the
// Kubernetes client) is only parsed when that path runs. Builds into a fresh
// folder and swaps it in, so a running test never sees a half-written dist/.
import { build } from 'esbuild';
import { rmSync, readFileSync, renameSync, readdirSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const tmp = `dist.tmp-${process.pid}`;
// Bundled code only require()s Node built-ins at run time; process.getBuiltinModule (Node >= 20.16)
// answers those without createRequire's path work, which is a visible slice of every start.
const BANNER =
  "import{createRequire as __cr}from'node:module';const require=(id)=>process.getBuiltinModule?.(id)??__cr(import.meta.url)(id);";
// commander requires node:child_process at load time for executable subcommands, which we
// never use; loading it pulls in net, dgram and friends (~4 ms on every start). Give commander
// a stand-in that loads the real module only if it is ever touched.
const lazyChildProcess = {
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

await build({
  plugins: [lazyChildProcess],
  absWorkingDir: root.pathname,
  entryPoints: { cli: 'src/cli.ts' },
  outdir: tmp,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  chunkNames: 'chunks/[name]-[hash]',
  define: { __PLUGIN_VERSION__: JSON.stringify(pkg.version) },
  // CommonJS dependencies inside an ESM bundle need a require() (stripped below where unused).
  banner: { js: BANNER },
  logLevel: 'warning',
});
// Each chunk that never calls require() loses the banner: createRequire costs a URL
// conversion per loaded chunk, and most chunks are plain ESM.
for (const dir of [tmp, `${tmp}/chunks`]) {
  for (const name of readdirSync(new URL(dir, root)).filter((n) => n.endsWith('.js'))) {
    const file = new URL(`${dir}/${name}`, root);
    const code = readFileSync(file, 'utf8');
    const rest = code.startsWith(BANNER) ? code.slice(BANNER.length) : code;
    if (rest !== code && !/\brequire\b/.test(rest)) writeFileSync(file, rest);
  }
}
const dist = new URL('dist', root).pathname;
const old = `${dist}.old-${process.pid}`;
try {
  renameSync(dist, old);
} catch {
  /* no previous build */
}
renameSync(new URL(tmp, root).pathname, dist);
rmSync(old, { recursive: true, force: true });
