// UnitedDeployment rules, after Kruise's pkg/controller/uniteddeployment (allocator.go,
// uniteddeployment_controller.go, adapter/*): per-subset replicas (counts, percentages, the
// remainder rule, min/max), per-subset partitions from updateStrategy.manualUpdate.partitions,
// the subset workload built from the UD template, and the status Kruise writes. Pure: no I/O.
import type { KubeObject } from '../types';
import { unitedDeploymentConversion } from '../conversions/uniteddeployment';

export const SUBSET_NAME_LABEL = 'apps.kruise.io/subset-name';
/** The UD revision on its subset workloads and their pods (not the workload's own controller-revision-hash). */
export const UD_REVISION_LABEL = 'apps.kruise.io/controller-revision-hash';
export const SUBSET_PATCH_ANNOTATION = 'apps.kruise.io/subset-patch';

/** The four subset workload kinds, by the field of spec.template that holds them (the first set wins, as in Kruise). */
export const SUBSET_TEMPLATES = [
  { field: 'statefulSetTemplate', apiVersion: 'apps/v1', kind: 'StatefulSet', resource: 'statefulsets' },
  { field: 'advancedStatefulSetTemplate', apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet', resource: 'statefulsets' },
  { field: 'cloneSetTemplate', apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', resource: 'clonesets' },
  { field: 'deploymentTemplate', apiVersion: 'apps/v1', kind: 'Deployment', resource: 'deployments' },
] as const;

export type SubsetTemplateInfo = (typeof SUBSET_TEMPLATES)[number];

export interface SubsetDef {
  name: string;
  replicas?: number | string;
  minReplicas?: number | string;
  maxReplicas?: number | string;
  nodeSelectorTerm?: { matchExpressions?: unknown[] };
  tolerations?: unknown[];
  patch?: Record<string, unknown>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function udSpec(ud: KubeObject): Obj {
  return isObj(ud.spec) ? ud.spec : {};
}

export function subsetsOf(ud: KubeObject): SubsetDef[] {
  const topology = udSpec(ud).topology;
  const subsets = isObj(topology) && Array.isArray(topology.subsets) ? topology.subsets : [];
  return subsets.filter(isObj).map((s) => s as unknown as SubsetDef);
}

/** Which subset workload kind the UD's template holds, and that template ({metadata, spec}). */
export function subsetTemplateOf(ud: KubeObject): { info: SubsetTemplateInfo; template: Obj } | undefined {
  const t = udSpec(ud).template;
  if (!isObj(t)) return undefined;
  for (const info of SUBSET_TEMPLATES) {
    const v = t[info.field];
    if (isObj(v)) return { info, template: v };
  }
  return undefined;
}

/** Kruise's ParseSubsetReplicas: an int ≥ 0, or "N%" of the UD's replicas rounded half up (-1 = unset UD replicas). */
export function parseSubsetReplicas(udReplicas: number, value: number | string): number {
  if (typeof value === 'number') {
    if (value < 0) throw new Error(`subset replicas (${value}) should not be less than 0`);
    return value;
  }
  if (udReplicas < 0) throw new Error(`subsetReplicas (${value}) should not be string when unitedDeployment replicas is empty`);
  if (!value.endsWith('%')) throw new Error(`subset replicas (${value}) only support integer value or percentage value with a suffix '%'`);
  const percent = Number(value.slice(0, -1));
  if (!/^-?\d+$/.test(value.slice(0, -1))) throw new Error(`subset replicas (${value}) should be correct percentage integer`);
  if (percent > 100 || percent < 0) throw new Error(`subset replicas (${value}) should be in range [0, 100]`);
  return Math.floor((udReplicas * percent) / 100 + 0.5);
}

interface SubsetInfo {
  name: string;
  replicas: number;
  specified: boolean;
}

/** subsetInfos.Less: by current replicas, then by name. */
function sortInfos(infos: SubsetInfo[]): void {
  infos.sort((a, b) => (a.replicas !== b.replicas ? a.replicas - b.replicas : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * specificAllocator.AllocateReplicas over subsets with their current replicas: specified subsets take
 * their count; the rest share what is left evenly, the remainder going one each to the subsets with
 * the most current replicas (the end of the sorted list). Throws Kruise's errors on invalid specs.
 * Returns the subsets in Kruise's sorted order with their next replicas.
 */
export function allocateSpecific(expected: number, current: Array<{ name: string; replicas: number }>, specified: Map<string, number>): Array<{ name: string; replicas: number }> {
  const infos: SubsetInfo[] = current.map((c) => ({ name: c.name, replicas: c.replicas, specified: false }));
  sortInfos(infos);
  let specifiedSum = 0;
  for (const v of specified.values()) specifiedSum += v;
  const specifiedCount = infos.filter((i) => specified.has(i.name)).length;
  if (expected !== -1) {
    if (specifiedSum > expected) throw new Error(`specified subsets' replica (${specifiedSum}) is greater than UnitedDeployment replica (${expected})`);
    if (specifiedSum < expected && specifiedCount === infos.length) throw new Error(`specified subsets' replica (${specifiedSum}) is less than UnitedDeployment replica (${expected})`);
  } else if (specifiedCount !== infos.length) {
    throw new Error('all subsets must be specified when UnitedDeployment replica is unspecified');
  }
  let specifiedReplicas = 0;
  for (const info of infos) {
    const v = specified.get(info.name);
    if (v === undefined) continue;
    specifiedReplicas += v;
    info.replicas = v;
    info.specified = true;
  }
  const left = infos.filter((i) => !i.specified).length;
  if (left) {
    const allocatable = expected - specifiedReplicas;
    const average = Math.trunc(allocatable / left);
    let remainder = allocatable % left;
    for (let i = infos.length - 1; i >= 0; i--) {
      const info = infos[i]!;
      if (info.specified) continue;
      info.replicas = remainder > 0 ? average + 1 : average;
      if (remainder > 0) remainder--;
    }
  }
  return infos.map(({ name, replicas }) => ({ name, replicas }));
}

/** allocateByMinMaxMap: minimums first in subset order, then up to each maximum in subset order. */
export function allocateMinMax(replicas: number, subsets: Array<{ name: string; min: number; max: number }>): Map<string, number> {
  const out = new Map<string, number>();
  let allocated = 0;
  for (const s of subsets) {
    const add = Math.max(Math.min(s.min, replicas - allocated), 0);
    out.set(s.name, add);
    allocated += add;
  }
  if (allocated >= replicas) return out;
  for (const s of subsets) {
    const add = Math.max(Math.min(s.max - s.min, replicas - allocated), 0);
    out.set(s.name, (out.get(s.name) ?? 0) + add);
    allocated += add;
  }
  return out;
}

/**
 * NewReplicaAllocator(ud).Alloc for the Fixed schedule strategy: min/max when any subset sets one,
 * else the specific allocator. `currentReplicas` are the existing subset workloads' spec.replicas.
 */
export function allocateSubsetReplicas(ud: KubeObject, currentReplicas: Map<string, number>): Map<string, number> {
  const subsets = subsetsOf(ud);
  const specReplicas = udSpec(ud).replicas;
  if (subsets.some((s) => s.minReplicas !== undefined || s.maxReplicas !== undefined)) {
    const replicas = typeof specReplicas === 'number' ? specReplicas : 0;
    const limits = subsets.map((s, index) => {
      const min = s.minReplicas !== undefined ? safeParse(replicas, s.minReplicas) : 0;
      const max = s.maxReplicas !== undefined ? safeParse(replicas, s.maxReplicas) : 2147483647;
      if (min > max) throw new Error(`subset[${index}].maxReplicas(${max}) must be more than or equal to minReplicas(${min})`);
      return { name: s.name, min, max };
    });
    return allocateMinMax(replicas, limits);
  }
  const expected = typeof specReplicas === 'number' ? specReplicas : -1;
  const specified = new Map<string, number>();
  for (const s of subsets) {
    if (s.replicas === undefined) continue;
    try {
      specified.set(s.name, parseSubsetReplicas(expected, s.replicas));
    } catch {
      // Kruise logs and leaves such a subset unspecified
    }
  }
  const current = subsets.map((s) => ({ name: s.name, replicas: currentReplicas.get(s.name) ?? 0 }));
  return new Map(allocateSpecific(expected, current, specified).map((r) => [r.name, r.replicas]));
}

/** Kruise ignores the parse error here, leaving the zero value. */
function safeParse(replicas: number, value: number | string): number {
  try {
    return parseSubsetReplicas(replicas, value);
  } catch {
    return 0;
  }
}

/** The partitions of updateStrategy.manualUpdate (only with type Manual, Kruise's default). */
export function manualPartitions(ud: KubeObject): Record<string, number> {
  const strategy = udSpec(ud).updateStrategy;
  if (!isObj(strategy)) return {};
  const type = strategy.type ?? 'Manual';
  const manual = strategy.manualUpdate;
  if (type !== 'Manual' || !isObj(manual) || !isObj(manual.partitions)) return {};
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(manual.partitions)) if (typeof v === 'number') out[k] = v;
  return out;
}

/** calcNextPartitions: the subset's manual partition (0 when absent), capped at its next replicas. */
export function nextPartitions(ud: KubeObject, nextReplicas: Map<string, number>): Map<string, number> {
  const partitions = manualPartitions(ud);
  const out = new Map<string, number>();
  for (const s of subsetsOf(ud)) {
    let p = partitions[s.name] ?? 0;
    const r = nextReplicas.get(s.name);
    if (r !== undefined && p > r) p = r;
    out.set(s.name, p);
  }
  return out;
}

/** getSubsetPrefix: `<ud>-<subset>-`, or `<ud>-` when that is not a valid DNS subdomain prefix. */
export function subsetPrefix(udName: string, subsetName: string): string {
  const prefix = `${udName}-${subsetName}-`;
  // validation.NameIsDNSSubdomain(prefix, true): the prefix plus a suffix must fit 253 characters of [a-z0-9.-]
  const ok = prefix.length <= 253 - 5 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?-?$/.test(prefix);
  return ok ? prefix : `${udName}-`;
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** attachNodeAffinity: append the subset's match expressions to every required node selector term. */
function attachNodeAffinity(podSpec: Obj, subset: SubsetDef): void {
  const exprs = subset.nodeSelectorTerm?.matchExpressions ?? [];
  if (exprs.length === 0) return;
  const affinity = (podSpec.affinity = isObj(podSpec.affinity) ? podSpec.affinity : {});
  const nodeAffinity = (affinity.nodeAffinity = isObj(affinity.nodeAffinity) ? affinity.nodeAffinity : {});
  const required = (nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = isObj(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution)
    ? nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
    : {});
  const terms = (required.nodeSelectorTerms = Array.isArray(required.nodeSelectorTerms) ? required.nodeSelectorTerms : []) as Obj[];
  if (terms.length === 0) terms.push({});
  for (const term of terms) term.matchExpressions = [...(Array.isArray(term.matchExpressions) ? term.matchExpressions : []), ...clone(exprs)];
}

function attachTolerations(podSpec: Obj, subset: SubsetDef): void {
  if (!subset.tolerations) return;
  podSpec.tolerations = [...(Array.isArray(podSpec.tolerations) ? podSpec.tolerations : []), ...clone(subset.tolerations)];
}

/**
 * ApplySubsetTemplate: the desired subset workload (labels, annotations, selector with the subset
 * label, replicas, partition, pod template with the subset label, the UD revision, node affinity,
 * tolerations). `existing` keeps its name and metadata; else generateName is the subset prefix.
 * `patchTemplate` applies the subset's strategic merge patch (the caller owns that machinery).
 */
export function applySubsetTemplate(
  ud: KubeObject,
  subset: SubsetDef,
  revision: string,
  replicas: number,
  partition: number,
  existing: KubeObject | undefined,
  patchTemplate: (template: Obj, patch: Obj) => Obj,
): KubeObject {
  const found = subsetTemplateOf(ud);
  if (!found) throw new Error('spec.template has no subset workload template');
  const { info, template } = found;
  const tmeta = isObj(template.metadata) ? (template.metadata as { labels?: Record<string, string>; annotations?: Record<string, string> }) : {};
  const udSelector = isObj(udSpec(ud).selector) ? (udSpec(ud).selector as Obj) : {};
  const matchLabels = isObj(udSelector.matchLabels) ? (udSelector.matchLabels as Record<string, string>) : {};
  const obj: KubeObject = existing ? clone(existing) : { apiVersion: info.apiVersion, kind: info.kind, metadata: {} };
  obj.apiVersion = existing?.apiVersion ?? info.apiVersion;
  obj.kind = info.kind;
  const meta = obj.metadata;
  meta.namespace = ud.metadata.namespace;
  meta.labels = { ...(meta.labels ?? {}), ...(tmeta.labels ?? {}), ...matchLabels, [UD_REVISION_LABEL]: revision, [SUBSET_NAME_LABEL]: subset.name };
  meta.annotations = { ...(meta.annotations ?? {}), ...(tmeta.annotations ?? {}) };
  if (!existing) meta.generateName = subsetPrefix(ud.metadata.name ?? '', subset.name);
  meta.ownerReferences = [
    { apiVersion: ud.apiVersion ?? 'apps.kruise.io/v1alpha1', kind: 'UnitedDeployment', name: ud.metadata.name ?? '', uid: ud.metadata.uid ?? '', controller: true, blockOwnerDeletion: true },
  ];
  const spec = clone(isObj(template.spec) ? template.spec : {}) as Obj;
  spec.selector = { ...clone(udSelector), matchLabels: { ...matchLabels, [SUBSET_NAME_LABEL]: subset.name } };
  spec.replicas = replicas;
  setPartition(info, spec, partition);
  let podTemplate = (isObj(spec.template) ? spec.template : {}) as Obj;
  const pmeta = (podTemplate.metadata = isObj(podTemplate.metadata) ? podTemplate.metadata : {}) as Obj;
  pmeta.labels = { ...(isObj(pmeta.labels) ? pmeta.labels : {}), [SUBSET_NAME_LABEL]: subset.name, [UD_REVISION_LABEL]: revision };
  const podSpec = (podTemplate.spec = isObj(podTemplate.spec) ? podTemplate.spec : {}) as Obj;
  attachNodeAffinity(podSpec, subset);
  attachTolerations(podSpec, subset);
  if (isObj(subset.patch)) podTemplate = patchTemplate(podTemplate, subset.patch);
  spec.template = podTemplate;
  obj.spec = spec;
  meta.annotations[SUBSET_PATCH_ANNOTATION] = isObj(subset.patch) ? JSON.stringify(subset.patch) : '';
  return obj;
}

/** Where each kind takes the partition (CloneSet: an int; the StatefulSets: rollingUpdate.partition; Deployment: none). */
function setPartition(info: SubsetTemplateInfo, spec: Obj, partition: number): void {
  const strategy = (spec.updateStrategy = isObj(spec.updateStrategy) ? spec.updateStrategy : {}) as Obj;
  if (info.kind === 'CloneSet') {
    strategy.partition = partition;
  } else if (info.kind === 'StatefulSet') {
    strategy.type = 'RollingUpdate';
    strategy.rollingUpdate = { ...(isObj(strategy.rollingUpdate) ? strategy.rollingUpdate : {}), partition };
  } else if (Object.keys(strategy).length === 0) {
    delete spec.updateStrategy;
  }
}

/** What the UD reads of one subset (convertToSubset + CalculateUpdatedReplicas). */
export interface SubsetObservation {
  name: string;
  replicas: number;
  readyReplicas: number;
  /** Active pods carrying the UD's expected revision, and those of them ready. */
  updatedReplicas: number;
  updatedReadyReplicas: number;
}

export interface UnitedDeploymentStatus {
  observedGeneration: number;
  replicas: number;
  readyReplicas: number;
  updatedReplicas: number;
  updatedReadyReplicas: number;
  currentRevision: string;
  collisionCount?: number;
  subsetReplicas: Record<string, number>;
  updateStatus: { updatedRevision: string; currentPartitions: Record<string, number> };
  subsetStatuses?: Array<{ name: string; replicas: number; readyReplicas: number; partition: number }>;
  labelSelector?: string;
  conditions?: Array<Record<string, unknown>>;
}

/**
 * calculateStatus: sums over the subsets; currentRevision starts at the current revision and moves
 * to the updated one once updatedReadyReplicas ≥ replicas. `withSubsetStatuses` for releases whose
 * CRD has status.subsetStatuses (v1.9 on).
 */
export function unitedDeploymentStatus(opts: {
  generation: number;
  previousCurrentRevision: string | undefined;
  currentRevision: string;
  updatedRevision: string;
  subsets: SubsetObservation[];
  nextReplicas: Map<string, number>;
  nextPartitions: Map<string, number>;
  withSubsetStatuses: boolean;
}): UnitedDeploymentStatus {
  let replicas = 0;
  let readyReplicas = 0;
  let updatedReplicas = 0;
  let updatedReadyReplicas = 0;
  const subsetStatuses: NonNullable<UnitedDeploymentStatus['subsetStatuses']> = [];
  for (const s of opts.subsets) {
    replicas += s.replicas;
    readyReplicas += s.readyReplicas;
    updatedReplicas += s.updatedReplicas;
    updatedReadyReplicas += s.updatedReadyReplicas;
    subsetStatuses.push({ name: s.name, replicas: s.replicas, readyReplicas: s.readyReplicas, partition: opts.nextPartitions.get(s.name) ?? 0 });
  }
  let currentRevision = opts.previousCurrentRevision || opts.currentRevision;
  if (opts.updatedRevision !== currentRevision && updatedReadyReplicas >= replicas) currentRevision = opts.updatedRevision;
  return {
    observedGeneration: opts.generation,
    replicas,
    readyReplicas,
    updatedReplicas,
    updatedReadyReplicas,
    currentRevision,
    subsetReplicas: Object.fromEntries(opts.nextReplicas),
    updateStatus: { updatedRevision: opts.updatedRevision, currentPartitions: Object.fromEntries(opts.nextPartitions) },
    ...(opts.withSubsetStatuses ? { subsetStatuses: subsetStatuses.sort((a, b) => (a.name < b.name ? -1 : 1)) } : {}),
  };
}

/**
 * The v1beta1 status (Kruise master, where v1beta1 is the hub): the v1alpha1 status through Kruise's
 * conversion (updatedRevision at the top, subsetReplicas / updateStatus.currentPartitions folded into
 * subsetStatuses, zero counts omitted as Go's omitempty does).
 */
export function unitedDeploymentStatusV1beta1(status: UnitedDeploymentStatus): Record<string, unknown> {
  const alpha = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'UnitedDeployment', metadata: {}, status: { ...status } };
  return unitedDeploymentConversion.toV1beta1(structuredClone(alpha)).status as Record<string, unknown>;
}
