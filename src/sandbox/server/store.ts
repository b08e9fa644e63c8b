// The sandbox's storage: every object kept once, in its storage version, under a global
// resourceVersion counter, with a window of recent events for watches. Stored objects are
// never mutated in place (each write stores a new object), so watch backlogs and list
// responses can share them; the controller-facing get/list/create hand out copies, update and
// updateStatus return the stored object (callers only read it).
import { randomUUID } from 'node:crypto';
import { dns1123LabelProblem, dns1123SubdomainProblem, labelValueProblem } from '../../kruise/names';
import type { KubeObject } from '../../kruise/types';
import { dns1035LabelMessages } from '../../kruise/rules/service';
import { jsonEqual } from '../../lib/json-equal';
import { EVICTIONS, type AdmissionHook, type AdmissionRequest, type GroupResource, type Store, type StoreEvent, type StoreListOptions } from '../store-api';
import { ApiError } from './errors';
import type { ResourceRegistry } from './registry';
import { fieldMatcher, labelMatcher } from './selectors';
import { pruneObjectToSchema, pruneToSchema } from './schema';
import { applyBuiltinDefaults } from './builtin-defaults';
import type { ResourceType } from './resource-types';
import { groupVersion } from './resource-types';

export interface StoredEvent extends StoreEvent {
  rv: number;
  /** The object before this write (MODIFIED, DELETED): watches filter on both, like kube's cacher. */
  prev?: KubeObject;
}

export interface WriteOptions {
  dryRun?: boolean;
  /** A client request (not a controller): status is reset on create / kept on update like kube does. */
  fromApi?: boolean;
  /** Which subresource is written: the main object or only .status. */
  subresource?: 'status';
  /** The API version the client wrote in, for the webhooks (AdmissionRequest.version). */
  requestVersion?: string;
  /** The object as the client wrote it, in that version (AdmissionRequest.object). */
  requestObject?: KubeObject;
}

export interface DeleteOptions {
  dryRun?: boolean;
  /** Pods: 0 deletes at once; otherwise a scheduled pod is only marked (the kubelet removes it). */
  gracePeriodSeconds?: number;
  /**
   * A client's DELETE (kubectl delete pod): graceful for scheduled pods. Controllers' own deletes
   * (scale-down) remove pods at once, which their tests and status arithmetic rely on.
   */
  fromApi?: boolean;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
}

export type DeleteResult = { deleted: KubeObject; removed: boolean };

type Listener = (ev: StoredEvent) => void;

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

let lastSecond = Number.NaN;
let lastTimestamp = '';

/** Now, to the second (formatted once a second: every create and deletion stamps one). */
export function nowTimestamp(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastTimestamp = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  }
  return lastTimestamp;
}

function grKey(gr: GroupResource): string {
  return `${gr.group}/${gr.resource}`;
}

function objKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Everything except metadata and status: a change here bumps metadata.generation. */
const NOT_SPEC = new Set(['metadata', 'status', 'apiVersion', 'kind']);
function sameSpec(a: KubeObject, b: KubeObject): boolean {
  return jsonEqual(a, b, NOT_SPEC);
}

export class MemoryStore implements Store {
  private readonly buckets = new Map<string, Map<string, KubeObject>>();
  private readonly listeners = new Set<Listener>();
  private readonly hooks = new Map<string, AdmissionHook[]>();
  private log: StoredEvent[] = [];
  private rv = 0;
  /** Events up to this resourceVersion were dropped from the log: older watches get 410. */
  private compactedRv = 0;
  private generateCounter = 0;
  private pending: StoredEvent[] = [];
  /** Set when a kubelet controller runs: only then are pods deleted gracefully (it finishes the job). */
  hasKubelet = false;
  private delivering = false;

  constructor(
    readonly registry: ResourceRegistry,
    private windowSize = 20_000,
  ) {
    for (const ns of SYSTEM_NAMESPACES) {
      this.create({ group: '', resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    }
  }

  setWindowSize(n: number): void {
    this.windowSize = Math.max(1, n);
    this.compact();
  }

  addAdmissionHooks(hooks: AdmissionHook[]): void {
    for (const h of hooks) {
      const k = grKey(h.gr);
      if (!this.hooks.has(k)) this.hooks.set(k, []);
      this.hooks.get(k)!.push(h);
    }
  }

  currentResourceVersion(): number {
    return this.rv;
  }

  oldestWatchableResourceVersion(): number {
    return this.compactedRv;
  }

  // ---- Store (controller-facing): copies in and out ----

  get(gr: GroupResource, namespace: string | undefined, name: string): KubeObject | undefined {
    const o = this.getRef(gr, namespace, name);
    return o ? structuredClone(o) : undefined;
  }

  list(gr: GroupResource, opts: StoreListOptions = {}): KubeObject[] {
    return this.listRefs(gr, opts).map((o) => structuredClone(o));
  }

  create(gr: GroupResource, obj: KubeObject, opts: WriteOptions = {}): KubeObject {
    return structuredClone(this.createRef(gr, structuredClone(obj), opts));
  }

  /** No copies: at 5 events a pod, the two copies of create() were most of an event's cost. */
  createOwned(gr: GroupResource, obj: KubeObject): KubeObject {
    return this.createRef(gr, obj);
  }

  /**
   * Like a client PUT: status changes are ignored (they go through updateStatus). Returns the
   * stored object itself: it is never changed in place (deep-frozen in the controller tests), and
   * a copy of every pod written during a 5,000-pod rollout was a large share of the sandbox's CPU.
   */
  update(gr: GroupResource, obj: KubeObject, opts: WriteOptions = {}): KubeObject {
    return this.updateRef(gr, structuredClone(obj), { fromApi: true, ...opts });
  }

  /**
   * Writes only .status: only the caller's status is copied in (the stored object takes nothing
   * else from it), and the stored object is returned as it is, like update().
   */
  updateStatus(gr: GroupResource, obj: KubeObject): KubeObject {
    const input: KubeObject = { ...obj, metadata: { ...obj.metadata } };
    if (obj.status !== undefined) input.status = structuredClone(obj.status);
    return this.updateRef(gr, input, { subresource: 'status' });
  }

  delete(gr: GroupResource, namespace: string | undefined, name: string, opts: DeleteOptions = {}): void {
    this.deleteRef(gr, namespace, name, opts);
  }

  subscribe(listener: (ev: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  storageVersion(gr: GroupResource): string | undefined {
    const t = this.registry.get(gr.group, gr.resource);
    return t ? groupVersion(t.group, t.storageVersion) : undefined;
  }

  // ---- server-facing: shared references, never mutate them ----

  getRef(gr: GroupResource, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.buckets.get(grKey(gr))?.get(objKey(namespace, name));
  }

  /** Sorted by namespace/name, like etcd keys, so pagination is stable. */
  listRefs(gr: GroupResource, opts: StoreListOptions = {}): KubeObject[] {
    const bucket = this.buckets.get(grKey(gr));
    if (!bucket) return [];
    const byLabel = labelMatcher(opts.labelSelector);
    const byField = fieldMatcher(opts.fieldSelector);
    const prefix = opts.namespace ? `${opts.namespace}/` : undefined;
    // The bucket's keys are the objects' namespace/name keys: sort on them, not on rebuilt strings.
    const out: Array<[string, KubeObject]> = [];
    for (const [k, o] of bucket) {
      if (prefix && !k.startsWith(prefix)) continue;
      if (!byLabel(o.metadata.labels) || !byField(o)) continue;
      out.push([k, o]);
    }
    return out.sort(([ka], [kb]) => (ka < kb ? -1 : ka > kb ? 1 : 0)).map(([, o]) => o);
  }

  /** Events after `fromRv` for one kind (all kinds when gr is undefined); throws 410 when they are gone. */
  eventsSince(fromRv: number, gr?: GroupResource): StoredEvent[] {
    if (fromRv < this.compactedRv) {
      throw ApiError.gone(`too old resource version: ${fromRv} (${this.compactedRv + 1})`);
    }
    const k = gr ? grKey(gr) : undefined;
    // The log is ordered by rv: binary search the first event after fromRv.
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.log[mid]!.rv <= fromRv) lo = mid + 1;
      else hi = mid;
    }
    const out: StoredEvent[] = [];
    for (let i = lo; i < this.log.length; i++) {
      const ev = this.log[i]!;
      if (!k || grKey(ev.gr) === k) out.push(ev);
    }
    return out;
  }

  subscribeRaw(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  createRef(gr: GroupResource, input: KubeObject, opts: WriteOptions = {}): KubeObject {
    const type = this.typeOf(gr);
    const meta = (input.metadata ??= {});
    if (!type.namespaced) delete meta.namespace;
    else if (!meta.namespace) throw ApiError.badRequest('the namespace of the object is required');
    if (!meta.name && meta.generateName) meta.name = this.generateName(gr, meta.namespace, meta.generateName);
    if (meta.resourceVersion) throw ApiError.badRequest('resourceVersion should not be set on objects to be created');
    if (!meta.name) {
      throw ApiError.invalid(type.group, type.kind, '', [{ reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' }]);
    }
    this.validateMeta(type, input);
    if (type.namespaced) this.requireNamespace(meta.namespace!);
    if (this.getRef(gr, meta.namespace, meta.name)) throw ApiError.alreadyExists(type.group, type.resource, meta.name);
    if (gr.group === '' && gr.resource === 'namespaces' && this.getRef(gr, undefined, meta.name)?.metadata.deletionTimestamp) {
      throw ApiError.conflict('', 'namespaces', meta.name, 'object is being deleted');
    }
    input.apiVersion = groupVersion(type.group, type.storageVersion);
    input.kind = type.kind;
    if (opts.fromApi && type.versions.some((v) => v.status) && !(gr.group === '' && gr.resource === 'namespaces')) {
      // kube drops status on create for kinds with a status subresource (pods get Pending).
      delete input.status;
      if (gr.group === '' && gr.resource === 'pods') input.status = { phase: 'Pending', qosClass: 'BestEffort' };
    }
    if (gr.group === '' && gr.resource === 'namespaces') input.status = { phase: 'Active' };
    // Pods made by the simulated controllers get the API server's defaults too (ports TCP,
    // imagePullPolicy, restartPolicy...), as pods a real controller creates through the API do.
    if (!opts.fromApi && gr.group === '' && gr.resource === 'pods') applyBuiltinDefaults(gr.group, gr.resource, input);
    // The uid exists before admission, as kube's registry fills it before the strategy's Validate
    // (the Job API generates its selector from it); a hook cannot change it.
    // Copied into one flat string: randomUUID() returns a tree of ~16 concatenated pieces (~500 bytes
    // more than the text), kept for as long as the object is.
    const uid = Buffer.from(randomUUID(), 'latin1').toString('latin1');
    meta.uid = uid;
    let obj = this.admit('CREATE', gr, input, undefined, { version: opts.requestVersion, object: opts.requestObject });
    const m = obj.metadata;
    m.uid = uid;
    m.creationTimestamp = nowTimestamp();
    m.generation = 1;
    delete m.deletionTimestamp;
    delete m.resourceVersion;
    if (opts.dryRun) return { ...obj, metadata: { ...m, resourceVersion: String(this.rv) } };
    obj = { ...obj, metadata: { ...m, resourceVersion: String(++this.rv) } };
    this.bucket(gr).set(objKey(m.namespace, m.name!), obj);
    this.emit('ADDED', gr, obj);
    return obj;
  }

  /**
   * A status written by a simulated controller, pruned to the installed CRD's schema like kube-apiserver
   * prunes every write: a release whose CRD lacks a field (v1.3 has no updatedAvailableReplicas) never
   * stores it, so later patches of the object do not warn about fields the user never sent.
   */
  private prunedStatus(type: ResourceType, status: unknown): unknown {
    const schema = type.builtin ? undefined : type.versions.find((v) => v.name === type.storageVersion)?.schema?.properties?.status;
    if (!schema || status === undefined || status === null) return status;
    return pruneToSchema(status, schema);
  }

  updateRef(gr: GroupResource, input: KubeObject, opts: WriteOptions = {}): KubeObject {
    const type = this.typeOf(gr);
    const meta = input.metadata ?? {};
    const name = meta.name;
    if (!name) throw ApiError.badRequest('name is required');
    const namespace = type.namespaced ? meta.namespace : undefined;
    const old = this.getRef(gr, namespace, name);
    if (!old) throw ApiError.notFound(type.group, type.resource, name);
    if (meta.resourceVersion && meta.resourceVersion !== old.metadata.resourceVersion) {
      throw ApiError.conflict(type.group, type.resource, name);
    }
    if (meta.uid && meta.uid !== old.metadata.uid) {
      throw ApiError.conflict(type.group, type.resource, name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${old.metadata.uid}`);
    }
    let next: KubeObject;
    const hasStatusSubresource = type.versions.some((v) => v.status);
    if (opts.subresource === 'status') {
      // Only .status changes through /status; metadata and spec stay as stored. The metadata is
      // copied because it is edited below, and the stored object must never change in place.
      next = { ...old, metadata: { ...old.metadata }, status: this.prunedStatus(type, input.status) };
      if (input.status === undefined) delete next.status;
    } else {
      next = { ...input, metadata: { ...meta } };
      if (opts.fromApi && hasStatusSubresource) {
        if (old.status === undefined) delete next.status;
        else next.status = old.status;
      }
      this.validateMeta(type, next);
    }
    next.apiVersion = groupVersion(type.group, type.storageVersion);
    next.kind = type.kind;
    const nm = next.metadata;
    // Immutable or server-owned metadata.
    nm.name = old.metadata.name;
    if (type.namespaced) nm.namespace = old.metadata.namespace;
    else delete nm.namespace;
    nm.uid = old.metadata.uid;
    // A write that says nothing of managedFields (a controller's) leaves the recorded ownership as it
    // was; an empty list (the API handler found no owner left) removes it.
    if (nm.managedFields === undefined && old.metadata.managedFields !== undefined) nm.managedFields = old.metadata.managedFields;
    if (Array.isArray(nm.managedFields) && nm.managedFields.length === 0) delete nm.managedFields;
    nm.creationTimestamp = old.metadata.creationTimestamp;
    nm.generation = old.metadata.generation;
    if (old.metadata.deletionTimestamp) nm.deletionTimestamp = old.metadata.deletionTimestamp;
    else delete nm.deletionTimestamp;
    if (old.metadata.deletionGracePeriodSeconds !== undefined) nm.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
    delete nm.resourceVersion;
    next = this.admit('UPDATE', gr, next, old, { version: opts.requestVersion, object: opts.requestObject, subresource: opts.subresource, dryRun: opts.dryRun });
    // A /status write never bumps generation, so only the other writes pay for comparing specs.
    if (opts.subresource !== 'status') {
      const statusCountsAsSpec = !hasStatusSubresource && !type.builtin;
      const changed = !sameSpec(next, old) || (statusCountsAsSpec && !jsonEqual(next.status, old.status));
      if (changed) next.metadata.generation = (old.metadata.generation ?? 0) + 1;
    }
    // A no-op write keeps the resourceVersion and emits nothing, like kube.
    if (jsonEqual({ ...next, metadata: { ...next.metadata, resourceVersion: old.metadata.resourceVersion } }, old)) {
      return old;
    }
    if (opts.dryRun) return { ...next, metadata: { ...next.metadata, resourceVersion: old.metadata.resourceVersion } };
    // The last finalizer removed from an object being deleted: it goes away now.
    // (A pod in its grace period stays until the kubelet deletes it.)
    if (next.metadata.deletionTimestamp && !(next.metadata.finalizers ?? []).length && !next.metadata.deletionGracePeriodSeconds) {
      next = { ...next, metadata: { ...next.metadata, resourceVersion: String(++this.rv) } };
      this.removeStored(gr, next, old);
      return next;
    }
    next = { ...next, metadata: { ...next.metadata, resourceVersion: String(++this.rv) } };
    this.bucket(gr).set(objKey(namespace, name), next);
    this.emit('MODIFIED', gr, next, old);
    return next;
  }

  /** Deletes (or marks for deletion when finalizers remain). Returns the object as deleted/marked. */
  deleteRef(gr: GroupResource, namespace: string | undefined, name: string, opts: DeleteOptions = {}): DeleteResult {
    const type = this.typeOf(gr);
    const ns = type.namespaced ? namespace : undefined;
    const old = this.getRef(gr, ns, name);
    if (!old) throw ApiError.notFound(type.group, type.resource, name);
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== old.metadata.uid) {
      throw ApiError.conflict(type.group, type.resource, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion) {
      throw ApiError.conflict(type.group, type.resource, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`);
    }
    this.admit('DELETE', gr, old, old, { dryRun: opts.dryRun });
    if (opts.dryRun) return { deleted: old, removed: true };
    const finalizers = [...(old.metadata.finalizers ?? [])];
    if (opts.propagationPolicy === 'Foreground' && !finalizers.includes('foregroundDeletion')) finalizers.push('foregroundDeletion');
    if (opts.propagationPolicy === 'Orphan') this.orphanDependents(old);
    if (gr.group === '' && gr.resource === 'namespaces') this.deleteNamespaceContents(name);
    // Graceful pod deletion like kube: a pod on a node is marked Terminating and the node's
    // kubelet (a controller) deletes it for good once its containers are stopped.
    const graceful =
      opts.fromApi === true && gr.group === '' && gr.resource === 'pods' && !old.metadata.deletionTimestamp && opts.gracePeriodSeconds !== 0 && Boolean((old.spec as { nodeName?: string } | undefined)?.nodeName) && this.hasKubelet;
    if (finalizers.length > 0 || graceful) {
      if (old.metadata.deletionTimestamp && finalizers.length === (old.metadata.finalizers ?? []).length) return { deleted: old, removed: false };
      const grace = opts.gracePeriodSeconds ?? (old.spec as { terminationGracePeriodSeconds?: number } | undefined)?.terminationGracePeriodSeconds ?? 30;
      const marked: KubeObject = {
        ...old,
        metadata: {
          ...old.metadata,
          ...(finalizers.length ? { finalizers } : {}),
          deletionTimestamp: old.metadata.deletionTimestamp ?? (graceful ? new Date(Date.now() + grace * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') : nowTimestamp()),
          deletionGracePeriodSeconds: graceful ? grace : 0,
          generation: (old.metadata.generation ?? 0) + 1,
          resourceVersion: String(++this.rv),
        },
      };
      this.bucket(gr).set(objKey(ns, name), marked);
      this.emit('MODIFIED', gr, marked, old);
      return { deleted: marked, removed: false };
    }
    const gone: KubeObject = { ...old, metadata: { ...old.metadata, resourceVersion: String(++this.rv) } };
    this.removeStored(gr, gone, old);
    return { deleted: gone, removed: true };
  }

  // ---- internals ----

  private typeOf(gr: GroupResource): ResourceType {
    const t = this.registry.get(gr.group, gr.resource);
    if (!t) throw new ApiError(404, 'NotFound', `the server could not find the requested resource (${gr.resource}${gr.group ? `.${gr.group}` : ''})`);
    return t;
  }

  private bucket(gr: GroupResource): Map<string, KubeObject> {
    const k = grKey(gr);
    let b = this.buckets.get(k);
    if (!b) this.buckets.set(k, (b = new Map()));
    return b;
  }

  private removeStored(gr: GroupResource, obj: KubeObject, prev: KubeObject): void {
    this.bucket(gr).delete(objKey(obj.metadata.namespace, obj.metadata.name!));
    this.emit('DELETED', gr, obj, prev);
  }

  /**
   * Notifies listeners in resourceVersion order. A listener that writes (a controller reacting
   * synchronously) queues its event behind the one being delivered, so no listener, and no
   * watch stream, ever sees resourceVersions go backwards.
   */
  private emit(type: StoreEvent['type'], gr: GroupResource, object: KubeObject, prev?: KubeObject): void {
    const ev: StoredEvent = { type, gr: { group: gr.group, resource: gr.resource }, object, rv: Number(object.metadata.resourceVersion) };
    if (prev) ev.prev = prev;
    this.log.push(ev);
    this.compact();
    this.pending.push(ev);
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let next = this.pending.shift(); next; next = this.pending.shift()) {
        for (const l of [...this.listeners]) {
          try {
            l(next);
          } catch (err) {
            // A failing listener (a controller bug) must not break the write that triggered it.
            process.stderr.write(`sandbox: listener failed on ${next.type} ${next.gr.resource}/${next.object.metadata.name}: ${err instanceof Error ? err.message : String(err)}\n`);
          }
        }
      }
    } finally {
      this.delivering = false;
    }
  }

  private compact(): void {
    if (this.log.length <= this.windowSize) return;
    // Trim in chunks so the array copy is amortised.
    const drop = this.log.length - this.windowSize + (this.windowSize >= 1000 ? Math.floor(this.windowSize / 10) : 0);
    this.compactedRv = this.log[drop - 1]!.rv;
    this.log = this.log.slice(drop);
  }

  /**
   * The validating webhooks registered for pods/eviction (CREATE of policy/v1 Eviction), run before the
   * eviction REST looks at PodDisruptionBudgets. `pod` is the pod to evict (the webhook reads it).
   */
  admitEviction(eviction: KubeObject, pod: KubeObject, dryRun: boolean): void {
    for (const h of this.hooks.get(grKey(EVICTIONS)) ?? []) if (h.operations.includes('CREATE')) h.admit('CREATE', structuredClone(eviction), structuredClone(pod), this, { dryRun });
  }

  private admit(op: 'CREATE' | 'UPDATE' | 'DELETE', gr: GroupResource, obj: KubeObject, old: KubeObject | undefined, request: AdmissionRequest = {}): KubeObject {
    const hooks = this.hooks.get(grKey(gr));
    if (!hooks) return obj;
    let cur = obj;
    let admitted = false;
    for (const h of hooks) {
      if (!h.operations.includes(op)) continue;
      admitted = true;
      const out = h.admit(op, op === 'DELETE' ? structuredClone(cur) : cur, old ? structuredClone(old) : undefined, this, request);
      if (out && op !== 'DELETE') cur = out;
    }
    // kube-apiserver prunes and defaults a custom resource again after mutating admission: what a
    // webhook filled in (CRR ports copied from the pod) is stored exactly as a later patch will see it,
    // so an immutable spec does not look changed on the next write.
    if (op !== 'DELETE' && admitted) {
      const type = this.typeOf(gr);
      const schema = type.builtin ? undefined : type.versions.find((v) => v.name === type.storageVersion)?.schema;
      if (schema) cur = pruneObjectToSchema(cur, schema);
    }
    return cur;
  }

  private generateName(gr: GroupResource, namespace: string | undefined, prefix: string): string {
    const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
    for (;;) {
      let suffix = '';
      let n = ++this.generateCounter * 7919 + Math.floor(Math.random() * 1e6);
      for (let i = 0; i < 5; i++) {
        suffix += alphabet[n % alphabet.length];
        n = Math.floor(n / alphabet.length) + Math.floor(Math.random() * 97);
      }
      const name = `${prefix}${suffix}`;
      if (!this.getRef(gr, namespace, name)) return name;
    }
  }

  private validateMeta(type: ResourceType, obj: KubeObject): void {
    const m = obj.metadata;
    const name = m.name ?? '';
    const causes: Array<{ field: string; message: string; reason: string }> = [];
    const isLabel = type.group === '' && type.resource === 'namespaces';
    if (type.group === '' && type.resource === 'services') {
      // ValidateServiceName: a DNS-1035 label (no leading digit), kube's own wording
      for (const m of dns1035LabelMessages(name)) causes.push({ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "${name}": ${m}` });
    } else if ((isLabel ? dns1123LabelProblem : dns1123SubdomainProblem)(name) !== undefined) {
      const what = isLabel ? 'a lowercase RFC 1123 label' : 'a lowercase RFC 1123 subdomain';
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: "${name}": ${what} must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
      });
    }
    for (const [k, v] of Object.entries(m.labels ?? {})) {
      if (typeof v !== 'string' || labelValueProblem(v) !== undefined) {
        causes.push({ reason: 'FieldValueInvalid', field: 'metadata.labels', message: `Invalid value: "${String(v)}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character` });
      }
      if (!/^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(k)) {
        causes.push({ reason: 'FieldValueInvalid', field: 'metadata.labels', message: `Invalid value: "${k}": name part must consist of alphanumeric characters, '-', '_' or '.'` });
      }
    }
    if (causes.length) throw ApiError.invalid(type.group, type.kind, name, causes);
  }

  private requireNamespace(ns: string): void {
    if (!this.getRef({ group: '', resource: 'namespaces' }, undefined, ns)) {
      throw new ApiError(404, 'NotFound', `namespaces "${ns}" not found`, { name: ns, kind: 'namespaces' });
    }
  }

  private orphanDependents(owner: KubeObject): void {
    const uid = owner.metadata.uid;
    for (const [k, bucket] of this.buckets) {
      const [group, resource] = [k.slice(0, k.indexOf('/')), k.slice(k.indexOf('/') + 1)];
      for (const o of [...bucket.values()]) {
        const refs = o.metadata.ownerReferences;
        if (!refs?.some((r) => r.uid === uid)) continue;
        const kept = refs.filter((r) => r.uid !== uid);
        const meta: KubeObject['metadata'] = { ...o.metadata, ownerReferences: kept };
        if (kept.length === 0) delete meta.ownerReferences;
        this.updateRef({ group, resource }, { ...o, metadata: meta });
      }
    }
  }

  private deleteNamespaceContents(ns: string): void {
    for (const [k, bucket] of this.buckets) {
      const [group, resource] = [k.slice(0, k.indexOf('/')), k.slice(k.indexOf('/') + 1)];
      const type = this.registry.get(group, resource);
      if (!type?.namespaced) continue;
      for (const o of [...bucket.values()]) {
        if (o.metadata.namespace !== ns) continue;
        try {
          this.deleteRef({ group, resource }, ns, o.metadata.name!);
        } catch {
          /* already gone */
        }
      }
    }
  }
}
