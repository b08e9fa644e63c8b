// One store subscription for all watch streams: each store event is handed to the watchers of
// its resource with a per-event cache, so the JSON line of an event is built once per (served
// version, event type) and the same bytes are written to every stream that wants them.
import type { KubeObject } from '../../kruise/types';
import type { MemoryStore, StoredEvent } from './store';

/** Serialized lines of one event, shared by the watchers it is delivered to. */
export class SharedLines {
  private readonly lines = new Map<string, Buffer>();

  /** The line for `key`, built by `build` the first time any watcher asks. */
  get(key: string, build: () => string): Buffer {
    let b = this.lines.get(key);
    if (!b) this.lines.set(key, (b = Buffer.from(build())));
    return b;
  }
}

export interface HubWatcher {
  deliver(ev: StoredEvent, shared: SharedLines): void;
}

class WatchHub {
  private readonly byResource = new Map<string, Set<HubWatcher>>();

  constructor(store: MemoryStore) {
    store.subscribeRaw((ev) => {
      const watchers = this.byResource.get(`${ev.gr.group}/${ev.gr.resource}`);
      if (!watchers || watchers.size === 0) return;
      const shared = new SharedLines();
      // A watcher closed while delivering (its queue overflowed) removes itself: iterate a copy.
      for (const w of [...watchers]) w.deliver(ev, shared);
    });
  }

  add(group: string, resource: string, w: HubWatcher): () => void {
    const key = `${group}/${resource}`;
    let set = this.byResource.get(key);
    if (!set) this.byResource.set(key, (set = new Set()));
    set.add(w);
    return () => set.delete(w);
  }
}

const hubs = new WeakMap<MemoryStore, WatchHub>();

export function watchHub(store: MemoryStore): WatchHub {
  let hub = hubs.get(store);
  if (!hub) hubs.set(store, (hub = new WatchHub(store)));
  return hub;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * What a filtered watch sends for a store event (kube's cacheWatcher.convertToWatchEvent,
 * apiserver pkg/storage/cacher/cache_watcher.go): the new object passes and the old did not →
 * ADDED; both pass → MODIFIED; only the old passed → DELETED carrying the old object at the
 * event's resourceVersion; neither → nothing.
 */
export function filteredEvent(
  type: WatchEventType,
  object: KubeObject,
  prev: KubeObject | undefined,
  passes: (o: KubeObject) => boolean,
): { type: WatchEventType; object: KubeObject; leaving: boolean } | undefined {
  const cur = type !== 'DELETED' && passes(object);
  const old = type === 'ADDED' ? false : passes(prev ?? object);
  if (cur && !old) return { type: 'ADDED', object, leaving: false };
  if (cur && old) return { type: 'MODIFIED', object, leaving: false };
  if (!cur && old) {
    if (type === 'DELETED' || !prev) return { type: 'DELETED', object, leaving: false };
    return { type: 'DELETED', object: { ...prev, metadata: { ...prev.metadata, resourceVersion: object.metadata.resourceVersion } }, leaving: true };
  }
  return undefined;
}
