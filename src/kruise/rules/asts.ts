// Advanced StatefulSet controller rules (kruise-semantics §2.4, §8), pure:
// - `readAdvancedStatefulSetSpec(obj)`: the fields the controller needs (v1alpha1/v1beta1 share them).
// - `keptOrdinals(...)`: which active ordinals stay at the old revision (pods counted since v1.8,
//   an ordinal threshold before).
// - `planAdvancedStatefulSetSync(input)`: one reconcile step: create missing ordinals (in order for
//   OrderedReady), delete condemned ones (highest first), or update pods highest ordinal first
//   within maxUnavailable.
// - `advancedStatefulSetStatus(input)`: the status Kruise writes (incl. updatedReadyReplicas).
// - `validateAdvancedStatefulSet(obj, old?)`, `advancedStatefulSetDefaults(obj)`: the webhook.
import { activeOrdinals, explainAdvancedStatefulSetPartition } from '../partition';
import type { KubeObject } from '../types';
import { labelSelectorMatches, type LabelSelector } from '../selectors';
import { forbiddenSpecChanges, type FieldError } from './cloneset-webhook';
import { validatePositiveIntOrPercent, valueFromIntOrPercent } from './intstr-validation';
import { countPodStates, type UpdatePolicy } from './cloneset';
import { DEFAULT_REVISION_HISTORY_LIMIT } from './revisions';
import { injectTemplateDefaults } from './pod-defaults';

export interface AdvancedStatefulSetSpecView {
  replicas: number;
  selector?: LabelSelector;
  template: Record<string, unknown>;
  serviceName?: string;
  parallel: boolean;
  rollingUpdate: boolean;
  partition?: unknown;
  maxUnavailable?: unknown;
  podUpdatePolicy: Exclude<UpdatePolicy, 'OnDelete'>;
  paused: boolean;
  minReadySeconds: number;
  ordinalsStart: number;
  reserveOrdinals?: unknown;
  revisionHistoryLimit: number;
  volumeClaimTemplates: Array<{ metadata?: { name?: string } }>;
}

export function readAdvancedStatefulSetSpec(obj: KubeObject): AdvancedStatefulSetSpecView {
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const us = (spec.updateStrategy ?? {}) as { type?: string; rollingUpdate?: Record<string, unknown> };
  const ru = us.rollingUpdate ?? {};
  const num = (v: unknown, d: number) => (typeof v === 'number' ? v : d);
  return {
    replicas: num(spec.replicas, 1),
    selector: spec.selector as AdvancedStatefulSetSpecView['selector'],
    template: (spec.template ?? {}) as Record<string, unknown>,
    serviceName: spec.serviceName as string | undefined,
    parallel: spec.podManagementPolicy === 'Parallel',
    rollingUpdate: us.type !== 'OnDelete',
    partition: ru.partition,
    maxUnavailable: ru.maxUnavailable,
    podUpdatePolicy: (ru.podUpdatePolicy as AdvancedStatefulSetSpecView['podUpdatePolicy']) || 'ReCreate',
    paused: ru.paused === true,
    minReadySeconds: num(ru.minReadySeconds, 0),
    ordinalsStart: num((spec.ordinals as { start?: number } | undefined)?.start, 0),
    reserveOrdinals: spec.reserveOrdinals,
    revisionHistoryLimit: num(spec.revisionHistoryLimit, DEFAULT_REVISION_HISTORY_LIMIT),
    volumeClaimTemplates: (spec.volumeClaimTemplates ?? []) as AdvancedStatefulSetSpecView['volumeClaimTemplates'],
  };
}

/**
 * Kruise's getStartOrdinal (pkg/controller/statefulset/stateful_set_control.go): spec.ordinals.start
 * counts only with the StatefulSetStartOrdinal feature gate (Alpha, off by default); otherwise 0.
 */
export function withStartOrdinal(spec: AdvancedStatefulSetSpecView, startOrdinalGate: boolean): AdvancedStatefulSetSpecView {
  return startOrdinalGate ? spec : { ...spec, ordinalsStart: 0 };
}

/** The pod ordinal from `<set>-<ordinal>` (one implementation, next to the other ordinal rules). */
export { ordinalOfPod } from '../partition';

/**
 * Active ordinals kept at the old revision. Since v1.8 the partition counts pods (the lowest
 * `partition` active ordinals stay); before, it is an ordinal (ordinals below it stay).
 */
export function keptOrdinals(active: number[], partition: unknown, countsPods: boolean): Set<number> {
  const p = typeof partition === 'number' && partition > 0 ? partition : 0;
  if (!countsPods) return new Set(active.filter((o) => o < p));
  let kept = 0;
  try {
    kept = explainAdvancedStatefulSetPartition(partition, active.length).partitionReplicas;
  } catch {
    kept = 0; // the webhook rejects unreadable partitions
  }
  return new Set(active.slice(0, kept));
}

export interface AstsPlannedPod {
  name: string;
  ordinal: number;
  updated: boolean;
  runningAndReady: boolean;
  available: boolean;
  terminating: boolean;
  /** Labelled apps.kruise.io/specified-delete (any value; Kruise v1.8+ deletes and recreates it). */
  specifiedDelete?: boolean;
}

export interface AstsSyncInput {
  active: number[];
  kept: Set<number>;
  parallel: boolean;
  rollingUpdate: boolean;
  paused: boolean;
  maxUnavailable: number;
  pods: AstsPlannedPod[];
}

export interface AstsSyncStep {
  create: Array<{ ordinal: number; atUpdateRevision: boolean }>;
  delete: string[];
  update: string[];
}

/** One reconcile step of an Advanced StatefulSet (kube's StatefulSet algorithm with Kruise's partition/maxUnavailable). */
export function planAdvancedStatefulSetSync(input: AstsSyncInput): AstsSyncStep {
  const step: AstsSyncStep = { create: [], delete: [], update: [] };
  const activeSet = new Set(input.active);
  const live = new Map<number, AstsPlannedPod>();
  const terminating = new Set<number>();
  for (const p of input.pods) {
    if (p.terminating) terminating.add(p.ordinal);
    else live.set(p.ordinal, p);
  }
  let waiting = false;
  for (const ord of input.active) {
    const pod = live.get(ord);
    if (!pod) {
      if (terminating.has(ord)) {
        if (!input.parallel) {
          waiting = true;
          break;
        }
        continue;
      }
      step.create.push({ ordinal: ord, atUpdateRevision: !input.kept.has(ord) });
      if (!input.parallel) {
        waiting = true;
        break;
      }
      continue;
    }
    if (!input.parallel && !pod.runningAndReady) {
      waiting = true;
      break;
    }
  }
  const condemned = [...live.values()].filter((p) => !activeSet.has(p.ordinal)).sort((a, b) => b.ordinal - a.ordinal);
  if (input.parallel) step.delete.push(...condemned.map((p) => p.name));
  else if (!waiting && condemned.length > 0 && terminating.size === 0) {
    const allReady = [...live.values()].every((p) => p.runningAndReady);
    if (allReady) step.delete.push(condemned[0].name);
    waiting = true;
  }
  if (step.create.length > 0 || step.delete.length > 0 || waiting) return step;
  if (!input.rollingUpdate || input.paused) return step;

  const unavailable = new Set(input.active.filter((o) => !live.get(o)?.available).map((o) => `${o}`));
  // handleSpecifiedDeletedPods (stateful_set_control.go): highest ordinal first, not bound by the
  // partition, within maxUnavailable unless the pod is unavailable already; the scale step recreates it
  // (an ordinal whose pod is still terminating has no live pod: Parallel goes on without it)
  const byOrdinalDesc = input.active
    .map((o) => live.get(o))
    .filter((p): p is AstsPlannedPod => p !== undefined)
    .sort((a, b) => b.ordinal - a.ordinal);
  const specified = new Set<string>();
  for (const p of byOrdinalDesc) {
    if (!p.specifiedDelete) continue;
    if (unavailable.size >= input.maxUnavailable && !unavailable.has(`${p.ordinal}`)) continue;
    specified.add(p.name);
    step.delete.push(p.name);
    unavailable.add(`${p.ordinal}`);
  }
  const candidates = byOrdinalDesc.filter((p) => !input.kept.has(p.ordinal) && !p.updated && !specified.has(p.name));
  for (const p of candidates) {
    if (!p.available) {
      step.update.push(p.name);
      continue;
    }
    if (unavailable.size >= input.maxUnavailable) break;
    unavailable.add(`${p.ordinal}`);
    step.update.push(p.name);
  }
  return step;
}

export interface AstsStatusInput {
  generation: number;
  rollingUpdate: boolean;
  updateRevision: string;
  previousCurrentRevision?: string;
  currentRevisionName: string;
  collisionCount: number;
  labelSelector: string;
  /**
   * Every created pod, terminating ones included (flagged): Kruise's computeReplicaStatus counts
   * them in `replicas` (isCreated) and, while Running and Ready, in ready/available, but not in
   * current/updated replicas.
   */
  pods: Array<{ updated: boolean; current: boolean; ready: boolean; available: boolean; terminating?: boolean }>;
}

export function advancedStatefulSetStatus(input: AstsStatusInput): Record<string, unknown> {
  const alive = input.pods.filter((p) => !p.terminating);
  const { updated } = countPodStates(alive);
  const { ready, available, updatedReady, updatedAvailable } = countPodStates(input.pods);
  const current = alive.filter((p) => p.current).length;
  const replicas = input.pods.length;
  let currentRevision = input.currentRevisionName;
  let currentReplicas = current;
  // kube's completeRollingUpdate
  if (input.rollingUpdate && updated === replicas && ready === replicas) {
    currentRevision = input.updateRevision;
    currentReplicas = updated;
  }
  return {
    observedGeneration: input.generation,
    replicas,
    readyReplicas: ready,
    availableReplicas: available,
    currentReplicas,
    updatedReplicas: updated,
    updatedReadyReplicas: updatedReady,
    updatedAvailableReplicas: updatedAvailable,
    currentRevision,
    updateRevision: input.updateRevision,
    collisionCount: input.collisionCount,
    labelSelector: input.labelSelector,
  };
}

/** Field names Kruise lets an update change (ValidateStatefulSetUpdate), per release. */
const ASTS_UPDATABLE_V13 = ['replicas', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'scaleStrategy', 'reserveOrdinals', 'lifecycle', 'revisionHistoryLimit'];
const ASTS_UPDATABLE = [...ASTS_UPDATABLE_V13, 'volumeClaimTemplates', 'volumeClaimUpdateStrategy', 'ordinals'];
const ASTS_FORBIDDEN_V13 =
  "updates to statefulset spec for fields other than 'replicas', 'template', 'reserveOrdinals', 'lifecycle', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'updateStrategy' are forbidden";
const ASTS_FORBIDDEN =
  "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'reserveOrdinals', 'lifecycle', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', `volumeClaimTemplates`, `VolumeClaimUpdateStrategy` and 'updateStrategy' are forbidden";

/** Kruise's validateMaxUnavailableField (statefulset_validation.go): a positive int or integer percent, ≥ 1 of 1, and only 1 unless Parallel. */
function validateMaxUnavailableField(field: string, mu: unknown, parallel: boolean): FieldError[] {
  const errors = validatePositiveIntOrPercent(field, mu);
  const scaled = valueFromIntOrPercent(mu ?? 1, 1, true);
  if ('error' in scaled) errors.push({ type: 'Invalid', field, value: 0, detail: `getValueFromIntOrPercent error: ${scaled.error}` });
  else if (scaled.value < 1) errors.push({ type: 'Invalid', field, value: scaled.value, detail: 'should not be less than 1' });
  if (!parallel && mu !== 1) errors.push({ type: 'Invalid', field, value: mu, detail: 'can only work with Parallel PodManagementPolicyType' });
  return errors;
}

/**
 * Kruise's validateReserveOrdinals. Since v1.8 items are int-or-string: ints ≥ 0 and "a-b" ranges
 * with a ≤ b (the error names the root `spec`, as Kruise's fldPath.Root() does). v1.3 has a list of
 * ints only (a string fails the CRD's type), without duplicates.
 */
function validateReserveOrdinals(list: unknown, kruise: string): FieldError[] {
  if (!Array.isArray(list) || list.length === 0) return [];
  const errors: FieldError[] = [];
  if (kruise === 'v1.3') {
    list.forEach((v, i) => {
      if (typeof v !== 'number') errors.push({ type: 'Invalid', field: `spec.reserveOrdinals[${i}]`, value: v, detail: `spec.reserveOrdinals[${i}] in body must be of type integer: "${typeof v}"` });
    });
    if (errors.length > 0) return errors;
    if (new Set(list).size !== list.length) errors.push({ type: 'Invalid', field: 'spec', value: list, detail: 'reserveOrdinals contains duplicated items' });
    for (const v of list as number[]) if (v < 0) errors.push({ type: 'Invalid', field: 'spec', value: list, detail: `reserveOrdinals contains ${v} which must be order >= 0` });
    return errors;
  }
  list.forEach((v, i) => {
    if (typeof v === 'string') {
      if (!/^\d+-\d+$/.test(v)) errors.push({ type: 'Invalid', field: 'spec', value: list, detail: `${i} th reserve ordinal is not a valid range: ${v}` });
      const parts = v.split('-');
      const bad =
        parts.length !== 2
          ? `invalid range ${v}`
          : !/^[+-]?\d+$/.test(parts[0])
            ? `strconv.Atoi: parsing "${parts[0]}": invalid syntax`
            : !/^[+-]?\d+$/.test(parts[1])
              ? `strconv.Atoi: parsing "${parts[1]}": invalid syntax`
              : Number(parts[0]) > Number(parts[1])
                ? `invalid range ${v}`
                : undefined;
      if (bad) errors.push({ type: 'Invalid', field: 'spec', value: list, detail: `${i} th reserve ordinal is invalid: ${v}, err = ${bad}` });
    } else if (typeof v === 'number' && v < 0) {
      errors.push({ type: 'Invalid', field: 'spec', value: list, detail: `${i} th reserve ordinal is negative: ${v}` });
    }
  });
  return errors;
}

/**
 * Kruise's validateTemplateInPlaceOnly (statefulset_validation.go): the JSON patch from the old to
 * the new template.spec may only `replace /containers/N/image`. Returns the first other operation
 * as `op /path`, or undefined.
 */
export function firstNonImageChange(before: unknown, after: unknown, path = ''): string | undefined {
  if (JSON.stringify(before) === JSON.stringify(after)) return undefined;
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (Array.isArray(before) && Array.isArray(after)) {
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      if (i >= before.length) return `add ${path}/${i}`;
      if (i >= after.length) return `remove ${path}/${i}`;
      const c = firstNonImageChange(before[i], after[i], `${path}/${i}`);
      if (c) return c;
    }
    return undefined;
  }
  if (isObj(before) && isObj(after)) {
    for (const k of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      if (!(k in after)) return `remove ${path}/${k}`;
      if (!(k in before)) return `add ${path}/${k}`;
      const c = firstNonImageChange(before[k], after[k], `${path}/${k}`);
      if (c) return c;
    }
    return undefined;
  }
  return /^\/containers\/[0-9]+\/image$/.test(path) ? undefined : `replace ${path}`;
}

/**
 * Kruise's Advanced StatefulSet validating webhook (pkg/webhook/statefulset/validating/
 * statefulset_validation.go), run on the defaulted object; `kruise` picks the release's rules.
 */
export function validateAdvancedStatefulSet(obj: KubeObject, old?: KubeObject, kruise = 'v1.9'): FieldError[] {
  const errors: FieldError[] = [];
  const raw = (obj.spec ?? {}) as Record<string, unknown>;
  const spec = readAdvancedStatefulSetSpec(obj);
  const ru = 'spec.updateStrategy.rollingUpdate';
  const pmp = raw.podManagementPolicy;
  if (pmp === undefined || pmp === '') errors.push({ type: 'Required', field: 'spec.podManagementPolicy', detail: '' });
  else if (pmp !== 'OrderedReady' && pmp !== 'Parallel') {
    errors.push({ type: 'Invalid', field: 'spec.podManagementPolicy', value: pmp, detail: "must be 'OrderedReady' or 'Parallel'" });
  }
  errors.push(...validateReserveOrdinals(raw.reserveOrdinals, kruise));
  const scaleMu = (raw.scaleStrategy as { maxUnavailable?: unknown } | undefined)?.maxUnavailable;
  if (scaleMu !== undefined && scaleMu !== null) errors.push(...validateMaxUnavailableField('spec.scaleStrategy.maxUnavailable', scaleMu, spec.parallel));

  const us = (raw.updateStrategy ?? {}) as { type?: unknown; rollingUpdate?: Record<string, unknown> };
  if (us.type === undefined || us.type === '') errors.push({ type: 'Required', field: 'spec.updateStrategy', detail: '' });
  else if (us.type === 'OnDelete') {
    if (us.rollingUpdate) errors.push({ type: 'Invalid', field: `${ru}`, value: us.rollingUpdate, detail: "only allowed for updateStrategy 'RollingUpdate'" });
  } else if (us.type !== 'RollingUpdate') {
    errors.push({ type: 'Invalid', field: 'spec.updateStrategy', value: us, detail: "must be 'RollingUpdate' or 'OnDelete'" });
  } else if (us.rollingUpdate) {
    const r = us.rollingUpdate;
    if (typeof r.partition === 'number' && r.partition < 0) errors.push({ type: 'Invalid', field: `${ru}.partition`, value: r.partition, detail: 'must be greater than or equal to 0' });
    else if (r.partition !== undefined && typeof r.partition !== 'number') errors.push({ type: 'Invalid', field: `${ru}.partition`, value: r.partition, detail: 'must be an integer' });
    if (typeof r.minReadySeconds === 'number') {
      if (r.minReadySeconds < 0) errors.push({ type: 'Invalid', field: `${ru}.minReadySeconds`, value: r.minReadySeconds, detail: 'must be greater than or equal to 0' });
      if (r.minReadySeconds > 300) errors.push({ type: 'Invalid', field: `${ru}.minReadySeconds`, value: r.minReadySeconds, detail: 'must be no more than 300 seconds' });
    }
    if (r.maxUnavailable === undefined || r.maxUnavailable === null) errors.push({ type: 'Required', field: `${ru}.maxUnavailable`, detail: '' });
    else errors.push(...validateMaxUnavailableField(`${ru}.maxUnavailable`, r.maxUnavailable, spec.parallel));
    const pol = r.podUpdatePolicy;
    if (pol === undefined || pol === '') errors.push({ type: 'Required', field: `${ru}.podUpdatePolicy`, detail: '' });
    else if (pol === 'InPlaceIfPossible' || pol === 'InPlaceOnly') {
      const gates = ((spec.template.spec as { readinessGates?: Array<{ conditionType?: string }> } | undefined)?.readinessGates ?? []);
      if (!gates.some((g) => g.conditionType === 'InPlaceUpdateReady')) {
        errors.push({ type: 'Invalid', field: 'spec.template.spec.readinessGates', value: gates, detail: `must contains InPlaceUpdateReady when podUpdatePolicy is ${pol}` });
      }
    } else if (pol !== 'ReCreate') {
      errors.push({ type: 'Invalid', field: `${ru}.podUpdatePolicy`, value: pol, detail: "must be 'ReCreate', InPlaceIfPossible or 'InPlaceOnly'" });
    }
  }
  if (typeof raw.replicas === 'number' && raw.replicas < 0) {
    errors.push({ type: 'Invalid', field: 'spec.replicas', value: raw.replicas, detail: 'must be greater than or equal to 0' });
  }
  if (!spec.selector) errors.push({ type: 'Required', field: 'spec.selector', detail: '' });
  else {
    const empty = Object.keys(spec.selector.matchLabels ?? {}).length === 0 && (spec.selector.matchExpressions ?? []).length === 0;
    if (empty) errors.push({ type: 'Invalid', field: 'spec.selector', value: spec.selector, detail: 'empty selector is invalid for statefulset' });
    const labels = ((spec.template.metadata ?? {}) as { labels?: Record<string, string> }).labels ?? {};
    if (!empty && !labelSelectorMatches(spec.selector, labels)) {
      errors.push({ type: 'Invalid', field: 'spec.template.metadata.labels', value: labels, detail: '`selector` does not match template `labels`' });
    }
  }
  if (old && (us.rollingUpdate as { podUpdatePolicy?: unknown } | undefined)?.podUpdatePolicy === 'InPlaceOnly') {
    const change = firstNonImageChange(
      ((old.spec as { template?: { spec?: unknown } } | undefined)?.template?.spec ?? {}) as unknown,
      ((spec.template.spec ?? {}) as unknown),
    );
    if (change) {
      errors.push({
        type: 'Forbidden',
        field: 'spec.template',
        detail: `invalid template modified with InPlaceOnly strategy: ${change}, currently only image update is allowed for InPlaceOnly`,
      });
    }
  }
  if (old) {
    const v13 = kruise === 'v1.3';
    if (forbiddenSpecChanges(old, obj, v13 ? ASTS_UPDATABLE_V13 : ASTS_UPDATABLE).length > 0) {
      errors.push({ type: 'Forbidden', field: 'spec', detail: v13 ? ASTS_FORBIDDEN_V13 : ASTS_FORBIDDEN });
    }
  }
  return errors;
}

/**
 * Kruise's SetDefaultsStatefulSet for the fields the sandbox uses; with `templateDefaults` (its webhook:
 * on create, and on an update that changes spec.template), the pod and volume claim template defaults.
 */
export function advancedStatefulSetDefaults(obj: KubeObject, templateDefaults = false): KubeObject {
  const out = structuredClone(obj);
  const spec = (out.spec ??= {}) as Record<string, unknown>;
  if (spec.replicas === undefined) spec.replicas = 1;
  if (spec.revisionHistoryLimit === undefined) spec.revisionHistoryLimit = DEFAULT_REVISION_HISTORY_LIMIT;
  if (templateDefaults) injectTemplateDefaults(spec);
  if (!spec.podManagementPolicy) spec.podManagementPolicy = 'OrderedReady';
  const us = (spec.updateStrategy ??= {}) as Record<string, unknown>;
  if (!us.type) us.type = 'RollingUpdate';
  if (us.type === 'RollingUpdate') {
    const ru = (us.rollingUpdate ??= {}) as Record<string, unknown>;
    if (ru.partition === undefined) ru.partition = 0;
    if (ru.maxUnavailable === undefined) ru.maxUnavailable = 1;
    if (!ru.podUpdatePolicy) ru.podUpdatePolicy = 'ReCreate';
  }
  return out;
}

/** Ordinals that must exist: the first `replicas` from `ordinals.start`, skipping reserveOrdinals. */
export function advancedStatefulSetActiveOrdinals(spec: AdvancedStatefulSetSpecView): number[] {
  try {
    return activeOrdinals(spec.replicas, spec.ordinalsStart, spec.reserveOrdinals);
  } catch {
    return activeOrdinals(spec.replicas, spec.ordinalsStart, undefined);
  }
}
