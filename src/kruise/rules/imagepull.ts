// Kruise's ImagePullJob rules (kruise-semantics §5) as pure functions: image reference
// validity (docker/distribution's normalized reference grammar, which the webhook and the
// kubelet both apply), defaults, validation of a job spec, and progress arithmetic.

import { parseImageReference } from '../names';
import type { LabelSelector } from '../selectors';

// reference.ParseNormalizedNamed, the form Kruise's webhook and the kubelet accept: one
// implementation, in src/kruise/names.ts, re-exported for the pull-job callers.
export { parseImageReference };
export type { ImageReference, ImageParseResult as ParsedImage } from '../names';

/** Tag of an image reference (`latest` when none and no digest). */
export function imageTag(image: string): string | undefined {
  const parsed = parseImageReference(image);
  if (!parsed.ok) return undefined;
  if (parsed.ref.tag !== undefined) return parsed.ref.tag;
  return parsed.ref.digest ? undefined : 'latest';
}

// ---------------------------------------------------------------- job spec rules

export interface NodeSelectorLike {
  names?: string[];
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

export interface ImagePullJobTemplate {
  pullSecrets?: string[];
  selector?: NodeSelectorLike;
  podSelector?: LabelSelector;
  parallelism?: number | string;
  pullPolicy?: { timeoutSeconds?: number; backoffLimit?: number };
  completionPolicy?: { type?: 'Always' | 'Never' | string; activeDeadlineSeconds?: number; ttlSecondsAfterFinished?: number };
  sandboxConfig?: unknown;
  imagePullPolicy?: 'IfNotPresent' | 'Always' | string;
}

export interface ImagePullJobSpec extends ImagePullJobTemplate {
  image?: string;
}

export interface ImageListPullJobSpec extends ImagePullJobTemplate {
  images?: string[];
}

export interface ImagePullJobStatus {
  startTime?: string;
  completionTime?: string;
  desired?: number;
  active?: number;
  succeeded?: number;
  failed?: number;
  failedNodes?: string[];
  message?: string;
}

export const DEFAULT_PULL_TIMEOUT_SECONDS = 600;
export const DEFAULT_BACKOFF_LIMIT = 3;
export const DEFAULT_PARALLELISM = 1;
export const MAX_IMAGES_PER_LIST = 255;

export interface ImagePullProblem {
  field: string;
  message: string;
}

/** Effective knobs of a job after Kruise's defaults. */
export function imagePullDefaults(spec: ImagePullJobTemplate): {
  parallelism: number;
  timeoutSeconds: number;
  backoffLimit: number;
  completionType: 'Always' | 'Never';
  activeDeadlineSeconds?: number;
  ttlSecondsAfterFinished?: number;
} {
  return {
    parallelism: pullParallelism(spec.parallelism),
    timeoutSeconds: spec.pullPolicy?.timeoutSeconds ?? DEFAULT_PULL_TIMEOUT_SECONDS,
    backoffLimit: spec.pullPolicy?.backoffLimit ?? DEFAULT_BACKOFF_LIMIT,
    completionType: spec.completionPolicy?.type === 'Never' ? 'Never' : 'Always',
    activeDeadlineSeconds: spec.completionPolicy?.activeDeadlineSeconds,
    ttlSecondsAfterFinished: spec.completionPolicy?.ttlSecondsAfterFinished,
  };
}

/**
 * How many nodes may pull at once (imagepulljob_controller.go syncNodeImages): 1 when unset
 * (v1alpha1 has no default), else the value as intstr IntValue() reads it. 0 is valid and
 * means no node is ever asked to pull: the job stays at 0% until its activeDeadlineSeconds.
 */
export function pullParallelism(value: number | string | undefined): number {
  if (value === undefined) return DEFAULT_PARALLELISM;
  const p = typeof value === 'number' ? value : /^[+-]?\d+$/.test(value.trim()) ? Number.parseInt(value, 10) : 0;
  return Number.isFinite(p) && p > 0 ? p : 0;
}

/** The template rules Kruise's webhook applies to both job kinds (prefix: "spec"). */
export function validateImagePullTemplate(spec: ImagePullJobTemplate): ImagePullProblem[] {
  const problems: ImagePullProblem[] = [];
  const sel = spec.selector;
  if (sel) {
    if (sel.names && (sel.matchLabels || sel.matchExpressions)) {
      problems.push({ field: 'spec.selector', message: 'Invalid value: can not set both names and labelSelector in this spec.selector' });
    }
    if (sel.names && new Set(sel.names).size !== sel.names.length) problems.push({ field: 'spec.selector.names', message: 'Invalid value: duplicated name in selector names' });
  }
  if (spec.podSelector && sel) problems.push({ field: 'spec.podSelector', message: 'Invalid value: can not set both selector and podSelector' });
  for (const [path, s] of [['spec.selector', sel], ['spec.podSelector', spec.podSelector]] as const) {
    (s?.matchExpressions ?? []).forEach((e, i) => {
      if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(e.operator)) {
        problems.push({ field: `${path}.matchExpressions[${i}].operator`, message: `Unsupported value: "${e.operator}"` });
      }
    });
  }
  if (spec.parallelism !== undefined) {
    // imagepulljob_create_update_handler.go validate: any non-negative integer (0 included), no percentage.
    const raw = spec.parallelism;
    if (typeof raw === 'string' && raw.endsWith('%')) {
      problems.push({ field: 'spec.parallelism', message: `Invalid value: ${JSON.stringify(raw)}: parallelism does not support percentage value` });
    } else {
      const p = typeof raw === 'number' ? raw : /^[+-]?\d+$/.test(raw) ? Number(raw) : Number.NaN;
      if (!Number.isInteger(p)) problems.push({ field: 'spec.parallelism', message: `Invalid value: ${JSON.stringify(raw)}: parallelism must be a valid integer` });
      else if (p < 0) problems.push({ field: 'spec.parallelism', message: `Invalid value: ${JSON.stringify(raw)}: parallelism must be non-negative` });
    }
  }
  if (spec.pullPolicy?.backoffLimit !== undefined && spec.pullPolicy.backoffLimit < 0) {
    problems.push({ field: 'spec.pullPolicy.backoffLimit', message: `Invalid value: ${spec.pullPolicy.backoffLimit}: must be greater than or equal to 0` });
  }
  if (spec.pullPolicy?.timeoutSeconds !== undefined && spec.pullPolicy.timeoutSeconds <= 0) {
    problems.push({ field: 'spec.pullPolicy.timeoutSeconds', message: `Invalid value: ${spec.pullPolicy.timeoutSeconds}: must be greater than 0` });
  }
  const cp = spec.completionPolicy;
  const type = cp?.type ?? 'Always';
  if (type !== 'Always' && type !== 'Never') {
    problems.push({ field: 'spec.completionPolicy.type', message: `Unsupported value: "${type}": supported values: "Always", "Never"` });
  } else if (type === 'Never' && (cp?.activeDeadlineSeconds !== undefined || cp?.ttlSecondsAfterFinished !== undefined)) {
    problems.push({ field: 'spec.completionPolicy', message: 'Invalid value: activeDeadlineSeconds and ttlSecondsAfterFinished can only work with Always CompletionPolicyType' });
  }
  const timeout = spec.pullPolicy?.timeoutSeconds ?? DEFAULT_PULL_TIMEOUT_SECONDS;
  if (type === 'Always' && cp?.activeDeadlineSeconds !== undefined && cp.activeDeadlineSeconds < timeout) {
    problems.push({
      field: 'spec.completionPolicy.activeDeadlineSeconds',
      message: `Invalid value: ${cp.activeDeadlineSeconds}: completionPolicy.activeDeadlineSeconds must be greater than pullPolicy.timeoutSeconds (${timeout})`,
    });
  }
  if (spec.imagePullPolicy !== undefined && spec.imagePullPolicy !== 'IfNotPresent' && spec.imagePullPolicy !== 'Always') {
    problems.push({ field: 'spec.imagePullPolicy', message: `Unsupported value: "${spec.imagePullPolicy}": supported values: "Always", "IfNotPresent"` });
  }
  return problems;
}

function imageProblem(field: string, image: string | undefined): ImagePullProblem | undefined {
  if (!image) return { field, message: 'Required value: image is required' };
  const parsed = parseImageReference(image);
  return parsed.ok ? undefined : { field, message: `Invalid value: "${image}": invalid image ${image}: ${parsed.reason}` };
}

export function validateImagePullJobSpec(spec: ImagePullJobSpec): ImagePullProblem[] {
  const problems: ImagePullProblem[] = [];
  const img = imageProblem('spec.image', spec.image);
  if (img) problems.push(img);
  return [...problems, ...validateImagePullTemplate(spec)];
}

export function validateImageListPullJobSpec(spec: ImageListPullJobSpec): ImagePullProblem[] {
  const problems: ImagePullProblem[] = [];
  const images = spec.images ?? [];
  if (images.length === 0) problems.push({ field: 'spec.images', message: 'Required value: at least one image is required' });
  if (images.length > MAX_IMAGES_PER_LIST) problems.push({ field: 'spec.images', message: `Too many: ${images.length}: must have at most ${MAX_IMAGES_PER_LIST} items` });
  const seen = new Set<string>();
  images.forEach((image, i) => {
    const p = imageProblem(`spec.images[${i}]`, image);
    if (p) problems.push(p);
    else if (seen.has(image)) problems.push({ field: `spec.images[${i}]`, message: `Duplicate value: "${image}"` });
    seen.add(image);
  });
  return [...problems, ...validateImagePullTemplate(spec)];
}

// ---------------------------------------------------------------- progress

/** Percentage of target nodes done (succeeded or failed), as Kruise prints it (one decimal). */
export function pullProgressPercent(status: Pick<ImagePullJobStatus, 'desired' | 'succeeded' | 'failed'>): number {
  const desired = status.desired ?? 0;
  if (desired <= 0) return 100;
  return ((status.succeeded ?? 0) + (status.failed ?? 0)) * 100 / desired;
}

/** Whether a job with completion policy Always is done: every target node succeeded or failed. */
export function isPullJobDone(status: Pick<ImagePullJobStatus, 'desired' | 'succeeded' | 'failed'>): boolean {
  return (status.desired ?? 0) - (status.succeeded ?? 0) - (status.failed ?? 0) <= 0;
}

export const PULL_MESSAGE_COMPLETED = 'job has completed';
export const PULL_MESSAGE_DEADLINE = 'job exceeds activeDeadlineSeconds';

/** imagepulljob_utils.go formatStatusMessage for a job still running. */
export function pullRunningMessage(status: Pick<ImagePullJobStatus, 'desired' | 'succeeded' | 'failed'>): string {
  if ((status.desired ?? 0) === 0) return 'job is running, no progress';
  return `job is running, progress ${pullProgressPercent(status).toFixed(1)}%`;
}

/**
 * Where one target node stands for a job: not yet asked to pull (Kruise: the job's tag is not
 * in the node's NodeImage spec), pulling, or done.
 */
export type NodePullPhase = 'notSynced' | 'pulling' | 'succeeded' | 'failed';

export interface PullJobStatusInput {
  /** Target nodes in the order Kruise lists their NodeImages. */
  nodes: ReadonlyArray<{ name: string; phase: NodePullPhase }>;
  startTime?: string;
  nowMs: number;
  completionType: 'Always' | 'Never';
  activeDeadlineSeconds?: number;
}

/** Byte-wise string order, as Go's sort.Strings and sets.String.List() give. */
function goSort(names: string[]): string[] {
  return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function kubeSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * The job's status and the nodes still to be asked to pull, in the order Kruise asks them
 * (imagepulljob_controller.go calculateStatus + syncNodeImages, which takes the first
 * `parallelism - active` of `notSynced`, sorted by name). At activeDeadlineSeconds (not with
 * completionPolicy Never) a job not yet done completes: every node still pulling or never asked
 * counts as failed, message "job exceeds activeDeadlineSeconds".
 */
export function calculatePullJobStatus(input: PullJobStatusInput): { status: ImagePullJobStatus; notSynced: string[] } {
  const startTime = input.startTime ?? kubeSeconds(input.nowMs);
  const byPhase = (phase: NodePullPhase) => input.nodes.filter((n) => n.phase === phase).map((n) => n.name);
  const pulling = byPhase('pulling');
  const succeeded = byPhase('succeeded');
  const failed = byPhase('failed');
  const notSynced = goSort([...new Set(byPhase('notSynced'))]);
  const desired = input.nodes.length;
  const status: ImagePullJobStatus = { startTime, desired, active: 0, succeeded: succeeded.length, failed: failed.length };
  if (input.completionType !== 'Never' && input.activeDeadlineSeconds !== undefined && desired !== succeeded.length + failed.length) {
    if (input.activeDeadlineSeconds * 1000 <= input.nowMs - Date.parse(startTime)) {
      const all = [...failed, ...pulling, ...notSynced];
      status.completionTime = kubeSeconds(input.nowMs);
      status.failed = all.length;
      // Kruise returns early here: the list keeps its order (failed, pulling, never asked).
      if (all.length > 0) status.failedNodes = all;
      status.message = PULL_MESSAGE_DEADLINE;
      return { status, notSynced: [] };
    }
  }
  status.active = pulling.length;
  if (failed.length > 0) status.failedNodes = goSort(failed);
  if (input.completionType !== 'Never' && desired - succeeded.length - failed.length === 0) status.completionTime = kubeSeconds(input.nowMs);
  status.message = status.completionTime ? PULL_MESSAGE_COMPLETED : pullRunningMessage(status);
  return { status, notSynced };
}

/**
 * An ImageListPullJob's counts from its child jobs (imagelistpulljob_controller.go
 * calculateStatus): children not started yet are skipped; active = children with a node
 * pulling, completed = every node done (succeeded or failed, completionTime or not),
 * succeeded = every node succeeded; one failedImageStatuses entry per child with a failure.
 */
export function imageListPullJobCounts(children: ReadonlyArray<{ name: string; image: string; status: ImagePullJobStatus }>): {
  active: number;
  completed: number;
  succeeded: number;
  failedImageStatuses: Array<{ imagePullJob: string; name: string; message: string }>;
} {
  let active = 0;
  let completed = 0;
  let succeeded = 0;
  const failedImageStatuses: Array<{ imagePullJob: string; name: string; message: string }> = [];
  for (const c of children) {
    const st = c.status;
    if (!st.startTime) continue;
    if ((st.active ?? 0) > 0) active++;
    if ((st.failed ?? 0) > 0) {
      failedImageStatuses.push({ imagePullJob: c.name, name: c.image, message: `Please check for details which nodes failed by 'kubectl get ImagePullJob ${c.name}'.` });
    }
    if ((st.desired ?? 0) === (st.failed ?? 0) + (st.succeeded ?? 0)) completed++;
    if ((st.desired ?? 0) === (st.succeeded ?? 0)) succeeded++;
  }
  return { active, completed, succeeded, failedImageStatuses };
}
