// Advanced StatefulSet controller rules (kruise-semantics §2.4, §8), pure:
// - `readAdvancedStatefulSetSpec(obj)`: the fields the controller needs (v1alpha1/v1beta1 share them).
// - `keptOrdinals(...)`: which active ordinals stay at the old revision (pods counted since v1.8,
//   an ordinal threshold before).
// - `planAdvancedStatefulSetSync(input)`: one reconcile step: create missing ordinals (in order for
//   OrderedReady), delete condemned ones (highest first), or update pods highest ordinal first
//   within maxUnavailable.
// - `advancedStatefulSetStatus(input)`: the status Kruise writes (incl. updatedReadyReplicas).
// - `validateAdvancedStatefulSet(obj, old?)`, `advancedStatefulSetDefaults(obj)`: the webhook.
import { parseIntOrPercent, scaledValueFromIntOrPercent } from '../intstr';
import { activeOrdinals, advancedStatefulSetMaxUnavailable, explainAdvancedStatefulSetPartition, InvalidValueError, parseReserveOrdinals } from '../partition';
import type { KubeObject } from '../types';
import { labelSelectorMatches, type LabelSelector } from '../selectors';
import type { FieldError } from './cloneset-webhook';
import { countPodStates, type UpdatePolicy } from './cloneset';
import { DEFAULT_REVISION_HISTORY_LIMIT } from './revisions';

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

  let unavailable = input.active.filter((o) => !live.get(o)?.available).length;
  const candidates = input.active
    .filter((o) => !input.kept.has(o))
    .map((o) => live.get(o)!)
    .filter((p) => !p.updated)
    .sort((a, b) => b.ordinal - a.ordinal);
  for (const p of candidates) {
    if (!p.available) {
      step.update.push(p.name);
      continue;
    }
    if (unavailable >= input.maxUnavailable) break;
    unavailable++;
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
  pods: Array<{ updated: boolean; current: boolean; ready: boolean; available: boolean }>;
}

export function advancedStatefulSetStatus(input: AstsStatusInput): Record<string, unknown> {
  const { ready, available, updated, updatedReady, updatedAvailable } = countPodStates(input.pods);
  const current = input.pods.filter((p) => p.current).length;
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

/** Kruise's Advanced StatefulSet validating webhook (the rules of §8 and the enum fields). */
export function validateAdvancedStatefulSet(obj: KubeObject, old?: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const raw = (obj.spec ?? {}) as Record<string, unknown>;
  const spec = readAdvancedStatefulSetSpec(obj);
  const ru = 'spec.updateStrategy.rollingUpdate';
  if (typeof raw.replicas === 'number' && raw.replicas < 0) {
    errors.push({ type: 'Invalid', field: 'spec.replicas', value: raw.replicas, detail: 'must be greater than or equal to 0' });
  }
  if (raw.podManagementPolicy !== undefined && raw.podManagementPolicy !== 'OrderedReady' && raw.podManagementPolicy !== 'Parallel') {
    errors.push({ type: 'NotSupported', field: 'spec.podManagementPolicy', value: raw.podManagementPolicy, detail: 'supported values: "OrderedReady", "Parallel"' });
  }
  const type = (raw.updateStrategy as { type?: string } | undefined)?.type;
  if (type !== undefined && type !== 'RollingUpdate' && type !== 'OnDelete') {
    errors.push({ type: 'NotSupported', field: 'spec.updateStrategy.type', value: type, detail: 'supported values: "OnDelete", "RollingUpdate"' });
  }
  if (!['ReCreate', 'InPlaceIfPossible', 'InPlaceOnly'].includes(spec.podUpdatePolicy)) {
    errors.push({ type: 'NotSupported', field: `${ru}.podUpdatePolicy`, value: spec.podUpdatePolicy, detail: 'supported values: "ReCreate", "InPlaceIfPossible", "InPlaceOnly"' });
  }
  if (spec.partition !== undefined && spec.partition !== null) {
    if (typeof spec.partition !== 'number' || !Number.isInteger(spec.partition)) {
      errors.push({ type: 'Invalid', field: `${ru}.partition`, value: spec.partition, detail: 'must be an integer' });
    } else if (spec.partition < 0) {
      errors.push({ type: 'Invalid', field: `${ru}.partition`, value: spec.partition, detail: 'must be greater than or equal to 0' });
    }
  }
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    const mu = spec.maxUnavailable;
    let isOne = mu === 1;
    if (typeof mu === 'number' && mu < 1) {
      errors.push({ type: 'Invalid', field: `${ru}.maxUnavailable`, value: mu, detail: 'must be greater than or equal to 1' });
    } else if (typeof mu === 'string') {
      const p = parseIntOrPercent(mu);
      if (!p.ok || p.value.kind !== 'percent' || !/^[0-9]+%$/.test(mu)) {
        errors.push({ type: 'Invalid', field: `${ru}.maxUnavailable`, value: mu, detail: 'must be an integer or a percentage like "20%"' });
      } else if (p.value.percent > 100 || scaledValueFromIntOrPercent(mu, spec.replicas, false) < 1) {
        errors.push({ type: 'Invalid', field: `${ru}.maxUnavailable`, value: mu, detail: 'must be greater than or equal to 1 after scaling and at most 100%' });
      } else {
        try {
          isOne = advancedStatefulSetMaxUnavailable(mu, spec.replicas).value === 1;
        } catch {
          isOne = false;
        }
      }
    }
    if (!isOne && !spec.parallel && errors.length === 0) {
      errors.push({ type: 'Invalid', field: `${ru}.maxUnavailable`, value: mu, detail: 'maxUnavailable can only be 1 unless podManagementPolicy is Parallel' });
    }
  }
  try {
    parseReserveOrdinals(spec.reserveOrdinals);
  } catch (e) {
    if (!(e instanceof InvalidValueError)) throw e;
    errors.push({ type: 'Invalid', field: 'spec.reserveOrdinals', value: e.value, detail: e.reason });
  }
  if (spec.minReadySeconds < 0 || spec.minReadySeconds > 300) {
    errors.push({ type: 'Invalid', field: `${ru}.minReadySeconds`, value: spec.minReadySeconds, detail: 'must be between 0 and 300' });
  }
  if (!spec.selector) errors.push({ type: 'Required', field: 'spec.selector', detail: '' });
  else {
    const labels = ((spec.template.metadata ?? {}) as { labels?: Record<string, string> }).labels ?? {};
    if (!labelSelectorMatches(spec.selector, labels)) {
      errors.push({ type: 'Invalid', field: 'spec.template.metadata.labels', value: labels, detail: '`selector` does not match template `labels`' });
    }
  }
  if (old) {
    const before = readAdvancedStatefulSetSpec(old);
    if (JSON.stringify(before.selector ?? null) !== JSON.stringify(spec.selector ?? null)) {
      errors.push({ type: 'Forbidden', field: 'spec', detail: "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'revisionHistoryLimit' and 'minReadySeconds' are forbidden" });
    }
  }
  return errors;
}

/** Kruise's SetDefaultsStatefulSet for the fields the sandbox uses. */
export function advancedStatefulSetDefaults(obj: KubeObject): KubeObject {
  const out = structuredClone(obj);
  const spec = (out.spec ??= {}) as Record<string, unknown>;
  if (spec.replicas === undefined) spec.replicas = 1;
  if (spec.revisionHistoryLimit === undefined) spec.revisionHistoryLimit = DEFAULT_REVISION_HISTORY_LIMIT;
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
