// Reading the arithmetic's input from a manifest or live object: only the -f and TYPE/NAME
// forms load this (and the workload adapters); the offline form with flags never does.
import { usageError } from '../../cli/exit';
import type { PartitionInput, PartitionKind } from '../../kruise/partition';
import type { KubeObject } from '../../kruise/types';
import { at } from '../../kruise/workloads/access';
import { adapterFor, cloneSetRollingPath } from '../../kruise/workloads/index';
import { isSidecarSet } from '../../kruise/workloads/sidecarset';
import { applySubsetTemplate, subsetsOf, subsetTemplateOf } from '../../kruise/rules/uniteddeployment';
import { udSubsetPlan } from '../../kruise/workloads/uniteddeployment';

/** Which arithmetic applies to a manifest / live object; a usage error for kinds without a partition. */
export function partitionKindOf(obj: KubeObject): PartitionKind {
  if (isSidecarSet(obj)) return 'sidecarset';
  const adapter = adapterFor(obj);
  const name = obj.metadata?.name ? ` "${obj.metadata.name}"` : '';
  switch (adapter?.kindName) {
    case 'CloneSet':
      return 'cloneset';
    case 'AdvancedStatefulSet':
      return 'asts';
    case 'AdvancedDaemonSet':
      return 'ads';
    case 'StatefulSet':
      return 'statefulset';
    case 'Deployment':
    case 'DaemonSet':
      throw usageError(`${obj.kind}${name} has no partition: explain partition supports CloneSet, Advanced StatefulSet, Advanced DaemonSet and StatefulSet`);
    default:
      throw usageError(`${obj.apiVersion ?? '?'} ${obj.kind ?? '?'}${name} is not a workload with a partition (CloneSet, Advanced StatefulSet, Advanced DaemonSet, StatefulSet)`);
  }
}

/** Reads the arithmetic's input from an object exactly as typed (raw values, no coercion). */
export function inputFromObject(obj: KubeObject): PartitionInput {
  const kind = partitionKindOf(obj);
  if (kind === 'sidecarset') return sidecarSetInput(obj);
  const adapter = adapterFor(obj)!;
  const type = at(obj, 'spec', 'updateStrategy', 'type');
  // Raw values, so that a wrongly typed field (a quoted "99") reaches the validation as written.
  const rollingPath = kind === 'cloneset' ? cloneSetRollingPath(obj) : ['spec', 'updateStrategy', 'rollingUpdate'];
  const raw = (field: string): unknown => at(obj, ...rollingPath, field);
  const replicasRaw = kind === 'ads' ? at(obj, 'status', 'desiredNumberScheduled') : at(obj, 'spec', 'replicas');
  if (replicasRaw !== undefined && (typeof replicasRaw !== 'number' || !Number.isInteger(replicasRaw) || replicasRaw < 0)) {
    throw usageError(`invalid replicas ${JSON.stringify(replicasRaw)} in ${obj.kind} "${obj.metadata?.name ?? ''}": expected an integer ≥ 0`);
  }
  const input: PartitionInput = {
    kind,
    replicas: replicasRaw as number | undefined,
    partition: raw('partition'),
    maxUnavailable: raw('maxUnavailable'),
    maxSurge: kind === 'cloneset' || kind === 'ads' ? raw('maxSurge') : undefined,
    paused: adapter.paused(obj),
    onDelete: type === 'OnDelete',
  };
  const start = at(obj, 'spec', 'ordinals', 'start');
  if (typeof start === 'number') input.ordinalsStart = start;
  if (kind === 'asts') input.reserveOrdinals = at(obj, 'spec', 'reserveOrdinals');
  return input;
}

/** A SidecarSet: its "replicas" are the pods it matched (status.matchedPods; a manifest without status: --replicas). */
function sidecarSetInput(obj: KubeObject): PartitionInput {
  const matched = at(obj, 'status', 'matchedPods');
  const raw = (field: string): unknown => at(obj, 'spec', 'updateStrategy', field);
  return {
    kind: 'sidecarset',
    replicas: typeof matched === 'number' ? matched : undefined,
    partition: raw('partition'),
    maxUnavailable: raw('maxUnavailable'),
    paused: raw('paused') === true,
  };
}

export function hasPartitionKind(obj: KubeObject): boolean {
  try {
    partitionKindOf(obj);
    return true;
  } catch {
    return false;
  }
}

/** inputFromObject, refusing a --kind that contradicts the object. */
export function inputFromObjectChecked(obj: KubeObject, kindFlag: PartitionKind | undefined): PartitionInput {
  const input = inputFromObject(obj);
  if (kindFlag && kindFlag !== input.kind) {
    throw usageError(`--kind=${kindFlag} does not match ${obj.kind} "${obj.metadata?.name ?? ''}" (${input.kind})`);
  }
  return input;
}

/**
 * A UnitedDeployment stands for its subsets: one subset workload per subset (or only `--subset`),
 * built from the UD template with the replicas and partition Kruise's allocator gives it, named
 * `<ud>/<subset>`. Other objects pass through; --subset on them, or an unknown subset, is a usage error.
 */
export function expandSubsets(obj: KubeObject, subset: string | undefined): Array<{ object: KubeObject; subset?: string }> {
  const name = obj.metadata?.name ?? '';
  if (obj.kind !== 'UnitedDeployment') {
    if (subset !== undefined) throw usageError(`--subset applies to a UnitedDeployment, not to ${obj.kind ?? 'object'} "${name}"`);
    return [{ object: obj }];
  }
  const defs = subsetsOf(obj);
  const chosen = subset === undefined ? defs : defs.filter((d) => d.name === subset);
  if (subset !== undefined && chosen.length === 0) {
    throw usageError(`subset "${subset}" not found in UnitedDeployment "${name}" (its subsets: ${defs.map((d) => d.name).join(', ') || 'none'})`);
  }
  if (!subsetTemplateOf(obj)) throw usageError(`UnitedDeployment "${name}" has no subset workload template in spec.template`);
  const { replicas, partitions } = udSubsetPlan(obj);
  return chosen.map((def) => {
    const built = applySubsetTemplate(obj, def, '', replicas.get(def.name) ?? 0, partitions.get(def.name) ?? 0, undefined, (t) => t);
    built.metadata = { ...built.metadata, name: `${name}/${def.name}` };
    return { object: built, subset: def.name };
  });
}
