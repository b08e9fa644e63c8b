// The sandbox's CloneSet controller (v1alpha1 and v1beta1 storage shapes), imitating Kruise's:
// ControllerRevisions, scaling with podsToDelete and surge, partitioned updates within
// maxUnavailable, pause, in-place vs recreate updates with the InPlaceUpdateReady readiness gate,
// and the status Kruise writes. The rules are in src/kruise/rules/cloneset*.ts; this module only
// reads the store, applies a planned step and writes status. Its webhook (admission) defaults and
// validates CloneSets like Kruise's.
import { legacyScaledValue } from '../../kruise/intstr';
import {
  CLONESET_INSTANCE_ID_LABEL,
  cloneSetControllerPartition,
  cloneSetExpectedUpdatedReplicas,
  cloneSetStatus,
  isKruisePodAvailable,
  isKruisePodReady,
  isPodAllHooked,
  isPodHooked,
  LIFECYCLE_STATE_LABEL,
  msUntilAvailable,
  OMIT_EXPECTED_UPDATED_ANNOTATION,
  readCloneSetSpec,
  truncatedPodsToDelete,
  type CloneSetSpecView,
  type CloneSetStatus,
  type LifecycleHook,
} from '../../kruise/rules/cloneset';
import { planCloneSetSync, type PlannedPod } from '../../kruise/rules/cloneset-plan';
import { cloneSetPlannedPod } from '../../kruise/rules/cloneset-planned-pod';
import { msUntilProgressDeadline, progressingCondition } from '../../kruise/rules/cloneset-progressing';
import { cloneSetDefaults, validateCloneSet, type PodLookup } from '../../kruise/rules/cloneset-webhook';
import { formatLabelSelector } from '../../kruise/selectors';
import { isControlledBy, podRevisionMatches, POD_TEMPLATE_HASH_LABEL, REVISION_HASH_LABEL, revisionHash } from '../../kruise/rules/revisions';
import { jsonEqual } from '../../lib/json-equal';
import type { KubeObject, Pod } from '../../kruise/types';
import { cloneSetAdapter } from '../../kruise/workloads/cloneset';
import type { ControllerWithAdmission, GroupResource, SimulationSettings, Store } from '../store-api';
import { randomSuffix } from './hash';
import { Informer } from './informer';
import { createKruiseWorkloadController } from './kruise-workload';
import { PODS, isPodActive } from './pods';
import { WorkQueue } from './queue';
import { pruneRevisions, syncRevisions } from './revisions';
import { createPodForRevision, inPlaceGraceSeconds, inPlaceOptions, refreshInPlaceState, updatePodToRevision } from './revisions-pods';
import { PUB_REFUSED_REQUEUE_MS, pubAllowsWorkloadUpdate } from './pub-control';

export const CLONESETS: GroupResource = { group: 'apps.kruise.io', resource: 'clonesets' };

/** The webhook's view of the pods podsToDelete names (it GETs each one, as Kruise's does). */
export function podLookup(store: Store): PodLookup {
  return (namespace, name) => {
    const pod = store.get(PODS, namespace, name);
    if (!pod) return undefined;
    const owner = (pod.metadata.ownerReferences ?? []).find((r) => r.controller);
    return { terminating: Boolean(pod.metadata.deletionTimestamp), controllerUid: owner?.uid };
  };
}

export function createCloneSetController(): ControllerWithAdmission {
  return createKruiseWorkloadController({
    name: 'cloneset-controller',
    queueName: 'cloneset',
    gr: CLONESETS,
    kind: 'CloneSet',
    sync: (cs, { store, pods, revisions, queue, key, settings }) => syncCloneSet(store, cs, pods, revisions, queue, key, settings),
    defaults: cloneSetDefaults,
    validate: (cs, old, _settings, store) => validateCloneSet(cs, old, podLookup(store)),
    // An update that changes annotations but not spec is still admitted (defaulted + validated).
    webhookOnUnchangedSpec: (old, obj) => !jsonEqual(old.metadata.annotations, obj.metadata.annotations),
  });
}

/**
 * How long one sync may spend on pod writes before it stops at a pod boundary and goes on at the
 * next turn of the event loop (queue.ts addContinuation): refreshing or updating 1,000 pods of a
 * 5,000-pod CloneSet at once held the API server for a second. Pods not reached yet count as not
 * refreshed (not ready), so a cut sync never updates more than maxUnavailable allows.
 */
const SYNC_WRITE_BUDGET_MS = 100;

function syncCloneSet(store: Store, cs: KubeObject, podInformer: Informer<Pod>, revInformer: Informer, queue: WorkQueue, key: string, settings: SimulationSettings): void {
  const now = new Date();
  // The budget starts at the first pod looked at: the scans of a large CloneSet alone may take
  // longer, and a sync must always make progress.
  let budgetEnd: number | undefined;
  let cut = false;
  const overBudget = () => {
    const t = performance.now();
    budgetEnd ??= t + SYNC_WRITE_BUDGET_MS;
    return (cut ||= t > budgetEnd);
  };
  const spec = readCloneSetSpec(cs);
  const prevStatus = (cs.status ?? {}) as Partial<CloneSetStatus> & { conditions?: Array<Record<string, string>> };
  const revs = syncRevisions(store, revInformer, cs, spec.template, prevStatus.collisionCount ?? 0, prevStatus.currentRevision);
  const updateRevName = revs.updateRevision.metadata.name ?? '';

  const ownPods = () => podInformer.ownedBy(cs.metadata.uid).filter((p) => isControlledBy(p, cs) && isPodActive(p));

  // the rollout knobs come from the shared workload adapter (both shapes, partition.ts arithmetic)
  const adapter = cloneSetAdapter;
  const policy = adapter.updatePolicy(cs);
  const paused = adapter.paused(cs);
  // the controller's partition is read under OnDelete too (new pods at the current revision up to it)
  const partition = cloneSetControllerPartition(cs) ?? 0;
  let limits = { maxUnavailable: 1, maxSurge: 0 };
  try {
    limits = adapter.rollingLimits(cs);
  } catch {
    // both below 1: the webhook rejects it, the controller makes no progress
    limits = { maxUnavailable: 0, maxSurge: 0 };
  }

  let requeueMs: number | undefined;
  const requeue = (ms: number | undefined) => {
    if (ms !== undefined && (requeueMs === undefined || ms < requeueMs)) requeueMs = ms;
  };
  // Kruise's inplaceupdate Refresh: readiness gate conditions, grace periods, finished in-place updates
  const inPlaceHook = spec.lifecycle.inPlaceUpdate;
  const afterUpdate = (p: Pod) => (inPlaceHook && !isPodAllHooked(inPlaceHook, p) ? 'Updated' : 'Normal');
  for (const p of ownPods()) {
    if (overBudget()) break;
    requeue(refreshInPlaceState(store, p, now, afterUpdate));
  }
  // lifecycle hooks: released preDelete hooks let PreparingDelete pods go, preNormal hooks make pods Normal,
  // inPlaceUpdate hooks move PreparingUpdate / Updated pods on
  for (const p of ownPods()) {
    if (overBudget()) break;
    refreshLifecycle(store, p, spec.lifecycle, updateRevName);
  }
  const podsNow = ownPods();
  const remove = (p: Pod) => deleteThroughLifecycle(store, p, spec.lifecycle.preDelete);
  const planned: PlannedPod[] = podsNow.map((p) => {
    requeue(msUntilAvailable(p, spec.minReadySeconds, now));
    return cloneSetPlannedPod(p, spec, podRevisionMatches(p, updateRevName), now);
  });
  const step = planCloneSetSync({
    replicas: spec.replicas,
    partitionReplicas: partition,
    maxUnavailable: limits.maxUnavailable,
    maxSurge: limits.maxSurge,
    paused,
    policy,
    pods: planned,
    scaleMaxUnavailable: scaleMaxUnavailable(spec.scaleMaxUnavailable, spec.replicas),
    excludePreparingDelete: spec.excludePreparingDelete,
    revisionConsistent: revs.currentRevision.metadata.name === updateRevName,
    scatterStrategy: spec.scatterStrategy,
    lifecycleMarksNotReady: Boolean(spec.lifecycle.preDelete?.markPodNotReady || spec.lifecycle.inPlaceUpdate?.markPodNotReady),
  });
  const byName = new Map(podsNow.map((p) => [p.metadata.name ?? '', p]));
  switch (step.kind) {
    case 'cancel-delete':
      for (const n of step.pods) if (byName.has(n) && !overBudget()) setLifecycleState(store, byName.get(n)!, 'PreparingNormal');
      break;
    case 'delete-specified':
      for (const n of step.pods) if (byName.has(n) && !overBudget()) remove(byName.get(n)!);
      break;
    case 'scale': {
      const initialState = spec.lifecycle.preNormal ? 'PreparingNormal' : 'Normal';
      for (let i = 0; i < step.createOld && !overBudget(); i++) createCloneSetPod(store, cs, revs.currentRevision, podInformer, initialState);
      for (let i = 0; i < step.createNew && !overBudget(); i++) createCloneSetPod(store, cs, revs.updateRevision, podInformer, initialState);
      for (const n of step.deletePods) if (byName.has(n) && !overBudget()) remove(byName.get(n)!);
      break;
    }
    case 'update':
      for (const n of step.pods) {
        const pod = byName.get(n);
        if (pod && !overBudget()) {
          // Kruise asks the PodUnavailableBudget first (spending it) and looks again in a second when refused
          if (!pubAllowsWorkloadUpdate(store, pod, settings)) {
            requeue(PUB_REFUSED_REQUEUE_MS);
            continue;
          }
          const hold = (p: Pod) => holdForInPlaceHook(store, p, inPlaceHook);
          updatePodToRevision(store, pod, revs.revisions, revs.currentRevision, revs.updateRevision, policy, now, inPlaceGraceSeconds(cs), remove, inPlaceOptions(settings), hold);
        }
      }
      break;
    case 'none':
      break;
  }

  // status from the pods as they are after this step
  const expectedUpdated = cloneSetExpectedUpdatedReplicas(cs);
  const finalPods = ownPods();
  const status = cloneSetStatus({
    generation: cs.metadata.generation ?? 1,
    specReplicas: spec.replicas,
    expectedUpdatedReplicas: expectedUpdated,
    updateRevision: updateRevName,
    previousCurrentRevision: revs.currentRevision.metadata.name,
    collisionCount: revs.collisionCount,
    labelSelector: formatLabelSelector(spec.selector),
    pods: finalPods.map((p) => ({
      updated: podRevisionMatches(p, updateRevName),
      ready: isKruisePodReady(p),
      available: isKruisePodAvailable(p, spec.minReadySeconds, now),
    })),
    omitExpectedUpdatedReplicas: cs.metadata.annotations?.[OMIT_EXPECTED_UPDATED_ANNOTATION] === 'true',
  });
  const others = (prevStatus.conditions ?? []).filter((c) => c.type !== 'Progressing');
  // progressDeadlineSeconds arrived in Kruise v1.9 (cloneset_status.go calculateProgressingStatus)
  const progressing = progressingCondition({
    progressDeadlineSeconds: settings.kruise === 'v1.3' || settings.kruise === 'v1.8' ? undefined : spec.progressDeadlineSeconds,
    paused,
    specReplicas: spec.replicas,
    status,
    expectedUpdatedReplicas: expectedUpdated,
    previousCondition: (prevStatus.conditions ?? []).find((c) => c.type === 'Progressing'),
    now,
  });
  const conditions = progressing ? [...others, progressing] : others;
  if (conditions.length > 0) status.conditions = conditions;
  requeue(msUntilProgressDeadline(progressing, spec.progressDeadlineSeconds, now));
  if (!jsonEqual(status, cs.status)) {
    const fresh = store.get(CLONESETS, cs.metadata.namespace, cs.metadata.name ?? '');
    if (fresh) store.updateStatus(CLONESETS, { ...fresh, status });
  }

  // Kruise's truncatePodsToDelete: names of pods that were not active at the start of this sync go
  const truncated = truncatedPodsToDelete(spec.podsToDelete, podsNow.map((p) => p.metadata.name ?? ''));
  if (truncated) {
    const fresh = store.get(CLONESETS, cs.metadata.namespace, cs.metadata.name ?? '');
    if (fresh && jsonEqual((fresh.spec as { scaleStrategy?: { podsToDelete?: unknown } } | undefined)?.scaleStrategy?.podsToDelete, spec.podsToDelete)) {
      const { podsToDelete: _dropped, ...rest } = ((fresh.spec as Record<string, unknown>).scaleStrategy ?? {}) as Record<string, unknown>;
      const scaleStrategy = truncated.length > 0 ? { ...rest, podsToDelete: truncated } : rest;
      store.update(CLONESETS, { ...fresh, spec: { ...(fresh.spec as Record<string, unknown>), scaleStrategy } });
    }
  }

  const inUse = new Set<string>([updateRevName, status.currentRevision]);
  for (const p of finalPods) {
    const v = p.metadata.labels?.[REVISION_HASH_LABEL];
    for (const r of revs.revisions) if (v && podRevisionMatches(p, r.metadata.name ?? '')) inUse.add(r.metadata.name ?? '');
  }
  pruneRevisions(store, revs.revisions, inUse, spec.revisionHistoryLimit);
  if (requeueMs !== undefined) queue.addAfter(key, requeueMs);
  if (cut) queue.addContinuation(key);
}

function safeDelete(store: Store, namespace: string | undefined, name: string): void {
  try {
    store.delete(PODS, namespace, name);
  } catch {
    // already gone
  }
}

/** Kruise's preDelete hook: a hooked pod is marked PreparingDelete instead of being deleted. */
function deleteThroughLifecycle(store: Store, pod: Pod, preDelete: LifecycleHook | undefined): void {
  if (isPodHooked(preDelete, pod)) {
    if (pod.metadata.labels?.[LIFECYCLE_STATE_LABEL] !== 'PreparingDelete') setLifecycleState(store, pod, 'PreparingDelete');
    return;
  }
  safeDelete(store, pod.metadata.namespace, pod.metadata.name ?? '');
}

function setLifecycleState(store: Store, pod: Pod, state: string): void {
  const fresh = store.get(PODS, pod.metadata.namespace, pod.metadata.name ?? '');
  if (!fresh) return;
  store.update(PODS, { ...fresh, metadata: { ...fresh.metadata, labels: { ...(fresh.metadata.labels ?? {}), [LIFECYCLE_STATE_LABEL]: state } } });
}

/**
 * Kruise's refreshPodState (sync/cloneset_update.go) and preDelete handling: PreparingDelete pods whose
 * hook was released are deleted; PreparingNormal pods become Normal once all preNormal hooks are on;
 * a PreparingUpdate pod already at the update revision (rolled back) and an Updated pod whose
 * inPlaceUpdate hook is all back on move on (Updated while the hook is not all on, else Normal).
 */
function refreshLifecycle(store: Store, pod: Pod, lifecycle: CloneSetSpecView['lifecycle'], updateRevision: string): void {
  const state = pod.metadata.labels?.[LIFECYCLE_STATE_LABEL];
  const hook = lifecycle.inPlaceUpdate;
  if (state === 'PreparingDelete' && !isPodHooked(lifecycle.preDelete, pod)) safeDelete(store, pod.metadata.namespace, pod.metadata.name ?? '');
  else if (state === 'PreparingNormal' && (!lifecycle.preNormal || isPodAllHooked(lifecycle.preNormal, pod))) setLifecycleState(store, pod, 'Normal');
  else if (state === 'PreparingUpdate' && podRevisionMatches(pod, updateRevision)) setLifecycleState(store, pod, hook && !isPodAllHooked(hook, pod) ? 'Updated' : 'Normal');
  else if (state === 'Updated' && (!hook || isPodAllHooked(hook, pod))) setLifecycleState(store, pod, 'Normal');
}

/**
 * Kruise's updatePod before an in-place update: a Normal (or PreparingNormal) pod the inPlaceUpdate
 * hook is on, and an Updated pod, go to PreparingUpdate and wait; a PreparingUpdate pod waits while
 * the hook is on. Returns true while the pod is held.
 */
function holdForInPlaceHook(store: Store, pod: Pod, hook: LifecycleHook | undefined): boolean {
  const state = pod.metadata.labels?.[LIFECYCLE_STATE_LABEL] ?? '';
  if (state === '' || state === 'Normal' || state === 'PreparingNormal') {
    if (!isPodHooked(hook, pod)) return false;
    setLifecycleState(store, pod, 'PreparingUpdate');
    return true;
  }
  if (state === 'Updated') {
    setLifecycleState(store, pod, 'PreparingUpdate');
    return true;
  }
  return state === 'PreparingUpdate' && isPodHooked(hook, pod);
}

function createCloneSetPod(store: Store, cs: KubeObject, revision: KubeObject, podInformer: Informer<Pod>, lifecycleState: string): void {
  let suffix = randomSuffix();
  for (let i = 0; i < 10 && podInformer.get(`${cs.metadata.namespace}/${cs.metadata.name}-${suffix}`); i++) suffix = randomSuffix();
  const revName = revision.metadata.name ?? '';
  createPodForRevision(store, cs, revision, {
    name: `${cs.metadata.name}-${suffix}`,
    labels: {
      [REVISION_HASH_LABEL]: revName,
      [POD_TEMPLATE_HASH_LABEL]: revisionHash(revName),
      [CLONESET_INSTANCE_ID_LABEL]: suffix,
      [LIFECYCLE_STATE_LABEL]: lifecycleState,
    },
  });
}

/** scaleStrategy.maxUnavailable as the controller reads it (legacy parser, rounding up). */
function scaleMaxUnavailable(value: number | string | undefined, replicas: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const v = legacyScaledValue(value, replicas, true);
  return v.error ? undefined : v.value;
}
