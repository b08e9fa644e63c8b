// Which pods a workload owns and how many it wants, as budgets count them: Kruise's controllerfinder
// (GetExpectedScaleForPods, GetPodsForRef) and kube's disruption controller (finders by controllerRef,
// a ReplicaSet's Deployment). Pure: the workloads are handed in as plain objects.
import type { KubeObject, OwnerReference, Pod } from '../types';

export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** kube's IsPodActive: not Succeeded, not Failed, not being deleted. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

function groupOf(apiVersion: string | undefined): string {
  const parts = (apiVersion ?? '').split('/');
  return parts.length === 2 ? parts[0]! : '';
}

/** The replicas a workload wants: spec.replicas (default 1), or a DaemonSet's desiredNumberScheduled. */
function replicasOf(w: KubeObject): number {
  const spec = (w.spec ?? {}) as { replicas?: number };
  if (w.kind === 'DaemonSet') return ((w.status ?? {}) as { desiredNumberScheduled?: number }).desiredNumberScheduled ?? 0;
  return typeof spec.replicas === 'number' ? spec.replicas : 1;
}

/** A workload that sets the scale of pods it (or its ReplicaSet) owns: a ReplicaSet defers to its Deployment. */
function scaleOwner(uid: string, workloads: readonly KubeObject[]): KubeObject | undefined {
  const w = workloads.find((o) => o.metadata.uid === uid);
  if (!w) return undefined;
  if (w.kind === 'ReplicaSet') {
    const up = controllerOf(w);
    if (up?.kind === 'Deployment') return workloads.find((o) => o.metadata.uid === up.uid) ?? w;
  }
  return w;
}

/** GetExpectedScaleForPods: the summed scale of the pods' distinct controllers (pods without one add nothing). */
export function expectedScaleForPods(pods: readonly Pod[], workloads: readonly KubeObject[]): number {
  const scales = new Map<string, number>();
  for (const pod of pods) {
    const ref = controllerOf(pod);
    if (!ref) continue;
    const w = scaleOwner(ref.uid, workloads);
    if (!w || w.metadata.deletionTimestamp) continue;
    scales.set(w.metadata.uid ?? w.metadata.name ?? '', replicasOf(w));
  }
  let total = 0;
  for (const n of scales.values()) total += n;
  return total;
}

export interface WorkloadRef {
  apiVersion?: string;
  kind?: string;
  name?: string;
}

/** GetPodsForRef: the (active) pods of the workload a targetRef names, by group, kind and name, and its scale. */
export function podsForRef(ref: WorkloadRef, namespace: string, pods: readonly Pod[], workloads: readonly KubeObject[]): { pods: Pod[]; expected: number } {
  const w = workloads.find(
    (o) => o.kind === ref.kind && o.metadata.name === ref.name && (o.metadata.namespace ?? '') === namespace && groupOf(o.apiVersion) === groupOf(ref.apiVersion),
  );
  // a missing, deleting or scaled-to-zero workload has no pods to protect (GetPodsForRef returns none)
  if (!w || !w.metadata.uid || w.metadata.deletionTimestamp || replicasOf(w) === 0) return { pods: [], expected: 0 };
  // a Deployment owns its pods through ReplicaSets
  const owners = new Set([w.metadata.uid]);
  if (w.kind === 'Deployment') for (const rs of workloads) if (rs.kind === 'ReplicaSet' && controllerOf(rs)?.uid === w.metadata.uid && rs.metadata.uid) owners.add(rs.metadata.uid);
  const owned = pods.filter((p) => (p.metadata.namespace ?? '') === namespace && owners.has(controllerOf(p)?.uid ?? '') && isPodActive(p));
  return { pods: owned, expected: replicasOf(w) };
}
