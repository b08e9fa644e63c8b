// Kruise Rollout's validating webhook `vrollout.kb.io` (pkg/webhook/rollout/validating/), per release:
// - v0.4.4 rollout_create_update_handler.go: v1alpha1 only;
// - v0.6.2 rollout_create_update_handler.go (v1beta1) and validate_v1alphal_rollout.go (v1alpha1); master
//   (9dd6279d) is v0.6.2's rules with the native DaemonSet among the known workloads (pkg/util
//   workloads_utils.go knownWorkloadGVKs).
// Pure: the caller gives the Rollout in the version of the request, its namespace's other Rollouts, and on an
// update the stored object. The errors read as apimachinery's field errors; a value Go prints with %#v is
// shown by type name (pointer addresses elided), scalars and Stringers as Go prints them.
import type { KubeObject } from '../types';
import type { IntOrString } from '../intstr';
import { at, boolAt, intOrStringAt, isObj, numAt, strAt } from '../workloads/access';
import { jsonEqual } from '../../lib/json-equal';
import { apiGroupOf } from './find';
import { rolloutScaledValue } from './step-math';

export type RolloutWebhookRelease = 'v0.4' | 'v0.6' | 'master';

export interface RolloutFieldError {
  type: 'Invalid' | 'Forbidden';
  /** Upstream's field path, as it spells it ("Spec.Strategy.Canary.Steps[1].Replicas"). */
  field: string;
  /** The bad value as Go prints it (Invalid only). */
  shown?: string;
  detail: string;
}

export interface RolloutValidationOptions {
  /** kruise-rollout's --partition-percent-limit (default 50, v0.6 on). */
  partitionPercentLimit?: number;
}

/** The annotation v1alpha1 Rollouts choose their rolling style by (api/v1alpha1 RolloutStyleAnnotation). */
export const ROLLING_STYLE_ANNOTATION = 'rollouts.kruise.io/rolling-style';
const DEFAULT_PARTITION_PERCENT_LIMIT = 50;

/** knownWorkloadGVKs by group/kind (util.IsSupportedWorkload, --filter-workload-type on by default). */
function knownWorkload(release: RolloutWebhookRelease, group: string, kind: string): boolean {
  const known = ['apps/ReplicaSet', 'apps/Deployment', 'apps/StatefulSet', 'apps.kruise.io/CloneSet', 'apps.kruise.io/StatefulSet', 'apps.kruise.io/DaemonSet'];
  if (release === 'master') known.push('apps/DaemonSet');
  return known.includes(`${group}/${kind}`);
}

/** blueGreenSupportWorkloadGVKs (v0.6 on): Deployment and CloneSet. */
const BLUE_GREEN_WORKLOADS = ['apps/Deployment', 'apps.kruise.io/CloneSet'];

type Version = 'v1alpha1' | 'v1beta1';

function versionOf(obj: KubeObject): Version {
  return obj.apiVersion === 'rollouts.kruise.io/v1alpha1' ? 'v1alpha1' : 'v1beta1';
}

const invalid = (field: string, shown: string, detail: string): RolloutFieldError => ({ type: 'Invalid', field, shown, detail });
const forbidden = (field: string, detail: string): RolloutFieldError => ({ type: 'Forbidden', field, detail });

/** Go's %q of a string. */
const quoted = (s: string): string => JSON.stringify(s);
/** IntOrString is a Stringer: its String() unquoted. */
const intstrShown = (v: IntOrString): string => String(v);
const stepsShown = (v: Version, steps: unknown[] | undefined): string => `[]${v}.CanaryStep${steps === undefined ? '(nil)' : steps.length ? '{...}' : '{}'}`;

interface StepView {
  replicas?: IntOrString;
  traffic?: string;
  weight?: number;
  hasMatches: boolean;
}

function stepsOf(strategy: unknown): StepView[] | undefined {
  const raw = at(strategy, 'steps');
  if (!Array.isArray(raw)) return undefined;
  return raw.map((s: unknown) => ({
    replicas: intOrStringAt(s, 'replicas'),
    traffic: strAt(s, 'traffic'),
    weight: numAt(s, 'weight'),
    hasMatches: Array.isArray(at(s, 'matches')) && (at(s, 'matches') as unknown[]).length > 0,
  }));
}

/** IsPercentageCanaryReplicasType: unset or a string. */
const isPercentage = (r: IntOrString | undefined): boolean => r === undefined || typeof r === 'string';

/** The rolling style the webhook judges by (GetContextFromv1beta1Rollout / GetContextFromv1alpha1Rollout). */
function styleOf(obj: KubeObject, v: Version): 'Canary' | 'Partition' | 'BlueGreen' | undefined {
  const ref = workloadRef(obj, v);
  const isDeployment = ref !== undefined && ref.apiVersion === 'apps/v1' && ref.kind === 'Deployment';
  if (v === 'v1alpha1') {
    if (!isObj(at(obj, 'spec', 'strategy', 'canary'))) return undefined;
    const style = (obj.metadata.annotations?.[ROLLING_STYLE_ANNOTATION] ?? '').toLowerCase();
    return (style === '' || style === 'canary') && isDeployment ? 'Canary' : 'Partition';
  }
  const canary = at(obj, 'spec', 'strategy', 'canary');
  const blueGreen = at(obj, 'spec', 'strategy', 'blueGreen');
  if (!isObj(canary) && !isObj(blueGreen)) return undefined;
  if (isObj(blueGreen)) return 'BlueGreen';
  // IsRealPartition: a Deployment with an extra canary workload is canary, every other canary strategy partition
  // (even enableExtraWorkloadForCanary on a CloneSet, as a converted v1alpha1 Rollout may have it).
  return isDeployment && boolAt(canary, 'enableExtraWorkloadForCanary') ? 'Canary' : 'Partition';
}

/** GetRollingStyle (v1beta1): what an update may not change mid-release. */
function rollingStyle(obj: KubeObject): string {
  if (isObj(at(obj, 'spec', 'strategy', 'blueGreen'))) return 'BlueGreen';
  return boolAt(obj, 'spec', 'strategy', 'canary', 'enableExtraWorkloadForCanary') ? 'Canary' : 'Partition';
}

function workloadRef(obj: KubeObject, v: Version): { apiVersion: string; kind: string; name: string } | undefined {
  const ref = at(obj, 'spec', ...(v === 'v1alpha1' ? ['objectRef', 'workloadRef'] : ['workloadRef']));
  if (!isObj(ref)) return undefined;
  return { apiVersion: strAt(ref, 'apiVersion') ?? '', kind: strAt(ref, 'kind') ?? '', name: strAt(ref, 'name') ?? '' };
}

function refShown(v: Version, ref: { apiVersion: string; kind: string; name: string }): string {
  return `${v}.${v === 'v1alpha1' ? 'WorkloadRef' : 'ObjectRef'}{APIVersion:${quoted(ref.apiVersion)}, Kind:${quoted(ref.kind)}, Name:${quoted(ref.name)}}`;
}

function validateWorkloadRef(obj: KubeObject, v: Version, release: RolloutWebhookRelease, style: string | undefined): RolloutFieldError[] {
  const field = 'Spec.ObjectRef.WorkloadRef';
  const ref = workloadRef(obj, v);
  if (!ref) return [invalid(field, 'null', 'WorkloadRef is required')];
  const gk = `${apiGroupOf(ref.apiVersion)}/${ref.kind}`;
  if (!knownWorkload(release, apiGroupOf(ref.apiVersion), ref.kind)) return [invalid(field, refShown(v, ref), 'WorkloadRef kind is not supported')];
  if (v === 'v1beta1' && style === 'BlueGreen' && !BLUE_GREEN_WORKLOADS.includes(gk)) return [invalid(field, refShown(v, ref), 'WorkloadRef kind is not supported for bluegreen style')];
  return [];
}

/** validateV1alpha1RolloutRollingStyle (v0.4.4: only a Deployment takes the canary style). */
function validateRollingStyleAnnotation(obj: KubeObject, release: RolloutWebhookRelease): RolloutFieldError[] {
  const raw = obj.metadata.annotations?.[ROLLING_STYLE_ANNOTATION] ?? '';
  const style = raw.toLowerCase();
  if (style !== '' && style !== 'canary' && style !== 'partition') return [invalid('RollingStyle', quoted(raw), "Rolling style must be 'Canary', 'Partition' or empty")];
  const ref = workloadRef(obj, 'v1alpha1');
  if (release === 'v0.4' && ref && ref.kind !== 'Deployment' && style === 'canary') return [invalid('RollingStyle', quoted(raw), 'Only Deployment support canary rolling style')];
  return [];
}

function validateTrafficRoutings(strategy: unknown, path: string, v: Version, release: RolloutWebhookRelease): RolloutFieldError[] {
  const raw = at(strategy, 'trafficRoutings');
  const routings = Array.isArray(raw) ? raw : [];
  const out: RolloutFieldError[] = [];
  if (routings.length > 1) out.push(invalid(path, `[]${v}.TrafficRoutingRef{...}`, 'Rollout currently only support single TrafficRouting.'));
  const at_ = `${path}.TrafficRouting`;
  for (const t of routings) {
    const service = strAt(t, 'service') ?? '';
    const ingress = at(t, 'ingress');
    const gateway = at(t, 'gateway');
    if (release !== 'v0.4' && (numAt(t, 'gracePeriodSeconds') ?? 0) < 0) out.push(invalid(`${at_}.GracePeriodSeconds`, quoted(service), 'TrafficRouting.GracePeriodSeconds cannot be negative'));
    if (service === '') out.push(invalid(`${at_}.Service`, quoted(service), 'TrafficRouting.Service cannot be empty'));
    const custom = release !== 'v0.4' && at(t, 'customNetworkRefs') !== undefined;
    if (!isObj(gateway) && !isObj(ingress) && !custom) {
      out.push(invalid(`${at_}.TrafficRoutings`, 'null', release === 'v0.4' ? 'TrafficRoutings must set the gateway or ingress' : 'TrafficRoutings are not set'));
    }
    if (isObj(ingress) && !strAt(ingress, 'name')) out.push(invalid(`${at_}.Ingress`, `${v}.IngressTrafficRouting{...}`, 'TrafficRouting.Ingress.Ingress cannot be empty'));
    if (isObj(gateway) && !strAt(gateway, 'httpRouteName')) out.push(invalid(`${at_}.Gateway`, `${v}.GatewayTrafficRouting{...}`, 'TrafficRouting.Gateway must set the name of HTTPRoute or HTTPsRoute'));
  }
  return out;
}

const REPLICAS_RANGE = 'replicas must be positive number, or a percentage with "0%" < canaryReplicas <= "100%"';

/** The step's replicas as the webhook checks them (GetScaledValueFromIntOrPercent(replicas, 100, true)). */
function replicasProblem(r: IntOrString): boolean {
  const scaled = rolloutScaledValue(r, 100);
  return scaled === undefined || scaled <= 0 || (scaled > 100 && typeof r === 'string');
}

/** validateRolloutSpecCanarySteps (v1beta1, v0.6 on). */
function validateV1beta1Steps(raw: unknown[] | undefined, steps: StepView[], path: string, style: string | undefined, limit: number): RolloutFieldError[] {
  const shown = stepsShown('v1beta1', raw);
  if (steps.length === 0) return [invalid(path, shown, 'The number of Canary.Steps cannot be empty')];
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    if (s.replicas === undefined) return [invalid(`${path}[${i}].steps`, shown, 'replicas cannot be empty')];
    if (replicasProblem(s.replicas)) return [invalid(`${path}[${i}].Replicas`, intstrShown(s.replicas), REPLICAS_RANGE)];
    if (s.traffic === undefined && !s.hasMatches) continue;
    if (style === 'Partition' && isPercentage(s.replicas) && (rolloutScaledValue(s.replicas, 100) ?? 0) > limit) {
      return [invalid(`${path}[${i}].steps`, shown, 'For partition style rollout: step[x].replicas must not greater than partition-percent-limit if traffic specified')];
    }
    if (s.traffic === undefined) continue;
    const weight = rolloutScaledValue(s.traffic, 100);
    if (style === 'BlueGreen') {
      // "0%" is allowed in a blue-green strategy
      if (weight === undefined || weight < 0 || weight > 100) return [invalid(`${path}[${i}].steps`, shown, 'traffic must be percentage with "0%" <= traffic <= "100%" in blueGreen strategy')];
    } else if (weight === undefined || weight <= 0 || weight > 100) {
      return [invalid(`${path}[${i}].steps`, shown, 'traffic must be percentage with "0%" < traffic <= "100%" in canary strategy')];
    }
  }
  for (let i = 1; i < steps.length; i++) {
    const prev = steps[i - 1]!.replicas;
    const curr = steps[i]!.replicas;
    if (isPercentage(prev) !== isPercentage(curr)) continue;
    if ((rolloutScaledValue(curr, 100) ?? 0) < (rolloutScaledValue(prev, 100) ?? 0)) return [invalid(`${path}.CanaryReplicas`, shown, 'Steps.CanaryReplicas must be a non decreasing sequence')];
  }
  return [];
}

/** validateV1alpha1RolloutSpecCanarySteps (v0.6 on; v0.4.4's validateRolloutSpecCanarySteps without the limits). */
function validateV1alpha1Steps(raw: unknown[] | undefined, steps: StepView[], path: string, isTraffic: boolean, style: string | undefined, limit: number, release: RolloutWebhookRelease): RolloutFieldError[] {
  const shown = stepsShown('v1alpha1', raw);
  if (steps.length === 0) return [invalid(path, shown, 'The number of Canary.Steps cannot be empty')];
  const limits = release !== 'v0.4';
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    if (s.weight === undefined && s.replicas === undefined) return [invalid(`${path}[${i}].steps`, shown, 'weight and replicas cannot be empty at the same time')];
    if (s.replicas !== undefined) {
      if (replicasProblem(s.replicas)) return [invalid(`${path}[${i}].Replicas`, intstrShown(s.replicas), REPLICAS_RANGE)];
      if (limits && style === 'Partition' && isPercentage(s.replicas) && (rolloutScaledValue(s.replicas, 100) ?? 0) > limit && (s.hasMatches || s.weight !== undefined)) {
        return [invalid(`${path}[${i}].steps`, shown, 'For patition style rollout: step[x].replicas must not greater than replicasLimitWithTraffic if traffic or matches specified')];
      }
    } else if (limits && s.weight !== undefined) {
      if (style === 'Partition' && s.weight > limit) {
        return [invalid(`${path}[${i}].steps`, shown, 'For patition style rollout: step[x].weight must not greater than replicasLimitWithTraffic if replicas is not specified')];
      }
      if (s.weight <= 0 || s.weight > 100) return [invalid(`${path}[${i}].Weight`, String(s.weight), 'weight must be positive number, and less than or equal to replicasLimitWithTraffic (defaults to 30)')];
    }
  }
  for (let i = 1; i < steps.length; i++) {
    const prev = steps[i - 1]!;
    const curr = steps[i]!;
    if (isTraffic && curr.weight !== undefined && prev.weight !== undefined && curr.weight < prev.weight) return [invalid(`${path}.Weight`, shown, 'Steps.Weight must be a non decreasing sequence')];
    if (isPercentage(prev.replicas) !== isPercentage(curr.replicas)) continue;
    const p = prev.replicas === undefined ? (prev.weight ?? 0) : (rolloutScaledValue(prev.replicas, 100) ?? 0);
    const c = curr.replicas === undefined ? (curr.weight ?? 0) : (rolloutScaledValue(curr.replicas, 100) ?? 0);
    if (c < p) return [invalid(`${path}.CanaryReplicas`, shown, 'Steps.CanaryReplicas must be a non decreasing sequence')];
  }
  return [];
}

function validateStrategy(obj: KubeObject, v: Version, release: RolloutWebhookRelease, style: string | undefined, limit: number): RolloutFieldError[] {
  const strategy = at(obj, 'spec', 'strategy');
  const canary = at(strategy, 'canary');
  if (v === 'v1alpha1') {
    if (!isObj(canary)) return [invalid('Spec.Strategy.Canary', 'null', 'Canary cannot be empty')];
    const raw = at(canary, 'steps');
    const routings = at(canary, 'trafficRoutings');
    return [
      ...validateV1alpha1Steps(Array.isArray(raw) ? raw : undefined, stepsOf(canary) ?? [], 'Spec.Strategy.Canary.Steps', Array.isArray(routings) && routings.length > 0, style, limit, release),
      ...validateTrafficRoutings(canary, 'Spec.Strategy.Canary', v, release),
    ];
  }
  const blueGreen = at(strategy, 'blueGreen');
  if (!isObj(canary) && !isObj(blueGreen)) return [invalid('Spec.Strategy', 'null', 'Canary and BlueGreen cannot both be empty')];
  if (isObj(canary) && isObj(blueGreen)) return [invalid('Spec.Strategy', 'null', 'Canary and BlueGreen cannot both be set')];
  const which = isObj(blueGreen) ? 'BlueGreen' : 'Canary';
  const sub = isObj(blueGreen) ? blueGreen : canary;
  const raw = at(sub, 'steps');
  return [
    ...validateV1beta1Steps(Array.isArray(raw) ? raw : undefined, stepsOf(sub) ?? [], `Spec.Strategy.${which}.Steps`, style, limit),
    ...validateTrafficRoutings(sub, `Spec.Strategy.${which}`, v, release),
  ];
}

/** validateRolloutConflict: one Rollout per workload (its namespace's other Rollouts, any version, by name). */
function validateConflict(obj: KubeObject, v: Version, siblings: readonly KubeObject[]): RolloutFieldError[] {
  const ref = workloadRef(obj, v);
  if (!ref) return [];
  for (const other of siblings) {
    if (other.metadata.name === obj.metadata.name) continue;
    const theirs = workloadRef(other, versionOf(other));
    if (theirs && jsonEqual(theirs, ref)) {
      return [invalid('Conflict Checker', quoted(obj.metadata.name ?? ''), `This rollout conflict with Rollout(${other.metadata.namespace ?? ''}/${other.metadata.name ?? ''}), one workload only have less than one Rollout`)];
    }
  }
  return [];
}

/** What `vrollout.kb.io` refuses of a Rollout written (create, or the new object of an update) in its own version. */
export function validateRollout(obj: KubeObject, siblings: readonly KubeObject[], release: RolloutWebhookRelease, opts: RolloutValidationOptions = {}): RolloutFieldError[] {
  const v = versionOf(obj);
  const style = styleOf(obj, v);
  const limit = opts.partitionPercentLimit ?? DEFAULT_PARTITION_PERCENT_LIMIT;
  return [
    ...validateWorkloadRef(obj, v, release, style),
    ...(v === 'v1alpha1' ? validateRollingStyleAnnotation(obj, release) : []),
    ...validateStrategy(obj, v, release, style, limit),
    ...validateConflict(obj, v, siblings),
  ];
}

function trafficRoutingsOf(obj: KubeObject, v: Version): unknown {
  if (v === 'v1alpha1') return at(obj, 'spec', 'strategy', 'canary', 'trafficRoutings');
  return at(obj, 'spec', 'strategy', 'blueGreen', 'trafficRoutings') ?? at(obj, 'spec', 'strategy', 'canary', 'trafficRoutings');
}

function stepCount(obj: KubeObject): number {
  const steps = at(obj, 'spec', 'strategy', isObj(at(obj, 'spec', 'strategy', 'blueGreen')) ? 'blueGreen' : 'canary', 'steps');
  return Array.isArray(steps) ? steps.length : 0;
}

/**
 * An update: the new object's own rules first, then, while the stored Rollout is Progressing or Terminating,
 * what a release in flight may not change (validateRolloutUpdate / validateV1alpha1RolloutUpdate).
 */
export function validateRolloutUpdate(old: KubeObject, next: KubeObject, storedPhase: string | undefined, siblings: readonly KubeObject[], release: RolloutWebhookRelease, opts: RolloutValidationOptions = {}): RolloutFieldError[] {
  const own = validateRollout(next, siblings, release, opts);
  if (own.length > 0) return own;
  if (storedPhase !== 'Progressing' && storedPhase !== 'Terminating') return [];
  const v = versionOf(next);
  if (!jsonEqual(workloadRef(old, v), workloadRef(next, v))) return [forbidden('Spec.ObjectRef', "Rollout 'ObjectRef' field is immutable")];
  if (v === 'v1alpha1') {
    if (!jsonEqual(trafficRoutingsOf(old, v), trafficRoutingsOf(next, v))) return [forbidden('Spec.Strategy.Canary.TrafficRoutings', "Rollout 'Strategy.Canary.TrafficRoutings' field is immutable")];
    const style = (o: KubeObject) => (o.metadata.annotations?.[ROLLING_STYLE_ANNOTATION] ?? '').toLowerCase();
    if (style(old) !== style(next)) return [forbidden('Metadata.Annotation', "Rollout 'Rolling-Style' annotation is immutable")];
    return [];
  }
  if (!jsonEqual(trafficRoutingsOf(old, v), trafficRoutingsOf(next, v))) {
    return [forbidden('Spec.Strategy.Canary|BlueGreen.TrafficRoutings', "Rollout 'Strategy.Canary|BlueGreen.TrafficRoutings' field is immutable")];
  }
  if (rollingStyle(old) !== rollingStyle(next)) return [forbidden('Spec.Strategy.Canary|BlueGreen', 'Rollout style and enableExtraWorkloadForCanary are immutable')];
  // forbid adding or removing steps during rollout so that the code can be simpler
  if (stepCount(old) !== stepCount(next)) return [forbidden('Spec.Strategy.Canary|BlueGreen', 'Amount of Rollout steps are immutable')];
  return [];
}

/** apimachinery's Error() of one field error. */
export function rolloutFieldErrorText(e: RolloutFieldError): string {
  return e.type === 'Invalid' ? `${e.field}: Invalid value: ${e.shown ?? 'null'}: ${e.detail}` : `${e.field}: Forbidden: ${e.detail}`;
}

/**
 * The message kube-apiserver returns for the webhook's denial: `admission webhook "vrollout.kb.io" denied the
 * request: ` and the aggregate of the errors (one as is, several as `[a, b]`: utilerrors.NewAggregate).
 */
export function rolloutWebhookDenial(errors: readonly RolloutFieldError[]): string {
  const texts = errors.map(rolloutFieldErrorText);
  return `admission webhook "vrollout.kb.io" denied the request: ${texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`}`;
}
