// Availability budgets as one question for planners: how much headroom each PodUnavailableBudget and
// PodDisruptionBudget has now (budgetHeadroom), and, for pods asked for in order, which the budgets let
// through now and which would be refused (planAroundBudgets / refusedPods). The counts are recomputed
// from pods (rules/pub.ts, rules/pdb.ts), carrying the status' disruptedPods/unavailablePods as the
// controllers do, so they already include what the webhooks granted since the controllers last wrote.
import type { BudgetHeadroom, BudgetOperation, BudgetPlan, BudgetRefusal } from './budget-types';
import type { KubeObject, Pod } from './types';
import { labelSelectorMatches } from './selectors';
import { compareText } from '../lib/compare';
import { computePdbStatus, EVICTION_VIOLATES_BUDGET, isPodReadyCondition, pdbPods } from './rules/pdb';
import { computePubStatus, desiredAvailableForPub, isPodNoProtection, isPubPodAvailable, podRelatedPubName, pubForbiddenMessage, pubProtectedOperations, readPubSpec, type KruiseRelease } from './rules/pub';

export type { BudgetHeadroom, BudgetOperation, BudgetPlan, BudgetRefusal } from './budget-types';

export interface BudgetInputs {
  pods: readonly Pod[];
  pubs?: readonly KubeObject[];
  pdbs?: readonly KubeObject[];
  /** Workloads (and ReplicaSets) of the namespace: their scale is the budgets' expected count. */
  workloads?: readonly KubeObject[];
}

export interface BudgetOptions {
  release?: KruiseRelease;
  inPlacePodVerticalScaling?: boolean;
  now?: Date;
}

const sortedKeys = (m: Record<string, string> | undefined): string[] => Object.keys(m ?? {}).sort();

/** Every budget's headroom now, PUBs first, each sorted by namespace/name. */
export function budgetHeadroom(inputs: BudgetInputs, opts: BudgetOptions = {}): BudgetHeadroom[] {
  const now = opts.now ?? new Date();
  const release = opts.release ?? 'master';
  const workloads = inputs.workloads ?? [];
  const out: BudgetHeadroom[] = [];
  const byName = (a: KubeObject, b: KubeObject): number => compareText(`${a.metadata.namespace}/${a.metadata.name}`, `${b.metadata.namespace}/${b.metadata.name}`);
  for (const pub of [...(inputs.pubs ?? [])].sort(byName)) {
    const view = readPubSpec(pub);
    const r = computePubStatus(pub, inputs.pods, workloads, now);
    const h: BudgetHeadroom = {
      kind: 'PodUnavailableBudget',
      namespace: view.namespace,
      name: view.name,
      selectedPods: r.pods.map((p) => p.metadata.name ?? '').sort(),
      totalReplicas: r.status.totalReplicas,
      desiredAvailable: r.status.desiredAvailable,
      currentAvailable: r.status.currentAvailable,
      unavailableAllowed: r.status.unavailableAllowed,
      disruptedPods: sortedKeys(r.status.disruptedPods),
      unavailablePods: sortedKeys(r.status.unavailablePods),
      protects: (['DELETE', 'EVICT', 'UPDATE', 'RESIZE'] as const).filter((op) => pubProtectedOperations(view, { release, inPlacePodVerticalScaling: opts.inPlacePodVerticalScaling ?? false }).has(op)),
      exemptPods: r.pods
        .filter((p) => isPodNoProtection(p) || (release === 'master' && view.ignoredPodSelector !== undefined && labelSelectorMatches(view.ignoredPodSelector, p.metadata.labels)))
        .map((p) => p.metadata.name ?? '')
        .sort(),
    };
    if (r.error) h.error = r.error;
    out.push(h);
  }
  for (const pdb of [...(inputs.pdbs ?? [])].sort(byName)) {
    const s = computePdbStatus(pdb, inputs.pods, workloads, now);
    const selected = pdbPods(pdb, inputs.pods);
    const h: BudgetHeadroom = {
      kind: 'PodDisruptionBudget',
      namespace: pdb.metadata.namespace ?? '',
      name: pdb.metadata.name ?? '',
      selectedPods: selected.map((p) => p.metadata.name ?? '').sort(),
      totalReplicas: s.expectedPods,
      desiredAvailable: s.desiredHealthy,
      currentAvailable: s.currentHealthy,
      unavailableAllowed: s.disruptionsAllowed,
      disruptedPods: sortedKeys(s.disruptedPods),
      unavailablePods: [],
      protects: ['EVICT'],
      exemptPods: [],
    };
    if (s.error) h.error = s.error;
    out.push(h);
  }
  return out;
}

/** Whether the budget counts this pod as available now (taking an unavailable pod costs nothing). */
function costsBudget(b: BudgetHeadroom, pod: Pod): boolean {
  const name = pod.metadata.name ?? '';
  if (b.disruptedPods.includes(name) || b.unavailablePods.includes(name)) return false;
  return b.kind === 'PodUnavailableBudget' ? isPubPodAvailable(pod) : isPodReadyCondition(pod) && pod.status?.phase === 'Running';
}

function guards(b: BudgetHeadroom, pod: Pod, operation: BudgetOperation): boolean {
  const name = pod.metadata.name ?? '';
  if (b.error || !b.protects.includes(operation) || !b.selectedPods.includes(name) || b.exemptPods.includes(name)) return false;
  // Kruise's webhook lets everything through while desiredAvailable is 0
  return !(b.kind === 'PodUnavailableBudget' && b.desiredAvailable === 0);
}

/** The message the API server would return when `b` refuses `pod`. */
export function refusalMessage(b: BudgetHeadroom, operation: BudgetOperation): string {
  if (b.kind === 'PodDisruptionBudget') return `${EVICTION_VIOLATES_BUDGET} The disruption budget ${b.name} needs ${b.desiredAvailable} healthy pods and has ${b.currentAvailable} currently`;
  const hook = operation === 'EVICT' ? 'vpodeviction.kb.io' : 'vpod.kb.io';
  return `admission webhook "${hook}" denied the request: ${pubForbiddenMessage(b.name, 'pub unavailable allowed is negative')}`;
}

/**
 * Pods asked for in this order, one operation each: those the budgets admit now (each admission spends
 * headroom of every budget guarding the pod) and those that must wait, with the refusing budget.
 * A pod not available now costs nothing, as in Kruise's webhook and kube's eviction.
 */
export function planAroundBudgets(operation: BudgetOperation, podsInOrder: readonly Pod[], budgets: readonly BudgetHeadroom[]): BudgetPlan {
  const left = new Map(budgets.map((b) => [b, b.unavailableAllowed]));
  const plan: BudgetPlan = { allowed: [], waiting: [] };
  for (const pod of podsInOrder) {
    const name = pod.metadata.name ?? '';
    const mine = budgets.filter((b) => guards(b, pod, operation) && (pod.metadata.namespace ?? '') === b.namespace && costsBudget(b, pod));
    const exhausted = mine.find((b) => (left.get(b) ?? 0) <= 0);
    if (exhausted) {
      plan.waiting.push({
        kind: exhausted.kind,
        namespace: exhausted.namespace,
        name: exhausted.name,
        pod: name,
        operation,
        code: exhausted.kind === 'PodDisruptionBudget' ? 429 : 403,
        message: refusalMessage(exhausted, operation),
        takenBefore: Math.max(0, exhausted.unavailableAllowed - Math.max(0, left.get(exhausted) ?? 0)),
      });
      continue;
    }
    for (const b of mine) left.set(b, (left.get(b) ?? 0) - 1);
    plan.allowed.push(name);
  }
  return plan;
}

/** The pods of `podsInOrder` the budgets would refuse `operation` for, were they all asked for now. */
export function refusedPods(operation: BudgetOperation, podsInOrder: readonly Pod[], budgets: readonly BudgetHeadroom[]): BudgetRefusal[] {
  return planAroundBudgets(operation, podsInOrder, budgets).waiting;
}

function statusNumbers(obj: KubeObject): Record<string, unknown> {
  return (typeof obj.status === 'object' && obj.status !== null ? obj.status : {}) as Record<string, unknown>;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const keys = (v: unknown): string[] => (typeof v === 'object' && v !== null ? Object.keys(v).sort() : []);

/**
 * Every budget's headroom as its *status* says, which is what the webhook and the eviction REST read
 * (what the CLI should plan with: it includes what others were granted since the controller wrote).
 * A PUB's pods are those whose related-pub annotation names it, else its selector's; a PDB's, its selector's.
 */
export function budgetHeadroomFromStatus(inputs: Omit<BudgetInputs, 'workloads'>, opts: BudgetOptions = {}): BudgetHeadroom[] {
  const release = opts.release ?? 'master';
  const out: BudgetHeadroom[] = [];
  for (const pub of inputs.pubs ?? []) {
    const view = readPubSpec(pub);
    const s = statusNumbers(pub);
    const ns = inputs.pods.filter((p) => (p.metadata.namespace ?? '') === view.namespace);
    const annotated = ns.filter((p) => podRelatedPubName(p) === view.name);
    const selected = annotated.length > 0 || view.targetRef ? annotated : ns.filter((p) => labelSelectorMatches(view.selector, p.metadata.labels));
    out.push({
      kind: 'PodUnavailableBudget',
      namespace: view.namespace,
      name: view.name,
      selectedPods: selected.map((p) => p.metadata.name ?? '').sort(),
      totalReplicas: num(s.totalReplicas),
      desiredAvailable: num(s.desiredAvailable),
      currentAvailable: num(s.currentAvailable),
      unavailableAllowed: num(s.unavailableAllowed),
      disruptedPods: keys(s.disruptedPods),
      unavailablePods: keys(s.unavailablePods),
      protects: (['DELETE', 'EVICT', 'UPDATE', 'RESIZE'] as const).filter((op) => pubProtectedOperations(view, { release, inPlacePodVerticalScaling: opts.inPlacePodVerticalScaling ?? false }).has(op)),
      exemptPods: selected
        .filter((p) => isPodNoProtection(p) || (release === 'master' && view.ignoredPodSelector !== undefined && labelSelectorMatches(view.ignoredPodSelector, p.metadata.labels)))
        .map((p) => p.metadata.name ?? '')
        .sort(),
    });
  }
  for (const pdb of inputs.pdbs ?? []) {
    const s = statusNumbers(pdb);
    out.push({
      kind: 'PodDisruptionBudget',
      namespace: pdb.metadata.namespace ?? '',
      name: pdb.metadata.name ?? '',
      selectedPods: pdbPods(pdb, inputs.pods).map((p) => p.metadata.name ?? '').sort(),
      totalReplicas: num(s.expectedPods),
      desiredAvailable: num(s.desiredHealthy),
      currentAvailable: num(s.currentHealthy),
      unavailableAllowed: num(s.disruptionsAllowed),
      disruptedPods: keys(s.disruptedPods),
      unavailablePods: [],
      protects: ['EVICT'],
      exemptPods: [],
    });
  }
  return out;
}

/**
 * A PUB's headroom once its workload is scaled down by `removed` pods: its expected count drops with
 * the replicas (unless protectTotalReplicas fixes it), so desiredAvailable may drop too. PDBs and
 * fixed totals are unchanged.
 */
export function headroomAfterScaleDown(b: BudgetHeadroom, pub: KubeObject | undefined, removed: number): BudgetHeadroom {
  if (b.kind !== 'PodUnavailableBudget' || !pub) return b;
  const view = readPubSpec(pub);
  if (view.protectTotalReplicas !== undefined) return b;
  const desired = desiredAvailableForPub(view, Math.max(0, b.totalReplicas - removed));
  if (desired.error) return b;
  // what the webhook grants now (status) plus what the lower desiredAvailable frees
  const freed = Math.max(0, b.desiredAvailable - desired.value);
  return { ...b, desiredAvailable: desired.value, unavailableAllowed: b.unavailableAllowed + freed };
}

/**
 * One line per waiting pod: "pod web-1 waits for PodUnavailableBudget web-pub (unavailableAllowed 0: 2
 * available, 2 desired)", or "(unavailableAllowed 1, taken by the pod before it: 3 available, 2 desired)".
 */
export function waitingLine(w: BudgetRefusal, budgets: readonly BudgetHeadroom[]): string {
  const b = budgets.find((x) => x.kind === w.kind && x.name === w.name && x.namespace === w.namespace);
  if (!b) return `pod ${w.pod} waits for ${w.kind} ${w.name}`;
  const field = b.kind === 'PodDisruptionBudget' ? 'disruptionsAllowed' : 'unavailableAllowed';
  const taken = w.takenBefore > 0 ? `, taken by the ${w.takenBefore === 1 ? 'pod' : `${w.takenBefore} pods`} before it` : '';
  return `pod ${w.pod} waits for ${w.kind} ${w.name} (${field} ${b.unavailableAllowed}${taken}: ${b.currentAvailable} available, ${b.desiredAvailable} desired)`;
}

export interface RemovableNow {
  /** How many of the `want` pods may go now (`want` when no budget guards them). */
  count: number;
  /** The budget that holds back the rest, with its numbers, when one does. */
  limitedBy?: { name: string; unavailableAllowed: number; currentAvailable: number; desiredAvailable: number };
}

/**
 * How many pods of a workload (its pod template labels, kind and name) may be deleted now by its
 * controller after a scale-down of `want`, as the PUBs of its namespace admit DELETE (status numbers,
 * plus what the lower expected count frees). Each removed pod is counted as available (the worst case).
 */
export function removableNow(pubs: readonly KubeObject[], workload: { kind: string; name: string; labels: Record<string, string> }, want: number, opts: BudgetOptions = {}): RemovableNow {
  let result: RemovableNow = { count: want };
  for (const pub of pubs) {
    const view = readPubSpec(pub);
    const guards = view.targetRef ? view.targetRef.kind === workload.kind && view.targetRef.name === workload.name : labelSelectorMatches(view.selector, workload.labels);
    if (!guards || !pubProtectedOperations(view, { release: opts.release ?? 'master', inPlacePodVerticalScaling: opts.inPlacePodVerticalScaling ?? false }).has('DELETE')) continue;
    const s = statusNumbers(pub);
    const desired = num(s.desiredAvailable);
    if (desired === 0) continue;
    const after = view.protectTotalReplicas !== undefined ? undefined : desiredAvailableForPub(view, Math.max(0, num(s.totalReplicas) - want));
    const allowed = num(s.unavailableAllowed) + (after && !after.error ? Math.max(0, desired - after.value) : 0);
    if (allowed < result.count) {
      result = { count: Math.max(0, allowed), limitedBy: { name: view.name, unavailableAllowed: num(s.unavailableAllowed), currentAvailable: num(s.currentAvailable), desiredAvailable: desired } };
    }
  }
  return result;
}
