// Kruise Rollout master's native-daemonset-controller (openkruise/rollouts master
// pkg/controller/nativedaemonset/nativedaemonset_controller.go) in the sandbox, with --kruise-rollout
// master only: for an apps/v1 DaemonSet carrying the daemonset-advanced-control annotation (a batch of
// a release, written by the BatchRelease), it deletes old pods so that the DaemonSet controller, under
// OnDelete, recreates them at the batch's revision. Rules: src/kruise/rollout/native-daemonset-pods.ts.
//
// Like upstream it wakes on a change of that annotation, or of the status of an annotated DaemonSet,
// never on pod events. Upstream's expectations wait until its deletions are seen; here the informers
// are synchronous and the DaemonSet controller recreates a deleted pod in the sync that writes the
// status this controller wakes on, so it always counts the replacement.
import { DAEMONSET_ADVANCED_CONTROL_ANNOTATION } from '../../kruise/rollout/native-daemonset-annotations';
import { nativeDaemonSetPodsToDelete } from '../../kruise/rollout/native-daemonset-pods';
import type { KubeObject, Pod } from '../../kruise/types';
import type { Controller, SimulationSettings, Store } from '../store-api';
import { DAEMONSETS } from './daemonset';
import { Informer } from './informer';
import { PODS, controllerOf, keyOf } from './pods';
import { WorkQueue } from './queue';

const controlOf = (ds: KubeObject | undefined): string | undefined => ds?.metadata.annotations?.[DAEMONSET_ADVANCED_CONTROL_ANNOTATION];

export function createRolloutNativeDaemonSetController(): Controller {
  let store: Store | undefined;
  let queue: WorkQueue | undefined;
  const sets = new Informer(DAEMONSETS);
  const pods = new Informer<Pod>(PODS);

  function reconcile(key: string): void {
    if (!store) return;
    const ds = sets.get(key);
    if (!ds || !controlOf(ds)) return;
    // util.ListOwnedPods: terminating pods count, completed ones do not
    const owned = pods.ownedBy(ds.metadata.uid).filter((p) => controllerOf(p)?.uid === ds.metadata.uid && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
    for (const pod of nativeDaemonSetPodsToDelete(ds, owned).pods) {
      if (pod.metadata.deletionTimestamp) continue;
      try {
        store.delete(PODS, pod.metadata.namespace, pod.metadata.name ?? '');
      } catch {
        // already gone
      }
    }
  }

  return {
    name: 'kruise-rollout-native-daemonset-controller',
    start(s: Store, settings: SimulationSettings) {
      // earlier Kruise Rollout releases have no such controller
      if (settings.kruiseRollout !== 'master') return;
      store = s;
      queue = new WorkQueue('kruise-rollout-native-daemonset', reconcile);
      sets.on((type, ds, old) => {
        if (type === 'DELETED') return;
        const control = controlOf(ds);
        // add(): a changed partition annotation, or any status change while the annotation is there
        if (control !== controlOf(old) || (control !== undefined && JSON.stringify(ds.status ?? {}) !== JSON.stringify(old?.status ?? {}))) queue?.add(keyOf(ds));
      });
      pods.start(s);
      sets.start(s);
    },
    stop() {
      queue?.stop();
      sets.stop();
      pods.stop();
    },
  };
}
