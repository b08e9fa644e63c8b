// policy/v1 PodDisruptionBudget as kube counts and enforces it, pure: the disruption controller's
// status (pkg/controller/disruption: expectedPods, currentHealthy, desiredHealthy, disruptionsAllowed,
// disruptedPods, the DisruptionAllowed condition) and the eviction subresource's decision
// (pkg/registry/core/pod/storage/eviction.go: 429 when no disruption is allowed).
import { legacyScaledValue } from '../intstr';
import { labelSelectorMatches, type LabelSelector } from '../selectors';
import type { KubeObject, Pod } from '../types';
import { expectedScaleForPods } from './budget-scale';

/** An eviction-granted pod not seen gone within this is dropped from disruptedPods (DeletionTimeout). */
export const PDB_DELETION_TIMEOUT_MS = 2 * 60_000;
/** MaxDisruptedPodSize in the eviction REST. */
export const PDB_MAX_DISRUPTED_POD_SIZE = 2000;

export interface PdbStatus {
  observedGeneration: number;
  disruptedPods?: Record<string, string>;
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  conditions?: Array<{ type: string; status: string; reason: string; message: string; observedGeneration: number; lastTransitionTime?: string }>;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function specOf(pdb: KubeObject): { selector?: LabelSelector; minAvailable?: number | string; maxUnavailable?: number | string; unhealthyPodEvictionPolicy?: string } {
  return (isObj(pdb.spec) ? pdb.spec : {}) as ReturnType<typeof specOf>;
}

/** kube's IsPodReady: the PodReady condition is True. */
export function isPodReadyCondition(pod: Pod): boolean {
  return pod.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
}

/** The pods a PDB selects in its namespace (an empty selector selects every pod in policy/v1). */
export function pdbPods(pdb: KubeObject, pods: readonly Pod[]): Pod[] {
  const sel = specOf(pdb).selector;
  const ns = pdb.metadata.namespace ?? '';
  return pods.filter((p) => (p.metadata.namespace ?? '') === ns && (sel !== undefined && Object.keys(sel).length === 0 ? true : labelSelectorMatches(sel, p.metadata.labels)));
}

/** getExpectedPodCount: (expectedCount, desiredHealthy) from minAvailable / maxUnavailable. */
export function pdbExpected(pdb: KubeObject, pods: readonly Pod[], workloads: readonly KubeObject[]): { expected: number; desiredHealthy: number; error?: string } {
  const spec = specOf(pdb);
  if (spec.maxUnavailable !== undefined) {
    const expected = expectedScaleForPods(pods, workloads);
    const max = legacyScaledValue(spec.maxUnavailable, expected, true);
    if (max.error) return { expected, desiredHealthy: 0, error: max.error };
    return { expected, desiredHealthy: Math.max(0, expected - max.value) };
  }
  if (typeof spec.minAvailable === 'number') return { expected: pods.length, desiredHealthy: spec.minAvailable };
  if (typeof spec.minAvailable === 'string') {
    const expected = expectedScaleForPods(pods, workloads);
    const min = legacyScaledValue(spec.minAvailable, expected, true);
    if (min.error) return { expected, desiredHealthy: 0, error: min.error };
    return { expected, desiredHealthy: min.value };
  }
  return { expected: pods.length, desiredHealthy: 0 };
}

/** The disruption controller's status for `pdb` now (conditions carry no timestamp: the caller keeps the old one). */
export function computePdbStatus(pdb: KubeObject, pods: readonly Pod[], workloads: readonly KubeObject[], now: Date): PdbStatus & { error?: string } {
  const selected = pdbPods(pdb, pods);
  const { expected, desiredHealthy, error } = pdbExpected(pdb, selected, workloads);
  const old = (isObj(pdb.status) ? pdb.status : {}) as Partial<PdbStatus>;
  const disrupted: Record<string, string> = {};
  for (const pod of selected) {
    const name = pod.metadata.name ?? '';
    const at = old.disruptedPods?.[name];
    if (at === undefined || pod.metadata.deletionTimestamp) continue;
    if (now.getTime() - Date.parse(at) <= PDB_DELETION_TIMEOUT_MS) disrupted[name] = at;
  }
  let healthy = 0;
  for (const pod of selected) {
    if (pod.metadata.deletionTimestamp || (pod.metadata.name ?? '') in disrupted) continue;
    if (isPodReadyCondition(pod)) healthy++;
  }
  let allowed = healthy - desiredHealthy;
  if (expected <= 0 || allowed <= 0) allowed = 0;
  const generation = pdb.metadata.generation ?? 0;
  const status: PdbStatus & { error?: string } = {
    observedGeneration: generation,
    disruptionsAllowed: allowed,
    currentHealthy: healthy,
    desiredHealthy,
    expectedPods: expected,
    conditions: [
      allowed > 0
        ? { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration: generation }
        : { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '', observedGeneration: generation },
    ],
  };
  if (Object.keys(disrupted).length > 0) status.disruptedPods = disrupted;
  if (error) status.error = error;
  return status;
}

/** The eviction REST's verdict: delete (maybe spending one disruption), or refuse with kube's status. */
export type EvictionDecision =
  | { allowed: true; reason: string; status?: PdbStatus }
  | { allowed: false; code: 429 | 403 | 500; message: string; cause?: { reason: string; message: string } };

export const EVICTION_VIOLATES_BUDGET = "Cannot evict pod as it would violate the pod's disruption budget.";

function pdbStatusOf(pdb: KubeObject): PdbStatus {
  const s = (isObj(pdb.status) ? pdb.status : {}) as Partial<PdbStatus>;
  const out: PdbStatus = {
    observedGeneration: s.observedGeneration ?? 0,
    disruptionsAllowed: s.disruptionsAllowed ?? 0,
    currentHealthy: s.currentHealthy ?? 0,
    desiredHealthy: s.desiredHealthy ?? 0,
    expectedPods: s.expectedPods ?? 0,
  };
  if (s.disruptedPods) out.disruptedPods = { ...s.disruptedPods };
  if (s.conditions) out.conditions = s.conditions;
  return out;
}

/** The PDBs that select this pod. */
export function pdbsForPod(pod: Pod, pdbs: readonly KubeObject[]): KubeObject[] {
  return pdbs.filter((pdb) => pdbPods(pdb, [pod]).length === 1);
}

/** Whether evicting `pod` is allowed by the PDBs of its namespace (their *status*, as the eviction REST reads it). */
export function evictionDecision(pod: Pod, pdbs: readonly KubeObject[], opts: { now: Date; dryRun?: boolean }): EvictionDecision {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || pod.metadata.deletionTimestamp) return { allowed: true, reason: 'pod is not running: no budget applies' };
  const mine = pdbsForPod(pod, pdbs);
  if (mine.length === 0) return { allowed: true, reason: 'no PodDisruptionBudget selects the pod' };
  if (mine.length > 1) return { allowed: false, code: 500, message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.' };
  const pdb = mine[0]!;
  const status = pdbStatusOf(pdb);
  const name = pdb.metadata.name ?? '';
  // an unready pod may go while the budget is met (IfHealthyBudget) or always (AlwaysAllow)
  if (!isPodReadyCondition(pod)) {
    if (specOf(pdb).unhealthyPodEvictionPolicy === 'AlwaysAllow') return { allowed: true, reason: 'unhealthy pod, AlwaysAllow' };
    if (status.currentHealthy >= status.desiredHealthy && status.desiredHealthy > 0) return { allowed: true, reason: 'unhealthy pod, budget met' };
  }
  if (status.observedGeneration < (pdb.metadata.generation ?? 0)) {
    return { allowed: false, code: 429, message: EVICTION_VIOLATES_BUDGET, cause: { reason: 'DisruptionBudget', message: `The disruption budget ${name} is still being processed by the server.` } };
  }
  if (status.disruptionsAllowed < 0) return { allowed: false, code: 403, message: `poddisruptionbudgets.policy "${name}" is forbidden: pdb disruptions allowed is negative` };
  if (Object.keys(status.disruptedPods ?? {}).length > PDB_MAX_DISRUPTED_POD_SIZE) {
    return { allowed: false, code: 403, message: `poddisruptionbudgets.policy "${name}" is forbidden: DisruptedPods map too big - too many evictions not confirmed by PDB controller` };
  }
  if (status.disruptionsAllowed === 0) {
    return {
      allowed: false,
      code: 429,
      message: EVICTION_VIOLATES_BUDGET,
      cause: { reason: 'DisruptionBudget', message: `The disruption budget ${name} needs ${status.desiredHealthy} healthy pods and has ${status.currentHealthy} currently` },
    };
  }
  if (opts.dryRun) return { allowed: true, reason: 'dry run: budget not spent' };
  const next: PdbStatus = { ...status, disruptionsAllowed: status.disruptionsAllowed - 1, disruptedPods: { ...(status.disruptedPods ?? {}), [pod.metadata.name ?? '']: opts.now.toISOString().replace(/\.\d{3}Z$/, 'Z') } };
  return { allowed: true, reason: 'budget spent', status: next };
}
