// An in-memory Store (src/sandbox/store-api.ts) for controller unit tests: the same semantics
// the sandbox API server gives controllers, without HTTP. uid, creationTimestamp, a global
// resourceVersion counter, generation bumped on spec changes only, generateName, optimistic
// concurrency (409), AlreadyExists / NotFound, finalizers + deletionTimestamp, status writes
// only through updateStatus, and synchronous notifications after every committed change.
// Objects handed out are copies, so a controller that mutates what it read is caught.
// Owner-reference GC is not done here (that is the gc controller's job).
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../src/kruise/types';
import { canonicalJson } from '../../src/sandbox/canonical-json';
import { ApiError } from '../../src/sandbox/server/errors';
import { fieldMatcher, labelMatcher } from '../../src/sandbox/server/selectors';
import type { GroupResource, Store, StoreEvent, StoreListOptions } from '../../src/sandbox/store-api';

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function grKey(gr: GroupResource): string {
  return `${gr.resource}.${gr.group}`;
}

function objKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

function specJson(obj: KubeObject): string {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return canonicalJson(rest);
}

export interface MemoryStoreOptions {
  /** Storage apiVersion per "resource.group" key, e.g. { 'clonesets.apps.kruise.io': 'apps.kruise.io/v1alpha1' }. */
  storageVersions?: Record<string, string>;
  /** Resources served cluster-scoped (namespace ignored): defaults to nodes, namespaces, CRDs. */
  clusterScoped?: string[];
}

const DEFAULT_STORAGE: Record<string, string> = {
  'pods.': 'v1',
  'nodes.': 'v1',
  'namespaces.': 'v1',
  'events.': 'v1',
  'deployments.apps': 'apps/v1',
  'replicasets.apps': 'apps/v1',
  'statefulsets.apps': 'apps/v1',
  'daemonsets.apps': 'apps/v1',
  'controllerrevisions.apps': 'apps/v1',
  'clonesets.apps.kruise.io': 'apps.kruise.io/v1alpha1',
  'statefulsets.apps.kruise.io': 'apps.kruise.io/v1beta1',
  'daemonsets.apps.kruise.io': 'apps.kruise.io/v1alpha1',
  'containerrecreaterequests.apps.kruise.io': 'apps.kruise.io/v1alpha1',
  'imagepulljobs.apps.kruise.io': 'apps.kruise.io/v1alpha1',
  'imagelistpulljobs.apps.kruise.io': 'apps.kruise.io/v1alpha1',
  'persistentpodstates.apps.kruise.io': 'apps.kruise.io/v1alpha1',
};

const KINDS: Record<string, string> = {
  pods: 'Pod',
  nodes: 'Node',
  namespaces: 'Namespace',
  events: 'Event',
  deployments: 'Deployment',
  replicasets: 'ReplicaSet',
  statefulsets: 'StatefulSet',
  daemonsets: 'DaemonSet',
  controllerrevisions: 'ControllerRevision',
  clonesets: 'CloneSet',
  containerrecreaterequests: 'ContainerRecreateRequest',
  imagepulljobs: 'ImagePullJob',
  imagelistpulljobs: 'ImageListPullJob',
  persistentpodstates: 'PersistentPodState',
};

export class MemoryStore implements Store {
  private readonly data = new Map<string, Map<string, KubeObject>>();
  private readonly listeners = new Set<(ev: StoreEvent) => void>();
  private readonly storage: Record<string, string>;
  private readonly clusterScoped: Set<string>;
  private rv = 1;
  /** Every committed event, for assertions on what controllers wrote. */
  readonly events: StoreEvent[] = [];
  recordEvents = false;

  constructor(opts: MemoryStoreOptions = {}) {
    this.storage = { ...DEFAULT_STORAGE, ...(opts.storageVersions ?? {}) };
    this.clusterScoped = new Set(opts.clusterScoped ?? ['nodes', 'namespaces', 'customresourcedefinitions']);
  }

  private bucket(gr: GroupResource): Map<string, KubeObject> {
    const k = grKey(gr);
    let b = this.data.get(k);
    if (!b) this.data.set(k, (b = new Map()));
    return b;
  }

  private ns(gr: GroupResource, namespace: string | undefined): string | undefined {
    return this.clusterScoped.has(gr.resource) ? undefined : namespace || 'default';
  }

  private emit(type: StoreEvent['type'], gr: GroupResource, object: KubeObject): void {
    const ev: StoreEvent = { type, gr, object: structuredClone(object) };
    if (this.recordEvents) this.events.push(ev);
    for (const l of [...this.listeners]) l(ev);
  }

  private kindOf(gr: GroupResource): string {
    return KINDS[gr.resource] ?? gr.resource;
  }

  storageVersion(gr: GroupResource): string | undefined {
    return this.storage[grKey(gr)];
  }

  get(gr: GroupResource, namespace: string | undefined, name: string): KubeObject | undefined {
    const o = this.bucket(gr).get(objKey(this.ns(gr, namespace), name));
    return o ? structuredClone(o) : undefined;
  }

  list(gr: GroupResource, opts: StoreListOptions = {}): KubeObject[] {
    const lm = labelMatcher(opts.labelSelector);
    const fm = fieldMatcher(opts.fieldSelector);
    const out: KubeObject[] = [];
    for (const o of this.bucket(gr).values()) {
      if (opts.namespace && o.metadata.namespace !== opts.namespace) continue;
      if (!lm(o.metadata.labels) || !fm(o)) continue;
      out.push(structuredClone(o));
    }
    return out.sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`));
  }

  create(gr: GroupResource, input: KubeObject): KubeObject {
    const obj = structuredClone(input);
    const meta = obj.metadata ?? (obj.metadata = {});
    meta.namespace = this.ns(gr, meta.namespace);
    if (!meta.name && meta.generateName) {
      let suffix = '';
      for (let i = 0; i < 5; i++) suffix += ALPHABET[Math.floor(Math.random() * ALPHABET.length)];
      meta.name = `${meta.generateName}${suffix}`;
    }
    if (!meta.name) throw ApiError.invalid(gr.group, this.kindOf(gr), '', [{ field: 'metadata.name', message: 'Required value: name or generateName is required', reason: 'FieldValueRequired' }]);
    const b = this.bucket(gr);
    const k = objKey(meta.namespace, meta.name);
    if (b.has(k)) throw ApiError.alreadyExists(gr.group, gr.resource, meta.name);
    if (meta.resourceVersion) throw new ApiError(400, 'BadRequest', 'resourceVersion should not be set on objects to be created');
    const sv = this.storageVersion(gr);
    if (sv) obj.apiVersion = sv;
    obj.kind ??= this.kindOf(gr);
    meta.uid = randomUUID();
    meta.creationTimestamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    meta.generation = 1;
    meta.resourceVersion = String(++this.rv);
    delete meta.deletionTimestamp;
    b.set(k, obj);
    this.emit('ADDED', gr, obj);
    return structuredClone(obj);
  }

  private current(gr: GroupResource, obj: KubeObject): { b: Map<string, KubeObject>; k: string; old: KubeObject } {
    const name = obj.metadata?.name ?? '';
    const b = this.bucket(gr);
    const k = objKey(this.ns(gr, obj.metadata?.namespace), name);
    const old = b.get(k);
    if (!old) throw ApiError.notFound(gr.group, gr.resource, name);
    const rv = obj.metadata.resourceVersion;
    if (rv && rv !== old.metadata.resourceVersion) throw ApiError.conflict(gr.group, gr.resource, name);
    if (obj.metadata.uid && obj.metadata.uid !== old.metadata.uid) throw ApiError.conflict(gr.group, gr.resource, name, 'Precondition failed: UID in precondition does not match UID in object');
    return { b, k, old };
  }

  private commit(gr: GroupResource, b: Map<string, KubeObject>, k: string, old: KubeObject, next: KubeObject): KubeObject {
    if (canonicalJson(next) === canonicalJson(old)) return structuredClone(old); // no-op writes do not bump resourceVersion
    next.metadata.resourceVersion = String(++this.rv);
    // A terminating object whose last finalizer went away is removed.
    if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) {
      b.delete(k);
      this.emit('DELETED', gr, next);
      return structuredClone(next);
    }
    b.set(k, next);
    this.emit('MODIFIED', gr, next);
    return structuredClone(next);
  }

  update(gr: GroupResource, input: KubeObject): KubeObject {
    const { b, k, old } = this.current(gr, input);
    const next = structuredClone(input);
    // Immutable / server-owned metadata.
    next.metadata.uid = old.metadata.uid;
    next.metadata.namespace = old.metadata.namespace;
    next.metadata.creationTimestamp = old.metadata.creationTimestamp;
    next.metadata.deletionTimestamp = old.metadata.deletionTimestamp;
    next.metadata.generation = old.metadata.generation;
    next.apiVersion = old.apiVersion;
    next.kind = old.kind;
    // The status subresource exists: status changes through update are ignored.
    if (old.status !== undefined) next.status = structuredClone(old.status);
    else delete next.status;
    if (specJson(next) !== specJson(old)) next.metadata.generation = (old.metadata.generation ?? 1) + 1;
    return this.commit(gr, b, k, old, next);
  }

  updateStatus(gr: GroupResource, input: KubeObject): KubeObject {
    const { b, k, old } = this.current(gr, input);
    const next = structuredClone(old);
    if (input.status === undefined) delete next.status;
    else next.status = structuredClone(input.status);
    return this.commit(gr, b, k, old, next);
  }

  delete(gr: GroupResource, namespace: string | undefined, name: string): void {
    const b = this.bucket(gr);
    const k = objKey(this.ns(gr, namespace), name);
    const old = b.get(k);
    if (!old) throw ApiError.notFound(gr.group, gr.resource, name);
    if ((old.metadata.finalizers ?? []).length > 0) {
      if (old.metadata.deletionTimestamp) return;
      const next = structuredClone(old);
      next.metadata.deletionTimestamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      next.metadata.resourceVersion = String(++this.rv);
      b.set(k, next);
      this.emit('MODIFIED', gr, next);
      return;
    }
    b.delete(k);
    const gone = structuredClone(old);
    gone.metadata.resourceVersion = String(++this.rv);
    this.emit('DELETED', gr, gone);
  }

  subscribe(listener: (ev: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Test convenience: number of objects of a kind. */
  count(gr: GroupResource): number {
    return this.bucket(gr).size;
  }
}

/** Polls `check` until it returns a truthy value or the deadline passes (then throws with `what`). */
export async function waitFor<T>(what: string, check: () => T | undefined | false | null, timeoutMs = 5000, stepMs = 10): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
