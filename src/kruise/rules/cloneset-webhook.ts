// CloneSet webhook rules (kruise-semantics §8) and defaults, pure so the CLI can check before
// sending and the sandbox can reject like Kruise's webhook does.
// - `FieldError` + `fieldErrorMessage`: a field-path error worded like apimachinery's field.Error
//   (shared by the ASTS/ADS/PPS webhook rules).
// - `validateCloneSet(obj, old?, pods?)`: replicas ≥ 0, partition/maxUnavailable/maxSurge readable and ≥ 0,
//   percentages end in `%`, no maxSurge with InPlaceOnly, progressDeadlineSeconds > minReadySeconds,
//   podsToDelete unique and (newly named ones) existing pods of this CloneSet, selector matches the
//   template, only Kruise's updatable spec fields change, InPlaceOnly updates only change images.
// - `forbiddenSpecChanges(old, obj, updatable)`: whether a spec field outside `updatable` changed.
// - `cloneSetDefaults(obj)`: the defaults Kruise's mutating webhook writes.
import { parseIntOrPercent } from '../intstr';
import { cloneSetRollingLimits, InvalidValueError } from '../partition';
import type { KubeObject } from '../types';
import { labelSelectorMatches } from '../selectors';
import { inPlaceUpdateDecision } from './cloneset-inplace';
import { readCloneSetSpec } from './cloneset';
import { cloneSetRollingPath, isCloneSetV1beta1 } from '../workloads/cloneset-shape';
import { DEFAULT_REVISION_HISTORY_LIMIT } from './revisions';
import { injectTemplateDefaults } from './pod-defaults';

export type FieldErrorType = 'Invalid' | 'Forbidden' | 'Required' | 'Duplicate' | 'NotSupported';

export interface FieldError {
  type: FieldErrorType;
  field: string;
  value?: unknown;
  detail: string;
  /** The value as Go prints it (`[]string{"a"}`, a struct), where JSON would read differently. */
  shown?: string;
}

const REASONS: Record<FieldErrorType, string> = {
  Invalid: 'FieldValueInvalid',
  Forbidden: 'FieldValueForbidden',
  Required: 'FieldValueRequired',
  Duplicate: 'FieldValueDuplicate',
  NotSupported: 'FieldValueNotSupported',
};

/** The `reason` of a kube StatusCause for this error. */
export function fieldErrorReason(e: FieldError): string {
  return REASONS[e.type];
}

/** apimachinery's wording without the field: `Invalid value: -1: must be ...`, `Forbidden: ...`. */
export function fieldErrorMessage(e: FieldError): string {
  switch (e.type) {
    case 'Invalid':
      return `Invalid value: ${e.shown ?? JSON.stringify(e.value)}: ${e.detail}`;
    case 'Duplicate':
      return `Duplicate value: ${e.shown ?? JSON.stringify(e.value)}`;
    case 'NotSupported':
      return `Unsupported value: ${e.shown ?? JSON.stringify(e.value)}: ${e.detail}`;
    case 'Required':
      return `Required value${e.detail ? `: ${e.detail}` : ''}`;
    case 'Forbidden':
      return `Forbidden: ${e.detail}`;
  }
}

/** Where the rolling-update fields live in this shape, as a field path (one shape rule: the adapter's). */
export function cloneSetStrategyPath(obj: KubeObject): string {
  return cloneSetRollingPath(obj).join('.');
}

function checkIntOrPercent(errors: FieldError[], field: string, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  const p = parseIntOrPercent(value);
  if (!p.ok) {
    errors.push({ type: 'Invalid', field, value, detail: p.error.reason });
    return false;
  }
  const negative = p.value.kind === 'int' ? p.value.value < 0 : p.value.percent < 0;
  if (negative) {
    errors.push({ type: 'Invalid', field, value, detail: 'must be greater than or equal to 0' });
    return false;
  }
  return true;
}

function isPositive(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  const p = parseIntOrPercent(value);
  if (!p.ok) return false;
  return p.value.kind === 'int' ? p.value.value > 0 : p.value.percent > 0;
}

/** What the webhook reads of a pod named in podsToDelete (the sandbox answers from its store). */
export interface PodLookupResult {
  terminating: boolean;
  controllerUid?: string;
}
export type PodLookup = (namespace: string | undefined, name: string) => PodLookupResult | undefined;

/** The largest int32: progressDeadlineSeconds at this value means "no deadline" (validation.go, math.MaxInt32). */
const MAX_INT32 = 2147483647;

const CLONESET_UPDATABLE = ['replicas', 'template', 'lifecycle', 'scaleStrategy', 'updateStrategy', 'minReadySeconds', 'progressDeadlineSeconds', 'volumeClaimTemplates', 'revisionHistoryLimit'];
const CLONESET_FORBIDDEN_DETAIL =
  "updates to cloneset spec for fields other than 'replicas', 'template', 'lifecycle', 'scaleStrategy', 'updateStrategy', 'minReadySeconds', 'progressDeadlineSeconds', 'volumeClaimTemplates' and 'revisionHistoryLimit' are forbidden";

/** Whether a spec field other than `updatable` differs between old and new (Kruise's DeepEqual after restoring them). */
export function forbiddenSpecChanges(old: KubeObject, obj: KubeObject, updatable: readonly string[]): string[] {
  const a = (old.spec ?? {}) as Record<string, unknown>;
  const b = (obj.spec ?? {}) as Record<string, unknown>;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => !updatable.includes(k) && JSON.stringify(a[k] ?? null) !== JSON.stringify(b[k] ?? null)).sort();
}

/**
 * Kruise's validateScaleStrategy (pkg/webhook/cloneset/validating/validation.go): duplicates reject
 * the list; otherwise each name not already listed before must be an existing, not terminating pod
 * controlled by this CloneSet (checked only when the caller can look pods up).
 */
function validatePodsToDelete(errors: FieldError[], obj: KubeObject, names: string[], oldNames: string[], pods?: PodLookup): void {
  const field = 'spec.scaleStrategy.podsToDelete';
  const dups = [...new Set(names.filter((n, i) => names.indexOf(n) !== i))].sort();
  if (dups.length > 0) {
    errors.push({ type: 'Invalid', field, value: names, detail: `duplicated items [${dups.join(' ')}]` });
    return;
  }
  if (!pods) return;
  const fresh = [...new Set(names)].filter((n) => !oldNames.includes(n)).sort();
  for (const name of fresh) {
    const pod = pods(obj.metadata.namespace, name);
    if (!pod) errors.push({ type: 'Invalid', field, value: name, detail: `find pod ${name} failed: pods "${name}" not found` });
    else if (pod.terminating) errors.push({ type: 'Invalid', field, value: name, detail: `find pod ${name} already terminating` });
    else if (!pod.controllerUid || pod.controllerUid !== obj.metadata.uid) {
      errors.push({ type: 'Invalid', field, value: name, detail: `find pod ${name} owner is not this CloneSet` });
    }
  }
}

/** Kruise's CloneSet validating webhook, as far as the sandbox and the CLI need it. */
export function validateCloneSet(obj: KubeObject, old?: KubeObject, pods?: PodLookup): FieldError[] {
  const errors: FieldError[] = [];
  const spec = readCloneSetSpec(obj);
  const raw = (obj.spec ?? {}) as Record<string, unknown>;
  const strat = cloneSetStrategyPath(obj);

  if (typeof raw.replicas === 'number' && raw.replicas < 0) {
    errors.push({ type: 'Invalid', field: 'spec.replicas', value: raw.replicas, detail: 'must be greater than or equal to 0' });
  }
  if (!spec.selector) errors.push({ type: 'Required', field: 'spec.selector', detail: '' });
  else {
    const empty = Object.keys(spec.selector.matchLabels ?? {}).length === 0 && (spec.selector.matchExpressions ?? []).length === 0;
    if (empty) errors.push({ type: 'Invalid', field: 'spec.selector', value: spec.selector, detail: 'empty selector is invalid for cloneset' });
    const tplLabels = ((spec.template.metadata ?? {}) as { labels?: Record<string, string> }).labels ?? {};
    if (!empty && !labelSelectorMatches(spec.selector, tplLabels)) {
      errors.push({ type: 'Invalid', field: 'spec.template.metadata.labels', value: tplLabels, detail: '`selector` does not match template `labels`' });
    }
  }
  const containers = ((spec.template.spec ?? {}) as { containers?: unknown[] }).containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    errors.push({ type: 'Required', field: 'spec.template.spec.containers', detail: '' });
  }

  const us = (raw.updateStrategy ?? {}) as { type?: unknown; rollingUpdate?: { podUpdatePolicy?: unknown } };
  const beta = isCloneSetV1beta1(obj);
  const policies = ['ReCreate', 'InPlaceIfPossible', 'InPlaceOnly'];
  if (beta) {
    if (us.type !== undefined && us.type !== 'RollingUpdate' && us.type !== 'OnDelete') {
      errors.push({ type: 'NotSupported', field: 'spec.updateStrategy.type', value: us.type, detail: 'supported values: "RollingUpdate", "OnDelete"' });
    }
    const pol = us.rollingUpdate?.podUpdatePolicy;
    if (pol !== undefined && !policies.includes(String(pol))) {
      errors.push({ type: 'NotSupported', field: `${strat}.podUpdatePolicy`, value: pol, detail: 'supported values: "ReCreate", "InPlaceIfPossible", "InPlaceOnly"' });
    }
  } else if (us.type !== undefined && us.type !== '' && !policies.includes(String(us.type))) {
    errors.push({ type: 'NotSupported', field: 'spec.updateStrategy.type', value: us.type, detail: 'supported values: "ReCreate", "InPlaceIfPossible", "InPlaceOnly"' });
  }

  checkIntOrPercent(errors, `${strat}.partition`, spec.partition);
  const unavailOk = checkIntOrPercent(errors, `${strat}.maxUnavailable`, spec.maxUnavailable);
  const surgeOk = checkIntOrPercent(errors, `${strat}.maxSurge`, spec.maxSurge);
  if (unavailOk && surgeOk) {
    try {
      cloneSetRollingLimits({ replicas: spec.replicas, maxUnavailable: spec.maxUnavailable, maxSurge: spec.maxSurge, paused: false });
    } catch (e) {
      if (!(e instanceof InvalidValueError)) throw e;
      errors.push({ type: 'Invalid', field: `${strat}.${e.field}`, value: e.value, detail: e.reason });
    }
  }
  if (spec.policy === 'InPlaceOnly' && isPositive(spec.maxSurge)) {
    errors.push({ type: 'Invalid', field: `${strat}.maxSurge`, value: spec.maxSurge, detail: 'can not use maxSurge with strategy type InPlaceOnly' });
  }
  validatePodsToDelete(errors, obj, spec.podsToDelete, old ? readCloneSetSpec(old).podsToDelete : [], pods);
  const pds = raw.progressDeadlineSeconds;
  if (typeof pds === 'number') {
    const minReady = typeof raw.minReadySeconds === 'number' ? raw.minReadySeconds : 0;
    if (pds < 0) errors.push({ type: 'Invalid', field: 'spec.progressDeadlineSeconds', value: pds, detail: 'must be greater than or equal to 0' });
    if (pds !== MAX_INT32 && pds <= minReady) {
      errors.push({ type: 'Invalid', field: 'spec.progressDeadlineSeconds', value: pds, detail: 'must be greater than minReadySeconds' });
    }
  }

  if (old) {
    const before = readCloneSetSpec(old);
    if (forbiddenSpecChanges(old, obj, CLONESET_UPDATABLE).length > 0) {
      errors.push({ type: 'Forbidden', field: 'spec', detail: CLONESET_FORBIDDEN_DETAIL });
    }
    // ValidateCloneSetUpdate (cloneset_core.go): only `replace /containers/N/image` in template.spec, whatever
    // the gates: a cpu/memory resize is refused too, even with InPlaceWorkloadVerticalScaling on
    const decision = spec.policy === 'InPlaceOnly' ? inPlaceUpdateDecision(before.template, spec.template, { verticalScaling: false }) : undefined;
    if (decision && !decision.inPlace) {
      const what = decision.reasons.map((r) => `spec.template.${r.replace(/:.*/, '')}`);
      errors.push({
        type: 'Forbidden',
        field: 'spec.template',
        detail: `only allowed to update images in template for InPlaceOnly type (changed: ${what.join(', ') || 'containers'})`,
      });
    }
  }
  return errors;
}

/**
 * Kruise's SetDefaultsCloneSet (v1alpha1) and SetDefaultsCloneSetV1beta1 on the stored shape: replicas,
 * history limit, strategy defaults and, with `templateDefaults` (its webhook: on create, and on an
 * update that changes spec.template), the pod and volume claim template defaults.
 */
export function cloneSetDefaults(obj: KubeObject, templateDefaults = false): KubeObject {
  const out = structuredClone(obj);
  const spec = ((out.spec ??= {}) as Record<string, unknown>);
  if (spec.replicas === undefined) spec.replicas = 1;
  if (spec.revisionHistoryLimit === undefined) spec.revisionHistoryLimit = DEFAULT_REVISION_HISTORY_LIMIT;
  if (templateDefaults) injectTemplateDefaults(spec);
  const us = ((spec.updateStrategy ??= {}) as Record<string, unknown>);
  let target: Record<string, unknown>;
  let policy: unknown;
  if (isCloneSetV1beta1(out)) {
    if (!us.type) us.type = 'RollingUpdate';
    if (us.type === 'OnDelete') return out;
    target = (us.rollingUpdate ??= {}) as Record<string, unknown>;
    if (!target.podUpdatePolicy) target.podUpdatePolicy = 'ReCreate';
    policy = target.podUpdatePolicy;
  } else {
    if (!us.type) us.type = 'ReCreate';
    target = us;
    policy = us.type;
  }
  if (policy === 'InPlaceIfPossible' || policy === 'InPlaceOnly') target.inPlaceUpdateStrategy ??= {};
  if (target.partition === undefined) target.partition = 0;
  if (target.maxUnavailable === undefined) target.maxUnavailable = '20%';
  if (target.maxSurge === undefined) target.maxSurge = 0;
  return out;
}
