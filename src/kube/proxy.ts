// Which proxy, if any, carries the connections to an API server: kubectl's rules as pure functions.
//
// - The kubeconfig cluster's `proxy-url` wins and applies to every request, NO_PROXY and localhost
//   included (client-go tools/clientcmd/client_config.go: `clientConfig.Proxy = http.ProxyURL(u)`);
//   its scheme must be http, https or socks5 (tools/clientcmd/helpers.go parseProxyURL, checked by
//   validation.go validateClusterInfo).
// - Otherwise the environment, as Go's net/http ProxyFromEnvironment reads it
//   (golang.org/x/net/http/httpproxy/proxy.go): HTTPS_PROXY for https servers, HTTP_PROXY for http ones,
//   the upper-case name before the lower-case one and an empty value as unset; a value without a scheme
//   or host means http://VALUE; "localhost" and loopback addresses are never proxied; NO_PROXY lists
//   hosts, domains (with or without a leading dot or "*."), IPs, CIDRs, each with an optional port, or
//   "*" for everything. ALL_PROXY is not read (Go does not read it either).
// Written from the Go sources' behaviour, not copied; test/unit/kube/proxy.test.ts runs Go's own tables.

/** A proxy as configured: where it listens and how to speak to it. */
export interface ProxyUrl {
  /** Lower case, without the colon: http, https, socks5, socks5h, or whatever was written. */
  scheme: string;
  /** Without brackets for IPv6. */
  hostname: string;
  /** As written ("" when absent). */
  port: string;
  /** Percent-decoded, like Go's url.User. */
  username?: string;
  password?: string;
}

/** The proxy variables of the environment, as httpproxy.FromEnvironment collects them. */
export interface ProxyEnvironment {
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
  /** REQUEST_METHOD is set: a CGI handler, where HTTP_PROXY may come from a client (golang.org/s/cgihttpproxy). */
  cgi: boolean;
  /** Which variable each value came from (for -v logs and messages). */
  names: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
}

export type EnvLookup = Readonly<Record<string, string | undefined>>;

/** The first of `names` with a non-empty value (httpproxy's getEnvAny). */
function firstSet(env: EnvLookup, names: readonly string[]): { value: string; name?: string } {
  for (const name of names) {
    const value = env[name];
    if (value) return { value, name };
  }
  return { value: '' };
}

export function proxyEnvironment(env: EnvLookup): ProxyEnvironment {
  const http = firstSet(env, ['HTTP_PROXY', 'http_proxy']);
  const https = firstSet(env, ['HTTPS_PROXY', 'https_proxy']);
  const no = firstSet(env, ['NO_PROXY', 'no_proxy']);
  return { httpProxy: http.value, httpsProxy: https.value, noProxy: no.value, cgi: Boolean(env.REQUEST_METHOD), names: { httpProxy: http.name, httpsProxy: https.name, noProxy: no.name } };
}

function fromWhatwg(u: URL): ProxyUrl {
  const out: ProxyUrl = { scheme: u.protocol.replace(/:$/, '').toLowerCase(), hostname: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: u.port };
  if (u.username) out.username = safeDecode(u.username);
  if (u.password) out.password = safeDecode(u.password);
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * A proxy variable's value as Go's httpproxy parseProxy reads it: a URL with a scheme and a host as
 * written, anything else as http://VALUE. Undefined for an empty value or one that is no URL either way.
 */
export function parseProxyValue(value: string): ProxyUrl | undefined {
  if (value === '') return undefined;
  try {
    const u = new URL(value);
    if (u.protocol !== ':' && u.host !== '') return fromWhatwg(u);
  } catch {
    /* not a URL as written: try with http:// */
  }
  try {
    return fromWhatwg(new URL(`http://${value}`));
  } catch {
    return undefined;
  }
}

/** The proxy as Go prints a URL (userinfo included: for tests; use displayProxy for anything shown). */
export function formatProxyUrl(p: ProxyUrl): string {
  const user = p.username !== undefined ? `${encodeURIComponent(p.username)}${p.password !== undefined ? `:${encodeURIComponent(p.password)}` : ''}@` : '';
  return `${p.scheme}://${user}${hostPort(p.hostname, p.port)}`;
}

/** The proxy as logs and messages show it: userinfo replaced by "****", never the password. */
export function displayProxy(p: ProxyUrl): string {
  return `${p.scheme}://${p.username !== undefined || p.password !== undefined ? '****@' : ''}${hostPort(p.hostname, p.port)}`;
}

function hostPort(hostname: string, port: string): string {
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  return port ? `${host}:${port}` : host;
}

// ---- addresses: Go's net.ParseIP / netip.ParseAddr, as 16 bytes (IPv4 as ::ffff:a.b.c.d) ----

function parseIPv4(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    // Go rejects leading zeros (an octal reading would differ) and anything but decimal digits.
    if (!/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > 255) return undefined;
    out.push(Number(p));
  }
  return out;
}

function parseIPv6(s: string): number[] | undefined {
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string): number[] | undefined => {
    if (h === '') return [];
    const out: number[] = [];
    const parts = h.split(':');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = parseIPv4(p);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(p)) return undefined;
        out.push(parseInt(p, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  let words: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    // "::" stands for at least one group of zeros.
    if (missing < 1) return undefined;
    words = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else {
    if (head.length !== 8) return undefined;
    words = head;
  }
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

/** An IP address as 16 bytes; `allowZone`: an IPv6 zone (fe80::1%eth0) is accepted and dropped, as netip.ParseAddr + AsSlice do. */
export function parseIp(s: string, allowZone = false): number[] | undefined {
  const v4 = parseIPv4(s);
  if (v4) return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4];
  let addr = s;
  const zone = s.indexOf('%');
  if (zone >= 0) {
    if (!allowZone || zone === s.length - 1 || !s.includes(':')) return undefined;
    addr = s.slice(0, zone);
  }
  return parseIPv6(addr);
}

const isV4 = (ip: readonly number[]): boolean => ip.slice(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff;
const isLoopback = (ip: readonly number[]): boolean => (isV4(ip) ? ip[12] === 127 : ip.slice(0, 15).every((b) => b === 0) && ip[15] === 1);
const sameIp = (a: readonly number[], b: readonly number[]): boolean => a.every((x, i) => x === b[i]);

interface Cidr {
  ip: number[];
  /** Prefix length over the 16 bytes (an IPv4 /8 is 104). */
  bits: number;
}

/** Go's net.ParseCIDR: an address without zone, "/", a decimal prefix length within the family's size. */
function parseCidr(s: string): Cidr | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIp(s.slice(0, slash));
  const len = s.slice(slash + 1);
  if (!ip || !/^(0|[1-9]\d*)$/.test(len)) return undefined;
  const v4Written = parseIPv4(s.slice(0, slash)) !== undefined;
  const n = Number(len);
  if (n > (v4Written ? 32 : 128)) return undefined;
  return { ip, bits: v4Written ? 96 + n : n };
}

/** IPNet.Contains: IPv4 networks (written as IPv4 or IPv4-mapped) hold IPv4 addresses only, IPv6 networks IPv6 ones. */
function cidrContains(c: Cidr, ip: readonly number[]): boolean {
  if (isV4(c.ip) !== isV4(ip)) return false;
  for (let bit = 0; bit < c.bits; bit++) {
    const mask = 0x80 >> bit % 8;
    if ((c.ip[bit >> 3]! & mask) !== (ip[bit >> 3]! & mask)) return false;
  }
  return true;
}

/** Go's net.SplitHostPort: "host:port" or "[v6]:port"; undefined when it is neither. */
export function splitHostPort(s: string): { host: string; port: string } | undefined {
  const colon = s.lastIndexOf(':');
  if (colon < 0) return undefined;
  let host: string;
  let from = 0;
  let to = 0;
  if (s.startsWith('[')) {
    const end = s.indexOf(']');
    if (end < 0 || end + 1 !== colon) return undefined;
    host = s.slice(1, end);
    from = 1;
    to = end + 1;
  } else {
    host = s.slice(0, colon);
    if (host.includes(':')) return undefined;
  }
  if (s.indexOf('[', from) >= 0 || s.indexOf(']', to) >= 0) return undefined;
  return { host, port: s.slice(colon + 1) };
}

type NoProxyRule =
  | { kind: 'all' }
  | { kind: 'cidr'; cidr: Cidr }
  | { kind: 'ip'; ip: number[]; port: string }
  /** `suffix` starts with "."; `exact`: the entry had no leading dot, so the domain itself matches too. */
  | { kind: 'domain'; suffix: string; port: string; exact: boolean };

/** A host name in ASCII (punycode), as Go's idna.Lookup.ToASCII makes it; node:url loads only for a name that needs it. */
const asciiHost = (h: string): string => (/^[\x00-\x7f]*$/.test(h) ? h : (process.getBuiltinModule('node:url') as typeof import('node:url')).domainToASCII(h) || h);

/** NO_PROXY as httpproxy's config.init reads it: comma-separated, case-insensitive, malformed entries ignored. */
export function parseNoProxy(value: string): NoProxyRule[] {
  const rules: NoProxyRule[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return [{ kind: 'all' }];
    const cidr = parseCidr(entry);
    if (cidr) {
      rules.push({ kind: 'cidr', cidr });
      continue;
    }
    let host = entry;
    let port = '';
    const split = splitHostPort(entry);
    if (split) {
      if (split.host === '') continue;
      host = split.host.replace(/^\[(.*)\]$/, '$1');
      port = split.port;
    }
    const ip = parseIp(host);
    if (ip) {
      rules.push({ kind: 'ip', ip, port });
      continue;
    }
    if (host === '') continue;
    if (host.startsWith('*.')) host = host.slice(1);
    const exact = !host.startsWith('.');
    rules.push({ kind: 'domain', suffix: asciiHost(exact ? `.${host}` : host), port, exact });
  }
  return rules;
}

/**
 * Whether a connection to host:port goes through the proxy (httpproxy's useProxy): never for
 * "localhost" or a loopback address; not when a NO_PROXY rule matches. `host` is a bare host name or
 * address (no brackets), `port` the explicit or default port.
 */
export function useProxy(rules: readonly NoProxyRule[], host: string, port: string): boolean {
  if (host === 'localhost') return false;
  const ip = parseIp(host, true);
  if (ip && isLoopback(ip)) return false;
  const name = host.trim().toLowerCase();
  for (const rule of rules) {
    switch (rule.kind) {
      case 'all':
        return false;
      case 'cidr':
        if (ip && cidrContains(rule.cidr, ip)) return false;
        break;
      case 'ip':
        if (ip && sameIp(rule.ip, ip) && (rule.port === '' || rule.port === port)) return false;
        break;
      case 'domain':
        // An address (a zone like %25.example.com included) never matches a domain (CVE-2025-22870).
        if (!ip && (name.endsWith(rule.suffix) || (rule.exact && name === rule.suffix.slice(1))) && (rule.port === '' || rule.port === port)) return false;
        break;
    }
  }
  return true;
}

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443', socks5: '1080', socks5h: '1080' };

/** The port a URL of this scheme means when it names none. */
export function defaultPort(scheme: string): string {
  return DEFAULT_PORTS[scheme] ?? '';
}

/** A request's destination: scheme (http/https), host without brackets, port as written ("" for the default). */
export interface ProxyTarget {
  scheme: string;
  hostname: string;
  port: string;
}

export type EnvProxyDecision =
  | { kind: 'none'; why: 'unset' | 'scheme' }
  | { kind: 'bypass'; why: 'loopback' | 'no-proxy'; variable: string }
  | { kind: 'proxy'; proxy: ProxyUrl; variable: string }
  | { kind: 'error'; message: string };

/** httpproxy's Config.ProxyFunc applied to one destination, saying why when no proxy applies. */
export function proxyFromEnvironment(cfg: ProxyEnvironment, target: ProxyTarget): EnvProxyDecision {
  let value: string;
  let variable: string | undefined;
  if (target.scheme === 'https') {
    value = cfg.httpsProxy;
    variable = cfg.names.httpsProxy ?? 'HTTPS_PROXY';
  } else if (target.scheme === 'http') {
    value = cfg.httpProxy;
    variable = cfg.names.httpProxy ?? 'HTTP_PROXY';
  } else return { kind: 'none', why: 'scheme' };
  const proxy = parseProxyValue(value);
  if (!proxy) return { kind: 'none', why: 'unset' };
  if (target.scheme === 'http' && cfg.cgi) return { kind: 'error', message: 'refusing to use HTTP_PROXY value in CGI environment; see golang.org/s/cgihttpproxy' };
  const host = asciiHost(target.hostname);
  const port = target.port || defaultPort(target.scheme);
  if (!useProxy(parseNoProxy(cfg.noProxy), host, port)) {
    const loopback = host === 'localhost' || ((ip) => ip !== undefined && isLoopback(ip))(parseIp(host, true));
    return { kind: 'bypass', why: loopback ? 'loopback' : 'no-proxy', variable: loopback ? variable : (cfg.names.noProxy ?? 'NO_PROXY') };
  }
  return { kind: 'proxy', proxy, variable };
}

/** Schemes we can speak to a proxy in: HTTP CONNECT (in clear or over TLS) and SOCKS5 (the host resolved by the proxy). */
export const PROXY_SCHEMES = ['http', 'https', 'socks5'] as const;

/**
 * A cluster's proxy-url as client-go accepts it (parseProxyURL): a URL whose scheme is http, https or
 * socks5; here also with a host, without which there is nothing to connect to. Returns the problem as
 * client-go words it, or the proxy.
 */
export function parseClusterProxyUrl(value: string): { proxy: ProxyUrl } | { problem: string } {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return { problem: `could not parse: ${value}` };
  }
  const proxy = fromWhatwg(u);
  if (!(PROXY_SCHEMES as readonly string[]).includes(proxy.scheme)) return { problem: `unsupported scheme "${proxy.scheme}", must be http, https, or socks5` };
  if (proxy.hostname === '') return { problem: 'no host' };
  return { proxy };
}

/** The proxy chosen for a server, and where it was configured ("HTTPS_PROXY", `proxy-url of cluster "x"`). */
export interface ProxyChoice {
  proxy: ProxyUrl;
  source: string;
}

export interface ProxySelection {
  choice?: ProxyChoice;
  /** Why none applies, for -v logs: only when a proxy variable is set but does not apply to this server. */
  bypass?: string;
  /** A setting we cannot use (an unsupported scheme, HTTP_PROXY under CGI): a usage error. */
  problem?: string;
}

/** The proxy for `server`: the cluster's proxy-url when set, else the environment's, as kubectl decides. */
export function selectProxy(server: string, clusterProxy: ProxyChoice | undefined, env: EnvLookup): ProxySelection {
  if (clusterProxy) return { choice: clusterProxy };
  const url = new URL(server);
  const target: ProxyTarget = { scheme: url.protocol.replace(/:$/, ''), hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port };
  const decision = proxyFromEnvironment(proxyEnvironment(env), target);
  switch (decision.kind) {
    case 'none':
      return {};
    case 'error':
      return { problem: decision.message };
    case 'bypass':
      return { bypass: decision.why === 'loopback' ? `${decision.variable} is set, but ${target.hostname} is a loopback address (never proxied)` : `${decision.variable} matches ${target.hostname}` };
    case 'proxy':
      if (!(PROXY_SCHEMES as readonly string[]).includes(decision.proxy.scheme) && decision.proxy.scheme !== 'socks5h') {
        return { problem: `${decision.variable} names a proxy of scheme "${decision.proxy.scheme}" (${displayProxy(decision.proxy)}): only http, https and socks5 proxies are supported` };
      }
      return { choice: { proxy: decision.proxy, source: decision.variable } };
  }
}
