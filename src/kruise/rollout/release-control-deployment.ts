// Deployment's batch release control, partition style (openkruise/rollouts v0.6.2: Kruise Rollout's
// default for a Deployment, no extra workload): pkg/controller/batchrelease/control/partitionstyle/
// deployment/control.go, its Workload view (pkg/util/controller_finder.go getAdvancedDeployment) and
// its workload webhook rule (pkg/webhook/workload/mutating/workload_update_handler.go handleDeployment).
// The webhook pauses the Deployment on a new revision and labels the stable ReplicaSet's hash;
// Initialize hands it to Kruise Rollout's deployment controller (paused + Recreate + the
// `rollouts.kruise.io/deployment-strategy` annotation, deployment-partition.ts), whose partition each
// batch raises; Finalize gives it back to the native controller.
import type { IntOrString } from '../intstr';
import type { KubeObject } from '../types';
import { at, intOrStringAt, isObj, numAt, strAt } from '../workloads/access';
import {
  ADVANCED_DEPLOYMENT_CONTROL_LABEL,
  BATCH_RELEASE_CONTROL_ANNOTATION,
  DEPLOYMENT_EXTRA_STATUS_ANNOTATION,
  DEPLOYMENT_STABLE_REVISION_LABEL,
  DEPLOYMENT_STRATEGY_ANNOTATION,
  IN_ROLLOUT_PROGRESSING_ANNOTATION,
  defaultDeploymentStrategy,
  deploymentStrategyOf,
  isUnderRolloutControl,
  newRSReplicasLimit,
  scaledIntOrPercent,
  type AdvancedDeploymentStrategy,
  type RollingUpdateSettings,
} from './deployment-partition';
import { ROLLOUT_ID_LABEL } from './labels';
import {
  isControlledByBatchRelease,
  releaseControlInfo,
  releasePlanOf,
  workloadIdentity,
  type BatchContext,
  type ReleaseControl,
  type RolloutWorkload,
} from './release-workload';
import { compareText } from '../../lib/compare';

const POD_TEMPLATE_HASH = 'pod-template-hash';
const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';

/** A JSON merge patch (RFC 7386) of the workload. */
export type DeploymentPatch = Record<string, unknown>;

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) =>
    isObj(val) && !Array.isArray(val) ? Object.fromEntries(Object.keys(val).sort().map((k) => [k, val[k]])) : val,
  );
}

function withoutHash(template: unknown): unknown {
  if (!isObj(template) || !isObj(template.metadata) || !isObj(template.metadata.labels)) return template;
  const labels = { ...template.metadata.labels };
  delete labels[POD_TEMPLATE_HASH];
  return { ...template, metadata: { ...template.metadata, labels } };
}

/** util.EqualIgnoreHash. */
export function templatesEqualIgnoringHash(a: unknown, b: unknown): boolean {
  return canonical(withoutHash(a)) === canonical(withoutHash(b));
}

/** Nulls, empty objects and empty arrays dropped, recursively (semantic equality of templates). */
function semantic(value: unknown): unknown {
  if (Array.isArray(value)) {
    const out = value.map(semantic).filter((v) => v !== undefined);
    return out.length === 0 ? undefined : out;
  }
  if (value === null) return undefined;
  if (typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const s = semantic(v);
    if (s !== undefined) out[k] = s;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * util.ComputeHash(template, nil): FNV-1a over the template's canonical form, encoded with apimachinery's
 * vowel-free alphabet, the way the sandbox's Deployment controller names its ReplicaSets, so that (as on a
 * cluster) it equals the new ReplicaSet's pod-template-hash when there was no name collision.
 */
export function templateRevisionHash(template: unknown): string {
  const text = canonical(semantic(withoutHash(template)) ?? {});
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return [...String(h >>> 0)].map((ch) => alphabet[ch.charCodeAt(0) % alphabet.length]).join('');
}

function revisionOf(rs: KubeObject): number {
  const n = Number.parseInt(rs.metadata.annotations?.[REVISION_ANNOTATION] ?? '', 10);
  return Number.isNaN(n) ? 0 : n;
}

/** ReplicaSets controlled by the Deployment (by owner uid), not being deleted. */
export function ownedReplicaSets(d: KubeObject, all: readonly KubeObject[]): KubeObject[] {
  return all.filter((rs) => !rs.metadata.deletionTimestamp && (rs.metadata.ownerReferences ?? []).some((o) => o.controller && o.uid === d.metadata.uid));
}

/**
 * util.FindCanaryAndStableReplicaSet: by revision (then creation), the ReplicaSet of the current
 * template, and the first other one that still has replicas.
 */
export function canaryAndStableReplicaSets(d: KubeObject, replicaSets: readonly KubeObject[]): { canary?: KubeObject; stable?: KubeObject } {
  const sorted = [...replicaSets].sort(
    (a, b) => revisionOf(a) - revisionOf(b) || compareText(String(a.metadata.creationTimestamp ?? ''), String(b.metadata.creationTimestamp ?? '')),
  );
  let canary: KubeObject | undefined;
  let stable: KubeObject | undefined;
  for (const rs of sorted) {
    if (templatesEqualIgnoringHash(at(rs, 'spec', 'template'), at(d, 'spec', 'template'))) canary = rs;
    else if (!stable && (numAt(rs, 'spec', 'replicas') ?? 0) > 0) stable = rs;
  }
  return { canary, stable };
}

/** The Workload view of an Advanced Deployment (getAdvancedDeployment + partitionstyle getWorkloadInfo). */
export interface DeploymentWorkloadView {
  replicas: number;
  statusConsistent: boolean;
  stableRevision: string;
  canaryRevision: string;
  podTemplateHash: string;
  inRolloutProgressing: boolean;
  inRollback: boolean;
  updatedReplicas: number;
  updatedReadyReplicas: number;
}

export function readAdvancedDeployment(d: KubeObject, replicaSets: readonly KubeObject[] | undefined): DeploymentWorkloadView {
  const annotations = d.metadata.annotations ?? {};
  const stableRevision = d.metadata.labels?.[DEPLOYMENT_STABLE_REVISION_LABEL] ?? '';
  const inProgressing = IN_ROLLOUT_PROGRESSING_ANNOTATION in annotations;
  const canary = inProgressing && replicaSets ? canaryAndStableReplicaSets(d, ownedReplicaSets(d, replicaSets)).canary : undefined;
  const podTemplateHash = canary?.metadata.labels?.[POD_TEMPLATE_HASH] ?? '';
  let extra: { updatedReadyReplicas?: number } = {};
  try {
    const parsed: unknown = JSON.parse(annotations[DEPLOYMENT_EXTRA_STATUS_ANNOTATION] ?? '{}');
    if (isObj(parsed)) extra = parsed as typeof extra;
  } catch {
    extra = {};
  }
  return {
    replicas: numAt(d, 'spec', 'replicas') ?? 1,
    statusConsistent: (numAt(d, 'status', 'observedGeneration') ?? 0) === (d.metadata.generation ?? 0),
    stableRevision,
    canaryRevision: templateRevisionHash(at(d, 'spec', 'template')),
    podTemplateHash,
    inRolloutProgressing: inProgressing,
    inRollback: stableRevision !== '' && stableRevision === podTemplateHash,
    updatedReplicas: numAt(d, 'status', 'updatedReplicas') ?? 0,
    updatedReadyReplicas: typeof extra.updatedReadyReplicas === 'number' ? extra.updatedReadyReplicas : 0,
  };
}

/** isEffectiveDeploymentRevisionChange: a new rollout-id annotation, or (without one) a different template. */
export function isEffectiveDeploymentRevisionChange(old: KubeObject, next: KubeObject): boolean {
  const nextId = next.metadata.annotations?.[ROLLOUT_ID_LABEL] ?? '';
  const oldId = old.metadata.annotations?.[ROLLOUT_ID_LABEL] ?? '';
  if (nextId !== '' && nextId === oldId) return false;
  if (nextId === '' && templatesEqualIgnoringHash(at(old, 'spec', 'template'), at(next, 'spec', 'template'))) return false;
  return true;
}

/**
 * handleDeployment: the Deployment to store instead of `next`, or undefined to let it through.
 * In a release (in-progressing annotation): Partition style keeps it paused and Recreate and moves a
 * rollingUpdate written meanwhile into the strategy annotation (a new revision pauses the strategy);
 * blue-green (original-strategy annotation) pauses on a new revision and keeps RollingUpdate; otherwise
 * it stays paused and never becomes Recreate. Outside a release, a new revision of a Deployment with
 * pods and ReplicaSets is paused, its stable ReplicaSet's hash labelled, and marked in-progressing.
 */
export function holdDeployment(
  next: KubeObject,
  old: KubeObject,
  rolloutName: string,
  hasTrafficRoutings: boolean,
  replicaSets: readonly KubeObject[],
): KubeObject | undefined {
  const out = structuredClone(next);
  const spec = (out.spec ?? {}) as { paused?: boolean; replicas?: number; strategy?: { type?: string; rollingUpdate?: RollingUpdateSettings | null } };
  out.spec = spec;
  const annotations = { ...(out.metadata.annotations ?? {}) };
  if (annotations[IN_ROLLOUT_PROGRESSING_ANNOTATION]) {
    let modified = false;
    const strategy: AdvancedDeploymentStrategy = deploymentStrategyOf(out);
    if ((strategy.rollingStyle ?? '').toLowerCase() === 'partition') {
      if (!spec.paused) (spec.paused = true), (modified = true);
      spec.strategy = { ...(spec.strategy ?? {}) };
      if (spec.strategy.type === 'RollingUpdate') (spec.strategy.type = 'Recreate'), (modified = true);
      if (spec.strategy.rollingUpdate) {
        strategy.rollingUpdate = spec.strategy.rollingUpdate;
        delete spec.strategy.rollingUpdate;
        modified = true;
      }
      if (isEffectiveDeploymentRevisionChange(old, out)) (strategy.paused = true), (modified = true);
      annotations[DEPLOYMENT_STRATEGY_ANNOTATION] = JSON.stringify(defaultDeploymentStrategy(strategy));
      out.metadata.annotations = annotations;
    } else if (annotations['rollouts.kruise.io/original-deployment-strategy']) {
      if (isEffectiveDeploymentRevisionChange(old, out)) (spec.paused = true), (modified = true);
      if (spec.strategy?.type !== 'RollingUpdate') {
        // not allowed to become Recreate: the old type comes back (an empty one stays empty)
        const oldType = strAt(old, 'spec', 'strategy', 'type');
        if (oldType !== spec.strategy?.type) spec.strategy = { ...(spec.strategy ?? {}), type: oldType };
        modified = true;
      }
    } else {
      if (!spec.paused) (spec.paused = true), (modified = true);
      if (spec.strategy?.type === 'Recreate') {
        spec.strategy = structuredClone(at(old, 'spec', 'strategy')) as typeof spec.strategy;
        modified = true;
      }
    }
    return modified ? out : undefined;
  }
  if (spec.replicas === 0) return undefined;
  if (!isEffectiveDeploymentRevisionChange(old, out)) return undefined;
  const owned = ownedReplicaSets(out, replicaSets);
  if (owned.length === 0) return undefined;
  if (hasTrafficRoutings && owned.length !== 1) return undefined;
  const { stable } = canaryAndStableReplicaSets(out, owned);
  if (stable) out.metadata.labels = { ...(out.metadata.labels ?? {}), [DEPLOYMENT_STABLE_REVISION_LABEL]: stable.metadata.labels?.[POD_TEMPLATE_HASH] ?? '' };
  spec.paused = true;
  annotations[IN_ROLLOUT_PROGRESSING_ANNOTATION] = JSON.stringify({ rolloutName });
  out.metadata.annotations = annotations;
  return out;
}

/** Initialize: hand the Deployment to the Advanced Deployment controller; undefined when already under control. */
export function initializeDeployment(d: KubeObject, controlInfo: string): DeploymentPatch | undefined {
  if (isUnderRolloutControl(d)) return undefined;
  const saved = deploymentStrategyOf(d);
  const ru = at(d, 'spec', 'strategy', 'rollingUpdate');
  const rollingUpdate = isObj(ru) ? (ru as RollingUpdateSettings) : saved.rollingUpdate;
  const strategy = defaultDeploymentStrategy({ rollingStyle: 'Partition', rollingUpdate, paused: false, partition: 0 });
  return {
    metadata: {
      labels: { [ADVANCED_DEPLOYMENT_CONTROL_LABEL]: 'true' },
      annotations: { [DEPLOYMENT_STRATEGY_ANNOTATION]: strategyJson(strategy), [BATCH_RELEASE_CONTROL_ANNOTATION]: controlInfo },
    },
    spec: { paused: true, strategy: { type: 'Recreate', rollingUpdate: null } },
  };
}

/** JSON of the strategy in v1alpha1.DeploymentStrategy's field order (omitempty; partition always written). */
export function strategyJson(s: AdvancedDeploymentStrategy): string {
  const o: Record<string, unknown> = {};
  if (s.rollingStyle) o.rollingStyle = s.rollingStyle;
  if (s.rollingUpdate) o.rollingUpdate = s.rollingUpdate;
  if (s.paused) o.paused = true;
  o.partition = s.partition ?? 0;
  return JSON.stringify(o);
}

/** control.IsCurrentMoreThanOrEqualToDesired: both scaled against 10,000,000. */
export function isCurrentMoreThanOrEqualToDesired(current: IntOrString | undefined, desired: IntOrString | undefined): boolean {
  return scaledIntOrPercent(current ?? 0, 10_000_000, true) >= scaledIntOrPercent(desired ?? 0, 10_000_000, true);
}

/** UpgradeBatch: the strategy annotation with the batch's partition; undefined when not under control or already there. */
export function upgradeDeploymentBatch(d: KubeObject, desiredPartition: IntOrString): DeploymentPatch | undefined {
  if (!isUnderRolloutControl(d)) return undefined;
  const strategy = deploymentStrategyOf(d);
  if (isCurrentMoreThanOrEqualToDesired(strategy.partition, desiredPartition)) return undefined;
  return { metadata: { annotations: { [DEPLOYMENT_STRATEGY_ANNOTATION]: strategyJson({ ...strategy, partition: desiredPartition }) } } };
}

/**
 * Finalize: without a batchPartition, back to the native controller (partitionStyleRestore); the control
 * info goes in any case. Undefined when it is not under control any more.
 */
export function finalizeDeployment(d: KubeObject, batchPartition: number | undefined): DeploymentPatch | undefined {
  if (!d.metadata.annotations?.[BATCH_RELEASE_CONTROL_ANNOTATION] || at(d, 'spec', 'paused') !== true) return undefined;
  if (batchPartition === undefined) return partitionStyleRestore(d);
  return { metadata: { annotations: { [BATCH_RELEASE_CONTROL_ANNOTATION]: null } } };
}

/**
 * Finalize's hand-back (partitionstyle/deployment/control.go, no batchPartition): resumed, RollingUpdate with
 * the rollingUpdate saved in the strategy annotation when it is Recreate, the Advanced Deployment's
 * annotations and labels and the control info removed. Also what `why --fix` writes for such a leftover.
 */
export function partitionStyleRestore(d: KubeObject): DeploymentPatch {
  const strategy = deploymentStrategyOf(d);
  const spec: Record<string, unknown> = { paused: false };
  if (strAt(d, 'spec', 'strategy', 'type') === 'Recreate') spec.strategy = { type: 'RollingUpdate', rollingUpdate: strategy.rollingUpdate ?? null };
  return {
    metadata: {
      annotations: { [BATCH_RELEASE_CONTROL_ANNOTATION]: null, [DEPLOYMENT_STRATEGY_ANNOTATION]: null, [DEPLOYMENT_EXTRA_STATUS_ANNOTATION]: null },
      labels: { [DEPLOYMENT_STABLE_REVISION_LABEL]: null, [ADVANCED_DEPLOYMENT_CONTROL_LABEL]: null },
    },
    spec,
  };
}

/** CalculateBatchContext: the batch's canary replicas are the partition; planned = NewRSReplicasLimit. */
export function deploymentBatchPlan(d: KubeObject, batches: readonly IntOrString[], currentBatch: number): { desiredPartition: IntOrString; planned: number; currentPartition: IntOrString } {
  const desiredPartition = batches[currentBatch] ?? 0;
  return {
    desiredPartition,
    planned: newRSReplicasLimit(desiredPartition, numAt(d, 'spec', 'replicas') ?? 1),
    currentPartition: intOrStringAt({ s: deploymentStrategyOf(d) }, 's', 'partition') ?? 0,
  };
}

/** The partition-style Deployment entry of the release control table (release-control.ts). */
export const deploymentReleaseControl: ReleaseControl = {
  group: 'apps',
  kind: 'Deployment',
  style: 'Partition',

  readWorkload(obj, related): RolloutWorkload {
    const v = readAdvancedDeployment(obj, related?.replicaSets);
    return {
      ...workloadIdentity(obj, 'Deployment', 'apps/v1'),
      replicas: v.replicas,
      statusConsistent: v.statusConsistent,
      stableRevision: v.stableRevision,
      canaryRevision: v.canaryRevision,
      podTemplateHash: v.podTemplateHash,
      // BatchRelease's update revision: the new ReplicaSet's pod-template-hash (what the pods carry) once it exists
      updateRevisionName: v.podTemplateHash || v.canaryRevision,
      stableRevisionName: v.stableRevision,
      inRolloutProgressing: v.inRolloutProgressing,
      inRollback: v.inRollback,
      updatedReplicas: v.updatedReplicas,
      updatedReadyReplicas: v.updatedReadyReplicas,
    };
  },

  holdOnRevisionChange(next, old, hook) {
    return holdDeployment(next, old, hook.rolloutName, hook.hasTrafficRoutings, hook.list('apps', 'replicasets'));
  },

  initialize(workload, br) {
    if (isControlledByBatchRelease(workload, br) && isUnderRolloutControl(workload)) return undefined;
    return initializeDeployment(workload, releaseControlInfo(br));
  },

  batchContext(workload, br): BatchContext {
    const plan = releasePlanOf(br);
    const currentBatch = numAt(br, 'status', 'canaryStatus', 'currentBatch') ?? 0;
    const { desiredPartition, planned, currentPartition } = deploymentBatchPlan(workload, plan.batches, currentBatch);
    const v = readAdvancedDeployment(workload, undefined);
    return {
      currentBatch,
      replicas: v.replicas,
      rolloutID: plan.rolloutID,
      updateRevision: strAt(br, 'status', 'updateRevision') ?? v.canaryRevision,
      plannedUpdatedReplicas: planned,
      desiredUpdatedReplicas: planned,
      desiredPartition,
      currentPartition,
      updatedReplicas: v.updatedReplicas,
      updatedReadyReplicas: v.updatedReadyReplicas,
      failureThreshold: plan.failureThreshold,
    };
  },

  upgradeBatch(workload, ctx) {
    return upgradeDeploymentBatch(workload, ctx.desiredPartition);
  },

  finalize(workload, br) {
    return finalizeDeployment(workload, releasePlanOf(br).batchPartition) ?? {};
  },
};
