// Turns flags and manifests into the input of the partition arithmetic, with Kubernetes'
// typing rules: a manifest's quoted "99" stays a string (an error for Kruise), unquoted 99 is
// an integer; a flag value of plain digits is an integer, anything else a string.
import { usageError } from '../../cli/exit';
import type { PartitionInput, PartitionKind } from '../../kruise/partition';
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
  /** A UnitedDeployment's subset (default: every subset). */
  subset?: string;
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
  sidecarset: 'sidecarset',
  sidecarsets: 'sidecarset',
};

export const KIND_TITLES: Record<PartitionKind, string> = {
  cloneset: 'CloneSet',
  asts: 'Advanced StatefulSet',
  ads: 'Advanced DaemonSet',
  statefulset: 'StatefulSet',
  sidecarset: 'SidecarSet',
};

export function parseKindFlag(value: string | undefined): PartitionKind | undefined {
  if (value === undefined) return undefined;
  const kind = KIND_ALIASES[value.toLowerCase()];
  if (!kind) throw usageError(`invalid --kind "${value}": expected cloneset, asts, ads, statefulset or sidecarset`);
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
