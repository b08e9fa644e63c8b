// The sandbox's Advanced DaemonSet controller (apps.kruise.io daemonsets; storage v1alpha1 up to
// v1.8, v1beta1 since v1.9): one pod per eligible node (pinned through node affinity like kube),
// Standard vs InPlaceIfPossible updates, maxUnavailable/maxSurge against desiredNumberScheduled,
// rollingUpdate.selector, partition (descending node names), paused, ControllerRevisions and the
// status with daemonSetHash (v1alpha1) / updateRevision (v1beta1). Rules: src/kruise/rules/ads.ts.
import { daemonSetRollingLimits } from '../../kruise/partition';
import {
  advancedDaemonSetDefaults,
  advancedDaemonSetPartitionNodes,
  advancedDaemonSetStatus,
  nodeShouldRunDaemonPod,
  nodesAllowedToUpdate,
  planAdvancedDaemonSetSync,
  readAdvancedDaemonSetSpec,
  validateAdvancedDaemonSet,
  type AdsNodePlan,
} from '../../kruise/rules/ads';
import { isKruisePodAvailable, isKruisePodReady, msUntilAvailable } from '../../kruise/rules/cloneset';
import { podRevisionMatches, REVISION_HASH_LABEL, revisionHash } from '../../kruise/rules/revisions';
import { jsonEqual } from '../../lib/json-equal';
import type { KubeObject, Pod } from '../../kruise/types';
import type { ControllerWithAdmission, GroupResource, SimulationSettings, Store } from '../store-api';
import { randomSuffix } from './hash';
import { Informer } from './informer';
import { createKruiseWorkloadController } from './kruise-workload';
import { NODES, PODS } from './pods';
import { WorkQueue } from './queue';
import { createPodForRevision, inPlaceOptions, refreshInPlaceState, updatePodToRevision } from './revisions-pods';
import { PUB_REFUSED_REQUEUE_MS, pubAdmitsUpdate } from './pub-control';
import { pruneRevisions, syncRevisions } from './revisions';

export const ADVANCED_DAEMONSETS: GroupResource = { group: 'apps.kruise.io', resource: 'daemonsets' };

/** Tolerations kube's DaemonSet controller adds to every daemon pod. */
const DAEMON_TOLERATIONS = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

export function createAdvancedDaemonSetController(): ControllerWithAdmission {
  const nodes = new Informer(NODES);
  return createKruiseWorkloadController({
    name: 'advanced-daemonset-controller',
    queueName: 'advanced-daemonset',
    gr: ADVANCED_DAEMONSETS,
    kind: 'DaemonSet',
    resyncAllOn: [nodes],
    sync: (ds, { store, settings, pods, revisions, queue, key }) => syncAdvancedDaemonSet(store, settings, ds, pods, nodes, revisions, queue, key),
    defaults: advancedDaemonSetDefaults,
    validate: (ds, _old, settings) => validateAdvancedDaemonSet(ds, settings.kruise),
  });
}

function syncAdvancedDaemonSet(
  store: Store,
  settings: SimulationSettings,
  ds: KubeObject,
  podInformer: Informer<Pod>,
  nodeInformer: Informer,
  revInformer: Informer,
  queue: WorkQueue,
  key: string,
): void {
  const now = new Date();
  const spec = readAdvancedDaemonSetSpec(ds);
  const prev = (ds.status ?? {}) as { collisionCount?: number };
  const revs = syncRevisions(store, revInformer, ds, spec.template, prev.collisionCount ?? 0, undefined);
  const updateName = revs.updateRevision.metadata.name ?? '';
  const hash = revisionHash(updateName);
  const owned = () => podInformer.ownedBy(ds.metadata.uid).filter((p) => (p.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === ds.metadata.uid));
  for (const p of owned()) if (!p.metadata.deletionTimestamp) refreshInPlaceState(store, p, now);

  const allNodes = [...nodeInformer.all()].filter((n) => !n.metadata.deletionTimestamp);
  let requeueMs: number | undefined;
  const buildPlan = (): { plans: AdsNodePlan[]; podsByNode: Map<string, Pod[]> } => {
    const podsByNode = new Map<string, Pod[]>();
    for (const p of owned()) {
      const node = p.spec.nodeName ?? pinnedNode(p) ?? '';
      const list = podsByNode.get(node) ?? [];
      list.push(p);
      podsByNode.set(node, list);
    }
    const names = new Set(allNodes.map((n) => n.metadata.name ?? ''));
    const plans: AdsNodePlan[] = allNodes.map((n) => ({
      node: n.metadata.name ?? '',
      shouldRun: nodeShouldRunDaemonPod(spec.template, n),
      pods: (podsByNode.get(n.metadata.name ?? '') ?? []).map((p) => {
        const left = msUntilAvailable(p, spec.minReadySeconds, now);
        if (left !== undefined && (requeueMs === undefined || left < requeueMs)) requeueMs = left;
        return {
          name: p.metadata.name ?? '',
          updated: podRevisionMatches(p, updateName),
          available: isKruisePodAvailable(p, spec.minReadySeconds, now),
          terminating: Boolean(p.metadata.deletionTimestamp),
        };
      }),
    }));
    // pods on nodes that are gone are removed
    for (const [node, list] of podsByNode) {
      if (!names.has(node)) plans.push({ node, shouldRun: false, pods: list.map((p) => ({ name: p.metadata.name ?? '', updated: false, available: false, terminating: Boolean(p.metadata.deletionTimestamp) })) });
    }
    return { plans, podsByNode };
  };

  const { plans } = buildPlan();
  const desired = plans.filter((p) => p.shouldRun).length;
  let limits = { maxUnavailable: 1, maxSurge: 0 };
  try {
    limits = daemonSetRollingLimits({ desiredNumberScheduled: desired, maxUnavailable: spec.maxUnavailable, maxSurge: spec.maxSurge, advanced: true });
  } catch {
    // the webhook rejects such values; keep the defaults
  }
  const withDaemonPods = plans.filter((p) => p.shouldRun && p.pods.some((x) => !x.terminating));
  const nodeLabels = new Map(allNodes.map((n) => [n.metadata.name ?? '', n.metadata.labels ?? {}]));
  const allowed = nodesAllowedToUpdate(
    withDaemonPods.map((p) => ({ name: p.node, labels: nodeLabels.get(p.node) ?? {}, hasUpdatedPod: p.pods.some((x) => x.updated && !x.terminating) })),
    advancedDaemonSetPartitionNodes(spec.partition, withDaemonPods.length),
    spec.nodeSelector,
  );
  const step = planAdvancedDaemonSetSync({
    nodes: plans,
    allowedToUpdate: new Set(allowed),
    rollingUpdate: spec.rollingUpdate,
    paused: spec.paused,
    inPlace: spec.inPlace,
    maxUnavailable: limits.maxUnavailable,
    maxSurge: limits.maxSurge,
  });
  for (const node of step.create) createDaemonPod(store, ds, revs.updateRevision, node);
  for (const n of step.delete) {
    try {
      store.delete(PODS, ds.metadata.namespace, n);
    } catch {
      // gone
    }
  }
  const byName = new Map(owned().map((p) => [p.metadata.name ?? '', p]));
  for (const n of step.update) {
    const pod = byName.get(n);
    // Kruise's ADS passes no grace period (daemonset_update.go getInPlaceUpdateOptions)
    // the pod webhook refuses the write while a PodUnavailableBudget has no headroom: try again in a second
    if (pod && !pubAdmitsUpdate(store, pod, settings)) {
      requeueMs = requeueMs === undefined ? PUB_REFUSED_REQUEUE_MS : Math.min(requeueMs, PUB_REFUSED_REQUEUE_MS);
      continue;
    }
    if (pod) updatePodToRevision(store, pod, revs.revisions, revs.currentRevision, revs.updateRevision, spec.inPlace ? 'InPlaceIfPossible' : 'ReCreate', now, 0, undefined, inPlaceOptions(settings));
  }

  const after = buildPlan().plans;
  const status = advancedDaemonSetStatus({
    generation: ds.metadata.generation ?? 1,
    hash,
    beta: (ds.apiVersion ?? '').endsWith('/v1beta1'),
    collisionCount: revs.collisionCount,
    nodes: after.map((p) => ({
      shouldRun: p.shouldRun,
      pods: p.pods
        .filter((x) => !x.terminating)
        .map((x) => {
          const pod = podInformer.get(`${ds.metadata.namespace}/${x.name}`);
          return {
            name: x.name,
            creationTimestamp: pod?.metadata.creationTimestamp,
            scheduled: Boolean(pod?.spec.nodeName),
            updated: x.updated,
            available: x.available,
            ready: pod ? isKruisePodReady(pod) : false,
          };
        }),
    })),
  });
  const conditions = (ds.status as { conditions?: unknown[] } | undefined)?.conditions;
  if (conditions && conditions.length > 0) status.conditions = conditions;
  if (!jsonEqual(status, ds.status)) {
    const fresh = store.get(ADVANCED_DAEMONSETS, ds.metadata.namespace, ds.metadata.name ?? '');
    if (fresh) store.updateStatus(ADVANCED_DAEMONSETS, { ...fresh, status });
  }
  const inUse = new Set<string>([updateName]);
  for (const p of owned()) for (const r of revs.revisions) if (podRevisionMatches(p, r.metadata.name ?? '')) inUse.add(r.metadata.name ?? '');
  pruneRevisions(store, revs.revisions, inUse, spec.revisionHistoryLimit);
  if (requeueMs !== undefined) queue.addAfter(key, requeueMs);
}

/** The node a daemon pod is pinned to through `matchFields metadata.name In [node]`. */
function pinnedNode(pod: Pod): string | undefined {
  const terms = (pod.spec.affinity as { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: Array<{ matchFields?: Array<{ key: string; values?: string[] }> }> } } } | undefined)
    ?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  for (const t of terms ?? []) for (const f of t.matchFields ?? []) if (f.key === 'metadata.name' && f.values?.length === 1) return f.values[0];
  return undefined;
}

function createDaemonPod(store: Store, ds: KubeObject, revision: KubeObject, node: string): void {
  const hash = revisionHash(revision.metadata.name ?? '');
  createPodForRevision(store, ds, revision, {
    name: `${ds.metadata.name}-${randomSuffix()}`,
    labels: { [REVISION_HASH_LABEL]: hash, 'pod-template-generation': String(ds.metadata.generation ?? 1) },
    mutate: (pod) => {
      // kube pins daemon pods with node affinity (ReplaceDaemonSetPodNodeNameNodeAffinity)
      const affinity = { ...((pod.spec.affinity ?? {}) as Record<string, unknown>) };
      affinity.nodeAffinity = {
        ...((affinity.nodeAffinity ?? {}) as Record<string, unknown>),
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
        },
      };
      pod.spec.affinity = affinity;
      const tolerations = ((pod.spec.tolerations ?? []) as Array<{ key?: string }>).slice();
      for (const t of DAEMON_TOLERATIONS) if (!tolerations.some((x) => x.key === t.key)) tolerations.push(t);
      pod.spec.tolerations = tolerations;
    },
  });
}
