// The wiring kube-controller-manager's workload controllers share in the sandbox (Deployment,
// ReplicaSet, StatefulSet, DaemonSet), so each module holds only its reconcile: a work queue
// named after the controller, the workload's own events, and events of the objects it controls
// re-syncing their controller owner.
import type { KubeObject } from '../../kruise/types';
import type { ControllerWithAdmission, SimulationSettings, Store, StoreEvent } from '../store-api';
import type { Informer } from './informer';
import { controllerOf, keyOf, objectKey } from './pods';
import { WorkQueue, type Reconcile } from './queue';

/** What the wiring needs of a cache of any kind (an Informer<Pod> is one too). */
interface OwnedCache {
  on(handler: (type: StoreEvent['type'], obj: KubeObject) => void): unknown;
  start(store: Store): unknown;
  stop(): void;
}

export interface NativeControllerParts {
  /** Controller name, also its work queue's. */
  name: string;
  /** The workload kind's cache: every change but a deletion re-syncs that object. */
  workloads: Informer;
  /** Caches of objects the workload controls (pods, revisions, ReplicaSets). */
  owned: OwnedCache[];
  /** The controller owner kind to re-sync, and its apiVersion when another group reuses the kind (Kruise StatefulSet). */
  owner: { kind: string; apiVersion?: string };
  /** Caches whose every change re-syncs every workload (DaemonSet: nodes). */
  resyncAllOn?: Informer[];
  /** Hands the store and queue to the reconcile closure when the controller starts. */
  attach(store: Store, queue: WorkQueue): void;
  reconcile: Reconcile;
}

/**
 * Caches start in the order: resyncAllOn, owned (as listed), then the workloads, so that the
 * workloads' initial events find the caches their reconcile reads already filled.
 */
export function nativeController(parts: NativeControllerParts): ControllerWithAdmission {
  const { workloads, owned, owner } = parts;
  const extra = parts.resyncAllOn ?? [];
  let queue: WorkQueue | undefined;
  return {
    name: parts.name,
    start(store: Store, _settings: SimulationSettings) {
      const q = new WorkQueue(parts.name, parts.reconcile);
      queue = q;
      parts.attach(store, q);
      workloads.on((type, obj) => {
        if (type !== 'DELETED') q.add(keyOf(obj));
      });
      const enqueueOwner = (_type: string, obj: KubeObject) => {
        const ref = controllerOf(obj);
        if (ref?.kind === owner.kind && (owner.apiVersion === undefined || ref.apiVersion === owner.apiVersion)) q.add(objectKey(obj.metadata.namespace, ref.name));
      };
      for (const inf of owned) inf.on(enqueueOwner);
      for (const inf of extra) {
        inf.on(() => {
          for (const obj of workloads.all()) q.add(keyOf(obj));
        });
      }
      for (const inf of [...extra, ...owned, workloads]) inf.start(store);
    },
    stop() {
      queue?.stop();
      for (const inf of [workloads, ...owned, ...extra]) inf.stop();
    },
  };
}
