// ImagePullJob / ImageListPullJob objects (kruise-semantics §5). Both versions served
// (v1alpha1, v1beta1) share one shape, so only apiVersion differs. Names are deterministic
// so that rerunning the same pre-download finds the job it already created.
import type { KubeObject } from '../types';
import type { LabelSelector } from '../selectors';
import { hashSuffixedName, shortHash } from './hash';
import { MAX_IMAGES_PER_LIST } from '../rules/imagepull';

export const PREDOWNLOAD_LABEL = 'kubectl-kruise/predownload';

export type LabelSelectorShape = LabelSelector;

/** Where to pull: nodes by name or labels, or the nodes of the pods a selector picks. */
export type PullTarget =
  | { kind: 'nodes'; names: string[] }
  | { kind: 'nodeSelector'; matchLabels: Record<string, string> }
  | { kind: 'pods'; podSelector: LabelSelectorShape }
  | { kind: 'allNodes' };

export interface PullJobOptions {
  parallelism?: number;
  timeoutSeconds?: number;
  backoffLimit?: number;
  pullSecrets?: string[];
  ttlSecondsAfterFinished?: number;
}

export interface PullJobInput {
  /** apps.kruise.io/v1alpha1 or v1beta1 (as served). */
  apiVersion: string;
  name: string;
  namespace: string;
  images: string[];
  target: PullTarget;
  options: PullJobOptions;
  labels?: Record<string, string>;
}

/** Deterministic job name: `<base>-<hash of images and target>`, a DNS-1123 subdomain ≤ 253. */
export function pullJobName(base: string, images: readonly string[], target: PullTarget): string {
  return hashSuffixedName(base, shortHash(`${[...images].sort().join('\n')}\n${JSON.stringify(target)}`));
}

function commonSpec(target: PullTarget, o: PullJobOptions): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (target.kind === 'nodes') spec.selector = { names: [...target.names] };
  else if (target.kind === 'nodeSelector') spec.selector = { matchLabels: { ...target.matchLabels } };
  else if (target.kind === 'pods') spec.podSelector = target.podSelector;
  if (o.parallelism !== undefined) spec.parallelism = o.parallelism;
  const pullPolicy: Record<string, number> = {};
  if (o.timeoutSeconds !== undefined) pullPolicy.timeoutSeconds = o.timeoutSeconds;
  if (o.backoffLimit !== undefined) pullPolicy.backoffLimit = o.backoffLimit;
  if (Object.keys(pullPolicy).length > 0) spec.pullPolicy = pullPolicy;
  if (o.pullSecrets && o.pullSecrets.length > 0) spec.pullSecrets = [...o.pullSecrets];
  // Always: the job completes once every node has succeeded or failed, which is what we wait for.
  const completionPolicy: Record<string, unknown> = { type: 'Always' };
  if (o.ttlSecondsAfterFinished !== undefined) completionPolicy.ttlSecondsAfterFinished = o.ttlSecondsAfterFinished;
  spec.completionPolicy = completionPolicy;
  return spec;
}

function meta(input: PullJobInput): KubeObject['metadata'] {
  return { name: input.name, namespace: input.namespace, labels: { [PREDOWNLOAD_LABEL]: 'true', ...(input.labels ?? {}) } };
}

export function buildImagePullJob(input: PullJobInput): KubeObject {
  if (input.images.length !== 1) throw new Error('an ImagePullJob pulls exactly one image');
  return {
    apiVersion: input.apiVersion,
    kind: 'ImagePullJob',
    metadata: meta(input),
    spec: { image: input.images[0], ...commonSpec(input.target, input.options) },
  };
}

export function buildImageListPullJob(input: PullJobInput): KubeObject {
  if (input.images.length < 1 || input.images.length > MAX_IMAGES_PER_LIST) throw new Error(`an ImageListPullJob pulls 1 to ${MAX_IMAGES_PER_LIST} images`);
  return {
    apiVersion: input.apiVersion,
    kind: 'ImageListPullJob',
    metadata: meta(input),
    spec: { images: [...input.images], ...commonSpec(input.target, input.options) },
  };
}

/** Why an image is not a pullable reference, by the webhook's grammar (one implementation, in names.ts). */
export { imageReferenceProblem } from '../names';
