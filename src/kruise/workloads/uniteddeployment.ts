// UnitedDeployment adapter: the pod template lives in the subset workload template
// (spec.template.<kind>Template.spec.template); partitions are per subset
// (updateStrategy.manualUpdate.partitions), so the pods kept old are their sum, each capped at the
// subset's replicas (calcNextPartitions). Status is the one Kruise writes (src/kruise/rules/uniteddeployment.ts).
import type { KubeObject, Pod } from '../types';
import type { SubsetProgress, WorkloadAdapter, WorkloadStatus } from './types';
import { conditionsOf, groupVersion, numAt, objAt, strAt } from './access';
import { withoutPause } from './base';
import { allocateSubsetReplicas, nextPartitions, SUBSET_NAME_LABEL, subsetsOf, subsetTemplateOf, UD_REVISION_LABEL } from '../rules/uniteddeployment';
import { revisionLabelMatches } from '../rules/revisions';
import { cloneSetAdapter } from './cloneset';
import { advancedStatefulSetAdapter } from './advanced-statefulset';
import { deploymentAdapter, statefulSetAdapter } from './native';

/** The adapters of the four subset kinds (not the registry in index.ts, which imports this module). */
function adapterFor(obj: KubeObject): WorkloadAdapter | undefined {
  return [cloneSetAdapter, advancedStatefulSetAdapter, deploymentAdapter, statefulSetAdapter].find((a) => a.matches(obj));
}

function replicas(obj: KubeObject): number {
  return numAt(obj, 'spec', 'replicas') ?? 0;
}

/** Path of the pod template inside the UD ("spec/template/cloneSetTemplate/spec/template"). */
export function udTemplatePath(obj: KubeObject): string[] | undefined {
  const found = subsetTemplateOf(obj);
  return found ? ['spec', 'template', found.info.field, 'spec', 'template'] : undefined;
}

/** The subset workload the UD's template describes, as an object its own adapter reads. */
function subsetWorkload(obj: KubeObject): KubeObject | undefined {
  const found = subsetTemplateOf(obj);
  if (!found) return undefined;
  return { apiVersion: found.info.apiVersion, kind: found.info.kind, metadata: {}, spec: found.template.spec as Record<string, unknown> };
}

/** Per-subset replicas and partitions: from status when written for this generation, else computed from spec. */
export function udSubsetPlan(obj: KubeObject): { replicas: Map<string, number>; partitions: Map<string, number> } {
  // v1alpha1: status.subsetReplicas; v1beta1 (Kruise master): subsetStatuses[].replicas
  const statuses = (obj.status as { subsetStatuses?: Array<{ name?: string; replicas?: number }> } | undefined)?.subsetStatuses;
  const fromStatuses = (obj.apiVersion ?? '').endsWith('/v1beta1') && Array.isArray(statuses) && statuses.length > 0
    ? Object.fromEntries(statuses.map((s) => [s.name ?? '', s.replicas ?? 0]))
    : undefined;
  const written = (objAt(obj, 'status', 'subsetReplicas') as Record<string, number> | undefined) ?? fromStatuses;
  let next: Map<string, number>;
  try {
    next = written ? new Map(Object.entries(written)) : allocateSubsetReplicas(obj, new Map());
  } catch {
    next = new Map();
  }
  return { replicas: next, partitions: nextPartitions(obj, next) };
}

function keptOld(obj: KubeObject): number {
  let sum = 0;
  for (const p of udSubsetPlan(obj).partitions.values()) sum += p;
  return Math.min(sum, replicas(obj));
}

function pathPointer(path: string[]): string {
  return '/' + path.join('/');
}

/** status.updateStatus.updatedRevision (v1alpha1), status.updatedRevision (v1beta1). */
function udUpdatedRevision(obj: KubeObject): string | undefined {
  return strAt(obj, 'status', 'updateStatus', 'updatedRevision') ?? strAt(obj, 'status', 'updatedRevision');
}

function podReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** CloneSet subsets: their partition counts the pods not at the update revision (progress.ts evaluateWhole). */
function cloneSetSubsets(obj: KubeObject): boolean {
  return subsetTemplateOf(obj)?.info.kind === 'CloneSet';
}

/**
 * Each subset: done once its pods at the UD's update revision cover replicas - kept, all ready. Kept is
 * the subset's partition, except once the UD's current revision is its updated one (a new UD, or
 * `rollout undo` back to the revision it never left): a CloneSet subset then keeps at most its pods not
 * at that revision (its partition counts them, cloneset_update.go), an (Advanced) StatefulSet subset none.
 * Kruise's UD writes the subsets' partitions as they are (uniteddeployment_controller.go calcNextPartitions).
 */
export function udSubsetProgress(obj: KubeObject, pods: readonly Pod[] | undefined): SubsetProgress[] {
  const plan = udSubsetPlan(obj);
  const revision = udUpdatedRevision(obj);
  const current = strAt(obj, 'status', 'currentRevision');
  const sameRevision = revision !== undefined && current !== undefined && revisionLabelMatches(current, revision);
  const countsOld = cloneSetSubsets(obj);
  return subsetsOf(obj).map((def) => {
    const replicas = plan.replicas.get(def.name) ?? 0;
    const partition = plan.partitions.get(def.name) ?? 0;
    if (!pods) return { name: def.name, replicas, partition, expectedUpdatedReplicas: replicas - partition, done: false };
    let updated = 0;
    let ready = 0;
    for (const pod of pods) {
      const labels = pod.metadata.labels ?? {};
      if (pod.metadata.deletionTimestamp || labels[SUBSET_NAME_LABEL] !== def.name) continue;
      const value = labels[UD_REVISION_LABEL];
      if (!revision || value === undefined || !revisionLabelMatches(value, revision)) continue;
      updated++;
      if (podReady(pod)) ready++;
    }
    // The pods not updated, counted as the subset's replicas less its updated pods (a gate keeps only updated
    // pods): a pod still missing is counted as kept here, but the UD's own counts (evaluateWhole) wait for it.
    const kept = !sameRevision ? partition : countsOld ? Math.min(partition, Math.max(0, replicas - updated)) : 0;
    const expected = replicas - kept;
    return { name: def.name, replicas, partition, expectedUpdatedReplicas: expected, updatedReplicas: updated, updatedReadyReplicas: ready, done: updated >= expected && ready >= expected };
  });
}

export const unitedDeploymentAdapter: WorkloadAdapter = {
  subsets: udSubsetProgress,
  partitionCountsOldPods: cloneSetSubsets,
  // Kruise's UD has no in-place restart of its own: a template annotation rolls out through every subset
  restartsThroughTemplate: true,
  ...withoutPause('UnitedDeployment'),
  kindName: 'UnitedDeployment',
  group: 'apps.kruise.io',
  revisionLabelKey: UD_REVISION_LABEL,
  matches: (obj) => obj.kind === 'UnitedDeployment' && groupVersion(obj).group === 'apps.kruise.io',
  desiredReplicas: replicas,
  partition: () => undefined,
  partitionReplicas: keptOld,
  expectedUpdatedReplicas: (obj) => replicas(obj) - keptOld(obj),
  partitionPointer: () => undefined,
  updatePolicy(obj) {
    const w = subsetWorkload(obj);
    const a = w && adapterFor(w);
    return a && w ? a.updatePolicy(w) : 'ReCreate';
  },
  maxUnavailable: () => undefined,
  maxSurge: () => undefined,
  rollingLimits: () => ({ maxUnavailable: 1, maxSurge: 0 }),
  template(obj) {
    const path = udTemplatePath(obj);
    return path ? objAt(obj, ...path) : undefined;
  },
  templatePointer: (obj) => pathPointer(udTemplatePath(obj) ?? ['spec', 'template']),
  selector: (obj) => objAt(obj, 'spec', 'selector') as ReturnType<WorkloadAdapter['selector']>,
  containers(obj) {
    const path = udTemplatePath(obj);
    if (!path) return [];
    const out: ReturnType<WorkloadAdapter['containers']> = [];
    for (const [field, init] of [['containers', false], ['initContainers', true]] as const) {
      const list = objAt(obj, ...path, 'spec') as Record<string, unknown> | undefined;
      const items = list?.[field];
      if (!Array.isArray(items)) continue;
      items.forEach((c: { name?: unknown; image?: unknown }, i) => {
        if (typeof c?.name !== 'string') return;
        out.push({ name: c.name, init, pointer: `${pathPointer(path)}/spec/${field}/${i}`, ...(typeof c.image === 'string' ? { image: c.image } : {}) });
      });
    }
    return out;
  },
  status: (obj): WorkloadStatus => ({
    observedGeneration: numAt(obj, 'status', 'observedGeneration'),
    replicas: numAt(obj, 'status', 'replicas') ?? 0,
    readyReplicas: numAt(obj, 'status', 'readyReplicas') ?? 0,
    // Kruise's UD status has no available count: ready is what it tracks
    availableReplicas: numAt(obj, 'status', 'readyReplicas') ?? 0,
    updatedReplicas: numAt(obj, 'status', 'updatedReplicas') ?? 0,
    updatedReadyReplicas: numAt(obj, 'status', 'updatedReadyReplicas') ?? 0,
    expectedUpdatedReplicas: undefined,
    updatedAvailableReplicas: numAt(obj, 'status', 'updatedReadyReplicas') ?? 0,
    updateRevision: udUpdatedRevision(obj),
    currentRevision: strAt(obj, 'status', 'currentRevision'),
    conditions: conditionsOf(obj),
  }),
};
