// What one reconcile of the Rollout controller works with (rollout_progressing.go RolloutContext) and
// what a strategy's release manager implements (ReleaseManager), shared by state-machine.ts and the
// managers (rollout-canary.ts; ro-deploy-bg's blue-green). Pure.
import type { IntOrString } from '../intstr';
import type { KubeObject } from '../types';
import type { KruiseRolloutRelease, MergePatch, RollingStyle, RolloutWorkload } from './release-workload';
import type { RolloutStatusObj } from './rollout-status';
import { STEP_STATE } from './labels';

/** A write the sandbox controller performs for this reconcile, in order. */
export type RolloutWrite =
  | { kind: 'createBatchRelease'; object: KubeObject }
  | { kind: 'updateBatchRelease'; spec: Record<string, unknown>; annotations?: Record<string, string> }
  | { kind: 'patchBatchRelease'; patch: MergePatch }
  | { kind: 'deleteBatchRelease' }
  | { kind: 'patchWorkload'; patch: MergePatch }
  /** The Rollout itself (metadata only: the rollout hash annotation). */
  | { kind: 'patchRollout'; patch: MergePatch }
  /** Traffic objects (Services, Ingresses) of the Rollout's namespace. */
  | { kind: 'createObject'; gr: { group: string; resource: string }; object: KubeObject }
  | { kind: 'patchObject'; gr: { group: string; resource: string }; name: string; patch: MergePatch }
  | { kind: 'deleteObject'; gr: { group: string; resource: string }; name: string };

/** A step of a rollout strategy (v1beta1 CanaryStep), as the managers read it. */
export interface RolloutStepSpec {
  replicas?: IntOrString;
  traffic?: string;
  hasMatches: boolean;
  /** The step's request matches (HttpRouteMatch list) as written. */
  matches?: unknown[];
  pauseSeconds?: number;
}

export interface RolloutSpecView {
  namespace: string;
  name: string;
  uid?: string;
  generation: number;
  workloadRef?: { apiVersion: string; kind: string; name: string };
  strategy: 'canary' | 'blueGreen';
  steps: RolloutStepSpec[];
  /** calculateRolloutHash of the current plan (what the rollouts.kruise.io/hash annotation holds). */
  planHash: string;
  /** The raw strategy object (spec.strategy.canary or .blueGreen) for fields only a manager reads. */
  strategySpec: Record<string, unknown>;
  paused: boolean;
  disabled: boolean;
  deleting: boolean;
  rollingStyle: RollingStyle;
  hasTrafficRoutings: boolean;
}

/** What one reconcile works with (rollout_progressing.go RolloutContext). */
export interface RolloutContext {
  rollout: RolloutSpecView;
  /** The object as stored (v1beta1 shape): managers build the BatchRelease from it. */
  rolloutObject: KubeObject;
  /** The status as it was read (the "old" status upstream compares with). */
  oldStatus: RolloutStatusObj;
  newStatus: RolloutStatusObj;
  workload?: RolloutWorkload;
  workloadObject?: KubeObject;
  batchRelease?: KubeObject;
  now: Date;
  nowIso: string;
  gracePeriodMs: number;
  writes: RolloutWrite[];
  /** ms from now when the controller must look again (undefined: on the next event). */
  recheckMs?: number;
  finalizeReason?: 'Success' | 'Rollback' | 'Disabled' | 'Delete';
  /** The Services and Ingresses the Rollout's trafficRoutings name (and their canary twins), by name. */
  traffic: TrafficObjects;
  /** The Kruise Rollout release imitated: v0.4 finalises without status.canaryStatus.finalisingStep. */
  release: KruiseRolloutRelease;
  waitReady?: boolean;
}

/** What a strategy contributes (rollout_progressing.go ReleaseManager). */
export interface ReleaseManager {
  /** runCanary / runBlueGreen: one step of the release. */
  run(c: RolloutContext): void;
  /** doCanaryJump / doBlueGreenJump: follow a changed nextStepIndex; true when it moved. */
  jump?(c: RolloutContext): boolean;
  /** doCanaryFinalising / doBlueGreenFinalising: true once every finalising step is done. */
  finalise(c: RolloutContext): boolean;
}

/** Keeps the earliest recheck. */
export function recheckIn(c: RolloutContext, ms: number): void {
  const v = Math.max(0, Math.ceil(ms));
  c.recheckMs = c.recheckMs === undefined ? v : Math.min(c.recheckMs, v);
}

/**
 * The state a step starts in: StepInit since v0.5 (the traffic checks before an upgrade); v0.4.4 has no
 * StepInit (api/v1alpha1/rollout_types.go@v0.4.4) and starts every step at StepUpgrade
 * (rollout_progressing.go Initializing and handleRollbackInBatches, rollout_canary.go runCanary StepReady).
 */
export function stepStartState(c: Pick<RolloutContext, 'release'>): string {
  return c.release === 'v0.4' ? STEP_STATE.Upgrade : STEP_STATE.Init;
}

/** rollout_status.go getRolloutID: the workload's rollout-id label, else its canary revision. */
export function rolloutIDOf(w: RolloutWorkload | undefined): string {
  if (!w) return '';
  const label = w.labels['rollouts.kruise.io/rollout-id'] ?? '';
  if (label) return label;
  return w.inRollback ? `rollback-${w.canaryRevision}` : w.canaryRevision;
}


/** Objects of the namespace the traffic routing reads, by name (absent: not found). */
export interface TrafficObjects {
  services: ReadonlyMap<string, KubeObject>;
  ingresses: ReadonlyMap<string, KubeObject>;
}
