// Advanced DaemonSet controller rules (kruise-semantics §2.5, §8), pure:
// - `readAdvancedDaemonSetSpec(obj)`: the fields the controller needs (v1alpha1/v1beta1 share them).
// - `nodeShouldRunDaemonPod(template, node)`: nodeSelector and required node affinity of the template.
// - `nodesAllowedToUpdate(...)`: Kruise's filterDaemonPodsNodeToUpdate: descending node names,
//   already-updated nodes first, then the rollingUpdate.selector matches, capped at nodes − partition.
// - `planAdvancedDaemonSetSync(input)`: one step: place/remove daemon pods, else roll (maxUnavailable,
//   maxSurge, in place for InPlaceIfPossible).
// - `advancedDaemonSetStatus(input)`: desiredNumberScheduled ... and daemonSetHash/updateRevision.
// - `validateAdvancedDaemonSet(obj)`, `advancedDaemonSetDefaults(obj)`: the webhook.
import { byNodeNameDescending, explainAdvancedDaemonSetPartition } from '../partition';
import type { KubeObject } from '../types';
import type { LabelSelector } from '../selectors';
import type { FieldError } from './cloneset-webhook';
import { DEFAULT_REVISION_HISTORY_LIMIT } from './revisions';
import { nodeRequirementMatches, podSpecFitsNode } from './node-affinity';
import { intOrPercentValue, isNotMoreThan100Percent, validatePositiveIntOrPercent } from './intstr-validation';

type Selector = LabelSelector;

export interface AdvancedDaemonSetSpecView {
  selector?: Selector;
  template: Record<string, unknown>;
  rollingUpdate: boolean;
  /** Standard (also the deprecated Surging) or InPlaceIfPossible. */
  inPlace: boolean;
  maxUnavailable?: unknown;
  maxSurge?: unknown;
  nodeSelector?: Selector;
  partition?: unknown;
  paused: boolean;
  minReadySeconds: number;
  revisionHistoryLimit: number;
}

export function readAdvancedDaemonSetSpec(obj: KubeObject): AdvancedDaemonSetSpecView {
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const us = (spec.updateStrategy ?? {}) as { type?: string; rollingUpdate?: Record<string, unknown> };
  const ru = us.rollingUpdate ?? {};
  return {
    selector: spec.selector as Selector | undefined,
    template: (spec.template ?? {}) as Record<string, unknown>,
    rollingUpdate: us.type !== 'OnDelete',
    inPlace: ru.rollingUpdateType === 'InPlaceIfPossible',
    maxUnavailable: ru.maxUnavailable,
    maxSurge: ru.maxSurge,
    nodeSelector: ru.selector as Selector | undefined,
    partition: ru.partition,
    paused: ru.paused === true,
    minReadySeconds: typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0,
    revisionHistoryLimit: typeof spec.revisionHistoryLimit === 'number' ? spec.revisionHistoryLimit : DEFAULT_REVISION_HISTORY_LIMIT,
  };
}

// Unlike labelSelectorMatches in ../selectors, this reads a LabelSelector with the node-affinity
// operator rules (Gt/Lt understood, an unknown operator matches nothing), since it shares
// the node-affinity requirement rules with nodeShouldRunDaemonPod. Same results for every valid LabelSelector.
function daemonSelectorMatches(sel: Selector | undefined, labels: Record<string, string> | undefined): boolean {
  if (!sel) return false;
  const l = labels ?? {};
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) if (!nodeRequirementMatches(e, l)) return false;
  return true;
}


/** Whether a daemon pod of this template belongs on the node (nodeSelector + required node affinity). */
export function nodeShouldRunDaemonPod(template: Record<string, unknown>, node: KubeObject): boolean {
  return podSpecFitsNode((template.spec ?? {}) as Record<string, unknown>, node);
}

/**
 * Nodes kept at the old revision by the partition (int ≤ v1.8; int-or-percent rounding down since v1.9).
 * A partition Kruise cannot read ("12.5%") keeps every node: filterDaemonPodsNodeToUpdate returns its
 * error and the rolling update stops there.
 */
export function advancedDaemonSetPartitionNodes(partition: unknown, nodes: number): number {
  if (partition === undefined || partition === null) return 0;
  try {
    return explainAdvancedDaemonSetPartition(partition, nodes).partitionReplicas;
  } catch {
    return nodes;
  }
}

/**
 * Kruise's filterDaemonPodsNodeToUpdate: nodes (with daemon pods) in descending name order,
 * nodes already updated first, then (with a rollingUpdate selector) only matching nodes,
 * at most `nodes − partition` of them.
 */
export function nodesAllowedToUpdate(
  nodes: Array<{ name: string; labels: Record<string, string>; hasUpdatedPod: boolean }>,
  partition: number,
  selector: Selector | undefined,
): string[] {
  const sorted = [...nodes].sort((a, b) => byNodeNameDescending(a.name, b.name));
  const updated = sorted.filter((n) => n.hasUpdatedPod).map((n) => n.name);
  const rest = sorted.filter((n) => !n.hasUpdatedPod && (!selector || daemonSelectorMatches(selector, n.labels))).map((n) => n.name);
  const max = nodes.length - partition;
  if (max <= 0) return [];
  return [...updated, ...rest].slice(0, max);
}

export interface AdsPlannedPod {
  name: string;
  updated: boolean;
  available: boolean;
  terminating: boolean;
}

export interface AdsNodePlan {
  node: string;
  shouldRun: boolean;
  pods: AdsPlannedPod[];
}

export interface AdsSyncInput {
  nodes: AdsNodePlan[];
  allowedToUpdate: Set<string>;
  rollingUpdate: boolean;
  paused: boolean;
  inPlace: boolean;
  maxUnavailable: number;
  maxSurge: number;
}

export interface AdsSyncStep {
  /** Nodes that get a new pod at the update revision. */
  create: string[];
  delete: string[];
  /** Old pods to update (in place when possible, else recreated by deleting them). */
  update: string[];
}

/** One reconcile step (kube's DaemonSet manage + rollingUpdate, with Kruise's partition/selector/in-place). */
export function planAdvancedDaemonSetSync(input: AdsSyncInput): AdsSyncStep {
  const step: AdsSyncStep = { create: [], delete: [], update: [] };
  for (const n of input.nodes) {
    const live = n.pods.filter((p) => !p.terminating);
    if (n.shouldRun && live.length === 0 && !n.pods.some((p) => p.terminating)) step.create.push(n.node);
    if (!n.shouldRun) step.delete.push(...live.map((p) => p.name));
    // more than one pod and no surge in progress: keep the updated (or oldest) one
    if (n.shouldRun && live.length > 1 && !(live.some((p) => p.updated) && live.some((p) => !p.updated))) {
      step.delete.push(...live.slice(1).map((p) => p.name));
    }
  }
  if (step.create.length > 0 || step.delete.length > 0) return step;
  if (!input.rollingUpdate || input.paused) return step;

  let unavailable = 0;
  let surging = 0;
  const running = input.nodes.filter((n) => n.shouldRun);
  for (const n of running) {
    const live = n.pods.filter((p) => !p.terminating);
    const fresh = live.find((p) => p.updated);
    const old = live.find((p) => !p.updated);
    if (fresh && old) surging++;
    if (fresh ? !fresh.available : !old?.available) unavailable++;
  }
  const surge = input.inPlace ? 0 : input.maxSurge;
  for (const n of running) {
    if (!input.allowedToUpdate.has(n.node)) continue;
    const live = n.pods.filter((p) => !p.terminating);
    const fresh = live.find((p) => p.updated);
    const old = live.find((p) => !p.updated);
    if (!old) continue;
    if (surge > 0) {
      if (fresh) {
        if (fresh.available) step.delete.push(old.name);
      } else if (!old.available) {
        step.delete.push(old.name);
      } else if (surging < surge) {
        surging++;
        step.create.push(n.node);
      }
      continue;
    }
    if (!old.available) {
      step.update.push(old.name);
    } else if (unavailable < input.maxUnavailable) {
      unavailable++;
      step.update.push(old.name);
    }
  }
  return step;
}

/** One daemon pod as the status counts it. */
export interface AdsStatusPod {
  name: string;
  /** RFC 3339 creationTimestamp (orders the node's pods, oldest first). */
  creationTimestamp?: string;
  /** Whether the pod has a spec.nodeName (scheduled pods sort first). */
  scheduled: boolean;
  updated: boolean;
  ready: boolean;
  available: boolean;
}

export interface AdsStatusInput {
  generation: number;
  hash: string;
  beta: boolean;
  collisionCount: number;
  nodes: Array<{ shouldRun: boolean; pods: AdsStatusPod[] }>;
}

/**
 * Kruise's podByCreationTimestampAndPhase (daemonset_controller.go): scheduled pods first, then
 * oldest creationTimestamp, then name.
 */
export function compareDaemonPods(a: AdsStatusPod, b: AdsStatusPod): number {
  if (a.scheduled !== b.scheduled) return a.scheduled ? -1 : 1;
  const ta = Date.parse(a.creationTimestamp ?? '');
  const tb = Date.parse(b.creationTimestamp ?? '');
  const sa = Number.isNaN(ta) ? 0 : Math.floor(ta / 1000);
  const sb = Number.isNaN(tb) ? 0 : Math.floor(tb / 1000);
  // metav1.Time has whole seconds on the wire: equal seconds fall back to the name
  if (sa !== sb) return sa - sb;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Kruise's updateDaemonSetStatus (daemonset_controller.go): a node counts as ready, available and
 * updated by its OLDEST pod only, so a surge pod of the new revision does not make a node
 * updated while the old pod still runs (and a crashlooping surge pod never does).
 */
export function advancedDaemonSetStatus(input: AdsStatusInput): Record<string, unknown> {
  let desired = 0;
  let current = 0;
  let misscheduled = 0;
  let ready = 0;
  let updated = 0;
  let available = 0;
  for (const n of input.nodes) {
    if (!n.shouldRun) {
      if (n.pods.length > 0) misscheduled++;
      continue;
    }
    desired++;
    if (n.pods.length === 0) continue;
    current++;
    const oldest = [...n.pods].sort(compareDaemonPods)[0]!;
    if (oldest.ready) {
      ready++;
      if (oldest.available) available++;
    }
    if (oldest.updated) updated++;
  }
  const status: Record<string, unknown> = {
    observedGeneration: input.generation,
    desiredNumberScheduled: desired,
    currentNumberScheduled: current,
    numberMisscheduled: misscheduled,
    numberReady: ready,
    updatedNumberScheduled: updated,
    numberAvailable: available,
    numberUnavailable: desired - available,
    collisionCount: input.collisionCount,
  };
  // the short hash: `daemonSetHash` in v1alpha1, `updateRevision` in v1beta1 (§2.5)
  status[input.beta ? 'updateRevision' : 'daemonSetHash'] = input.hash;
  return status;
}

/**
 * Kruise's validateRollingUpdateDaemonSet (pkg/webhook/daemonset/validating/daemonset_validation.go):
 * a value counts as set when getIntOrPercentValue is not 0 (so a non-integer percent like "12.5%"
 * counts as 0 and is never parsed), exactly one of maxUnavailable/maxSurge must be set, no surge
 * for InPlaceIfPossible, no maxUnavailable for the deprecated Surging type. Kruise's own field
 * paths for the type and partition repeat `rollingUpdate` (fldPath.Child("rollingUpdate") on the
 * rollingUpdate path); they are reproduced as its webhook words them.
 */
function validateRollingUpdateDaemonSet(ru: Record<string, unknown>, kruise: string): FieldError[] {
  const path = 'spec.updateStrategy.rollingUpdate';
  const errors: FieldError[] = [];
  const mu = ru.maxUnavailable;
  const ms = ru.maxSurge;
  const hasUnavailable = mu !== undefined && mu !== null && intOrPercentValue(mu) !== 0;
  const hasSurge = ms !== undefined && ms !== null && intOrPercentValue(ms) !== 0;
  if (hasUnavailable) errors.push(...validatePositiveIntOrPercent(`${path}.maxUnavailable`, mu), ...isNotMoreThan100Percent(`${path}.maxUnavailable`, mu));
  if (hasSurge) errors.push(...validatePositiveIntOrPercent(`${path}.maxSurge`, ms), ...isNotMoreThan100Percent(`${path}.maxSurge`, ms));
  if (hasUnavailable && hasSurge) errors.push({ type: 'Invalid', field: `${path}.maxSurge`, value: ms, detail: 'may not be set when maxUnavailable is non-zero' });
  if (!hasUnavailable && !hasSurge) errors.push({ type: 'Required', field: `${path}.maxUnavailable`, detail: 'cannot be 0 when maxSurge is 0' });
  const t = ru.rollingUpdateType;
  if (t === 'InPlaceIfPossible') {
    if (hasSurge) errors.push({ type: 'Required', field: `${path}.maxSurge`, detail: 'must be 0 for InPlaceIfPossible type' });
  } else if (t === 'Surging') {
    if (hasUnavailable) errors.push({ type: 'Required', field: `${path}.maxUnavailable`, detail: 'must be 0 for Surging type' });
  } else if (t !== undefined && t !== '' && t !== 'Standard') {
    errors.push({ type: 'NotSupported', field: `${path}.rollingUpdate.type`, value: t, detail: 'supported values: "Standard", "Surging", "InPlaceIfPossible"' });
  }
  const partition = ru.partition;
  if (partition !== undefined && partition !== null) {
    const field = `${path}.rollingUpdate.partition`;
    if (typeof partition === 'string' && (kruise === 'v1.3' || kruise === 'v1.8')) {
      // an int32 before v1.9: the CRD's type rejects a string
      errors.push({ type: 'Invalid', field: `${path}.partition`, value: partition, detail: 'must be an integer' });
    } else if (typeof partition === 'string') {
      errors.push(...validatePositiveIntOrPercent(field, partition), ...isNotMoreThan100Percent(field, partition));
    } else if (typeof partition === 'number' && partition < 0) {
      errors.push({ type: 'Invalid', field, value: partition, detail: 'must be greater than or equal to 0' });
    }
  }
  return errors;
}

/** Kruise's Advanced DaemonSet validating webhook (§8), run on the defaulted object. */
export function validateAdvancedDaemonSet(obj: KubeObject, kruise: string): FieldError[] {
  const errors: FieldError[] = [];
  const spec = readAdvancedDaemonSetSpec(obj);
  const raw = (obj.spec ?? {}) as Record<string, unknown>;
  const us = (raw.updateStrategy ?? {}) as { type?: unknown; rollingUpdate?: Record<string, unknown> };
  if (us.type === 'RollingUpdate') {
    if (!us.rollingUpdate) errors.push({ type: 'Required', field: 'spec.updateStrategy.rollingUpdate', detail: '' });
    else errors.push(...validateRollingUpdateDaemonSet(us.rollingUpdate, kruise));
  } else if (us.type !== 'OnDelete') {
    errors.push({ type: 'NotSupported', field: 'spec.updateStrategy', value: us, detail: 'supported values: "RollingUpdate", "OnDelete"' });
  }
  if (typeof raw.minReadySeconds === 'number' && raw.minReadySeconds < 0) {
    errors.push({ type: 'Invalid', field: 'spec.minReadySeconds', value: raw.minReadySeconds, detail: 'must be greater than or equal to 0' });
  }
  if (!spec.selector) errors.push({ type: 'Required', field: 'spec.selector', detail: '' });
  else {
    const labels = ((spec.template.metadata ?? {}) as { labels?: Record<string, string> }).labels ?? {};
    if (!daemonSelectorMatches(spec.selector, labels)) {
      errors.push({ type: 'Invalid', field: 'spec.template.metadata.labels', value: labels, detail: '`selector` does not match template `labels`' });
    }
    if (Object.keys(spec.selector.matchLabels ?? {}).length + (spec.selector.matchExpressions ?? []).length === 0) {
      errors.push({ type: 'Invalid', field: 'spec.selector', value: spec.selector, detail: 'empty selector is invalid for daemonset' });
    }
  }
  return errors;
}

/** Kruise's SetDefaultsDaemonSet for the fields the sandbox uses. */
export function advancedDaemonSetDefaults(obj: KubeObject): KubeObject {
  const out = structuredClone(obj);
  const spec = (out.spec ??= {}) as Record<string, unknown>;
  if (spec.revisionHistoryLimit === undefined) spec.revisionHistoryLimit = DEFAULT_REVISION_HISTORY_LIMIT;
  const us = (spec.updateStrategy ??= {}) as Record<string, unknown>;
  if (!us.type) us.type = 'RollingUpdate';
  if (us.type === 'RollingUpdate') {
    const ru = (us.rollingUpdate ??= {}) as Record<string, unknown>;
    // the deprecated Surging type becomes Standard with a surge of 1 (SetDefaultsDaemonSet)
    if (ru.rollingUpdateType === 'Surging') {
      if (ru.maxSurge === undefined) ru.maxSurge = 1;
      if (ru.maxUnavailable === undefined) ru.maxUnavailable = 0;
    }
    if (!ru.rollingUpdateType || ru.rollingUpdateType === 'Surging') ru.rollingUpdateType = 'Standard';
    if (ru.maxUnavailable === undefined && ru.maxSurge === undefined) ru.maxUnavailable = 1;
    if (ru.maxSurge === undefined) ru.maxSurge = 0;
    if (ru.maxUnavailable === undefined) ru.maxUnavailable = 0;
    if (ru.partition === undefined) ru.partition = 0;
  }
  return out;
}
