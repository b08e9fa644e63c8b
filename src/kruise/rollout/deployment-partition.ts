// Kruise Rollout's "Advanced Deployment" (openkruise/rollouts v0.6.2), pure rules:
// a Deployment under a Rollout keeps `spec.paused: true` and `strategy.type: Recreate` (so the native
// controller leaves it alone) and carries its real strategy in the `rollouts.kruise.io/deployment-strategy`
// annotation ({rollingStyle: Partition, rollingUpdate, paused, partition}). Kruise Rollout's own
// deployment controller (pkg/controller/deployment) then rolls the new ReplicaSet up to the partition
// and the old ones down to what remains, with maxSurge/maxUnavailable from the annotation.
// - api/v1alpha1/deployment_types.go: annotation/label names, SetDefaultDeploymentStrategy.
// - pkg/controller/deployment/util/deployment_util.go: IsUnderRolloutControl, NewRSReplicasLimit,
//   NewRSNewReplicas, MaxSurge, MaxUnavailable, DeploymentRolloutSatisfied.
// - pkg/controller/deployment/rolling.go: reconcileNewReplicaSet, reconcileOldReplicaSets,
//   cleanupUnhealthyReplicas, scaleDownOldReplicaSetsForRollingUpdate, scaleUpOldReplicaSets,
//   ScaleDownLimitForOld.
import type { IntOrString } from '../intstr';
import { compareText } from '../../lib/compare';

export const DEPLOYMENT_STRATEGY_ANNOTATION = 'rollouts.kruise.io/deployment-strategy';
export const DEPLOYMENT_EXTRA_STATUS_ANNOTATION = 'rollouts.kruise.io/deployment-extra-status';
export const DEPLOYMENT_STABLE_REVISION_LABEL = 'rollouts.kruise.io/stable-revision';
export const ADVANCED_DEPLOYMENT_CONTROL_LABEL = 'rollouts.kruise.io/controlled-by-advanced-deployment-controller';
import { BATCH_RELEASE_CONTROL_ANNOTATION } from './labels';

export { BATCH_RELEASE_CONTROL_ANNOTATION, IN_ROLLOUT_PROGRESSING_ANNOTATION } from './labels';

export type RollingStyle = 'Partition' | 'Canary' | 'BlueGreen';

export interface RollingUpdateSettings {
  maxSurge?: IntOrString;
  maxUnavailable?: IntOrString;
}

/** v1alpha1.DeploymentStrategy, the annotation's content. */
export interface AdvancedDeploymentStrategy {
  rollingStyle?: RollingStyle | string;
  rollingUpdate?: RollingUpdateSettings;
  paused?: boolean;
  partition?: IntOrString;
}

/** The Deployment fields these rules read. */
export interface DeploymentLike {
  metadata: { annotations?: Record<string, string>; labels?: Record<string, string>; generation?: number };
  spec?: { replicas?: number; paused?: boolean; strategy?: { type?: string; rollingUpdate?: RollingUpdateSettings } };
  status?: { replicas?: number; updatedReplicas?: number; observedGeneration?: number };
}

/**
 * apimachinery intstr.GetScaledValueFromIntOrPercent as these controllers call it (errors ignored → 0):
 * integers as is, "<integer>%" scaled with ceil or floor.
 */
export function scaledIntOrPercent(value: IntOrString | undefined, total: number, roundUp: boolean): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return Number.isInteger(value) ? value : 0;
  const m = /^([+-]?\d+)%$/.exec(value);
  if (!m) return 0;
  const exact = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** util.GetDeploymentStrategy: the annotation parsed, or an empty strategy when absent or unreadable. */
export function deploymentStrategyOf(d: DeploymentLike): AdvancedDeploymentStrategy {
  const raw = d.metadata.annotations?.[DEPLOYMENT_STRATEGY_ANNOTATION];
  if (!raw) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed && typeof parsed === 'object' ? (parsed as AdvancedDeploymentStrategy) : {};
  } catch {
    return {};
  }
}

/**
 * SetDefaultDeploymentStrategy (Partition style only): 25% defaults, never both zero. Go assigns the
 * default maxSurge to maxUnavailable when maxSurge is missing (a slip upstream); reproduced as is.
 */
export function defaultDeploymentStrategy(strategy: AdvancedDeploymentStrategy): AdvancedDeploymentStrategy {
  if (strategy.rollingStyle !== 'Partition') return strategy;
  const ru: RollingUpdateSettings = { ...(strategy.rollingUpdate ?? {}) };
  if (ru.maxUnavailable === undefined) ru.maxUnavailable = '25%';
  if (ru.maxSurge === undefined) ru.maxUnavailable = '25%';
  const surge = scaledIntOrPercent(ru.maxSurge, 100, true);
  const unavailable = scaledIntOrPercent(ru.maxUnavailable, 100, true);
  return { ...strategy, rollingUpdate: surge === 0 && unavailable === 0 ? { maxSurge: 0, maxUnavailable: 1 } : ru };
}

/** IsUnderRolloutControl: control-info annotation, Recreate and paused (the native controller is off). */
export function isUnderRolloutControl(d: DeploymentLike): boolean {
  if (!d.metadata.annotations?.[BATCH_RELEASE_CONTROL_ANNOTATION]) return false;
  if (d.spec?.strategy?.type !== 'Recreate') return false;
  return d.spec?.paused === true;
}

/**
 * Whether Kruise Rollout's deployment controller rolls this Deployment (controllerFactory.NewController):
 * under rollout control, with a readable strategy annotation whose style is not Canary.
 */
export function advancedDeploymentStrategy(d: DeploymentLike): AdvancedDeploymentStrategy | undefined {
  if (!isUnderRolloutControl(d)) return undefined;
  const raw = d.metadata.annotations?.[DEPLOYMENT_STRATEGY_ANNOTATION];
  if (!raw) return undefined;
  const strategy = deploymentStrategyOf(d);
  if (strategy.rollingStyle === 'Canary') return undefined;
  return strategy;
}

/** NewRSReplicasLimit: pods the new ReplicaSet may have under the partition; a percent below 100% keeps one old pod. */
export function newRSReplicasLimit(partition: IntOrString | undefined, replicas: number): number {
  let limit = scaledIntOrPercent(partition ?? 0, replicas, true);
  limit = Math.max(Math.min(limit, replicas), 0);
  if (replicas > 1 && typeof partition === 'string' && partition !== '100%') limit = Math.min(limit, replicas - 1);
  return limit;
}

/** ResolveFenceposts: maxSurge rounded up, maxUnavailable down; both zero → maxUnavailable 1. */
export function resolveFenceposts(ru: RollingUpdateSettings | undefined, replicas: number): { maxSurge: number; maxUnavailable: number } {
  const maxSurge = scaledIntOrPercent(ru?.maxSurge ?? 0, replicas, true);
  const maxUnavailable = scaledIntOrPercent(ru?.maxUnavailable ?? 0, replicas, false);
  return { maxSurge, maxUnavailable: maxSurge === 0 && maxUnavailable === 0 ? 1 : maxUnavailable };
}

/** deploymentutil.MaxSurge with the annotation's strategy (0 without rollingUpdate). */
export function maxSurgeOf(strategy: AdvancedDeploymentStrategy, replicas: number): number {
  if (!strategy.rollingUpdate) return 0;
  return resolveFenceposts(strategy.rollingUpdate, replicas).maxSurge;
}

/** deploymentutil.MaxUnavailable with the annotation's strategy: 0 without rollingUpdate or replicas, at most replicas. */
export function maxUnavailableOf(strategy: AdvancedDeploymentStrategy, replicas: number): number {
  if (!strategy.rollingUpdate || replicas === 0) return 0;
  return Math.min(resolveFenceposts(strategy.rollingUpdate, replicas).maxUnavailable, replicas);
}

/** A ReplicaSet as the rolling rules see it. */
export interface ReplicaSetSizes {
  name: string;
  /** spec.replicas */
  replicas: number;
  /** status.availableReplicas */
  available: number;
  /** deployment.kubernetes.io/revision */
  revision: number;
  /** creation time in ms (ties broken by name) */
  created: number;
}

const sum = (rss: readonly ReplicaSetSizes[]) => rss.reduce((n, rs) => n + rs.replicas, 0);

/** NewRSNewReplicas: the new ReplicaSet's next size (never above the partition's limit while old pods remain). */
export function newRSNewReplicas(replicas: number, allReplicas: number, newRSReplicas: number, strategy: AdvancedDeploymentStrategy): number {
  if (allReplicas <= newRSReplicas) return replicas; // the only active ReplicaSet follows the Deployment
  const limit = newRSReplicasLimit(strategy.partition, replicas);
  if (newRSReplicas >= limit) return newRSReplicas;
  const maxTotal = replicas + maxSurgeOf(strategy, replicas);
  if (allReplicas >= maxTotal) return newRSReplicas;
  const up = Math.min(maxTotal - allReplicas, replicas - newRSReplicas);
  return Math.min(newRSReplicas + up, limit);
}

/** ScaleDownLimitForOld: how many old pods may go (negative: how many must come back). */
export function scaleDownLimitForOld(oldReplicas: number, newRSReplicas: number, replicas: number, partition: IntOrString | undefined): number {
  const newDesired = Math.max(newRSReplicasLimit(partition, replicas), newRSReplicas);
  return oldReplicas - (replicas - newDesired);
}

/** reconcileNewReplicaSet: the new ReplicaSet's target size. */
export function reconcileNewReplicaSet(replicas: number, all: readonly ReplicaSetSizes[], newRS: ReplicaSetSizes, strategy: AdvancedDeploymentStrategy): number {
  if (newRS.replicas >= replicas) return replicas;
  return newRSNewReplicas(replicas, sum(all), newRS.replicas, strategy);
}

/**
 * reconcileOldReplicaSets: the old ReplicaSets' target sizes (by name; unchanged ones left out).
 * Scales the biggest (then oldest) back up when the partition asks for more old pods; otherwise
 * removes unavailable old pods first (oldest ReplicaSet first), then available ones from the higher
 * revision down, within maxUnavailable and the partition's limit.
 */
export function reconcileOldReplicaSets(
  replicas: number,
  olds: readonly ReplicaSetSizes[],
  newRS: ReplicaSetSizes,
  strategy: AdvancedDeploymentStrategy,
): Map<string, number> {
  const out = new Map<string, number>();
  const active = olds.filter((rs) => rs.replicas > 0);
  const oldCount = sum(active);
  if (oldCount === 0) return out;
  const maxUnavailable = maxUnavailableOf(strategy, replicas);
  const limit = scaleDownLimitForOld(oldCount, newRS.replicas, replicas, strategy.partition);
  if (limit <= 0) {
    // scaleUpOldReplicaSets: the biggest active one, then the older, takes the missing pods.
    const up = -limit;
    if (up <= 0) return out;
    const target = [...active].sort((a, b) => b.replicas - a.replicas || a.created - b.created || compareText(a.name, b.name))[0];
    out.set(target.name, target.replicas + up);
    return out;
  }
  const minAvailable = replicas - maxUnavailable;
  const newUnavailable = newRS.replicas - newRS.available;
  let maxScaledDown = Math.min(oldCount + newRS.replicas - minAvailable - newUnavailable, limit);
  if (maxScaledDown <= 0) return out;
  const sizes = new Map(active.map((rs) => [rs.name, rs.replicas]));
  // cleanupUnhealthyReplicas (by creation time)
  let cleaned = 0;
  for (const rs of [...active].sort((a, b) => a.created - b.created || compareText(a.name, b.name))) {
    if (cleaned >= maxScaledDown) break;
    const unhealthy = rs.replicas - rs.available;
    if (unhealthy <= 0) continue;
    const down = Math.min(maxScaledDown - cleaned, unhealthy);
    sizes.set(rs.name, rs.replicas - down);
    cleaned += down;
  }
  // scaleDownOldReplicaSetsForRollingUpdate, limited again by the partition. Availability is read from the
  // statuses as listed (Go's scaled copies keep their old status). ReplicaSetsBySmallerRevision sorts the
  // higher revision first ("scale down the middle revision firstly"), ties by creation.
  const available = active.reduce((n, rs) => n + rs.available, 0) + newRS.available;
  if (available > minAvailable) {
    const afterCleanup = active.reduce((n, rs) => n + (sizes.get(rs.name) ?? 0), 0);
    const total = Math.min(available - minAvailable, scaleDownLimitForOld(afterCleanup, newRS.replicas, replicas, strategy.partition));
    let done = 0;
    for (const rs of [...active].sort((a, b) => b.revision - a.revision || a.created - b.created || compareText(a.name, b.name))) {
      if (done >= total) break;
      const have = sizes.get(rs.name) ?? 0;
      if (have === 0) continue;
      const down = Math.min(have, total - done);
      sizes.set(rs.name, have - down);
      done += down;
    }
  }
  for (const rs of active) if (sizes.get(rs.name) !== rs.replicas) out.set(rs.name, sizes.get(rs.name) ?? rs.replicas);
  return out;
}

/** DeploymentRolloutSatisfied: status observed, replicas settled and the new ReplicaSet at least at the partition. */
export function deploymentRolloutSatisfied(d: DeploymentLike, partition: IntOrString | undefined): boolean {
  const status = d.status ?? {};
  if ((status.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) return false;
  const replicas = d.spec?.replicas ?? 1;
  if ((status.replicas ?? 0) !== replicas) return false;
  return (status.updatedReplicas ?? 0) >= newRSReplicasLimit(partition, replicas);
}

/** DeploymentExtraStatus as the controller writes it into its annotation (omitempty: zeros left out). */
export function deploymentExtraStatus(newRSReadyReplicas: number, partition: IntOrString | undefined, replicas: number): string {
  const expected = newRSReplicasLimit(partition, replicas);
  const o: Record<string, number> = {};
  if (newRSReadyReplicas) o.updatedReadyReplicas = newRSReadyReplicas;
  if (expected) o.expectedUpdatedReplicas = expected;
  return JSON.stringify(o);
}
