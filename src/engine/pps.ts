// PersistentPodState operations against the cluster: the StatefulSet a PPS targets, the
// one-PPS-per-target rule, and the pods of a PPS's target (for get/describe).
import type { KubeClient, KubeObject, ResourceType } from '../kube/client';
import type { Pod } from '../kruise/types';
import { failure, usageError } from '../cli/exit';
import { isNotFound } from '../kube/errors';
import { getWithAdvancedHint } from '../kube/resolve';
import { splitApiVersion } from '../kruise/api-version';
import { resolveWorkload, workloadPods, type ResourceRef, type WorkloadTarget } from './targets';
import { ppsTargets, readPpsSpec } from '../kruise/rules/pps';

export function isStatefulSetType(rt: ResourceType): boolean {
  return rt.kind === 'StatefulSet' && (rt.group === 'apps' || rt.group === 'apps.kruise.io');
}

export async function ppsResourceType(client: KubeClient): Promise<ResourceType> {
  if (!(await client.isServed('apps.kruise.io', 'persistentpodstates'))) {
    throw failure('this cluster does not serve persistentpodstates.apps.kruise.io (is OpenKruise v1.2+ installed?)');
  }
  return client.resolve('persistentpodstates.apps.kruise.io');
}

/** The StatefulSet named by --for, with its pods. Exit 2 for another kind, 1 when missing. */
export async function resolveStatefulSet(client: KubeClient, ref: ResourceRef, signal?: AbortSignal): Promise<WorkloadTarget> {
  const rt = await client.resolve(ref.type);
  if (!isStatefulSetType(rt)) {
    throw usageError(`--for must name a StatefulSet (sts/NAME or asts/NAME), not ${rt.kind.toLowerCase()}${rt.group ? `.${rt.group}` : ''}/${ref.name}`);
  }
  return resolveWorkload(client, ref, signal);
}

/** Other PPS in the namespace already targeting this StatefulSet (Kruise allows one). */
export async function ppsTargeting(client: KubeClient, ppsRt: ResourceType, sts: WorkloadTarget, signal?: AbortSignal): Promise<KubeObject[]> {
  const list = await client.list(ppsRt, sts.namespace, { signal });
  const ref = { apiVersion: `${sts.rt.group}/${sts.rt.version}`, kind: 'StatefulSet', name: sts.name };
  return list.items.filter((p) => ppsTargets(readPpsSpec(p), ref));
}

/** The pods of the PPS's target StatefulSet ([] when the StatefulSet is gone). */
export async function ppsTargetPods(client: KubeClient, pps: KubeObject, signal?: AbortSignal): Promise<{ pods: Pod[]; targetFound: boolean }> {
  const t = readPpsSpec(pps).targetRef;
  if (!t?.name || !t.apiVersion) return { pods: [], targetFound: false };
  const { group, version } = splitApiVersion(t.apiVersion);
  try {
    const rt = await client.resolve(`statefulsets.${version}.${group}`);
    const obj = await getWithAdvancedHint(client, rt, t.name, pps.metadata.namespace ?? client.namespace, { signal });
    const selector = (obj.spec as { selector?: { matchLabels?: Record<string, string> } } | undefined)?.selector;
    const pods = selector ? await workloadPods(client, rt, obj, selector, obj.metadata.namespace ?? client.namespace, signal) : [];
    return { pods, targetFound: true };
  } catch (err) {
    if (isNotFound(err)) return { pods: [], targetFound: false };
    throw err;
  }
}
