// BroadcastJob as Kruise v1.9.0 runs it (same rules since v1.3), pure: the sandbox controller
// (src/sandbox/controllers/broadcastjob.ts) does the I/O, `rollout status broadcastjob/X` reads
// the status these rules write. Each function cites the Go it follows:
// - `broadcastJobDefaults` / `validateBroadcastJob`: pkg/webhook/broadcastjob (mutating: defaults.
//   SetDefaultsBroadcastJob; validating: name, completionPolicy, restartPolicy, reserved labels, pod template).
// - `checkNodeFitness`: broadcastjob_controller.go checkNodeFitness (node name, required node affinity
//   and nodeSelector, NoSchedule/NoExecute taints, unschedulable, resource requests against allocatable).
// - `reconcileBroadcastJob`: ReconcileBroadcastJob.Reconcile as one plan (pods to create on which
//   nodes, pods to delete, the status to write, TTL deletion, when to look again).
// - `broadcastJobPod`: createPod (GetPodFromTemplate, the job's labels, a controller reference, pinned to
//   its node through metadata.name node affinity, as with the default --assign-bcj-pods-by-scheduler).
import { valueFromIntOrPercent } from './intstr-validation';
import type { FieldError } from './cloneset-webhook';
import { podSpecFitsNode } from './node-affinity';
import { defaultPodSpec } from './pod-defaults';
import { validatePodTemplateSpec } from './pod-template-validation';
import { findUntoleratedTaint, tolerationsTolerateTaint, type Taint, type Toleration } from './taints';
import { finishedCondition, kruiseJobNameProblems, kubeTimestamp, parseTimestamp, podFromJobTemplate, type JobCondition } from './job-common';
import { parseQuantity } from '../quantity';
import type { KubeObject, OwnerReference, Pod, PodTemplate } from '../types';

export const BROADCAST_JOB_NAME_LABEL = 'broadcastjob-name';
export const BROADCAST_JOB_UID_LABEL = 'broadcastjob-controller-uid';
const MAX_INT32 = 2 ** 31 - 1;

export type BroadcastJobPhase = 'running' | 'paused' | 'completed' | 'failed';

export interface BroadcastJobSpec {
  parallelism?: number | string;
  template?: PodTemplate;
  completionPolicy?: { type?: string; activeDeadlineSeconds?: number; ttlSecondsAfterFinished?: number };
  paused?: boolean;
  failurePolicy?: { type?: string; restartLimit?: number };
}

export interface BroadcastJobStatus {
  conditions?: JobCondition[];
  startTime?: string;
  completionTime?: string;
  active: number;
  succeeded: number;
  failed: number;
  desired: number;
  phase: BroadcastJobPhase | '';
}

export function broadcastJobSpec(job: KubeObject): BroadcastJobSpec {
  return (job.spec ?? {}) as BroadcastJobSpec;
}

export function broadcastJobStatus(job: KubeObject): BroadcastJobStatus {
  // Read defensively: a status no schema checked (a file, an old server) may hold anything.
  const s = (job.status ?? {}) as Record<string, unknown>;
  const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const conditions = Array.isArray(s.conditions) ? (s.conditions as unknown[]).filter((c): c is JobCondition => typeof c === 'object' && c !== null) : undefined;
  const { conditions: _raw, ...rest } = s as Partial<BroadcastJobStatus>;
  return {
    ...rest,
    ...(conditions ? { conditions } : {}),
    active: count(s.active),
    succeeded: count(s.succeeded),
    failed: count(s.failed),
    desired: count(s.desired),
    phase: typeof s.phase === 'string' ? (s.phase as BroadcastJobPhase) : '',
  };
}

/** The labels every pod of the job carries (labelsAsMap), used to list them. */
export function broadcastJobPodLabels(job: KubeObject): Record<string, string> {
  return { [BROADCAST_JOB_NAME_LABEL]: job.metadata.name ?? '', [BROADCAST_JOB_UID_LABEL]: job.metadata.uid ?? '' };
}

// ───────────── webhook ─────────────

/**
 * SetDefaultsBroadcastJob: pod spec defaults (on create, or when the template changed), completion
 * policy Always, parallelism MaxInt32, failure policy FailFast. Returns a copy.
 */
export function broadcastJobDefaults(obj: KubeObject, injectTemplateDefaults: boolean): KubeObject {
  const out = structuredClone(obj);
  const spec = (out.spec ??= {}) as BroadcastJobSpec & Record<string, unknown>;
  if (injectTemplateDefaults) defaultPodSpec((spec.template as { spec?: unknown } | undefined)?.spec, { kruise: true });
  spec.completionPolicy ??= {};
  if (!spec.completionPolicy.type) spec.completionPolicy.type = 'Always';
  if (spec.parallelism === undefined || spec.parallelism === null) spec.parallelism = MAX_INT32;
  spec.failurePolicy ??= {};
  if (!spec.failurePolicy.type) spec.failurePolicy.type = 'FailFast';
  return out;
}

/** validateBroadcastJobName: the webhook's own name rule (stricter than a DNS subdomain: no dots). */
export function broadcastJobNameProblems(name: string): string[] {
  return kruiseJobNameProblems('BroadcastJob', name);
}

/** validateBroadcastJob on the defaulted object, in Kruise's order. */
export function validateBroadcastJob(obj: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const name = obj.metadata.name ?? '';
  if (name !== '') for (const detail of broadcastJobNameProblems(name)) errors.push({ type: 'Invalid', field: 'metadata.name', value: name, detail });
  errors.push(...validateBroadcastJobSpec(broadcastJobSpec(obj), 'spec'));
  return errors;
}

export function validateBroadcastJobSpec(spec: BroadcastJobSpec, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const cp = spec.completionPolicy ?? {};
  if (cp.type === 'Never') {
    if (cp.ttlSecondsAfterFinished !== undefined && cp.ttlSecondsAfterFinished !== null) {
      errors.push({ type: 'Invalid', field: `${path}.completionPolicy.ttlSecondsAfterFinished`, value: cp.ttlSecondsAfterFinished, detail: 'ttlSecondsAfterFinished can just work with Always CompletionPolicyType' });
    }
    if (cp.activeDeadlineSeconds !== undefined && cp.activeDeadlineSeconds !== null) {
      errors.push({ type: 'Invalid', field: `${path}.completionPolicy.activeDeadlineSeconds`, value: cp.activeDeadlineSeconds, detail: 'activeDeadlineSeconds can just work with Always CompletionPolicyType' });
    }
  }
  const restartPolicy = spec.template?.spec?.restartPolicy;
  if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') {
    errors.push({ type: 'Invalid', field: `${path}.template.spec.restartPolicy`, value: restartPolicy ?? '', detail: 'pod restartPolicy can only be Never or OnFailure' });
  }
  const labels = spec.template?.metadata?.labels;
  if (labels && (labels[BROADCAST_JOB_NAME_LABEL] || labels[BROADCAST_JOB_UID_LABEL])) {
    errors.push({
      type: 'Invalid',
      field: `${path}.template.metadata.labels`,
      value: labels,
      detail: `"${BROADCAST_JOB_NAME_LABEL}" and "${BROADCAST_JOB_UID_LABEL}" are not allowed to preset in pod labels`,
    });
  }
  errors.push(...validatePodTemplateSpec(spec.template, `${path}.template`));
  return errors;
}

// ───────────── pods and nodes ─────────────

/** IsJobFinished: a Never job never finishes; otherwise a True Complete or Failed condition. */
export function isBroadcastJobFinished(job: KubeObject): boolean {
  if (broadcastJobSpec(job).completionPolicy?.type === 'Never') return false;
  return finishedCondition(broadcastJobStatus(job).conditions) !== undefined;
}

/** isPodFailed: only an OnFailure pod, once its containers restarted more than restartLimit times in all. */
export function isPodFailed(restartLimit: number, pod: Pod): boolean {
  if (pod.spec.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const s of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) restarts += s.restartCount ?? 0;
  return restarts > restartLimit;
}

/** filterPods: succeeded and failed by phase (or by restarts), active unless being deleted. */
export function filterBroadcastJobPods(restartLimit: number, pods: readonly Pod[]): { active: Pod[]; failed: Pod[]; succeeded: Pod[] } {
  const out = { active: [] as Pod[], failed: [] as Pod[], succeeded: [] as Pod[] };
  for (const p of pods) {
    if (p.status?.phase === 'Succeeded') out.succeeded.push(p);
    else if (p.status?.phase === 'Failed') out.failed.push(p);
    else if (!p.metadata.deletionTimestamp) {
      if (isPodFailed(restartLimit, p)) out.failed.push(p);
      else out.active.push(p);
    }
  }
  return out;
}

/** getAssignedNode: spec.nodeName, else the single value of a metadata.name In node affinity field. */
export function assignedNode(pod: Pod): string {
  if (pod.spec.nodeName) return pod.spec.nodeName;
  const terms = (pod.spec.affinity as { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: Array<{ matchFields?: Array<{ key: string; operator: string; values?: string[] }> }> } } } | undefined)
    ?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  for (const t of terms ?? []) for (const f of t.matchFields ?? []) if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0]!;
  return '';
}

/** getNodeToPodMap: node → pod (the last one wins); `duplicates` names the pods sharing a node with another. */
export function nodeToPodMap(pods: readonly Pod[]): { map: Map<string, Pod>; duplicates: string[] } {
  const map = new Map<string, Pod>();
  const duplicates: string[] = [];
  for (const p of pods) {
    const node = assignedNode(p);
    if (map.has(node)) duplicates.push(p.metadata.name ?? '');
    map.set(node, p);
  }
  return { map, duplicates };
}

interface NodeShape {
  spec?: { unschedulable?: boolean; taints?: Taint[] };
  status?: { allocatable?: Record<string, string> };
}

/** The resource requests the scheduler charges a pod (computePodResourceRequest): containers summed, the largest init container, plus overhead. */
function podRequests(spec: Record<string, unknown>): Map<string, number> {
  const sum = new Map<string, number>();
  const add = (into: Map<string, number>, requests: Record<string, string> | undefined) => {
    for (const [k, v] of Object.entries(requests ?? {})) into.set(k, (into.get(k) ?? 0) + (parseQuantity(String(v)) ?? 0));
  };
  for (const c of (spec.containers as Array<{ resources?: { requests?: Record<string, string> } }> | undefined) ?? []) add(sum, c.resources?.requests);
  for (const c of (spec.initContainers as Array<{ resources?: { requests?: Record<string, string> } }> | undefined) ?? []) {
    const one = new Map<string, number>();
    add(one, c.resources?.requests);
    for (const [k, v] of one) if (v > (sum.get(k) ?? 0)) sum.set(k, v);
  }
  add(sum, spec.overhead as Record<string, string> | undefined);
  return sum;
}

/**
 * checkNodeFitness for a pod (or the mock pod of a node without one): why it cannot run there, or
 * undefined when it can. The wording is the scheduler plugins' ErrReason text.
 */
export function nodeFitnessProblem(podSpec: Record<string, unknown>, node: KubeObject): string | undefined {
  const n = node as KubeObject & NodeShape;
  const nodeName = podSpec.nodeName as string | undefined;
  if (nodeName && nodeName !== node.metadata.name) return "node(s) didn't match the requested node name";
  if (!podSpecFitsNode(podSpec as { nodeSelector?: Record<string, string>; affinity?: unknown }, node)) return "node(s) didn't match Pod's node affinity/selector";
  const tolerations = podSpec.tolerations as Toleration[] | undefined;
  const taint = findUntoleratedTaint(n.spec?.taints, tolerations, (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
  if (taint) return `node(s) had taint {${taint.key}: ${taint.value ?? ''}}, that the pod didn't tolerate`;
  if (n.spec?.unschedulable && !tolerationsTolerateTaint(tolerations, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' })) return 'node(s) were unschedulable';
  const allocatable = n.status?.allocatable ?? {};
  const pods = allocatable.pods === undefined ? undefined : parseQuantity(allocatable.pods);
  if (pods !== undefined && pods < 1) return 'Too many pods';
  const insufficient: string[] = [];
  for (const [resource, wanted] of podRequests(podSpec)) {
    if (wanted <= 0) continue;
    const have = allocatable[resource] === undefined ? 0 : (parseQuantity(allocatable[resource]!) ?? 0);
    if (wanted > have) insufficient.push(`Insufficient ${resource}`);
  }
  return insufficient.length ? insufficient.join(', ') : undefined;
}

/** NewMockPod: the template's spec pinned to the node, to ask "would a pod fit there?". */
function mockPodSpec(job: KubeObject, nodeName: string): Record<string, unknown> {
  return { ...(broadcastJobSpec(job).template?.spec ?? {}), nodeName };
}

export interface NodesToRunPod {
  /** node → its pod (undefined: none yet). */
  desired: Map<string, Pod | undefined>;
  /** Eligible nodes without a pod, in the nodes' order. */
  rest: string[];
  /** Pods on nodes they no longer fit (and not already being deleted). */
  podsToDelete: Pod[];
}

/** getNodesToRunPod. */
export function nodesToRunPod(nodes: readonly KubeObject[], job: KubeObject, existing: Map<string, Pod>): NodesToRunPod {
  const out: NodesToRunPod = { desired: new Map(), rest: [], podsToDelete: [] };
  for (const node of nodes) {
    const name = node.metadata.name ?? '';
    const pod = existing.get(name);
    if (pod) {
      if (nodeFitnessProblem(pod.spec as Record<string, unknown>, node) && !pod.metadata.deletionTimestamp) {
        out.podsToDelete.push(pod);
        continue;
      }
      out.desired.set(name, pod);
    } else {
      if (nodeFitnessProblem(mockPodSpec(job, name), node)) continue;
      out.rest.push(name);
      out.desired.set(name, undefined);
    }
  }
  return out;
}

// ───────────── reconcile ─────────────

export interface BroadcastJobReconcileInput {
  job: KubeObject;
  /** Pods carrying the job's labels (those whose controller is not this job are ignored). */
  pods: readonly Pod[];
  /** Every node, in the order pods are to be created (the sandbox sorts them by name). */
  nodes: readonly KubeObject[];
  now: number;
}

export interface BroadcastJobPlan {
  /** The status to write (undefined: leave it as it is). */
  status?: BroadcastJobStatus;
  /** Nodes to create a pod on (creations are assumed to succeed; the caller lowers `active` for each that fails). */
  createOn: string[];
  /** Pods to delete; each is counted as failed, as Kruise's deleteJobPods counts them. */
  deletePods: string[];
  deleteJob: boolean;
  /** Look again after this long (activeDeadlineSeconds, TTL); undefined: only on events. */
  requeueAfterMs?: number;
  /** Pods found on a node that already has one (Kruise records a DuplicatePodCreatedOnSameNode event). */
  duplicates: string[];
}

function newCondition(type: 'Complete' | 'Failed', message: string, now: number): JobCondition {
  const t = kubeTimestamp(now);
  return { type, status: 'True', lastProbeTime: t, lastTransitionTime: t, reason: type, message };
}

/** pastActiveDeadline. */
function pastActiveDeadline(job: KubeObject, startTime: string | undefined, now: number): boolean {
  const ads = broadcastJobSpec(job).completionPolicy?.activeDeadlineSeconds;
  const start = parseTimestamp(startTime);
  if (ads === undefined || ads === null || start === undefined) return false;
  return now - start >= ads * 1000;
}

/** ReconcileBroadcastJob.Reconcile, minus the API calls. */
export function reconcileBroadcastJob(input: BroadcastJobReconcileInput): BroadcastJobPlan {
  const { job, now } = input;
  const spec = broadcastJobSpec(job);
  const plan: BroadcastJobPlan = { createOn: [], deletePods: [], deleteJob: false, duplicates: [] };
  const old = broadcastJobStatus(job);
  if (isBroadcastJobFinished(job)) {
    // pastTTLDeadline: delete once ttlSecondsAfterFinished has passed since completion.
    const ttl = spec.completionPolicy?.ttlSecondsAfterFinished;
    const done = parseTimestamp(old.completionTime);
    if (ttl !== undefined && ttl !== null && done !== undefined) {
      const left = done + ttl * 1000 - now;
      if (left <= 0) plan.deleteJob = true;
      else plan.requeueAfterMs = left;
    }
    return plan;
  }
  const status: BroadcastJobStatus = structuredClone(old);
  if (!status.startTime) {
    status.startTime = kubeTimestamp(now);
    const ads = spec.completionPolicy?.activeDeadlineSeconds;
    if (spec.completionPolicy?.type === 'Always' && ads !== undefined && ads !== null) plan.requeueAfterMs = ads * 1000;
  }
  if (status.phase === '') status.phase = 'running';
  plan.status = status;

  const uid = job.metadata.uid;
  const pods = input.pods.filter((p) => (p.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.kind === 'BroadcastJob' && r.uid === uid));
  const { map: existing, duplicates } = nodeToPodMap(pods);
  plan.duplicates = duplicates;
  const restartLimit = spec.failurePolicy?.restartLimit ?? 0;
  const { active: activePods, failed: failedPods, succeeded: succeededPods } = filterBroadcastJobPods(restartLimit, pods);
  let active = activePods.length;
  let failed = failedPods.length;
  const succeeded = succeededPods.length;
  const { desired: desiredNodes, rest, podsToDelete } = nodesToRunPod(input.nodes, job, existing);
  const desired = desiredNodes.size;
  Object.assign(status, { active, failed, succeeded, desired });

  if (status.phase === 'failed') return plan;
  if (spec.paused && (status.phase === 'running' || status.phase === 'paused')) {
    status.phase = 'paused';
    return plan;
  }
  if (!spec.paused && status.phase === 'paused') status.phase = 'running';

  let jobFailed = false;
  let failureMessage = '';
  if (failed > 0) {
    switch (spec.failurePolicy?.type) {
      case 'Pause':
        // Kruise sets spec.paused in memory only and writes the status: the job stays paused while a failed pod remains.
        status.phase = 'paused';
        return plan;
      case 'FailFast':
        jobFailed = true;
        failureMessage = 'failure policy is FailurePolicyTypeFailFast and failed pod is found';
        break;
    }
  }
  // isJobFailed: past activeDeadlineSeconds (never for a Never job).
  if (!jobFailed && spec.completionPolicy?.type !== 'Never' && pastActiveDeadline(job, status.startTime, now)) {
    jobFailed = true;
    failureMessage = `Job ${job.metadata.namespace}/${job.metadata.name} was active longer than specified deadline`;
  }
  const deletePods = (list: readonly Pod[]) => {
    for (const p of list) {
      plan.deletePods.push(p.metadata.name ?? '');
      failed++;
      active--;
    }
  };
  if (jobFailed) {
    deletePods(activePods);
    status.phase = 'failed';
    finish(status, spec, plan, newCondition('Failed', failureMessage, now), now);
  } else {
    if (podsToDelete.length > 0) deletePods(podsToDelete);
    if (!job.metadata.deletionTimestamp && rest.length > 0) {
      // reconcilePods: up to parallelism (an int or a percentage of desired, rounded up) active at once.
      const scaled = valueFromIntOrPercent(spec.parallelism ?? MAX_INT32, desired, true);
      if ('value' in scaled && active < scaled.value) {
        const diff = Math.min(scaled.value - active, rest.length);
        plan.createOn = rest.slice(0, diff);
        active += diff;
      }
    }
    if (isJobComplete(spec, desiredNodes)) {
      status.phase = 'completed';
      finish(status, spec, plan, newCondition('Complete', `Job completed, ${succeeded} pods succeeded, ${failed} pods failed`, now), now);
    }
  }
  status.failed = failed;
  status.active = active;
  return plan;
}

/** finishJob: append the condition, set completionTime, and come back for the TTL (one second late, as Kruise). */
function finish(status: BroadcastJobStatus, spec: BroadcastJobSpec, plan: BroadcastJobPlan, condition: JobCondition, now: number): void {
  status.conditions = [...(status.conditions ?? []), condition];
  status.completionTime = kubeTimestamp(now);
  const ttl = spec.completionPolicy?.ttlSecondsAfterFinished;
  plan.requeueAfterMs = ttl !== undefined && ttl !== null ? (ttl + 1) * 1000 : undefined;
}

/** isJobComplete: never for Never; otherwise every desired node has a pod and none is active. */
function isJobComplete(spec: BroadcastJobSpec, desiredNodes: Map<string, Pod | undefined>): boolean {
  if (spec.completionPolicy?.type === 'Never') return false;
  if (desiredNodes.size === 0) return false;
  for (const pod of desiredNodes.values()) {
    if (!pod) return false;
    const phase = pod.status?.phase;
    if (!pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') return false;
  }
  return true;
}

/**
 * The pod createPod makes for a node: the template's metadata plus the job's labels, generateName
 * `<job>-`, a controller reference (`ownerApiVersion`: the version the controller runs at), and the
 * node affinity pinning it to the node (ReplaceDaemonSetPodNodeNameNodeAffinity).
 */
export function broadcastJobPod(job: KubeObject, nodeName: string, ownerApiVersion: string): Pod {
  const owner: OwnerReference = { apiVersion: ownerApiVersion, kind: 'BroadcastJob', name: job.metadata.name ?? '', uid: job.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
  const pod = podFromJobTemplate(job, broadcastJobSpec(job).template, owner, { labels: broadcastJobPodLabels(job) });
  const affinity = { ...((pod.spec.affinity as Record<string, unknown> | undefined) ?? {}) };
  const nodeAffinity = { ...((affinity.nodeAffinity as Record<string, unknown> | undefined) ?? {}) };
  nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }] };
  affinity.nodeAffinity = nodeAffinity;
  pod.spec.affinity = affinity;
  return pod;
}
