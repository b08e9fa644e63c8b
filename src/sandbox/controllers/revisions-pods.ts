// Pod operations of the Kruise workload controllers (CloneSet, Advanced StatefulSet, Advanced
// DaemonSet): create a pod at a revision (with the InPlaceUpdateReady readiness gate), move a pod
// to another revision in place or by deleting it, and Kruise's in-place "refresh" that flips the
// InPlaceUpdateReady condition once the kubelet has restarted the updated containers.
import { LIFECYCLE_STATE_LABEL, type UpdatePolicy } from '../../kruise/rules/cloneset';
import {
  applyInPlaceUpdate,
  finishInPlaceGracePeriod,
  hasInPlaceReadinessGate,
  INPLACE_READY_CONDITION,
  inPlaceReadyCondition,
  inPlaceUpdateCompleted,
  inPlaceUpdatePlan,
  readInPlaceUpdateState,
  withInPlaceReadyCondition,
  envFromMetadataByDefault,
  type InPlaceUpdatePlanOptions,
} from '../../kruise/rules/cloneset-inplace';
import type { SimulationSettings } from '../store-api';
import { podNeedsBeUnready } from '../../kruise/rules/inplace-vertical';
import { featureEnabled } from '../feature-gates';
import { podRevisionMatches, templateOfRevision, type ControllerRevision } from '../../kruise/rules/revisions';
import type { KubeObject, Pod, PodTemplate } from '../../kruise/types';
import type { Store } from '../store-api';
import { restartContainerStatus } from './kubelet';
import { kubeTime, newPodFromTemplate, PODS } from './pods';

export interface PodIdentity {
  name: string;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  /** Last-minute changes (ASTS hostname/subdomain, ADS node affinity). */
  mutate?: (pod: Pod) => void;
}

/** Creates a pod from the revision's template, with Kruise's InPlaceUpdateReady gate (True). */
export function createPodForRevision(store: Store, owner: KubeObject, revision: KubeObject, id: PodIdentity): Pod | undefined {
  const template = (templateOfRevision(revision) ?? {}) as unknown as PodTemplate;
  const pod = newPodFromTemplate({ metadata: template.metadata, spec: template.spec ?? { containers: [] } }, owner, {
    name: id.name,
    labels: id.labels,
    annotations: id.annotations,
  });
  const gates = ((pod.spec.readinessGates ?? []) as Array<{ conditionType: string }>).filter((g) => g.conditionType !== INPLACE_READY_CONDITION);
  pod.spec.readinessGates = [...gates, { conditionType: INPLACE_READY_CONDITION }];
  pod.status = { phase: 'Pending', conditions: [{ type: INPLACE_READY_CONDITION, status: 'True', lastTransitionTime: kubeTime() }] };
  id.mutate?.(pod);
  try {
    return store.create(PODS, pod) as Pod;
  } catch {
    return undefined; // name taken (a pod still terminating): the next sync tries again
  }
}

export type PodUpdateResult = 'in-place' | 'recreate' | 'blocked';

/**
 * Moves a pod to `updateRevision`: in place when the policy allows it and only images/metadata
 * changed since the pod's own revision, else (ReCreate, or InPlaceIfPossible with other changes)
 * by deleting it so the workload recreates it. InPlaceOnly with other changes is blocked.
 */
export function updatePodToRevision(
  store: Store,
  pod: Pod,
  revisions: ControllerRevision[],
  currentRevision: ControllerRevision,
  updateRevision: ControllerRevision,
  policy: UpdatePolicy,
  now: Date,
  graceSeconds = 0,
  /** How a pod is removed for a recreate (CloneSet: through its preDelete lifecycle hook). */
  remove: (pod: Pod) => void = (p) => {
    try {
      store.delete(PODS, p.metadata.namespace, p.metadata.name ?? '');
    } catch {
      // already gone
    }
  },
  /** Kruise's in-place gates (inPlaceOptions): InPlaceUpdateEnvFromMetadata, InPlaceWorkloadVerticalScaling. */
  inPlace: InPlaceUpdatePlanOptions = { envFromMetadata: true },
  /** Returns true to hold the pod before its in-place update (CloneSet's lifecycle.inPlaceUpdate hook). */
  holdInPlace?: (pod: Pod) => boolean,
): PodUpdateResult {
  const ns = pod.metadata.namespace;
  const name = pod.metadata.name ?? '';
  if (policy !== 'ReCreate') {
    const from = revisions.find((r) => podRevisionMatches(pod, r.metadata.name ?? '')) ?? currentRevision;
    const plan = inPlaceUpdatePlan(templateOfRevision(from), templateOfRevision(updateRevision), inPlace);
    if (plan) {
      const target = updateRevision.metadata.name ?? '';
      // Kruise marks the pod not ready through its readiness gate before touching containers
      let fresh = store.get(PODS, ns, name) as Pod | undefined;
      if (!fresh) return 'blocked';
      if (holdInPlace?.(fresh)) return 'blocked';
      if (podNeedsBeUnready(fresh, plan, inPlace.verticalScaling === true)) {
        store.updateStatus(PODS, withInPlaceReadyCondition(fresh, 'False', now, 'StartInPlaceUpdate'));
        fresh = store.get(PODS, ns, name) as Pod | undefined;
        if (!fresh) return 'blocked';
      }
      const next = applyInPlaceUpdate(fresh, plan, target, now, graceSeconds);
      next.metadata.labels = { ...(next.metadata.labels ?? {}), [LIFECYCLE_STATE_LABEL]: 'Updating' };
      if (!(fresh.metadata.labels ?? {})[LIFECYCLE_STATE_LABEL]) delete next.metadata.labels[LIFECYCLE_STATE_LABEL];
      const written = store.update(PODS, next) as Pod;
      if (graceSeconds <= 0) {
        const resized = Object.keys(plan.containerResources).length > 0 ? resizeContainers(store, written, plan.resizeRestartContainers, now) : written;
        restartContainers(store, resized, plan.envFromMetadataContainers, now);
      }
      return 'in-place';
    }
    if (policy === 'InPlaceOnly') return 'blocked';
  }
  remove(pod);
  return 'recreate';
}

/**
 * Kruise's inplaceupdate Refresh: a gate without condition gets True; a grace period that has
 * passed releases the parked images; a finished in-place update sets InPlaceUpdateReady True and
 * the lifecycle state Updating on to `stateAfterUpdate` (Normal, or Updated while a CloneSet's
 * inPlaceUpdate hook is not all back on the pod). Returns ms after which to look again (grace period), if any.
 */
export function refreshInPlaceState(store: Store, pod: Pod, now: Date, stateAfterUpdate: (pod: Pod) => string = () => 'Normal'): number | undefined {
  if (!hasInPlaceReadinessGate(pod)) return undefined;
  const cond = inPlaceReadyCondition(pod);
  const ns = pod.metadata.namespace;
  const name = pod.metadata.name ?? '';
  if (!cond) {
    store.updateStatus(PODS, withInPlaceReadyCondition(pod, 'True', now));
    return undefined;
  }
  const grace = finishInPlaceGracePeriod(pod, now);
  if (grace && 'waitMs' in grace) return grace.waitMs;
  if (grace) {
    restartContainers(store, store.update(PODS, grace.pod) as Pod, grace.restart, now);
    return undefined;
  }
  if (cond.status === 'True') {
    // a resize alone that restarts nothing never marks the pod not ready (podNeedsBeUnready): it only ends the update
    if (pod.metadata.labels?.[LIFECYCLE_STATE_LABEL] === 'Updating' && readInPlaceUpdateState(pod) && inPlaceUpdateCompleted(pod)) {
      store.update(PODS, { ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata.labels, [LIFECYCLE_STATE_LABEL]: stateAfterUpdate(pod) } } });
    }
    return undefined;
  }
  // not ready without an update in flight (an interrupted update): release the gate
  if (!readInPlaceUpdateState(pod)) {
    store.updateStatus(PODS, withInPlaceReadyCondition(pod, 'True', now));
    return undefined;
  }
  if (!inPlaceUpdateCompleted(pod)) return undefined;
  if (pod.metadata.labels?.[LIFECYCLE_STATE_LABEL] === 'Updating') {
    store.update(PODS, { ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata.labels, [LIFECYCLE_STATE_LABEL]: stateAfterUpdate(pod) } } });
  }
  const fresh = store.get(PODS, ns, name) as Pod | undefined;
  if (fresh) store.updateStatus(PODS, withInPlaceReadyCondition(fresh, 'True', now));
  return undefined;
}

/**
 * What kruise-daemon does for a container whose env reads changed metadata: it kills the container
 * and the kubelet starts it again with the new value (restartCount+1, not ready until the delay).
 */
function restartContainers(store: Store, pod: Pod, names: string[], now: Date): void {
  let current = pod;
  for (const name of names) {
    current = store.updateStatus(PODS, { ...current, status: restartContainerStatus(current, name, now.getTime()) }) as Pod;
  }
}

/** The in-place gates of the imitated kruise-manager, the same options the preview is given. */
export function inPlaceOptions(settings: Pick<SimulationSettings, 'kruise' | 'featureGates'>): InPlaceUpdatePlanOptions {
  return { envFromMetadata: envFromMetadataByDefault(settings.kruise), verticalScaling: featureEnabled(settings.featureGates, 'InPlaceWorkloadVerticalScaling') };
}

/**
 * The kubelet's in-place resize: container statuses report the new resources at once, and the
 * containers whose resizePolicy says RestartContainer are restarted (restartCount+1).
 */
function resizeContainers(store: Store, pod: Pod, restart: string[], now: Date): Pod {
  const status = structuredClone(pod.status ?? {});
  for (const cs of status.containerStatuses ?? []) {
    const c = pod.spec.containers.find((x) => x.name === cs.name);
    // with in-place pod resize the kubelet reports every container's actual resources
    if (c) (cs as unknown as Record<string, unknown>).resources = structuredClone(c.resources ?? {});
  }
  let current = store.updateStatus(PODS, { ...pod, status }) as Pod;
  for (const name of restart) current = store.updateStatus(PODS, { ...current, status: restartContainerStatus(current, name, now.getTime()) }) as Pod;
  return current;
}

/** `inPlaceUpdateStrategy.gracePeriodSeconds` of a CloneSet (either shape) or Advanced StatefulSet. */
export function inPlaceGraceSeconds(obj: KubeObject): number {
  const us = ((obj.spec as { updateStrategy?: Record<string, unknown> } | undefined)?.updateStrategy ?? {}) as Record<string, unknown>;
  const ru = (us.rollingUpdate ?? {}) as Record<string, unknown>;
  const strategy = (ru.inPlaceUpdateStrategy ?? us.inPlaceUpdateStrategy) as { gracePeriodSeconds?: number } | undefined;
  return typeof strategy?.gracePeriodSeconds === 'number' ? strategy.gracePeriodSeconds : 0;
}
