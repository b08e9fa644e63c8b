// Kruise Rollout's release plan hash and its recalculation when the plan changes mid-release, pure
// (openkruise/rollouts v0.6.2 rollout_status.go calculateRolloutHash, rollout_progressing.go
// isRolloutPlanChanged / recalculateCanaryStep). The hash is kept in the Rollout's
// rollouts.kruise.io/hash annotation and copied into the sub-status' rolloutHash when a release starts.
// Upstream hashes Go's JSON of the strategy (sha256, rand.SafeEncodeString); Go's field order cannot be
// reproduced from YAML, so this hashes a canonical JSON the same way: equal plans give equal hashes,
// pauses and failureThreshold do not count.
import { createHash } from 'node:crypto';
import type { IntOrString } from '../intstr';
import { isObj } from '../workloads/access';
import { rolloutScaledValue } from './step-math';

export const ROLLOUT_HASH_ANNOTATION = 'rollouts.kruise.io/hash';

/** k8s.io/apimachinery/pkg/util/rand SafeEncodeString's alphabet. */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) => (isObj(val) && !Array.isArray(val) ? Object.fromEntries(Object.keys(val).sort().map((k) => [k, val[k]])) : val));
}

/** calculateRolloutHash: the strategy (canary or blueGreen) without failureThreshold and without the steps' pauses. */
export function rolloutPlanHash(strategySpec: Record<string, unknown>): string {
  const copy: Record<string, unknown> = { ...strategySpec };
  delete copy.failureThreshold;
  if (Array.isArray(copy.steps)) copy.steps = copy.steps.map((s) => (isObj(s) ? { ...s, pause: {} } : s));
  const hex = createHash('sha256').update(canonical(copy)).digest('hex');
  let out = '';
  for (let i = 0; i < hex.length; i++) out += ALPHANUMS[hex.charCodeAt(i) % ALPHANUMS.length];
  return out;
}

/**
 * recalculateCanaryStep: the first step (the current one first) whose replicas reach the pods the
 * BatchRelease's current batch already released; 1 without a BatchRelease.
 */
export function recalculateCanaryStep(
  steps: ReadonlyArray<{ replicas?: IntOrString }>,
  batches: ReadonlyArray<IntOrString> | undefined,
  batchPartition: number | undefined,
  workloadReplicas: number,
  currentStepIndex: number,
): number {
  if (!batches) return 1;
  const current = rolloutScaledValue(batches[batchPartition ?? 0] ?? 0, workloadReplicas) ?? 0;
  const ci = currentStepIndex - 1;
  const order: number[] = [];
  if (ci >= 0 && ci < steps.length) order.push(ci);
  for (let i = 0; i < steps.length; i++) if (i !== ci) order.push(i);
  let stepIndex = 0;
  for (const i of order) {
    stepIndex = i + 1;
    if (current <= (rolloutScaledValue(steps[i]?.replicas, workloadReplicas) ?? 0)) break;
  }
  return stepIndex;
}
