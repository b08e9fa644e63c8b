// `rollout undo --fast` of a release in progress, as the official plugin does it (openkruise/kruise-tools
// pkg/internal/polymorphichelpers/steps.go defaultRolloutRollbackGetter(-1) and
// findPreviousStepWithNoTrafficAndMostReplicas): go back, through status nextStepIndex, to the previous
// step that routes no traffic to the new pods and keeps the most of them. The template is not touched:
// the canary pods stay up, users get the stable version again. The write itself is jumpPatch's.
import type { KubeObject } from '../types';
import { readRollout } from './read';
import { rolloutScaledValue } from './step-math';
import { at } from '../workloads/access';
import { ROLLBACK_IN_BATCH_ANNOTATION, WORKLOAD_TYPE_LABEL } from './labels';
import type { RolloutStepView } from './types';

export type FastRollbackTarget = { step: number; error?: undefined } | { step?: undefined; error: string };

/** GetScaledValueFromIntOrPercent(traffic, 100, true) != 0, errors counting as 0 (steps.go hasTraffic). */
function hasTraffic(step: RolloutStepView): boolean {
  if (step.traffic === undefined) return false;
  return (rolloutScaledValue(step.traffic, 100) ?? 0) !== 0;
}

/**
 * The step a fast rollback goes back to. `targetStep` -1 (the plugin's --fast) picks the previous step
 * without traffic and with the most replicas (scaled against 100, ties keep the later step); another
 * value must be a previous step. Errors are the plugin's words.
 */
export function fastRollbackStep(rollout: KubeObject, targetStep = -1): FastRollbackTarget {
  const view = readRollout(rollout);
  const steps = view.steps;
  const current = view.status.currentStepIndex ?? 0;
  if (steps.length < current) return { error: `has ${steps.length} steps, but current step is too large ${current}` };
  if (current <= 1) return { error: 'already at the first step' };
  let target = targetStep;
  if (target === -1) {
    let most = 0;
    for (let i = current - 2; i >= 0; i--) {
      const step = steps[i]!;
      if (hasTraffic(step)) continue;
      const replicas = rolloutScaledValue(step.replicas, 100) ?? 0;
      if (replicas > most) {
        most = replicas;
        target = i + 1;
      }
    }
    if (target === -1) return { error: 'no previous step with no traffic found' };
  }
  if (target >= current) return { error: `specified step ${target} is not a previous step (current step is ${current})` };
  return { step: target };
}

/**
 * Whether restoring the stable template makes the Rollout roll back in batches from step 1 rather than
 * cancel (openkruise/rollouts v0.6.2 pkg/util/rollout_utils.go IsRollbackInBatchPolicy): annotation
 * rollouts.kruise.io/rollback-in-batch "true", no traffic routing, and a StatefulSet or CloneSet (or a
 * workload labelled rollouts.kruise.io/workload-type StatefulSet).
 */
export function rollsBackInBatches(rollout: KubeObject, workloadLabels: Record<string, string> = {}): boolean {
  const routings = at(rollout, 'spec', 'strategy', readRollout(rollout).strategy, 'trafficRoutings');
  if (Array.isArray(routings) && routings.length > 0) return false;
  const kind = readRollout(rollout).workloadRef?.kind ?? '';
  const stsLike = kind === 'StatefulSet' || kind === 'CloneSet' || (workloadLabels[WORKLOAD_TYPE_LABEL] ?? '').toLowerCase() === 'statefulset';
  return stsLike && rollout.metadata.annotations?.[ROLLBACK_IN_BATCH_ANNOTATION] === 'true';
}
