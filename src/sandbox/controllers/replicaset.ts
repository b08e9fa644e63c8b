// ReplicaSet controller (apps/v1), as kube-controller-manager runs it: keeps spec.replicas
// active pods labelled from the template, deletes surplus pods least-valuable first
// (unscheduled, pending, not ready, newest), and reports replicas / fullyLabeledReplicas /
// readyReplicas / availableReplicas (minReadySeconds) / observedGeneration.
import { labelSelectorMatches } from '../../kruise/selectors';
import type { KubeObject, Pod, PodTemplate } from '../../kruise/types';
import type { ControllerWithAdmission, GroupResource, Store } from '../store-api';
import { Informer } from './informer';
import {
  PODS,
  controllerOf,
  isPodActive,
  isPodReady,
  keyOf,
  newPodFromTemplate,
  parseKubeTime,
  podCondition,
  type LabelSelector,
} from './pods';
import { nativeController } from './native-wiring';
import type { WorkQueue } from './queue';
import { countAvailable, writeStatusIfChanged } from './workload-status';
import { compareText } from '../../lib/compare';

export const REPLICASETS: GroupResource = { group: 'apps', resource: 'replicasets' };

interface ReplicaSetSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: LabelSelector;
  template?: PodTemplate;
}

/** Rank for deletion, lowest deleted first (kube's ActivePodsWithRanks, simplified). */
export function podDeletionRank(a: Pod, b: Pod): number {
  const assigned = (p: Pod) => (p.spec.nodeName ? 1 : 0);
  if (assigned(a) !== assigned(b)) return assigned(a) - assigned(b);
  const phaseRank = (p: Pod) => (p.status?.phase === 'Pending' ? 0 : p.status?.phase === 'Running' ? 2 : 1);
  if (phaseRank(a) !== phaseRank(b)) return phaseRank(a) - phaseRank(b);
  const ready = (p: Pod) => (isPodReady(p) ? 1 : 0);
  if (ready(a) !== ready(b)) return ready(a) - ready(b);
  if (isPodReady(a) && isPodReady(b)) {
    // Ready more recently → deleted first.
    const ta = parseKubeTime(podCondition(a, 'Ready')?.lastTransitionTime) ?? 0;
    const tb = parseKubeTime(podCondition(b, 'Ready')?.lastTransitionTime) ?? 0;
    if (ta !== tb) return tb - ta;
  }
  const restarts = (p: Pod) => (p.status?.containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0);
  if (restarts(a) !== restarts(b)) return restarts(b) - restarts(a);
  const ca = parseKubeTime(a.metadata.creationTimestamp) ?? 0;
  const cb = parseKubeTime(b.metadata.creationTimestamp) ?? 0;
  if (ca !== cb) return cb - ca;
  return compareText(b.metadata.name ?? '', a.metadata.name ?? '');
}

export function createReplicaSetController(): ControllerWithAdmission {
  let store: Store;
  const sets = new Informer(REPLICASETS);
  const pods = new Informer<Pod>(PODS);
  let queue: WorkQueue;

  function reconcile(key: string): void {
    const rs = sets.get(key);
    if (!rs || rs.metadata.deletionTimestamp) return;
    const spec = (rs.spec ?? {}) as ReplicaSetSpec;
    const desired = spec.replicas ?? 1;
    const owned = pods.ownedBy(rs.metadata.uid).filter((p) => controllerOf(p)?.uid === rs.metadata.uid);
    const active = owned.filter(isPodActive);
    const diff = desired - active.length;
    if (diff > 0 && spec.template) {
      for (let i = 0; i < diff; i++) store.create(PODS, newPodFromTemplate(spec.template, rs, { namePrefix: `${rs.metadata.name}-` }));
    } else if (diff < 0) {
      for (const p of [...active].sort(podDeletionRank).slice(0, -diff)) {
        store.delete(PODS, p.metadata.namespace, p.metadata.name ?? '');
      }
    }
    writeStatus(rs, spec);
  }

  function writeStatus(rs: KubeObject, spec: ReplicaSetSpec): void {
    const now = Date.now();
    const minReady = spec.minReadySeconds ?? 0;
    const active = pods.ownedBy(rs.metadata.uid).filter((p) => controllerOf(p)?.uid === rs.metadata.uid && isPodActive(p));
    const templateLabels = spec.template?.metadata?.labels ?? {};
    const { available, recheckMs } = countAvailable(active, minReady, now);
    const status: Record<string, unknown> = {
      replicas: active.length,
      fullyLabeledReplicas: active.filter((p) => labelSelectorMatches({ matchLabels: templateLabels }, p.metadata.labels)).length,
      readyReplicas: active.filter(isPodReady).length,
      availableReplicas: available,
      observedGeneration: rs.metadata.generation,
    };
    writeStatusIfChanged(store, REPLICASETS, rs, status, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']);
    if (recheckMs > 0) queue.addAfter(keyOf(rs), recheckMs + 5);
  }

  return nativeController({
    name: 'replicaset',
    workloads: sets,
    owned: [pods],
    owner: { kind: 'ReplicaSet' },
    attach: (s, q) => {
      store = s;
      queue = q;
    },
    reconcile,
  });
}

