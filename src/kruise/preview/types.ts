// The `--preview` view model: what Kruise will do to each pod and in which batches, as plain data
// (the JSON of `-o json`, documented in README "--preview"). Built by workload-preview.ts, rendered by
// printers/preview.ts.
import type { ContainerResourceChange } from '../rules/inplace-vertical';

/** A feature gate as the preview knows it: set with --feature-gates, read from kruise-manager, or not known. */
export type GateState = 'on' | 'off' | 'unknown';

export type PodAction =
  /** container images (and/or labels/annotations) changed on the running pod; changed containers restart */
  | 'update-in-place'
  /** only containers whose env reads a changed label/annotation restart (InPlaceUpdateEnvFromMetadata) */
  | 'restart-in-place'
  /** cpu/memory resized on the running pod (InPlaceWorkloadVerticalScaling) */
  | 'resize-in-place'
  /** the pod is deleted and a new one (new uid) is created */
  | 'recreate'
  /** InPlaceOnly and the change cannot be in place: Kruise's webhook refuses the change */
  | 'refused'
  /** the partition (or an ADS node selector) keeps the pod at its revision */
  | 'kept'
  /** already at the new template */
  | 'unchanged';

export interface PodPreview {
  name: string;
  uid?: string;
  node?: string;
  /** The pod's revision (controller-revision-hash / pod-template-hash), when known. */
  revision?: string;
  action: PodAction;
  /** container → new image */
  images?: Record<string, string>;
  /** containers Kruise or the kubelet restarts, in launch-priority batches (highest priority first) */
  restartOrder?: string[][];
  /** container → resized quantities */
  resize?: Record<string, ContainerResourceChange>;
  /** In place without going not ready: a resize alone that restarts no container (defaultCheckPodNeedsBeUnready). */
  staysReady?: boolean;
  /** why a recreate / refusal / keep */
  reasons?: string[];
  /** When the action hangs on a gate whose state is unknown: the action with the gate on. */
  ifGateOn?: { gate: string; action: PodAction };
  /** 1-based batch, absent for pods left as they are */
  batch?: number;
}

export interface BatchPreview {
  index: number;
  /** Existing pods updated (in place or recreated) in this batch, in order. */
  pods: string[];
  /** New pods created above replicas (maxSurge) for this batch. */
  surge: number;
  /** Pods of the batch a PodUnavailableBudget/PDB still allows to be unavailable (only with a budget module). */
  budgetHeadroom?: number;
  budgetName?: string;
}

export interface WorkloadPreview {
  kind: string;
  apiVersion: string;
  namespace?: string;
  name: string;
  /** The command that would make the change, e.g. "set image". */
  command: string;
  /** ReCreate / InPlaceIfPossible / InPlaceOnly / OnDelete / Recreate (native). */
  policy: string;
  replicas: number;
  /** Pods kept at the old revision by the partition (already scaled). */
  partition: number;
  maxUnavailable: number;
  maxSurge: number;
  paused: boolean;
  /** The feature gates the decisions depended on. */
  featureGates: Record<string, GateState>;
  /** Where the gates' states came from when not from --feature-gates, e.g. "deployment kruise-system/kruise-controller-manager". */
  featureGatesFrom?: string;
  /** Per pod (offline: one row per replica the manifest would have). */
  pods: PodPreview[];
  batches: BatchPreview[];
  /** Pod names are placeholders (offline preview of a manifest). */
  offline?: boolean;
  /** true when the change (or its absence) writes nothing: no template change. */
  noChange?: boolean;
  warnings: string[];
}

/**
 * Hook for availability budgets (PodUnavailableBudget / PodDisruptionBudget): how many of these pods
 * may be unavailable at once now. Absent (offline previews, no budget covers the pods): no `budgetHeadroom` in the batches.
 */
export interface BudgetHeadroomHook {
  headroom(pods: readonly { name: string; labels: Record<string, string> }[]): { headroom: number; budget: string } | undefined;
}
