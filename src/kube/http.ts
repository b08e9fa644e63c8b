// HTTP transport to one API server: node http/https with a keep-alive agent (or, in the
// standalone executable, Bun's native fetch for plain requests and watches), through a proxy when
// kubectl would use one (proxy.ts decides, proxy-connect.ts tunnels), TLS verification unless told
// otherwise, --request-timeout, bounded retries with backoff (retry.ts), server Warning headers to
// stderr, and -v request logging with every secret redacted.
import type * as http from 'node:http';
import type * as httpsTypes from 'node:https';
import type { Duplex } from 'node:stream';
import type { PeerCertificate } from 'node:tls';
import type { ClientOptions, WebSocket } from 'ws';
import { CliError } from '../cli/exit';
import { apiError, CLIENT_CERT_CLOSED, transportError, type ClientCertificateInfo, type RequestContext } from './errors';
import { displayProxy, type ProxyChoice } from './proxy';
import { connectionAgent, DEFAULT_TUNNEL_TIMEOUT_MS, handshakeCompleted, unrefConnection, type TunnelSettings } from './proxy-connect';
import { redactHeader, redactSecretBody, truncateBody } from './redact';
import { retryDecision } from './retry';

export interface Credentials {
  /** Full Authorization header value ("Bearer ...", "Basic ..."). */
  authorization?: string;
}

export interface TransportConfig {
  server: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  /** No compressed responses asked for (--disable-compression; the cluster's disable-compression). */
  disableCompression?: boolean;
  /** The proxy every connection goes through (kubeconfig proxy-url, else HTTPS_PROXY/HTTP_PROXY less NO_PROXY: proxy.ts). */
  proxy?: ProxyChoice;
  /** Why a proxy variable that is set does not apply to this server (a -v=6 line). */
  proxyBypass?: string;
  /** Whose client certificate the connections offer (or would): named when a server turns it down. */
  clientCertificate?: ClientCertificateInfo;
  /** Impersonation and other fixed headers. */
  headers: Record<string, string | string[]>;
  /** Called before every request (token files rotate, exec tokens expire). */
  credentials: () => Credentials | Promise<Credentials>;
  /** Default per-request timeout in ms; 0 = none. */
  requestTimeoutMs: number;
  verbosity: number;
  /** Writes one line to stderr (logs and warnings). */
  log: (line: string) => void;
  redact: (text: string) => string;
  userAgent: string;
  /** Test seams. */
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Most bytes one response body may have. Lists are read in pages of 500 (rest-client.ts): a page
 * of 500 real pods is ~10 MiB, and no object exceeds ~1.5 MiB (etcd's request limit), so this is
 * far above any honest answer while bounding a broken or hostile server's endless body.
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** A response body above the limit: not retried (the same request would get the same body). */
export class ResponseTooLargeError extends CliError {
  constructor(url: string, limit: number, declared?: number) {
    const mib = (n: number): string => `${Math.round((n / 1048576) * 10) / 10} MiB`;
    super(`the response from ${url} is too large: ${declared !== undefined ? mib(declared) : `more than ${mib(limit)}`} (the limit for one response is ${mib(limit)}); stopped reading it`);
    this.name = 'ResponseTooLargeError';
  }
}

/** A gzip answer that does not inflate: what the server sent is broken, and sending again will not mend it. */
export class CorruptBodyError extends CliError {
  constructor(url: string, why: string) {
    super(`the response from ${url} is not valid gzip (Content-Encoding: gzip): ${why}`);
    this.name = 'CorruptBodyError';
  }
}

export type QueryValue = string | number | boolean | undefined;

export interface HttpRequest {
  method: string;
  path: string;
  query?: Record<string, QueryValue>;
  body?: string;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
  /** Safe to repeat (GET, list, watch establishment). Defaults to method === GET. */
  idempotent?: boolean;
  /** Overrides the --request-timeout for this request (ms; 0 = none). */
  timeoutMs?: number;
  maxAttempts?: number;
  /** For error messages. */
  context: RequestContext;
  /** Most bytes of the body to read (default MAX_RESPONSE_BYTES). */
  maxBytes?: number;
}

export interface HttpResponse {
  status: number;
  statusText: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What decode() makes of a 2xx body, chunk by chunk as it arrives (a list page: list-decoder.ts). */
export interface BodyReader<T> {
  write(chunk: Uint8Array): void;
  end(): T;
}

/** A body a BodyReader could not make sense of: not retried, reported as a body that is not JSON. */
export class BodyDecodeError extends Error {
  /** The answer it came in (the transport fills it in, for the message). */
  answer: { status: number; statusText: string; headers: http.IncomingHttpHeaders } = { status: 200, statusText: 'OK', headers: {} };

  constructor(
    message: string,
    /** The body's first characters, for the message. */
    readonly start: string,
    /** Bytes read when it was found. */
    readonly bytes: number,
  ) {
    super(message);
    this.name = 'BodyDecodeError';
  }
}

/**
 * A watch's open answer: its body chunk by chunk as it arrives; destroy() ends it. node:http's
 * IncomingMessage is one; under Bun, fetchStream() makes one of fetch's body.
 */
export interface ResponseStream extends AsyncIterable<Uint8Array | string> {
  destroy(): void;
}

/** A 2xx answer a BodyReader has read. */
interface Decoded {
  status: number;
  value: unknown;
}

export class AbortError extends Error {
  constructor() {
    super('the operation was aborted');
    this.name = 'AbortError';
  }
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/** setTimeout as a promise that rejects with AbortError when the signal fires. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortError());
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new AbortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Extracts the text of RFC 7234 Warning headers: `299 - "text"`. */
export function parseWarningHeader(value: string): string[] {
  const out: string[] = [];
  const re = /(\d{3})\s+\S+\s+"((?:[^"\\]|\\.)*)"/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(value)) !== null) out.push(m[2]!.replace(/\\(.)/g, '$1'));
  if (out.length === 0 && value.trim()) out.push(value.trim());
  return out;
}

export function buildQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === '') continue;
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

type Attempt =
  | { kind: 'response'; res: http.IncomingMessage; req: http.ClientRequest }
  | { kind: 'error'; error: NodeJS.ErrnoException };

// https (and tls) load only for https servers: a few milliseconds saved on every plain-http command.
function httpsModule(): typeof httpsTypes {
  return process.getBuiltinModule('node:https') as typeof httpsTypes;
}

// node:http loads on first use: the executable's requests and watches go through fetch and never need it.
function httpModule(): typeof http {
  return process.getBuiltinModule('node:http') as typeof http;
}

/**
 * Under Bun (the standalone executable), plain requests and watches go through its native fetch:
 * node:http is implemented in JavaScript there, and loading it put API commands' peak memory at
 * kubectl's (set image 44.5 MB, 23.5 ms; through fetch 41.9 MB, 17.9 ms), and an active rollout
 * status's (its two watches) ~5 MB higher. WebSockets keep node:http (ws). Not through a proxy (our
 * tunnels are node:http agents: both forms reach the server the same way), nor with a proxy variable
 * in the environment that does not apply (Bun's fetch would follow it by rules of its own), nor with
 * --tls-server-name (its identity check is node:tls's), nor with a header of several values
 * (--as-group twice: fetch would join them into one "a, b" line, which the API server reads as one group).
 */
function fetchUsable(config: TransportConfig): boolean {
  if (typeof (globalThis as { Bun?: unknown }).Bun === 'undefined' || config.tlsServerName || config.proxy) return false;
  if (Object.values(config.headers).some((v) => Array.isArray(v) && v.length > 1)) return false;
  return !['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy'].some((k) => process.env[k]);
}

/** One request's outcome, whichever client sent it. */
type Exchange =
  | { kind: 'error'; error: NodeJS.ErrnoException; phase: 'connect' | 'body' }
  | { kind: 'stream'; res: ResponseStream; status: number; statusText: string; headers: http.IncomingHttpHeaders }
  | { kind: 'response'; status: number; statusText: string; headers: http.IncomingHttpHeaders; body: string }
  | { kind: 'decoded'; status: number; statusText: string; headers: http.IncomingHttpHeaders; value: unknown };

/** How an exchange reads a 2xx answer: as text, as an open stream (watch), or through a BodyReader. */
type Reading = 'text' | 'stream' | (() => BodyReader<unknown>);

/** A body read whole, as one string. */
function textReader(): BodyReader<string> {
  const chunks: Uint8Array[] = [];
  return { write: (c) => void chunks.push(c), end: () => Buffer.concat(chunks).toString('utf8') };
}

function requestTimeoutError(timeoutMs: number): NodeJS.ErrnoException {
  const err = new Error(`request timed out after ${timeoutMs}ms`) as NodeJS.ErrnoException;
  err.code = 'REQUEST_TIMEOUT';
  return err;
}

/** A WebSocket (exec): its path and query, the subprotocols offered, the largest message accepted. */
export interface WebSocketRequest {
  path: string;
  /** Already encoded (exec repeats `command=`). */
  rawQuery: string;
  /** Offered in this order; the server must choose one of them. */
  protocols: readonly string[];
  /** Most bytes one message from the server may have. */
  maxPayload: number;
  /** For error messages; `subresource` names the stream in them ("exec"). */
  context: RequestContext;
  signal?: AbortSignal;
}

/** An open WebSocket (paused: the caller resumes it once it listens) and the connection under it. */
export interface OpenWebSocket {
  ws: WebSocket;
  /**
   * ws ends our side of it (its 'finish') as soon as the close handshake is done, or when the server
   * ended first: one round trip before ws' 'close', which waits for the server to drop the connection.
   */
  socket: Duplex;
}

/** How long a handshake probe waits, once the handshake is done, for the server to close the connection. */
const PROBE_AFTER_HANDSHAKE_MS = 1000;

/** Most bytes of an error answer to an upgrade read (a Status is a few hundred). */
const MAX_UPGRADE_ERROR_BYTES = 1024 * 1024;

export class Transport {
  private readonly agentOptions: http.AgentOptions | httpsTypes.AgentOptions;
  private agentMade: http.Agent | undefined;
  /** Plain requests through fetch (Bun), with these TLS settings; undefined: node:http. */
  private fetchTls: { ca?: Buffer; cert?: Buffer; key?: Buffer; rejectUnauthorized?: boolean } | undefined;
  /** TLS settings of every connection (the agent's, and a WebSocket's own connection). */
  private readonly tlsOptions: httpsTypes.RequestOptions = {};
  private readonly isHttps: boolean;
  private readonly base: URL;
  private readonly warned = new Set<string>();
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** How connections reach the server through config.proxy; undefined: directly. */
  private readonly tunnel: TunnelSettings | undefined;
  private proxyLogged = false;
  /** The server answered a request of this client (a refused connection after that is a restart). */
  private contacted = false;

  constructor(readonly config: TransportConfig) {
    this.base = new URL(config.server);
    this.isHttps = this.base.protocol === 'https:';
    this.sleep = config.sleep ?? abortableSleep;
    const common = { keepAlive: true, keepAliveMsecs: 30_000, maxSockets: 32 };
    if (config.proxy) {
      this.tunnel = {
        choice: config.proxy,
        userAgent: config.userAgent,
        timeoutMs: config.requestTimeoutMs > 0 ? config.requestTimeoutMs + 1000 : DEFAULT_TUNNEL_TIMEOUT_MS,
        proxyTls: { ca: config.ca, rejectUnauthorized: !config.insecureSkipTlsVerify },
      };
    }
    if (this.isHttps) {
      const tls: httpsTypes.AgentOptions = { ...common, rejectUnauthorized: !config.insecureSkipTlsVerify };
      // Only defined keys: tls.connect asserts on an explicit undefined checkServerIdentity.
      if (config.ca) tls.ca = config.ca;
      if (config.cert) tls.cert = config.cert;
      if (config.key) tls.key = config.key;
      const name = config.tlsServerName;
      if (name) {
        // Node refuses an IP as SNI; the identity check below uses the name either way.
        if (!(process.getBuiltinModule('node:net') as typeof import('node:net')).isIP(name)) tls.servername = name;
        tls.checkServerIdentity = (_host: string, cert: PeerCertificate) => tlsCheck(name, cert);
      }
      this.agentOptions = tls;
      const { keepAlive: _k, keepAliveMsecs: _m, maxSockets: _s, ...own } = tls;
      this.tlsOptions = own;
      if (fetchUsable(config)) this.fetchTls = { rejectUnauthorized: !config.insecureSkipTlsVerify, ca: config.ca, cert: config.cert, key: config.key };
    } else {
      this.agentOptions = common;
      if (fetchUsable(config)) this.fetchTls = {};
    }
  }

  /** The keep-alive agent of node:http(s), made on first use. */
  private get agent(): http.Agent {
    this.agentMade ??= this.newAgent(this.agentOptions);
    return this.agentMade;
  }

  /** An agent with these options: direct connections, or tunnels through the proxy. */
  private newAgent(options: http.AgentOptions): http.Agent {
    const Base = this.isHttps ? httpsModule().Agent : httpModule().Agent;
    const tunnel = this.tunnel && { settings: this.tunnel, tls: this.isHttps, onTunnel: (host: string, port: number) => this.logProxy(host, port) };
    return connectionAgent(Base, options, tunnel);
  }

  /** -v=6: the proxy, once (userinfo hidden), or why a proxy variable that is set does not apply. */
  private logProxy(host: string, port: number): void {
    if (this.proxyLogged || !this.tunnel) return;
    this.proxyLogged = true;
    const { proxy, source } = this.tunnel.choice;
    this.logLine(`Proxy: ${displayProxy(proxy)} (${source}): ${proxy.scheme.startsWith('socks') ? 'SOCKS5 ' : ''}CONNECT ${host.includes(':') ? `[${host}]` : host}:${port}`);
  }

  get server(): string {
    return this.config.server;
  }

  /** Full URL of a path (for logs and messages). */
  url(path: string, query?: Record<string, QueryValue>): string {
    const prefix = this.base.pathname.replace(/\/+$/, '');
    return `${this.base.protocol}//${this.base.host}${prefix}${path}${buildQuery(query)}`;
  }

  /**
   * Lets the process exit: every socket is unref'd and ends with the process (or when the server
   * times the idle connection out). Not destroyed: destroying a socket makes Node build
   * process.stderr (net's Socket._destroy compares against it), a stream a CLI that writes
   * through descriptors never needs, on every command's way out.
   */
  close(): void {
    if (!this.agentMade) return; // fetch's pooled connections never hold the process
    for (const group of [this.agentMade.sockets, this.agentMade.freeSockets]) {
      for (const list of Object.values(group)) for (const socket of list ?? []) unrefConnection(socket);
    }
  }

  /** Sends a request (retrying as allowed) and returns the response, whatever its status. */
  async send(req: HttpRequest): Promise<HttpResponse> {
    try {
      return (await this.withRetries(req, 'text')) as HttpResponse;
    } catch (err) {
      throw this.scrub(err);
    }
  }

  /** Error messages are printed to the user: no secret may survive in them. */
  private scrub(err: unknown): unknown {
    if (err instanceof Error) {
      err.message = this.config.redact(err.message);
      const withHint = err as Error & { hint?: string };
      if (typeof withHint.hint === 'string') Object.defineProperty(err, 'hint', { value: this.config.redact(withHint.hint) });
    }
    return err;
  }

  /** Sends a request and returns the JSON body of a 2xx answer; anything else becomes a KubeApiError. */
  async json<T>(req: HttpRequest): Promise<T> {
    const res = await this.send(req);
    if (res.status < 200 || res.status > 299) throw this.scrub(apiError(res.status, res.statusText, res.body, req.context));
    if (res.body === '') return undefined as T;
    try {
      return JSON.parse(res.body) as T;
    } catch {
      throw this.notJson(req, res.status, res.statusText, res.headers, res.body.slice(0, 40), Buffer.byteLength(res.body));
    }
  }

  /**
   * As json(), but a 2xx body goes to a reader chunk by chunk as it arrives instead of being held
   * whole first (a list page mapped item by item). At -v8 and above, which log bodies, the body is
   * read whole and then given to the reader.
   */
  async decode<T>(req: HttpRequest, reader: () => BodyReader<T>): Promise<T> {
    let res: HttpResponse | Decoded;
    try {
      res = (await this.withRetries(req, this.config.verbosity >= 8 ? 'text' : reader)) as HttpResponse | Decoded;
      if ('value' in res) return res.value as T;
    } catch (err) {
      if (err instanceof BodyDecodeError) throw this.notJson(req, err.answer.status, err.answer.statusText, err.answer.headers, err.start, err.bytes);
      throw this.scrub(err);
    }
    if (res.status < 200 || res.status > 299) throw this.scrub(apiError(res.status, res.statusText, res.body, req.context));
    const one = reader();
    try {
      one.write(Buffer.from(res.body, 'utf8'));
      return one.end();
    } catch (err) {
      if (err instanceof BodyDecodeError) throw this.notJson(req, res.status, res.statusText, res.headers, err.start, err.bytes);
      throw err;
    }
  }

  private notJson(req: HttpRequest, status: number, statusText: string, headers: http.IncomingHttpHeaders, start: string, bytes: number): unknown {
    const contentType = headerValue(headers['content-type']);
    return this.scrub(
      new CliError(
        `the response from ${this.url(req.path, req.query)} was not valid JSON (${status} ${statusText}, ${bytes} bytes${contentType ? ` of ${contentType}` : ''}, starting ${JSON.stringify(start.replace(/\s+/g, ' '))})`,
        undefined,
        'hint: is the server (or a proxy in front of it) a Kubernetes API server?',
      ),
    );
  }

  /**
   * Opens a streaming response (watch). Establishment is retried like a GET; a non-2xx answer
   * is read and thrown as a KubeApiError. The caller consumes and destroys the stream.
   */
  async stream(req: HttpRequest): Promise<ResponseStream> {
    try {
      return (await this.withRetries(req, 'stream')) as ResponseStream;
    } catch (err) {
      throw this.scrub(err);
    }
  }

  private async withRetries(req: HttpRequest, reading: Reading): Promise<HttpResponse | ResponseStream | Decoded> {
    const idempotent = req.idempotent ?? req.method === 'GET';
    if (this.config.proxyBypass && !this.proxyLogged) {
      this.proxyLogged = true;
      this.logLine(`Proxy: none for ${this.config.server}: ${this.config.proxyBypass}`);
    }
    const streaming = reading === 'stream';
    for (let attempt = 1; ; attempt++) {
      if (req.signal?.aborted) throw new AbortError();
      const started = Date.now();
      const ex = this.fetchTls ? await this.fetchExchange(req, reading) : await this.nodeExchange(req, reading);
      if (ex.kind === 'error') {
        let { error } = ex;
        if (isAbortError(error)) throw error;
        // Bun's fetch says only "FailedToOpenSocket" for TLS material it cannot use (a CA that is not
        // PEM, for one): nothing was sent, so node:https tries again and names the problem.
        if (ex.phase === 'connect' && error.code === 'FailedToOpenSocket' && this.fetchTls) {
          this.fetchTls = undefined;
          attempt--;
          continue;
        }
        // Nor does it say which TLS alert ended a handshake ("EPROTO: The TLS handshake failed"), nor tell
        // a connection closed right after the handshake (a server turning our client certificate down)
        // from any reset: a handshake of node:tls, with no request in it, tells.
        if (ex.phase === 'connect' && this.fetchTls && this.isHttps && (error.code === 'EPROTO' || (error.code === 'ECONNRESET' && this.config.clientCertificate?.given))) {
          error = (await this.probeHandshake()) ?? error;
        }
        if (ex.phase === 'connect') this.logLine(`${req.method} ${this.url(req.path, req.query)} failed in ${Date.now() - started} milliseconds: ${error.code ?? error.message}`);
        const errorCode = ex.phase === 'body' ? (error.code ?? 'ECONNRESET') : error.code;
        const decision = retryDecision({ method: req.method, idempotent, attempt, errorCode, contacted: this.contacted, maxAttempts: req.maxAttempts }, this.config.random);
        if (!decision.retry) throw transportError(error, this.config.server, req.timeoutMs ?? this.config.requestTimeoutMs, this.config.clientCertificate);
        await this.sleep(decision.delayMs, req.signal);
        continue;
      }
      this.contacted = true;
      if (ex.kind === 'stream') {
        this.emitWarnings(ex.headers);
        this.logResponse(req, ex.status, ex.statusText, started, ex.headers, undefined);
        return ex.res;
      }
      if (ex.kind === 'decoded') {
        this.emitWarnings(ex.headers);
        this.logResponse(req, ex.status, ex.statusText, started, ex.headers, undefined);
        return { status: ex.status, value: ex.value };
      }
      const { status, statusText, headers, body } = ex;
      this.emitWarnings(headers);
      this.logResponse(req, status, statusText, started, headers, body);
      if (status >= 400) {
        const retryAfter = headerValue(headers['retry-after']);
        const decision = retryDecision({ method: req.method, idempotent, attempt, status, retryAfter, maxAttempts: req.maxAttempts }, this.config.random);
        if (decision.retry) {
          this.logLine(`Retrying ${req.method} ${this.url(req.path, req.query)} after ${decision.delayMs} milliseconds (${decision.reason})`);
          await this.sleep(decision.delayMs, req.signal);
          continue;
        }
      }
      if (streaming) throw apiError(status, statusText, body, req.context);
      return { status, statusText, headers, body };
    }
  }

  /** One request through node:http(s): a watch's open stream, or the whole answer read (a 2xx one through its reader). */
  private async nodeExchange(req: HttpRequest, reading: Reading): Promise<Exchange> {
    const result = await this.attempt(req);
    if (result.kind === 'error') return { kind: 'error', error: result.error, phase: 'connect' };
    const { res } = result;
    const status = res.statusCode ?? 0;
    const statusText = res.statusMessage ?? httpModule().STATUS_CODES[status] ?? '';
    const ok = status >= 200 && status < 300;
    if (reading === 'stream' && ok) return { kind: 'stream', res, status, statusText, headers: res.headers };
    const url = this.url(req.path, req.query);
    const maxBytes = req.maxBytes ?? MAX_RESPONSE_BYTES;
    try {
      if (ok && typeof reading === 'function') return { kind: 'decoded', status, statusText, headers: res.headers, value: await readBody(res, url, maxBytes, reading(), req.signal) };
      const body = await readBody(res, url, maxBytes, textReader(), req.signal);
      return { kind: 'response', status, statusText, headers: res.headers, body };
    } catch (e) {
      if (e instanceof BodyDecodeError) e.answer = { status, statusText, headers: res.headers };
      if (isAbortError(e) || e instanceof ResponseTooLargeError || e instanceof BodyDecodeError || e instanceof CorruptBodyError) throw e;
      return { kind: 'error', error: timedOutResponses.get(res) ?? (e as NodeJS.ErrnoException), phase: 'body' };
    }
  }

  /**
   * One request through fetch (Bun), with node:http's behaviour: no redirects followed,
   * --request-timeout over the whole answer (a watch: its establishment), the body bounded by
   * maxBytes, Ctrl-C an AbortError; a watch's 2xx body is returned open (fetchStream).
   */
  private async fetchExchange(req: HttpRequest, reading: Reading): Promise<Exchange> {
    const { url, headers, timeoutMs } = await this.prepare(req);
    delete headers['Content-Length']; // fetch sets it
    const maxBytes = req.maxBytes ?? MAX_RESPONSE_BYTES;
    const ctl = new AbortController();
    const onAbort = (): void => ctl.abort(new AbortError());
    req.signal?.addEventListener('abort', onAbort, { once: true });
    if (req.signal?.aborted) onAbort();
    const timer = timeoutMs > 0 ? setTimeout(() => ctl.abort(requestTimeoutError(timeoutMs)), timeoutMs) : undefined;
    try {
      let res: Response;
      try {
        // One value each (fetchUsable): an array here is a one-element list.
        const flat = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
        const init = { method: req.method, headers: flat, body: req.body, signal: ctl.signal, redirect: 'manual', tls: this.fetchTls };
        res = await fetch(url, init as RequestInit);
      } catch (e) {
        return { kind: 'error', error: e as NodeJS.ErrnoException, phase: 'connect' };
      }
      const nodeHeaders: http.IncomingHttpHeaders = {};
      for (const [k, v] of res.headers) nodeHeaders[k] = k === 'set-cookie' ? res.headers.getSetCookie() : v;
      if (reading === 'stream' && res.status >= 200 && res.status < 300) return { kind: 'stream', res: fetchStream(res.body, ctl), status: res.status, statusText: res.statusText, headers: nodeHeaders };
      const declared = Number(res.headers.get('content-length') ?? Number.NaN);
      if (Number.isFinite(declared) && declared > maxBytes) {
        const tooLarge = new ResponseTooLargeError(url, maxBytes, declared);
        ctl.abort(tooLarge);
        throw tooLarge;
      }
      const decoding = res.status >= 200 && res.status < 300 && typeof reading === 'function';
      const sink = decoding ? reading() : textReader();
      let total = 0;
      let value: unknown;
      try {
        const reader = res.body?.getReader();
        for (;;) {
          const next = reader ? await reader.read() : { done: true as const, value: undefined };
          if (next.done) break;
          total += next.value.byteLength;
          if (total > maxBytes) {
            const tooLarge = new ResponseTooLargeError(url, maxBytes);
            ctl.abort(tooLarge);
            throw tooLarge;
          }
          sink.write(next.value);
        }
        value = sink.end();
      } catch (e) {
        if (e instanceof BodyDecodeError) {
          e.answer = { status: res.status, statusText: res.statusText, headers: nodeHeaders };
          ctl.abort(e);
        }
        if (isAbortError(e) || e instanceof ResponseTooLargeError || e instanceof BodyDecodeError) throw e;
        return { kind: 'error', error: e as NodeJS.ErrnoException, phase: 'body' };
      }
      if (decoding) return { kind: 'decoded', status: res.status, statusText: res.statusText, headers: nodeHeaders, value };
      return { kind: 'response', status: res.status, statusText: res.statusText, headers: nodeHeaders, body: value as string };
    } finally {
      if (timer) clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The request's URL, headers (credentials included) and timeout, logged at -v>=7 (redacted). */
  private async prepare(req: HttpRequest): Promise<{ url: string; headers: Record<string, string | string[]>; timeoutMs: number }> {
    const creds = await this.config.credentials();
    const headers: Record<string, string | string[]> = {
      'User-Agent': this.config.userAgent,
      Accept: req.accept ?? 'application/json',
      ...this.config.headers,
    };
    if (creds.authorization) headers.Authorization = creds.authorization;
    // As client-go's transport: gzip asked for (kube-apiserver compresses answers over 128 KiB), unless
    // disabled. Bun's fetch asks and decompresses by itself; told "identity" when disabled.
    if (this.fetchTls) {
      if (this.config.disableCompression) headers['Accept-Encoding'] = 'identity';
    } else if (!this.config.disableCompression) headers['Accept-Encoding'] = 'gzip';
    if (req.body !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(req.body));
    }
    const url = this.url(req.path, req.query);
    if (this.config.verbosity >= 7) {
      for (const [k, v] of Object.entries(headers)) {
        for (const one of Array.isArray(v) ? v : [v]) this.config.log(this.config.redact(`Request Header: "${k}: ${redactHeader(k, one)}"`));
      }
    }
    if (this.config.verbosity >= 8 && req.body !== undefined) {
      this.config.log(this.config.redact(`Request Body: ${truncateBody(redactSecretBody(req.body), this.config.verbosity >= 9 ? 10240 : 1024)}`));
    }
    return { url, headers, timeoutMs: req.timeoutMs ?? this.config.requestTimeoutMs };
  }

  private async attempt(req: HttpRequest): Promise<Attempt> {
    const { url, headers, timeoutMs } = await this.prepare(req);
    return new Promise<Attempt>((resolve) => {
      let settled = false;
      const settle = (a: Attempt): void => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        req.signal?.removeEventListener('abort', onAbort);
        resolve(a);
      };
      let creq: http.ClientRequest;
      let socket: unknown;
      const onAbort = (): void => {
        creq?.destroy();
        settle({ kind: 'error', error: new AbortError() as NodeJS.ErrnoException });
      };
      let timer: NodeJS.Timeout | undefined;
      try {
        const mod = this.isHttps ? httpsModule() : httpModule();
        creq = mod.request(url, { method: req.method, headers, agent: this.agent });
      } catch (e) {
        settle({ kind: 'error', error: e as NodeJS.ErrnoException });
        return;
      }
      let response: http.IncomingMessage | undefined;
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          const err = requestTimeoutError(timeoutMs);
          // A body still arriving fails as a timeout too, not as a reset connection.
          if (response) timedOutResponses.set(response, err);
          response?.destroy(err);
          creq.destroy(err);
          // A request still waiting for its connection (a tunnel being opened) errs only once it has one.
          settle({ kind: 'error', error: err });
        }, timeoutMs);
      }
      req.signal?.addEventListener('abort', onAbort, { once: true });
      creq.on('response', (res) => {
        if (settled) {
          res.destroy();
          return;
        }
        settled = true;
        response = res;
        req.signal?.removeEventListener('abort', onAbort);
        // A watch may stay open for minutes: the timeout only covers its establishment.
        // Plain requests keep it until the body has been read.
        if (timer) {
          if (req.context.verb === 'watch') clearTimeout(timer);
          else res.once('close', () => clearTimeout(timer!));
        }
        resolve({ kind: 'response', res, req: creq });
      });
      creq.once('socket', (s) => (socket = s));
      creq.on('error', (error: NodeJS.ErrnoException) => settle({ kind: 'error', error: this.afterHandshake(error, handshakeCompleted(socket), creq.reusedSocket) }));
      if (req.body !== undefined) creq.end(req.body);
      else creq.end();
    });
  }

  /**
   * How a TLS handshake with the server ends, for what fetch (Bun) does not say: the handshake's error
   * (an alert, a server that does not speak TLS), a connection closed right after it while we offered a
   * client certificate (CLIENT_CERT_CLOSED), or undefined when the connection stays open (then closed).
   */
  private probeHandshake(): Promise<NodeJS.ErrnoException | undefined> {
    const tls = process.getBuiltinModule('node:tls') as typeof import('node:tls');
    const net = process.getBuiltinModule('node:net') as typeof import('node:net');
    const host = this.base.hostname.replace(/^\[(.*)\]$/, '$1');
    const options: import('node:tls').ConnectionOptions = { ...(this.tlsOptions as import('node:tls').ConnectionOptions), host, port: Number(this.base.port || 443) };
    if (!options.servername && !net.isIP(host)) options.servername = host;
    return new Promise((resolve) => {
      let secured = false;
      let settled = false;
      const done = (result: NodeJS.ErrnoException | undefined): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        resolve(result);
      };
      let timer = setTimeout(() => done(undefined), this.config.requestTimeoutMs > 0 ? this.config.requestTimeoutMs : DEFAULT_TUNNEL_TIMEOUT_MS);
      const socket = tls.connect(options, () => {
        secured = true;
        // A server that turns the certificate down does so within a round trip of the handshake's end.
        clearTimeout(timer);
        timer = setTimeout(() => done(undefined), PROBE_AFTER_HANDSHAKE_MS);
      });
      const closed = Object.assign(new Error('the connection was closed'), { code: 'ECONNRESET' });
      socket.on('error', (e: NodeJS.ErrnoException) => done(this.afterHandshake(e, secured, false)));
      socket.on('close', () => done(secured ? this.afterHandshake(closed, true, false) : closed));
    });
  }

  /**
   * A new connection that the server closed right after a completed TLS handshake, before any answer,
   * while we offered a client certificate: how a server that requires one (a Node one, at least)
   * turns down a certificate it does not trust, with no alert. Not retried (it would say the same).
   */
  private afterHandshake(error: NodeJS.ErrnoException, handshakeDone: boolean, reused: boolean): NodeJS.ErrnoException {
    if (!this.config.clientCertificate?.given || reused || !handshakeDone) return error;
    if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') return error;
    return Object.assign(new Error(`${error.message} (after the TLS handshake)`), { code: CLIENT_CERT_CLOSED });
  }

  /**
   * Opens a WebSocket (ws, loaded only here) on a connection of its own, with the credentials,
   * impersonation, User-Agent and TLS settings of every request; not retried (an exec is not
   * repeated behind the user's back). Anything but 101 is read (at most 1 MiB) and thrown as a
   * KubeApiError; a server that chooses none of `protocols` is refused; --request-timeout bounds
   * the handshake only. Resolves once open; the chosen subprotocol is `ws.protocol`.
   */
  async webSocket(req: WebSocketRequest): Promise<OpenWebSocket> {
    const { WebSocket } = await import('ws');
    const creds = await this.config.credentials();
    const headers: Record<string, string | string[]> = { 'User-Agent': this.config.userAgent, ...this.config.headers };
    if (creds.authorization) headers.Authorization = creds.authorization;
    const path = `${req.path}${req.rawQuery ? `?${req.rawQuery}` : ''}`;
    const url = this.url(path);
    const logged: HttpRequest = { method: 'GET', path, context: req.context };
    const what = req.context.subresource ?? 'WebSocket';
    const offered = req.protocols.join(', ');
    const timeoutMs = this.config.requestTimeoutMs;
    const started = Date.now();
    try {
      return await new Promise<OpenWebSocket>((resolve, reject) => {
        let settled = false;
        let timedOut = false;
        let chosen: string | undefined;
        let socket: Duplex | undefined;
        const settle = (fn: () => void): void => {
          if (settled) return;
          settled = true;
          if (timer) clearTimeout(timer);
          req.signal?.removeEventListener('abort', onAbort);
          fn();
        };
        const options: ClientOptions & { closeTimeout: number; servername?: string } = {
          ...(this.tlsOptions as ClientOptions),
          headers: headers as Record<string, string>, // arrays (Impersonate-Group) go through as repeated headers
          perMessageDeflate: false, // kubectl offers no extension either
          maxPayload: req.maxPayload,
          // After the close handshake, how long the server may take to end the connection.
          closeTimeout: 2000,
          // The request as it goes out, ws' own headers included: logged here at -v7.
          finishRequest: (creq) => {
            if (this.config.verbosity >= 7) {
              for (const name of creq.getRawHeaderNames()) {
                const v = creq.getHeader(name);
                for (const one of Array.isArray(v) ? v : [v]) this.config.log(this.config.redact(`Request Header: "${name}: ${redactHeader(name, String(one))}"`));
              }
            }
            creq.end();
          },
        };
        // Through the proxy: an agent of its own (the upgraded connection leaves it), tunnelling as every request does.
        if (this.tunnel) (options as ClientOptions & { agent?: http.Agent }).agent = this.newAgent({ ...this.tlsOptions, keepAlive: false } as http.AgentOptions);
        const ws = new WebSocket(url, [...req.protocols], options);
        const onAbort = (): void => {
          ws.terminate();
          settle(() => reject(new AbortError()));
        };
        const timer =
          timeoutMs > 0
            ? setTimeout(() => {
                timedOut = true;
                ws.terminate();
              }, timeoutMs)
            : undefined;
        req.signal?.addEventListener('abort', onAbort, { once: true });
        ws.on('upgrade', (res) => {
          socket = res.socket;
          chosen = headerValue(res.headers['sec-websocket-protocol']);
          this.emitWarnings(res.headers);
          this.logResponse(logged, res.statusCode ?? 101, res.statusMessage ?? 'Switching Protocols', started, res.headers, undefined);
        });
        // Paused: what came with the 101 is read on the next tick, before the caller's await resumes.
        ws.once('open', () => {
          ws.pause();
          settle(() => resolve({ ws, socket: socket! }));
        });
        ws.on('unexpected-response', (_creq, res) => {
          this.emitWarnings(res.headers);
          const status = res.statusCode ?? 0;
          const statusText = res.statusMessage ?? httpModule().STATUS_CODES[status] ?? '';
          readBody(res, url, MAX_UPGRADE_ERROR_BYTES, textReader(), req.signal).then(
            (body) => {
              this.logResponse(logged, status, statusText, started, res.headers, body);
              settle(() => reject(status >= 200 && status < 300 ? new CliError(`${url} answered ${status} ${statusText} instead of switching protocols (is a proxy in between?)`) : apiError(status, statusText, body, req.context)));
              ws.terminate();
            },
            (e: unknown) => {
              settle(() => reject(e));
              ws.terminate();
            },
          );
        });
        // Once open, the caller listens; until then every error ends the handshake.
        ws.on('error', (error: NodeJS.ErrnoException) => {
          if (settled) return;
          if (timedOut) {
            error = Object.assign(new Error(`request timed out after ${timeoutMs}ms`), { code: 'REQUEST_TIMEOUT' });
          }
          this.logLine(`GET ${url} failed in ${Date.now() - started} milliseconds: ${error.code ?? error.message}`);
          settle(() => reject(handshakeError(error, this.config.server, what, offered, chosen, timeoutMs, this.config.clientCertificate)));
        });
      });
    } catch (err) {
      throw this.scrub(err);
    }
  }

  private emitWarnings(headers: http.IncomingHttpHeaders): void {
    const raw = headers.warning;
    if (!raw) return;
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      for (const text of parseWarningHeader(value)) {
        if (this.warned.has(text)) continue;
        this.warned.add(text);
        this.config.log(this.config.redact(`Warning: ${text}`));
      }
    }
  }

  /** A -v>=6 diagnostic line. */
  private logLine(line: string): void {
    if (this.config.verbosity >= 6) this.config.log(this.config.redact(line));
  }

  private logResponse(req: HttpRequest, status: number, statusText: string, started: number, headers: http.IncomingHttpHeaders, body: string | undefined): void {
    const v = this.config.verbosity;
    if (v < 6) return;
    const log = (line: string): void => this.config.log(this.config.redact(line));
    log(`${req.method} ${this.url(req.path, req.query)} ${status} ${statusText} in ${Date.now() - started} milliseconds`);
    if (v >= 7) {
      for (const [k, val] of Object.entries(headers)) {
        if (val === undefined) continue;
        for (const one of Array.isArray(val) ? val : [val]) log(`Response Header: "${k}: ${redactHeader(k, String(one))}"`);
      }
    }
    if (v >= 8 && body !== undefined && body !== '') log(`Response Body: ${truncateBody(redactSecretBody(body), v >= 9 ? 10240 : 1024)}`);
  }
}

/**
 * Why a WebSocket handshake failed: ws' own checks of the answer (no error code: the subprotocol,
 * Sec-WebSocket-Accept, the Upgrade header) in our words, else the transport's error.
 */
function handshakeError(error: NodeJS.ErrnoException, server: string, what: string, offered: string, chosen: string | undefined, timeoutMs: number, cert: ClientCertificateInfo | undefined): CliError {
  if (error.code || error.name === 'ProxyError') return transportError(error, server, timeoutMs, cert);
  const at = `the server at ${server}`;
  if (/subprotocol/.test(error.message)) {
    return new CliError(`${at} did not agree on ${/^[aeiou]/i.test(what) ? 'an' : 'a'} ${what} protocol (offered ${offered}${chosen ? `, it chose ${chosen}` : ''})`);
  }
  if (/Sec-WebSocket-Accept/.test(error.message)) return new CliError(`${at} answered the ${what} upgrade with a wrong Sec-WebSocket-Accept`);
  return new CliError(`${at} answered the ${what} upgrade wrongly: ${error.message}`);
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function connectionReset(): NodeJS.ErrnoException {
  const e = new Error('connection reset while reading the response') as NodeJS.ErrnoException;
  e.code = 'ECONNRESET';
  return e;
}

/**
 * fetch's body as a watch's ResponseStream. A failed read is a reset connection (the watch resumes,
 * as after node:http's); once destroyed, the iteration ends. Ending the iteration ends the request.
 */
function fetchStream(body: ReadableStream<Uint8Array> | null, ctl: AbortController): ResponseStream {
  let destroyed = false;
  const destroy = (): void => {
    if (destroyed) return;
    destroyed = true;
    ctl.abort(new AbortError());
  };
  return {
    destroy,
    async *[Symbol.asyncIterator]() {
      const reader = body?.getReader();
      try {
        while (reader) {
          const next = await reader.read().catch(() => undefined);
          if (!next) {
            if (destroyed) return;
            throw connectionReset();
          }
          if (next.done) return;
          yield next.value;
        }
      } finally {
        destroy();
      }
    },
  };
}

/** Responses whose body --request-timeout cut off, with the timeout error to report. */
const timedOutResponses = new WeakMap<http.IncomingMessage, NodeJS.ErrnoException>();

/**
 * Reads a body into `reader` (chunk by chunk, as it arrives), at most `maxBytes` of it. A gzip answer
 * (kube-apiserver compresses those over 128 KiB when asked) is inflated on the way: the reader gets
 * plain chunks, and maxBytes bounds what the body inflates to.
 */
function readBody<T>(res: http.IncomingMessage, url: string, maxBytes: number, reader: BodyReader<T>, signal?: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const declared = Number(headerValue(res.headers['content-length']));
    if (Number.isFinite(declared) && declared > maxBytes) {
      reject(new ResponseTooLargeError(url, maxBytes, declared));
      res.destroy();
      return;
    }
    const gzipped = /^\s*gzip\s*$/i.test(headerValue(res.headers['content-encoding']) ?? '');
    const inflater = gzipped ? (process.getBuiltinModule('node:zlib') as typeof import('node:zlib')).createGunzip() : undefined;
    let total = 0;
    const onAbort = (): void => {
      inflater?.destroy();
      res.destroy();
      reject(new AbortError());
    };
    // Rejected before destroying: destroying emits 'aborted', which would report a reset connection.
    const stop = (e: unknown): void => {
      signal?.removeEventListener('abort', onAbort);
      reject(e);
      inflater?.destroy();
      res.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const body = inflater ?? res;
    body.on('data', (c: Buffer) => {
      total += c.length;
      if (total > maxBytes) return stop(new ResponseTooLargeError(url, maxBytes));
      try {
        reader.write(c);
      } catch (e) {
        stop(e);
      }
    });
    body.on('end', () => {
      signal?.removeEventListener('abort', onAbort);
      try {
        resolve(reader.end());
      } catch (e) {
        reject(e);
      }
    });
    if (inflater) {
      res.on('data', (c: Buffer) => inflater.write(c));
      res.on('end', () => inflater.end());
      inflater.on('error', (e) => stop(new CorruptBodyError(url, e.message)));
    }
    res.on('error', (e) => {
      signal?.removeEventListener('abort', onAbort);
      reject(e);
    });
    res.on('aborted', () => reject(connectionReset()));
  });
}

// Verifies the certificate against --tls-server-name instead of the URL host.
function tlsCheck(name: string, cert: PeerCertificate): Error | undefined {
  return (process.getBuiltinModule('node:tls') as typeof import('node:tls')).checkServerIdentity(name, cert);
}
