// Turns flags and manifests into the input of the partition arithmetic, with Kubernetes'
// typing rules: a manifest's quoted "99" stays a string (an error for Kruise), unquoted 99 is
// an integer; a flag value of plain digits is an integer, anything else a string.
import { usageError } from '../../cli/exit';
import type { KubeObject } from '../../kruise/types';
import type { PartitionInput, PartitionKind } from '../../kruise/partition';
import { adapterFor, cloneSetRollingPath } from '../../kruise/workloads/index';
import { at } from '../../kruise/workloads/access';
import type { IntOrString } from '../../kruise/intstr';

export interface ExplainFlags {
  filename?: string;
  replicas?: string;
  partition?: string;
  maxUnavailable?: string;
  maxSurge?: string;
  kind?: string;
  plan?: string;
  output?: string;
}

const KIND_ALIASES: Record<string, PartitionKind> = {
  cloneset: 'cloneset',
  clonesets: 'cloneset',
  clone: 'cloneset',
  asts: 'asts',
  advancedstatefulset: 'asts',
  'statefulsets.apps.kruise.io': 'asts',
  ads: 'ads',
  advanceddaemonset: 'ads',
  'daemonsets.apps.kruise.io': 'ads',
  statefulset: 'statefulset',
  statefulsets: 'statefulset',
  sts: 'statefulset',
};

export const KIND_TITLES: Record<PartitionKind, string> = {
  cloneset: 'CloneSet',
  asts: 'Advanced StatefulSet',
  ads: 'Advanced DaemonSet',
  statefulset: 'StatefulSet',
};

export function parseKindFlag(value: string | undefined): PartitionKind | undefined {
  if (value === undefined) return undefined;
  const kind = KIND_ALIASES[value.toLowerCase()];
  if (!kind) throw usageError(`invalid --kind "${value}": expected cloneset, asts, ads or statefulset`);
  return kind;
}

/** A flag's int-or-string: plain digits are integers (like an unquoted YAML value). */
export function intOrStringFlag(value: string | undefined): IntOrString | undefined {
  if (value === undefined) return undefined;
  return /^[+-]?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
}

export function replicasFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim())) throw usageError(`invalid --replicas "${value}": expected an integer ≥ 0`);
  return Number(value.trim());
}

/** Which arithmetic applies to a manifest / live object; a usage error for kinds without a partition. */
export function partitionKindOf(obj: KubeObject): PartitionKind {
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

/** Flags override the object's values ("what if the partition were 50%?"). */
export function applyFlags(input: PartitionInput, flags: ExplainFlags): PartitionInput {
  const out = { ...input };
  const replicas = replicasFlag(flags.replicas);
  if (replicas !== undefined) out.replicas = replicas;
  if (flags.partition !== undefined) out.partition = intOrStringFlag(flags.partition);
  if (flags.maxUnavailable !== undefined) out.maxUnavailable = intOrStringFlag(flags.maxUnavailable);
  if (flags.maxSurge !== undefined) out.maxSurge = intOrStringFlag(flags.maxSurge);
  return out;
}
