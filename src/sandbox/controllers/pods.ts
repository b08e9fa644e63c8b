// Shared pod helpers for every sandbox controller (native and Kruise workloads): building a
// pod from a template with its owner reference, readiness / availability predicates as the
// real controllers judge them, conditions, node selector requirements and timestamps.
import type { KubeObject, OwnerReference, Pod, PodTemplate } from '../../kruise/types';
import type { GroupResource } from '../store-api';
import { randomSuffix } from './hash';

export const PODS: GroupResource = { group: '', resource: 'pods' };
export const NODES: GroupResource = { group: '', resource: 'nodes' };
export const CONTROLLER_REVISIONS: GroupResource = { group: 'apps', resource: 'controllerrevisions' };

export type PodCondition = NonNullable<NonNullable<Pod['status']>['conditions']>[number];

export type { LabelSelector, LabelSelectorRequirement } from '../../kruise/selectors';

// ---------------------------------------------------------------- time

let cachedSecond = Number.NaN;
let cachedTime = '';

/** RFC 3339 with second precision, as the API server writes timestamps (formatted once a second: it is on every write). */
export function kubeTime(ms: number = Date.now()): string {
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedTime = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  }
  return cachedTime;
}

export function parseKubeTime(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

// ---------------------------------------------------------------- identity and owners

/** Cache/queue key of a namespaced object. */
export function objectKey(namespace: string | undefined, name: string | undefined): string {
  return namespace ? `${namespace}/${name ?? ''}` : name ?? '';
}

export function keyOf(obj: KubeObject): string {
  return objectKey(obj.metadata.namespace, obj.metadata.name);
}

/** Splits a key made by objectKey back into namespace and name. */
export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: undefined, name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** A controller owner reference pointing at `owner` (which must carry apiVersion and kind). */
export function controllerRef(owner: KubeObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion ?? '',
    kind: owner.kind ?? '',
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The controller owner reference of an object, if any. */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

// ---------------------------------------------------------------- building pods

export interface NewPodOptions {
  /** Exact pod name (StatefulSet ordinals, CloneSet names); otherwise `<owner>-<random>`. */
  name?: string;
  /** Prefix for a generated name (default `<owner name>-`). */
  namePrefix?: string;
  /** Extra labels on top of the template's (e.g. pod-template-hash, controller-revision-hash). */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Pin to a node (DaemonSet pods are pinned through node affinity instead; see daemonset.ts). */
  nodeName?: string;
}

/**
 * A new pod for `owner` from `template`: labels and annotations from the template plus
 * the extras, a controller owner reference, and a concrete name. Names are chosen here
 * rather than through generateName so a controller knows the pod's key before creating it.
 */
export function newPodFromTemplate(template: PodTemplate, owner: KubeObject, opts: NewPodOptions = {}): Pod {
  const spec = structuredClone(template.spec);
  if (opts.nodeName) spec.nodeName = opts.nodeName;
  const labels = { ...(template.metadata?.labels ?? {}), ...(opts.labels ?? {}) };
  const annotations = { ...(template.metadata?.annotations ?? {}), ...(opts.annotations ?? {}) };
  const name = opts.name ?? `${opts.namePrefix ?? `${owner.metadata.name}-`}${randomSuffix()}`;
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: owner.metadata.namespace,
      labels,
      ownerReferences: [controllerRef(owner)],
    },
    spec,
    status: { phase: 'Pending' },
  };
  if (Object.keys(annotations).length > 0) pod.metadata.annotations = annotations;
  return pod;
}

// ---------------------------------------------------------------- conditions and predicates

export function podCondition(pod: Pod, type: string): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

export function isConditionTrue(pod: Pod, type: string): boolean {
  return podCondition(pod, type)?.status === 'True';
}

/**
 * Sets a condition on a conditions array in place, keeping lastTransitionTime when the
 * status did not change. Returns true when something changed.
 */
export function setCondition(
  conditions: PodCondition[],
  cond: { type: string; status: string; reason?: string; message?: string },
  now: string = kubeTime(),
): boolean {
  const i = conditions.findIndex((c) => c.type === cond.type);
  if (i < 0) {
    conditions.push(withoutUndefined({ type: cond.type, status: cond.status, lastProbeTime: null, lastTransitionTime: now, reason: cond.reason, message: cond.message }) as PodCondition);
    return true;
  }
  const old = conditions[i];
  if (old.status === cond.status && old.reason === cond.reason && old.message === cond.message) return false;
  conditions[i] = withoutUndefined({
    ...old,
    status: cond.status,
    reason: cond.reason,
    message: cond.message,
    lastTransitionTime: old.status === cond.status ? old.lastTransitionTime : now,
  }) as PodCondition;
  return true;
}

function withoutUndefined(obj: Record<string, unknown>): Record<string, unknown> {
  for (const k of Object.keys(obj)) if (obj[k] === undefined) delete obj[k];
  return obj;
}

export function isPodTerminating(pod: Pod): boolean {
  return Boolean(pod.metadata.deletionTimestamp);
}

/** Active as controllers count it: not being deleted and not finished. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return !isPodTerminating(pod) && phase !== 'Succeeded' && phase !== 'Failed';
}

/** Running with PodReady True (PodReady already folds in readiness gates, e.g. InPlaceUpdateReady). */
export function isPodReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && isConditionTrue(pod, 'Ready');
}

/** Ready for at least `minReadySeconds` (kube's podutil.IsPodAvailable). */
export function isPodAvailable(pod: Pod, minReadySeconds = 0, nowMs: number = Date.now()): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = parseKubeTime(podCondition(pod, 'Ready')?.lastTransitionTime);
  return since !== undefined && since + minReadySeconds * 1000 <= nowMs;
}

/** Milliseconds until a ready pod becomes available (0 when it already is or is not ready). */
export function msUntilAvailable(pod: Pod, minReadySeconds = 0, nowMs: number = Date.now()): number {
  if (!isPodReady(pod) || minReadySeconds <= 0) return 0;
  const since = parseKubeTime(podCondition(pod, 'Ready')?.lastTransitionTime) ?? nowMs;
  return Math.max(0, since + minReadySeconds * 1000 - nowMs);
}

// ---------------------------------------------------------------- node selector requirements

// ---------------------------------------------------------------- int-or-percent (native kinds)

/**
 * intstr.GetScaledValueFromIntOrPercent of apimachinery (integer percentages only), used for
 * native Deployment / DaemonSet / StatefulSet fields. Invalid values count as 0.
 */
export function scaledIntOrPercent(value: number | string | undefined, total: number, roundUp: boolean, fallback: number | string): number {
  const v = value ?? fallback;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v.trim());
  if (!m) {
    const n = Number.parseInt(v, 10);
    return Number.isNaN(n) ? 0 : n;
  }
  const scaled = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}
