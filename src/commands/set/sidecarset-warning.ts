// Before `set image sidecarset/NAME` writes: which workloads' pods the change reaches (one pod
// list over the SidecarSet's selector, one GET per ReplicaSet to name its Deployment), on stderr.
import type { KubeClient, ResourceType } from '../../kube/client';
import type { KubeObject, Pod } from '../../kruise/types';
import { impactWarning, sidecarSetImpact } from '../../kruise/sidecarset-impact';
import { labelSelectorString } from '../../kruise/selectors';
import { readSidecarSet } from '../../kruise/workloads/sidecarset';
import type { ContainerChange } from '../../kruise/containers';

const POD_RT: ResourceType = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const RS_RT: ResourceType = { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true };

export async function sidecarSetChangeWarnings(client: KubeClient, obj: KubeObject, changes: readonly ContainerChange[]): Promise<string[]> {
  const view = readSidecarSet(obj);
  const sidecars = [...new Set(changes.filter((c) => c.list === 'containers').map((c) => c.container))];
  const init = [...new Set(changes.filter((c) => c.list === 'initContainers').map((c) => c.container))];
  if (sidecars.length === 0 && init.length === 0) return [];
  const selector = labelSelectorString(view.selector);
  const pods = (await client.list<Pod>(POD_RT, view.namespace, { labelSelector: selector || undefined, limit: 500 })).items;
  const owners = new Map<string, string>();
  for (const pod of pods) {
    const ref = pod.metadata.ownerReferences?.find((o) => o.controller && o.kind === 'ReplicaSet');
    const key = `${pod.metadata.namespace ?? ''}/${ref?.name ?? ''}`;
    if (!ref || owners.has(key)) continue;
    try {
      const rs = await client.get(RS_RT, ref.name, pod.metadata.namespace);
      const top = rs.metadata.ownerReferences?.find((o) => o.controller);
      owners.set(key, top ? `${top.kind.toLowerCase()}/${top.name}` : `replicaset/${ref.name}`);
    } catch {
      owners.set(key, `replicaset/${ref.name}`); // gone or not readable: name the ReplicaSet itself
    }
  }
  return impactWarning(view, sidecarSetImpact(view, pods, owners), { sidecars, init });
}
