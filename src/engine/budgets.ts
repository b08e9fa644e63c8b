// Availability budgets as the executors see them: one LIST of PodUnavailableBudgets (when Kruise serves
// them) and one of PodDisruptionBudgets in the namespace, turned into headroom by the pure rules
// (src/kruise/budgets.ts budgetHeadroomFromStatus: the status is what the webhook and eviction read).
// restart (client-side), scaledown and migrate ask only for what these budgets admit and name the rest.
import type { KubeClient, KubeObject, ResourceType } from '../kube/client';
import { budgetHeadroomFromStatus, planAroundBudgets, waitingLine, type BudgetHeadroom, type BudgetOperation, type BudgetPlan } from '../kruise/budgets';
import type { Pod } from '../kruise/types';

export const PDB_RT: ResourceType = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true };

export interface BudgetObjects {
  pubs: KubeObject[];
  pdbs: KubeObject[];
  /** v1alpha1 PUBs are read with v1.9's rules, v1beta1 with master's. */
  release: 'v1.9' | 'master';
  pubRt?: ResourceType;
}

/**
 * The namespace's budgets; a cluster without Kruise (or without PDB access) simply has none of that kind.
 * PDBs guard evictions only: they are listed when asked for (`withPdbs`), not for a delete.
 */
export async function readBudgets(client: KubeClient, namespace: string, signal?: AbortSignal, withPdbs = false): Promise<BudgetObjects> {
  const pubRt = await client.discovered('policy.kruise.io', 'podunavailablebudgets').catch(() => undefined);
  const [pubs, pdbs] = await Promise.all([
    pubRt ? client.list(pubRt, namespace, { signal }).then((l) => l.items, () => []) : Promise.resolve([]),
    withPdbs ? client.list(PDB_RT, namespace, { signal }).then((l) => l.items, () => []) : Promise.resolve([]),
  ]);
  const out: BudgetObjects = { pubs, pdbs, release: pubRt?.version === 'v1beta1' ? 'master' : 'v1.9' };
  if (pubRt) out.pubRt = pubRt;
  return out;
}

export function headroomOf(budgets: BudgetObjects, pods: readonly Pod[]): BudgetHeadroom[] {
  return budgetHeadroomFromStatus({ pods, pubs: budgets.pubs, pdbs: budgets.pdbs }, { release: budgets.release });
}

/** The plan for `operation` on these pods (in order) and the lines naming each pod that waits. */
export function planWithBudgets(operation: BudgetOperation, podsInOrder: readonly Pod[], allPods: readonly Pod[], budgets: BudgetObjects): { plan: BudgetPlan; lines: string[]; headroom: BudgetHeadroom[] } {
  const headroom = headroomOf(budgets, allPods);
  const plan = planAroundBudgets(operation, podsInOrder, headroom);
  return { plan, headroom, lines: plan.waiting.map((w) => waitingLine(w, headroom)) };
}
