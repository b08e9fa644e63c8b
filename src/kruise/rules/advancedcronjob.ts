// AdvancedCronJob as Kruise v1.9.0 runs it, pure (the sandbox controller does the I/O; `create job|
// broadcastjob --from advancedcronjob/X` reads the template kind from here). Each part cites its Go:
// - `cronTemplateKind` (advancedcronjob_utils.go FindTemplateKind) and `CRON_CHILD_KINDS`: the three
//   child kinds, where their template lives and how each tells it has finished (one table, so the
//   reconcile below is written once, as Kruise's three copies of it are the same but for these).
// - `formatSchedule`: the timeZone field turned into robfig's `TZ=` prefix.
// - `advancedCronJobDefaults` / `validateAdvancedCronJob`: pkg/webhook/advancedcronjob (defaults.
//   SetDefaultsAdvancedCronJob; validating create and update rules).
// - `reconcileAdvancedCronJob`: reconcileJob / reconcileBroadcastJob / reconcileImageListPullJob: status
//   from the children, history limits, paused, the missed run (getNextSchedule, startingDeadlineSeconds),
//   concurrencyPolicy, and the child to create (constructJobForCronJob: `<name>-<unix seconds>`).
import type { FieldError } from './cloneset-webhook';
import { CronParseError, parseStandard, timeZoneProblem } from './cron';
import { defaultPodSpec } from './pod-defaults';
import { validatePodTemplateSpec } from './pod-template-validation';
import { finishedCondition, kruiseJobNameProblems, kubeTimestamp, parseTimestamp, type JobCondition } from './job-common';
import { parseImageReference } from './imagepull';
import { jsonEqual } from '../../lib/json-equal';
import type { KubeObject, OwnerReference } from '../types';

export const SCHEDULED_AT_ANNOTATION = 'apps.kruise.io/scheduled-at';

export type CronTemplateKind = 'Job' | 'BroadcastJob' | 'ImageListPullJob';

export interface CronJobTemplates {
  jobTemplate?: { metadata?: TemplateMeta; spec?: Record<string, unknown> };
  broadcastJobTemplate?: { metadata?: TemplateMeta; spec?: Record<string, unknown> };
  imageListPullJobTemplate?: { metadata?: TemplateMeta; spec?: Record<string, unknown> };
}

interface TemplateMeta {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

export interface AdvancedCronJobSpec {
  schedule?: string;
  timeZone?: string;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: string;
  paused?: boolean;
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
  template?: CronJobTemplates;
}

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

export interface AdvancedCronJobStatus {
  type?: CronTemplateKind;
  active?: ObjectReference[];
  lastScheduleTime?: string;
}

export function advancedCronJobSpec(acj: KubeObject): AdvancedCronJobSpec {
  return (acj.spec ?? {}) as AdvancedCronJobSpec;
}

/** FindTemplateKind: a job template first, then an image-list-pull one, else BroadcastJob (even when none is set). */
export function cronTemplateKind(spec: AdvancedCronJobSpec): CronTemplateKind {
  if (spec.template?.jobTemplate) return 'Job';
  if (spec.template?.imageListPullJobTemplate) return 'ImageListPullJob';
  return 'BroadcastJob';
}

export interface CronChildKind {
  kind: CronTemplateKind;
  group: string;
  resource: string;
  /** The field of spec.template holding the child's template. */
  templateField: keyof CronJobTemplates;
  /** Whether a child has finished, and how. */
  finished(child: KubeObject): 'Complete' | 'Failed' | undefined;
}

export const CRON_CHILD_KINDS: Record<CronTemplateKind, CronChildKind> = {
  Job: {
    kind: 'Job',
    group: 'batch',
    resource: 'jobs',
    templateField: 'jobTemplate',
    finished: (c) => finishedCondition((c.status as { conditions?: JobCondition[] } | undefined)?.conditions),
  },
  BroadcastJob: {
    kind: 'BroadcastJob',
    group: 'apps.kruise.io',
    resource: 'broadcastjobs',
    templateField: 'broadcastJobTemplate',
    finished: (c) => finishedCondition((c.status as { conditions?: JobCondition[] } | undefined)?.conditions),
  },
  // isImageListPullJobFinished: a completion time; Complete only when every image succeeded.
  ImageListPullJob: {
    kind: 'ImageListPullJob',
    group: 'apps.kruise.io',
    resource: 'imagelistpulljobs',
    templateField: 'imageListPullJobTemplate',
    finished: (c) => {
      const s = (c.status ?? {}) as { completionTime?: string; succeeded?: number; desired?: number };
      if (!s.completionTime) return undefined;
      return (s.succeeded ?? 0) === (s.desired ?? 0) ? 'Complete' : 'Failed';
    },
  },
};

/** formatSchedule: the schedule as given when it names a TZ itself or timeZone is unset or unloadable, else `TZ=<zone> <schedule>`. */
export function formatSchedule(spec: AdvancedCronJobSpec): string {
  const schedule = spec.schedule ?? '';
  if (schedule.includes('TZ')) return schedule;
  if (spec.timeZone !== undefined && spec.timeZone !== null) {
    if (timeZoneProblem(spec.timeZone)) return schedule;
    return `TZ=${spec.timeZone} ${schedule}`;
  }
  return schedule;
}

// ───────────── webhook ─────────────

/** SetDefaultsAdvancedCronJob (v1beta1 of v1.9.0). Returns a copy. */
export function advancedCronJobDefaults(obj: KubeObject, injectTemplateDefaults: boolean): KubeObject {
  const out = structuredClone(obj);
  const spec = (out.spec ??= {}) as AdvancedCronJobSpec;
  const t = spec.template;
  if (t?.jobTemplate && injectTemplateDefaults) defaultPodSpec((t.jobTemplate.spec?.template as { spec?: unknown } | undefined)?.spec, { kruise: true });
  if (t?.broadcastJobTemplate && injectTemplateDefaults) defaultPodSpec((t.broadcastJobTemplate.spec?.template as { spec?: unknown } | undefined)?.spec, { kruise: true });
  const ilp = t?.imageListPullJobTemplate;
  if (ilp) {
    const s = (ilp.spec ??= {}) as { completionPolicy?: { type?: string }; pullPolicy?: { timeoutSeconds?: number; backoffLimit?: number }; imagePullPolicy?: string };
    s.completionPolicy ??= {};
    if (!s.completionPolicy.type) {
      s.completionPolicy.type = 'Always';
      s.pullPolicy ??= {};
      s.pullPolicy.timeoutSeconds ??= 600;
      s.pullPolicy.backoffLimit ??= 3;
      if (!s.imagePullPolicy) s.imagePullPolicy = 'IfNotPresent';
    }
  }
  // running several image pulls at once is useless: Replace by default for them
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = ilp ? 'Replace' : 'Allow';
  spec.paused ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  return out;
}

/** MaxActiveDeadLineSeconds of the image-list-pull template rule. */
const MAX_ACTIVE_DEADLINE_SECONDS = 3600 * 24;

/** The schedule's parse error as the webhook words it (cron.ParseStandard), or undefined. */
export function scheduleProblem(schedule: string): string | undefined {
  try {
    parseStandard(schedule);
    return undefined;
  } catch (err) {
    if (err instanceof CronParseError) return err.message;
    throw err;
  }
}

/** The validating webhook: create rules, and on update also the fields Kruise lets change. `obj` and `old` are defaulted. */
export function validateAdvancedCronJob(obj: KubeObject, old?: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const name = obj.metadata.name ?? '';
  if (!old && name !== '') for (const detail of kruiseJobNameProblems('AdvancedCronJob', name)) errors.push({ type: 'Invalid', field: 'metadata.name', value: name, detail });
  const spec = advancedCronJobSpec(obj);
  const schedule = spec.schedule ?? '';
  if (schedule === '') errors.push({ type: 'Invalid', field: 'spec.schedule', value: schedule, detail: 'schedule cannot be empty, please provide valid cron schedule.' });
  const problem = scheduleProblem(schedule);
  if (problem) errors.push({ type: 'Invalid', field: 'spec.schedule', value: schedule, detail: problem });
  if (schedule.includes('TZ') && spec.timeZone !== undefined && spec.timeZone !== null) {
    errors.push({ type: 'Invalid', field: 'spec.schedule', value: schedule, detail: 'cannot use both timeZone field and TZ or CRON_TZ in schedule' });
  }
  errors.push(...validateTemplates(spec));
  for (const f of ['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit'] as const) {
    const v = spec[f];
    if (typeof v === 'number' && v < 0) errors.push({ type: 'Invalid', field: `spec.${f}`, value: v, detail: 'must be greater than or equal to 0' });
  }
  errors.push(...validateTimeZone(spec.timeZone));
  if (old) {
    // Only these may change; a changed template (or anything else) is refused as a whole.
    const mutable = ['schedule', 'concurrencyPolicy', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit', 'startingDeadlineSeconds', 'paused', 'timeZone'] as const;
    const before = advancedCronJobSpec(old);
    const after: AdvancedCronJobSpec = structuredClone(spec);
    for (const f of mutable) {
      if (before[f] === undefined) delete after[f];
      else (after as Record<string, unknown>)[f] = before[f];
    }
    if (before.template?.imageListPullJobTemplate) (after.template ??= {}).imageListPullJobTemplate = before.template.imageListPullJobTemplate;
    if (!jsonEqual(after, before)) {
      errors.push({
        type: 'Forbidden',
        field: 'spec',
        detail: "updates to advancedcronjob spec for fields other than 'imageListPullJobTemplate', 'schedule', 'concurrencyPolicy', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit', 'startingDeadlineSeconds', 'timeZone' and 'paused' are forbidden",
      });
    }
  }
  return errors;
}

function validateTimeZone(tz: string | undefined): FieldError[] {
  if (tz === undefined || tz === null) return [];
  if (tz === '') return [{ type: 'Invalid', field: 'spec.timeZone', value: tz, detail: 'timeZone must be nil or non-empty string' }];
  const out: FieldError[] = [];
  if (tz.toLowerCase() === 'local') out.push({ type: 'Invalid', field: 'spec.timeZone', value: tz, detail: 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones' });
  const problem = timeZoneProblem(tz);
  if (problem) out.push({ type: 'Invalid', field: 'spec.timeZone', value: tz, detail: problem });
  return out;
}

/** validateAdvancedCronJobSpecTemplate: exactly one template; pod templates checked (at Kruise's path, spec.template). */
function validateTemplates(spec: AdvancedCronJobSpec): FieldError[] {
  const errors: FieldError[] = [];
  const t = spec.template ?? {};
  let count = 0;
  if (t.jobTemplate) {
    count++;
    errors.push(...validatePodTemplateSpec(t.jobTemplate.spec?.template, 'spec.template'));
  }
  if (t.broadcastJobTemplate) {
    count++;
    errors.push(...validatePodTemplateSpec(t.broadcastJobTemplate.spec?.template, 'spec.template'));
  }
  if (t.imageListPullJobTemplate) {
    count++;
    const policy = spec.concurrencyPolicy ?? '';
    if (policy !== 'Replace' && policy !== 'Forbid') {
      // Kruise's path says spec.spec here (fldPath.Child("spec") under spec): kept as users see it.
      errors.push({ type: 'Invalid', field: 'spec.spec.concurrencyPolicy', value: policy, detail: `concurrencyPolicy should be Replace or Forbid, but current value is: ${policy}` });
    }
    errors.push(...validateImageListPullTemplate(t.imageListPullJobTemplate.spec ?? {}, 'spec.template.imageListPullJobTemplate'));
  }
  if (count === 0) errors.push({ type: 'Forbidden', field: 'spec.template', detail: 'spec must have one template, either JobTemplate or BroadcastJobTemplate or ImageListPullJobTemplate should be provided' });
  else if (count > 1) errors.push({ type: 'Forbidden', field: 'spec.template', detail: 'spec can have only one template, either JobTemplate or BroadcastJobTemplate or ImageListPullJobTemplate should be provided' });
  return errors;
}

/** validateImageListPullJobTemplateSpec: the first problem only, as Kruise returns on it. */
function validateImageListPullTemplate(spec: Record<string, unknown>, path: string): FieldError[] {
  const s = spec as {
    selector?: { names?: string[]; matchLabels?: unknown; matchExpressions?: unknown };
    podSelector?: unknown;
    images?: string[];
    completionPolicy?: { type?: string; activeDeadlineSeconds?: number; ttlSecondsAfterFinished?: number };
    pullPolicy?: { timeoutSeconds?: number };
  };
  const at = `${path}.spec`;
  const one = (field: string, value: unknown, detail: string): FieldError[] => [{ type: 'Invalid', field, value, detail }];
  if (s.selector) {
    if (s.selector.matchLabels || s.selector.matchExpressions) {
      if (s.selector.names) return one(`${at}.selector`, s.selector, 'can not set both names and labelSelector in this spec.selector');
      const bad = labelSelectorProblem(s.selector.matchExpressions);
      if (bad) return one(`${at}.selector.labelSelector`, { matchLabels: s.selector.matchLabels, matchExpressions: s.selector.matchExpressions }, `invalid selector: ${bad}`);
    }
    if (s.selector.names && new Set(s.selector.names).size !== s.selector.names.length) return one(`${at}.selector.names`, s.selector.names, 'duplicated name in selector names');
  }
  if (s.podSelector) {
    if (s.selector) return one(at, spec, 'can not set both selector and podSelector');
    const bad = labelSelectorProblem((s.podSelector as { matchExpressions?: unknown }).matchExpressions);
    if (bad) return one(`${at}.podSelector.labelSelector`, s.podSelector, `invalid selector: ${bad}`);
  }
  const images = s.images ?? [];
  if (images.length === 0) return one(`${at}.images`, images, 'image can not be empty');
  if (images.length > 255) return one(`${at}.images`, images, 'the maximum number of images cannot > 255');
  if (new Set(images).size !== images.length) return one(`${at}.images`, images, 'images cannot have duplicate values');
  for (const image of images) {
    const parsed = parseImageReference(image);
    if (!parsed.ok) return one(`${at}.images`, images, `invalid image ${image}: ${parsed.reason}`);
  }
  const cp = s.completionPolicy ?? {};
  if (cp.type !== 'Always') return one(`${at}.completionPolicy.type`, cp.type ?? '', `completionPolicy should be Always, but current value is: ${cp.type ?? ''}`);
  const ads = cp.activeDeadlineSeconds;
  if (ads !== undefined && ads > MAX_ACTIVE_DEADLINE_SECONDS) return one(`${at}.completionPolicy.activeDeadlineSeconds`, ads, `activeDeadlineSeconds must be less than ${MAX_ACTIVE_DEADLINE_SECONDS}, current value is: ${ads}`);
  const timeout = s.pullPolicy?.timeoutSeconds;
  if (ads !== undefined && timeout !== undefined && timeout > ads) return one(`${at}.completionPolicy.activeDeadlineSeconds`, ads, `completionPolicy.activeDeadlineSeconds must be greater than pullPolicy.timeoutSeconds(${timeout})`);
  if (cp.ttlSecondsAfterFinished !== undefined) return one(`${at}.completionPolicy.ttlSecondsAfterFinished`, cp.ttlSecondsAfterFinished, 'ttlSecondsAfterFinished is not supported in advancedCronJob');
  return [];
}

/** metav1.LabelSelectorAsSelector's complaint about match expressions, or undefined. */
function labelSelectorProblem(expressions: unknown): string | undefined {
  for (const e of Array.isArray(expressions) ? (expressions as Array<{ operator?: string; values?: unknown[] }>) : []) {
    const op = e.operator ?? '';
    const n = e.values?.length ?? 0;
    if (op === 'In' || op === 'NotIn') {
      if (n === 0) return 'for \'in\', \'notin\' operators, values set can\'t be empty';
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (n > 0) return 'values set must be empty for exists and does not exist';
    } else return `${JSON.stringify(op)} is not a valid label selector operator`;
  }
  return undefined;
}

// ───────────── reconcile ─────────────

/** Which children the controller counts (fieldindex register.go): controller reference of kind AdvancedCronJob, this name, an accepted apiVersion. */
export function isCronChildOf(child: KubeObject, acjName: string, ownerApiVersions: readonly string[]): boolean {
  const ref = child.metadata.ownerReferences?.find((r) => r.controller === true);
  return ref !== undefined && ref.kind === 'AdvancedCronJob' && ref.name === acjName && ownerApiVersions.includes(ref.apiVersion);
}

export interface CronReconcileInput {
  acj: KubeObject;
  /** The children of the template's kind this AdvancedCronJob controls (isCronChildOf). */
  children: readonly KubeObject[];
  now: number;
  /** apiVersion of the AdvancedCronJob as the controller runs it (the owner reference of new children). */
  ownerApiVersion: string;
  /** apiVersion the child kind is written at (batch/v1, the BroadcastJob / ImageListPullJob storage version). */
  childApiVersion: string;
}

export interface CronPlan {
  status: AdvancedCronJobStatus;
  /** Children to delete (history limits first, then the active ones Replace replaces), propagation Background. */
  deleteChildren: string[];
  create?: KubeObject;
  /** When the next run is due (undefined: only on events, e.g. paused or an unusable schedule). */
  requeueAfterMs?: number;
  /** Why no child is created now. */
  skipped?: 'paused' | 'not-due' | 'too-late' | 'forbidden-concurrent' | 'schedule-error';
  /** The controller's error (unparsable schedule, too many missed runs), logged by Kruise. */
  error?: string;
}

const MISSED_START_LIMIT = 100;

/** The child's start time for the history order (status.startTime; none sorts first). */
function startOf(child: KubeObject): number | undefined {
  return parseTimestamp((child.status as { startTime?: string } | undefined)?.startTime);
}

function oldestFirst(a: KubeObject, b: KubeObject): number {
  const x = startOf(a);
  const y = startOf(b);
  if (x === undefined) return y === undefined ? 0 : -1;
  if (y === undefined) return 1;
  return x - y;
}

/** getNextSchedule: the latest missed run (undefined: none) and the next one, or the controller's error. */
export function nextSchedule(spec: AdvancedCronJobSpec, lastScheduleTime: number | undefined, creationTime: number, now: number): { missed?: number; next?: number } | { error: string } {
  let sched;
  try {
    sched = parseStandard(formatSchedule(spec));
  } catch (err) {
    return { error: `unparsable schedule ${JSON.stringify(spec.schedule ?? '')}: ${(err as Error).message}` };
  }
  let earliest = lastScheduleTime ?? creationTime;
  const sds = spec.startingDeadlineSeconds;
  if (sds !== undefined && sds !== null) {
    const deadline = now - sds * 1000;
    if (deadline > earliest) earliest = deadline;
  }
  if (earliest > now) return { next: sched.next(now) };
  let missed: number | undefined;
  let starts = 0;
  const tooMany = { error: 'too many missed start times (> 100). Set or decrease .spec.startingDeadlineSeconds or check clock skew' };
  for (let t = sched.next(earliest); ; t = sched.next(t)) {
    // Go's zero time (no activation within five years) is before any now: it counts as missed, forever.
    if (t === undefined) return tooMany;
    if (t > now) break;
    missed = t;
    if (++starts > MISSED_START_LIMIT) return tooMany;
  }
  return { missed, next: sched.next(now) };
}

/** The reconcile of the template's kind, as one plan. */
export function reconcileAdvancedCronJob(input: CronReconcileInput): CronPlan {
  const { acj, now } = input;
  const spec = advancedCronJobSpec(acj);
  const kind = CRON_CHILD_KINDS[cronTemplateKind(spec)];
  const children = [...input.children].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0));
  const active: KubeObject[] = [];
  const succeeded: KubeObject[] = [];
  const failed: KubeObject[] = [];
  let mostRecent: number | undefined;
  for (const child of children) {
    const done = kind.finished(child);
    if (done === 'Complete') succeeded.push(child);
    else if (done === 'Failed') failed.push(child);
    else active.push(child);
    // The scheduled time is stored on each child (an unparsable one is skipped, as Kruise logs and moves on).
    const at = parseTimestamp(child.metadata.annotations?.[SCHEDULED_AT_ANNOTATION]);
    if (at !== undefined && (mostRecent === undefined || at > mostRecent)) mostRecent = at;
  }
  const status: AdvancedCronJobStatus = { type: kind.kind };
  if (active.length > 0) {
    status.active = active.map((c) => ({
      kind: c.kind ?? kind.kind,
      namespace: c.metadata.namespace,
      name: c.metadata.name,
      uid: c.metadata.uid,
      apiVersion: c.apiVersion ?? input.childApiVersion,
      resourceVersion: c.metadata.resourceVersion,
    }));
  }
  if (mostRecent !== undefined) status.lastScheduleTime = kubeTimestamp(mostRecent);
  const plan: CronPlan = { status, deleteChildren: [] };

  // History limits: the oldest finished children beyond each limit go.
  const trim = (list: KubeObject[], limit: number | undefined) => {
    if (limit === undefined || limit === null) return;
    const sorted = [...list].sort(oldestFirst);
    for (let i = 0; i < sorted.length - limit; i++) plan.deleteChildren.push(sorted[i]!.metadata.name ?? '');
  };
  trim(failed, spec.failedJobsHistoryLimit);
  trim(succeeded, spec.successfulJobsHistoryLimit);

  if (spec.paused) {
    plan.skipped = 'paused';
    return plan;
  }
  const created = parseTimestamp(acj.metadata.creationTimestamp) ?? now;
  const next = nextSchedule(spec, mostRecent, created, now);
  if ('error' in next) {
    plan.skipped = 'schedule-error';
    plan.error = next.error;
    return plan;
  }
  if (next.next !== undefined) plan.requeueAfterMs = next.next - now;
  if (next.missed === undefined) {
    plan.skipped = 'not-due';
    return plan;
  }
  const sds = spec.startingDeadlineSeconds;
  if (sds !== undefined && sds !== null && next.missed + sds * 1000 < now) {
    plan.skipped = 'too-late';
    return plan;
  }
  if (spec.concurrencyPolicy === 'Forbid' && active.length > 0) {
    plan.skipped = 'forbidden-concurrent';
    return plan;
  }
  if (spec.concurrencyPolicy === 'Replace') for (const c of active) plan.deleteChildren.push(c.metadata.name ?? '');
  plan.create = cronChild(acj, kind.kind, next.missed, input.ownerApiVersion, input.childApiVersion);
  return plan;
}

/** The controller reference `ctrl.SetControllerReference(acj, child)` writes. */
export function cronOwnerReference(acj: KubeObject, ownerApiVersion: string): OwnerReference {
  return { apiVersion: ownerApiVersion, kind: 'AdvancedCronJob', name: acj.metadata.name ?? '', uid: acj.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/** constructJobForCronJob (and its BroadcastJob / ImageListPullJob twins): the run of `scheduledMs`. */
export function cronChild(acj: KubeObject, kind: CronTemplateKind, scheduledMs: number, ownerApiVersion: string, childApiVersion: string): KubeObject {
  const template = advancedCronJobSpec(acj).template?.[CRON_CHILD_KINDS[kind].templateField];
  const labels = template?.metadata?.labels ?? {};
  return {
    apiVersion: childApiVersion,
    kind,
    metadata: {
      // Deterministic for a nominal start time, so one run is never created twice.
      name: `${acj.metadata.name}-${Math.floor(scheduledMs / 1000)}`,
      namespace: acj.metadata.namespace,
      // an empty label map is omitted on the wire
      ...(Object.keys(labels).length > 0 ? { labels: { ...labels } } : {}),
      annotations: { ...(template?.metadata?.annotations ?? {}), [SCHEDULED_AT_ANNOTATION]: kubeTimestamp(scheduledMs) },
      ownerReferences: [cronOwnerReference(acj, ownerApiVersion)],
    },
    spec: structuredClone(template?.spec ?? {}),
  };
}
