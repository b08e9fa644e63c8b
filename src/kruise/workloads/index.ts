// The adapter registry: `adapterFor(obj)` picks the adapter of a workload object by group and
// kind (versions are handled inside each adapter). Undefined for kinds without rollout rules.
import type { KubeObject } from '../types';
import type { WorkloadAdapter } from './types';
import { cloneSetAdapter } from './cloneset';
import { advancedStatefulSetAdapter } from './advanced-statefulset';
import { advancedDaemonSetAdapter } from './advanced-daemonset';
import { daemonSetAdapter, deploymentAdapter, statefulSetAdapter } from './native';
import { unitedDeploymentAdapter } from './uniteddeployment';

export { cloneSetAdapter, advancedStatefulSetAdapter, advancedDaemonSetAdapter, deploymentAdapter, statefulSetAdapter, daemonSetAdapter, unitedDeploymentAdapter };
export { isCloneSetV1beta1, cloneSetRollingPath } from './cloneset-shape';

export const WORKLOAD_ADAPTERS: readonly WorkloadAdapter[] = [
  cloneSetAdapter,
  advancedStatefulSetAdapter,
  advancedDaemonSetAdapter,
  deploymentAdapter,
  statefulSetAdapter,
  daemonSetAdapter,
  unitedDeploymentAdapter,
];

/** The adapter for a workload object (by apiVersion group and kind), or undefined. */
export function adapterFor(obj: KubeObject): WorkloadAdapter | undefined {
  return WORKLOAD_ADAPTERS.find((a) => a.matches(obj));
}

/** The adapter for an API group and kind ("apps.kruise.io", "StatefulSet" → Advanced StatefulSet). */
export function adapterForGroupKind(group: string, kind: string): WorkloadAdapter | undefined {
  return adapterFor({ apiVersion: group ? `${group}/v1` : 'v1', kind, metadata: {} });
}
