// `version`: never fails because of the cluster. The plugin version is always
// printed; the server's (GET /version, ~3 s budget) when it answers, else a
// warning on stderr and exit 0. Loads the kube layer only without --client.
import type { CommandContext } from '../cli/context';
import { usageError } from '../cli/exit';
import { KUBE_PLUGIN_VERSION, pluginPlatform } from '../kube/user-agent';

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
  return { gitVersion: `v${KUBE_PLUGIN_VERSION}`, platform: pluginPlatform(), nodeVersion: process.versions.node };
}

async function fetchServerVersion(ctx: CommandContext): Promise<ServerVersion> {
  const { connect } = await import('../kube/connect');
  const client = await connect(ctx);
  try {
    // A short overall budget: version must stay quick even against a dead server.
    const signal = AbortSignal.timeout(SERVER_VERSION_TIMEOUT_MS);
    const timeoutMs = ctx.globals.requestTimeoutMs > 0 ? Math.min(ctx.globals.requestTimeoutMs, SERVER_VERSION_TIMEOUT_MS) : SERVER_VERSION_TIMEOUT_MS;
    return await client.raw<ServerVersion>('/version', { signal, timeoutMs, maxAttempts: 2 });
  } finally {
    client.close();
  }
}

export async function run(ctx: CommandContext, _args: string[], opts: VersionOptions): Promise<number> {
  const format = opts.output;
  if (format !== undefined && format !== 'json' && format !== 'yaml' && format !== 'kyaml') {
    throw usageError(`--output must be 'yaml', 'kyaml' or 'json' (got "${format}")`);
  }
  const plugin = pluginVersionInfo();
  let server: ServerVersion | undefined;
  // As kubectl version: the client part is printed, then a server that cannot be asked is an error, exit 1.
  let failure: string | undefined;
  if (!opts.client) {
    try {
      server = await fetchServerVersion(ctx);
    } catch (err) {
      const message = err instanceof Error ? (err.name === 'AbortError' || err.name === 'TimeoutError' ? `no answer within ${SERVER_VERSION_TIMEOUT_MS / 1000}s` : err.message) : String(err);
      failure = `could not get the server version: ${message.split('\n')[0]}`;
    }
  }
  const out = ctx.term.stdout;
  if (format === 'kyaml') {
    const doc: Record<string, unknown> = { pluginVersion: plugin };
    if (server) doc.serverVersion = server;
    out.write((await import('../printers/kyaml')).kyamlDocument(doc));
  } else if (format === 'json' || format === 'yaml') {
    const doc: Record<string, unknown> = { pluginVersion: plugin };
    if (server) doc.serverVersion = server;
    // The YAML library loads only for -o yaml (lazy.ts has preloaded it then).
    out.write(format === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : (await import('../lib/yaml')).yamlLib().stringify(doc));
  } else {
    out.write(`Plugin Version: ${plugin.gitVersion}\n`);
    if (server) out.write(`Server Version: ${server.gitVersion ?? `v${server.major ?? '?'}.${server.minor ?? '?'}`}\n`);
  }
  if (failure === undefined) return 0;
  ctx.term.stderr.write(`error: ${failure}\n`);
  return 1;
}
