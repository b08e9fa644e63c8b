// Kruise's KruisePodReady readiness gate (kruise-semantics: CRR unreadyGracePeriodSeconds, lifecycle
// markPodNotReady): the pod webhook injects the gate at creation (pkg/webhook/pod/mutating/pod_readiness.go
// injectPodReadinessGate), the podreadiness controller sets the condition True once
// (pkg/controller/podreadiness Reconcile); Kruise flips it False later to take the pod out of
// Service endpoints without touching its containers.
import type { Pod } from '../types';
import { KRUISE_POD_READY_CONDITION } from './crr';

export { KRUISE_POD_READY_CONDITION };

export type PodCondition = NonNullable<NonNullable<Pod['status']>['conditions']>[number];

const KRUISE_GROUP = 'apps.kruise.io';

/** pkg/util/pods.go IsPodOwnedByKruise: the controller owner reference's API group is apps.kruise.io. */
export function isPodOwnedByKruise(pod: Pod): boolean {
  const ref = (pod.metadata.ownerReferences ?? []).find((r) => r.controller === true);
  if (!ref) return false;
  const slash = ref.apiVersion.indexOf('/');
  return slash >= 0 && ref.apiVersion.slice(0, slash) === KRUISE_GROUP;
}

export function hasKruisePodReadyGate(pod: Pod): boolean {
  const gates = (pod.spec.readinessGates ?? []) as Array<{ conditionType?: string }>;
  return gates.some((g) => g.conditionType === KRUISE_POD_READY_CONDITION);
}

/**
 * injectPodReadinessGate on CREATE: the gate goes into pods of Kruise workloads, and into every
 * pod when the KruisePodReadinessGate feature gate is on (off by default in every release).
 * Returns the pod to store, or undefined when nothing is injected.
 */
export function injectKruisePodReadyGate(pod: Pod, featureGateOn: boolean): Pod | undefined {
  if (!isPodOwnedByKruise(pod) && !featureGateOn) return undefined;
  if (hasKruisePodReadyGate(pod)) return undefined; // InjectReadinessGateToPod: already there
  const next = structuredClone(pod);
  next.spec.readinessGates = [...((next.spec.readinessGates ?? []) as Array<{ conditionType: string }>), { conditionType: KRUISE_POD_READY_CONDITION }];
  return next;
}

/**
 * podreadiness Reconcile: a live pod with the gate and no KruisePodReady condition gets it True;
 * an existing condition (True, or False held by a CRR or a lifecycle hook) is left alone.
 * Returns the condition to add, or undefined.
 */
export function initialKruisePodReadyCondition(pod: Pod, now: string): PodCondition | undefined {
  if (pod.metadata.deletionTimestamp || !hasKruisePodReadyGate(pod)) return undefined;
  if ((pod.status?.conditions ?? []).some((c) => c.type === KRUISE_POD_READY_CONDITION)) return undefined;
  return { type: KRUISE_POD_READY_CONDITION, status: 'True', lastTransitionTime: now };
}
