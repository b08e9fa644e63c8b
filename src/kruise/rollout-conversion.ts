// Kruise Rollout's conversion webhook for Rollout and BatchRelease v1alpha1 ↔ v1beta1 (hub v1beta1), ported
// from openkruise/rollouts api/v1alpha1/conversion.go (v0.6.2; unchanged on master):
// objectRef.workloadRef ↔ workloadRef, step weight ↔ traffic "N%", and the two v1alpha1
// annotations that carry v1beta1-only fields (rolling style ↔ enableExtraWorkloadForCanary,
// trafficrouting ↔ trafficRoutingRef). Like Kruise's, it is lossy: only the fields it names
// cross over (a blue-green v1beta1 Rollout reads in v1alpha1 as metadata only).
import type { KubeObject } from './types';
import { isObj, type Obj } from './workloads/access';

export const ROLLOUT_STYLE_ANNOTATION = 'rollouts.kruise.io/rolling-style';
export const TRAFFIC_ROUTING_ANNOTATION = 'rollouts.kruise.io/trafficrouting';

type Version = 'v1alpha1' | 'v1beta1';

const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);

/** The named fields of `src` that are set (a Go struct copy drops nothing, JSON omits the empty ones). */
function pick(src: unknown, keys: readonly string[]): Obj {
  const from = obj(src);
  const out: Obj = {};
  for (const k of keys) if (from[k] !== undefined && from[k] !== null) out[k] = structuredClone(from[k]);
  return out;
}

const nonEmpty = <T>(items: T[]): T[] | undefined => (items.length ? items : undefined);
const ref = (r: unknown): Obj => pick(r, ['apiVersion', 'kind', 'name']);
const CONDITION_FIELDS = ['type', 'status', 'lastUpdateTime', 'lastTransitionTime', 'reason', 'message'] as const;
const CANARY_STATUS_FIELDS = [
  'observedWorkloadGeneration', 'observedRolloutID', 'rolloutHash', 'stableRevision', 'canaryRevision', 'podTemplateHash',
  'canaryReplicas', 'canaryReadyReplicas', 'currentStepIndex', 'currentStepState', 'message', 'lastUpdateTime', 'finalisingStep', 'nextStepIndex',
] as const;

/** ConversionToV1beta1TrafficRoutingRef / ConversionToV1alpha1TrafficRoutingRef: the same fields both ways. */
function trafficRoutingRef(src: Obj): Obj {
  const out = pick(src, ['service', 'gracePeriodSeconds']);
  if (isObj(src.ingress)) out.ingress = pick(src.ingress, ['classType', 'name']);
  if (isObj(src.gateway)) out.gateway = pick(src.gateway, ['httpRouteName']);
  const custom = nonEmpty(list(src.customNetworkRefs).map(ref));
  if (custom) out.customNetworkRefs = custom;
  return out;
}

const matchesOf = (step: Obj): Obj[] | undefined => nonEmpty(list(step.matches).map((m) => pick(m, ['headers'])));

/**
 * intstr.GetScaledValueFromIntOrPercent(FromString(traffic), 100, roundUp=true) as
 * ConversionToV1alpha1TrafficRoutingStrategy uses it: "20%" → 20; a string that is not a
 * percentage is an error there, which the conversion ignores (weight 0).
 */
export function weightOfTraffic(traffic: string): number {
  const m = traffic.match(/^(-?\d+)%$/);
  return m ? Number(m[1]) : 0;
}

function canaryStatus(src: unknown): Obj | undefined {
  return isObj(src) ? pick(src, CANARY_STATUS_FIELDS) : undefined;
}

/** The status fields both versions share (ObservedGeneration, Phase, Message, Conditions, CanaryStatus). */
function status(src: unknown): Obj {
  const s = obj(src);
  const out = pick(s, ['observedGeneration', 'phase', 'message']);
  const conditions = nonEmpty(list(s.conditions).map((c) => pick(c, CONDITION_FIELDS)));
  if (conditions) out.conditions = conditions;
  const canary = canaryStatus(s.canaryStatus);
  if (canary) out.canaryStatus = canary;
  return out;
}

/** What a canary step carries alike in both versions: header modifier, matches, replicas, pause. */
function commonStepFields(step: Obj): Obj {
  const o = pick(step, ['requestHeaderModifier']);
  const matches = matchesOf(step);
  if (matches) o.matches = matches;
  if (step.replicas !== undefined && step.replicas !== null) o.replicas = step.replicas;
  o.pause = pick(step.pause, ['duration']);
  return o;
}

/** Traffic routings and pod template metadata, copied alike in both directions. */
function copyCommonCanaryFields(from: Obj, to: Obj): void {
  const routings = nonEmpty(list(from.trafficRoutings).map(trafficRoutingRef));
  if (routings) to.trafficRoutings = routings;
  if (isObj(from.patchPodTemplateMetadata)) to.patchPodTemplateMetadata = pick(from.patchPodTemplateMetadata, ['annotations', 'labels']);
}

/** Rollout v1alpha1 → v1beta1 (Rollout.ConvertTo). */
export function rolloutV1alpha1ToV1beta1(src: KubeObject): KubeObject {
  const spec = obj(src.spec);
  const strategy = obj(spec.strategy);
  const canarySrc = obj(strategy.canary);
  const annotations = src.metadata.annotations ?? {};
  const canary: Obj = pick(canarySrc, ['failureThreshold']);
  const steps = nonEmpty(
    list(canarySrc.steps).map((step) => {
      const o: Obj = typeof step.weight === 'number' ? { traffic: `${step.weight}%` } : {};
      Object.assign(o, commonStepFields(step));
      // A v1alpha1 step with a weight and no replicas releases that share of pods.
      if (o.replicas === undefined && typeof step.weight === 'number') o.replicas = `${step.weight}%`;
      return o;
    }),
  );
  if (steps) canary.steps = steps;
  copyCommonCanaryFields(canarySrc, canary);
  // Anything but rolling-style "partition" (any letter case) means a canary workload beside the stable one.
  if ((annotations[ROLLOUT_STYLE_ANNOTATION] ?? '').toLowerCase() !== 'partition') canary.enableExtraWorkloadForCanary = true;
  if (annotations[TRAFFIC_ROUTING_ANNOTATION]) canary.trafficRoutingRef = annotations[TRAFFIC_ROUTING_ANNOTATION];
  const out: KubeObject = {
    ...structuredClone(src),
    apiVersion: 'rollouts.kruise.io/v1beta1',
    spec: {
      workloadRef: ref(obj(spec.objectRef).workloadRef),
      ...pick(spec, ['disabled']),
      strategy: { ...pick(strategy, ['paused']), canary },
    },
    // v1beta1 RolloutStatus declares currentStepIndex/currentStepState without omitempty (and the
    // CRD requires them), so Kruise's converted object carries their zero values; ConvertTo sets no other.
    status: { ...status(src.status), currentStepIndex: 0, currentStepState: '' },
  };
  return out;
}

/** Rollout v1beta1 → v1alpha1 (Rollout.ConvertFrom). */
export function rolloutV1beta1ToV1alpha1(src: KubeObject): KubeObject {
  const spec = obj(src.spec);
  const strategy = obj(spec.strategy);
  const base: KubeObject = { ...structuredClone(src), apiVersion: 'rollouts.kruise.io/v1alpha1' };
  // IsCanaryStragegy: only v1beta1 has blue-green; Kruise then copies the metadata alone.
  if (isObj(strategy.blueGreen) || !isObj(strategy.canary)) return { ...base, spec: { objectRef: {}, strategy: {} }, status: {} };
  const canarySrc = strategy.canary;
  const canary: Obj = pick(canarySrc, ['failureThreshold']);
  const steps = nonEmpty(
    list(canarySrc.steps).map((step) => {
      const o: Obj = typeof step.traffic === 'string' ? { weight: weightOfTraffic(step.traffic) } : {};
      return Object.assign(o, commonStepFields(step));
    }),
  );
  if (steps) canary.steps = steps;
  copyCommonCanaryFields(canarySrc, canary);
  const annotations: Record<string, string> = { ...(src.metadata.annotations ?? {}) };
  annotations[ROLLOUT_STYLE_ANNOTATION] = canarySrc.enableExtraWorkloadForCanary === true ? 'canary' : 'partition';
  if (typeof canarySrc.trafficRoutingRef === 'string' && canarySrc.trafficRoutingRef) annotations[TRAFFIC_ROUTING_ANNOTATION] = canarySrc.trafficRoutingRef;
  return {
    ...base,
    metadata: { ...base.metadata, annotations },
    spec: {
      objectRef: { workloadRef: ref(spec.workloadRef) },
      strategy: { ...pick(strategy, ['paused']), canary },
      ...pick(spec, ['disabled']),
    },
    status: status(src.status),
  };
}

const RELEASE_PLAN_FIELDS = ['batchPartition', 'rolloutID', 'failureThreshold', 'finalizingPolicy'] as const;
const BATCH_STATUS_FIELDS = ['stableRevision', 'updateRevision', 'observedGeneration', 'observedRolloutID', 'observedWorkloadReplicas', 'observedReleasePlanHash', 'collisionCount', 'phase'] as const;
const BATCH_CANARY_STATUS_FIELDS = ['batchState', 'currentBatch', 'batchReadyTime', 'updatedReplicas', 'updatedReadyReplicas', 'noNeedUpdateReplicas'] as const;
const ROLLING_STYLES = ['Partition', 'Canary', 'BlueGreen'] as const;

/** The release plan fields both BatchRelease versions share (batches keep only canaryReplicas). */
function releasePlan(src: unknown): Obj {
  const plan = obj(src);
  const out = pick(plan, RELEASE_PLAN_FIELDS);
  out.batches = list(plan.batches).map((b) => pick(b, ['canaryReplicas']));
  if (isObj(plan.patchPodTemplateMetadata)) out.patchPodTemplateMetadata = pick(plan.patchPodTemplateMetadata, ['annotations', 'labels']);
  return out;
}

/** BatchRelease status as both conversions copy it: no message (v1alpha1 has none); currentBatch is never omitted. */
function batchStatus(src: unknown): Obj {
  const s = obj(src);
  const out = pick(s, BATCH_STATUS_FIELDS);
  const conditions = nonEmpty(list(s.conditions).map((c) => pick(c, CONDITION_FIELDS)));
  if (conditions) out.conditions = conditions;
  out.canaryStatus = { currentBatch: 0, ...pick(s.canaryStatus, BATCH_CANARY_STATUS_FIELDS) };
  return out;
}

/**
 * BatchRelease v1alpha1 → v1beta1 (BatchRelease.ConvertTo): targetReference.workloadRef → workloadRef;
 * rollingStyle comes from the rolling-style annotation (Partition/Canary/BlueGreen, any case), not from
 * v1alpha1's own releasePlan.rollingStyle.
 */
export function batchReleaseV1alpha1ToV1beta1(src: KubeObject): KubeObject {
  const spec = obj(src.spec);
  const srcPlan = obj(spec.releasePlan);
  const plan = releasePlan(srcPlan);
  const style = (src.metadata.annotations?.[ROLLOUT_STYLE_ANNOTATION] ?? '').toLowerCase();
  const rollingStyle = ROLLING_STYLES.find((s) => s.toLowerCase() === style);
  if (rollingStyle) plan.rollingStyle = rollingStyle;
  plan.enableExtraWorkloadForCanary = srcPlan.enableExtraWorkloadForCanary === true;
  return {
    ...structuredClone(src),
    apiVersion: 'rollouts.kruise.io/v1beta1',
    spec: { workloadRef: ref(obj(spec.targetReference).workloadRef), releasePlan: plan },
    status: batchStatus(src.status),
  };
}

/** BatchRelease v1beta1 → v1alpha1 (BatchRelease.ConvertFrom): the rolling-style annotation is always written (lower case). */
export function batchReleaseV1beta1ToV1alpha1(src: KubeObject): KubeObject {
  const spec = obj(src.spec);
  const srcPlan = obj(spec.releasePlan);
  const plan = releasePlan(srcPlan);
  const style = typeof srcPlan.rollingStyle === 'string' ? srcPlan.rollingStyle : '';
  if (style) plan.rollingStyle = style;
  plan.enableExtraWorkloadForCanary = srcPlan.enableExtraWorkloadForCanary === true;
  const base = structuredClone(src);
  return {
    ...base,
    apiVersion: 'rollouts.kruise.io/v1alpha1',
    metadata: { ...base.metadata, annotations: { ...(base.metadata.annotations ?? {}), [ROLLOUT_STYLE_ANNOTATION]: style.toLowerCase() } },
    spec: { targetReference: { workloadRef: ref(spec.workloadRef) }, releasePlan: plan },
    status: batchStatus(src.status),
  };
}

/**
 * A copy of a rollouts.kruise.io object in `toVersion`. Rollout and BatchRelease convert field by
 * field; TrafficRouting and RolloutHistory (one version) only get their apiVersion changed.
 */
export function convertRolloutObject(src: KubeObject, toVersion: string): KubeObject {
  const from = (src.apiVersion ?? '').split('/')[1] as Version | undefined;
  const to = toVersion as Version;
  if (src.kind === 'Rollout' && from !== to) {
    if (from === 'v1alpha1' && to === 'v1beta1') return rolloutV1alpha1ToV1beta1(src);
    if (from === 'v1beta1' && to === 'v1alpha1') return rolloutV1beta1ToV1alpha1(src);
  }
  if (src.kind === 'BatchRelease' && from !== to) {
    if (from === 'v1alpha1' && to === 'v1beta1') return batchReleaseV1alpha1ToV1beta1(src);
    if (from === 'v1beta1' && to === 'v1alpha1') return batchReleaseV1beta1ToV1alpha1(src);
  }
  return { ...structuredClone(src), apiVersion: `rollouts.kruise.io/${toVersion}` };
}
