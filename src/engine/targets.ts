// From `TYPE/NAME` to the object and the pods it owns, for operations that act on a
// workload's pods (restart, predownload, pps). Parsing is checked before any request.
import type { KubeClient, KubeObject, ResourceType } from '../kube/client';
import type { Pod } from '../kruise/types';
import { usageError, failure } from '../cli/exit';
import { dns1123SubdomainProblem } from '../kruise/names';
import { labelSelectorString } from '../kruise/selectors';
import { getWithAdvancedHint } from '../kube/resolve';
import { nameMissing } from '../kube/targets';
import type { LabelSelectorShape } from '../kruise/builders/imagepulljob';
import { subsetTemplateOf } from '../kruise/rules/uniteddeployment';

export interface ResourceRef {
  type: string;
  name: string;
}

/** `TYPE/NAME` or `TYPE NAME` from positional args; exactly one reference. Throws exit 2. */
export function parseSingleRef(args: readonly string[], verb: string): ResourceRef {
  if (args.length === 0) throw usageError(`${verb} needs a resource: TYPE/NAME (e.g. cloneset/web)`);
  let type: string;
  let name: string;
  if (args[0]!.includes('/')) {
    if (args.length > 1) throw usageError(`${verb} takes one resource; unexpected argument "${args[1]}"`);
    const slash = args[0]!.indexOf('/');
    type = args[0]!.slice(0, slash);
    name = args[0]!.slice(slash + 1);
  } else {
    if (args.length < 2) throw nameMissing(args[0]!, `${verb} needs a name: ${args[0]}/NAME`);
    if (args.length > 2) throw usageError(`${verb} takes one resource; unexpected argument "${args[2]}"`);
    type = args[0]!;
    name = args[1]!;
  }
  if (type === '') throw usageError(`invalid resource "${args.join(' ')}": missing TYPE in TYPE/NAME`);
  if (!/^[a-z][a-z0-9.-]*$/i.test(type)) throw usageError(`invalid resource type "${type}"`);
  if (name === '') throw usageError(`invalid resource "${args.join(' ')}": missing NAME in TYPE/NAME`);
  if (name.includes('/') || name.includes('%')) throw usageError(`invalid name "${name.length > 80 ? `${name.slice(0, 80)}...` : name}": must not contain "/" or "%"`);
  const problem = dns1123SubdomainProblem(name);
  if (problem) throw usageError(`invalid name "${name.length > 80 ? `${name.slice(0, 80)}...` : name}": ${problem}`);
  return { type, name };
}

export const POD_RT: ResourceType = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
export const NODE_RT: ResourceType = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };
const REPLICASET_RT: ResourceType = { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true };

export interface WorkloadTarget {
  rt: ResourceType;
  /** Kind as the API names it ("CloneSet", "StatefulSet", "Pod"). */
  kind: string;
  name: string;
  namespace: string;
  /** The workload object (the pod itself for pod/NAME). */
  object: KubeObject;
  /** Label selector of the workload's pods (undefined for a pod). */
  selector?: LabelSelectorShape;
  pods: Pod[];
  /** How to list the pods again (a SidecarSet's matched pods are not owned by it); default: owned pods. */
  relistPods?: (signal: AbortSignal) => Promise<Pod[]>;
}

export function isPodType(rt: ResourceType): boolean {
  return rt.group === '' && rt.resource === 'pods';
}

/** Reads the object and the pods it controls (owner UID match; Deployments through their ReplicaSets). */
export async function resolveWorkload(client: KubeClient, ref: ResourceRef, signal?: AbortSignal): Promise<WorkloadTarget> {
  const rt = await client.resolve(ref.type);
  const namespace = client.namespace;
  if (!rt.namespaced) throw usageError(`${rt.resource} are not namespaced workloads: ${ref.type}/${ref.name}`);
  const object = await getWithAdvancedHint(client, rt, ref.name, namespace, { signal });
  if (isPodType(rt)) return { rt, kind: 'Pod', name: ref.name, namespace, object, pods: [object as Pod] };
  const spec = (object as { spec?: { selector?: LabelSelectorShape; template?: unknown } }).spec;
  if (!spec?.selector || !spec.template) throw failure(`${rt.kind} "${ref.name}" has no pod template and selector: not a workload`);
  const pods = await workloadPods(client, rt, object, spec.selector, namespace, signal);
  return { rt, kind: rt.kind, name: ref.name, namespace, object, selector: spec.selector, pods };
}

export async function workloadPods(
  client: KubeClient,
  rt: ResourceType,
  object: KubeObject,
  selector: LabelSelectorShape,
  namespace: string,
  signal?: AbortSignal,
): Promise<Pod[]> {
  const labelSelector = labelSelectorString(selector);
  if (labelSelector === '') throw failure(`${rt.kind} "${object.metadata.name}" has an empty selector`);
  const owners = new Set([object.metadata.uid]);
  const ownedBy = (o: KubeObject, uids: ReadonlySet<string | undefined>): boolean => o.metadata.ownerReferences?.some((r) => r.controller && uids.has(r.uid)) ?? false;
  // A UnitedDeployment owns its subset workloads (rules/uniteddeployment.ts), which own the pods.
  const subset = rt.group === 'apps.kruise.io' && rt.kind === 'UnitedDeployment' ? subsetTemplateOf(object)?.info : undefined;
  if (subset) {
    const [group, version] = subset.apiVersion.includes('/') ? subset.apiVersion.split('/') as [string, string] : ['', subset.apiVersion];
    const subsetRt: ResourceType = { group, version, resource: subset.resource, kind: subset.kind, namespaced: true };
    for (const w of (await client.list(subsetRt, namespace, { labelSelector, signal })).items) if (ownedBy(w, owners)) owners.add(w.metadata.uid);
  }
  if ((rt.group === 'apps' && rt.resource === 'deployments') || subset?.kind === 'Deployment') {
    const rss = await client.list(REPLICASET_RT, namespace, { labelSelector, signal });
    for (const rs of rss.items) if (ownedBy(rs, owners)) owners.add(rs.metadata.uid);
  }
  const list = await client.list<Pod>(POD_RT, namespace, { labelSelector, signal, limit: 500 });
  return list.items.filter((p) => p.metadata.ownerReferences?.some((o) => o.controller && owners.has(o.uid)));
}
