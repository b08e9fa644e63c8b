// PodUnavailableBudget (policy.kruise.io) as Kruise counts and enforces it, pure:
// - the budget's spec in either version (v1alpha1 keeps protect operations and total replicas in
//   annotations; master's v1beta1 has spec.protectOperations / protectTotalReplicas / ignoredPodSelector);
// - its status as pkg/controller/podunavailablebudget computes it (computePubStatus);
// - the pod webhook's decision (pkg/webhook/pod/validating/pod_unavailable_budget.go +
//   pkg/control/pubcontrol PodUnavailableBudgetValidatePod / checkAndDecrement): validatePodForPub.
// Facts read from Kruise v1.3–v1.9 and master; version differences are named where they apply.
import { legacyScaledValue } from '../intstr';
import { labelSelectorMatches, type LabelSelector } from '../selectors';
import type { KubeObject, Pod } from '../types';
import type { BudgetOperation } from '../budget-types';
import { PUB_PROTECT_OPERATIONS_ANNOTATION, PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION } from '../conversions/pub';
import { inPlaceUpdateCompleted } from './cloneset-inplace';
import { expectedScaleForPods, isPodActive, podsForRef, type WorkloadRef } from './budget-scale';

export { PUB_PROTECT_OPERATIONS_ANNOTATION, PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION };
/** Pod annotation naming its PUB (master's stable key; the webhook reads the deprecated one too). */
export const POD_RELATED_PUB_ANNOTATION = 'pub.kruise.io/related-pub';
export const DEPRECATED_POD_RELATED_PUB_ANNOTATION = 'kruise.io/related-pub';
/** Pod annotation exempting it from every PUB ("true", any Go ParseBool truth). */
export const POD_NO_PROTECT_ANNOTATION = 'pub.kruise.io/no-protect';
/** A pod label with this prefix makes the pod unavailable to PUB and to Kruise workloads even when Ready. */
export const UNAVAILABLE_POD_LABEL_PREFIX = 'unavailable-pod.kruise.io/';
/** A disruptedPods entry older than this is dropped (the pod should be gone): DeletionTimeout. */
export const PUB_DELETION_TIMEOUT_MS = 20_000;
/** An unavailablePods entry older than this is dropped (informer latency): UpdatedDelayCheckTime. */
export const PUB_UPDATED_DELAY_CHECK_MS = 10_000;
/** MaxUnavailablePodSize: the webhook refuses once disruptedPods + unavailablePods exceed this. */
export const PUB_MAX_UNAVAILABLE_POD_SIZE = 2000;

export type KruiseRelease = 'v1.3' | 'v1.8' | 'v1.9' | 'master';

/** The budget's spec read in either version. */
export interface PubSpecView {
  name: string;
  namespace: string;
  selector?: LabelSelector;
  targetRef?: WorkloadRef;
  maxUnavailable?: number | string;
  minAvailable?: number | string;
  /** Explicit operations (v1beta1 field, else the annotation split on ","); undefined: the default. */
  protectOperations?: string[];
  protectTotalReplicas?: number;
  ignoredPodSelector?: LabelSelector;
}

export interface PubStatus {
  observedGeneration?: number;
  disruptedPods?: Record<string, string>;
  unavailablePods?: Record<string, string>;
  unavailableAllowed: number;
  currentAvailable: number;
  desiredAvailable: number;
  totalReplicas: number;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function readPubSpec(pub: KubeObject): PubSpecView {
  const spec = isObj(pub.spec) ? pub.spec : {};
  const ann = pub.metadata.annotations ?? {};
  const view: PubSpecView = { name: pub.metadata.name ?? '', namespace: pub.metadata.namespace ?? '' };
  if (isObj(spec.selector)) view.selector = spec.selector as LabelSelector;
  if (isObj(spec.targetRef)) view.targetRef = spec.targetRef as WorkloadRef;
  if (typeof spec.maxUnavailable === 'number' || typeof spec.maxUnavailable === 'string') view.maxUnavailable = spec.maxUnavailable;
  if (typeof spec.minAvailable === 'number' || typeof spec.minAvailable === 'string') view.minAvailable = spec.minAvailable;
  if (isObj(spec.ignoredPodSelector)) view.ignoredPodSelector = spec.ignoredPodSelector as LabelSelector;
  // master prefers the typed field and falls back to the deprecated annotation (getPubProtectOperations)
  const typedOps = Array.isArray(spec.protectOperations) ? spec.protectOperations.filter((o): o is string => typeof o === 'string') : [];
  if (typedOps.length > 0) view.protectOperations = typedOps;
  else if (ann[PUB_PROTECT_OPERATIONS_ANNOTATION]) view.protectOperations = ann[PUB_PROTECT_OPERATIONS_ANNOTATION].split(',');
  if (typeof spec.protectTotalReplicas === 'number') view.protectTotalReplicas = spec.protectTotalReplicas;
  else {
    const total = ann[PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION];
    if (total && /^[+-]?\d+$/.test(total)) view.protectTotalReplicas = Number(total);
  }
  return view;
}

export interface PubProtectionOptions {
  release: KruiseRelease;
  /** kruise-manager's InPlacePodVerticalScaling gate (v1.9+): off, a RESIZE counts as an UPDATE. */
  inPlacePodVerticalScaling?: boolean;
}

/**
 * isNeedPubProtection. Up to v1.8 an absent or empty annotation protects every operation, else exactly
 * the listed ones. Since v1.9 the default is DELETE, UPDATE, EVICT (and v1.9 adds the listed ones to
 * it); with the InPlacePodVerticalScaling gate off, protecting UPDATE also protects RESIZE.
 */
export function pubProtectedOperations(view: PubSpecView, opts: PubProtectionOptions): Set<string> {
  const ops = new Set<string>();
  const listed = (view.protectOperations ?? []).filter((o) => o !== '');
  if (opts.release === 'v1.3' || opts.release === 'v1.8') {
    if (listed.length === 0) return new Set(['DELETE', 'UPDATE', 'EVICT', 'RESIZE']);
    for (const o of view.protectOperations ?? []) ops.add(o);
    return ops;
  }
  if (listed.length === 0) for (const o of ['DELETE', 'UPDATE', 'EVICT']) ops.add(o);
  for (const o of listed) ops.add(o);
  if (!opts.inPlacePodVerticalScaling && ops.has('UPDATE')) ops.add('RESIZE');
  return ops;
}

export function podRelatedPubName(pod: Pod): string {
  const ann = pod.metadata.annotations ?? {};
  return ann[POD_RELATED_PUB_ANNOTATION] || ann[DEPRECATED_POD_RELATED_PUB_ANNOTATION] || '';
}

/** Go's strconv.ParseBool truths. */
export function isPodNoProtection(pod: Pod): boolean {
  return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(pod.metadata.annotations?.[POD_NO_PROTECT_ANNOTATION] ?? '');
}

export function hasUnavailableLabel(labels: Record<string, string> | undefined): boolean {
  return Object.keys(labels ?? {}).some((k) => k.startsWith(UNAVAILABLE_POD_LABEL_PREFIX));
}

/** PubControl.IsPodReady: IsRunningAndReady (Running, PodReady True, not being deleted), and no unavailable-pod label. */
export function isPubPodReady(pod: Pod): boolean {
  if (pod.status?.phase !== 'Running' || pod.metadata.deletionTimestamp) return false;
  if (pod.status.conditions?.find((c) => c.type === 'Ready')?.status !== 'True') return false;
  return !hasUnavailableLabel(pod.metadata.labels);
}

function digestOf(ref: string | undefined): string | undefined {
  const at = ref?.lastIndexOf('@') ?? -1;
  return ref && at >= 0 ? ref.slice(at + 1) : undefined;
}

/**
 * PubControl.IsPodStateConsistent: when every container names its image by digest, the running
 * digests must be those; otherwise an in-place update in flight (apps.kruise.io/inplace-update-state
 * not completed) makes the pod inconsistent.
 */
export function isPodStateConsistent(pod: Pod): boolean {
  let allDigest = true;
  for (const c of pod.spec.containers) {
    const want = digestOf(c.image);
    if (!want) {
      allDigest = false;
      continue;
    }
    const st = pod.status?.containerStatuses?.find((s) => s.name === c.name);
    if (!st || digestOf(st.imageID) !== want) return false;
  }
  if (allDigest) return true;
  return inPlaceUpdateCompleted(pod);
}

/** A pod counts as available to a PUB: active, consistent and ready. */
export function isPubPodAvailable(pod: Pod): boolean {
  return isPodActive(pod) && isPodStateConsistent(pod) && isPubPodReady(pod);
}

/** GetPodsForPub: the pods and the expected count (protectTotalReplicas overrides the workloads' scale). */
export function pubPods(view: PubSpecView, pods: readonly Pod[], workloads: readonly KubeObject[]): { pods: Pod[]; expected: number } {
  if (view.targetRef) {
    const r = podsForRef(view.targetRef, view.namespace, pods, workloads);
    return { pods: r.pods, expected: view.protectTotalReplicas ?? r.expected };
  }
  if (!view.selector) return { pods: [], expected: 0 };
  const matched = pods.filter((p) => (p.metadata.namespace ?? '') === view.namespace && isPodActive(p) && labelSelectorMatches(view.selector, p.metadata.labels));
  return { pods: matched, expected: view.protectTotalReplicas ?? expectedScaleForPods(matched, workloads) };
}

/** getDesiredAvailableForPub: maxUnavailable (rounded up) wins over minAvailable; an integer minAvailable is taken as is. */
export function desiredAvailableForPub(view: PubSpecView, expected: number): { value: number; error?: string } {
  if (view.maxUnavailable !== undefined) {
    const scaled = legacyScaledValue(view.maxUnavailable, expected, true);
    if (scaled.error) return { value: 0, error: scaled.error };
    return { value: Math.max(0, expected - scaled.value) };
  }
  if (view.minAvailable !== undefined) {
    if (typeof view.minAvailable === 'number') return { value: view.minAvailable };
    const scaled = legacyScaledValue(view.minAvailable, expected, true);
    if (scaled.error) return { value: 0, error: scaled.error };
    return { value: scaled.value };
  }
  return { value: 0 };
}

function ageMs(stamp: string, now: Date): number {
  const t = Date.parse(stamp);
  return Number.isFinite(t) ? now.getTime() - t : Number.POSITIVE_INFINITY;
}

export interface PubStatusResult {
  status: PubStatus;
  /** The pods the budget counts (the controller patches the related-pub annotation on them). */
  pods: Pod[];
  /** When the controller looks again: the earliest expiry of a disruptedPods/unavailablePods entry (epoch ms). */
  recheckAt?: number;
  error?: string;
}

/**
 * syncPodUnavailableBudget: keep disruptedPods entries younger than 20 s and unavailablePods entries
 * younger than 10 s whose pods are still active; currentAvailable counts active, consistent, ready pods
 * not in either map; unavailableAllowed = max(0, currentAvailable − desiredAvailable).
 */
export function computePubStatus(pub: KubeObject, pods: readonly Pod[], workloads: readonly KubeObject[], now: Date): PubStatusResult {
  const view = readPubSpec(pub);
  const { pods: selected, expected } = pubPods(view, pods, workloads);
  const desired = desiredAvailableForPub(view, expected);
  const old = (isObj(pub.status) ? pub.status : {}) as Partial<PubStatus>;
  const disrupted: Record<string, string> = {};
  const unavailable: Record<string, string> = {};
  let recheckAt: number | undefined;
  const soonest = (t: number): void => {
    if (recheckAt === undefined || t < recheckAt) recheckAt = t;
  };
  for (const pod of selected) {
    const name = pod.metadata.name ?? '';
    const d = old.disruptedPods?.[name];
    if (d !== undefined && ageMs(d, now) <= PUB_DELETION_TIMEOUT_MS) {
      disrupted[name] = d;
      soonest(Date.parse(d) + PUB_DELETION_TIMEOUT_MS);
    }
    const u = old.unavailablePods?.[name];
    if (u !== undefined && ageMs(u, now) <= PUB_UPDATED_DELAY_CHECK_MS) {
      unavailable[name] = u;
      soonest(Date.parse(u) + PUB_UPDATED_DELAY_CHECK_MS);
    }
  }
  let current = 0;
  for (const pod of selected) {
    const name = pod.metadata.name ?? '';
    if (name in disrupted || name in unavailable) continue;
    if (isPubPodAvailable(pod)) current++;
  }
  const status: PubStatus = {
    observedGeneration: pub.metadata.generation ?? 0,
    unavailableAllowed: Math.max(0, current - desired.value),
    currentAvailable: current,
    desiredAvailable: desired.value,
    totalReplicas: expected,
  };
  if (Object.keys(disrupted).length > 0) status.disruptedPods = disrupted;
  if (Object.keys(unavailable).length > 0) status.unavailablePods = unavailable;
  const result: PubStatusResult = { status, pods: selected };
  if (recheckAt !== undefined) result.recheckAt = recheckAt;
  if (desired.error) result.error = desired.error;
  return result;
}

/** What the webhook decides; when it admits by spending budget, the status to write back. */
export type PubDecision =
  | { allowed: true; reason: string; status?: PubStatus }
  | { allowed: false; message: string };

/** NewForbidden(Resource("podunavailablebudget"), name, err) as its Error() reads. */
export function pubForbiddenMessage(pubName: string, why: string): string {
  return `podunavailablebudget.policy.kruise.io "${pubName}" is forbidden: ${why}`;
}

export function pubStatusOf(pub: KubeObject): PubStatus {
  const s = (isObj(pub.status) ? pub.status : {}) as Partial<PubStatus>;
  const out: PubStatus = {
    unavailableAllowed: s.unavailableAllowed ?? 0,
    currentAvailable: s.currentAvailable ?? 0,
    desiredAvailable: s.desiredAvailable ?? 0,
    totalReplicas: s.totalReplicas ?? 0,
  };
  if (s.observedGeneration !== undefined) out.observedGeneration = s.observedGeneration;
  if (s.disruptedPods) out.disruptedPods = { ...s.disruptedPods };
  if (s.unavailablePods) out.unavailablePods = { ...s.unavailablePods };
  return out;
}

export interface PubValidateOptions extends PubProtectionOptions {
  now: Date;
  dryRun?: boolean;
}

/**
 * PodUnavailableBudgetValidatePod for `pod` (the pod before the change) against the budget its
 * related-pub annotation names (`pub`, or undefined when that PUB does not exist). Reads the PUB's
 * *status* as the webhook does: the controller's counts, less what earlier admissions spent.
 */
export function validatePodForPub(pod: Pod, operation: BudgetOperation, pub: KubeObject | undefined, opts: PubValidateOptions): PubDecision {
  if (isPodNoProtection(pod)) return { allowed: true, reason: 'pod is exempt (pub.kruise.io/no-protect)' };
  // a pod that is not ready or mid-update does not count as available: taking it costs nothing
  if (!isPubPodReady(pod) || !isPodStateConsistent(pod)) return { allowed: true, reason: 'pod is not ready or not consistent' };
  if (!pub) return { allowed: true, reason: 'no PodUnavailableBudget' };
  const view = readPubSpec(pub);
  if (opts.release === 'master' && view.ignoredPodSelector && labelSelectorMatches(view.ignoredPodSelector, pod.metadata.labels)) {
    return { allowed: true, reason: 'pod matches spec.ignoredPodSelector' };
  }
  const status = pubStatusOf(pub);
  if (status.desiredAvailable === 0) return { allowed: true, reason: 'desiredAvailable is 0' };
  if (!pubProtectedOperations(view, opts).has(operation)) return { allowed: true, reason: `${operation} is not protected` };
  const name = pod.metadata.name ?? '';
  if ((status.disruptedPods && name in status.disruptedPods) || (status.unavailablePods && name in status.unavailablePods)) {
    return { allowed: true, reason: 'pod is already recorded in the budget' };
  }
  return checkAndDecrement(name, view.name, status, operation, opts);
}

/** checkAndDecrement: spend one unit of unavailableAllowed, recording the pod (UPDATE → unavailablePods). */
export function checkAndDecrement(podName: string, pubName: string, status: PubStatus, operation: BudgetOperation, opts: { now: Date; dryRun?: boolean }): PubDecision {
  if (status.unavailableAllowed <= 0) return { allowed: false, message: pubForbiddenMessage(pubName, 'pub unavailable allowed is negative') };
  const recorded = Object.keys(status.disruptedPods ?? {}).length + Object.keys(status.unavailablePods ?? {}).length;
  if (recorded > PUB_MAX_UNAVAILABLE_POD_SIZE) {
    return { allowed: false, message: pubForbiddenMessage(pubName, 'DisruptedPods and UnavailablePods map too big - too many unavailable not confirmed by PUB controller') };
  }
  if (opts.dryRun) return { allowed: true, reason: 'dry run: budget not spent' };
  const stamp = opts.now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const next: PubStatus = { ...status, unavailableAllowed: status.unavailableAllowed - 1 };
  if (operation === 'UPDATE') next.unavailablePods = { ...(status.unavailablePods ?? {}), [podName]: stamp };
  else next.disruptedPods = { ...(status.disruptedPods ?? {}), [podName]: stamp };
  return { allowed: true, reason: 'budget spent', status: next };
}

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (isObj(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x));
}

type Resources = { requests?: Record<string, string>; limits?: Record<string, string> };

/** v1qos.ComputePodQOS, enough to tell a resize that changes the class. */
export function podQosClass(spec: Pod['spec']): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  let anySet = false;
  let guaranteed = true;
  for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
    const r = (c.resources ?? {}) as Resources;
    for (const name of ['cpu', 'memory']) {
      const req = r.requests?.[name] ?? r.limits?.[name];
      const lim = r.limits?.[name];
      if (req !== undefined || lim !== undefined) anySet = true;
      if (lim === undefined || req !== lim) guaranteed = false;
    }
  }
  if (!anySet) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/**
 * PubControl.CanResizeInplace: only cpu/memory of containers change, under a resizePolicy that does
 * not restart them, the QoS class stays, the pod is not static, and no unavailable-pod label appears.
 */
export function canResizeInPlace(oldPod: Pod, newPod: Pod): boolean {
  if (!hasUnavailableLabel(oldPod.metadata.labels) && hasUnavailableLabel(newPod.metadata.labels)) return false;
  const strip = (p: Pod): unknown => ({ ...p.spec, containers: p.spec.containers.map((c) => ({ ...c, resources: undefined })) });
  if (canonical(strip(oldPod)) !== canonical(strip(newPod))) return false;
  const isStatic = (p: Pod): boolean => p.metadata.annotations?.['kubernetes.io/config.source'] !== undefined && p.metadata.annotations['kubernetes.io/config.source'] !== 'api';
  if (isStatic(oldPod) || isStatic(newPod)) return false;
  if (podQosClass(oldPod.spec) !== podQosClass(newPod.spec)) return false;
  if (oldPod.spec.containers.length !== newPod.spec.containers.length) return false;
  for (const c of newPod.spec.containers) {
    const old = oldPod.spec.containers.find((o) => o.name === c.name);
    if (!old) return false;
    const a = (old.resources ?? {}) as Resources;
    const b = (c.resources ?? {}) as Resources;
    const names = new Set([...Object.keys(a.requests ?? {}), ...Object.keys(b.requests ?? {}), ...Object.keys(a.limits ?? {}), ...Object.keys(b.limits ?? {})]);
    const policies = (c.resizePolicy ?? []) as Array<{ resourceName?: string; restartPolicy?: string }>;
    for (const name of names) {
      if (a.requests?.[name] === b.requests?.[name] && a.limits?.[name] === b.limits?.[name]) continue;
      if (name !== 'cpu' && name !== 'memory') return false;
      const policy = policies.find((p) => p.resourceName === name)?.restartPolicy;
      if (policy && policy !== 'NotRequired') return false;
    }
  }
  return true;
}

/**
 * What an update of a pod is to the budget webhook: nothing (only metadata or status changed: not
 * checked), RESIZE (since v1.9, a resize the pod can take in place) or UPDATE.
 */
export function pubOperationForPodUpdate(oldPod: Pod, newPod: Pod, release: KruiseRelease): 'UPDATE' | 'RESIZE' | undefined {
  const specChanged = canonical(oldPod.spec) !== canonical(newPod.spec);
  const labelAdded = !hasUnavailableLabel(oldPod.metadata.labels) && hasUnavailableLabel(newPod.metadata.labels);
  if (!specChanged && !labelAdded) return undefined;
  if ((release === 'v1.9' || release === 'master') && canResizeInPlace(oldPod, newPod)) return 'RESIZE';
  return 'UPDATE';
}
