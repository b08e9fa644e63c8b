// Reads a workload's revision history from the cluster: one list of its ControllerRevisions
// (ReplicaSets for Deployment) filtered server-side by the workload's selector.
import type { KubeClient, KubeObject } from '../../kube/client';
import type { Pod } from '../../kruise/types';
import type { WorkloadAdapter } from '../../kruise/workloads/types';
import { labelSelectorString, revisionSourceFor, workloadRevisions, type Revision, type RevisionSource } from '../../kruise/revisions';

export async function loadRevisions(client: KubeClient, obj: KubeObject, adapter: WorkloadAdapter): Promise<{ source: RevisionSource; revisions: Revision[] }> {
  const source = revisionSourceFor(adapter.kindName);
  const rt = await client.resolve(source.resource === 'replicasets' ? 'replicasets' : 'controllerrevisions');
  const selector = source.unlabeled ? '' : labelSelectorString(adapter.selector(obj));
  const list = await client.list(rt, obj.metadata.namespace ?? client.namespace, { labelSelector: selector || undefined, limit: 500 });
  return { source, revisions: workloadRevisions(obj, source, list.items) };
}

/** The workload's pods (server-side selector, paginated); none for an empty selector, which would match the whole namespace. */
/** The workload's pods; `trim` keeps only what the caller reads of each, as the list is read (a 5,000-pod list stays small). */
/** The workload's pods; `trim` maps each as it is decoded (undefined drops it). */
export async function loadPods(client: KubeClient, obj: KubeObject, adapter: Pick<WorkloadAdapter, 'selector'>, signal?: AbortSignal, trim?: (pod: Pod) => Pod | undefined): Promise<Pod[]> {
  const selector = labelSelectorString(adapter.selector(obj));
  if (!selector) return [];
  const rt = await client.resolve('pods');
  const mapItem = trim ? (item: KubeObject) => trim(item as Pod) as KubeObject | undefined : undefined;
  const list = await client.list<Pod & KubeObject>(rt, obj.metadata.namespace ?? client.namespace, { labelSelector: selector, limit: 500, signal, mapItem });
  return list.items;
}
