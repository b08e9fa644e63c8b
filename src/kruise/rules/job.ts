// A minimal batch/v1 Job as kube v1.32 runs it, pure (src/sandbox/controllers/job.ts does the I/O):
// - `jobDefaults` / `validateJob`: the API server's defaulting (SetDefaults_Job, the template's pod
//   defaults, generateSelector's labels and selector) and the validation users hit (restartPolicy,
//   non-negative counts, selector vs template labels, immutable fields on update).
// - `syncJob`: the job controller for NonIndexed jobs: pods from the template up to parallelism and
//   the completions left, pod tracking through the `batch.kubernetes.io/job-tracking` finalizer and
//   `status.uncountedTerminatedPods` (counted once, then released), backoffLimit (failed pods, and
//   container restarts of OnFailure pods), activeDeadlineSeconds, suspend, and the terminal conditions
//   as v1.32 writes them (SuccessCriteriaMet then Complete, FailureTarget then Failed, each once the
//   job's pods are gone); ttlSecondsAfterFinished (the TTL-after-finished controller).
// Not imitated: Indexed completion, podFailurePolicy, successPolicy, backoffLimitPerIndex, managedBy;
// the delay before replacing a failed pod is kept short, like the sandbox kubelet's back-off.
import type { FieldError } from './cloneset-webhook';
import { defaultPodSpec } from './pod-defaults';
import { validatePodTemplateSpec } from './pod-template-validation';
import { finishedCondition, kubeTimestamp, parseTimestamp, podFromJobTemplate, type JobCondition } from './job-common';
import { labelSelectorMatches, type LabelSelector } from '../selectors';
import { jsonEqual } from '../../lib/json-equal';
import type { KubeObject, OwnerReference, Pod } from '../types';

export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const JOB_UID_LABEL = 'batch.kubernetes.io/controller-uid';
const LEGACY_JOB_NAME_LABEL = 'job-name';
const LEGACY_JOB_UID_LABEL = 'controller-uid';
const MAX_INT32 = 2 ** 31 - 1;

export interface JobSpec {
  parallelism?: number;
  completions?: number | null;
  backoffLimit?: number;
  activeDeadlineSeconds?: number;
  ttlSecondsAfterFinished?: number;
  suspend?: boolean;
  completionMode?: string;
  manualSelector?: boolean;
  selector?: LabelSelector;
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> };
  [key: string]: unknown;
}

export interface JobStatus {
  conditions?: JobCondition[];
  startTime?: string;
  completionTime?: string;
  active?: number;
  ready?: number;
  terminating?: number;
  succeeded?: number;
  failed?: number;
  uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] };
}

export function jobSpec(job: KubeObject): JobSpec {
  return (job.spec ?? {}) as JobSpec;
}

function jobStatus(job: KubeObject): JobStatus {
  return (job.status ?? {}) as JobStatus;
}

// ───────────── API server: defaults and validation ─────────────

/** SetDefaults_Job + the template's pod defaults + generateSelector (needs the uid). Returns a copy. */
export function jobDefaults(obj: KubeObject): KubeObject {
  const out = structuredClone(obj);
  const spec = (out.spec ??= {}) as JobSpec;
  if ((spec.completions === undefined || spec.completions === null) && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex !== undefined ? MAX_INT32 : 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
  spec.manualSelector ??= false;
  const template = (spec.template ??= {});
  defaultPodSpec(template.spec);
  // SetDefaults_Job shares the template's label map with the Job's when the Job has none, so the
  // labels generated below show on the Job too.
  const shareLabels = template.metadata?.labels !== undefined && Object.keys(out.metadata.labels ?? {}).length === 0;
  if (!spec.manualSelector) {
    const labels = ((template.metadata ??= {}).labels ??= {});
    for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) labels[key] ??= out.metadata.name ?? '';
    for (const key of [LEGACY_JOB_UID_LABEL, JOB_UID_LABEL]) labels[key] ??= out.metadata.uid ?? '';
    const selector = (spec.selector ??= {});
    (selector.matchLabels ??= {})[JOB_UID_LABEL] ??= out.metadata.uid ?? '';
  }
  if (shareLabels) out.metadata.labels = { ...(template.metadata?.labels ?? {}) };
  return out;
}

/** ValidateJob (and ValidateJobUpdate's immutable fields when `old` is given), on the defaulted object. */
export function validateJob(obj: KubeObject, old?: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = jobSpec(obj);
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished'] as const) {
    const v = spec[f];
    if (typeof v === 'number' && v < 0) errors.push({ type: 'Invalid', field: `spec.${f}`, value: v, detail: 'must be greater than or equal to 0' });
  }
  if (spec.completionMode !== 'NonIndexed' && spec.completionMode !== 'Indexed') {
    errors.push({ type: 'NotSupported', field: 'spec.completionMode', value: spec.completionMode, detail: 'supported values: "NonIndexed", "Indexed"' });
  }
  if (!spec.selector) errors.push({ type: 'Required', field: 'spec.selector', detail: '' });
  else if (!labelSelectorMatches(spec.selector, spec.template?.metadata?.labels)) {
    errors.push({ type: 'Invalid', field: 'spec.template.metadata.labels', value: spec.template?.metadata?.labels ?? {}, detail: '`selector` does not match template `labels`' });
  }
  errors.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  const restart = (spec.template?.spec as { restartPolicy?: string } | undefined)?.restartPolicy;
  if (restart === 'Always' || restart === undefined || restart === '') {
    errors.push({ type: 'Required', field: 'spec.template.spec.restartPolicy', detail: 'valid values: "OnFailure", "Never"' });
  } else if (restart !== 'OnFailure' && restart !== 'Never') {
    errors.push({ type: 'NotSupported', field: 'spec.template.spec.restartPolicy', value: restart, detail: 'supported values: "OnFailure", "Never"' });
  }
  if (old) {
    const before = jobSpec(old);
    for (const f of ['selector', 'template', 'completionMode'] as const) {
      if (!jsonEqual(spec[f], before[f])) errors.push({ type: 'Invalid', field: `spec.${f}`, value: spec[f], detail: 'field is immutable' });
    }
    if (!jsonEqual(spec.completions, before.completions)) errors.push({ type: 'Invalid', field: 'spec.completions', value: spec.completions, detail: 'field is immutable' });
  }
  return errors;
}

// ───────────── controller ─────────────

export interface JobSyncInput {
  job: KubeObject;
  /** Pods matching the job's selector (those not controlled by this job are ignored). */
  pods: readonly Pod[];
  now: number;
  /** Delay before replacing the first failed pod; doubles per failure up to 8x (kube: 10 s up to 6 min). */
  backoffBaseMs: number;
  /** When the job's last pod failure was seen (ms), for the replacement back-off. */
  lastFailureAt?: number;
}

export interface JobPlan {
  /** Status to write (undefined: unchanged). */
  status?: JobStatus;
  /** Pods to create now. */
  create: number;
  /** Pods to delete (active ones, on failure, suspension, success or lowered parallelism). */
  deletePods: string[];
  /** Pods whose tracking finalizer goes, once their end is recorded in the status. */
  releasePods: string[];
  deleteJob: boolean;
  requeueAfterMs?: number;
}

function condition(type: string, reason: string, message: string, now: number): JobCondition {
  const t = kubeTimestamp(now);
  return { type, status: 'True', lastProbeTime: t, lastTransitionTime: t, reason, message };
}

function hasCondition(conditions: readonly JobCondition[] | undefined, type: string): JobCondition | undefined {
  return conditions?.find((c) => c.type === type && c.status === 'True');
}

function isFailedPod(p: Pod): boolean {
  return p.status?.phase === 'Failed' || (Boolean(p.metadata.deletionTimestamp) && p.status?.phase !== 'Succeeded');
}

const hasFinalizer = (p: Pod) => (p.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);

export function syncJob(input: JobSyncInput): JobPlan {
  const { job, now } = input;
  const spec = jobSpec(job);
  const old = jobStatus(job);
  const plan: JobPlan = { create: 0, deletePods: [], releasePods: [], deleteJob: false };
  const uid = job.metadata.uid;
  const pods = input.pods.filter((p) => (p.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === uid));
  const finished = finishedCondition(old.conditions);
  if (finished) {
    // The job controller releases every pod once the job is done; the TTL controller deletes the job.
    for (const p of pods) if (hasFinalizer(p)) plan.releasePods.push(p.metadata.name ?? '');
    const ttl = spec.ttlSecondsAfterFinished;
    const at = parseTimestamp(old.completionTime) ?? parseTimestamp(old.conditions?.find((c) => c.type === finished)?.lastTransitionTime);
    if (ttl !== undefined && at !== undefined) {
      const left = at + ttl * 1000 - now;
      if (left <= 0) plan.deleteJob = true;
      else plan.requeueAfterMs = left;
    }
    return plan;
  }
  if (spec.completionMode === 'Indexed') return plan;

  const status: JobStatus = structuredClone(old);
  const uncounted = { succeeded: [...(old.uncountedTerminatedPods?.succeeded ?? [])], failed: [...(old.uncountedTerminatedPods?.failed ?? [])] };
  // Pod tracking: a finished pod still holding the finalizer is first recorded as uncounted, then
  // released; once released (or gone) it moves into the counts. One write each, never counted twice.
  const podByUid = new Map(pods.map((p) => [p.metadata.uid ?? '', p]));
  const known = new Set([...uncounted.succeeded, ...uncounted.failed]);
  for (const p of pods) {
    const id = p.metadata.uid ?? '';
    if (!hasFinalizer(p) || known.has(id)) continue;
    if (p.status?.phase === 'Succeeded') uncounted.succeeded.push(id);
    else if (isFailedPod(p)) uncounted.failed.push(id);
  }
  for (const id of [...uncounted.succeeded, ...uncounted.failed]) {
    const p = podByUid.get(id);
    if (p && hasFinalizer(p)) plan.releasePods.push(p.metadata.name ?? '');
  }
  const settle = (list: string[], field: 'succeeded' | 'failed') => {
    const keep: string[] = [];
    for (const id of list) {
      const p = podByUid.get(id);
      if (p && hasFinalizer(p)) keep.push(id);
      else status[field] = (status[field] ?? 0) + 1;
    }
    return keep;
  };
  uncounted.succeeded = settle(uncounted.succeeded, 'succeeded');
  uncounted.failed = settle(uncounted.failed, 'failed');
  status.uncountedTerminatedPods = {};
  if (uncounted.succeeded.length) status.uncountedTerminatedPods.succeeded = uncounted.succeeded;
  if (uncounted.failed.length) status.uncountedTerminatedPods.failed = uncounted.failed;

  const active = pods.filter((p) => !p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
  const terminating = pods.filter((p) => p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed').length;
  const succeeded = (status.succeeded ?? 0) + uncounted.succeeded.length;
  const failed = (status.failed ?? 0) + uncounted.failed.length;
  const conditions = [...(status.conditions ?? [])];
  let activeCount = active.length;
  const deleteActive = () => {
    for (const p of active) plan.deletePods.push(p.metadata.name ?? '');
    activeCount = 0;
  };

  if (spec.suspend) {
    deleteActive();
    if (!hasCondition(conditions, 'Suspended')) {
      const i = conditions.findIndex((c) => c.type === 'Suspended');
      const c = condition('Suspended', 'JobSuspended', 'Job suspended', now);
      if (i >= 0) conditions[i] = c;
      else conditions.push(c);
      delete status.startTime;
    }
  } else {
    const i = conditions.findIndex((c) => c.type === 'Suspended' && c.status === 'True');
    if (i >= 0) {
      conditions[i] = { ...condition('Suspended', 'JobResumed', 'Job resumed', now), status: 'False' };
      status.startTime = kubeTimestamp(now);
    }
    status.startTime ??= kubeTimestamp(now);

    const restarts = spec.template?.spec?.restartPolicy === 'OnFailure' ? active.reduce((n, p) => n + (p.status?.containerStatuses ?? []).reduce((m, c) => m + (c.restartCount ?? 0), 0), 0) : 0;
    const start = parseTimestamp(status.startTime) ?? now;
    const ads = spec.activeDeadlineSeconds;
    let failure = hasCondition(conditions, 'FailureTarget');
    let success = hasCondition(conditions, 'SuccessCriteriaMet');
    if (!failure && !success) {
      const completions = spec.completions ?? undefined;
      const done = completions !== undefined ? succeeded >= completions : succeeded > 0 && activeCount === 0;
      if (done) success = pushCondition(conditions, condition('SuccessCriteriaMet', 'CompletionsReached', 'Reached expected number of succeeded pods', now));
      else if (failed + restarts > (spec.backoffLimit ?? 6)) failure = pushCondition(conditions, condition('FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit', now));
      else if (ads !== undefined && now - start >= ads * 1000) failure = pushCondition(conditions, condition('FailureTarget', 'DeadlineExceeded', 'Job was active longer than specified deadline', now));
    }
    const ending = failure ?? success;
    if (ending) {
      deleteActive();
      // The terminal condition waits until no pod runs and every end is counted.
      if (terminating === 0 && active.length === 0 && uncounted.succeeded.length === 0 && uncounted.failed.length === 0) {
        if (success) {
          conditions.push(condition('Complete', ending.reason ?? '', ending.message ?? '', now));
          status.completionTime = kubeTimestamp(now);
        } else conditions.push(condition('Failed', ending.reason ?? '', ending.message ?? '', now));
        const ttl = spec.ttlSecondsAfterFinished;
        if (ttl !== undefined) plan.requeueAfterMs = ttl * 1000;
      }
    } else {
      const completions = spec.completions ?? undefined;
      const parallelism = spec.parallelism ?? 1;
      const want = completions !== undefined ? Math.min(parallelism, Math.max(0, completions - succeeded)) : succeeded > 0 ? 0 : parallelism;
      if (activeCount < want) {
        // A failed pod is replaced after a back-off that doubles with each failure.
        const backoff = failed > 0 ? Math.min(input.backoffBaseMs * 2 ** Math.min(failed - 1, 3), input.backoffBaseMs * 8) : 0;
        const wait = input.lastFailureAt !== undefined ? input.lastFailureAt + backoff - now : 0;
        if (wait > 0) plan.requeueAfterMs = wait;
        else {
          plan.create = want - activeCount;
          activeCount = want;
        }
      } else if (activeCount > want) {
        // Lowered parallelism: the newest extra pods go.
        const created = (p: Pod) => p.metadata.creationTimestamp ?? '';
        const extra = [...active].sort((a, b) => (created(a) < created(b) ? 1 : created(a) > created(b) ? -1 : 0)).slice(0, activeCount - want);
        for (const p of extra) plan.deletePods.push(p.metadata.name ?? '');
        activeCount = want;
      }
      if (ads !== undefined) {
        const left = start + ads * 1000 - now;
        if (left > 0) plan.requeueAfterMs = Math.min(plan.requeueAfterMs ?? Infinity, left);
      }
    }
  }
  if (conditions.length) status.conditions = conditions;
  setCount(status, 'active', activeCount);
  setCount(status, 'succeeded', status.succeeded ?? 0);
  setCount(status, 'failed', status.failed ?? 0);
  status.ready = active.filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
  status.terminating = terminating + plan.deletePods.length;
  plan.status = status;
  return plan;
}

/** active, succeeded and failed are omitempty in batch/v1 JobStatus. */
function setCount(status: JobStatus, field: 'active' | 'succeeded' | 'failed', n: number): void {
  if (n > 0) status[field] = n;
  else delete status[field];
}

function pushCondition(conditions: JobCondition[], c: JobCondition): JobCondition {
  conditions.push(c);
  return c;
}

/** A pod of the job: the template, `<job>-` generated name, the tracking finalizer, a controller reference. */
export function jobPod(job: KubeObject): Pod {
  const owner: OwnerReference = { apiVersion: 'batch/v1', kind: 'Job', name: job.metadata.name ?? '', uid: job.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
  return podFromJobTemplate(job, jobSpec(job).template, owner, { finalizers: [JOB_TRACKING_FINALIZER] });
}
