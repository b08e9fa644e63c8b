// The workload kinds a Kruise Rollout may name (pkg/util/controller_finder.go) and where the
// sandbox stores them. ro-deploy-bg's Deployment is here too, and the native DaemonSet (Kruise Rollout
// master's): the table is about storage only, which release releases which kind is release-control.ts'.
import type { GroupResource } from '../store-api';

const KINDS: Array<{ group: string; kind: string; gr: GroupResource }> = [
  { group: 'apps.kruise.io', kind: 'CloneSet', gr: { group: 'apps.kruise.io', resource: 'clonesets' } },
  { group: 'apps.kruise.io', kind: 'StatefulSet', gr: { group: 'apps.kruise.io', resource: 'statefulsets' } },
  { group: 'apps.kruise.io', kind: 'DaemonSet', gr: { group: 'apps.kruise.io', resource: 'daemonsets' } },
  { group: 'apps', kind: 'StatefulSet', gr: { group: 'apps', resource: 'statefulsets' } },
  { group: 'apps', kind: 'Deployment', gr: { group: 'apps', resource: 'deployments' } },
  { group: 'apps', kind: 'DaemonSet', gr: { group: 'apps', resource: 'daemonsets' } },
];

export const WORKLOAD_RESOURCES: GroupResource[] = KINDS.map((k) => k.gr);

/** The stored resource of a workloadRef (apiVersion "group/version", kind), or undefined when unsupported. */
export function workloadResourceOf(apiVersion: string, kind: string): GroupResource | undefined {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return KINDS.find((k) => k.group === group && k.kind === kind)?.gr;
}
