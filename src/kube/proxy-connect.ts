// Connections through a proxy: a tunnel to the API server's host:port opened with HTTP CONNECT (to an
// http:// or https:// proxy) or SOCKS5 (RFC 1928, with RFC 1929 username/password), then, for an
// https:// server, TLS end to end inside it. The proxy sees the CONNECT line (and Proxy-Authorization
// when the proxy URL has userinfo) or the SOCKS request, never our Authorization header nor our client
// certificate. A plain http:// server is tunnelled too (kubectl sends it absolute-URI requests, our
// bearer token included, in clear to the proxy; a tunnel keeps them between us and the server).
//
// The agent made here is a node:http(s) Agent whose connections are those tunnels: plain requests,
// watches and (one agent per connection) WebSockets use it, in Node and in Bun alike.
import type * as http from 'node:http';
import type * as net from 'node:net';
import type * as tlsTypes from 'node:tls';
import type { Duplex } from 'node:stream';
import { defaultPort, displayProxy, parseIp, type ProxyChoice } from './proxy';

/** Most bytes of a proxy's answer to CONNECT before its blank line: a status line and a few headers. */
const MAX_CONNECT_RESPONSE_BYTES = 64 * 1024;
/** How long opening a tunnel may take when no --request-timeout bounds it (client-go dials for 30 s). */
export const DEFAULT_TUNNEL_TIMEOUT_MS = 30_000;

/** A failure to reach the server through the proxy, already in the user's words (the proxy named, no password). */
export class ProxyError extends Error {
  constructor(
    message: string,
    /** ECONNREFUSED (the proxy refused us: retried like a refused server), ENOTFOUND, or EPROXY (it answered no, or not in time: not retried). */
    readonly code: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'ProxyError';
  }
}

export interface TunnelSettings {
  choice: ProxyChoice;
  /** Sent in the CONNECT request. */
  userAgent: string;
  /**
   * Bounds the whole tunnel set-up (TCP, TLS to an https proxy, the CONNECT or SOCKS exchange): a backstop
   * behind --request-timeout, which reports its own expiry when it is set.
   */
  timeoutMs: number;
  /**
   * TLS to an https:// proxy: verified against the system's roots plus the cluster's CA (kubectl verifies
   * it with the cluster's TLS settings: --insecure-skip-tls-verify turns this off too). Never a client certificate.
   */
  proxyTls: { ca?: Buffer; rejectUnauthorized: boolean };
}

function builtin<T>(name: string): T {
  return process.getBuiltinModule(name) as T;
}

/** "the proxy at http://127.0.0.1:3128 (HTTPS_PROXY)" */
export function proxyLabel(choice: ProxyChoice): string {
  return `the ${choice.proxy.scheme.startsWith('socks') ? 'SOCKS5 ' : ''}proxy at ${displayProxy(choice.proxy)} (${choice.source})`;
}

function proxyPort(choice: ProxyChoice): number {
  return Number(choice.proxy.port || defaultPort(choice.proxy.scheme));
}

function connectFailure(err: NodeJS.ErrnoException, choice: ProxyChoice): ProxyError {
  const at = proxyLabel(choice);
  const code = err.code ?? '';
  if (code === 'ECONNREFUSED') return new ProxyError(`${at} is unreachable: connection refused`, 'ECONNREFUSED');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new ProxyError(`${at} is unreachable: host ${choice.proxy.hostname} not found`, 'ENOTFOUND');
  if (code === 'ECONNRESET' || code === 'EPIPE') return new ProxyError(`${at} closed the connection before the tunnel was open`, 'EPROXY');
  if (/^(ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/.test(code) || /certificate/i.test(err.message)) {
    return new ProxyError(`tls: failed to verify the certificate of ${at}: ${err.message}`, 'EPROXY', 'hint: an https:// proxy must present a certificate the system or the cluster CA vouches for');
  }
  return new ProxyError(`${at} failed: ${err.message || code}`, code || 'EPROXY');
}

/**
 * Reads from `socket` until `complete` says how many bytes make the answer; the rest goes back to the
 * socket. Through 'readable' and read(), never 'data': the socket is left neither flowing nor paused, so
 * the HTTP client that takes it over starts reading it as it would a fresh one.
 */
function readAnswer(socket: Duplex, complete: (buf: Buffer) => number | undefined, limit: number, what: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const cleanup = (): void => {
      socket.off('readable', onReadable);
      socket.off('error', onError);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
    };
    const onReadable = (): void => {
      for (let chunk: Buffer | null; (chunk = socket.read() as Buffer | null) !== null; ) {
        buf = Buffer.concat([buf, chunk]);
        let n: number | undefined;
        try {
          n = complete(buf);
        } catch (e) {
          cleanup();
          reject(e as Error);
          return;
        }
        if (n === undefined) {
          if (buf.length > limit) {
            cleanup();
            reject(what());
            return;
          }
          continue;
        }
        cleanup();
        if (buf.length > n) socket.unshift(buf.subarray(n));
        resolve(buf.subarray(0, n));
        return;
      }
    };
    const onError = (e: Error): void => {
      cleanup();
      reject(e);
    };
    const onEnd = (): void => {
      cleanup();
      reject(Object.assign(new Error('the proxy closed the connection'), { code: 'ECONNRESET' }));
    };
    socket.on('readable', onReadable);
    socket.once('error', onError);
    socket.once('end', onEnd);
    socket.once('close', onEnd);
  });
}

function basicAuth(choice: ProxyChoice): string | undefined {
  const { username, password } = choice.proxy;
  if (username === undefined && password === undefined) return undefined;
  return `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64')}`;
}

function authority(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

async function httpConnect(socket: Duplex, host: string, port: number, settings: TunnelSettings): Promise<void> {
  const target = authority(host, port);
  const lines = [`CONNECT ${target} HTTP/1.1`, `Host: ${target}`, `User-Agent: ${settings.userAgent}`];
  const auth = basicAuth(settings.choice);
  if (auth) lines.push(`Proxy-Authorization: ${auth}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  const head = await readAnswer(
    socket,
    (buf) => {
      const end = buf.indexOf('\r\n\r\n');
      return end < 0 ? undefined : end + 4;
    },
    MAX_CONNECT_RESPONSE_BYTES,
    () => new ProxyError(`${proxyLabel(settings.choice)} answered CONNECT with more than ${MAX_CONNECT_RESPONSE_BYTES / 1024} KiB of headers`, 'EPROXY'),
  );
  const statusLine = head.toString('latin1').split('\r\n', 1)[0]!;
  const m = /^HTTP\/\d(?:\.\d)? (\d{3})(?: (.*))?$/.exec(statusLine);
  if (!m) throw new ProxyError(`${proxyLabel(settings.choice)} did not answer CONNECT ${target} as an HTTP proxy (${JSON.stringify(statusLine.slice(0, 60))})`, 'EPROXY');
  const status = Number(m[1]);
  // Go's transport takes exactly 200 (net/http transport.go, dialConn).
  if (status === 200) return;
  const reason = (m[2] ?? '').trim();
  const answer = `${status}${reason ? ` ${reason}` : ''}`;
  if (status === 407) {
    throw new ProxyError(
      `${proxyLabel(settings.choice)} refused CONNECT ${target}: ${answer}`,
      'EPROXY',
      auth ? 'hint: the proxy rejected the user and password of the proxy URL' : 'hint: the proxy wants credentials: write USER:PASSWORD@ before its host in the proxy URL',
    );
  }
  throw new ProxyError(`${proxyLabel(settings.choice)} refused CONNECT ${target}: ${answer}`, 'EPROXY');
}

const SOCKS_REPLIES: Record<number, string> = {
  1: 'general SOCKS server failure',
  2: 'connection not allowed by ruleset',
  3: 'network unreachable',
  4: 'host unreachable',
  5: 'connection refused',
  6: 'TTL expired',
  7: 'command not supported',
  8: 'address type not supported',
};

async function socks5Connect(socket: Duplex, host: string, port: number, settings: TunnelSettings): Promise<void> {
  const at = proxyLabel(settings.choice);
  const { username, password } = settings.choice.proxy;
  const withAuth = username !== undefined || password !== undefined;
  const bad = (what: string): ProxyError => new ProxyError(`${at} ${what}`, 'EPROXY');
  const exactly = (n: number) => (buf: Buffer) => (buf.length >= n ? n : undefined);
  // Greeting: no authentication, plus username/password when we have them (Go offers the same two).
  socket.write(Buffer.from(withAuth ? [5, 2, 0, 2] : [5, 1, 0]));
  const method = await readAnswer(socket, exactly(2), 2, () => bad('answered the SOCKS5 greeting wrongly'));
  if (method[0] !== 5) throw bad('is not a SOCKS5 proxy (it answered the greeting with another version)');
  if (method[1] === 0xff) throw new ProxyError(`${at} accepts none of our authentication methods (${withAuth ? 'none, username/password' : 'none'})`, 'EPROXY', withAuth ? undefined : 'hint: the proxy wants credentials: write USER:PASSWORD@ before its host in the proxy URL');
  if (method[1] === 2) {
    if (!withAuth) throw bad('asked for a username and password, and the proxy URL has none');
    const user = Buffer.from(username ?? '');
    const pass = Buffer.from(password ?? '');
    if (user.length > 255 || pass.length > 255) throw bad('cannot take a username or password longer than 255 bytes');
    socket.write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]));
    const status = await readAnswer(socket, exactly(2), 2, () => bad('answered the SOCKS5 authentication wrongly'));
    if (status[1] !== 0) throw new ProxyError(`${at} rejected the username and password of the proxy URL`, 'EPROXY');
  } else if (method[1] !== 0) throw bad(`chose an authentication method we do not speak (${method[1]})`);

  // CONNECT: an address as such, a host name for the proxy to resolve (as Go's SOCKS dialer sends it).
  const net = builtin<typeof import('node:net')>('node:net');
  let address: Buffer;
  if (net.isIPv4(host)) address = Buffer.from([1, ...host.split('.').map(Number)]);
  else if (net.isIPv6(host)) address = Buffer.from([4, ...parseIp(host)!]);
  else {
    const name = Buffer.from(host);
    if (name.length > 255) throw bad(`cannot take a host name longer than 255 bytes (${host})`);
    address = Buffer.concat([Buffer.from([3, name.length]), name]);
  }
  socket.write(Buffer.concat([Buffer.from([5, 1, 0]), address, Buffer.from([port >> 8, port & 0xff])]));
  const reply = await readAnswer(
    socket,
    (buf) => {
      if (buf.length < 5) return undefined;
      if (buf[0] !== 5) throw bad('answered the SOCKS5 CONNECT with another version');
      const len = buf[3] === 1 ? 4 : buf[3] === 4 ? 16 : buf[3] === 3 ? 1 + buf[4]! : -1;
      if (len < 0) {
        if (buf[1] !== 0) return buf.length; // a failure with an odd address: the code is what matters
        throw bad(`answered the SOCKS5 CONNECT with an unknown address type (${buf[3]})`);
      }
      return buf.length >= 4 + len + 2 ? 4 + len + 2 : undefined;
    },
    4 + 1 + 255 + 2,
    () => bad('answered the SOCKS5 CONNECT wrongly'),
  );
  if (reply[1] !== 0) {
    throw new ProxyError(`${at} could not connect to ${authority(host, port)}: ${SOCKS_REPLIES[reply[1]!] ?? `error ${reply[1]}`}`, 'EPROXY');
  }
}

/**
 * A connection to host:port through the proxy: TCP (and TLS, for an https:// proxy) to the proxy, then
 * CONNECT or SOCKS5. Resolves with the open tunnel; rejects with a ProxyError.
 */
export function openTunnel(host: string, port: number, settings: TunnelSettings): Promise<Duplex> {
  const net = builtin<typeof import('node:net')>('node:net');
  const { choice } = settings;
  const scheme = choice.proxy.scheme;
  return new Promise<Duplex>((resolve, reject) => {
    let socket: net.Socket | tlsTypes.TLSSocket;
    let settled = false;
    const fail = (err: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.destroy();
      reject(err instanceof ProxyError ? err : connectFailure(err as NodeJS.ErrnoException, choice));
    };
    const timer = setTimeout(() => fail(new ProxyError(`${proxyLabel(choice)} did not open a tunnel to ${authority(host, port)} within ${settings.timeoutMs / 1000}s`, 'EPROXY')), settings.timeoutMs);
    // `fail` stays subscribed: it ignores what comes after the tunnel is handed over.
    const onReady = (): void => {
      (scheme.startsWith('socks') ? socks5Connect : httpConnect)(socket, host, port, settings).then(
        () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(socket);
        },
        fail,
      );
    };
    if (scheme === 'https') {
      const tls = builtin<typeof import('node:tls')>('node:tls');
      const options: tlsTypes.ConnectionOptions = { host: choice.proxy.hostname, port: proxyPort(choice), rejectUnauthorized: settings.proxyTls.rejectUnauthorized, ALPNProtocols: ['http/1.1'] };
      if (!net.isIP(choice.proxy.hostname)) options.servername = choice.proxy.hostname;
      if (settings.proxyTls.ca) options.ca = [...tls.rootCertificates, settings.proxyTls.ca.toString('utf8')];
      socket = tls.connect(options, onReady);
    } else {
      socket = net.connect({ host: choice.proxy.hostname, port: proxyPort(choice) }, onReady);
    }
    socket.once('error', fail);
  });
}

const HANDSHAKE_DONE = Symbol('kubectl-kruise.tlsHandshakeDone');
/** The proxy connection under a TLS connection to the API server (its own handle keeps the process alive). */
const TUNNEL = Symbol('kubectl-kruise.tunnel');

/** Lets the process exit with this connection open: the connection and, under TLS, the tunnel beneath it. */
export function unrefConnection(socket: { unref?: () => unknown }): void {
  socket.unref?.();
  ((socket as Record<symbol, unknown>)[TUNNEL] as { unref?: () => unknown } | undefined)?.unref?.();
}

/** Whether the TLS handshake of this connection completed (a server that then closes it turned our certificate down). */
export function handshakeCompleted(socket: unknown): boolean {
  return Boolean(socket && (socket as Record<symbol, unknown>)[HANDSHAKE_DONE]);
}

function watchHandshake(socket: Duplex | undefined): void {
  if (socket && 'encrypted' in socket) socket.once('secureConnect', () => ((socket as unknown as Record<symbol, unknown>)[HANDSHAKE_DONE] = true));
}

type AgentClass = typeof http.Agent;
type CreateConnection = (options: Record<string, unknown>, callback: (err: Error | null, socket?: Duplex) => void) => Duplex | undefined;

/**
 * A node:http(s) Agent (`Base` is https.Agent for an https:// server, http.Agent otherwise) whose
 * connections go through `tunnel` when given, and whose TLS connections remember a completed handshake.
 * `onTunnel` is told of each tunnel opened (the -v log).
 */
export function connectionAgent(Base: AgentClass, options: http.AgentOptions, tunnel?: { settings: TunnelSettings; tls: boolean; onTunnel?: (host: string, port: number) => void }): http.Agent {
  class KubeAgent extends Base {
    override createConnection(opts: Record<string, unknown>, callback: (err: Error | null, socket?: Duplex) => void): Duplex | undefined {
      const create = (super.createConnection as unknown as CreateConnection).bind(this);
      if (!tunnel) {
        const socket = create(opts, callback);
        watchHandshake(socket);
        return socket;
      }
      const host = String(opts.host ?? 'localhost').replace(/^\[(.*)\]$/, '$1');
      const port = Number(opts.port);
      tunnel.onTunnel?.(host, port);
      openTunnel(host, port, tunnel.settings).then(
        (raw) => {
          if (!tunnel.tls) return callback(null, raw);
          // TLS to the API server inside the tunnel, with every setting of a direct connection.
          const socket = create({ ...opts, socket: raw }, () => undefined);
          if (socket) (socket as unknown as Record<symbol, unknown>)[TUNNEL] = raw;
          watchHandshake(socket);
          callback(null, socket);
        },
        (err: Error) => callback(err),
      );
      return undefined;
    }
  }
  return new KubeAgent(options);
}
