// Kubeconfig loading, merging and selection, done by hand (kubeconfig-yaml.ts, the `yaml`
// package only as a fallback) because loading @kubernetes/client-node costs ~70 ms on every command; it is
// only loaded (see exec-credentials.ts) when a user needs an exec or auth-provider plugin.
//
// Every problem here is invalid input found before any request: exit 2, one line.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { parseSimpleYaml } from './kubeconfig-yaml';
import { parseClusterProxyUrl, type ProxyChoice } from './proxy';
import { usageError } from '../cli/exit';
import type { GlobalFlags } from '../cli/globals';
import { dns1123LabelProblem } from '../kruise/names';

export interface KubeconfigCluster {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  'proxy-url'?: string;
  [key: string]: unknown;
}

export interface KubeconfigUser {
  token?: string;
  tokenFile?: string;
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  username?: string;
  password?: string;
  as?: string;
  'as-groups'?: string[];
  'as-uid'?: string;
  'as-user-extra'?: Record<string, string[]>;
  exec?: Record<string, unknown>;
  'auth-provider'?: { name?: string; config?: Record<string, string> };
  [key: string]: unknown;
}

export interface KubeconfigContext {
  cluster?: string;
  user?: string;
  namespace?: string;
}

/** A named entry and the folder of the file it came from (relative paths resolve against it). */
export interface Sourced<T> {
  value: T;
  dir: string;
  file: string;
}

export interface MergedKubeconfig {
  /** Files that were read, in order. */
  files: string[];
  /** Files that were looked for (for messages when none exists). */
  searched: string[];
  currentContext?: string;
  clusters: Map<string, Sourced<KubeconfigCluster>>;
  users: Map<string, Sourced<KubeconfigUser>>;
  contexts: Map<string, Sourced<KubeconfigContext>>;
}

/** Everything needed to talk to one API server, after flags overrode the kubeconfig. */
export interface ConnectionConfig {
  server: string;
  contextName?: string;
  clusterName?: string;
  /** Kubeconfig user entry name ("" when none). */
  userEntryName: string;
  namespace: string;
  /** Whether the namespace came from -n (kubectl refuses -f objects of another namespace then). */
  namespaceFromFlag: boolean;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  /** --disable-compression, or the cluster's disable-compression: no Accept-Encoding: gzip. */
  disableCompression?: boolean;
  /** The cluster's proxy-url: every connection goes through it, whatever the environment says. */
  proxy?: ProxyChoice;
  /** Where the client certificate comes from, for messages (`kubeconfig user "x"`, `--client-certificate=FILE`). */
  clientCertSource?: string;
  /** PEM bytes of the CA bundle. */
  ca?: Buffer;
  caSource?: string;
  clientCert?: Buffer;
  clientKey?: Buffer;
  token?: string;
  /** Re-read on every request (kubectl re-reads projected service account tokens). */
  tokenFile?: string;
  basicAuth?: { username: string; password: string };
  impersonate?: { user?: string; groups: string[]; uid?: string; extra?: Record<string, string[]> };
  /** Set when the user authenticates through an exec plugin or auth-provider (client-node computes it). */
  pluginUser?: { name: string; user: KubeconfigUser; cluster: KubeconfigCluster; server: string; /** Folder of the kubeconfig that defined the user. */ dir: string };
}

export interface LoadEnv {
  KUBECONFIG?: string;
  HOME?: string;
}

function fail(message: string, hint?: string): never {
  throw usageError(message, hint);
}

function defaultKubeconfigPath(env: LoadEnv): string | undefined {
  const home = env.HOME ?? safeHomedir();
  return home ? join(home, '.kube', 'config') : undefined;
}

function safeHomedir(): string | undefined {
  try {
    return homedir() || undefined;
  } catch {
    return undefined;
  }
}

/** Parses one kubeconfig file's text (YAML or JSON). Throws a usage error naming the file. */
export async function parseKubeconfigText(text: string, file: string): Promise<Record<string, unknown>> {
  let doc: unknown;
  try {
    // JSON kubeconfigs are common in automation; most YAML ones fit the simple subset.
    if (text.trimStart().startsWith('{')) doc = JSON.parse(text);
    else {
      doc = parseSimpleYaml(text);
      if (doc === undefined) {
        // The `yaml` package (~10 ms) loads only for kubeconfigs outside the simple subset.
        const { preloadYaml, yamlLib } = await import('../lib/yaml');
        await preloadYaml();
        doc = yamlLib().parse(text);
      }
    }
  } catch (e) {
    const { yamlErrorLine } = await import('../lib/yaml');
    const { line, column, message } = yamlErrorLine(e);
    fail(`kubeconfig "${file}" is not valid YAML${line !== undefined ? ` (line ${line}, column ${column})` : ''}: ${message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) fail(`kubeconfig "${file}" is not valid: expected a YAML mapping with clusters, users and contexts`);
  return doc as Record<string, unknown>;
}

function namedEntries<T>(doc: Record<string, unknown>, listKey: string, itemKey: string, file: string): Array<[string, T]> {
  const list = doc[listKey];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) fail(`kubeconfig "${file}" is not valid: "${listKey}" must be a list`);
  const out: Array<[string, T]> = [];
  for (const item of list) {
    if (!item || typeof item !== 'object') fail(`kubeconfig "${file}" is not valid: an entry of "${listKey}" is not a mapping`);
    const rec = item as Record<string, unknown>;
    if (typeof rec.name !== 'string' || rec.name === '') fail(`kubeconfig "${file}" is not valid: an entry of "${listKey}" has no name`);
    const value = rec[itemKey];
    if (value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value))) {
      fail(`kubeconfig "${file}" is not valid: ${itemKey} "${rec.name}" is not a mapping`);
    }
    out.push([rec.name, (value ?? {}) as T]);
  }
  return out;
}

/** Files to read, in precedence order: --kubeconfig (exactly one), else $KUBECONFIG, else ~/.kube/config. */
export function kubeconfigFiles(globals: Pick<GlobalFlags, 'kubeconfig'>, env: LoadEnv): { files: string[]; explicit: boolean } {
  if (globals.kubeconfig) return { files: [globals.kubeconfig], explicit: true };
  if (env.KUBECONFIG !== undefined && env.KUBECONFIG !== '') {
    const seen = new Set<string>();
    const files: string[] = [];
    for (const part of env.KUBECONFIG.split(delimiter)) {
      if (!part || seen.has(resolve(part))) continue;
      seen.add(resolve(part));
      files.push(part);
    }
    return { files, explicit: false };
  }
  const def = defaultKubeconfigPath(env);
  return { files: def ? [def] : [], explicit: false };
}

/**
 * Reads and merges kubeconfig files like kubectl: the first file that defines a
 * cluster/user/context name wins, the first non-empty current-context wins, missing
 * files are skipped (except a --kubeconfig file, which must exist).
 */
export async function loadKubeconfig(
  globals: Pick<GlobalFlags, 'kubeconfig'>,
  env: LoadEnv,
  read: (file: string) => string = (f) => readFileSync(f, 'utf8'),
): Promise<MergedKubeconfig> {
  const { files, explicit } = kubeconfigFiles(globals, env);
  const merged: MergedKubeconfig = { files: [], searched: files, clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const file of files) {
    let text: string;
    try {
      text = read(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (explicit) {
        if (code === 'ENOENT') fail(`kubeconfig file "${file}" does not exist`);
        fail(`cannot read kubeconfig file "${file}": ${code ?? (e as Error).message}`);
      }
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      if (code === 'EISDIR') fail(`kubeconfig "${file}" is a directory, not a file`);
      fail(`cannot read kubeconfig file "${file}": ${code ?? (e as Error).message}`);
    }
    const doc = await parseKubeconfigText(text, file);
    merged.files.push(file);
    const dir = dirname(resolve(file));
    for (const [name, value] of namedEntries<KubeconfigCluster>(doc, 'clusters', 'cluster', file)) {
      if (!merged.clusters.has(name)) merged.clusters.set(name, { value, dir, file });
    }
    for (const [name, value] of namedEntries<KubeconfigUser>(doc, 'users', 'user', file)) {
      if (!merged.users.has(name)) merged.users.set(name, { value, dir, file });
    }
    for (const [name, value] of namedEntries<KubeconfigContext>(doc, 'contexts', 'context', file)) {
      if (!merged.contexts.has(name)) merged.contexts.set(name, { value, dir, file });
    }
    const cc = doc['current-context'];
    if (merged.currentContext === undefined && typeof cc === 'string' && cc !== '') merged.currentContext = cc;
  }
  return merged;
}

function readBytes(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    fail(`cannot read ${what} "${path}": ${code === 'ENOENT' ? 'no such file' : code ?? (e as Error).message}`);
  }
}

function decodeData(data: string, what: string, entry: string): Buffer {
  const clean = data.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) fail(`${what} of ${entry} in the kubeconfig is not valid base64`);
  return Buffer.from(clean, 'base64');
}

function absolute(dir: string, path: string): string {
  return isAbsolute(path) ? path : join(dir, path);
}

/** Normalises a server address: kubectl accepts "host:port" and means https. */
export function normaliseServer(server: string): string {
  const s = server.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : `https://${s}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    fail(`invalid server address "${server}": expected a URL like https://host:6443`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`invalid server address "${server}": only http and https are supported`);
  if (url.username || url.password) fail(`invalid server address: put credentials in the kubeconfig user, not in the URL`);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Applies the global flags to the merged kubeconfig and reads the files it names.
 * Flags win over the kubeconfig field by field, like kubectl.
 */
export function resolveConnection(merged: MergedKubeconfig, globals: GlobalFlags): ConnectionConfig {
  let contextName: string | undefined;
  let context: Sourced<KubeconfigContext> | undefined;
  if (globals.context !== undefined) {
    contextName = globals.context;
    context = merged.contexts.get(contextName);
    if (!context) fail(`context "${contextName}" does not exist in the kubeconfig`, contextHint(merged));
  } else if (merged.currentContext !== undefined) {
    contextName = merged.currentContext;
    context = merged.contexts.get(contextName);
    if (!context) fail(`current context "${contextName}" does not exist in the kubeconfig`, contextHint(merged));
  }

  const clusterName = globals.cluster ?? context?.value.cluster;
  let cluster: Sourced<KubeconfigCluster> | undefined;
  if (clusterName !== undefined && clusterName !== '') {
    cluster = merged.clusters.get(clusterName);
    if (!cluster) {
      fail(globals.cluster !== undefined ? `cluster "${clusterName}" does not exist in the kubeconfig` : `context "${contextName}" names cluster "${clusterName}", which does not exist in the kubeconfig`);
    }
  }
  const userEntryName = globals.user ?? context?.value.user ?? '';
  let user: Sourced<KubeconfigUser> | undefined;
  if (userEntryName !== '') {
    user = merged.users.get(userEntryName);
    if (!user) {
      fail(globals.user !== undefined ? `user "${userEntryName}" does not exist in the kubeconfig` : `context "${contextName}" names user "${userEntryName}", which does not exist in the kubeconfig`);
    }
  }

  const rawServer = globals.server ?? cluster?.value.server;
  if (rawServer === undefined || rawServer === '') {
    if (merged.files.length === 0) {
      const where = merged.searched.length ? merged.searched.join(', ') : '~/.kube/config';
      fail(`no kubeconfig found (looked for ${where})`, 'hint: pass --kubeconfig=FILE, set KUBECONFIG, or give --server');
    }
    if (contextName === undefined) fail(`no current context is set in the kubeconfig (${merged.files.join(', ')})`, 'hint: pass --context=NAME or run "kubectl config use-context NAME"');
    fail(`no server is set for cluster "${clusterName ?? ''}" in the kubeconfig`, 'hint: pass --server=URL or set the cluster\'s server');
  }
  const server = normaliseServer(rawServer);

  const namespace = globals.namespace ?? (context?.value.namespace || 'default');
  const nsProblem = dns1123LabelProblem(namespace);
  if (nsProblem) fail(`invalid namespace "${namespace}": ${nsProblem}`);

  // TLS: a flag CA replaces the kubeconfig's; --insecure-skip-tls-verify drops the kubeconfig CA (client-go does too).
  const c = cluster?.value ?? {};
  const cdir = cluster?.dir ?? process.cwd();
  const insecureFlag = globals.insecureSkipTlsVerify;
  if (insecureFlag === true && globals.certificateAuthority) {
    fail('specifying a root certificates file with the insecure flag is not allowed');
  }
  let insecure = insecureFlag ?? c['insecure-skip-tls-verify'] === true;
  let ca: Buffer | undefined;
  let caSource: string | undefined;
  if (globals.certificateAuthority) {
    ca = readBytes(globals.certificateAuthority, 'certificate authority file');
    caSource = globals.certificateAuthority;
    insecure = false;
  } else if (!insecure) {
    if (c['certificate-authority-data']) {
      ca = decodeData(String(c['certificate-authority-data']), 'certificate-authority-data', `cluster "${clusterName}"`);
      caSource = `certificate-authority-data of cluster "${clusterName}"`;
    } else if (c['certificate-authority']) {
      const p = absolute(cdir, String(c['certificate-authority']));
      ca = readBytes(p, 'certificate authority file');
      caSource = p;
    }
  }
  const tlsServerName = globals.tlsServerName ?? (c['tls-server-name'] ? String(c['tls-server-name']) : undefined);
  let proxy: ProxyChoice | undefined;
  if (c['proxy-url'] !== undefined && c['proxy-url'] !== '') {
    // client-go refuses the whole kubeconfig over it (validation.go validateClusterInfo), in these words.
    const parsed = parseClusterProxyUrl(String(c['proxy-url']));
    if ('problem' in parsed) fail(`invalid 'proxy-url' "${redactUserinfo(String(c['proxy-url']))}" for cluster "${clusterName ?? ''}": ${parsed.problem.replace(String(c['proxy-url']), redactUserinfo(String(c['proxy-url'])))}`);
    proxy = { proxy: parsed.proxy, source: `proxy-url of cluster "${clusterName ?? ''}"` };
  }

  const u = user?.value ?? {};
  const udir = user?.dir ?? process.cwd();
  const conn: ConnectionConfig = {
    server,
    contextName,
    clusterName,
    userEntryName,
    namespace,
    namespaceFromFlag: globals.namespace !== undefined,
    insecureSkipTlsVerify: insecure,
    tlsServerName,
    disableCompression: globals.disableCompression ?? c['disable-compression'] === true,
    proxy,
    ca,
    caSource,
  };

  if (globals.clientCertificate) {
    conn.clientCert = readBytes(globals.clientCertificate, 'client certificate file');
    conn.clientCertSource = `--client-certificate=${globals.clientCertificate}`;
  } else if (u['client-certificate-data']) conn.clientCert = decodeData(String(u['client-certificate-data']), 'client-certificate-data', `user "${userEntryName}"`);
  else if (u['client-certificate']) conn.clientCert = readBytes(absolute(udir, String(u['client-certificate'])), 'client certificate file');
  conn.clientCertSource ??= userEntryName ? `kubeconfig user "${userEntryName}"` : undefined;
  if (globals.clientKey) conn.clientKey = readBytes(globals.clientKey, 'client key file');
  else if (u['client-key-data']) conn.clientKey = decodeData(String(u['client-key-data']), 'client-key-data', `user "${userEntryName}"`);
  else if (u['client-key']) conn.clientKey = readBytes(absolute(udir, String(u['client-key'])), 'client key file');
  if (Boolean(conn.clientCert) !== Boolean(conn.clientKey)) {
    fail(conn.clientCert ? `client certificate given without a client key for user "${userEntryName}"` : `client key given without a client certificate for user "${userEntryName}"`);
  }

  if (globals.token !== undefined) conn.token = globals.token;
  else if (typeof u.token === 'string' && u.token !== '') conn.token = u.token;
  else if (typeof u.tokenFile === 'string' && u.tokenFile !== '') {
    conn.tokenFile = absolute(udir, u.tokenFile);
    // Fail early (exit 2) on a missing file; later reads pick up rotations.
    conn.token = readBytes(conn.tokenFile, 'token file').toString('utf8').trim();
  }
  if (!conn.token && typeof u.username === 'string' && u.username !== '') {
    conn.basicAuth = { username: u.username, password: typeof u.password === 'string' ? u.password : '' };
  }

  const asUser = globals.as ?? (typeof u.as === 'string' && u.as !== '' ? u.as : undefined);
  const asGroups = globals.asGroups.length ? globals.asGroups : Array.isArray(u['as-groups']) ? u['as-groups'].map(String) : [];
  const asUid = globals.asUid ?? (typeof u['as-uid'] === 'string' && u['as-uid'] !== '' ? u['as-uid'] : undefined);
  const asExtra = globals.asUserExtra.length ? userExtras(globals.asUserExtra) : u['as-user-extra'] && typeof u['as-user-extra'] === 'object' ? (u['as-user-extra'] as Record<string, string[]>) : undefined;
  if (asUser !== undefined || asGroups.length || asUid !== undefined || asExtra) {
    // client-go's rest.Config check: impersonating groups, a UID or extras needs a user.
    if (asUser === undefined) fail(`${[asGroups.length ? '--as-group' : '', asUid !== undefined ? '--as-uid' : '', asExtra ? '--as-user-extra' : ''].filter(Boolean).join(', ')} needs --as (a user to impersonate)`);
    conn.impersonate = { user: asUser, groups: asGroups };
    if (asUid !== undefined) conn.impersonate.uid = asUid;
    if (asExtra) conn.impersonate.extra = asExtra;
  }

  // An explicit --token (or client certificate flags) replaces the plugin, as in kubectl.
  const explicitCreds = globals.token !== undefined || Boolean(globals.clientCertificate);
  if (!explicitCreds && (u.exec || u['auth-provider'])) {
    conn.pluginUser = { name: userEntryName, user: u, cluster: c, server, dir: udir };
  }
  return conn;
}

/** --as-user-extra KEY=VALUE values (repeated: several values of a key), as kubectl's StringToStringSlice reads them. */
function userExtras(values: readonly string[]): Record<string, string[]> {
  const extra: Record<string, string[]> = {};
  for (const v of values) {
    const eq = v.indexOf('=');
    if (eq <= 0) fail(`invalid argument "${v}" for "--as-user-extra" flag: expected KEY=VALUE`);
    (extra[v.slice(0, eq)] ??= []).push(v.slice(eq + 1));
  }
  return extra;
}

/** A URL with its password (and user) replaced, for messages: http://****@proxy:3128. */
function redactUserinfo(url: string): string {
  return url.replace(/(\/\/)[^/@\s]*@/, '$1****@');
}

function contextHint(merged: MergedKubeconfig): string | undefined {
  const names = [...merged.contexts.keys()];
  if (names.length === 0) return merged.files.length ? `hint: the kubeconfig (${merged.files.join(', ')}) defines no contexts` : 'hint: no kubeconfig file was found';
  return `hint: known contexts: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ', ...' : ''}`;
}

/** Re-reads a token file (rotated service account tokens); keeps the old token on failure. */
export function readTokenFile(path: string, previous: string | undefined): string | undefined {
  try {
    if (!existsSync(path) || !statSync(path).isFile()) return previous;
    return readFileSync(path, 'utf8').trim();
  } catch {
    return previous;
  }
}
