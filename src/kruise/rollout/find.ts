// Which Rollout releases a workload, as Kruise Rollout's workload webhook decides it
// (openkruise/rollouts v0.6.2 pkg/webhook/workload/mutating/workload_update_handler.go
// fetchMatchedRollout): among the Rollouts of the workload's namespace, skip those being deleted and
// those in phase Disabled, and take the first whose workloadRef has the workload's API group (any
// version), kind and name. Pure: the caller lists the Rollouts (one request).
import type { KubeObject } from '../types';
import { readRollout, RolloutReadError } from './read';

export interface WorkloadIdentity {
  /** "apps.kruise.io/v1alpha1", "apps/v1". */
  apiVersion: string;
  kind: string;
  name: string;
}

/** The API group of an apiVersion ("apps/v1" → "apps", "v1" → ""), like schema.ParseGroupVersion. */
export function apiGroupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

/** The Rollout that releases `workload`, or undefined. Rollouts of an unknown apiVersion are skipped. */
export function rolloutForWorkload(rollouts: readonly KubeObject[], workload: WorkloadIdentity): KubeObject | undefined {
  const group = apiGroupOf(workload.apiVersion);
  for (const rollout of rollouts) {
    if (rollout.metadata.deletionTimestamp) continue;
    let view;
    try {
      view = readRollout(rollout);
    } catch (err) {
      if (err instanceof RolloutReadError) continue;
      throw err;
    }
    if (view.status.phase === 'Disabled') continue;
    const ref = view.workloadRef;
    if (!ref) continue;
    if (apiGroupOf(ref.apiVersion) === group && ref.kind === workload.kind && ref.name === workload.name) return rollout;
  }
  return undefined;
}
