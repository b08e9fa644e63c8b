// `--preview`: from a workload now, the same workload after a change, and its pods (none offline),
// what Kruise will do to each pod and in which batches. Per-pod decisions come from
// inPlaceUpdateDecision (pod-action.ts); batches from each kind's own planner (the CloneSet sync the
// sandbox runs, replayed until nothing is left; ASTS ordinals; ADS node order), never from a copy.
import { jsonEqual } from '../../lib/json-equal';
import type { KubeObject, Pod } from '../types';
import { adapterFor } from '../workloads';
import type { WorkloadAdapter } from '../workloads/types';
import { readCloneSetSpec } from '../rules/cloneset';
import { planCloneSetSync, type PlannedPod } from '../rules/cloneset-plan';
import { cloneSetPlannedPod } from '../rules/cloneset-planned-pod';
import { cloneSetControllerPartition } from '../rules/cloneset';
import { firstNonImageChange, readAdvancedStatefulSetSpec } from '../rules/asts';
import { advancedDaemonSetPartitionNodes, nodesAllowedToUpdate, readAdvancedDaemonSetSpec } from '../rules/ads';
import { advancedStatefulSetUpdateOrder, ordinalOfPod } from '../partition';
import { REVISION_HASH_LABEL, POD_TEMPLATE_HASH_LABEL } from '../rules/revisions';
import { decidePodAction, type PolicyName } from './pod-action';
import type { BatchPreview, BudgetHeadroomHook, GateState, PodPreview, WorkloadPreview } from './types';

export interface PreviewInput {
  command: string;
  before: KubeObject;
  after: KubeObject;
  /** Live pods of the workload; undefined offline (one placeholder per replica at the current template). */
  pods?: readonly Pod[];
  /** The workload's revisions (ControllerRevisions, ReplicaSets): the templates of pods at older revisions. */
  revisions?: readonly PreviewRevision[];
  /** Nodes (Advanced DaemonSet rollingUpdate.selector). */
  nodes?: readonly KubeObject[];
  gates: { verticalScaling: GateState; envFromMetadata: boolean };
  budget?: BudgetHeadroomHook;
  now: Date;
}

export interface PreviewRevision {
  name: string;
  hash: string;
  template: Record<string, unknown>;
}

type Row = PodPreview & { labels: Record<string, string>; pod?: Pod };

function podRevision(pod: Pod): string | undefined {
  return pod.metadata.labels?.[REVISION_HASH_LABEL] ?? pod.metadata.labels?.[POD_TEMPLATE_HASH_LABEL];
}

/** The template a pod was made from: its ControllerRevision's, else the workload's current one. */
function podTemplate(pod: Pod, before: Record<string, unknown>, revisions: readonly PreviewRevision[]): Record<string, unknown> {
  const label = podRevision(pod);
  const rev = label === undefined ? undefined : revisions.find((r) => label === r.name || label === r.hash);
  return rev?.template ?? before;
}

function policyOf(adapter: WorkloadAdapter, obj: KubeObject): { policy: string; inPlace: PolicyName; onDelete: boolean } {
  const p = adapter.updatePolicy(obj);
  const kruise = adapter.group === 'apps.kruise.io';
  if (adapter.kindName === 'AdvancedDaemonSet') {
    const ads = readAdvancedDaemonSetSpec(obj);
    return { policy: ads.rollingUpdate ? (ads.inPlace ? 'InPlaceIfPossible' : 'Standard') : 'OnDelete', inPlace: ads.inPlace ? 'InPlaceIfPossible' : 'ReCreate', onDelete: !ads.rollingUpdate };
  }
  if (p === 'OnDelete') return { policy: 'OnDelete', inPlace: 'ReCreate', onDelete: true };
  if (!kruise) {
    const strategy = ((obj.spec as { strategy?: { type?: string } } | undefined)?.strategy?.type) ?? 'RollingUpdate';
    return { policy: adapter.kindName === 'Deployment' ? strategy : 'RollingUpdate', inPlace: 'ReCreate', onDelete: false };
  }
  return { policy: p, inPlace: p, onDelete: false };
}

function placeholderPods(adapter: WorkloadAdapter, obj: KubeObject): Pod[] {
  const name = obj.metadata.name ?? 'pod';
  const n = adapter.kindName === 'AdvancedDaemonSet' || adapter.kindName === 'DaemonSet' ? 1 : adapter.desiredReplicas(obj);
  const stateful = adapter.kindName === 'AdvancedStatefulSet' || adapter.kindName === 'StatefulSet';
  let ordinals = Array.from({ length: n }, (_, i) => i);
  if (adapter.kindName === 'AdvancedStatefulSet') {
    const spec = readAdvancedStatefulSetSpec(obj);
    ordinals = advancedStatefulSetUpdateOrder({ replicas: n, partitionReplicas: 0, start: spec.ordinalsStart, reserveOrdinals: spec.reserveOrdinals }).updated.reverse();
  }
  return ordinals.map((o, i) => ({
    metadata: { name: stateful ? `${name}-${o}` : `${name}-<pod-${i + 1}>`, labels: {}, creationTimestamp: '' },
    spec: { containers: [] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  }));
}

/** A new action for the pod that changes nothing inside it: the in-place details go. */
function replaceAction(r: Row, action: 'kept' | 'recreate', reason: string): void {
  r.action = action;
  r.reasons = [reason];
  delete r.images;
  delete r.resize;
  delete r.restartOrder;
  delete r.ifGateOn;
  delete r.staysReady;
}

/** The pod stays at its revision (partition, node selector, OnDelete): nothing inside it changes now. */
function markKept(r: Row, reason: string): void {
  replaceAction(r, 'kept', reason);
}

/** Replays the CloneSet controller's sync (planCloneSetSync) until it has nothing left to do. */
function cloneSetBatches(after: KubeObject, adapter: WorkloadAdapter, rows: Row[], now: Date): BatchPreview[] {
  const spec = readCloneSetSpec(after);
  const limits = safeLimits(adapter, after);
  const byName = new Map(rows.map((r) => [r.name, r]));
  let pods: PlannedPod[] = rows.map((r) => {
    const updated = r.action === 'unchanged';
    const planned = r.pod ? cloneSetPlannedPod(r.pod, spec, updated, now) : undefined;
    return planned ?? { name: r.name, updated, ready: true, available: true, scheduled: true, phase: 'Running', creationTimestamp: '', specifiedDelete: false, labels: r.labels };
  });
  const batches: BatchPreview[] = [];
  let pendingSurge = 0;
  let pendingDeleted: string[] = [];
  let surgeSeq = 0;
  for (let i = 0; i < rows.length * 3 + 10; i++) {
    const step = planCloneSetSync({
      replicas: spec.replicas,
      partitionReplicas: cloneSetControllerPartition(after) ?? 0,
      maxUnavailable: limits.maxUnavailable,
      maxSurge: limits.maxSurge,
      paused: spec.paused,
      policy: spec.policy,
      pods,
      excludePreparingDelete: spec.excludePreparingDelete,
      revisionConsistent: false,
      scatterStrategy: spec.scatterStrategy,
    });
    if (step.kind === 'update') {
      batches.push({ index: batches.length + 1, pods: [...pendingDeleted, ...step.pods], surge: pendingSurge });
      pendingSurge = 0;
      pendingDeleted = [];
      // the batch completes before the next one starts: updated and available again
      pods = pods.map((p) => (step.pods.includes(p.name) ? { ...p, updated: true, ready: true, available: true } : p));
    } else if (step.kind === 'scale' && step.createNew + step.createOld > 0) {
      pendingSurge += step.createNew;
      for (let k = 0; k < step.createNew + step.createOld; k++) {
        pods.push({ name: `\u0000surge-${surgeSeq++}`, updated: k < step.createNew, ready: true, available: true, scheduled: true, phase: 'Running', creationTimestamp: '', specifiedDelete: false, labels: {} });
      }
    } else if (step.kind === 'scale' && step.deletePods.length > 0) {
      const existing = step.deletePods.filter((n) => byName.has(n));
      // an old pod scaled in after a surge pod took its place: replaced, whatever the policy
      for (const n of existing) {
        const r = byName.get(n)!;
        if (r.action !== 'unchanged' && r.action !== 'kept') replaceAction(r, 'recreate', 'replaced by a surge pod (maxSurge): Kruise scales the old pod in instead of updating it');
      }
      if (existing.length > 0) pendingDeleted.push(...existing);
      pods = pods.filter((p) => !step.deletePods.includes(p.name));
    } else if (step.kind === 'delete-specified') {
      pods = pods.filter((p) => !step.pods.includes(p.name));
    } else if (step.kind === 'cancel-delete') {
      pods = pods.map((p) => (step.pods.includes(p.name) ? { ...p, preparingDelete: false, lifecycleState: 'Normal' } : p));
    } else break;
  }
  if (pendingDeleted.length > 0 || pendingSurge > 0) batches.push({ index: batches.length + 1, pods: pendingDeleted, surge: pendingSurge });
  return batches;
}

function safeLimits(adapter: WorkloadAdapter, obj: KubeObject): { maxUnavailable: number; maxSurge: number } {
  try {
    return adapter.rollingLimits(obj);
  } catch {
    return { maxUnavailable: 0, maxSurge: 0 };
  }
}

function chunk(names: string[], size: number, surge: number): BatchPreview[] {
  const out: BatchPreview[] = [];
  const n = Math.max(1, size);
  for (let i = 0; i < names.length; i += n) out.push({ index: out.length + 1, pods: names.slice(i, i + n), surge: Math.min(surge, names.slice(i, i + n).length) });
  return out;
}

/** The preview of one workload change. */
export function previewWorkloadChange(input: PreviewInput): WorkloadPreview {
  const { before, after } = input;
  const adapter = adapterFor(after);
  if (!adapter) throw new Error(`${after.kind ?? 'object'} has no pods to preview`);
  const beforeTpl = adapter.template(before) ?? {};
  const afterTpl = adapter.template(after) ?? {};
  const { policy, inPlace, onDelete } = policyOf(adapter, after);
  const offline = input.pods === undefined;
  const pods = input.pods ?? placeholderPods(adapter, before);
  const revisions = input.revisions ?? [];
  const warnings: string[] = [];
  const limits = safeLimits(adapter, after);
  const isDaemon = adapter.kindName === 'AdvancedDaemonSet' || adapter.kindName === 'DaemonSet';
  const replicas = isDaemon ? pods.length : adapter.desiredReplicas(after);

  const rows: Row[] = pods.map((pod) => {
    const from = offline ? beforeTpl : podTemplate(pod, beforeTpl, revisions);
    const decision = decidePodAction({ from, to: afterTpl, policy: inPlace, envFromMetadata: input.gates.envFromMetadata, verticalScaling: input.gates.verticalScaling });
    const row: Row = { name: pod.metadata.name ?? '', ...decision, labels: pod.metadata.labels ?? {}, pod: offline ? undefined : pod };
    if (pod.metadata.uid) row.uid = pod.metadata.uid;
    if (pod.spec.nodeName) row.node = pod.spec.nodeName;
    const rev = podRevision(pod);
    if (rev) row.revision = rev;
    return row;
  });

  // The Advanced StatefulSet webhook's own InPlaceOnly rule (validateTemplateInPlaceOnly): only images in template.spec
  if (adapter.kindName === 'AdvancedStatefulSet' && inPlace === 'InPlaceOnly') {
    const change = firstNonImageChange((beforeTpl as { spec?: unknown }).spec, (afterTpl as { spec?: unknown }).spec);
    if (change) for (const r of rows) if (r.action !== 'unchanged') Object.assign(r, { action: 'refused', reasons: [`template.spec: ${change}`] });
  }
  let partition = 0;
  let batches: BatchPreview[] = [];
  const changing = (r: Row) => r.action !== 'unchanged' && r.action !== 'refused';
  if (rows.some((r) => r.action === 'refused')) {
    warnings.push(`${policy}: Kruise's webhook refuses this change ("only allowed to update images"); nothing would be updated`);
    for (const r of rows) if (r.action !== 'unchanged') r.action = 'refused';
  } else if (onDelete) {
    for (const r of rows) if (changing(r)) markKept(r, `update strategy OnDelete: the pod changes only when you delete it (then: ${r.action})`);
  } else if (adapter.paused(after)) {
    warnings.push('the workload is paused: nothing moves until it is resumed (batches shown as they would run)');
  }

  if (!onDelete && !rows.some((r) => r.action === 'refused')) {
    if (adapter.kindName === 'CloneSet') {
      partition = cloneSetControllerPartition(after) ?? 0;
      batches = cloneSetBatches(after, adapter, rows, input.now);
    } else if (adapter.kindName === 'AdvancedStatefulSet' || adapter.kindName === 'StatefulSet') {
      const name = after.metadata.name ?? '';
      const spec = adapter.kindName === 'AdvancedStatefulSet' ? readAdvancedStatefulSetSpec(after) : undefined;
      partition = adapter.partitionReplicas(after);
      const order = advancedStatefulSetUpdateOrder({ replicas: adapter.desiredReplicas(after), partitionReplicas: partition, start: spec?.ordinalsStart ?? 0, reserveOrdinals: spec?.reserveOrdinals });
      const kept = new Set(order.kept);
      const byOrdinal = new Map(rows.map((r) => [ordinalOfPod(name, r.name), r]));
      for (const r of rows) {
        const o = ordinalOfPod(name, r.name);
        if (o !== undefined && kept.has(o) && changing(r)) markKept(r, `partition ${partition}: the lowest ${partition} active ordinal(s) stay at the old revision`);
      }
      const toUpdate = order.updated.map((o) => byOrdinal.get(o)).filter((r): r is Row => r !== undefined && changing(r)).map((r) => r.name);
      batches = chunk(toUpdate, limits.maxUnavailable, 0);
    } else if (isDaemon) {
      const spec = adapter.kindName === 'AdvancedDaemonSet' ? readAdvancedDaemonSetSpec(after) : undefined;
      partition = spec ? advancedDaemonSetPartitionNodes(spec.partition, rows.length) : 0;
      const nodeLabels = new Map((input.nodes ?? []).map((n) => [n.metadata.name ?? '', n.metadata.labels ?? {}]));
      const nodeRows = rows.map((r) => ({ name: r.node ?? r.name, labels: nodeLabels.get(r.node ?? '') ?? {}, hasUpdatedPod: r.action === 'unchanged' }));
      const allowed = offline && !spec?.nodeSelector ? nodeRows.map((n) => n.name) : nodesAllowedToUpdate(nodeRows, partition, spec?.nodeSelector);
      const rank = new Map(allowed.map((n, i) => [n, i]));
      for (const r of rows) {
        if (!rank.has(r.node ?? r.name) && changing(r)) markKept(r, spec?.nodeSelector && !offline ? 'its node is past the partition or outside rollingUpdate.selector' : `partition ${partition}: node kept at the old revision`);
      }
      const toUpdate = rows.filter((r) => changing(r) && r.action !== 'kept').sort((a, b) => (rank.get(a.node ?? a.name) ?? 0) - (rank.get(b.node ?? b.name) ?? 0)).map((r) => r.name);
      batches = chunk(toUpdate, limits.maxUnavailable + (spec?.inPlace ? 0 : limits.maxSurge), spec?.inPlace ? 0 : limits.maxSurge);
    } else {
      // Deployment: maxSurge new pods and maxUnavailable old ones go at once (Recreate: all at once)
      const toUpdate = rows.filter(changing).map((r) => r.name);
      batches = chunk(toUpdate, limits.maxUnavailable + limits.maxSurge, limits.maxSurge);
    }
  }
  const batchOf = new Map<string, number>();
  for (const b of batches) for (const p of b.pods) batchOf.set(p, b.index);
  for (const r of rows) {
    const b = batchOf.get(r.name);
    if (b !== undefined) r.batch = b;
    else if (changing(r) && r.action !== 'kept' && !onDelete) markKept(r, adapter.kindName === 'CloneSet' ? `partition ${partition}: kept at the old revision` : 'not reached by this rollout');
  }
  if (input.budget) {
    for (const b of batches) {
      const h = input.budget.headroom(b.pods.map((n) => ({ name: n, labels: rows.find((r) => r.name === n)?.labels ?? {} })));
      if (h) {
        b.budgetHeadroom = h.headroom;
        b.budgetName = h.budget;
      }
    }
  }
  if (input.gates.verticalScaling === 'unknown' && rows.some((r) => r.ifGateOn)) {
    warnings.push('the InPlaceWorkloadVerticalScaling feature gate of kruise-manager is not known: pods are shown recreated (the default, gate off); pass --feature-gates=InPlaceWorkloadVerticalScaling=true if your Kruise has it on');
  }
  const noChange = jsonEqual(beforeTpl, afterTpl) && rows.every((r) => r.action === 'unchanged');
  return {
    kind: after.kind ?? '',
    apiVersion: after.apiVersion ?? '',
    ...(after.metadata.namespace ? { namespace: after.metadata.namespace } : {}),
    name: after.metadata.name ?? '',
    command: input.command,
    policy,
    replicas,
    partition,
    maxUnavailable: limits.maxUnavailable,
    maxSurge: limits.maxSurge,
    paused: adapter.paused(after),
    featureGates: adapter.group === 'apps.kruise.io' ? { InPlaceWorkloadVerticalScaling: input.gates.verticalScaling, InPlaceUpdateEnvFromMetadata: input.gates.envFromMetadata ? 'on' : 'off' } : {},
    pods: rows.map(({ labels: _l, pod: _p, ...r }) => r),
    batches,
    ...(offline ? { offline: true } : {}),
    ...(noChange ? { noChange: true } : {}),
    warnings,
  };
}
