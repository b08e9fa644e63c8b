// The typed view of availability budgets (Kruise's PodUnavailableBudget, policy/v1 PodDisruptionBudget)
// that other modules import: `why` (BudgetExhausted), `--preview` (headroom per batch), the
// restart/scaledown/migrate planners and the sandbox. Kept apart from the rules (rules/pub.ts,
// rules/pdb.ts, budgets.ts) so importing the types pulls in no logic.

/** What a pod operation is to a budget: Kruise's PubOperation; a PDB only guards EVICT. */
export type BudgetOperation = 'DELETE' | 'EVICT' | 'UPDATE' | 'RESIZE';

export type BudgetKind = 'PodUnavailableBudget' | 'PodDisruptionBudget';

export interface BudgetRef {
  kind: BudgetKind;
  namespace: string;
  name: string;
}

/** One budget as its controller counts it now (computed from pods, not read from status). */
export interface BudgetHeadroom extends BudgetRef {
  /** Names of the active pods the budget counts, sorted. */
  selectedPods: string[];
  /** PUB totalReplicas / PDB expectedPods. */
  totalReplicas: number;
  /** PUB desiredAvailable / PDB desiredHealthy. */
  desiredAvailable: number;
  /** PUB currentAvailable / PDB currentHealthy. */
  currentAvailable: number;
  /** PUB unavailableAllowed / PDB disruptionsAllowed: how many more pods may go now. */
  unavailableAllowed: number;
  /** Pods already granted a delete/evict not yet observed gone (status.disruptedPods). */
  disruptedPods: string[];
  /** PUB only: pods granted an in-place update not yet available again (status.unavailablePods). */
  unavailablePods: string[];
  /** The operations the budget refuses when exhausted. */
  protects: BudgetOperation[];
  /** Pods the budget never protects (pub.kruise.io/no-protect, v1beta1 spec.ignoredPodSelector). */
  exemptPods: string[];
  /** Why the budget could not be computed (a bad maxUnavailable); then it protects nothing. */
  error?: string;
}

/** A pod the budget refuses an operation for, with the message the API server would return. */
export interface BudgetRefusal extends BudgetRef {
  pod: string;
  operation: BudgetOperation;
  /** HTTP code of the refusal: 403 for Kruise's webhook, 429 for a PDB on eviction. */
  code: 403 | 429;
  message: string;
  /** How much of the budget's headroom pods planned before this one take (0: the budget has none now). */
  takenBefore: number;
}

/** Pods in the order asked: those the budgets let through now, and those that wait for headroom. */
export interface BudgetPlan {
  allowed: string[];
  waiting: BudgetRefusal[];
}
