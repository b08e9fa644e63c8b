// The REST verbs on one resource: get/list/watch/create/update/patch/delete/deletecollection
// plus the status, scale, log and eviction subresources, with version conversion, schema checks for
// custom resources, dry runs, Tables and pagination.
import { parse } from 'yaml';
import { evictionDecision, pdbsForPod } from '../../kruise/rules/pdb';
import type { KubeObject, Pod } from '../../kruise/types';
import type { PodLogSource } from '../store-api';
import { applyBuiltinDefaults } from './builtin-defaults';
import { ApiError, qualifiedResource } from './errors';
import { annotationsSizeCause, checkStoredSize } from './object-limits';
import { applyJsonPatch } from './patch/json-patch';
import { mergePatch } from '../../lib/json-patch';
import { applyConflicts, managerFromUserAgent, recordManagedFields } from '../../kruise/gitops/record';
import { applyStrategicMergePatch } from './patch/strategic-merge';
import type { ResourceRegistry } from './registry';
import type { ApiRequest, ResourcePath, Verb } from './request';
import { groupVersion, type ResourceType, type ServedVersion } from './resource-types';
import { listQuery } from './query-params';
import { servePodLog } from './pod-log';
import { applyStructuralSchema } from './schema';
import type { MemoryStore } from './store';
import { buildTable, wantsTable, type IncludeObject } from './tables';
import { convertTo, toStorage } from './versions';
import { eventsV1FieldSelector } from './event-versions';
import { serveWatch, type WatchSettings } from './watch';
import type { Decision, RequestAttributes } from './rbac';

export interface ResourceContext {
  store: MemoryStore;
  /** Whether `user` may use `verb` (read-only users may only get/list/watch). */
  /** The authorizer's decision on a request of `user` (SelfSubjectAccessReview answers with it). */
  authorize(user: string, attrs: RequestAttributes): Decision;
  registry: ResourceRegistry;
  watch: WatchSettings;
  /** Fault injection: returns true when this update should fail with a conflict. */
  injectConflict(): boolean;
  /** The kubelet's container logs (absent without controllers: every log is empty). */
  podLogs?: PodLogSource;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Where PodDisruptionBudgets are stored (the eviction REST reads them). */
const PDBS = { group: 'policy', resource: 'poddisruptionbudgets' };

function dryRunOf(r: ApiRequest): boolean {
  const values = r.url.searchParams.getAll('dryRun');
  for (const v of values) if (v !== 'All') throw ApiError.badRequest(`Invalid dry run value: "${v}": supported values: "All"`);
  return values.length > 0;
}

function encodeContinue(rv: number, lastKey: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: lastKey })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { rv: number; start: string };
    if (typeof t.start !== 'string') throw new Error('bad');
    return t;
  } catch {
    throw ApiError.badRequest('continue key is not valid: illegal base64 data');
  }
}

/** The object as the client wrote it (its version, before conversion to storage), for the webhooks: by the stored copy. */
const asRequested = new WeakMap<KubeObject, KubeObject>();

export class ResourceHandler {
  constructor(private readonly ctx: ResourceContext) {}

  async handle(r: ApiRequest, p: ResourcePath, verb: Verb): Promise<void> {
    const found = this.ctx.registry.lookup(p.group, p.version, p.resource);
    if (!found) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    const { type, version } = found;
    // Like kube: every request to a deprecated version carries its deprecation warning.
    if (version.deprecated) r.warnings.push(version.deprecationWarning ?? `${groupVersion(type.group, version.name)} ${type.kind} is deprecated`);
    if (!type.namespaced && p.namespace) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    // Namespaced kinds are listed/watched across namespaces; every other verb needs a namespace.
    if (type.namespaced && !p.namespace && !['list', 'watch', 'deletecollection'].includes(verb)) {
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    }
    if (p.subresource) return this.subresource(r, p, verb, type, version);
    switch (verb) {
      case 'get':
        return this.get(r, p, type, version);
      case 'list':
        return this.list(r, p, type, version);
      case 'watch':
        return serveWatch(this.ctx.store, r, type, version, p.namespace, this.ctx.watch, p.name);
      case 'create':
        return this.create(r, p, type, version);
      case 'update':
        return this.update(r, p, type, version);
      case 'patch':
        return this.patch(r, p, type, version);
      case 'delete':
        return this.delete(r, p, type, version);
      case 'deletecollection':
        return this.deleteCollection(r, p, type, version);
    }
  }

  private gr(type: ResourceType): { group: string; resource: string } {
    return type.storedAs ?? { group: type.group, resource: type.resource };
  }

  /** The request's field selector in the stored kind's field labels. */
  private fieldSelector(r: ApiRequest, type: ResourceType): string | undefined {
    const sel = r.query('fieldSelector');
    return type.storedAs ? eventsV1FieldSelector(sel) : sel;
  }

  private existing(type: ResourceType, p: ResourcePath): KubeObject {
    const o = this.ctx.store.getRef(this.gr(type), p.namespace, p.name!);
    if (!o) throw ApiError.notFound(type.group, type.resource, p.name!);
    return o;
  }

  private respondObject(r: ApiRequest, code: number, type: ResourceType, version: ServedVersion, obj: KubeObject): void {
    const out = convertTo(type, obj, version.name);
    const table = wantsTable(r.accept);
    if (table) {
      r.sendJson(code, buildTable(type, version, [out], { includeObject: r.query('includeObject') as IncludeObject, resourceVersion: out.metadata.resourceVersion, apiVersion: table }));
      return;
    }
    r.sendJson(code, out);
  }

  private get(r: ApiRequest, p: ResourcePath, type: ResourceType, version: ServedVersion): void {
    this.respondObject(r, 200, type, version, this.existing(type, p));
  }

  private list(r: ApiRequest, p: ResourcePath, type: ResourceType, version: ServedVersion): void {
    const store = this.ctx.store;
    const { limit } = listQuery(r.params);
    let items = store.listRefs(this.gr(type), { namespace: p.namespace, labelSelector: r.query('labelSelector'), fieldSelector: this.fieldSelector(r, type) });
    const rv = store.currentResourceVersion();
    const cont = r.query('continue');
    let listRv = rv;
    if (cont) {
      const token = decodeContinue(cont);
      if (token.rv < store.oldestWatchableResourceVersion()) {
        throw new ApiError(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
      }
      listRv = token.rv;
      const keyOf = (o: KubeObject): string => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name!);
      items = items.filter((o) => keyOf(o) > token.start);
    }
    let continueToken: string | undefined;
    let remaining: number | undefined;
    if (limit > 0 && items.length > limit) {
      const last = items[limit - 1]!;
      continueToken = encodeContinue(listRv, last.metadata.namespace ? `${last.metadata.namespace}/${last.metadata.name}` : last.metadata.name!);
      remaining = items.length - limit;
      items = items.slice(0, limit);
    }
    const converted = items.map((o) => convertTo(type, o, version.name));
    const table = wantsTable(r.accept);
    if (table) {
      r.sendJson(200, buildTable(type, version, converted, { includeObject: r.query('includeObject') as IncludeObject, resourceVersion: String(listRv), continueToken, apiVersion: table }));
      return;
    }
    const metadata: Obj = { resourceVersion: String(listRv) };
    if (continueToken) {
      metadata.continue = continueToken;
      metadata.remainingItemCount = remaining;
    }
    r.sendJson(200, { kind: type.listKind, apiVersion: groupVersion(type.group, version.name), metadata, items: converted });
  }

  /**
   * Checks an incoming object in the requested version (kind, apiVersion, namespace; schema for
   * custom resources) and returns it converted to the storage version.
   */
  private prepareIncoming(r: ApiRequest, p: ResourcePath, type: ResourceType, version: ServedVersion, body: unknown, warnings: string[]): KubeObject {
    if (!isObj(body)) throw ApiError.badRequest('the body of the request must be a JSON object');
    const obj = body as KubeObject;
    const expectedApiVersion = groupVersion(type.group, version.name);
    if (obj.apiVersion !== undefined && obj.apiVersion !== expectedApiVersion) {
      throw ApiError.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expectedApiVersion})`);
    }
    if (obj.kind !== undefined && obj.kind !== type.kind) {
      throw ApiError.badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${type.kind})`);
    }
    obj.apiVersion = expectedApiVersion;
    obj.kind = type.kind;
    if (!isObj(obj.metadata)) obj.metadata = {};
    if (type.namespaced) {
      if (obj.metadata.namespace && p.namespace && obj.metadata.namespace !== p.namespace) {
        throw ApiError.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      obj.metadata.namespace = p.namespace;
    }
    if (p.name && obj.metadata.name && obj.metadata.name !== p.name) {
      throw ApiError.badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${p.name})`);
    }
    if (p.name && !obj.metadata.name) obj.metadata.name = p.name;
    let prepared: KubeObject = obj;
    // ObjectMeta validation runs for every kind; its causes join the schema's in one 422.
    const metaCause = annotationsSizeCause(obj.metadata.annotations);
    if (type.builtin) {
      applyBuiltinDefaults(type.group, type.resource, prepared);
      if (metaCause) throw ApiError.invalid(type.group, type.kind, obj.metadata.name ?? '', [metaCause]);
    } else if (version.schema) {
      const result = applyStructuralSchema(prepared as Obj, version.schema);
      const validation = r.query('fieldValidation') ?? 'Warn';
      if (result.unknownFields.length) {
        if (validation === 'Strict') {
          const list = result.unknownFields.map((f) => `unknown field "${f}"`);
          throw ApiError.badRequest(`strict decoding error: ${list.join(', ')}`);
        }
        if (validation === 'Warn') for (const f of result.unknownFields) warnings.push(`unknown field "${f}"`);
      }
      const causes = metaCause ? [metaCause, ...result.causes] : result.causes;
      if (causes.length) throw ApiError.invalid(type.group, type.kind, obj.metadata.name ?? '', causes);
      prepared = result.object as KubeObject;
    } else if (metaCause) throw ApiError.invalid(type.group, type.kind, obj.metadata.name ?? '', [metaCause]);
    const stored = toStorage(type, prepared);
    checkStoredSize(stored);
    if (stored !== prepared) asRequested.set(stored, prepared);
    return stored;
  }

  private async create(r: ApiRequest, p: ResourcePath, type: ResourceType, version: ServedVersion): Promise<void> {
    if (p.name) throw ApiError.methodNotAllowed();
    const body = await r.bodyObject();
    if (type.group === 'authorization.k8s.io' || type.group === 'authentication.k8s.io') return this.review(r, type, body);
    const dryRun = dryRunOf(r);
    const obj = this.prepareIncoming(r, p, type, version, body, r.warnings);
    this.attribute(r, obj, undefined, body as KubeObject, 'Update');
    const created = this.ctx.store.createRef(this.gr(type), obj, { fromApi: true, dryRun, requestVersion: version.name, requestObject: asRequested.get(obj) });
    r.sendJson(201, convertTo(type, created, version.name));
  }

  private async update(r: ApiRequest, p: ResourcePath, type: ResourceType, version: ServedVersion): Promise<void> {
    const body = await r.bodyObject();
    const dryRun = dryRunOf(r);
    const obj = this.prepareIncoming(r, p, type, version, body, r.warnings);
    if (this.ctx.injectConflict()) throw ApiError.conflict(type.group, type.resource, p.name!);
    const exists = this.ctx.store.getRef(this.gr(type), p.namespace, p.name!);
    if (!exists) {
      // PUT to a missing object creates it for kinds that allow create-on-update (CRs and most built-ins do not).
      throw ApiError.notFound(type.group, type.resource, p.name!);
    }
    // Custom resources refuse unconditional updates; built-in kinds allow them (AllowUnconditionalUpdate).
    if (!obj.metadata.resourceVersion && !type.builtin) {
      throw new ApiError(422, 'Invalid', `${type.kind}${type.group ? `.${type.group}` : ''} "${p.name}" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`, {
        name: p.name,
        group: type.group,
        kind: type.kind,
        causes: [{ reason: 'FieldValueInvalid', field: 'metadata.resourceVersion', message: 'Invalid value: 0x0: must be specified for an update' }],
      });
    }
    this.attribute(r, obj, convertTo(type, exists, version.name), body as KubeObject, 'Update');
    const updated = this.ctx.store.updateRef(this.gr(type), obj, { fromApi: true, dryRun, requestVersion: version.name, requestObject: asRequested.get(obj) });
    r.sendJson(200, convertTo(type, updated, version.name));
  }

  /** An apply without ?force=true that changes another manager's fields: 409 naming each, as the API server answers. */
  private refuseApplyConflicts(r: ApiRequest, type: ResourceType, before: KubeObject, after: KubeObject, applied: KubeObject): void {
    const manager = r.query('fieldManager') ?? managerFromUserAgent(r.req.headers['user-agent']);
    const conflicts = applyConflicts(before, after, applied, manager);
    if (conflicts.length === 0) return;
    const lines = conflicts.map((c) => `conflict with "${c.manager}"${c.apiVersion ? ` using ${c.apiVersion}` : ''}: ${c.field}`);
    const message = conflicts.length === 1 ? `Apply failed with 1 conflict: ${lines[0]}` : `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
    throw new ApiError(409, 'Conflict', message, {
      name: before.metadata.name,
      group: type.group,
      kind: type.resource,
      causes: conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with "${c.manager}"${c.apiVersion ? ` using ${c.apiVersion}` : ''}`, field: c.field })),
    });
  }

  /**
   * metadata.managedFields after this write, as the API server records them: the manager is
   * ?fieldManager= or the User-Agent's first word; an apply patch is an Apply, the rest Updates.
   */
  private attribute(r: ApiRequest, obj: KubeObject, before: KubeObject | undefined, after: KubeObject, operation: 'Apply' | 'Update', applied?: KubeObject): void {
    const who = {
      manager: r.query('fieldManager') ?? managerFromUserAgent(r.req.headers['user-agent']),
      operation,
      apiVersion: typeof after.apiVersion === 'string' && after.apiVersion ? after.apiVersion : (before?.apiVersion ?? ''),
      time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    const managedFields = recordManagedFields(before, after, who, applied);
    for (const o of [obj, asRequested.get(obj)]) {
      if (!o) continue;
      // An empty list tells the store nobody owns anything any more (absent would keep the old entries).
      if (managedFields.length || before) o.metadata.managedFields = managedFields;
      else delete o.metadata.managedFields;
    }
  }

  /**
   * Applies a patch (`text`, the request body) of the request's content type to `current` (in the
   * requested version). Synchronous on purpose: callers read the body first, so reading the stored
   * object, patching it and writing it back happen with no controller write in between, as the
   * API server's GuaranteedUpdate retries until they do. (Reading the stored object before the
   * body arrived answered 409 to a patch without resourceVersion whenever a controller wrote
   * the object meanwhile.)
   */
  private applyPatch(r: ApiRequest, type: ResourceType, current: KubeObject, text: string): KubeObject {
    const ct = (r.contentType ?? '').split(';')[0]!.trim();
    let patch: unknown;
    if (ct === 'application/apply-patch+yaml') {
      try {
        patch = parse(text);
      } catch (err) {
        throw ApiError.badRequest(`error decoding YAML: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      }
    } else {
      try {
        patch = JSON.parse(text);
      } catch (err) {
        throw ApiError.badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    switch (ct) {
      case 'application/json-patch+json':
        // handlers/patch.go maxJSONPatchOperations.
        if (Array.isArray(patch) && patch.length > 10000) throw new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: The allowed maximum operations in a JSON patch is 10000, got ${patch.length}`);
        return applyJsonPatch(current, patch) as KubeObject;
      case 'application/merge-patch+json':
        if (!isObj(patch)) throw ApiError.badRequest('the body of a merge patch must be a JSON object');
        return mergePatch(current, patch) as KubeObject;
      case 'application/strategic-merge-patch+json':
        if (!type.builtin) throw ApiError.unsupportedMediaType(ct);
        return applyStrategicMergePatch(current, patch) as KubeObject;
      case 'application/apply-patch+yaml':
        // Server-side apply without managed fields: a merge of the applied configuration.
        if (!isObj(patch)) throw ApiError.badRequest('the body of an apply patch must be an object');
        return (type.builtin ? applyStrategicMergePatch(current, patch) : mergePatch(current, patch)) as KubeObject;
      default:
        throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml${type.builtin ? ', application/strategic-merge-patch+json' : ''}`);
    }
  }

  private async patch(r: ApiRequest, p: ResourcePath, type: ResourceType, version: ServedVersion): Promise<void> {
    const dryRun = dryRunOf(r);
    const ct = (r.contentType ?? '').split(';')[0]!.trim();
    if (ct === 'application/strategic-merge-patch+json' && !type.builtin) throw ApiError.unsupportedMediaType(ct);
    const text = await r.body();
    const stored = this.ctx.store.getRef(this.gr(type), p.namespace, p.name!);
    if (!stored) {
      if (ct === 'application/apply-patch+yaml') {
        const patched = this.applyPatch(r, type, { apiVersion: groupVersion(type.group, version.name), kind: type.kind, metadata: { name: p.name, namespace: p.namespace } }, text);
        const obj = this.prepareIncoming(r, p, type, version, patched, r.warnings);
        this.attribute(r, obj, undefined, patched, 'Apply', parse(text) as KubeObject);
        const created = this.ctx.store.createRef(this.gr(type), obj, { fromApi: true, dryRun, requestVersion: version.name, requestObject: asRequested.get(obj) });
        r.sendJson(201, convertTo(type, created, version.name));
        return;
      }
      throw ApiError.notFound(type.group, type.resource, p.name!);
    }
    const current = structuredClone(convertTo(type, stored, version.name));
    const patched = this.applyPatch(r, type, current, text);
    if (this.ctx.injectConflict()) throw ApiError.conflict(type.group, type.resource, p.name!);
    const obj = this.prepareIncoming(r, p, type, version, patched, r.warnings);
    const apply = ct === 'application/apply-patch+yaml';
    if (apply && r.query('force') !== 'true') this.refuseApplyConflicts(r, type, convertTo(type, stored, version.name), patched, parse(text) as KubeObject);
    this.attribute(r, obj, convertTo(type, stored, version.name), patched, apply ? 'Apply' : 'Update', apply ? (parse(text) as KubeObject) : undefined);
    const updated = this.ctx.store.updateRef(this.gr(type), obj, { fromApi: true, dryRun, requestVersion: version.name, requestObject: asRequested.get(obj) });
    r.sendJson(200, convertTo(type, updated, version.name));
  }

  private async deleteOptions(r: ApiRequest): Promise<{ propagationPolicy?: 'Orphan' | 'Background' | 'Foreground'; preconditions?: { uid?: string; resourceVersion?: string }; dryRun: boolean; gracePeriodSeconds?: number }> {
    let body: Obj = {};
    const text = await r.body();
    if (text.trim()) {
      try {
        const parsed = JSON.parse(text) as unknown;
        if (isObj(parsed)) body = parsed;
      } catch {
        throw ApiError.badRequest('invalid DeleteOptions in the request body');
      }
    }
    let policy = (r.query('propagationPolicy') ?? body.propagationPolicy) as string | undefined;
    if (policy === undefined && (r.params.bool('orphanDependents') ?? body.orphanDependents === true)) policy = 'Orphan';
    if (policy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(policy)) {
      throw ApiError.badRequest(`propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`);
    }
    const dryRunBody = Array.isArray(body.dryRun) && body.dryRun.length > 0;
    if (Array.isArray(body.dryRun)) for (const v of body.dryRun) if (v !== 'All') throw ApiError.badRequest(`Invalid dry run value: "${String(v)}"`);
    // Query parameters win over the body, as DeleteOptions decoding of the URL does.
    const graceQuery = r.params.int64('gracePeriodSeconds');
    const graceRaw = graceQuery ?? body.gracePeriodSeconds;
    const gracePeriodSeconds = graceRaw === undefined ? undefined : Number(graceRaw);
    if (gracePeriodSeconds !== undefined && (!Number.isInteger(gracePeriodSeconds) || gracePeriodSeconds < 0)) throw ApiError.badRequest(`invalid gracePeriodSeconds: ${String(graceRaw)}`);
    return { propagationPolicy: policy as 'Orphan' | 'Background' | 'Foreground' | undefined, preconditions: body.preconditions as { uid?: string; resourceVersion?: string } | undefined, dryRun: dryRunOf(r) || dryRunBody, gracePeriodSeconds };
  }

  private async delete(r: ApiRequest, p: ResourcePath, type: ResourceType, version: ServedVersion): Promise<void> {
    const opts = await this.deleteOptions(r);
    const result = this.ctx.store.deleteRef(this.gr(type), p.namespace, p.name!, { ...opts, fromApi: true });
    if (!result.removed) {
      // Marked for deletion (finalizers, graceful pod deletion): kube answers 200 with the object.
      this.respondObject(r, 200, type, version, result.deleted);
      return;
    }
    r.sendJson(200, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: p.name, group: type.group, kind: type.resource, uid: result.deleted.metadata.uid },
    });
  }

  private async deleteCollection(r: ApiRequest, p: ResourcePath, type: ResourceType, version: ServedVersion): Promise<void> {
    const opts = await this.deleteOptions(r);
    const items = this.ctx.store.listRefs(this.gr(type), { namespace: p.namespace, labelSelector: r.query('labelSelector'), fieldSelector: this.fieldSelector(r, type) });
    const deleted: KubeObject[] = [];
    for (const o of items) {
      try {
        deleted.push(this.ctx.store.deleteRef(this.gr(type), o.metadata.namespace, o.metadata.name!, { ...opts, fromApi: true }).deleted);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
    }
    r.sendJson(200, {
      kind: type.listKind,
      apiVersion: groupVersion(type.group, version.name),
      metadata: { resourceVersion: String(this.ctx.store.currentResourceVersion()) },
      items: deleted.map((o) => convertTo(type, o, version.name)),
    });
  }

  /** SelfSubjectAccessReview / SelfSubjectReview: answered for the requesting user. */
  private review(r: ApiRequest, type: ResourceType, body: unknown): void {
    const obj = (isObj(body) ? body : {}) as Obj;
    if (type.kind === 'SelfSubjectReview') {
      r.sendJson(201, { kind: type.kind, apiVersion: `${type.group}/v1`, metadata: { creationTimestamp: null }, status: { userInfo: { username: r.user, groups: ['system:authenticated'] } } });
      return;
    }
    const spec = (obj.spec as Obj | undefined) ?? {};
    const res = spec.resourceAttributes as Obj | undefined;
    const nonRes = spec.nonResourceAttributes as Obj | undefined;
    const str = (v: unknown): string => (typeof v === 'string' ? v : '');
    const attrs: RequestAttributes = res || !nonRes
      ? { resourceRequest: true, verb: str(res?.verb), group: str(res?.group), resource: str(res?.resource), subresource: str(res?.subresource) || undefined, name: str(res?.name) || undefined, namespace: str(res?.namespace) || undefined }
      : { resourceRequest: false, verb: str(nonRes.verb), path: str(nonRes.path) };
    const decision = this.ctx.authorize(r.user, attrs);
    const status: Obj = { allowed: decision.allowed };
    if (decision.reason) status.reason = decision.reason;
    r.sendJson(201, { kind: type.kind, apiVersion: `${type.group}/v1`, metadata: { creationTimestamp: null }, spec: obj.spec ?? {}, status });
  }

  // ---- subresources ----

  private async subresource(r: ApiRequest, p: ResourcePath, verb: Verb, type: ResourceType, version: ServedVersion): Promise<void> {
    if (p.subresource === 'status' && version.status) return this.status(r, p, verb, type, version);
    if (p.subresource === 'scale' && version.scale) return this.scale(r, p, verb, type, version);
    if (type.builtin && type.group === '' && type.resource === 'pods') {
      if (p.subresource === 'log' && verb === 'get') return this.podLog(r, p, type);
      if (p.subresource === 'eviction' && verb === 'create') return this.evict(r, p, type);
      // A streaming subresource reached without an Upgrade header (server.on('upgrade') in ../index.ts serves it).
      if (p.subresource === 'exec' && (verb === 'get' || verb === 'create')) throw ApiError.badRequest('Upgrade request required');
    }
    throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  }

  /** pods/log: the kubelet's logs of the pod's containers (pod-log.ts). */
  private podLog(r: ApiRequest, p: ResourcePath, type: ResourceType): void {
    servePodLog(r, this.existing(type, p) as Pod, this.ctx.podLogs);
  }

  /**
   * policy/v1 Eviction as kube-apiserver serves it: the webhooks registered for pods/eviction (Kruise's
   * PUB) first, then the PodDisruptionBudget that selects the pod (429 when it allows no disruption;
   * otherwise one disruption is spent in its status), then the pod is deleted.
   */
  private async evict(r: ApiRequest, p: ResourcePath, type: ResourceType): Promise<void> {
    const text = await r.body();
    let body: Obj = {};
    if (text.trim()) {
      try {
        const parsed = JSON.parse(text) as unknown;
        if (isObj(parsed)) body = parsed;
      } catch {
        throw ApiError.badRequest('invalid Eviction in the request body');
      }
    }
    const pod = this.existing(type, p) as Pod;
    const deleteOptions = isObj(body.deleteOptions) ? body.deleteOptions : {};
    const dryRun = dryRunOf(r) || (Array.isArray(deleteOptions.dryRun) && deleteOptions.dryRun.includes('All'));
    const eviction: KubeObject = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: p.name, namespace: p.namespace } };
    this.ctx.store.admitEviction(eviction, pod, dryRun);
    const pdbs = this.ctx.store.list(PDBS, { namespace: p.namespace });
    const decision = evictionDecision(pod, pdbs, { now: new Date(), dryRun });
    if (!decision.allowed) {
      const reason = decision.code === 429 ? 'TooManyRequests' : decision.code === 403 ? 'Forbidden' : 'InternalError';
      throw new ApiError(decision.code, reason, decision.message, decision.cause ? { causes: [{ reason: decision.cause.reason, message: decision.cause.message }] } : undefined);
    }
    if (decision.status) {
      const pdb = pdbsForPod(pod, pdbs)[0]!;
      this.ctx.store.updateStatus(PDBS, { ...pdb, status: decision.status });
    }
    this.ctx.store.deleteRef(this.gr(type), p.namespace, p.name!, { dryRun });
    r.sendJson(201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  }

  private async status(r: ApiRequest, p: ResourcePath, verb: Verb, type: ResourceType, version: ServedVersion): Promise<void> {
    const dryRun = verb === 'get' ? false : dryRunOf(r);
    if (verb === 'get') return this.get(r, p, type, version);
    let incoming: unknown;
    if (verb === 'update') incoming = await r.bodyObject();
    else if (verb === 'patch') {
      const text = await r.body();
      const stored = this.existing(type, p);
      incoming = this.applyPatch(r, type, structuredClone(convertTo(type, stored, version.name)), text);
    } else throw ApiError.methodNotAllowed();
    const obj = this.prepareIncoming(r, p, type, version, incoming, r.warnings);
    if (this.ctx.injectConflict()) throw ApiError.conflict(type.group, type.resource, p.name!);
    const updated = this.ctx.store.updateRef(this.gr(type), obj, { subresource: 'status', dryRun, requestVersion: version.name, requestObject: asRequested.get(obj) });
    r.sendJson(200, convertTo(type, updated, version.name));
  }

  private scaleOf(type: ResourceType, version: ServedVersion, obj: KubeObject): Obj {
    const scale = version.scale!;
    const get = (path: string): unknown => path.replace(/^\./, '').split('.').reduce<unknown>((o, k) => (isObj(o) ? o[k] : undefined), obj);
    let selector = scale.labelSelectorPath ? get(scale.labelSelectorPath) : undefined;
    if (type.builtin) {
      const sel = (obj.spec as Obj | undefined)?.selector as { matchLabels?: Record<string, string> } | undefined;
      selector = sel?.matchLabels ? Object.entries(sel.matchLabels).map(([k, v]) => `${k}=${v}`).join(',') : undefined;
    }
    const status: Obj = { replicas: (get(scale.statusReplicasPath) as number | undefined) ?? 0 };
    if (selector) status.selector = selector;
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion, creationTimestamp: obj.metadata.creationTimestamp },
      spec: { replicas: (get(scale.specReplicasPath) as number | undefined) ?? 0 },
      status,
    };
  }

  private async scale(r: ApiRequest, p: ResourcePath, verb: Verb, type: ResourceType, version: ServedVersion): Promise<void> {
    // The body first: from reading the stored object to writing it back nothing may interleave
    // (see applyPatch).
    const body = verb === 'update' ? await r.bodyObject() : verb === 'patch' ? await r.body() : undefined;
    const stored = this.existing(type, p);
    const current = convertTo(type, stored, version.name);
    if (verb === 'get') return r.sendJson(200, this.scaleOf(type, version, current));
    const dryRun = dryRunOf(r);
    let scale: Obj;
    if (verb === 'update') {
      if (!isObj(body)) throw ApiError.badRequest('the body of the request must be a Scale object');
      scale = body;
    } else if (verb === 'patch') {
      const ct = (r.contentType ?? '').split(';')[0]!.trim();
      const base = this.scaleOf(type, version, current);
      let patch: unknown;
      try {
        patch = JSON.parse(body as string);
      } catch (err) {
        throw ApiError.badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (ct === 'application/json-patch+json') scale = applyJsonPatch(base, patch) as Obj;
      else if (ct === 'application/merge-patch+json' || ct === 'application/strategic-merge-patch+json') scale = mergePatch(base, patch) as Obj;
      else throw ApiError.unsupportedMediaType(ct);
    } else throw ApiError.methodNotAllowed();
    const meta = (scale.metadata as Obj | undefined) ?? {};
    if (meta.resourceVersion && meta.resourceVersion !== stored.metadata.resourceVersion) throw ApiError.conflict(type.group, type.resource, p.name!);
    const replicas = (scale.spec as Obj | undefined)?.replicas;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
      throw new ApiError(422, 'Invalid', `Scale.autoscaling "${p.name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`, {
        name: p.name,
        group: 'autoscaling',
        kind: 'Scale',
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0` }],
      });
    }
    const next = structuredClone(current) as Obj;
    const path = version.scale!.specReplicasPath.replace(/^\./, '').split('.');
    let cursor: Obj = next;
    for (const k of path.slice(0, -1)) cursor = (cursor[k] = isObj(cursor[k]) ? cursor[k] : {}) as Obj;
    cursor[path[path.length - 1]!] = replicas;
    if (this.ctx.injectConflict()) throw ApiError.conflict(type.group, type.resource, p.name!);
    const updated = this.ctx.store.updateRef(this.gr(type), convertTo(type, next as KubeObject, type.storageVersion), { fromApi: true, dryRun, requestVersion: version.name });
    r.sendJson(200, this.scaleOf(type, version, convertTo(type, updated, version.name)));
  }
}

export { qualifiedResource };
