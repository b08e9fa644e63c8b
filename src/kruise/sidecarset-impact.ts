// Which workloads' pods a SidecarSet change reaches, for the warning `set image sidecarset/...`
// prints before writing: the matched pods grouped by their controlling workload (a ReplicaSet's
// pods under its Deployment). Pure: the caller lists the pods and the ReplicaSets' owners.
import type { Pod } from './types';
import { sidecarSetMatchesPod, type SidecarSetView } from './workloads/sidecarset';
import { sidecarSetPartitionPods } from './progress-sidecarset';
import { compareText } from '../lib/compare';

export interface ImpactGroup {
  /** "cloneset/web", "deployment/api", "pod/lonely". */
  owner: string;
  namespace: string;
  count: number;
}

export interface SidecarSetImpact {
  matched: number;
  groups: ImpactGroup[];
  /** Pods the partition keeps on the old sidecars. */
  partition: number;
}

/** `ownersOfReplicaSets`: "namespace/replicaset" → its controller ("deployment/api"). */
export function sidecarSetImpact(view: SidecarSetView, pods: readonly Pod[], ownersOfReplicaSets: ReadonlyMap<string, string>): SidecarSetImpact {
  const counts = new Map<string, ImpactGroup>();
  let matched = 0;
  for (const pod of pods) {
    if (!sidecarSetMatchesPod(view, pod)) continue;
    matched++;
    const ns = pod.metadata.namespace ?? '';
    const ref = pod.metadata.ownerReferences?.find((o) => o.controller);
    let owner = ref ? `${ref.kind.toLowerCase()}/${ref.name}` : `pod/${pod.metadata.name ?? ''}`;
    if (ref?.kind === 'ReplicaSet') owner = ownersOfReplicaSets.get(`${ns}/${ref.name}`) ?? owner;
    const key = `${ns}\u0000${owner}`;
    const g = counts.get(key) ?? { owner, namespace: ns, count: 0 };
    g.count++;
    counts.set(key, g);
  }
  const groups = [...counts.values()].sort((a, b) => b.count - a.count || compareText(a.namespace, b.namespace) || compareText(a.owner, b.owner));
  return { matched, groups, partition: Math.min(matched, sidecarSetPartitionPods(view.partition, matched)) };
}

/**
 * `Warning: sidecarset "log" will update the sidecar of 5 pods: cloneset/web (3), deployment/api (2)`,
 * with the partition and a pause noted; init containers reach only pods created from now on
 * (Kruise injects them at creation and never upgrades them in place).
 */
export function impactWarning(view: SidecarSetView, impact: SidecarSetImpact, changed: { sidecars: string[]; init: string[] }): string[] {
  const lines: string[] = [];
  const label = `sidecarset "${view.name}"`;
  const oneNamespace = new Set(impact.groups.map((g) => g.namespace)).size <= 1;
  const list = impact.groups.map((g) => `${g.owner} (${g.count}${oneNamespace ? '' : ` in ${g.namespace}`})`).join(', ');
  if (changed.sidecars.length > 0) {
    const what = changed.sidecars.length === 1 ? `sidecar "${changed.sidecars[0]}"` : `sidecars ${changed.sidecars.map((c) => `"${c}"`).join(', ')}`;
    if (impact.matched === 0) lines.push(`Warning: ${label} matches no pods: ${what} changes only in pods created from now on`);
    else {
      const notes: string[] = [];
      if (impact.partition > 0) notes.push(`the partition keeps ${impact.partition} on the old sidecars`);
      if (view.paused) notes.push('it is paused: nothing changes until `rollout resume`');
      if (view.updateType === 'NotUpdate') notes.push('updateStrategy.type NotUpdate: running pods keep the old sidecars');
      lines.push(`Warning: ${label} will update the ${what} in place in ${impact.matched} ${impact.matched === 1 ? 'pod' : 'pods'}: ${list}${notes.length ? ` (${notes.join('; ')})` : ''}`);
    }
  }
  if (changed.init.length > 0) {
    lines.push(`Warning: ${label}: init containers (${changed.init.join(', ')}) are injected only into pods created from now on; running pods keep theirs`);
  }
  return lines;
}
