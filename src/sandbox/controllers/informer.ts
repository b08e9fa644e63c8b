// A synchronous cache of one kind, fed by store notifications, with indexes by controller
// owner UID and by node name. Because the store notifies synchronously, the cache is always
// exactly the store's state: controllers need no "expectations" bookkeeping, and lookups of a
// workload's pods are O(pods of that workload) instead of a full list per event.
import type { KubeObject } from '../../kruise/types';
import type { GroupResource, Store, StoreEvent } from '../store-api';
import { keyOf } from './pods';

export type InformerHandler<T extends KubeObject = KubeObject> = (type: StoreEvent['type'], obj: T, old: T | undefined) => void;

export function sameGroupResource(a: GroupResource, b: GroupResource): boolean {
  return a.group === b.group && a.resource === b.resource;
}

export class Informer<T extends KubeObject = KubeObject> {
  private readonly objects = new Map<string, T>();
  private readonly byOwnerUid = new Map<string, Map<string, T>>();
  private readonly byNodeName = new Map<string, Map<string, T>>();
  private readonly handlers: InformerHandler<T>[] = [];
  private unsubscribe: (() => void) | undefined;

  constructor(readonly gr: GroupResource) {}

  start(store: Store): this {
    this.unsubscribe = store.subscribe((ev) => {
      if (sameGroupResource(ev.gr, this.gr)) this.apply(ev.type, ev.object as T);
    });
    for (const obj of store.list(this.gr)) this.apply('ADDED', obj as T);
    return this;
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  on(handler: InformerHandler<T>): this {
    this.handlers.push(handler);
    return this;
  }

  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  all(): IterableIterator<T> {
    return this.objects.values();
  }

  get size(): number {
    return this.objects.size;
  }

  /** Objects with an owner reference (controller or not) to this UID. */
  ownedBy(uid: string | undefined): T[] {
    if (!uid) return [];
    const m = this.byOwnerUid.get(uid);
    return m ? [...m.values()] : [];
  }

  /** Pods (or anything with spec.nodeName) bound to a node. */
  onNode(nodeName: string): T[] {
    const m = this.byNodeName.get(nodeName);
    return m ? [...m.values()] : [];
  }

  countOnNode(nodeName: string): number {
    return this.byNodeName.get(nodeName)?.size ?? 0;
  }

  private apply(type: StoreEvent['type'], obj: T): void {
    const key = keyOf(obj);
    const old = this.objects.get(key);
    if (old) this.unindex(key, old);
    if (type === 'DELETED') this.objects.delete(key);
    else {
      this.objects.set(key, obj);
      this.index(key, obj);
    }
    for (const h of this.handlers) h(type, obj, old);
  }

  private index(key: string, obj: T): void {
    for (const uid of ownerUids(obj)) addTo(this.byOwnerUid, uid, key, obj);
    const node = nodeNameOf(obj);
    if (node) addTo(this.byNodeName, node, key, obj);
  }

  private unindex(key: string, obj: T): void {
    for (const uid of ownerUids(obj)) removeFrom(this.byOwnerUid, uid, key);
    const node = nodeNameOf(obj);
    if (node) removeFrom(this.byNodeName, node, key);
  }
}

function ownerUids(obj: KubeObject): string[] {
  return (obj.metadata.ownerReferences ?? []).map((r) => r.uid).filter((u) => Boolean(u));
}

function nodeNameOf(obj: KubeObject): string | undefined {
  const spec = obj.spec as { nodeName?: string } | undefined;
  return spec?.nodeName || undefined;
}

function addTo<T>(index: Map<string, Map<string, T>>, k: string, key: string, obj: T): void {
  let m = index.get(k);
  if (!m) index.set(k, (m = new Map()));
  m.set(key, obj);
}

function removeFrom<T>(index: Map<string, Map<string, T>>, k: string, key: string): void {
  const m = index.get(k);
  if (!m) return;
  m.delete(key);
  if (m.size === 0) index.delete(k);
}
