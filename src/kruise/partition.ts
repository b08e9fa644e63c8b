// Partition and rolling-limit arithmetic of every workload kind (kruise-semantics §2.2–§2.5),
// with a named explanation of which rule fired. The single implementation used by the sandbox
// controllers, `rollout status` and `explain partition`.
//
// CloneSet:             partitionReplicas, explainCloneSetPartition, cloneSetExpectedUpdatedReplicas,
//                       cloneSetRollingLimits (maxUnavailable/maxSurge as the controller reads them)
// Advanced StatefulSet: explainAdvancedStatefulSetPartition, advancedStatefulSetMaxUnavailable,
//                       parseReserveOrdinals, activeOrdinals, ordinalOfPod, advancedStatefulSetUpdateOrder
// Advanced DaemonSet:   explainAdvancedDaemonSetPartition, daemonSetRollingLimits, daemonSetNodesToUpdate
// StatefulSet (apps/v1): explainStatefulSetOrdinalPartition, statefulSetMaxUnavailable
// Deployment:           deploymentRollingLimits (no partition)
// All kinds:            explainPartition (the report behind `explain partition`)
//
// Invalid input throws `InvalidValueError` (field + value + reason); callers map it to their exit code.
import {
  formatDecimal,
  IntOrPercentError,
  legacyScaledValue,
  parseIntOrPercent,
  parserDisagreement,
  scaleIntOrPercent,
  type IntOrString,
  type ScaledValue,
} from './intstr';

/** An invalid spec value, e.g. partition "99" (no %), a negative partition, a string ASTS partition. */
export class InvalidValueError extends Error {
  constructor(
    readonly field: string,
    readonly value: unknown,
    readonly reason: string,
  ) {
    super(value === undefined ? `missing ${field}: ${reason}` : `invalid ${field} ${JSON.stringify(value)}: ${reason}`);
    this.name = 'InvalidValueError';
  }
}

/** One rule that fired, in order. `text` is a full sentence; `chain` the short form for the arrow line. */
export interface ArithmeticStep {
  rule: string;
  text: string;
  chain: string;
}

export interface PartitionExplanation {
  /** Replicas used (spec.replicas, default 1; desiredNumberScheduled for DaemonSets). */
  replicas: number;
  partition: IntOrString | undefined;
  /** Pods kept at the old revision. */
  partitionReplicas: number;
  /** Pods expected at the new revision: replicas − partitionReplicas. */
  expectedUpdatedReplicas: number;
  steps: ArithmeticStep[];
  warnings: string[];
}

export interface RollingLimits {
  maxUnavailable: number;
  maxSurge: number;
  steps: ArithmeticStep[];
  warnings: string[];
}

const step = (rule: string, text: string, chain: string): ArithmeticStep => ({ rule, text, chain });

function scaleOrThrow(field: string, value: unknown, total: number, roundUp: boolean): ScaledValue {
  const r = scaleIntOrPercent(value, total, roundUp);
  if (!r.ok) throw new InvalidValueError(field, value, r.error.reason);
  return r.value;
}

function describeScaling(field: string, s: ScaledValue, total: number, unit: string): ArithmeticStep {
  if (s.parsed.kind === 'int') return step('integer', `${field} ${s.value} is an absolute number of ${unit}`, '');
  const exact = formatDecimal(s.exact);
  if (s.rounding === 'none') {
    return step('scaled', `scaled ${s.parsed.text} of ${countOf(total, unit)} = ${exact}`, exact);
  }
  const dir = s.rounding === 'up' ? 'up' : 'down';
  return step(
    s.rounding === 'up' ? 'scaled-round-up' : 'scaled-round-down',
    `scaled ${s.parsed.text} of ${countOf(total, unit)} = ${exact}, rounded ${dir} to ${s.value}`,
    `${exact} → rounded ${dir} to ${s.value}`,
  );
}

function replicasOrDefault(replicas: number | undefined, steps: ArithmeticStep[]): number {
  if (replicas === undefined || replicas === null) {
    steps.push(step('replicas-default', 'replicas unset: Kruise treats it as 1', 'replicas unset = 1'));
    return 1;
  }
  if (!Number.isInteger(replicas) || replicas < 0) throw new InvalidValueError('replicas', replicas, 'must be an integer ≥ 0');
  return replicas;
}

/** `1 replica`, `3 replicas`, `1 scheduled node`: a count with its unit (given in the plural) agreeing. */
export function countOf(n: number, pluralUnit: string): string {
  return `${n} ${n === 1 ? pluralUnit.replace(/s$/, '') : pluralUnit}`;
}

function clampSteps(value: number, replicas: number, steps: ArithmeticStep[], unit = 'replicas'): number {
  if (value > replicas) {
    steps.push(step('clamped-to-replicas', `${value} is more than the ${countOf(replicas, unit)}: clamped to ${replicas}`, `clamped to ${unit} ${replicas}`));
    return replicas;
  }
  if (value < 0) {
    steps.push(step('clamped-to-zero', `${value} is negative: clamped to 0`, 'clamped to 0'));
    return 0;
  }
  return value;
}

function keptStep(kept: number, expected: number): ArithmeticStep {
  return step(
    'result',
    `${kept} ${kept === 1 ? 'pod stays' : 'pods stay'} at the old revision, expectedUpdatedReplicas ${expected}`,
    `${countOf(kept, 'pods')} ${kept === 1 ? 'stays' : 'stay'} at the old revision → expectedUpdatedReplicas ${expected}`,
  );
}

/** Closes an explanation: `kept` of `replicas` stay old, the rest is expected at the new revision. */
function keptResult(replicas: number, partition: IntOrString | undefined, kept: number, steps: ArithmeticStep[], warnings: string[] = []): PartitionExplanation {
  steps.push(keptStep(kept, replicas - kept));
  return { replicas, partition, partitionReplicas: kept, expectedUpdatedReplicas: replicas - kept, steps, warnings };
}

/** The explanation without a partition: nothing is kept old (`text` says so in the kind's words). */
function noPartition(replicas: number, steps: ArithmeticStep[], text: string): PartitionExplanation {
  steps.push(step('no-partition', text, 'no partition'));
  return keptResult(replicas, undefined, 0, steps);
}

/** StatefulSet kinds type the partition as int32: anything else is refused with the kind's reason. */
function integerPartition(partition: unknown, notIntegerReason: string): number {
  if (typeof partition !== 'number' || !Number.isInteger(partition)) throw new InvalidValueError('partition', partition, notIntegerReason);
  if (partition < 0) throw new InvalidValueError('partition', partition, 'must be ≥ 0');
  return partition;
}

function partitionWarnings(field: string, value: unknown, total: number, roundUp: boolean): string[] {
  const w = parserDisagreement(field, value, total, roundUp);
  return w ? [w] : [];
}

// ───────────────────────────── CloneSet ─────────────────────────────

/**
 * CloneSet partition → pods kept at the old revision (Kruise's CalculatePartitionReplicas, v1.2+):
 * no partition → 0; replicas unset → 1; scale rounding up; a string other than exactly "100%" that
 * scales to replicas (> 1) keeps replicas − 1; clamp to [0, replicas].
 */
export function explainCloneSetPartition(partition: unknown, replicasIn: number | undefined): PartitionExplanation {
  const steps: ArithmeticStep[] = [];
  const replicas = replicasOrDefault(replicasIn, steps);
  if (partition === undefined || partition === null) {
    return noPartition(replicas, steps, 'no partition: every pod is updated');
  }
  const scaled = scaleOrThrow('partition', partition, replicas, true);
  steps.push(describeScaling('partition', scaled, replicas, 'replicas'));
  let kept = scaled.value;
  if (replicas > 1 && kept === replicas && typeof partition === 'string' && partition !== '100%') {
    kept = replicas - 1;
    steps.push(
      step(
        'at-least-one-updated',
        `a percentage below 100% must update at least one pod (Kruise v1.2+): ${kept} kept`,
        'a percentage below 100% updates at least one pod',
      ),
    );
  }
  kept = clampSteps(kept, replicas, steps);
  const warnings = partitionWarnings('partition', partition, replicas, true);
  if (typeof partition === 'number' && partition < 0) warnings.push(`partition ${partition} is negative: the webhook rejects it`);
  return keptResult(replicas, partition as IntOrString, kept, steps, warnings);
}

/** CloneSet pods kept at the old revision. Throws InvalidValueError on an unreadable partition. */
export function partitionReplicas(partition: unknown, replicas: number | undefined): number {
  return explainCloneSetPartition(partition, replicas).partitionReplicas;
}

/**
 * CloneSet status.expectedUpdatedReplicas: spec.replicas − partitionReplicas, under OnDelete too
 * (cloneset_status.go calculateStatus reads the partition whatever the strategy type).
 */
export function cloneSetExpectedUpdatedReplicas(partition: unknown, replicas: number | undefined): number {
  return (replicas ?? 1) - partitionReplicas(partition, replicas);
}

export interface CloneSetRollingInput {
  replicas: number | undefined;
  maxUnavailable?: unknown;
  maxSurge?: unknown;
  paused?: boolean;
}

/**
 * CloneSet maxUnavailable / maxSurge as the controller applies them (§2.3): maxSurge scaled rounding
 * up (0 while paused); maxUnavailable (default "20%") rounding up when maxSurge is 0, down otherwise.
 * The controller reads both with the legacy parser, so the numbers here are the legacy ones and a
 * warning says when Kruise's parser disagrees. Throws when neither parser can read a value, or when
 * (replicas > 0) both scale below 1 — the webhook rejects that.
 */
export function cloneSetRollingLimits(input: CloneSetRollingInput): RollingLimits {
  const steps: ArithmeticStep[] = [];
  const warnings: string[] = [];
  const replicas = input.replicas ?? 1;
  const surgeRaw = input.maxSurge ?? 0;
  const unavailRaw = input.maxUnavailable ?? '20%';

  const surge = controllerValue('maxSurge', surgeRaw, replicas, true, warnings);
  let maxSurge = surge.value;
  if (surge.unreadable) {
    steps.push(step('maxSurge', `maxSurge ${String(surgeRaw)}: not a whole percentage, the controller's parser fails and uses 0`, 'maxSurge 0'));
  } else steps.push(describeLimit('maxSurge', surgeRaw, input.maxSurge === undefined, maxSurge, surge.exact, replicas, 'up'));
  if (input.paused && maxSurge !== 0) {
    maxSurge = 0;
    steps.push(step('surge-paused', 'paused: maxSurge is 0 while paused', 'paused → maxSurge 0'));
  }
  const roundUp = maxSurge === 0;
  const unavail = controllerValue('maxUnavailable', unavailRaw, replicas, roundUp, warnings);
  const maxUnavailable = unavail.value;
  if (unavail.unreadable) {
    steps.push(step('maxUnavailable', `maxUnavailable ${String(unavailRaw)}: not a whole percentage, the controller's parser fails and uses 0`, 'maxUnavailable 0'));
  } else steps.push(
    describeLimit(
      'maxUnavailable',
      unavailRaw,
      input.maxUnavailable === undefined,
      maxUnavailable,
      unavail.exact,
      replicas,
      roundUp ? 'up' : 'down',
      roundUp ? 'rounded up because maxSurge is 0' : 'rounded down because maxSurge > 0',
    ),
  );

  if (replicas > 0) {
    // The webhook judges with its own parser (round up for maxSurge; maxUnavailable as above).
    const hookSurge = webhookValue(surgeRaw, replicas, true) ?? maxSurge;
    const hookUnavail = webhookValue(unavailRaw, replicas, hookSurge === 0) ?? maxUnavailable;
    if (hookSurge < 1 && hookUnavail < 1) {
      throw new InvalidValueError(
        'maxUnavailable',
        unavailRaw,
        `maxUnavailable and maxSurge must not both scale below 1 (of ${countOf(replicas, 'replicas')})`,
      );
    }
    if (maxSurge < 1 && maxUnavailable < 1 && !input.paused) {
      warnings.push('the controller reads both maxUnavailable and maxSurge as 0: no pod can be updated, the rollout will not progress');
    }
  }
  return { maxUnavailable, maxSurge, steps, warnings };
}

function webhookValue(value: unknown, total: number, roundUp: boolean): number | undefined {
  const r = scaleIntOrPercent(value, total, roundUp);
  return r.ok ? r.value.value : undefined;
}

function controllerValue(field: string, value: unknown, total: number, roundUp: boolean, warnings: string[]): { value: number; exact: number; unreadable: boolean } {
  const legacy = legacyScaledValue(value, total, roundUp);
  const kruise = scaleIntOrPercent(value, total, roundUp);
  if (legacy.error && !kruise.ok) throw new InvalidValueError(field, value, kruise.error.reason);
  if (typeof value === 'number' && value < 0) throw new InvalidValueError(field, value, 'must be ≥ 0');
  if (kruise.ok && kruise.value.exact < 0) throw new InvalidValueError(field, value, 'must be ≥ 0');
  const w = parserDisagreement(field, value, total, roundUp);
  if (w) warnings.push(w);
  const exact = legacy.error ? 0 : typeof value === 'string' ? (Number(value.split('%').join('')) * total) / 100 : legacy.value;
  return { value: legacy.value, exact, unreadable: Boolean(legacy.error) };
}

function describeLimit(
  field: string,
  raw: unknown,
  isDefault: boolean,
  value: number,
  exact: number,
  total: number,
  dir: 'up' | 'down',
  why?: string,
): ArithmeticStep {
  const origin = `${field} ${String(raw)}${isDefault ? ' (default)' : ''}`;
  if (typeof raw === 'number') return step(field, raw === value ? origin : `${origin} → ${value}`, `${field} ${value}`);
  const rounded = exact === value ? `= ${formatDecimal(exact)}` : `= ${formatDecimal(exact)}, rounded ${dir} to ${value}`;
  return step(field, `${origin} of ${total} ${rounded}${why && exact !== value ? ` (${why})` : ''}`, `${field} ${value}`);
}

// ───────────────────────── Advanced StatefulSet ─────────────────────────

/**
 * Advanced StatefulSet (v1.8+): the partition is an integer number of pods kept at the old revision
 * (default 0), clamped to [0, replicas]. A string is invalid (the CRD types it as int32).
 */
export function explainAdvancedStatefulSetPartition(partitionIn: unknown, replicasIn: number | undefined): PartitionExplanation {
  const steps: ArithmeticStep[] = [];
  const replicas = replicasOrDefault(replicasIn, steps);
  if (partitionIn === undefined || partitionIn === null) {
    return noPartition(replicas, steps, 'no partition (default 0): every pod is updated');
  }
  const partition = integerPartition(partitionIn, 'an Advanced StatefulSet partition must be an integer (no percentages)');
  steps.push(
    step('asts-count', `partition ${partition} counts pods kept at the old revision (Advanced StatefulSet since v1.8), highest ordinals update first`, 'counts pods (not ordinals)'),
  );
  return keptResult(replicas, partition, clampSteps(partition, replicas, steps), steps);
}

const ASTS_PERCENT = /^[0-9]+%$/;

/** ASTS maxUnavailable: int or whole percentage, default 1, scaled rounding down, at least 1. */
export function advancedStatefulSetMaxUnavailable(maxUnavailable: unknown, replicas: number): { value: number; steps: ArithmeticStep[] } {
  const raw = maxUnavailable ?? 1;
  if (typeof raw === 'string' && !ASTS_PERCENT.test(raw)) {
    throw new InvalidValueError('maxUnavailable', raw, 'an Advanced StatefulSet maxUnavailable must be an integer or a whole percentage like "20%"');
  }
  if (typeof raw === 'number' && raw < 0) throw new InvalidValueError('maxUnavailable', raw, 'must be ≥ 0');
  const s = scaleOrThrow('maxUnavailable', raw, replicas, false);
  const steps = [describeLimit('maxUnavailable', raw, maxUnavailable === undefined, s.value, s.exact, replicas, 'down')];
  let value = s.value;
  if (value < 1) {
    value = 1;
    steps.push(step('asts-min-one', 'maxUnavailable is at least 1 for an Advanced StatefulSet', 'at least 1'));
  }
  return { value, steps };
}

/** Parses spec.reserveOrdinals (ints ≥ 0 or "a-b" ranges with a ≤ b) into a set. Throws on bad entries. */
export function parseReserveOrdinals(list: unknown): Set<number> {
  const out = new Set<number>();
  if (list === undefined || list === null) return out;
  if (!Array.isArray(list)) throw new InvalidValueError('reserveOrdinals', list, 'must be a list');
  for (const item of list) {
    if (typeof item === 'number') {
      if (!Number.isInteger(item) || item < 0) throw new InvalidValueError('reserveOrdinals', item, 'ordinals must be integers ≥ 0');
      out.add(item);
      continue;
    }
    const m = typeof item === 'string' ? /^(\d+)-(\d+)$/.exec(item) ?? /^(\d+)$/.exec(item) : null;
    if (!m) throw new InvalidValueError('reserveOrdinals', item, 'expected an integer or a range "a-b"');
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (a > b) throw new InvalidValueError('reserveOrdinals', item, 'a range "a-b" needs a ≤ b');
    for (let i = a; i <= b; i++) out.add(i);
  }
  return out;
}

/** The pod ordinal from `<set>-<ordinal>`, or undefined when the name does not belong to the set. */
export function ordinalOfPod(setName: string, podName: string): number | undefined {
  if (!podName.startsWith(`${setName}-`)) return undefined;
  const rest = podName.slice(setName.length + 1);
  return /^\d+$/.test(rest) ? Number(rest) : undefined;
}

/** The first `replicas` ordinals from `start` that are not reserved (ascending). */
export function activeOrdinals(replicas: number, start = 0, reserveOrdinals: unknown = undefined): number[] {
  const reserved = reserveOrdinals instanceof Set ? (reserveOrdinals as Set<number>) : parseReserveOrdinals(reserveOrdinals);
  const out: number[] = [];
  for (let o = start; out.length < replicas; o++) if (!reserved.has(o)) out.push(o);
  return out;
}

/**
 * Which ordinals an Advanced StatefulSet updates (in update order: highest first) and which it keeps
 * at the old revision (the lowest `partitionReplicas` active ordinals).
 */
export function advancedStatefulSetUpdateOrder(opts: {
  replicas: number;
  partitionReplicas: number;
  start?: number;
  reserveOrdinals?: unknown;
}): { updated: number[]; kept: number[] } {
  const active = activeOrdinals(opts.replicas, opts.start ?? 0, opts.reserveOrdinals);
  const keptCount = Math.max(0, Math.min(opts.partitionReplicas, active.length));
  return { kept: active.slice(0, keptCount), updated: active.slice(keptCount).reverse() };
}

// ───────────────────────── StatefulSet (apps/v1) ─────────────────────────

/**
 * Native StatefulSet: the partition is an ordinal; pods with ordinal ≥ partition are updated.
 * Converted here to "pods kept at the old revision" over ordinals [start, start+replicas).
 */
export function explainStatefulSetOrdinalPartition(partitionIn: unknown, replicasIn: number | undefined, start = 0): PartitionExplanation {
  const steps: ArithmeticStep[] = [];
  const replicas = replicasOrDefault(replicasIn, steps);
  if (partitionIn === undefined || partitionIn === null) {
    return noPartition(replicas, steps, 'no partition (default 0): every pod is updated');
  }
  const partition = integerPartition(partitionIn, 'a StatefulSet partition is an ordinal (an integer)');
  const kept = Math.max(0, Math.min(partition - start, replicas));
  const last = start + replicas - 1;
  steps.push(
    step(
      'ordinal',
      `partition ${partition} is an ordinal: pods with ordinal ≥ ${partition} are updated (ordinals ${start}..${last})`,
      `ordinals ≥ ${partition} update`,
    ),
  );
  return keptResult(replicas, partition, kept, steps);
}

/** apps/v1 StatefulSet maxUnavailable (MaxUnavailableStatefulSet gate): default 1, rounding up, at least 1. */
export function statefulSetMaxUnavailable(maxUnavailable: unknown, replicas: number): number {
  const v = scaledOrInvalid('maxUnavailable', maxUnavailable ?? 1, replicas, true);
  return Math.max(1, v);
}

// ───────────────────────── DaemonSets ─────────────────────────

/**
 * Advanced DaemonSet partition: nodes kept at the old revision, scaled against
 * desiredNumberScheduled rounding down (int-or-percent since v1.9; int only up to v1.8).
 */
/** kube's IsValidPercent: the only percentages Kubernetes' own int-or-percent parser reads. */
const WHOLE_PERCENT = /^[0-9]+%$/;
const WHOLE_PERCENT_REASON = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

export function explainAdvancedDaemonSetPartition(partition: unknown, desiredNumberScheduled: number | undefined): PartitionExplanation {
  const steps: ArithmeticStep[] = [];
  const nodes = desiredNumberScheduled ?? 0;
  if (partition === undefined || partition === null) {
    return noPartition(nodes, steps, 'no partition: every node is updated');
  }
  const scaled = scaleOrThrow('partition', partition, nodes, false);
  if (scaled.exact < 0) throw new InvalidValueError('partition', partition, 'must be ≥ 0');
  // Unlike CloneSet's parser, the DaemonSet webhook (ValidatePositiveIntOrPercent) and controller
  // (filterDaemonPodsNodeToUpdate: apimachinery's GetScaledValueFromIntOrPercent) read whole percentages only.
  if (scaled.parsed.kind === 'percent' && !WHOLE_PERCENT.test(scaled.parsed.text)) throw new InvalidValueError('partition', partition, WHOLE_PERCENT_REASON);
  if (scaled.parsed.kind === 'percent' && scaled.parsed.percent > 100) throw new InvalidValueError('partition', partition, 'must be at most 100%');
  steps.push(describeScaling('partition', scaled, nodes, 'scheduled nodes'));
  const warnings: string[] = [];
  if (typeof partition === 'string') warnings.push('a percentage partition on an Advanced DaemonSet needs Kruise v1.9 or later (up to v1.8 it is an integer)');
  const kept = clampSteps(scaled.value, nodes, steps, 'scheduled nodes');
  steps.push(
    step('ads-order', 'nodes are updated in descending node-name order', 'descending node names'),
  );
  return keptResult(nodes, partition as IntOrString, kept, steps, warnings);
}

/**
 * DaemonSet (Advanced and apps/v1) maxUnavailable / maxSurge: scaled against desiredNumberScheduled
 * rounding up, defaults 1 / 0; when both end up 0 the controller falls back to maxUnavailable 1.
 */
export function daemonSetRollingLimits(input: { desiredNumberScheduled: number; maxUnavailable?: unknown; maxSurge?: unknown; advanced?: boolean }): RollingLimits {
  const steps: ArithmeticStep[] = [];
  const warnings: string[] = [];
  const nodes = input.desiredNumberScheduled;
  const unavailRaw = input.maxUnavailable ?? 1;
  const surgeRaw = input.maxSurge ?? 0;
  for (const [field, raw] of [['maxUnavailable', unavailRaw], ['maxSurge', surgeRaw]] as const) {
    if (typeof raw === 'string') {
      const p = parseIntOrPercent(raw);
      if (p.ok && p.value.kind === 'percent' && p.value.percent > 100) throw new InvalidValueError(field, raw, 'must be at most 100%');
    }
  }
  const unavail = scaleOrThrow('maxUnavailable', unavailRaw, nodes, true);
  const surge = scaleOrThrow('maxSurge', surgeRaw, nodes, true);
  if (unavail.exact < 0) throw new InvalidValueError('maxUnavailable', unavailRaw, 'must be ≥ 0');
  if (surge.exact < 0) throw new InvalidValueError('maxSurge', surgeRaw, 'must be ≥ 0');
  if (input.advanced && isNonZero(unavailRaw) && isNonZero(surgeRaw)) {
    throw new InvalidValueError('maxSurge', surgeRaw, 'maxUnavailable and maxSurge are mutually exclusive for an Advanced DaemonSet (one must be 0)');
  }
  steps.push(describeLimit('maxUnavailable', unavailRaw, input.maxUnavailable === undefined, unavail.value, unavail.exact, nodes, 'up'));
  steps.push(describeLimit('maxSurge', surgeRaw, input.maxSurge === undefined, surge.value, surge.exact, nodes, 'up'));
  let maxUnavailable = unavail.value;
  if (nodes > 0 && maxUnavailable === 0 && surge.value === 0) {
    maxUnavailable = 1;
    steps.push(step('ds-fallback', 'both maxUnavailable and maxSurge are 0: the DaemonSet controller falls back to maxUnavailable 1', 'fallback maxUnavailable 1'));
  }
  return { maxUnavailable, maxSurge: surge.value, steps, warnings };
}

function isNegative(v: unknown): boolean {
  if (typeof v === 'number') return v < 0;
  const p = parseIntOrPercent(v);
  return p.ok && p.value.kind === 'percent' && p.value.percent < 0;
}

function isNonZero(v: unknown): boolean {
  if (typeof v === 'number') return v !== 0;
  const p = parseIntOrPercent(v);
  return p.ok && p.value.kind === 'percent' ? p.value.percent !== 0 : true;
}

/** The order in which an Advanced DaemonSet updates nodes: node names descending. */
export function byNodeNameDescending(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}

/** Nodes an Advanced DaemonSet updates (descending node-name order, at most nodes − partition) and keeps. */
export function daemonSetNodesToUpdate(nodeNames: string[], partitionReplicas: number): { updated: string[]; kept: string[] } {
  const sorted = [...nodeNames].sort(byNodeNameDescending);
  const n = Math.max(0, sorted.length - Math.max(0, partitionReplicas));
  return { updated: sorted.slice(0, n), kept: sorted.slice(n) };
}

// ───────────────────────── Deployment ─────────────────────────

/** Deployment maxUnavailable (default 25%, rounding down) / maxSurge (default 25%, rounding up); both 0 → unavailable 1. */
export function deploymentRollingLimits(input: { replicas: number | undefined; maxUnavailable?: unknown; maxSurge?: unknown }): RollingLimits {
  const replicas = input.replicas ?? 1;
  const steps: ArithmeticStep[] = [];
  const surgeRaw = input.maxSurge ?? '25%';
  const unavailRaw = input.maxUnavailable ?? '25%';
  const surge = scaleOrThrow('maxSurge', surgeRaw, replicas, true);
  const unavail = scaleOrThrow('maxUnavailable', unavailRaw, replicas, false);
  steps.push(describeLimit('maxSurge', surgeRaw, input.maxSurge === undefined, surge.value, surge.exact, replicas, 'up'));
  steps.push(describeLimit('maxUnavailable', unavailRaw, input.maxUnavailable === undefined, unavail.value, unavail.exact, replicas, 'down'));
  let maxUnavailable = unavail.value;
  if (maxUnavailable === 0 && surge.value === 0) {
    maxUnavailable = 1;
    steps.push(step('deploy-fallback', 'both scale to 0: the Deployment controller uses maxUnavailable 1', 'fallback maxUnavailable 1'));
  }
  return { maxUnavailable, maxSurge: surge.value, steps, warnings: [] };
}

function scaledOrInvalid(field: string, value: unknown, total: number, roundUp: boolean): number {
  try {
    return scaleOrThrow(field, value, total, roundUp).value;
  } catch (e) {
    if (e instanceof IntOrPercentError) throw new InvalidValueError(field, value, e.reason);
    throw e;
  }
}

// ───────────────────────── All kinds: the explain report ─────────────────────────

export type PartitionKind = 'cloneset' | 'asts' | 'ads' | 'statefulset' | 'sidecarset';

export interface PartitionInput {
  kind: PartitionKind;
  /** spec.replicas (CloneSet/ASTS/StatefulSet; undefined = 1) or desiredNumberScheduled (ADS). */
  replicas?: number;
  partition?: unknown;
  maxUnavailable?: unknown;
  maxSurge?: unknown;
  paused?: boolean;
  /**
   * Type OnDelete: nothing is rolled. An ASTS then expects every replica; a CloneSet's status still
   * counts the partition (calculateStatus), so its expectedUpdatedReplicas stays replicas − partition.
   */
  onDelete?: boolean;
  /** ASTS / StatefulSet spec.ordinals.start. */
  ordinalsStart?: number;
  /** ASTS spec.reserveOrdinals. */
  reserveOrdinals?: unknown;
}

/** What `explain partition -o json` prints (minus `plan`). */
export interface PartitionReport {
  kind: PartitionKind;
  replicas: number;
  partition: IntOrString | null;
  partitionReplicas: number;
  expectedUpdatedReplicas: number;
  maxUnavailable: number;
  maxSurge: number;
  rules: string[];
  warnings: string[];
  /** Short segments for the human arrow line ("7.2 → rounded up to 8", ...). */
  chain: string[];
  /** ASTS/StatefulSet: ordinals updated (update order) and kept. */
  ordinals?: { updated: number[]; kept: number[] };
}

/** Full arithmetic of one workload's partition and rolling limits, with the rules that fired. Throws InvalidValueError. */
export function explainPartition(input: PartitionInput): PartitionReport {
  let part: PartitionExplanation;
  let limits: RollingLimits;
  let ordinals: { updated: number[]; kept: number[] } | undefined;
  switch (input.kind) {
    case 'cloneset': {
      if (isNegative(input.partition)) throw new InvalidValueError('partition', input.partition, 'must be ≥ 0');
      part = explainCloneSetPartition(input.partition, input.replicas);
      limits = cloneSetRollingLimits({ replicas: part.replicas, maxUnavailable: input.maxUnavailable, maxSurge: input.maxSurge, paused: input.paused });
      break;
    }
    case 'asts': {
      part = explainAdvancedStatefulSetPartition(input.partition, input.replicas);
      const mu = advancedStatefulSetMaxUnavailable(input.maxUnavailable, part.replicas);
      if (input.maxSurge !== undefined && input.maxSurge !== null) {
        throw new InvalidValueError('maxSurge', input.maxSurge, 'an Advanced StatefulSet has no maxSurge');
      }
      limits = { maxUnavailable: mu.value, maxSurge: 0, steps: mu.steps, warnings: [] };
      ordinals = advancedStatefulSetUpdateOrder({
        replicas: part.replicas,
        partitionReplicas: part.partitionReplicas,
        start: input.ordinalsStart,
        reserveOrdinals: input.reserveOrdinals,
      });
      break;
    }
    case 'ads': {
      if (input.replicas === undefined) {
        throw new InvalidValueError('replicas', undefined, 'an Advanced DaemonSet needs the number of scheduled nodes (--replicas = desiredNumberScheduled)');
      }
      part = explainAdvancedDaemonSetPartition(input.partition, input.replicas);
      limits = daemonSetRollingLimits({ desiredNumberScheduled: part.replicas, maxUnavailable: input.maxUnavailable, maxSurge: input.maxSurge, advanced: true });
      break;
    }
    case 'statefulset': {
      const start = input.ordinalsStart ?? 0;
      part = explainStatefulSetOrdinalPartition(input.partition, input.replicas, start);
      if (input.maxSurge !== undefined && input.maxSurge !== null) {
        throw new InvalidValueError('maxSurge', input.maxSurge, 'a StatefulSet has no maxSurge');
      }
      const mu = statefulSetMaxUnavailable(input.maxUnavailable, part.replicas);
      limits = { maxUnavailable: mu, maxSurge: 0, steps: [step('maxUnavailable', `maxUnavailable ${mu}`, `maxUnavailable ${mu}`)], warnings: [] };
      const all = Array.from({ length: part.replicas }, (_, i) => start + i);
      const keptCount = part.partitionReplicas;
      ordinals = { kept: all.slice(0, keptCount), updated: all.slice(keptCount).reverse() };
      break;
    }
    case 'sidecarset': {
      // sidecarset_strategy.go calculateUpgradeCount: CalculatePartitionReplicas over the matched pods
      // (CloneSet's rule), maxUnavailable GetValueFromIntOrPercent(roundUp) with default 1; no surge.
      if (isNegative(input.partition)) throw new InvalidValueError('partition', input.partition, 'must be ≥ 0');
      part = explainCloneSetPartition(input.partition, input.replicas);
      part.steps.unshift(step('sidecarset-matched', 'a SidecarSet counts its partition against the pods it matched (status.matchedPods), not a replicas field', ''));
      if (input.maxSurge !== undefined && input.maxSurge !== null) {
        throw new InvalidValueError('maxSurge', input.maxSurge, 'a SidecarSet has no maxSurge: sidecars are upgraded in place');
      }
      const mu = input.maxUnavailable === undefined || input.maxUnavailable === null ? undefined : scaleOrThrow('maxUnavailable', input.maxUnavailable, part.replicas, true);
      const muValue = mu ? mu.value : 1;
      const muSteps = mu
        ? [describeScaling('maxUnavailable', mu, part.replicas, 'matched pods'), step('maxUnavailable', `maxUnavailable ${muValue}: at most ${muValue} upgraded pods not ready at once (pods already not ready do not count)`, '')]
        : [step('maxUnavailable-default', 'maxUnavailable unset: 1 (the SidecarSet default)', '')];
      limits = { maxUnavailable: muValue, maxSurge: 0, steps: muSteps, warnings: [] };
      break;
    }
    default:
      throw new InvalidValueError('kind', (input as { kind: unknown }).kind, 'expected cloneset, asts, ads, statefulset or sidecarset');
  }
  const steps = [...part.steps];
  let expected = part.expectedUpdatedReplicas;
  if (input.onDelete && input.kind === 'cloneset') {
    steps.push(step('on-delete', `updateStrategy OnDelete: pods update only when deleted; Kruise still writes expectedUpdatedReplicas = replicas − partition (${expected})`, 'OnDelete'));
  } else if (input.onDelete) {
    expected = part.replicas;
    steps.push(step('on-delete', `updateStrategy OnDelete: pods update only when deleted, expectedUpdatedReplicas = replicas (${expected})`, `OnDelete → expectedUpdatedReplicas ${expected}`));
  }
  const limitSteps = limits.steps;
  return {
    kind: input.kind,
    replicas: part.replicas,
    partition: part.partition ?? null,
    partitionReplicas: part.partitionReplicas,
    expectedUpdatedReplicas: expected,
    maxUnavailable: limits.maxUnavailable,
    maxSurge: limits.maxSurge,
    rules: [...steps, ...limitSteps].map((s) => s.text),
    warnings: [...part.warnings, ...limits.warnings],
    chain: steps.map((s) => s.chain).filter((c) => c !== ''),
    ...(ordinals ? { ordinals } : {}),
  };
}
