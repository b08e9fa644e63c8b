// One adapter per workload kind (and API shape), so that commands, the rollout
// evaluator and the sandbox controllers never branch on kind or version themselves.
import type { KubeObject, Pod } from '../types';

export type WorkloadKindName = 'CloneSet' | 'AdvancedStatefulSet' | 'AdvancedDaemonSet' | 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'UnitedDeployment';

export type IntOrString = number | string;

/** How pods are updated when the template changes. */
export type PodUpdatePolicy = 'ReCreate' | 'InPlaceIfPossible' | 'InPlaceOnly';

/** Rollout-relevant status, normalised across kinds and versions. */
export interface WorkloadStatus {
  observedGeneration?: number;
  /** Pods that exist (incl. surge); for DaemonSets: currentNumberScheduled. */
  replicas: number;
  readyReplicas: number;
  availableReplicas: number;
  updatedReplicas: number;
  /** Undefined when the kind or the cluster's Kruise version does not report it. */
  updatedReadyReplicas?: number;
  /** Undefined when the cluster's Kruise does not report it (Kruise < v1.2). */
  expectedUpdatedReplicas?: number;
  /** Updated pods ready for minReadySeconds; undefined when the kind or the cluster's version does not report it. */
  updatedAvailableReplicas?: number;
  updateRevision?: string;
  currentRevision?: string;
  conditions: Array<{ type: string; status: string; reason?: string; message?: string }>;
}

export interface WorkloadAdapter {
  kindName: WorkloadKindName;
  /** API group ("apps" or "apps.kruise.io"). */
  group: string;
  /** Whether this adapter handles an object of this apiVersion/kind. */
  matches(obj: KubeObject): boolean;
  /** Desired replicas (spec.replicas, default 1; DaemonSets: status.desiredNumberScheduled). */
  desiredReplicas(obj: KubeObject): number;
  /** Raw partition as written in the spec (undefined when unset). */
  partition(obj: KubeObject): IntOrString | undefined;
  /** Number of pods kept at the old revision by the partition (kind-specific arithmetic). */
  partitionReplicas(obj: KubeObject): number;
  paused(obj: KubeObject): boolean;
  /** JSON merge patch that sets paused to the given value at the shape's path. */
  pausePatch(obj: KubeObject, paused: boolean): Record<string, unknown>;
  /** JSON pointer of the paused field (for JSON patch). */
  pausedPointer(obj: KubeObject): string;
  updatePolicy(obj: KubeObject): PodUpdatePolicy | 'OnDelete';
  template(obj: KubeObject): Record<string, unknown> | undefined;
  selector(obj: KubeObject): { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> } | undefined;
  status(obj: KubeObject): WorkloadStatus;
  maxUnavailable(obj: KubeObject): IntOrString | undefined;
  maxSurge(obj: KubeObject): IntOrString | undefined;

  // ── Additions (src/kruise/workloads/*, by the core owner) ──
  /** Whether the kind has a paused field (StatefulSet and DaemonSet do not: pausePatch/pausedPointer throw). */
  supportsPause: boolean;
  /** Pods expected at the new revision, computed from spec alone (for clusters whose status lacks it). */
  expectedUpdatedReplicas(obj: KubeObject): number;
  /** maxUnavailable / maxSurge after the kind's defaults and rounding (throws InvalidValueError on unreadable values). */
  rollingLimits(obj: KubeObject): { maxUnavailable: number; maxSurge: number };
  /** JSON pointer of the pod template ("/spec/template"). */
  templatePointer(obj: KubeObject): string;
  /** JSON pointer of the partition field of this shape (undefined when the kind has none). */
  partitionPointer(obj: KubeObject): string | undefined;
  /** Pod label that carries the revision ("controller-revision-hash"; Deployment "pod-template-hash"). */
  revisionLabelKey: string;
  /** Containers and init containers of the template, with their JSON pointers. */
  containers(obj: KubeObject): TemplateContainer[];
  /** Restart always stamps restartedAt into the template, whatever the pod update policy (UnitedDeployment). */
  restartsThroughTemplate?: boolean;
  /** Kinds made of subsets (UnitedDeployment): each subset's progress, from the listed pods (undefined: not listed). */
  subsets?(obj: KubeObject, pods: readonly Pod[] | undefined): SubsetProgress[];
  /**
   * The partition counts every pod not at the update revision (CloneSet: cloneset_update.go
   * calculateDiffsWithExpectation), so once the current revision is the update revision (a new object, or
   * `rollout undo` back to it) it keeps at most the pods not updated; the StatefulSets keep ordinals instead.
   */
  partitionCountsOldPods?(obj: KubeObject): boolean;
}

/** One subset of a UnitedDeployment: its replicas, partition and updated pods. */
export interface SubsetProgress {
  name: string;
  replicas: number;
  partition: number;
  /** replicas - partition. */
  expectedUpdatedReplicas: number;
  /** Undefined while the pods are not listed. */
  updatedReplicas?: number;
  updatedReadyReplicas?: number;
  done: boolean;
}

/** A container of a workload's pod template and where it lives (for JSON patches). */
export interface TemplateContainer {
  name: string;
  image?: string;
  init: boolean;
  /** e.g. "/spec/template/spec/containers/0". */
  pointer: string;
}
