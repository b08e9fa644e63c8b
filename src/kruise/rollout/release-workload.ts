// The types every per-kind batch release control shares, and their small helpers, pure
// (openkruise/rollouts v0.6.2): `RolloutWorkload` is pkg/util/controller_finder.go `Workload`;
// `BatchContext` is pkg/controller/batchrelease/context/context.go; `ReleaseControl` is the
// control.Interface of pkg/controller/batchrelease/control plus the kind's part of the workload
// webhook (pkg/webhook/workload/mutating/workload_update_handler.go). The table is release-control.ts.
import type { IntOrString } from '../intstr';
import type { KubeObject } from '../types';
import { at, groupVersion, isObj, numAt, strAt } from '../workloads/access';
import { BATCH_RELEASE_CONTROL_ANNOTATION, IN_ROLLOUT_PROGRESSING_ANNOTATION, ROLLOUT_ID_LABEL } from './labels';

export { BATCH_RELEASE_CONTROL_ANNOTATION, IN_ROLLOUT_PROGRESSING_ANNOTATION } from './labels';

/** The Kruise Rollout release the sandbox imitates (--kruise-rollout): its controls and rules differ. */
export type KruiseRolloutRelease = 'v0.4' | 'v0.6' | 'master';

/** spec.strategy's rolling style as BatchRelease's releasePlan.rollingStyle spells it. */
export type RollingStyle = 'Partition' | 'Canary' | 'BlueGreen';

/** A JSON merge patch (RFC 7386) of the workload, relative to its stored shape. */
export type MergePatch = Record<string, unknown>;

/** controller_finder.go Workload: what the Rollout controller knows of its workload. */
export interface RolloutWorkload {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid?: string;
  generation: number;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  replicas: number;
  /** metadata.generation == status.observedGeneration: the controller waits otherwise. */
  statusConsistent: boolean;
  /** Revision hashes (the part after the last "-" of the revision name for CloneSet). */
  stableRevision: string;
  canaryRevision: string;
  podTemplateHash: string;
  /** Full status.updateRevision (BatchRelease's updateRevision, pods' controller-revision-hash). */
  updateRevisionName: string;
  stableRevisionName: string;
  inRolloutProgressing: boolean;
  /** The template was put back to the stable revision while pods still run the canary one. */
  inRollback: boolean;
  /** status.updatedReplicas / updatedReadyReplicas (the batch verdict reads them). */
  updatedReplicas: number;
  updatedReadyReplicas: number;
}

/** The numbers of one batch (batchrelease/context/context.go BatchContext). */
export interface BatchContext {
  currentBatch: number;
  replicas: number;
  rolloutID: string;
  updateRevision: string;
  plannedUpdatedReplicas: number;
  desiredUpdatedReplicas: number;
  /** The partition the batch wants (count, or a percentage when the plan says percentages). */
  desiredPartition: IntOrString;
  currentPartition: IntOrString;
  updatedReplicas: number;
  updatedReadyReplicas: number;
  failureThreshold?: IntOrString;
}

/** What the workload webhook knows when it calls a control (fetchMatchedRollout's Rollout, the store's objects). */
export interface WebhookContext {
  rolloutName: string;
  hasTrafficRoutings: boolean;
  /** Objects of a group/resource in the workload's namespace (e.g. a Deployment's ReplicaSets). */
  list(group: string, resource: string): KubeObject[];
}

/** Objects a kind's Workload view reads beside the workload (a Deployment's ReplicaSets). */
export interface WorkloadRelated {
  replicaSets?: KubeObject[];
  /** The namespace's Deployments (a canary-style release's canary Deployment). */
  deployments?: KubeObject[];
  /** The namespace's ControllerRevisions (a native DaemonSet's revisions). */
  controllerRevisions?: KubeObject[];
}

/** A write to an object other than the workload (canary style: the canary Deployment). */
export type SideWrite =
  | { kind: 'create'; resource: { group: string; resource: string }; object: KubeObject }
  | { kind: 'patch'; resource: { group: string; resource: string }; name: string; patch: MergePatch };

/** What a BatchRelease needs of its workload kind. */
export interface ReleaseControl {
  /** e.g. "apps.kruise.io" + "CloneSet"; `style` "Partition" for in-place partition releases. */
  group: string;
  kind: string;
  style: RollingStyle;
  /** The Kruise Rollout releases that release this kind (absent: all the sandbox imitates). */
  releases?: readonly KruiseRolloutRelease[];
  /** controller_finder.go getXxx: undefined when the object is not this kind. */
  readWorkload(obj: KubeObject, related?: WorkloadRelated): RolloutWorkload;
  /**
   * What controller_finder.go writes back while reading (a native DaemonSet's revision annotation), as a
   * patch of the workload; undefined when nothing changes.
   */
  annotateWorkloadView?(obj: KubeObject, view: RolloutWorkload): MergePatch | undefined;
  /**
   * The BatchRelease's view of the workload (util.ParseWorkload) where it differs from the Rollout's
   * (readWorkload): a native DaemonSet's revisions come from the annotation the Rollout wrote.
   */
  parseWorkload?(obj: KubeObject): RolloutWorkload;
  /**
   * BuildController lists the pods and counts the Ready ones of the update revision when the status
   * says no updated pod is ready (partitionstyle/statefulset and daemonset control.go: the native
   * StatefulSet and the Advanced DaemonSet have no updatedReadyReplicas). Other kinds' status is read as is.
   */
  countsUpdatedReadyPods?: boolean;
  /**
   * The workload webhook on an UPDATE: the changed object to store (held: nothing rolls before the
   * Rollout controller acts), or undefined to let it through unchanged.
   */
  holdOnRevisionChange(next: KubeObject, old: KubeObject, hook: WebhookContext): KubeObject | undefined;
  /** Initialize: take control (annotation + partition "100%"); undefined when already controlled by `br`. */
  initialize(workload: KubeObject, br: KubeObject): MergePatch | undefined;
  /** CalculateBatchContext; `pods` (the workload's) count updated ready pods where the status lacks them; `related` what the kind reads beside it. */
  batchContext(workload: KubeObject, br: KubeObject, pods: readonly KubeObject[], related?: WorkloadRelated): BatchContext;
  /** UpgradeBatch: the partition patch, undefined when the current partition already lets enough pods update. */
  upgradeBatch(workload: KubeObject, ctx: BatchContext): MergePatch | undefined;
  /** Finalize: hand the workload back (partition removed and resumed when the plan has no batchPartition). */
  finalize(workload: KubeObject, br: KubeObject): MergePatch;
  /** Finalize's wait (blue-green, canary style): why the workload is not done yet, undefined when it is. */
  finalizePending?(workload: KubeObject, br: KubeObject, related: WorkloadRelated | undefined): string | undefined;
  /** Writes beside the workload's patch at Initialize, at each batch's upgrade and at Finalize (canary style). */
  sideWrites?(phase: 'initialize' | 'upgrade' | 'finalize', workload: KubeObject, br: KubeObject, related: WorkloadRelated | undefined, ctx?: BatchContext): SideWrite[];
}

// ── shared helpers of the controls ──

export function metaMaps(obj: KubeObject): { labels: Record<string, string>; annotations: Record<string, string> } {
  return { labels: { ...(obj.metadata.labels ?? {}) }, annotations: { ...(obj.metadata.annotations ?? {}) } };
}

/** The object fields every control's Workload view starts with (controller_finder.go Workload's ObjectMeta). */
export function workloadIdentity(
  obj: KubeObject,
  kind: string,
  defaultApiVersion = '',
): Pick<RolloutWorkload, 'apiVersion' | 'kind' | 'namespace' | 'name' | 'uid' | 'generation' | 'labels' | 'annotations'> {
  return {
    apiVersion: obj.apiVersion ?? defaultApiVersion,
    kind,
    namespace: obj.metadata.namespace ?? '',
    name: obj.metadata.name ?? '',
    uid: obj.metadata.uid,
    generation: obj.metadata.generation ?? 0,
    ...metaMaps(obj),
  };
}

/** The webhook's mark on a workload it holds for a release: the in-progressing annotation naming the Rollout. */
export function markInRolloutProgressing(held: KubeObject, rolloutName: string): KubeObject {
  held.metadata.annotations = { ...(held.metadata.annotations ?? {}), [IN_ROLLOUT_PROGRESSING_ANNOTATION]: JSON.stringify({ rolloutName }) };
  return held;
}

/** The hash after the last "-" of a revision name (controller_finder.go). */
export function revisionSuffix(name: string): string {
  return name.slice(name.lastIndexOf('-') + 1);
}

/** control/util.go IsControlledByBatchRelease: the control-info annotation names the BatchRelease's uid. */
export function isControlledByBatchRelease(workload: KubeObject, br: KubeObject): boolean {
  const owner = (workload.metadata.ownerReferences ?? []).find((r) => r.controller);
  if (owner && owner.uid === br.metadata.uid) return true;
  const info = workload.metadata.annotations?.[BATCH_RELEASE_CONTROL_ANNOTATION];
  if (!info) return false;
  try {
    const ref: unknown = JSON.parse(info);
    return isObj(ref) && ref.uid === br.metadata.uid;
  } catch {
    return false;
  }
}

/** control/util.go BuildReleaseControlInfo: the BatchRelease as a controller owner reference, JSON. */
export function releaseControlInfo(br: KubeObject): string {
  return JSON.stringify({
    apiVersion: br.apiVersion ?? 'rollouts.kruise.io/v1beta1',
    kind: 'BatchRelease',
    name: br.metadata.name ?? '',
    uid: br.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  });
}

/** The workload's rollout ID (rollout_status.go getRolloutID: its rollout-id label). */
export function workloadRolloutID(obj: KubeObject): string {
  return obj.metadata.labels?.[ROLLOUT_ID_LABEL] ?? '';
}

/** status.observedGeneration == metadata.generation. */
export function statusConsistent(obj: KubeObject): boolean {
  return (numAt(obj, 'status', 'observedGeneration') ?? 0) === (obj.metadata.generation ?? 0);
}

/** The group of a workload object. */
export function groupOf(obj: KubeObject): string {
  return groupVersion(obj).group;
}

export function releasePlanOf(br: KubeObject): {
  batches: IntOrString[];
  batchPartition?: number;
  rolloutID: string;
  failureThreshold?: IntOrString;
  rollingStyle?: RollingStyle;
  finalizingPolicy?: string;
} {
  const plan = at(br, 'spec', 'releasePlan');
  const raw = at(plan, 'batches');
  const batches = (Array.isArray(raw) ? raw : []).map((b) => (isObj(b) && (typeof b.canaryReplicas === 'number' || typeof b.canaryReplicas === 'string') ? b.canaryReplicas : 0));
  const style = strAt(plan, 'rollingStyle');
  const ft = at(plan, 'failureThreshold');
  return {
    batches,
    batchPartition: numAt(plan, 'batchPartition'),
    rolloutID: strAt(plan, 'rolloutID') ?? '',
    failureThreshold: typeof ft === 'number' || typeof ft === 'string' ? ft : undefined,
    rollingStyle: style === 'Partition' || style === 'Canary' || style === 'BlueGreen' ? style : undefined,
    finalizingPolicy: strAt(plan, 'finalizingPolicy'),
  };
}

/**
 * control/util.go ParseIntegerAsPercentageIfPossible: a percentage P with ⌈P·all⌉ close to `stable`,
 * so that the partition keeps following the plan's percentages when replicas change.
 */
export function integerAsPercentage(stable: number, all: number, canaryReplicas: IntOrString): string {
  if (stable >= all) return '100%';
  if (stable <= 0) return '0%';
  const p = Math.trunc((stable * 100) / all);
  const restored = Math.ceil((p * all) / 100);
  if (restored <= 0 && canaryReplicas !== '100%') return '1%';
  return `${p}%`;
}

/** util.EqualIgnoreHash: pod templates equal once the pod-template-hash label is ignored. */
export function templatesEqualIgnoringHash(a: unknown, b: unknown): boolean {
  const strip = (t: unknown): unknown => {
    if (!isObj(t)) return t;
    const meta = isObj(t.metadata) ? { ...t.metadata } : undefined;
    if (meta && isObj(meta.labels)) {
      const labels = { ...meta.labels };
      delete labels['pod-template-hash'];
      meta.labels = labels;
    }
    return meta ? { ...t, metadata: meta } : t;
  };
  return canonical(strip(a)) === canonical(strip(b));
}

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) =>
    isObj(val) && !Array.isArray(val) ? Object.fromEntries(Object.keys(val).sort().map((k) => [k, val[k]])) : val,
  );
}

/** The workload webhook's first gate (handleCloneSet/handleDaemonSet): does this update start a release? */
export function isEffectiveRevisionChange(next: KubeObject, old: KubeObject): boolean {
  const nextId = next.metadata.annotations?.[ROLLOUT_ID_LABEL] ?? '';
  const oldId = old.metadata.annotations?.[ROLLOUT_ID_LABEL] ?? '';
  if (nextId !== '' && nextId === oldId) return false;
  if (nextId === '' && templatesEqualIgnoringHash(at(old, 'spec', 'template'), at(next, 'spec', 'template'))) return false;
  return true;
}

/** Sets a value at a path of a (cloned) object, creating the objects on the way. */
export function setAt(obj: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let cur: Record<string, unknown> = obj;
  for (const key of path.slice(0, -1)) {
    const next = cur[key];
    if (!isObj(next)) cur[key] = {};
    cur = cur[key] as Record<string, unknown>;
  }
  cur[path[path.length - 1]!] = value;
}

/** A batch's planned canary replicas (control/util.go CalculateBatchReplicas). */
export { stepCanaryReplicas as calculateBatchReplicas } from './step-math';
import { stepCanaryReplicas } from './step-math';

/** util.IsConsistentWithRevision + IsPodReady: pods of the update revision that are Ready (for kinds without updatedReadyReplicas). */
export function countUpdatedReadyPods(pods: readonly KubeObject[], updateRevision: string): number {
  let n = 0;
  for (const p of pods) {
    if (p.metadata.deletionTimestamp) continue;
    if (!isConsistentWithRevision(p.metadata.labels ?? {}, updateRevision)) continue;
    const conds = at(p, 'status', 'conditions');
    if (Array.isArray(conds) && conds.some((c) => isObj(c) && c.type === 'Ready' && c.status === 'True')) n++;
  }
  return n;
}

/** The numbers every partition-style control computes alike (CalculateBatchContext, without no-need-update pods). */
export function partitionBatchNumbers(br: KubeObject, replicas: number): { currentBatch: number; planned: number; desiredStable: number; batchPlan: IntOrString } {
  const plan = releasePlanOf(br);
  const currentBatch = numAt(br, 'status', 'canaryStatus', 'currentBatch') ?? 0;
  const batchPlan = plan.batches[currentBatch] ?? 0;
  const planned = stepCanaryReplicas(batchPlan, replicas);
  return { currentBatch, planned, desiredStable: replicas - planned, batchPlan };
}

/** pkg/util/pod_utils.go IsConsistentWithRevision: the revision ends with the pod's pod-template-hash or controller-revision-hash. */
export function isConsistentWithRevision(labels: Readonly<Record<string, string>>, revision: string): boolean {
  const hash = labels['pod-template-hash'] ?? '';
  if (hash !== '' && revision.endsWith(hash)) return true;
  const crh = labels['controller-revision-hash'] ?? '';
  return crh !== '' && revision.endsWith(crh);
}
