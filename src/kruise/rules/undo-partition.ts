// What a workload's own partition keeps of the revision `rollout undo` leaves. Undo changes the
// template, not the partition, and each kind keeps the partition's pods as it always does:
// - CloneSet, Advanced DaemonSet: the partition counts pods not at the update revision
//   (cloneset_update.go calculateDiffsWithExpectation; daemonset rolling update), so up to that many
//   pods of the revision left stay on it;
// - (Advanced) StatefulSet: the lowest ordinals under the partition are not touched, so those of them
//   already at the revision left stay on it (stateful_set_control.go updateStatefulSet: ordinals ≥ partition);
// - UnitedDeployment: each subset by its own kind, with its manual partition
//   (uniteddeployment_controller.go calcNextPartitions writes them as they are).
// A workload a Kruise Rollout releases is not judged here: the Rollout hands the partition back.
import type { KubeObject, Pod } from '../types';
import type { WorkloadAdapter } from '../workloads/types';
import { numAt } from '../workloads/access';
import { podAtRevision, type Revision, type RevisionSource } from '../revisions';
import { advancedStatefulSetUpdateOrder, ordinalOfPod } from '../partition';
import { udSubsetPlan } from '../workloads/uniteddeployment';
import { manualPartitions, SUBSET_NAME_LABEL, subsetTemplateOf } from './uniteddeployment';

export interface KeptAfterUndo {
  /** A UnitedDeployment's subset (undefined: the workload's own partition). */
  subset?: string;
  /** The partition as written ("50%", "3"). */
  partition: string;
  /** Pods it keeps at the revision left. */
  kept: number;
}

/** Whether a partition could keep anything (no pods needed to say no). */
export function partitionMayKeep(adapter: WorkloadAdapter, workload: KubeObject): boolean {
  if (adapter.kindName === 'UnitedDeployment') return Object.values(manualPartitions(workload)).some((p) => p > 0);
  return adapter.partitionReplicas(workload) > 0;
}

/** The pods `workload`'s partition keeps at `left` once its template goes back (none: an empty list). */
export function keptAfterUndo(adapter: WorkloadAdapter, workload: KubeObject, pods: readonly Pod[], left: Revision, source: RevisionSource): KeptAfterUndo[] {
  const atLeft = pods.filter((p) => !p.metadata.deletionTimestamp && podAtRevision(p, left, source));
  if (atLeft.length === 0) return [];
  if (adapter.kindName === 'UnitedDeployment') return keptBySubsets(workload, atLeft);
  const partition = adapter.partition(workload);
  const keep = adapter.partitionReplicas(workload);
  if (partition === undefined || keep <= 0) return [];
  const kept = statefulKind(adapter.kindName) ? keptOrdinals(workload, atLeft, keep, adapter.kindName === 'AdvancedStatefulSet') : Math.min(keep, atLeft.length);
  return kept > 0 ? [{ partition: String(partition), kept }] : [];
}

function statefulKind(kind: WorkloadAdapter['kindName']): boolean {
  return kind === 'StatefulSet' || kind === 'AdvancedStatefulSet';
}

/** Pods of `atLeft` whose ordinal the partition keeps: the lowest `keep` ordinals (reserved ones skipped by an ASTS). */
function keptOrdinals(workload: KubeObject, atLeft: readonly Pod[], keep: number, advanced: boolean): number {
  const name = workload.metadata.name ?? '';
  const { kept } = advancedStatefulSetUpdateOrder({
    replicas: numAt(workload, 'spec', 'replicas') ?? 1,
    partitionReplicas: keep,
    start: numAt(workload, 'spec', 'ordinals', 'start') ?? 0,
    reserveOrdinals: advanced ? (workload.spec as { reserveOrdinals?: unknown } | undefined)?.reserveOrdinals : undefined,
  });
  const ordinals = new Set(kept);
  return atLeft.filter((p) => {
    const o = ordinalOfPod(name, p.metadata.name ?? '');
    return o !== undefined && ordinals.has(o);
  }).length;
}

/** Per subset, by the subsets' kind: a CloneSet subset keeps up to its partition; StatefulSet subsets their lowest ordinals. */
function keptBySubsets(ud: KubeObject, atLeft: readonly Pod[]): KeptAfterUndo[] {
  const kind = subsetTemplateOf(ud)?.info.kind;
  const plan = udSubsetPlan(ud);
  const out: KeptAfterUndo[] = [];
  for (const [subset, partition] of plan.partitions) {
    if (partition <= 0) continue;
    const pods = atLeft.filter((p) => p.metadata.labels?.[SUBSET_NAME_LABEL] === subset);
    if (pods.length === 0) continue;
    let kept: number;
    if (kind === 'CloneSet') kept = Math.min(partition, pods.length);
    else if (kind === 'StatefulSet') {
      // The subset workload's name is generated: read each pod's ordinal from the end of its name.
      kept = pods.filter((p) => {
        const m = /-(\d+)$/.exec(p.metadata.name ?? '');
        return m !== null && Number(m[1]) < partition;
      }).length;
    } else kept = 0;
    if (kept > 0) out.push({ subset, partition: String(partition), kept });
  }
  return out;
}

/** `partition 50% keeps 3 pods at revision 2 (nginx:1.27): set partition 0 to roll them back` */
export function keptAfterUndoText(k: KeptAfterUndo, revision: number, images: readonly string[]): string {
  const pods = `${k.kept} ${k.kept === 1 ? 'pod' : 'pods'}`;
  const them = k.kept === 1 ? 'it' : 'them';
  const at = `revision ${revision}${images.length ? ` (${images.join(', ')})` : ''}`;
  if (k.subset !== undefined) {
    return `subset "${k.subset}"'s partition ${k.partition} keeps ${pods} at ${at}: set spec.updateStrategy.manualUpdate.partitions.${k.subset} to 0 to roll ${them} back`;
  }
  return `partition ${k.partition} keeps ${pods} at ${at}: set partition 0 to roll ${them} back`;
}

