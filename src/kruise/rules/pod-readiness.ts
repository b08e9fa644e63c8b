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

/**
 * pkg/util/pods.go SetPodReadyCondition (Kruise v1.9.0): with a Ready condition and ContainersReady
 * True, Ready follows the readiness gates at once (False, reason ReadinessGatesNotReady, every unready
 * gate in the message). Kruise calls it in the same status write that turns a gate False
 * (inplace_update.go updateCondition), so a pod is never seen at its new revision still Ready; a
 * condition keeps its transition time unless its status changes (SetPodCondition). Mutates `pod`.
 */
export function setPodReadyCondition(pod: Pod, now: string): void {
  const conditions = pod.status?.conditions;
  if (!conditions) return;
  const ready = conditions.find((c) => c.type === 'Ready');
  if (!ready) return;
  if (conditions.find((c) => c.type === 'ContainersReady')?.status !== 'True') return;
  const unready: string[] = [];
  for (const gate of (pod.spec.readinessGates ?? []) as Array<{ conditionType?: string }>) {
    const type = gate.conditionType ?? '';
    const c = conditions.find((x) => x.type === type);
    if (!c) unready.push(`corresponding condition of pod readiness gate "${type}" does not exist.`);
    else if (c.status !== 'True') unready.push(`the status of pod readiness gate "${type}" is not "True", but ${c.status ?? ''}`);
  }
  const next: PodCondition =
    unready.length === 0 ? { type: 'Ready', status: 'True', lastTransitionTime: now } : { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: unready.join(', '), lastTransitionTime: now };
  if (ready.status === next.status) return;
  conditions[conditions.indexOf(ready)] = next;
}
