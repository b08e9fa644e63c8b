// The scheduler: binds pods without spec.nodeName to a node that satisfies nodeSelector and
// required node affinity, scoring preferred affinity weights first and then the node with the
// fewest pods (spreading). Pods no node fits get PodScheduled=False/Unschedulable and are
// retried when nodes change. Like kube-scheduler it records `Scheduled` (`Successfully assigned
// NS/POD to NODE`) and `FailedScheduling` events (events.k8s.io style: eventTime, series).
import type { KubeObject, Pod } from '../../kruise/types';
import type { ControllerWithAdmission, SimulationSettings, Store } from '../store-api';
import { Informer } from './informer';
import { NODES, PODS, keyOf, kubeTime, setCondition, type PodCondition } from './pods';
import { nodeMatchesTerm, podSpecFitsNode, type NodeSelectorTerm } from '../../kruise/rules/node-affinity';
import { WorkQueue } from './queue';
import { compareNatural } from '../../lib/compare';
import { EventRecorder } from './event-recorder';

interface NodeAffinity {
  preferredDuringSchedulingIgnoredDuringExecution?: Array<{ weight: number; preference: NodeSelectorTerm }>;
}

function nodeAffinityOf(spec: Pod['spec']): NodeAffinity | undefined {
  return (spec.affinity as { nodeAffinity?: NodeAffinity } | undefined)?.nodeAffinity;
}

export { nodeMatchesTerm };

/** Whether `node` satisfies the pod's nodeSelector and required node affinity (src/kruise rule). */
export function nodeFitsPod(spec: Pod['spec'], node: KubeObject): boolean {
  return podSpecFitsNode(spec, node);
}

/** Whether new pods may land on the node (Ready, and not cordoned unless the pod tolerates it, as DaemonSet pods do). */
export function nodeSchedulable(node: KubeObject, spec?: Pod['spec']): boolean {
  const tolerations = (spec?.tolerations as Array<{ key?: string; operator?: string }> | undefined) ?? [];
  const toleratesCordon = tolerations.some((t) => (t.key === 'node.kubernetes.io/unschedulable' || (!t.key && t.operator === 'Exists')));
  if ((node.spec as { unschedulable?: boolean } | undefined)?.unschedulable && !toleratesCordon) return false;
  const conditions = (node.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready');
  return !ready || ready.status === 'True';
}

/** Sum of the weights of the preferred terms the node matches. */
export function preferredScore(spec: Pod['spec'], node: KubeObject): number {
  let score = 0;
  for (const p of nodeAffinityOf(spec)?.preferredDuringSchedulingIgnoredDuringExecution ?? []) {
    if (nodeMatchesTerm(p.preference, node)) score += p.weight;
  }
  return score;
}

/**
 * The chosen node for a pod among `nodes`, or undefined. `podCount(node)` gives the pods
 * already on a node; ties keep node order, so the choice is deterministic.
 */
export function pickNode(spec: Pod['spec'], nodes: KubeObject[], podCount: (name: string) => number): KubeObject | undefined {
  let best: KubeObject | undefined;
  let bestScore = -Infinity;
  let bestCount = Infinity;
  for (const node of nodes) {
    if (!nodeSchedulable(node, spec) || !nodeFitsPod(spec, node)) continue;
    const score = preferredScore(spec, node);
    const count = podCount(node.metadata.name ?? '');
    if (score > bestScore || (score === bestScore && count < bestCount)) {
      best = node;
      bestScore = score;
      bestCount = count;
    }
  }
  return best;
}

export function createScheduler(): ControllerWithAdmission {
  let store: Store;
  const pods = new Informer<Pod>(PODS);
  const nodes = new Informer(NODES);
  const unschedulable = new Set<string>();
  let queue: WorkQueue;
  let events: EventRecorder;

  function sortedNodes(): KubeObject[] {
    return [...nodes.all()].sort((a, b) => compareNatural(a.metadata.name ?? '', b.metadata.name ?? ''));
  }

  function reconcile(key: string): void {
    const pod = pods.get(key);
    if (!pod || pod.spec.nodeName || pod.metadata.deletionTimestamp) {
      unschedulable.delete(key);
      return;
    }
    const all = sortedNodes();
    const node = pickNode(pod.spec, all, (n) => pods.countOnNode(n));
    const now = kubeTime();
    if (!node) {
      unschedulable.add(key);
      const status = structuredClone(pod.status ?? {});
      const conditions = (status.conditions ??= []) as PodCondition[];
      const message = `0/${all.length} nodes are available: ${all.length} node(s) didn't match Pod's node affinity/selector. preemption: 0/${all.length} nodes are available: ${all.length} Preemption is not helpful for scheduling.`;
      const changed = setCondition(conditions, { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }, now);
      events.record(pod, { type: 'Warning', reason: 'FailedScheduling', message, action: 'Scheduling' });
      if (changed || status.phase !== 'Pending') {
        status.phase = 'Pending';
        store.updateStatus(PODS, { ...pod, status });
      }
      return;
    }
    unschedulable.delete(key);
    // Binding: the pods/binding subresource sets spec.nodeName and PodScheduled.
    const bound = store.update(PODS, { ...pod, spec: { ...pod.spec, nodeName: node.metadata.name } });
    const status = structuredClone((bound as Pod).status ?? {});
    const conditions = (status.conditions ??= []) as PodCondition[];
    setCondition(conditions, { type: 'PodScheduled', status: 'True' }, now);
    status.phase ??= 'Pending';
    store.updateStatus(PODS, { ...bound, status });
    events.record(pod, { type: 'Normal', reason: 'Scheduled', message: `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${node.metadata.name}`, action: 'Binding' });
  }

  return {
    name: 'scheduler',
    start(s: Store, _settings: SimulationSettings) {
      store = s;
      events = new EventRecorder(store, { style: 'series', component: 'default-scheduler', instance: 'default-scheduler-sandbox-control-plane' });
      queue = new WorkQueue('scheduler', reconcile);
      pods.on((type, pod) => {
        if (type === 'DELETED') events.forget(pod.metadata.uid);
        else if (!pod.spec.nodeName) queue.add(keyOf(pod));
      });
      nodes.on(() => {
        for (const key of unschedulable) queue.add(key);
      });
      nodes.start(store);
      pods.start(store);
    },
    stop() {
      queue?.stop();
      pods.stop();
      nodes.stop();
    },
  };
}
