// DaemonSet controller (apps/v1): one pod per eligible node (nodeSelector / required node
// affinity of the template), pinned like kube does with a required node affinity on
// `metadata.name` (the scheduler then binds it). RollingUpdate with maxUnavailable (default 1)
// or maxSurge (new pod first, old one removed once the new one is available), OnDelete,
// ControllerRevisions, and the status `kubectl rollout status daemonset/x` reads.
import type { KubeObject, Pod, PodTemplate } from '../../kruise/types';
import type { ControllerWithAdmission, GroupResource, Store } from '../store-api';
import { daemonSetRollingLimits } from '../../kruise/partition';
import { semanticForm } from './hash';
import { Informer } from './informer';
import { ownedRevisions, syncUpdateRevision } from './native-revisions';
import { pruneRevisions } from './revisions';
import {
  CONTROLLER_REVISIONS,
  NODES,
  PODS,
  controllerOf,
  isPodActive,
  isPodAvailable,
  isPodReady,
  keyOf,
  newPodFromTemplate,
  scaledIntOrPercent,
  type LabelSelector,
} from './pods';
import { nativeController } from './native-wiring';
import type { WorkQueue } from './queue';
import { countAvailable, writeStatusIfChanged } from './workload-status';
import { nodeFitsPod } from './scheduler';

export const DAEMONSETS: GroupResource = { group: 'apps', resource: 'daemonsets' };
const REVISION_LABEL = 'controller-revision-hash';
const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';

interface DaemonSetSpec {
  selector?: LabelSelector;
  template?: PodTemplate;
  updateStrategy?: { type?: 'RollingUpdate' | 'OnDelete'; rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string } };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
}

/** The node a daemon pod is meant for: spec.nodeName, or its metadata.name node affinity. */
export function daemonPodTargetNode(pod: Pod): string | undefined {
  if (pod.spec.nodeName) return pod.spec.nodeName;
  const terms = (pod.spec.affinity as { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: Array<{ matchFields?: Array<{ key: string; operator: string; values?: string[] }> }> } } } | undefined)
    ?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  for (const t of terms ?? []) for (const f of t.matchFields ?? []) if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
  return undefined;
}

/** Template spec with its node affinity replaced by "this node only" (util.ReplaceDaemonSetPodNodeNameNodeAffinity). */
function pinToNode(template: PodTemplate, node: string): PodTemplate {
  const t = structuredClone(template);
  const affinity = (t.spec.affinity ?? {}) as Record<string, unknown>;
  affinity.nodeAffinity = {
    requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] },
  };
  t.spec.affinity = affinity;
  const tolerations = (t.spec.tolerations as Array<Record<string, unknown>> | undefined) ?? [];
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable', 'node.kubernetes.io/disk-pressure', 'node.kubernetes.io/memory-pressure', 'node.kubernetes.io/pid-pressure', 'node.kubernetes.io/unschedulable']) {
    if (!tolerations.some((x) => x.key === key)) tolerations.push({ key, operator: 'Exists', effect: key.endsWith('ready') || key.endsWith('unreachable') ? 'NoExecute' : 'NoSchedule' });
  }
  t.spec.tolerations = tolerations;
  return t;
}

export function createDaemonSetController(): ControllerWithAdmission {
  let store: Store;
  const sets = new Informer(DAEMONSETS);
  const pods = new Informer<Pod>(PODS);
  const nodes = new Informer(NODES);
  const revisions = new Informer(CONTROLLER_REVISIONS);
  let queue: WorkQueue;

  function reconcile(key: string): void {
    const ds = sets.get(key);
    if (!ds || ds.metadata.deletionTimestamp || !(ds.spec as DaemonSetSpec | undefined)?.template) return;
    const spec = ds.spec as DaemonSetSpec;
    const template = spec.template!;
    const { update, hash, all } = syncUpdateRevision(store, revisions, ds, semanticForm(template), 0, REVISION_LABEL);
    const now = Date.now();
    const minReady = spec.minReadySeconds ?? 0;
    const eligible = [...nodes.all()].filter((n) => nodeFitsPod(template.spec, n)).map((n) => n.metadata.name ?? '');
    const eligibleSet = new Set(eligible);
    const owned = pods.ownedBy(ds.metadata.uid).filter((p) => controllerOf(p)?.uid === ds.metadata.uid);
    const byNode = new Map<string, Pod[]>();
    for (const p of owned) {
      const n = daemonPodTargetNode(p);
      if (!n) continue;
      if (!byNode.has(n)) byNode.set(n, []);
      byNode.get(n)!.push(p);
    }
    const isNew = (p: Pod) => p.metadata.labels?.[REVISION_LABEL] === hash;
    const create = (node: string) =>
      store.create(
        PODS,
        newPodFromTemplate(pinToNode(template, node), ds, {
          labels: { [REVISION_LABEL]: hash, [TEMPLATE_GENERATION_LABEL]: String(ds.metadata.generation ?? 1) },
        }),
      );

    // Placement: a pod on every eligible node, none elsewhere; failed pods are replaced.
    for (const node of eligible) {
      const here = (byNode.get(node) ?? []).filter(isPodActive);
      for (const p of byNode.get(node) ?? []) if (!isPodActive(p) && !p.metadata.deletionTimestamp) store.delete(PODS, p.metadata.namespace, p.metadata.name ?? '');
      if (here.length === 0) create(node);
    }
    for (const [node, list] of byNode) {
      if (eligibleSet.has(node)) continue;
      for (const p of list) if (!p.metadata.deletionTimestamp) store.delete(PODS, p.metadata.namespace, p.metadata.name ?? '');
    }

    if ((spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
      const desired = eligible.length;
      const ru = spec.updateStrategy?.rollingUpdate ?? {};
      const { maxSurge, maxUnavailable } = nativeDaemonSetLimits(ru, desired);
      const active = (node: string) => (byNode.get(node) ?? []).filter((p) => isPodActive(p));
      if (maxSurge === 0) {
        // Delete old pods while the number of nodes without an available pod stays within maxUnavailable.
        let unavailable = eligible.filter((n) => !active(n).some((p) => isPodAvailable(p, minReady, now))).length;
        const oldOnNodes = eligible.flatMap((n) => active(n).filter((p) => !isNew(p)).map((p) => ({ n, p })));
        // Old pods that are not available go first: deleting them costs nothing.
        oldOnNodes.sort((a, b) => Number(isPodAvailable(a.p, minReady, now)) - Number(isPodAvailable(b.p, minReady, now)));
        for (const { p } of oldOnNodes) {
          if (!isPodAvailable(p, minReady, now)) {
            store.delete(PODS, p.metadata.namespace, p.metadata.name ?? '');
            continue;
          }
          if (unavailable >= maxUnavailable) break;
          store.delete(PODS, p.metadata.namespace, p.metadata.name ?? '');
          unavailable++;
        }
      } else {
        // Surge: start the new pod next to the old one, remove the old one once the new is available.
        let surging = eligible.filter((n) => active(n).some(isNew) && active(n).some((p) => !isNew(p))).length;
        for (const node of eligible) {
          const list = active(node);
          const olds = list.filter((p) => !isNew(p));
          const news = list.filter(isNew);
          if (olds.length === 0) continue;
          if (news.length === 0) {
            if (surging < maxSurge) {
              create(node);
              surging++;
            }
          } else if (news.some((p) => isPodAvailable(p, minReady, now))) {
            for (const p of olds) store.delete(PODS, p.metadata.namespace, p.metadata.name ?? '');
          }
        }
      }
    }

    writeStatus(ds, spec, eligibleSet, hash);
    const inUse = new Set<string>([update.metadata.name ?? '']);
    for (const r of all) if (owned.some((p) => p.metadata.labels?.[REVISION_LABEL] === r.metadata.labels?.[REVISION_LABEL])) inUse.add(r.metadata.name ?? '');
    pruneRevisions(store, ownedRevisions(revisions, ds), inUse, spec.revisionHistoryLimit ?? 10);
  }

  function writeStatus(ds: KubeObject, spec: DaemonSetSpec, eligible: Set<string>, hash: string): void {
    const now = Date.now();
    const minReady = spec.minReadySeconds ?? 0;
    const owned = pods.ownedBy(ds.metadata.uid).filter((p) => controllerOf(p)?.uid === ds.metadata.uid && isPodActive(p));
    const scheduled = new Map<string, Pod[]>();
    let misscheduled = 0;
    for (const p of owned) {
      const n = p.spec.nodeName;
      if (!n) continue;
      if (!eligible.has(n)) {
        misscheduled++;
        continue;
      }
      if (!scheduled.has(n)) scheduled.set(n, []);
      scheduled.get(n)!.push(p);
    }
    // Each node counts once, by its newest daemon pod (the updated one while a surge pod exists).
    const newest = [...scheduled.values()].map((list) => list.find((p) => p.metadata.labels?.[REVISION_LABEL] === hash) ?? list[0]!);
    const ready = newest.filter(isPodReady).length;
    const { available, recheckMs } = countAvailable(newest, minReady, now);
    const updated = [...scheduled.values()].filter((list) => list.some((p) => p.metadata.labels?.[REVISION_LABEL] === hash)).length;
    const status: Record<string, unknown> = {
      currentNumberScheduled: scheduled.size,
      desiredNumberScheduled: eligible.size,
      numberMisscheduled: misscheduled,
      numberReady: ready,
      numberAvailable: available,
      numberUnavailable: eligible.size - available,
      updatedNumberScheduled: updated,
      observedGeneration: ds.metadata.generation,
    };
    writeStatusIfChanged(store, DAEMONSETS, ds, status, ['numberAvailable', 'numberUnavailable', 'updatedNumberScheduled'], { keepCollisionCount: true });
    if (recheckMs > 0) queue.addAfter(keyOf(ds), recheckMs + 5);
  }

  return nativeController({
    name: 'daemonset',
    workloads: sets,
    owned: [revisions, pods],
    owner: { kind: 'DaemonSet', apiVersion: 'apps/v1' },
    resyncAllOn: [nodes],
    attach: (s, q) => {
      store = s;
      queue = q;
    },
    reconcile,
  });
}

/** maxSurge / maxUnavailable of a native DaemonSet: the src/kruise arithmetic, lenient on values the API server would refuse. */
function nativeDaemonSetLimits(ru: { maxSurge?: number | string; maxUnavailable?: number | string }, desired: number): { maxSurge: number; maxUnavailable: number } {
  try {
    const { maxSurge, maxUnavailable } = daemonSetRollingLimits({ desiredNumberScheduled: desired, maxSurge: ru.maxSurge, maxUnavailable: ru.maxUnavailable });
    return { maxSurge, maxUnavailable };
  } catch {
    const maxSurge = scaledIntOrPercent(ru.maxSurge, desired, true, 0);
    const maxUnavailable = scaledIntOrPercent(ru.maxUnavailable, desired, true, 1);
    return { maxSurge, maxUnavailable: maxSurge === 0 && maxUnavailable === 0 ? 1 : maxUnavailable };
  }
}
