// How `rollout status` reports a change of state: a human line (kubectl wording, built by
// src/kruise/progress.ts) or one JSON Lines object with the contract's fields.
import type { RolloutProgress } from '../kruise/progress';

/** The contract's JSON fields, in a stable order (one object per line, the last one final). */
export function statusJsonLine(p: RolloutProgress): string {
  const view: Record<string, unknown> = {
    kind: p.kind,
    apiVersion: p.apiVersion,
    namespace: p.namespace,
    name: p.name,
    state: p.state,
    replicas: p.replicas,
    expectedUpdatedReplicas: p.expectedUpdatedReplicas,
    updatedReplicas: p.updatedReplicas,
    updatedReadyReplicas: p.updatedReadyReplicas,
    partition: p.partition,
    updateRevision: p.updateRevision ?? '',
    currentRevision: p.currentRevision ?? '',
    message: p.message,
    expectedUpdatedReplicasSource: p.expectedFromStatus ? 'status' : 'computed',
  };
  if (p.failedPod) view.failedPod = p.failedPod;
  return JSON.stringify(view);
}

/** Identity of a state for de-duplication: a new line only when this changes. */
export function statusKey(p: RolloutProgress): string {
  return `${p.state}\u0000${p.message}`;
}

/** The live spinner text on a TTY: the message plus the counts at a glance. */
export function statusSpinnerText(p: RolloutProgress): string {
  return `${p.message} [updated ${p.updatedReplicas}, ready ${p.updatedReadyReplicas}, expected ${p.expectedUpdatedReplicas} of ${p.replicas}]`;
}

/** Whether a state ends the wait. */
export function isFinal(p: RolloutProgress): boolean {
  return p.state === 'Complete' || p.state === 'PartitionComplete' || p.state === 'Failed' || p.state === 'TimedOut';
}
