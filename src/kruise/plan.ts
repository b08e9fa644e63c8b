// Batch plans for `explain partition --plan=P1,P2,...`: what each partition step does to a
// workload of a given kind, using the same arithmetic as the controllers (partition.ts).
//
// - parsePlanList("80%,50%,0"): the --plan flag as int-or-percent values (numbers for digits).
// - planRollout(input, steps): one row per step: partition, pods kept old, pods at the new
//   revision, pods updated in this step, the unavailability bound during the step.
import { explainPartition, InvalidValueError, type PartitionInput } from './partition';
import type { IntOrString } from './intstr';

export interface PlanStep {
  step: number;
  partition: IntOrString;
  /** Pods kept at the old revision after this step. */
  partitionReplicas: number;
  /** Pods at the new revision once the step is done (expectedUpdatedReplicas). */
  updatedReplicas: number;
  /** Pods moved to the new revision by this step (negative: moved back, see warnings). */
  updatedInStep: number;
  /** At most this many pods are unavailable while the step runs: min(maxUnavailable, updatedInStep). */
  maxUnavailable: number;
}

export interface RolloutPlan {
  steps: PlanStep[];
  warnings: string[];
}

/**
 * Splits a --plan value. Plain digits become integers (as an unquoted YAML value would);
 * anything else stays a string and must be a percentage for the kind's rules.
 */
export function parsePlanList(text: string): IntOrString[] {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => p === '')) {
    throw new InvalidValueError('plan', text, 'expected a comma-separated list of partitions like "80%,50%,0"');
  }
  return parts.map((p) => (/^[+-]?\d+$/.test(p) ? Number(p) : p));
}

/** The batch table for a sequence of partitions, starting from "nothing updated yet". */
export function planRollout(input: Omit<PartitionInput, 'partition'>, partitions: IntOrString[]): RolloutPlan {
  const steps: PlanStep[] = [];
  const warnings: string[] = [];
  let previous = 0;
  partitions.forEach((partition, i) => {
    const report = explainPartition({ ...input, partition });
    const updated = report.expectedUpdatedReplicas;
    const delta = updated - previous;
    const stepNo = i + 1;
    if (delta < 0) {
      warnings.push(
        `step ${stepNo} raises the partition (${partition}): ${-delta === 1 ? '1 updated pod goes' : `${-delta} updated pods go`} back to the old revision only with Kruise's CloneSetPartitionRollback feature gate; otherwise nothing happens`,
      );
    } else if (delta === 0 && i > 0) {
      warnings.push(`step ${stepNo} (${partition}) updates no pod: same result as the step before`);
    }
    steps.push({
      step: stepNo,
      partition,
      partitionReplicas: report.partitionReplicas,
      updatedReplicas: updated,
      updatedInStep: delta,
      maxUnavailable: Math.min(report.maxUnavailable, Math.abs(delta)),
    });
    previous = updated;
  });
  const last = steps[steps.length - 1];
  if (last && last.partitionReplicas > 0) {
    warnings.push(`the last step keeps ${last.partitionReplicas === 1 ? '1 pod' : `${last.partitionReplicas} pods`} at the old revision; end the plan with 0 to finish the rollout`);
  }
  return { steps, warnings };
}
