// One API request: parsed path, query, verb, user, and the single place responses are
// written (so the audit line is recorded before the client sees the answer).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse } from 'yaml';
import { ApiError } from './errors';
import { decodeKubeProtobuf } from './protobuf';
import { QueryParams } from './query-params';

/** kube-apiserver's request body limit (k8s.io/apiserver pkg/server/config.go MaxRequestBodyBytes: 3 MiB). */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface ResourcePath {
  group: string;
  version: string;
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** Legacy `/watch/` prefix. */
  legacyWatch: boolean;
}

export interface AuditRecord {
  time: string;
  user: string;
  verb: string;
  method: string;
  path: string;
  query: string;
  /** "" for a request without a body: every line carries every field, so scripts can rely on the keys. */
  contentType: string;
  code: number;
  durationMs: number;
}

export class ApiRequest {
  readonly url: URL;
  readonly started = performance.now();
  readonly time = new Date().toISOString();
  user = 'system:admin';
  verb = 'get';
  /** Sent as `Warning: 299 - "..."` headers with the response (deprecations, unknown fields). */
  readonly warnings: string[] = [];
  private responded = false;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    private readonly audit: (r: AuditRecord) => void,
  ) {
    this.url = new URL(req.url ?? '/', 'http://sandbox');
    this.params = new QueryParams(this.url.searchParams);
  }

  /** Typed query parameters, read as kube-apiserver reads them. */
  readonly params: QueryParams;

  get method(): string {
    return (this.req.method ?? 'GET').toUpperCase();
  }

  get path(): string {
    return this.url.pathname;
  }

  query(name: string): string | undefined {
    const v = this.url.searchParams.get(name);
    return v === null ? undefined : v;
  }

  get accept(): string | undefined {
    return this.req.headers.accept;
  }

  get contentType(): string | undefined {
    return this.req.headers['content-type'];
  }

  get isDone(): boolean {
    return this.responded;
  }

  private record(code: number): void {
    this.audit({
      time: this.time,
      user: this.user,
      verb: this.verb,
      method: this.method,
      path: this.path,
      query: this.url.search.replace(/^\?/, ''),
      contentType: this.contentType ?? '',
      code,
      durationMs: Math.round((performance.now() - this.started) * 100) / 100,
    });
  }

  sendJson(code: number, body: unknown, contentType = 'application/json', headers: Record<string, string> = {}): void {
    if (this.responded) return;
    this.responded = true;
    this.record(code);
    const text = JSON.stringify(body);
    const warning = this.warnings.length ? { Warning: this.warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') } : {};
    const bytes = Buffer.byteLength(text);
    if (bytes > GZIP_THRESHOLD_BYTES && acceptsGzip(this.req.headers['accept-encoding'])) {
      // kube-apiserver (responsewriters/writers.go deferredResponseWriter): an answer over 128 KiB to a
      // client that accepts gzip is compressed at level 1, with Vary, and without a Content-Length.
      const zlib = process.getBuiltinModule('node:zlib') as typeof import('node:zlib');
      this.res.writeHead(code, { 'Content-Type': contentType, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding', 'Cache-Control': 'no-cache, private', ...warning, ...headers });
      this.res.end(zlib.gzipSync(text, { level: 1 }));
      return;
    }
    this.res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': bytes, 'Cache-Control': 'no-cache, private', ...warning, ...headers });
    this.res.end(text);
  }

  sendText(code: number, text: string, contentType = 'text/plain; charset=utf-8', headers: Record<string, string> = {}): void {
    if (this.responded) return;
    this.responded = true;
    this.record(code);
    this.res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), ...headers });
    this.res.end(text);
  }

  sendError(err: ApiError, headers: Record<string, string> = {}): void {
    const h = { ...headers };
    if (err.details?.retryAfterSeconds) h['Retry-After'] = String(err.details.retryAfterSeconds);
    this.sendJson(err.code, err.toStatus(), 'application/json', h);
  }

  /** Starts a chunked stream (watch); the audit line is written now with 200. */
  startStream(contentType = 'application/json'): void {
    if (this.responded) return;
    this.responded = true;
    this.record(200);
    const warning = this.warnings.length ? { Warning: this.warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') } : {};
    this.res.writeHead(200, { 'Content-Type': contentType, 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private', ...warning });
    this.res.flushHeaders();
  }

  /**
   * The request body, at most MAX_REQUEST_BODY_BYTES (kube-apiserver's MaxRequestBodyBytes,
   * handlers/rest.go limitedReadBody): a longer one is a 413. The rest is drained, not kept,
   * so the client reads the answer instead of a reset connection.
   */
  async bodyBytes(): Promise<Buffer> {
    if (this.bodyCache) return this.bodyCache;
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const c of this.req) {
      total += (c as Buffer).length;
      if (total <= MAX_REQUEST_BODY_BYTES) chunks.push(c as Buffer);
    }
    if (total > MAX_REQUEST_BODY_BYTES) throw new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_REQUEST_BODY_BYTES}`);
    this.bodyCache = Buffer.concat(chunks);
    return this.bodyCache;
  }

  private bodyCache: Buffer | undefined;

  async body(): Promise<string> {
    return (await this.bodyBytes()).toString('utf8');
  }

  /** Parses a JSON (or YAML, for apply patches) request body. */
  async bodyObject(): Promise<unknown> {
    const bytes = await this.bodyBytes();
    const ct = this.contentType ?? 'application/json';
    // kubectl's typed clients (create deployment/configmap/namespace, auth can-i) send protobuf.
    if (ct.includes('application/vnd.kubernetes.protobuf')) return decodeKubeProtobuf(bytes);
    if (ct.includes('cbor')) {
      throw new ApiError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf');
    }
    const text = bytes.toString('utf8');
    if (text.trim() === '') throw ApiError.badRequest('the body of the request was empty');
    if (ct.includes('yaml')) {
      try {
        return parse(text);
      } catch (err) {
        throw ApiError.badRequest(`error decoding YAML: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      }
    }
    try {
      return JSON.parse(text);
    } catch (err) {
      throw ApiError.badRequest(`couldn't get version/kind; json parse error: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** `/api/v1/...` or `/apis/<g>/<v>/...` → the resource addressed, or undefined for other paths. */
export function parseResourcePath(path: string): ResourcePath | undefined {
  const segs = path.split('/').filter((s) => s !== '').map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 3) {
    group = '';
    version = segs[1]!;
    rest = segs.slice(2);
  } else if (segs[0] === 'apis' && segs.length >= 4) {
    group = segs[1]!;
    version = segs[2]!;
    rest = segs.slice(3);
  } else return undefined;
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  if (rest.length === 0) return undefined;
  // namespaces/<ns>/<resource>... is namespaced; namespaces[/<name>[/<sub>]] is the Namespace kind itself.
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(group === '' && (rest[2] === 'status' || rest[2] === 'finalize'))) {
    return { group, version, namespace: rest[1], resource: rest[2]!, name: rest[3], subresource: rest[4], legacyWatch };
  }
  return { group, version, resource: rest[0]!, name: rest[1], subresource: rest[2], legacyWatch };
}

export function verbOf(method: string, p: ResourcePath, watchParam: boolean): Verb {
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (p.legacyWatch || (watchParam && !p.name)) return 'watch';
      if (watchParam && p.name) return 'watch';
      return p.name ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return p.name ? 'delete' : 'deletecollection';
    default:
      throw ApiError.methodNotAllowed();
  }
}

/** kube-apiserver's defaultGzipThresholdBytes: answers up to this size go uncompressed. */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;

/** Whether an Accept-Encoding header takes gzip (a token of it, not refused with q=0). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : header ?? '';
  return value.split(',').some((part) => {
    const [token, ...params] = part.trim().split(';').map((x) => x.trim());
    if (token?.toLowerCase() !== 'gzip' && token !== '*') return false;
    const q = params.find((x) => x.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
