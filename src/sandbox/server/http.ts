// The request pipeline of the sandbox API server: audit, authentication (bearer tokens
// under --tls), authorization (the read-only `viewer`; RBAC for each --token-user: authz.ts), injected faults,
// then routing to health, version, discovery, OpenAPI or the resource handler.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { aggregatedDiscovery, apiGroupDoc, apiGroupList, apiResourceList, apiVersions, wantsAggregated } from './discovery';
import { ApiError, qualifiedResource } from './errors';
import type { FaultInjector } from './faults';
import { OpenApiDocs } from './openapi';
import type { ResourceRegistry } from './registry';
import { ApiRequest, parseResourcePath, verbOf, type AuditRecord } from './request';
import { ResourceHandler } from './resource-handler';
import { serviceProxy } from './service-proxy';
import type { MemoryStore } from './store';
import type { PodLogSource } from '../store-api';
import { authorizeRequest, forbiddenMessage, type AuthConfig } from './authz';
import type { RequestAttributes } from './rbac';
import { DEFAULT_MAX_QUEUED_BYTES, DEFAULT_SLOW_WATCHER_GRACE_MS } from './watch';

export type { AuthConfig };

export interface HttpOptions {
  store: MemoryStore;
  registry: ResourceRegistry;
  faults: FaultInjector;
  auth?: AuthConfig;
  audit: (r: AuditRecord) => void;
  serverAddress: () => string;
  /** /readyz answers 200 only once this is true. */
  isReady: () => boolean;
  bookmarkIntervalMs?: number;
  /** Unread bytes one watch stream may queue before it is dropped (default 8 MiB). */
  maxWatchQueueBytes?: number;
  /** How long a watch's queue may stay over that bound before the watch is dropped (default 5 s). */
  slowWatcherGraceMs?: number;
  /** The kubelet's container logs, served as pods/log. */
  podLogs?: PodLogSource;
}

export const KUBE_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-kruise-sandbox',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23.4',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const READ_VERBS = new Set(['get', 'list', 'watch']);

/** The user whose bearer token the Authorization header carries; undefined: not authenticated. */
export function bearerUser(auth: AuthConfig, authorization: string | undefined): string | undefined {
  const m = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  return m ? auth.tokens.get(m[1]!.trim()) : undefined;
}

/** A list or watch of one object by name (fieldSelector metadata.name=N) is authorized with that name, as kube's RequestInfoFactory does. */
function nameFromFieldSelector(verb: string, selector: string | undefined): string | undefined {
  if ((verb !== 'list' && verb !== 'watch') || !selector) return undefined;
  const m = /^metadata\.name==?([^,]+)$/.exec(selector.trim());
  return m?.[1];
}

export function createRequestHandler(opts: HttpOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const openapi = new OpenApiDocs(opts.registry);
  const resources = new ResourceHandler({
    store: opts.store,
    registry: opts.registry,
    watch: { dropAfterEvents: opts.faults.spec.dropWatchAfterEvents, lagMs: opts.faults.spec.watchLagMs, bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 2000, maxQueuedBytes: opts.maxWatchQueueBytes ?? DEFAULT_MAX_QUEUED_BYTES, slowWatcherGraceMs: opts.slowWatcherGraceMs ?? DEFAULT_SLOW_WATCHER_GRACE_MS },
    injectConflict: () => opts.faults.injectConflict(),
    authorize: (user, attrs) => authorizeRequest(opts.auth, opts.store, user, attrs),
    podLogs: opts.podLogs,
  });

  const handle = async (r: ApiRequest): Promise<void> => {
    const path = r.path.replace(/\/+$/, '') || '/';
    // Health endpoints answer without authentication, like kube's default RBAC for system:public-info-viewer.
    if (path === '/healthz' || path === '/livez' || path.startsWith('/healthz/') || path.startsWith('/livez/')) return r.sendText(200, 'ok');
    if (path === '/readyz' || path.startsWith('/readyz/')) return opts.isReady() ? r.sendText(200, 'ok') : r.sendText(500, '[-]sandbox not ready\nreadyz check failed');

    if (opts.auth) {
      const user = bearerUser(opts.auth, r.req.headers.authorization);
      if (!user) {
        r.user = 'system:anonymous';
        throw ApiError.unauthorized();
      }
      r.user = user;
    }

    if (path === '/version') return r.sendJson(200, KUBE_VERSION);
    if (path === '/api' || path === '/apis') {
      const aggregated = wantsAggregated(r.accept);
      if (aggregated) {
        return r.sendJson(200, aggregatedDiscovery(opts.registry, path === '/api', aggregated), `application/json;g=apidiscovery.k8s.io;v=${aggregated};as=APIGroupDiscoveryList`);
      }
      return r.sendJson(200, path === '/api' ? apiVersions(opts.serverAddress()) : apiGroupList(opts.registry));
    }
    if (path === '/openapi/v3') return r.sendJson(200, openapi.index());
    if (path.startsWith('/openapi/v3/')) {
      const doc = openapi.document(path.slice('/openapi/v3/'.length));
      if (doc === undefined) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      // A URL with the current hash never changes: clients (kubectl's HTTP cache) may keep it, as with kube.
      const immutable = r.query('hash') === doc.hash;
      r.sendText(200, doc.json, 'application/json', immutable ? { 'Cache-Control': 'public, immutable', Etag: `"${doc.hash}"` } : { Etag: `"${doc.hash}"` });
      return;
    }
    const segs = path.split('/').filter(Boolean);
    if (segs[0] === 'api' && segs.length === 2) {
      const list = apiResourceList(opts.registry, '', segs[1]!);
      if (!list) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      return r.sendJson(200, list);
    }
    if (segs[0] === 'apis' && segs.length === 2) {
      const doc = apiGroupDoc(opts.registry, segs[1]!);
      if (!doc) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      return r.sendJson(200, doc);
    }
    if (segs[0] === 'apis' && segs.length === 3) {
      const list = apiResourceList(opts.registry, segs[1]!, segs[2]!);
      if (!list) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      return r.sendJson(200, list);
    }
    const p = parseResourcePath(path);
    if (!p) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    const watchParam = r.params.bool('watch') === true;
    const verb = verbOf(r.method, p, watchParam);
    r.verb = verb;
    // The request deadline filter parses `timeout` of every short request (watches are long-running).
    if (verb !== 'watch') r.params.timeoutMs();

    const isReview = p.group === 'authorization.k8s.io' || p.group === 'authentication.k8s.io';
    if (opts.auth && opts.auth.readOnlyUsers.has(r.user) && !READ_VERBS.has(verb) && !isReview) {
      const scope = p.namespace ? ` in the namespace "${p.namespace}"` : ' at the cluster scope';
      const resource = p.subresource ? `${p.resource}/${p.subresource}` : p.resource;
      throw ApiError.forbidden(p.group, resource, p.name, `User "${r.user}" cannot ${verb} resource "${resource}" in API group "${p.group}"${scope}`);
    }

    if (opts.auth?.rbacUsers?.has(r.user)) {
      const attrs: RequestAttributes = { resourceRequest: true, verb, group: p.group, resource: p.resource, subresource: p.subresource, name: p.name ?? nameFromFieldSelector(verb, r.query('fieldSelector')), namespace: p.namespace };
      const decision = authorizeRequest(opts.auth, opts.store, r.user, attrs);
      if (!decision.allowed) throw ApiError.forbidden(p.group, p.resource, p.name, forbiddenMessage(r.user, attrs, decision.reason));
    }

    if (opts.faults.latencyMs > 0) await new Promise((res) => setTimeout(res, opts.faults.latencyMs));
    const injected = opts.faults.errorFor(verb);
    if (injected) throw injected;

    if (p.group === '' && p.resource === 'services' && p.subresource === 'proxy' && p.name && p.namespace) return serviceProxy(r, opts.store, p.namespace, p.name);
    await resources.handle(r, p, verb);
  };

  return (req, res) => {
    const r = new ApiRequest(req, res, opts.audit);
    handle(r).catch((err: unknown) => {
      if (err instanceof ApiError) {
        r.sendError(err);
        return;
      }
      const message = err instanceof Error ? err.message : String(err);
      process.stderr.write(`sandbox: internal error on ${r.method} ${r.path}: ${err instanceof Error && err.stack ? err.stack : message}\n`);
      if (!r.isDone) r.sendError(ApiError.internal(message));
      else res.destroy();
    });
  };
}

export { qualifiedResource };
