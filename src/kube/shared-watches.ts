// One list+watch per resource and namespace for a gate that follows many objects at once (`rollout
// status -f` of a release): each observe() of one object (by name) or of a label selector becomes a
// subscription to the namespace's one observation of that resource, filtered here, where a client of
// its own would open one watch per object. Like client-go's shared informers, but kept small: the
// shared cache holds only the items some subscriber (or a declared interest) matches, shaped by
// `shape` (pods: the fields any verdict reads, labels kept for matching).
//
// A subscriber that arrives after the list and asks for items the list did not keep (a selector not
// declared before) makes the observation list again; the gate declares its pod selectors up front
// (from the manifest), so that does not happen in practice.
import type { KubeClient, KubeList, KubeObject, ListOptions, Observation, ObserveOptions, ResourceType, WatchEvent, WaitPolicy } from './client';
import { labelMatcher } from '../lib/label-selector';

type Filter = (o: KubeObject) => boolean;

export interface SharedWatchOptions {
  /** What the shared cache keeps of an item of this resource (default: the item as it came). */
  shape?: (rt: ResourceType, item: KubeObject) => KubeObject;
  /** Resources ("group/resource") whose plain list() (no selectors) is answered from the shared observation. */
  listFromWatch?: readonly string[];
}

interface Subscriber {
  key: string;
  filter: Filter;
  opts: ObserveOptions;
  onEvent: (ev: WatchEvent) => void | Promise<void>;
  /** Keys of the items this subscriber was given (an item leaving its selector is DELETED for it, as the API server does). */
  seen: Set<string>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const EVERYTHING = '*';

function itemKey(o: KubeObject): string {
  return o.metadata.uid ?? o.metadata.name ?? '';
}

function filterOf(opts: Pick<ObserveOptions, 'name' | 'labelSelector'>): { key: string; filter: Filter } {
  const byLabels = opts.labelSelector ? labelMatcher(opts.labelSelector) : undefined;
  const name = opts.name;
  if (name === undefined && !byLabels) return { key: EVERYTHING, filter: () => true };
  return {
    key: `${name ?? ''}|${opts.labelSelector ?? ''}`,
    filter: (o) => (name === undefined || o.metadata.name === name) && (!byLabels || byLabels(o.metadata.labels)),
  };
}

/** One resource in one namespace: one observation of the inner client, many subscribers. */
class Hub {
  private readonly subs = new Set<Subscriber>();
  private readonly cache = new Map<string, KubeObject>();
  /** Declared interests (kept by the list even before anyone subscribes to them), by filter key. */
  private readonly interests = new Map<string, Filter>();
  /** Filter keys the current list kept items for. */
  private covered = new Set<string>();
  private obs: Observation | undefined;
  private synced = false;
  /** Items the current list has read so far (before the first, a new subscriber joins it for free). */
  private mapped = 0;
  private trouble: unknown;
  /** Subscribers pinned for the whole command (listFromWatch): the observation outlives their list. */
  pinned = false;

  constructor(
    private readonly inner: KubeClient,
    private readonly rt: ResourceType,
    private readonly namespace: string | undefined,
    private readonly shape: (item: KubeObject) => KubeObject,
    /** Page size of the shared list (the first subscriber's). */
    public limit: number | undefined,
  ) {}

  declare(opts: Pick<ObserveOptions, 'name' | 'labelSelector'>): void {
    const { key, filter } = filterOf(opts);
    this.interests.set(key, filter);
  }

  subscribe(opts: ObserveOptions, onEvent: (ev: WatchEvent) => void | Promise<void>): Observation {
    const { key, filter } = filterOf(opts);
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const sub: Subscriber = { key, filter, opts, onEvent, seen: new Set(), resolve, reject };
    this.subs.add(sub);
    const stop = (): void => this.unsubscribe(sub);
    if (opts.signal?.aborted) stop();
    opts.signal?.addEventListener('abort', stop, { once: true });
    if (!this.obs) this.start();
    else if (!this.covers(key) && !this.synced && this.mapped === 0) this.covered.add(key); // no item read yet: the list keeps its items too
    else if (!this.covers(key)) this.restart();
    else if (this.synced) {
      // Joined after the list: its share of the cache, as its own list would have given it.
      queueMicrotask(() => {
        if (!this.subs.has(sub)) return;
        if (this.trouble !== undefined) sub.opts.onTrouble?.(this.trouble);
        void this.syncOne(sub);
      });
    }
    return { done, stop };
  }

  private covers(key: string): boolean {
    return this.covered.has(EVERYTHING) || this.covered.has(key);
  }

  private keeps(o: KubeObject): boolean {
    if (this.covered.has(EVERYTHING)) return true;
    for (const f of this.interests.values()) if (f(o)) return true;
    for (const s of this.subs) if (s.filter(o)) return true;
    return false;
  }

  private start(): void {
    this.covered = new Set([...this.interests.keys(), ...[...this.subs].map((s) => s.key)]);
    this.synced = false;
    this.mapped = 0;
    this.cache.clear();
    const obs: Observation = this.inner.observe(
      this.rt,
      this.namespace,
      {
        limit: this.limit,
        // Items no one asked for are left out of the list as it is read.
        mapItem: (item) => {
          this.mapped++;
          return this.keeps(item) ? this.shape(item) : undefined;
        },
        onTrouble: (err) => {
          this.trouble = err;
          for (const s of this.subs) s.opts.onTrouble?.(err);
        },
        onSync: async (items): Promise<void> => {
          if (this.obs !== obs) return;
          this.cache.clear();
          for (const item of items) this.cache.set(itemKey(item), item);
          this.synced = true;
          await Promise.all([...this.subs].map((s) => this.syncOne(s)));
        },
      },
      (ev) => (this.obs === obs ? this.event(ev) : undefined),
    );
    this.obs = obs;
    obs.done.then(
      () => undefined,
      (err: unknown) => {
        if (this.obs !== obs) return;
        this.obs = undefined;
        for (const s of [...this.subs]) {
          this.subs.delete(s);
          s.reject(err);
        }
      },
    );
  }

  /** A subscriber needs items the current list did not keep: list again (everyone gets the new list). */
  private restart(): void {
    const old = this.obs;
    this.obs = undefined;
    old?.stop();
    this.start();
  }

  private async syncOne(s: Subscriber): Promise<void> {
    const mine: KubeObject[] = [];
    s.seen.clear();
    for (const [key, item] of this.cache) {
      if (!s.filter(item)) continue;
      s.seen.add(key);
      const mapped = s.opts.mapItem ? s.opts.mapItem(item) : item;
      if (mapped) mine.push(mapped);
    }
    await s.opts.onSync?.(mine);
  }

  private async event(ev: WatchEvent): Promise<void> {
    const key = itemKey(ev.object);
    const deleted = ev.type === 'DELETED';
    const item = this.shape(ev.object);
    if (!deleted && this.keeps(ev.object)) this.cache.set(key, item);
    else this.cache.delete(key);
    for (const s of [...this.subs]) {
      const had = s.seen.has(key);
      const matches = !deleted && s.filter(item);
      let type: WatchEvent['type'] | undefined;
      if (matches) type = had ? ev.type : 'ADDED';
      else if (had || (deleted && s.filter(item))) type = 'DELETED';
      if (!type) continue;
      if (type === 'DELETED') s.seen.delete(key);
      else s.seen.add(key);
      const object = s.opts.mapItem ? s.opts.mapItem(item) : item;
      if (object) await s.onEvent({ type, object });
    }
  }

  private unsubscribe(s: Subscriber): void {
    if (!this.subs.delete(s)) return;
    s.resolve();
    if (this.subs.size > 0 || this.pinned) return;
    // No one left: the watch ends (a finished workload's pods are not followed for nothing).
    this.obs?.stop();
    this.obs = undefined;
    this.cache.clear();
    this.synced = false;
  }

  /** Starts the observation now (its list overlapping other requests), kept until close(). */
  prestart(): void {
    this.pinned = true;
    if (!this.obs) this.start();
  }

  /** Every item (the whole namespace's list of this resource), for listFromWatch. */
  snapshot(signal?: AbortSignal): Promise<KubeObject[]> {
    this.pinned = true;
    return new Promise((resolve, reject) => {
      const obs = this.subscribe(
        {
          signal,
          onSync: (items) => {
            resolve(items);
          },
        },
        () => undefined,
      );
      obs.done.then(() => undefined, reject);
    });
  }

  close(): void {
    this.pinned = false;
    for (const s of [...this.subs]) this.unsubscribe(s);
    this.obs?.stop();
    this.obs = undefined;
  }
}

/** A KubeClient whose observe() shares one list+watch per resource and namespace; everything else goes to the inner client. */
export class SharedWatchClient implements KubeClient {
  private readonly hubs = new Map<string, Hub>();

  constructor(
    private readonly inner: KubeClient,
    private readonly options: SharedWatchOptions = {},
  ) {}

  get namespace(): string {
    return this.inner.namespace;
  }
  get server(): string {
    return this.inner.server;
  }
  get userName(): string {
    return this.inner.userName;
  }

  /** Items matching `opts` are kept by the shared list from the start (so a later observe() of them needs no list of its own). */
  declare(rt: ResourceType, namespace: string | undefined, opts: Pick<ObserveOptions, 'name' | 'labelSelector'>): void {
    this.hub(rt, namespace, undefined).declare(opts);
  }

  /** Lists the declared items of this resource now, so that the list overlaps what comes before the watches (their observe() joins it). */
  prestart(rt: ResourceType, namespace: string | undefined, limit?: number): void {
    this.hub(rt, namespace, limit).prestart();
  }

  observe<T extends KubeObject = KubeObject>(rt: ResourceType, namespace: string | undefined, opts: ObserveOptions, onEvent: (ev: WatchEvent<T>) => void | Promise<void>): Observation {
    // A field selector (other than the name) or a resourceVersion is the caller's own watch.
    if (opts.fieldSelector || opts.resourceVersion) return this.inner.observe(rt, namespace, opts, onEvent);
    return this.hub(rt, namespace, opts.limit).subscribe(opts, onEvent as (ev: WatchEvent) => void | Promise<void>);
  }

  async list<T extends KubeObject = KubeObject>(rt: ResourceType, namespace: string | undefined, opts?: ListOptions): Promise<KubeList<T>> {
    const plain = !opts?.labelSelector && !opts?.fieldSelector && !opts?.resourceVersion && !opts?.mapItem;
    if (!plain || !this.options.listFromWatch?.includes(`${rt.group}/${rt.resource}`)) return this.inner.list<T>(rt, namespace, opts);
    const items = await this.hub(rt, namespace, undefined).snapshot(opts?.signal);
    return { apiVersion: rt.group ? `${rt.group}/${rt.version}` : rt.version, kind: `${rt.kind}List`, metadata: {}, items: items as T[] };
  }

  private hub(rt: ResourceType, namespace: string | undefined, limit: number | undefined): Hub {
    const key = `${rt.group}/${rt.resource}/${namespace ?? ''}`;
    let hub = this.hubs.get(key);
    if (!hub) {
      const shape = this.options.shape;
      hub = new Hub(this.inner, rt, namespace, shape ? (item) => shape(rt, item) : (item) => item, limit);
      this.hubs.set(key, hub);
    }
    hub.limit ??= limit;
    return hub;
  }

  resolve(type: string): Promise<ResourceType> {
    return this.inner.resolve(type);
  }
  isServed(group: string, resource: string): Promise<boolean> {
    return this.inner.isServed(group, resource);
  }
  discovered(group: string, resource: string): Promise<ResourceType | undefined> {
    return this.inner.discovered(group, resource);
  }
  get: KubeClient['get'] = (rt, name, namespace, opts) => this.inner.get(rt, name, namespace, opts);
  listTable: KubeClient['listTable'] = (rt, namespace, opts) => this.inner.listTable(rt, namespace, opts);
  create: KubeClient['create'] = (rt, obj, namespace, opts) => this.inner.create(rt, obj, namespace, opts);
  update: KubeClient['update'] = (rt, obj, namespace, opts) => this.inner.update(rt, obj, namespace, opts);
  patch: KubeClient['patch'] = (rt, name, type, body, namespace, opts) => this.inner.patch(rt, name, type, body, namespace, opts);
  delete: KubeClient['delete'] = (rt, name, namespace, opts) => this.inner.delete(rt, name, namespace, opts);
  raw: KubeClient['raw'] = (path, opts) => this.inner.raw(path, opts);
  exec: KubeClient['exec'] = (req, io) => this.inner.exec(req, io);
  podLog: NonNullable<KubeClient['podLog']> = (namespace, pod, opts) => {
    if (!this.inner.podLog) return Promise.reject(new Error('this client cannot read pod logs'));
    return this.inner.podLog(namespace, pod, opts);
  };
  configureWaits(policy: WaitPolicy): void {
    this.inner.configureWaits?.(policy);
  }
  waitTrouble(): unknown {
    return this.inner.waitTrouble?.();
  }

  /** Ends every shared watch; the inner client stays open (its owner closes it). */
  stopWatches(): void {
    for (const hub of this.hubs.values()) hub.close();
  }

  close(): void {
    this.stopWatches();
    this.inner.close();
  }
}
