// Kruise's pkg/control/pubcontrol against the sandbox store: the one check-and-spend that both the pod
// webhook (pub.ts) and Kruise's workload controllers (CloneSet, Advanced StatefulSet / DaemonSet before
// an in-place update) call, so a pod admitted once is recorded in the PUB's status and admitted again.
// The rules are src/kruise/rules/pub.ts; this module only reads the PUB and writes its status back.
import { podRelatedPubName, validatePodForPub, type KruiseRelease, type PubDecision } from '../../kruise/rules/pub';
import type { BudgetOperation } from '../../kruise/budget-types';
import type { KubeObject, Pod } from '../../kruise/types';
import { featureEnabled } from '../feature-gates';
import type { GroupResource, SimulationSettings, Store } from '../store-api';
import { controllerOf } from './pods';

export const PUBS: GroupResource = { group: 'policy.kruise.io', resource: 'podunavailablebudgets' };

/** Where a pod's controller lives, to tell whether it is being deleted (then v1.3+ does not protect its pods). */
const OWNER_KINDS: Record<string, GroupResource> = {
  'apps.kruise.io/CloneSet': { group: 'apps.kruise.io', resource: 'clonesets' },
  'apps.kruise.io/StatefulSet': { group: 'apps.kruise.io', resource: 'statefulsets' },
  'apps.kruise.io/DaemonSet': { group: 'apps.kruise.io', resource: 'daemonsets' },
  'apps/ReplicaSet': { group: 'apps', resource: 'replicasets' },
  'apps/StatefulSet': { group: 'apps', resource: 'statefulsets' },
  'apps/DaemonSet': { group: 'apps', resource: 'daemonsets' },
};

function ownerGone(store: Store, pod: Pod): boolean {
  const ref = controllerOf(pod);
  if (!ref) return false;
  const gr = OWNER_KINDS[`${ref.apiVersion.split('/')[0]}/${ref.kind}`];
  if (!gr) return false;
  let owner: KubeObject | undefined;
  try {
    owner = store.get(gr, pod.metadata.namespace, ref.name);
  } catch {
    return false; // a kind this profile does not serve
  }
  return !owner || owner.metadata.uid !== ref.uid || Boolean(owner.metadata.deletionTimestamp);
}

export function pubRelease(settings: SimulationSettings): KruiseRelease {
  return settings.kruise;
}

/**
 * PodUnavailableBudgetValidatePod for `pod` (as it is before the operation): reads the PUB its
 * related-pub annotation names and, when admitting by spending budget, writes the PUB's status.
 */
export function checkPodAgainstPub(store: Store, pod: Pod, operation: BudgetOperation, settings: SimulationSettings, dryRun = false): PubDecision {
  const name = podRelatedPubName(pod);
  if (!name) return { allowed: true, reason: 'no related PodUnavailableBudget' };
  // the workload of the pod is gone or going: its pods are no longer protected
  if (ownerGone(store, pod)) return { allowed: true, reason: 'workload deleted' };
  const pub: KubeObject | undefined = store.get(PUBS, pod.metadata.namespace, name);
  const decision = validatePodForPub(pod, operation, pub, {
    release: pubRelease(settings),
    inPlacePodVerticalScaling: featureEnabled(settings.featureGates, 'InPlacePodVerticalScaling'),
    now: new Date(),
    dryRun,
  });
  if (decision.allowed && decision.status && pub) store.updateStatus(PUBS, { ...pub, status: decision.status });
  return decision;
}

/**
 * Kruise's workload controllers before updating a pod (cloneset_update.go, with the
 * PodUnavailableBudgetUpdateGate on): false holds the pod back; the caller looks again in a second.
 */
export function pubAllowsWorkloadUpdate(store: Store, pod: Pod, settings: SimulationSettings): boolean {
  if (!featureEnabled(settings.featureGates, 'PodUnavailableBudgetUpdateGate')) return true;
  return checkPodAgainstPub(store, pod, 'UPDATE', settings).allowed;
}

/** Kruise's requeue after a PUB refusal (DurationStore.Push(key, time.Second)). */
export const PUB_REFUSED_REQUEUE_MS = 1000;

/**
 * Advanced StatefulSet / DaemonSet do not ask the PUB themselves: the pod webhook judges their in-place
 * write. The sandbox's in-place update first turns the pod's readiness gate False, which here makes the
 * pod unready at once (a real kubelet lags), so the webhook would wave it through: the check is made
 * (and the budget spent) just before, on the pod as the webhook would still see it.
 */
export function pubAdmitsUpdate(store: Store, pod: Pod, settings: SimulationSettings): boolean {
  return pubAllowsWorkloadUpdate(store, pod, settings);
}
