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
  const p = typeof spec.parallelism === 'number' ? spec.parallelism : Number.parseInt(String(spec.parallelism ?? DEFAULT_PARALLELISM), 10);
  return {
    parallelism: Number.isFinite(p) && p > 0 ? p : DEFAULT_PARALLELISM,
    timeoutSeconds: spec.pullPolicy?.timeoutSeconds ?? DEFAULT_PULL_TIMEOUT_SECONDS,
    backoffLimit: spec.pullPolicy?.backoffLimit ?? DEFAULT_BACKOFF_LIMIT,
    completionType: spec.completionPolicy?.type === 'Never' ? 'Never' : 'Always',
    activeDeadlineSeconds: spec.completionPolicy?.activeDeadlineSeconds,
    ttlSecondsAfterFinished: spec.completionPolicy?.ttlSecondsAfterFinished,
  };
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
    const p = typeof spec.parallelism === 'number' ? spec.parallelism : Number(spec.parallelism);
    if (!Number.isInteger(p) || p < 1) problems.push({ field: 'spec.parallelism', message: `Invalid value: ${JSON.stringify(spec.parallelism)}: must be a positive integer` });
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

export function pullRunningMessage(status: Pick<ImagePullJobStatus, 'desired' | 'succeeded' | 'failed'>): string {
  return `job is running, progress ${pullProgressPercent(status).toFixed(1)}%`;
}
