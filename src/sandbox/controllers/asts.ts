// The sandbox's Advanced StatefulSet controller (apps.kruise.io statefulsets, storage v1beta1):
// ordinals from spec.ordinals.start skipping reserveOrdinals, OrderedReady/Parallel, partition
// counting pods since v1.8 (an ordinal on --kruise v1.3), maxUnavailable, paused, ReCreate vs
// in-place updates, ControllerRevisions and the status of kruise-semantics §2.4. Rules live in
// src/kruise/rules/asts.ts; the webhook defaults and validates like Kruise's.
import { advancedStatefulSetMaxUnavailable } from '../../kruise/partition';
import {
  advancedStatefulSetActiveOrdinals,
  advancedStatefulSetDefaults,
  advancedStatefulSetStatus,
  keptOrdinals,
  ordinalOfPod,
  planAdvancedStatefulSetSync,
  readAdvancedStatefulSetSpec,
  validateAdvancedStatefulSet,
  withStartOrdinal,
  type AstsPlannedPod,
} from '../../kruise/rules/asts';
import { isKruisePodAvailable, isKruisePodReady, msUntilAvailable, SPECIFIED_DELETE_LABEL } from '../../kruise/rules/cloneset';
import { featureEnabled } from '../feature-gates';
import { formatLabelSelector } from '../../kruise/selectors';
import { podRevisionMatches, REVISION_HASH_LABEL } from '../../kruise/rules/revisions';
import { jsonEqual } from '../../lib/json-equal';
import type { KubeObject, Pod } from '../../kruise/types';
import type { ControllerWithAdmission, GroupResource, SimulationSettings, Store } from '../store-api';
import { Informer } from './informer';
import { createKruiseWorkloadController } from './kruise-workload';
import { PODS } from './pods';
import { WorkQueue } from './queue';
import { createPodForRevision, inPlaceGraceSeconds, inPlaceOptions, refreshInPlaceState, updatePodToRevision } from './revisions-pods';
import { PUB_REFUSED_REQUEUE_MS, pubAdmitsUpdate } from './pub-control';
import { pruneRevisions, syncRevisions } from './revisions';

export const ADVANCED_STATEFULSETS: GroupResource = { group: 'apps.kruise.io', resource: 'statefulsets' };

export function createAdvancedStatefulSetController(): ControllerWithAdmission {
  return createKruiseWorkloadController({
    name: 'advanced-statefulset-controller',
    queueName: 'advanced-statefulset',
    gr: ADVANCED_STATEFULSETS,
    kind: 'StatefulSet',
    sync: (set, { store, settings, pods, revisions, queue, key }) => syncAdvancedStatefulSet(store, settings, set, pods, revisions, queue, key),
    defaults: advancedStatefulSetDefaults,
    validate: (set, old, settings) => validateAdvancedStatefulSet(set, old, settings.kruise),
  });
}

function syncAdvancedStatefulSet(
  store: Store,
  settings: SimulationSettings,
  set: KubeObject,
  podInformer: Informer<Pod>,
  revInformer: Informer,
  queue: WorkQueue,
  key: string,
): void {
  const now = new Date();
  const name = set.metadata.name ?? '';
  // Kruise's getStartOrdinal: spec.ordinals.start only behind the StatefulSetStartOrdinal gate
  const spec = withStartOrdinal(readAdvancedStatefulSetSpec(set), featureEnabled(settings.featureGates, 'StatefulSetStartOrdinal'));
  const prev = (set.status ?? {}) as { collisionCount?: number; currentRevision?: string };
  const revs = syncRevisions(store, revInformer, set, spec.template, prev.collisionCount ?? 0, prev.currentRevision);
  const updateName = revs.updateRevision.metadata.name ?? '';
  const currentName = revs.currentRevision.metadata.name ?? '';
  const owned = () =>
    podInformer
      .ownedBy(set.metadata.uid)
      .filter((p) => (p.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === set.metadata.uid))
      .filter((p) => ordinalOfPod(name, p.metadata.name ?? '') !== undefined);

  const active = advancedStatefulSetActiveOrdinals(spec);
  const kept = spec.rollingUpdate ? keptOrdinals(active, spec.partition, settings.kruise !== 'v1.3') : new Set<number>();
  let maxUnavailable = 1;
  try {
    maxUnavailable = spec.parallel ? advancedStatefulSetMaxUnavailable(spec.maxUnavailable, spec.replicas).value : 1;
  } catch {
    maxUnavailable = 1;
  }
  let requeueMs: number | undefined;
  for (const p of owned()) {
    const wait = p.metadata.deletionTimestamp ? undefined : refreshInPlaceState(store, p, now);
    if (wait !== undefined && (requeueMs === undefined || wait < requeueMs)) requeueMs = wait;
  }
  const planned: AstsPlannedPod[] = owned().map((p) => {
    const left = msUntilAvailable(p, spec.minReadySeconds, now);
    if (left !== undefined && (requeueMs === undefined || left < requeueMs)) requeueMs = left;
    return {
      name: p.metadata.name ?? '',
      ordinal: ordinalOfPod(name, p.metadata.name ?? '')!,
      updated: podRevisionMatches(p, updateName),
      runningAndReady: isKruisePodReady(p),
      available: isKruisePodAvailable(p, spec.minReadySeconds, now),
      terminating: Boolean(p.metadata.deletionTimestamp),
      // handleSpecifiedDeletedPods arrived in Kruise v1.8 (stateful_set_control.go)
      specifiedDelete: settings.kruise !== 'v1.3' && p.metadata.labels?.[SPECIFIED_DELETE_LABEL] !== undefined,
    };
  });
  const step = planAdvancedStatefulSetSync({
    active,
    kept,
    parallel: spec.parallel,
    rollingUpdate: spec.rollingUpdate,
    paused: spec.paused,
    maxUnavailable,
    pods: planned,
  });
  const inPlaceGate = spec.podUpdatePolicy !== 'ReCreate';
  for (const c of step.create) {
    const podName = `${name}-${c.ordinal}`;
    const rev = c.atUpdateRevision ? revs.updateRevision : revs.currentRevision;
    createPodForRevision(store, set, rev, {
      name: podName,
      labels: {
        [REVISION_HASH_LABEL]: rev.metadata.name ?? '',
        'statefulset.kubernetes.io/pod-name': podName,
        'apps.kubernetes.io/pod-index': String(c.ordinal),
      },
      mutate: (pod) => {
        pod.spec.hostname = podName;
        if (spec.serviceName) pod.spec.subdomain = spec.serviceName;
        // Kruise injects the in-place readiness gate only for in-place update policies
        if (!inPlaceGate) {
          const gates = ((pod.spec.readinessGates ?? []) as Array<{ conditionType: string }>).filter((g) => g.conditionType !== 'InPlaceUpdateReady');
          if (gates.length === 0) delete pod.spec.readinessGates;
          else pod.spec.readinessGates = gates;
          pod.status = { phase: 'Pending' };
        }
        // volumeClaimTemplates become per-pod claims named <claim>-<pod>
        const volumes = ((pod.spec.volumes ?? []) as Array<{ name: string }>).slice();
        for (const t of spec.volumeClaimTemplates) {
          const claim = t.metadata?.name;
          if (claim && !volumes.some((v) => v.name === claim)) volumes.push({ name: claim, persistentVolumeClaim: { claimName: `${claim}-${podName}` } } as { name: string });
        }
        if (volumes.length > 0) pod.spec.volumes = volumes;
      },
    });
  }
  for (const n of step.delete) {
    try {
      store.delete(PODS, set.metadata.namespace, n);
    } catch {
      // gone already
    }
  }
  const byName = new Map(owned().map((p) => [p.metadata.name ?? '', p]));
  for (const n of step.update) {
    const pod = byName.get(n);
    // the pod webhook refuses the write while a PodUnavailableBudget has no headroom: try again in a second
    if (pod && !pubAdmitsUpdate(store, pod, settings)) {
      requeueMs = requeueMs === undefined ? PUB_REFUSED_REQUEUE_MS : Math.min(requeueMs, PUB_REFUSED_REQUEUE_MS);
      continue;
    }
    if (pod) updatePodToRevision(store, pod, revs.revisions, revs.currentRevision, revs.updateRevision, spec.podUpdatePolicy, now, inPlaceGraceSeconds(set), undefined, inPlaceOptions(settings));
  }

  const live = owned().filter((p) => !p.metadata.deletionTimestamp);
  // computeReplicaStatus counts every created pod, terminating ones too (isCreated: a phase is set)
  const created = owned().filter((p) => Boolean(p.status?.phase));
  const status = advancedStatefulSetStatus({
    generation: set.metadata.generation ?? 1,
    rollingUpdate: spec.rollingUpdate,
    updateRevision: updateName,
    currentRevisionName: currentName,
    collisionCount: revs.collisionCount,
    labelSelector: formatLabelSelector(spec.selector),
    pods: created.map((p) => {
      // Kruise's isRunningAndReady does not look at the deletion timestamp
      const asRunning = p.metadata.deletionTimestamp ? { ...p, metadata: { ...p.metadata, deletionTimestamp: undefined } } : p;
      return {
        updated: podRevisionMatches(p, updateName),
        current: podRevisionMatches(p, currentName),
        ready: isKruisePodReady(asRunning),
        available: isKruisePodAvailable(asRunning, spec.minReadySeconds, now),
        terminating: Boolean(p.metadata.deletionTimestamp),
      };
    }),
  });
  const conditions = (set.status as { conditions?: unknown[] } | undefined)?.conditions;
  if (conditions && conditions.length > 0) status.conditions = conditions;
  if (!jsonEqual(status, set.status)) {
    const fresh = store.get(ADVANCED_STATEFULSETS, set.metadata.namespace, name);
    if (fresh) store.updateStatus(ADVANCED_STATEFULSETS, { ...fresh, status });
  }
  const inUse = new Set<string>([updateName, String(status.currentRevision)]);
  for (const p of live) for (const r of revs.revisions) if (podRevisionMatches(p, r.metadata.name ?? '')) inUse.add(r.metadata.name ?? '');
  pruneRevisions(store, revs.revisions, inUse, spec.revisionHistoryLimit);
  if (requeueMs !== undefined) queue.addAfter(key, requeueMs);
}
