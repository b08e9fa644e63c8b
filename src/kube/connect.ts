// Builds the KubeClient for a command: kubeconfig + global flags → transport →
// REST client with discovery. Nothing here loads @kubernetes/client-node unless
// the user authenticates through an exec plugin or auth-provider.
import type { CommandContext } from '../cli/context';
import { usageError } from '../cli/exit';
import type { GlobalFlags } from '../cli/globals';
import { cacheFile, cacheRoot, Discovery } from './discovery';
import { Transport, type Credentials } from './http';
import { loadKubeconfig, readTokenFile, resolveConnection, type ConnectionConfig, type LoadEnv } from './kubeconfig';
import { selectProxy, type EnvLookup } from './proxy';
import { makeRedactor } from './redact';
import { RestClient } from './rest-client';
import { userAgent } from './user-agent';

export interface ConnectOptions {
  globals: GlobalFlags;
  /** KUBECONFIG, HOME, KUBECACHEDIR, and the proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, in either case). */
  env: LoadEnv & { KUBECACHEDIR?: string } & EnvLookup;
  /** One line to stderr (request logs, warnings). */
  log: (line: string) => void;
}

/** How often a tokenFile is re-read (rotated service account tokens). */
const TOKEN_FILE_REFRESH_MS = 60_000;

export async function connect(ctx: CommandContext): Promise<RestClient> {
  return connectWith({ globals: ctx.globals, env: process.env, log: (line) => ctx.term.stderr.write(`${line}\n`) });
}

export async function connectWith(opts: ConnectOptions): Promise<RestClient> {
  const merged = await loadKubeconfig(opts.globals, opts.env);
  const conn = resolveConnection(merged, opts.globals);
  return clientFor(conn, opts);
}

/** Name used in messages: the impersonated user, else the kubeconfig user entry. */
export function displayUser(conn: ConnectionConfig): string {
  return conn.impersonate?.user ?? (conn.userEntryName || 'system:anonymous');
}

export async function clientFor(conn: ConnectionConfig, opts: ConnectOptions): Promise<RestClient> {
  const secrets: string[] = [];
  if (conn.token) secrets.push(conn.token);
  if (conn.basicAuth) secrets.push(conn.basicAuth.password, Buffer.from(`${conn.basicAuth.username}:${conn.basicAuth.password}`).toString('base64'));
  if (conn.clientKey) secrets.push(conn.clientKey.toString('utf8').trim(), conn.clientKey.toString('base64'));
  const proxied = selectProxy(conn.server, conn.proxy, opts.env);
  if (proxied.problem) throw usageError(proxied.problem);
  const proxyPassword = proxied.choice?.proxy.password;
  if (proxyPassword) secrets.push(proxyPassword, encodeURIComponent(proxyPassword));
  // Tokens learnt later (exec plugins, rotated files) join the list.
  let redact = makeRedactor(secrets);
  const learn = (secret: string | undefined): void => {
    if (secret && !secrets.includes(secret)) {
      secrets.push(secret);
      redact = makeRedactor(secrets);
    }
  };

  let credentials: () => Credentials | Promise<Credentials>;
  let cert = conn.clientCert;
  let key = conn.clientKey;
  if (conn.pluginUser) {
    const { pluginCredentials } = await import('./exec-credentials');
    const plugin = await pluginCredentials(conn.pluginUser, (s) => redact(s));
    if (plugin.cert && plugin.key) {
      cert = plugin.cert;
      key = plugin.key;
      learn(plugin.key.toString('utf8').trim());
    }
    credentials = async () => {
      const authorization = await plugin.authorization();
      learn(authorization?.replace(/^\S+\s+/, ''));
      return { authorization };
    };
  } else if (conn.tokenFile) {
    let token = conn.token;
    let readAt = Date.now();
    credentials = () => {
      if (Date.now() - readAt > TOKEN_FILE_REFRESH_MS) {
        token = readTokenFile(conn.tokenFile!, token);
        readAt = Date.now();
        learn(token);
      }
      return { authorization: token ? `Bearer ${token}` : undefined };
    };
  } else if (conn.token) {
    const authorization = `Bearer ${conn.token}`;
    credentials = () => ({ authorization });
  } else if (conn.basicAuth) {
    const authorization = `Basic ${Buffer.from(`${conn.basicAuth.username}:${conn.basicAuth.password}`).toString('base64')}`;
    credentials = () => ({ authorization });
  } else {
    credentials = () => ({});
  }

  const headers: Record<string, string | string[]> = {};
  if (conn.impersonate) {
    if (conn.impersonate.user) headers['Impersonate-User'] = conn.impersonate.user;
    if (conn.impersonate.groups.length) headers['Impersonate-Group'] = conn.impersonate.groups;
    if (conn.impersonate.uid) headers['Impersonate-Uid'] = conn.impersonate.uid;
    for (const [k, vs] of Object.entries(conn.impersonate.extra ?? {})) headers[`Impersonate-Extra-${encodeURIComponent(k)}`] = vs;
  }

  const transport = new Transport({
    server: conn.server,
    ca: conn.ca,
    cert,
    key,
    insecureSkipTlsVerify: conn.insecureSkipTlsVerify,
    tlsServerName: conn.tlsServerName,
    disableCompression: conn.disableCompression,
    proxy: proxied.choice,
    proxyBypass: proxied.bypass,
    clientCertificate: { given: Boolean(cert), source: cert === conn.clientCert ? conn.clientCertSource : `the exec plugin of kubeconfig user "${conn.userEntryName}"` },
    headers,
    credentials,
    requestTimeoutMs: opts.globals.requestTimeoutMs,
    verbosity: opts.globals.verbosity,
    log: (line) => opts.log(redact(line)),
    redact: (s) => redact(s),
    userAgent: userAgent(),
  });
  const root = cacheRoot(opts.globals.cacheDir, opts.env);
  const discovery = new Discovery(
    (path, accept) => transport.json({ method: 'GET', path, accept, context: { verb: 'get', path, resource: path, server: conn.server, userName: displayUser(conn) } }),
    conn.server,
    root ? cacheFile(root, conn.server) : undefined,
  );
  return new RestClient({
    transport,
    discovery,
    namespace: conn.namespace,
    userName: displayUser(conn),
    log: (line) => opts.log(redact(line)),
    verbosity: opts.globals.verbosity,
    requestTimeoutMs: opts.globals.requestTimeoutMs,
  });
}
