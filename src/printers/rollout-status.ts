// How `rollout status` reports a change of state: a human line (kubectl wording, built by
// src/kruise/progress.ts, plus a failing pod's countdown), or one JSON Lines object / YAML
// document / jsonpath result with the contract's fields.
import type { RolloutProgress } from '../kruise/progress';
import { resourceName, yamlStreamDocument, type OutputFormat } from './output';
import { apiGroupOf } from '../kruise/api-version';
import { compileJsonPath } from './jsonpath';

/** Whole seconds left before a failing pod fails the rollout (never below 0). */
function secondsLeft(failAt: number, now: number): number {
  return Math.max(0, Math.ceil((failAt - now) / 1000));
}

/** `pod shop-2b95m ImagePullBackOff, failing the rollout in 45s` */
export function failingNote(p: RolloutProgress, now: number): string | undefined {
  if (!p.failing) return undefined;
  return `pod ${p.failing.name} ${p.failing.reason}, failing the rollout in ${secondsLeft(p.failing.failAt, now)}s`;
}

/** The human line: the message, and while a failing pod's grace runs down, which pod, why and when we give up. */
export function humanLine(p: RolloutProgress, now: number): string {
  const note = failingNote(p, now);
  if (!note) return p.message;
  return p.message.endsWith('...') ? `${p.message.slice(0, -3)}; ${note}...` : `${p.message}; ${note}`;
}

/** `  subset "zone-a": 1 of 1 updated pods ready (2 replicas, partition 1), done` per subset of a UnitedDeployment. */
export function subsetLines(p: RolloutProgress): string[] {
  // nothing to say per subset before its pods are listed
  if (p.subsets?.some((s) => s.updatedReadyReplicas === undefined)) return [];
  return (p.subsets ?? []).map((s) => {
    const counts = `${s.updatedReadyReplicas ?? 0} of ${s.expectedUpdatedReplicas} updated pods ready`;
    return `  subset "${s.name}": ${counts} (${s.replicas} replicas, partition ${s.partition})${s.done ? ', done' : ''}`;
  });
}

/**
 * The contract's fields, in a stable order: the object and its state, then the rollout's counts
 * (or a job kind's: BroadcastJob), then the pods a verdict names.
 */
export function statusView(p: RolloutProgress, now: number): Record<string, unknown> {
  const message = humanLine(p, now);
  const view: Record<string, unknown> = {
    kind: p.kind,
    apiVersion: p.apiVersion,
    namespace: p.namespace,
    name: p.name,
    state: p.state,
    ...(p.job
      ? { desired: p.job.desired, active: p.job.active, succeeded: p.job.succeeded, failed: p.job.failed, phase: p.job.phase, message }
      : {
          replicas: p.replicas,
          expectedUpdatedReplicas: p.expectedUpdatedReplicas,
          updatedReplicas: p.updatedReplicas,
          updatedReadyReplicas: p.updatedReadyReplicas,
          updatedAvailableReplicas: p.updatedAvailableReplicas,
          partition: p.partition,
          updateRevision: p.updateRevision ?? '',
          currentRevision: p.currentRevision ?? '',
          message,
          expectedUpdatedReplicasSource: p.expectedFromStatus ? 'status' : 'computed',
        }),
  };
  if (p.subsets) view.subsets = p.subsets;
  if (p.failedPod) view.failedPod = p.failedPod;
  if (p.failing) {
    view.failingPod = { name: p.failing.name, reason: p.failing.reason, container: p.failing.container, failingInSeconds: secondsLeft(p.failing.failAt, now) };
  }
  return view;
}

/** One JSON Lines object (the last one final). */
export function statusJsonLine(p: RolloutProgress, now: number = Date.now()): string {
  return JSON.stringify(statusView(p, now));
}

/**
 * -o yaml: one YAML document per change of state (`---` between them, like `kubectl get -w -o yaml`);
 * -o jsonpath: the template applied to each state, without a trailing newline (kubectl's jsonpath printer).
 */
export function statusDocument(p: RolloutProgress, now: number, format: OutputFormat, index: number): string {
  const view = statusView(p, now);
  if (format.kind === 'jsonpath') return compileJsonPath(format.template).execute(view);
  return yamlStreamDocument(view, format.kind === 'yaml' ? format : {}, index);
}

/** -o name: the object as kubectl's name printer writes it (`cloneset.apps.kruise.io/web`). */
export function statusName(p: Pick<RolloutProgress, 'kind' | 'apiVersion' | 'name'>): string {
  return resourceName(p.kind, apiGroupOf(p.apiVersion), p.name);
}

/** Identity of a state for de-duplication: a new line only when this changes (not on every countdown second). */
export function statusKey(p: RolloutProgress): string {
  // ErrImagePull and ImagePullBackOff alternate while a pull keeps failing: one state, one line.
  const reason = p.failing?.reason === 'ImagePullBackOff' ? 'ErrImagePull' : p.failing?.reason;
  return `${p.state}\u0000${p.message}\u0000${p.failing ? `${p.failing.name}/${reason}` : ''}`;
}

/** The live spinner text on a TTY: the message plus the counts at a glance. */
export function statusSpinnerText(p: RolloutProgress, now: number = Date.now()): string {
  if (p.job) return `${humanLine(p, now)} [desired ${p.job.desired}, active ${p.job.active}, succeeded ${p.job.succeeded}, failed ${p.job.failed}]`;
  return `${humanLine(p, now)} [updated ${p.updatedReplicas}, ready ${p.updatedReadyReplicas}, available ${p.updatedAvailableReplicas}, expected ${p.expectedUpdatedReplicas} of ${p.replicas}]`;
}

/** Whether a state ends the wait. */
export function isFinal(p: RolloutProgress): boolean {
  return p.state === 'Complete' || p.state === 'PartitionComplete' || p.state === 'Failed' || p.state === 'TimedOut';
}
