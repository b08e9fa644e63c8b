// Credentials from exec plugins and auth-providers, computed by
// @kubernetes/client-node (loaded only here, only for such users). Its exec
// plugin runs through child_process.spawn without a shell.
import { isAbsolute, join } from 'node:path';
import { CliError } from '../cli/exit';
import type { ConnectionConfig } from './kubeconfig';
import { makeRedactor, redactTokenLike } from './redact';

export interface PluginCredentials {
  /** Authorization header value for the next request (client-node caches until expiry). */
  authorization(): Promise<string | undefined>;
  cert?: Buffer;
  key?: Buffer;
}

interface HttpsLikeOptions {
  headers?: Record<string, string>;
  cert?: Buffer | string;
  key?: Buffer | string;
}

/** How long a plugin's Authorization header is reused before asking again. */
const PLUGIN_CACHE_MS = 60_000;

export async function pluginCredentials(plugin: NonNullable<ConnectionConfig['pluginUser']>, redact: (s: string) => string): Promise<PluginCredentials> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  const name = plugin.name || 'user';
  // Only the plugin part of the user: files, tokens and TLS are handled by our own code.
  const user: Record<string, unknown> = {};
  if (plugin.user.exec) {
    const exec = { ...plugin.user.exec };
    // Like kubectl: a relative command with a slash is relative to the kubeconfig's folder.
    if (typeof exec.command === 'string' && exec.command.includes('/') && !isAbsolute(exec.command)) exec.command = join(plugin.dir, exec.command);
    user.exec = exec;
  }
  if (plugin.user['auth-provider']) user['auth-provider'] = plugin.user['auth-provider'];
  kc.loadFromString(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'cluster', cluster: { server: plugin.server } }],
      users: [{ name, user }],
      contexts: [{ name: 'context', context: { cluster: 'cluster', user: name } }],
      'current-context': 'context',
    }),
  );
  const what = plugin.user.exec ? `exec plugin "${String((plugin.user.exec as { command?: unknown }).command ?? '')}"` : `auth-provider "${plugin.user['auth-provider']?.name ?? ''}"`;
  // Values the kubeconfig hands the plugin (exec.env) are often the very secrets it echoes when it fails.
  const envValues = (((plugin.user.exec as { env?: Array<{ value?: unknown }> } | undefined)?.env) ?? []).map((v) => (typeof v?.value === 'string' ? v.value : undefined));
  const envRedact = makeRedactor(envValues);
  const compute = async (): Promise<HttpsLikeOptions> => {
    const opts: HttpsLikeOptions = { headers: {} };
    try {
      await kc.applyToHTTPSOptions(opts as never);
    } catch (e) {
      const exec = plugin.user.exec as { command?: unknown; installHint?: unknown } | undefined;
      if (exec && (e as NodeJS.ErrnoException)?.code === 'ENOENT') throw new CliError(pluginNotFound(plugin.name, String(exec.command ?? ''), exec.installHint));
      const detail = redactTokenLike(envRedact(redact(String((e as Error)?.message ?? e).trim().split('\n')[0] ?? '')));
      throw new CliError(`getting credentials for user "${plugin.name}" from ${what} failed${detail ? `: ${detail}` : ''}`);
    }
    return opts;
  };
  const first = await compute();
  const toBuffer = (v: Buffer | string | undefined): Buffer | undefined => (v === undefined ? undefined : Buffer.isBuffer(v) ? v : Buffer.from(v));
  // client-node caches tokens that carry an expirationTimestamp; without one it would run the
  // plugin on every request, so keep the header for a short while ourselves.
  let cached = { value: first.headers?.Authorization, at: Date.now() };
  return {
    cert: toBuffer(first.cert),
    key: toBuffer(first.key),
    authorization: async () => {
      if (Date.now() - cached.at > PLUGIN_CACHE_MS) cached = { value: (await compute()).headers?.Authorization, at: Date.now() };
      return cached.value;
    },
  };
}

/**
 * client-go's words for a plugin that is not installed (exec.go: "exec: executable X not found" and
 * the kubeconfig's installHint, else a pointer to the docs), as one line naming the kubeconfig user.
 */
export function pluginNotFound(user: string, command: string, installHint: unknown): string {
  const hint = typeof installHint === 'string' && installHint.trim() ? installHint.trim().replace(/\s*\n\s*/g, ' ') : 'it looks like a client-go credential plugin that is not installed (https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins)';
  return `getting credentials for user "${user}": exec plugin: executable ${command} not found: ${hint}`;
}
