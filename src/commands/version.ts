// `version`: never fails because of the cluster. The plugin version is always
// printed; the server's (GET /version, ~3 s budget) when it answers, else a
// warning on stderr and exit 0. Loads the kube layer only without --client.
import type { CommandContext } from '../cli/context';
import { usageError } from '../cli/exit';
import { KUBE_PLUGIN_VERSION } from '../kube/user-agent';

export interface VersionOptions {
  client?: boolean;
  output?: string;
}

/** GET /version answer (subset). */
export interface ServerVersion {
  major?: string;
  minor?: string;
  gitVersion?: string;
  gitCommit?: string;
  platform?: string;
  [key: string]: unknown;
}

const SERVER_VERSION_TIMEOUT_MS = 3_000;

export function pluginVersionInfo(): { gitVersion: string; platform: string; nodeVersion: string } {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return { gitVersion: `v${KUBE_PLUGIN_VERSION}`, platform: `${process.platform}/${arch}`, nodeVersion: process.versions.node };
}

async function fetchServerVersion(ctx: CommandContext): Promise<ServerVersion> {
  const { connectWith } = await import('../kube/connect');
  const client = await connectWith({ globals: ctx.globals, env: process.env, log: (line) => ctx.term.stderr.write(`${line}\n`) });
  try {
    // A short overall budget: version must stay quick even against a dead server.
    const signal = AbortSignal.timeout(SERVER_VERSION_TIMEOUT_MS);
    const timeoutMs = ctx.globals.requestTimeoutMs > 0 ? Math.min(ctx.globals.requestTimeoutMs, SERVER_VERSION_TIMEOUT_MS) : SERVER_VERSION_TIMEOUT_MS;
    return await client.raw<ServerVersion>('/version', { signal, timeoutMs, maxAttempts: 2 });
  } finally {
    client.close();
  }
}

// yaml is only needed for -o yaml; the bundle may expose it as a CommonJS default export.
async function toYaml(doc: unknown): Promise<string> {
  const mod = (await import('yaml')) as typeof import('yaml') & { default?: typeof import('yaml') };
  return (mod.stringify ?? mod.default!.stringify)(doc);
}

export async function run(ctx: CommandContext, _args: string[], opts: VersionOptions): Promise<number> {
  const format = opts.output;
  if (format !== undefined && format !== 'json' && format !== 'yaml') {
    throw usageError(`--output must be 'yaml' or 'json' (got "${format}")`);
  }
  const plugin = pluginVersionInfo();
  let server: ServerVersion | undefined;
  if (!opts.client) {
    try {
      server = await fetchServerVersion(ctx);
    } catch (err) {
      const message = err instanceof Error ? (err.name === 'AbortError' || err.name === 'TimeoutError' ? `no answer within ${SERVER_VERSION_TIMEOUT_MS / 1000}s` : err.message) : String(err);
      ctx.term.stderr.write(`Warning: could not get the server version: ${message.split('\n')[0]}\n`);
    }
  }
  const out = ctx.term.stdout;
  if (format === 'json' || format === 'yaml') {
    const doc: Record<string, unknown> = { pluginVersion: plugin };
    if (server) doc.serverVersion = server;
    out.write(format === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : await toYaml(doc));
    return 0;
  }
  out.write(`Plugin Version: ${plugin.gitVersion}\n`);
  if (server) out.write(`Server Version: ${server.gitVersion ?? `v${server.major ?? '?'}.${server.minor ?? '?'}`}\n`);
  return 0;
}
