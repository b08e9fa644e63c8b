// KubeClient over the HTTP transport: URL building for any group/version/resource,
// the right content type per patch kind, dry run, field manager, pagination,
// discovery-backed type resolution and observe() (watch.ts).
import type {
  KubeClient,
  KubeList,
  KubeTable,
  KubeObject,
  ListOptions,
  Observation,
  ObserveOptions,
  PatchType,
  PodLogOptions,
  RequestOptions,
  DeleteRequestOptions,
  ResourceType,
  WaitPolicy,
  WatchEvent,
} from './client';
import { failure, usageError } from '../cli/exit';
import { dns1123LabelProblem, dns1123SubdomainProblem } from '../kruise/names';
import { DISCOVERED_GROUPS, servedResource, type Discovery } from './discovery';
import { KubeApiError, apiError, isGone, isNotFound, type RequestContext } from './errors';
import type { ExecOutcome, ExecRequest, ExecStreams } from './exec';
import type { BodyReader, HttpRequest, QueryValue, ResponseStream, Transport } from './http';
import { ListDecoder } from './list-decoder';
import { advancedKindHint, isServedBy, resolveType } from './resolve';
import { observe as observeWith, recoverable } from './watch';
import { abortableSleep, isAbortError } from './http';
import { backoffDelay } from './retry';

export const DEFAULT_FIELD_MANAGER = 'kubectl-kruise';
export const DEFAULT_PAGE_SIZE = 500;
/** kubectl get's Accept header: a meta.k8s.io Table (v1, else v1beta1), else the plain list. */
export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

export const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

export interface RestClientOptions {
  transport: Transport;
  discovery: Discovery;
  namespace: string;
  userName: string;
  fieldManager?: string;
  log?: (line: string) => void;
  verbosity?: number;
  /** --request-timeout (ms; 0: none given). */
  requestTimeoutMs?: number;
}

/** A list or watch of a wait that gets no answer is cut after this (unless --request-timeout says otherwise) and retried. */
export const WAIT_REQUEST_TIMEOUT_MS = 30_000;
/**
 * While waiting, reads retry here rather than in the transport, so each failure is seen (the error a
 * deadline reports): a one-shot read takes WAIT_READ_ROUNDS rounds of WAIT_ATTEMPTS transport attempts
 * (0.3^12 of reads lost to a 30 % error rate; with a deadline it retries until it); the list and watch of
 * an observation one attempt each (observe retries them itself, for ever while waiting).
 */
const WAIT_READ_ROUNDS = 6;
const WAIT_ATTEMPTS = 2;

/** /api/v1/namespaces/ns/pods/name/status or /apis/group/version/... */
export function resourcePath(rt: Pick<ResourceType, 'group' | 'version' | 'resource' | 'namespaced'>, namespace?: string, name?: string, subresource?: string): string {
  let p = rt.group ? `/apis/${rt.group}/${rt.version}` : `/api/${rt.version}`;
  if (rt.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${rt.resource}`;
  if (name !== undefined) p += `/${encodeURIComponent(name)}`;
  if (subresource) p += `/${encodeURIComponent(subresource)}`;
  return p;
}

const POD_TYPE: ResourceType = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

function checkName(name: string, rt: ResourceType): void {
  const problem = dns1123SubdomainProblem(name);
  if (problem) throw usageError(`invalid ${rt.kind || rt.resource} name "${name}": ${problem}`);
}

function checkNamespace(ns: string): void {
  const problem = dns1123LabelProblem(ns);
  if (problem) throw usageError(`invalid namespace "${ns}": ${problem}`);
}

export class RestClient implements KubeClient {
  readonly namespace: string;
  readonly userName: string;
  private readonly transport: Transport;
  private readonly discovery: Discovery;
  private readonly fieldManager: string;
  private readonly log: (line: string) => void;
  private readonly verbosity: number;
  private readonly resolved = new Map<string, Promise<ResourceType>>();
  /** Lists started by prefetchObserve(), until the observe() they were started for takes them. */
  private readonly prefetched = new Map<string, Promise<KubeList>>();
  private readonly requestTimeoutMs: number;
  private waits: WaitPolicy | undefined;
  private lastWaitFailure: unknown;

  constructor(opts: RestClientOptions) {
    this.transport = opts.transport;
    this.discovery = opts.discovery;
    this.namespace = opts.namespace;
    this.userName = opts.userName;
    this.fieldManager = opts.fieldManager ?? DEFAULT_FIELD_MANAGER;
    this.log = opts.log ?? (() => undefined);
    this.verbosity = opts.verbosity ?? 0;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 0;
  }

  configureWaits(policy: WaitPolicy): void {
    this.waits = policy;
  }

  waitTrouble(): unknown {
    return this.lastWaitFailure;
  }

  /** The cut of a wait's request (undefined outside waits: --request-timeout alone); the deadline is the command's own bound. */
  private waitTimeoutMs(): number | undefined {
    if (!this.waits) return undefined;
    return this.requestTimeoutMs > 0 ? this.requestTimeoutMs : WAIT_REQUEST_TIMEOUT_MS;
  }

  get server(): string {
    return this.transport.server;
  }

  resolve(type: string): Promise<ResourceType> {
    let p = this.resolved.get(type);
    if (!p) {
      p = resolveType(type, this.discovery);
      this.resolved.set(type, p);
      p.catch(() => this.resolved.delete(type));
    }
    return p;
  }

  isServed(group: string, resource: string): Promise<boolean> {
    return isServedBy(group, resource, this.discovery);
  }

  async discovered(group: string, resource: string): Promise<ResourceType | undefined> {
    const served = servedResource(await this.discovery.get(), group, resource);
    if (!served) return undefined;
    const { preferredVersion, versions: _versions, ...rest } = served;
    return { ...rest, version: preferredVersion };
  }

  private ns(rt: ResourceType, namespace: string | undefined): string | undefined {
    if (!rt.namespaced) return undefined;
    const ns = namespace ?? this.namespace;
    checkNamespace(ns);
    return ns;
  }

  private ctx(verb: string, rt: ResourceType, namespace: string | undefined, name?: string, subresource?: string): RequestContext {
    return { verb, group: rt.group, resource: rt.resource, subresource, name, namespace, userName: this.userName, server: this.server };
  }

  private writeQuery(opts: RequestOptions | undefined, withManager: boolean): Record<string, QueryValue> {
    return {
      dryRun: opts?.dryRun ? 'All' : undefined,
      fieldManager: withManager ? (opts?.fieldManager ?? this.fieldManager) : undefined,
    };
  }

  /** `rounds`: while waiting, a read that keeps failing transiently is tried again (the observe loop retries on its own). */
  private async request<T>(req: HttpRequest, rounds = WAIT_READ_ROUNDS, reader?: () => BodyReader<T>): Promise<T> {
    if (!this.waits || req.method !== 'GET') return this.requestOnce<T>(req, reader);
    // Bounded, and the deadline cuts it sooner; the failure is remembered for the error a deadline reports.
    for (let round = 1; ; round++) {
      try {
        const out = await this.requestOnce<T>({ ...req, timeoutMs: req.timeoutMs ?? this.waitTimeoutMs(), maxAttempts: req.maxAttempts ?? (rounds > 1 ? WAIT_ATTEMPTS : 1) }, reader);
        this.lastWaitFailure = undefined;
        return out;
      } catch (err) {
        // With a deadline a read is retried until it (the command then reports this failure); without one, a few rounds.
        const more = rounds > 1 && (this.waits.deadline !== undefined ? Date.now() < this.waits.deadline : round < rounds);
        if (!recoverable(err) || isAbortError(err) || !more) throw err;
        this.lastWaitFailure = err;
        await abortableSleep(backoffDelay(Math.min(round + 1, 6)), req.signal);
      }
    }
  }

  /** A request's JSON answer; with `reader`, a 2xx body is made into T by it as it arrives. */
  private async requestOnce<T>(req: HttpRequest, reader?: () => BodyReader<T>): Promise<T> {
    try {
      return await (reader ? this.transport.decode<T>(req, reader) : this.transport.json<T>(req));
    } catch (err) {
      // A 404 for the type itself (no object named) under a cached discovery means the cache is stale.
      if (isNotFound(err) && req.context.group && DISCOVERED_GROUPS.includes(req.context.group) && !err.kubeStatus?.details?.name) this.discovery.invalidate();
      throw err;
    }
  }

  async get<T extends KubeObject = KubeObject>(rt: ResourceType, name: string, namespace?: string, opts?: RequestOptions): Promise<T> {
    checkName(name, rt);
    const ns = this.ns(rt, namespace);
    try {
      return await this.request<T>({
        method: 'GET',
        path: resourcePath(rt, ns, name, opts?.subresource),
        signal: opts?.signal,
        context: this.ctx('get', rt, ns, name, opts?.subresource),
      });
    } catch (err) {
      // kubectl's `sts` is the native kind; when only an Advanced StatefulSet of that name exists, say so.
      if (isNotFound(err) && rt.group === 'apps' && !opts?.subresource && (rt.resource === 'statefulsets' || rt.resource === 'daemonsets')) {
        const hint = await advancedKindHint(this, rt, name, ns);
        if (hint) throw new KubeApiError(`${err.message}; ${hint}`, err.status, err.reason, err.kubeStatus);
      }
      throw err;
    }
  }

  list<T extends KubeObject = KubeObject>(rt: ResourceType, namespace: string | undefined, opts?: ListOptions): Promise<KubeList<T>> {
    return this.listPages<T>(rt, namespace, opts, WAIT_READ_ROUNDS);
  }

  private async listPages<T extends KubeObject = KubeObject>(rt: ResourceType, namespace: string | undefined, opts: ListOptions | undefined, rounds: number): Promise<KubeList<T>> {
    const ns = rt.namespaced && namespace !== undefined ? (checkNamespace(namespace), namespace) : undefined;
    const limit = opts?.limit ?? DEFAULT_PAGE_SIZE;
    const mapItem = opts?.mapItem;
    // Mapped lists are decoded item by item as each page arrives (list-decoder.ts): a page's text
    // and full objects are never held at once. Others are parsed whole (faster for small pages).
    const reader = mapItem ? (): BodyReader<KubeList<T>> => new ListDecoder((item) => mapItem(item) as T | undefined) : undefined;
    // A continue token can expire (410) on a long paginated list: start over, a bounded number of times.
    for (let restart = 0; ; restart++) {
      const items: T[] = [];
      let cont: string | undefined;
      let last: KubeList<T> | undefined;
      try {
        do {
          const page: KubeList<T> = await this.request<KubeList<T>>({
            method: 'GET',
            path: resourcePath(rt, ns),
            query: {
              labelSelector: opts?.labelSelector,
              fieldSelector: opts?.fieldSelector,
              limit,
              continue: cont,
              resourceVersion: cont ? undefined : opts?.resourceVersion,
            },
            signal: opts?.signal,
            timeoutMs: opts?.timeoutMs,
            context: this.ctx('list', rt, ns),
          }, rounds, reader);
          if (reader) collectPageGarbage();
          for (const item of page.items ?? []) items.push(item);
          cont = page.metadata?.continue || undefined;
          last = page;
        } while (cont);
      } catch (err) {
        if (isGone(err) && cont && restart < 2) continue;
        throw err;
      }
      const kind = last?.kind ?? `${rt.kind}List`;
      return {
        apiVersion: last?.apiVersion ?? (rt.group ? `${rt.group}/${rt.version}` : rt.version),
        kind,
        metadata: { resourceVersion: last?.metadata?.resourceVersion },
        items: items.map((o) => withTypeMeta(o, rt)),
      };
    }
  }

  async listTable(rt: ResourceType, namespace: string | undefined, opts?: Pick<ListOptions, 'labelSelector' | 'limit' | 'signal'>): Promise<KubeTable> {
    const ns = rt.namespaced && namespace !== undefined ? (checkNamespace(namespace), namespace) : undefined;
    // As list(): an expired continue token (410) starts the list over, a bounded number of times.
    for (let restart = 0; ; restart++) {
      const table: KubeTable = { columnDefinitions: [], rows: [] };
      let cont: string | undefined;
      try {
        do {
          const page = await this.request<TablePage>({
            method: 'GET',
            path: resourcePath(rt, ns),
            query: { labelSelector: opts?.labelSelector, limit: opts?.limit ?? DEFAULT_PAGE_SIZE, continue: cont },
            accept: TABLE_ACCEPT,
            signal: opts?.signal,
            context: this.ctx('list', rt, ns),
          });
          // Every kube-apiserver since 1.15 prints Tables; an answer without one is a server we cannot show as kubectl does.
          if (page.kind !== 'Table') throw failure(`the server answered the list of ${rt.resource}.${rt.group || 'core'} with ${page.kind ?? 'no kind'}, not a meta.k8s.io Table (server-side printing)`);
          if (page.columnDefinitions?.length) table.columnDefinitions = page.columnDefinitions;
          table.rows.push(...(page.rows ?? []));
          cont = page.metadata?.continue || undefined;
        } while (cont);
      } catch (err) {
        if (isGone(err) && cont && restart < 2) continue;
        throw err;
      }
      return table;
    }
  }

  async create<T extends KubeObject = KubeObject>(rt: ResourceType, obj: KubeObject, namespace?: string, opts?: RequestOptions): Promise<T> {
    const ns = this.ns(rt, namespace ?? obj.metadata?.namespace);
    if (obj.metadata?.name) checkName(obj.metadata.name, rt);
    return this.request<T>({
      method: 'POST',
      path: resourcePath(rt, ns, undefined, opts?.subresource),
      query: this.writeQuery(opts, true),
      body: writeBody(obj, rt, ns),
      signal: opts?.signal,
      context: this.ctx('create', rt, ns, obj.metadata?.name ?? obj.metadata?.generateName, opts?.subresource),
    });
  }

  async update<T extends KubeObject = KubeObject>(rt: ResourceType, obj: KubeObject, namespace?: string, opts?: RequestOptions): Promise<T> {
    const name = obj.metadata?.name ?? '';
    checkName(name, rt);
    const ns = this.ns(rt, namespace ?? obj.metadata?.namespace);
    return this.request<T>({
      method: 'PUT',
      path: resourcePath(rt, ns, name, opts?.subresource),
      query: this.writeQuery(opts, true),
      body: writeBody(obj, rt, ns),
      signal: opts?.signal,
      context: this.ctx('update', rt, ns, name, opts?.subresource),
    });
  }

  async patch<T extends KubeObject = KubeObject>(rt: ResourceType, name: string, type: PatchType, body: unknown, namespace?: string, opts?: RequestOptions): Promise<T> {
    checkName(name, rt);
    const ns = this.ns(rt, namespace);
    return this.request<T>({
      method: 'PATCH',
      path: resourcePath(rt, ns, name, opts?.subresource),
      query: this.writeQuery(opts, true),
      body: typeof body === 'string' ? body : JSON.stringify(body),
      contentType: PATCH_CONTENT_TYPES[type],
      signal: opts?.signal,
      context: this.ctx('patch', rt, ns, name, opts?.subresource),
    });
  }

  async delete(rt: ResourceType, name: string, namespace?: string, opts?: DeleteRequestOptions): Promise<void> {
    checkName(name, rt);
    const ns = this.ns(rt, namespace);
    const options = { ...(opts?.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}), ...(opts?.preconditions ? { preconditions: opts.preconditions } : {}) };
    const body = Object.keys(options).length > 0 ? JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', ...options }) : undefined;
    await this.request<unknown>({
      method: 'DELETE',
      path: resourcePath(rt, ns, name, opts?.subresource),
      query: this.writeQuery(opts, false),
      body,
      signal: opts?.signal,
      context: this.ctx('delete', rt, ns, name, opts?.subresource),
    });
  }

  observe<T extends KubeObject = KubeObject>(rt: ResourceType, namespace: string | undefined, opts: ObserveOptions, onEvent: (ev: WatchEvent<T>) => void | Promise<void>): Observation {
    const ns = rt.namespaced ? namespace : undefined;
    if (ns !== undefined) checkNamespace(ns);
    if (opts.name !== undefined) checkName(opts.name, rt);
    const key = opts.name !== undefined && !opts.labelSelector && !opts.fieldSelector && !opts.mapItem && opts.limit === undefined ? prefetchKey(rt, ns, opts.name) : undefined;
    let first = key !== undefined ? this.prefetched.get(key) : undefined;
    if (key !== undefined) this.prefetched.delete(key);
    const onTrouble = opts.onTrouble;
    if (this.waits) {
      opts = {
        ...opts,
        onTrouble: (err) => {
          this.lastWaitFailure = err;
          onTrouble?.(err);
        },
      };
    }
    return observeWith<T>(
      {
        list: (r, n, o) => {
          const taken = first;
          first = undefined;
          return taken ?? this.listPages(r, n, { ...o, timeoutMs: this.waitTimeoutMs() }, 1);
        },
        openWatch: (r, n, query, signal) => this.openWatch(r, n, query, signal, this.waitTimeoutMs()),
        log: this.verbosity >= 6 ? this.log : undefined,
        // While waiting, an outage lasts until the command's deadline (or for ever without --timeout).
        maxOutageMs: this.waits ? Infinity : undefined,
      },
      rt,
      ns,
      opts,
      onEvent,
    );
  }

  prefetchObserve(rt: ResourceType, namespace: string | undefined, name: string): void {
    const ns = rt.namespaced ? namespace : undefined;
    if (ns !== undefined) checkNamespace(ns);
    checkName(name, rt);
    const key = prefetchKey(rt, ns, name);
    if (this.prefetched.has(key)) return;
    // One attempt of each round: the observe() taking it over retries (and reports) failures itself.
    const list = this.listPages(rt, ns, { fieldSelector: `metadata.name=${name}`, timeoutMs: this.waitTimeoutMs() }, 1);
    // Not taken (the command went another way): its failure is nobody's business.
    list.catch(() => undefined);
    this.prefetched.set(key, list);
  }

  private openWatch(rt: ResourceType, ns: string | undefined, query: Record<string, QueryValue>, signal: AbortSignal, timeoutMs?: number): Promise<ResponseStream> {
    return this.transport.stream({ method: 'GET', path: resourcePath(rt, ns), query, signal, timeoutMs, maxAttempts: this.waits ? 1 : undefined, context: this.ctx('watch', rt, ns) });
  }

  async raw<T = unknown>(path: string, opts?: RequestOptions & { timeoutMs?: number; maxAttempts?: number }): Promise<T> {
    if (!path.startsWith('/') || path.includes('..')) throw usageError(`invalid API path "${path}"`);
    return this.request<T>({ method: 'GET', path, signal: opts?.signal, timeoutMs: opts?.timeoutMs, maxAttempts: opts?.maxAttempts, context: { verb: 'get', path, userName: this.userName, server: this.server, resource: path } });
  }

  async send(req: { method: 'GET' | 'POST'; path: string; body?: string; contentType?: string; signal?: AbortSignal; timeoutMs?: number }): Promise<{ status: number; body: string }> {
    if (!req.path.startsWith('/') || req.path.includes('..')) throw usageError(`invalid API path "${req.path}"`);
    const q = req.path.indexOf('?');
    const path = q < 0 ? req.path : req.path.slice(0, q);
    const query: Record<string, QueryValue> = q < 0 ? {} : Object.fromEntries(new URLSearchParams(req.path.slice(q + 1)));
    const res = await this.transport.send({
      method: req.method,
      path,
      query,
      body: req.body,
      contentType: req.body !== undefined ? (req.contentType ?? 'application/json') : undefined,
      accept: '*/*',
      signal: req.signal,
      timeoutMs: req.timeoutMs,
      maxAttempts: 1,
      context: { verb: req.method === 'GET' ? 'get' : 'create', path, userName: this.userName, server: this.server, resource: path },
    });
    return { status: res.status, body: res.body };
  }

  async podLog(namespace: string, pod: string, opts: PodLogOptions): Promise<string> {
    checkNamespace(namespace);
    checkName(pod, POD_TYPE);
    if (opts.container !== undefined) checkName(opts.container, { ...POD_TYPE, kind: 'container' });
    const path = resourcePath(POD_TYPE, namespace, pod, 'log');
    const context = this.ctx('get', POD_TYPE, namespace, pod, 'log');
    const query = { container: opts.container, previous: opts.previous ? 'true' : undefined, tailLines: opts.tailLines, limitBytes: opts.limitBytes };
    const res = await this.transport.send({ method: 'GET', path, query, accept: 'text/plain, */*', signal: opts.signal, context, maxBytes: opts.limitBytes !== undefined ? opts.limitBytes + 4096 : undefined });
    if (res.status < 200 || res.status > 299) throw apiError(res.status, res.statusText, res.body, context);
    return res.body;
  }

  prefetchExec(): void {
    // setImmediate: after the poll phase that connects and writes the requests started before.
    setImmediate(() => void import('ws').catch(() => undefined));
  }

  async exec(req: ExecRequest, io: ExecStreams): Promise<ExecOutcome> {
    checkNamespace(req.namespace);
    checkName(req.pod, POD_TYPE);
    const { execInPod } = await import('./exec');
    return execInPod(this.transport, req, io);
  }

  close(): void {
    this.transport.close();
  }
}

/** One page of a Table list (`kind` says whether the server printed one). */
type TablePage = Partial<KubeTable> & { kind?: string; metadata?: { continue?: string } };

/** The body of a create/update: the object with its type and the namespace the URL names. */
function writeBody(obj: KubeObject, rt: ResourceType, ns: string | undefined): string {
  return JSON.stringify(withTypeMeta({ ...obj, metadata: { ...obj.metadata, ...(ns ? { namespace: ns } : {}) } }, rt));
}

/**
 * Under Bun, a decoded page's garbage (its items' texts and parsed objects, its body's chunks) waits
 * for a collection that allocation volume triggers several pages later: the peak of a 5,000-pod list
 * was ~10 MB higher than with each page collected as it ends (a few ms each;
 * bench/rollout-status-memory.mjs). Node's young generation keeps up by itself.
 */
function collectPageGarbage(): void {
  (globalThis as { Bun?: { gc(full: boolean): void } }).Bun?.gc(true);
}

/** Lists drop apiVersion/kind from items; put them back so printers and adapters can rely on them. */
function withTypeMeta<T extends KubeObject>(obj: T, rt: ResourceType): T {
  if (obj.apiVersion && obj.kind) return obj;
  return { ...obj, apiVersion: obj.apiVersion ?? (rt.group ? `${rt.group}/${rt.version}` : rt.version), kind: obj.kind ?? rt.kind };
}

function prefetchKey(rt: ResourceType, ns: string | undefined, name: string): string {
  return `${rt.group}/${rt.version}/${rt.resource}/${ns ?? ''}/${name}`;
}
