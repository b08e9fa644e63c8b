// Owner-reference garbage collection, like kube-controller-manager's garbagecollector:
// - background: once an owner is gone, dependents whose owners are all gone are deleted;
//   a dependent with another live owner only loses the dangling reference;
// - `orphan` finalizer on a terminating owner (propagationPolicy=Orphan): owner references
//   to it are removed from its dependents, then the finalizer;
// - `foregroundDeletion` finalizer (propagationPolicy=Foreground): dependents are deleted
//   first, and the finalizer is removed once none is left.
// A Foreground DELETE gets the `foregroundDeletion` finalizer from the store, as on a real
// server; an Orphan DELETE has the store strip the owner references at once (store.ts,
// orphanDependents), so the `orphan` path here serves clients that set that finalizer
// themselves. Dependents are indexed by owner UID, so a deletion costs O(dependents).
import type { ControllerWithAdmission, GroupResource, SimulationSettings, Store, StoreEvent } from '../store-api';
import { WorkQueue } from './queue';

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

interface Ref {
  gr: GroupResource;
  namespace: string | undefined;
  name: string;
}

function refId(ref: Ref): string {
  return `${ref.gr.resource}.${ref.gr.group}/${ref.namespace ?? ''}/${ref.name}`;
}

export function createGarbageCollector(): ControllerWithAdmission {
  let store: Store;
  let unsubscribe: (() => void) | undefined;
  let queue: WorkQueue;
  const live = new Map<string, Ref>(); // uid → object
  const dependents = new Map<string, Map<string, Ref>>(); // owner uid → dependents
  const ownersOf = new Map<string, string[]>(); // dependent refId → owner uids
  const gone = new Set<string>(); // uids seen deleted, to catch dependents created late

  function index(ev: StoreEvent): void {
    const obj = ev.object;
    const ref: Ref = { gr: ev.gr, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' };
    const id = refId(ref);
    const uid = obj.metadata.uid;
    for (const owner of ownersOf.get(id) ?? []) {
      const m = dependents.get(owner);
      m?.delete(id);
      if (m && m.size === 0) dependents.delete(owner);
    }
    ownersOf.delete(id);
    if (ev.type === 'DELETED') {
      if (uid) {
        live.delete(uid);
        // Remembered so a dependent created after its owner vanished is still collected.
        if (gone.size > 100_000) gone.clear();
        gone.add(uid);
        queue.add(`gone:${uid}`);
      }
      // A dependent vanished: an owner waiting in foreground deletion may be done.
      for (const r of obj.metadata.ownerReferences ?? []) if (live.has(r.uid)) queue.add(`fg:${r.uid}`);
      return;
    }
    if (uid) live.set(uid, ref);
    const owners = (obj.metadata.ownerReferences ?? []).map((r) => r.uid).filter(Boolean);
    if (owners.length > 0) {
      ownersOf.set(id, owners);
      for (const o of owners) {
        let m = dependents.get(o);
        if (!m) dependents.set(o, (m = new Map()));
        m.set(id, ref);
        if (gone.has(o)) queue.add(`gone:${o}`);
      }
    }
    const finalizers = obj.metadata.finalizers ?? [];
    if (obj.metadata.deletionTimestamp && uid) {
      if (finalizers.includes(ORPHAN_FINALIZER)) queue.add(`orphan:${uid}`);
      if (finalizers.includes(FOREGROUND_FINALIZER)) queue.add(`fg:${uid}`);
    }
  }

  function refsOf(uid: string): Ref[] {
    return [...(dependents.get(uid)?.values() ?? [])];
  }

  function removeFinalizer(uid: string, finalizer: string): void {
    const ref = live.get(uid);
    if (!ref) return;
    const owner = store.get(ref.gr, ref.namespace, ref.name);
    if (!owner || !(owner.metadata.finalizers ?? []).includes(finalizer)) return;
    store.update(ref.gr, { ...owner, metadata: { ...owner.metadata, finalizers: (owner.metadata.finalizers ?? []).filter((f) => f !== finalizer) } });
  }

  function reconcile(key: string): void {
    const [kind, uid] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    if (kind === 'gone') {
      for (const ref of refsOf(uid)) {
        const dep = store.get(ref.gr, ref.namespace, ref.name);
        if (!dep) continue;
        const refs = dep.metadata.ownerReferences ?? [];
        if (!refs.some((r) => r.uid === uid)) continue;
        const others = refs.filter((r) => r.uid !== uid && !gone.has(r.uid));
        if (others.length > 0 && others.some((r) => live.has(r.uid))) {
          store.update(ref.gr, { ...dep, metadata: { ...dep.metadata, ownerReferences: refs.filter((r) => r.uid !== uid) } });
        } else if (!dep.metadata.deletionTimestamp) {
          store.delete(ref.gr, ref.namespace, ref.name);
        }
      }
      return;
    }
    if (kind === 'orphan') {
      // Each ref carries its dependent's kind: one pass, not a search of the refs per dependent.
      for (const ref of refsOf(uid)) {
        const dep = store.get(ref.gr, ref.namespace, ref.name);
        if (!dep || !(dep.metadata.ownerReferences ?? []).some((r) => r.uid === uid)) continue;
        store.update(ref.gr, { ...dep, metadata: { ...dep.metadata, ownerReferences: (dep.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid) } });
      }
      removeFinalizer(uid, ORPHAN_FINALIZER);
      return;
    }
    if (kind === 'fg') {
      const ref = live.get(uid);
      const owner = ref && store.get(ref.gr, ref.namespace, ref.name);
      if (!owner || !owner.metadata.deletionTimestamp || !(owner.metadata.finalizers ?? []).includes(FOREGROUND_FINALIZER)) return;
      const remaining = refsOf(uid).filter((r) => store.get(r.gr, r.namespace, r.name));
      for (const r of remaining) {
        const dep = store.get(r.gr, r.namespace, r.name);
        if (dep && !dep.metadata.deletionTimestamp) store.delete(r.gr, r.namespace, r.name);
      }
      const blocking = refsOf(uid).filter((r) => store.get(r.gr, r.namespace, r.name));
      if (blocking.length === 0) removeFinalizer(uid, FOREGROUND_FINALIZER);
    }
  }

  return {
    name: 'garbage-collector',
    start(s: Store, _settings: SimulationSettings) {
      store = s;
      queue = new WorkQueue('garbage-collector', reconcile);
      unsubscribe = store.subscribe(index);
    },
    stop() {
      unsubscribe?.();
      queue?.stop();
    },
  };
}
