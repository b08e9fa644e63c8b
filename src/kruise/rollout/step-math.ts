// Kruise Rollout's step arithmetic (openkruise/rollouts v0.6.2), pure:
// - `rolloutScaledValue`: k8s apimachinery v0.26 `intstr.GetScaledValueFromIntOrPercent` as the Rollout
//   controller calls it (errors ignored → 0): integers as is; strings must be "<integer>%".
// - `stepCanaryReplicas`: pkg/controller/batchrelease/control/util.go CalculateBatchReplicas: the step's
//   replicas rounded up against the workload's replicas, clamped to [0, replicas].
// - `nextBatchIndex`: pkg/util/rollout_utils.go NextBatchIndex (-1 after the last step).
// (doStepJump, where a patched nextStepIndex lands, per release: step-jump.ts.)
import type { IntOrString } from '../intstr';

const GO_ATOI = /^[+-]?\d+$/;

/** Scaled value of an int-or-percent as apimachinery v0.26 computes it; undefined when Go returns an error. */
export function rolloutScaledValue(value: IntOrString | undefined | null, total: number, roundUp = true): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (!value.endsWith('%')) return undefined;
  const digits = value.slice(0, -1);
  if (!GO_ATOI.test(digits)) return undefined;
  // Go: int(math.Ceil(float64(v) * float64(total) / 100)), or int(float64(v) * float64(total) / 100)
  const scaled = (Number(digits) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.trunc(scaled);
}

/** Pods the step's batch updates (CalculateBatchReplicas): unreadable values count as 0, as the controller ignores the error. */
export function stepCanaryReplicas(replicas: IntOrString | undefined, workloadReplicas: number): number {
  const size = rolloutScaledValue(replicas, workloadReplicas) ?? 0;
  if (size > workloadReplicas) return workloadReplicas;
  if (size < 0) return 0;
  return size;
}

/** NextBatchIndex: the step after `current` (1-based), or -1 when `current` is the last (or beyond). */
export function nextBatchIndex(stepCount: number, current: number): number {
  return current >= stepCount ? -1 : current + 1;
}

/**
 * Whether StepPaused ends at once on step `index`: canary doCanaryPaused (rollout_canary.go) does so for
 * a last step of exactly "100%"; blue-green's doCanaryPaused (rollout_bluegreen.go) has no such rule.
 */
export function isFinalFullStep(steps: ReadonlyArray<{ replicas?: IntOrString }>, index: number, strategy: 'canary' | 'blueGreen' = 'canary'): boolean {
  return strategy === 'canary' && index === steps.length && steps[index - 1]?.replicas === '100%';
}
