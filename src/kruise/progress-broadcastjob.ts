// `rollout status broadcastjob/NAME` as a wait-for-completion gate, pure: from the BroadcastJob, its
// pods and the clock, whether it completed, failed, is paused or still runs. Same states and general
// JSON fields as the workload kinds (src/kruise/progress.ts) plus the job's counts (`job`).
// Kruise facts (v1.9.0, src/kruise/rules/broadcastjob.ts): the controller writes phase running |
// paused | completed | failed and appends a True Complete or Failed condition when it finishes
// (FailFast on a failed pod, activeDeadlineSeconds); completionPolicy Never never completes;
// failurePolicy Pause holds the job in phase paused while a failed pod remains.
import type { KubeObject, Pod } from './types';
import type { EvaluateOptions, JobProgress, RolloutProgress } from './progress';
import { stuckPods, stuckPodText } from './progress';
import { broadcastJobSpec, broadcastJobStatus } from './rules/broadcastjob';
import { trimPodEnds } from './rollout-pods';

/** What a failed pod says about its end: `pod "x" on node "n": container "c" exited with code 3 (Error)`. */
export function failedPodText(pod: Pod): string {
  const node = pod.spec?.nodeName ? ` on node "${pod.spec.nodeName}"` : '';
  for (const cs of pod.status?.containerStatuses ?? []) {
    const t = cs.state?.terminated;
    if (t && t.exitCode !== 0) return `pod "${pod.metadata.name}"${node}: container "${cs.name}" exited with code ${t.exitCode ?? '?'}${t.reason ? ` (${t.reason})` : ''}`;
  }
  const restarts = (pod.status?.containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0);
  if (restarts > 0) return `pod "${pod.metadata.name}"${node}: restarted ${restarts} ${restarts === 1 ? 'time' : 'times'}`;
  return `pod "${pod.metadata.name}"${node} failed`;
}

/** The pod to name in a failure: a Failed one first, else one whose containers restarted (restartLimit). */
function failedPodOf(pods: readonly Pod[]): Pod | undefined {
  return pods.find((p) => p.status?.phase === 'Failed') ?? pods.find((p) => p.status?.phase !== 'Succeeded' && (p.status?.containerStatuses ?? []).some((c) => (c.restartCount ?? 0) > 0));
}

export function evaluateBroadcastJob(job: KubeObject, pods: readonly Pod[], now: number, opts: EvaluateOptions = {}): RolloutProgress {
  const label = `broadcastjob "${job.metadata.name ?? ''}"`;
  const s = broadcastJobStatus(job);
  const spec = broadcastJobSpec(job);
  const counts: JobProgress = { desired: s.desired, active: s.active, succeeded: s.succeeded, failed: s.failed, phase: s.phase };
  const base: RolloutProgress = {
    kind: job.kind ?? 'BroadcastJob',
    apiVersion: job.apiVersion ?? '',
    namespace: job.metadata.namespace ?? '',
    name: job.metadata.name ?? '',
    state: 'Progressing',
    // the workload fields, for code reading any verdict: desired pods, those finished successfully
    replicas: s.desired,
    expectedUpdatedReplicas: s.desired,
    updatedReplicas: s.succeeded,
    updatedReadyReplicas: s.succeeded,
    updatedAvailableReplicas: s.succeeded,
    partition: 0,
    message: '',
    expectedFromStatus: true,
    job: counts,
  };
  const result = (state: RolloutProgress['state'], message: string, extra: Partial<RolloutProgress> = {}): RolloutProgress => ({ ...base, ...extra, state, message });
  const tally = `${s.succeeded} of ${s.desired} pods succeeded${s.active ? `, ${s.active} active` : ''}${s.failed ? `, ${s.failed} failed` : ''}`;

  const failedCondition = s.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
  if (failedCondition || s.phase === 'failed') {
    const failedPod = failedPodOf(pods);
    const why = failedCondition?.message ?? 'the job failed';
    const extra: Partial<RolloutProgress> = opts.podsListed ? {} : { needsPods: true };
    if (failedPod) extra.failedPod = { name: failedPod.metadata.name ?? '', reason: failedReason(failedPod), container: failedContainer(failedPod) };
    return result('Failed', `${label} failed: ${why} (${tally})${failedPod ? `; ${failedPodText(failedPod)}` : ''}`, extra);
  }
  if (s.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') || s.phase === 'completed') {
    const failedNote = s.failed > 0 ? ` (failurePolicy ${spec.failurePolicy?.type ?? 'Continue'}: ${s.failed} failed)` : '';
    return result('Complete', `${label} completed: ${s.succeeded} of ${s.desired} pods succeeded${failedNote}`);
  }
  if (!s.phase) return result('Progressing', `Waiting for ${label} to start...`, { detail: 'the controller has not started it yet' });

  // Pods that will not come up by themselves fail the gate after the grace, as for rollouts.
  const { stuck, failing } = stuckPods(pods.filter((p) => !p.metadata.deletionTimestamp), now, opts);
  if (stuck) return result('Failed', `${label} failed: ${stuckPodText(stuck)}`, { failedPod: { name: stuck.name, reason: stuck.reason, container: stuck.container } });
  const extra: Partial<RolloutProgress> = failing ? { failing, recheckAt: failing.failAt } : {};
  if (s.phase === 'paused') {
    const why = spec.paused ? 'spec.paused is true' : `failurePolicy Pause stopped it after ${s.failed} failed ${s.failed === 1 ? 'pod' : 'pods'}`;
    return result('Paused', `${label} is paused: ${why} (${tally})`, { ...extra, detail: `paused, ${tally}` });
  }
  if (spec.completionPolicy?.type === 'Never') {
    const detail = `completionPolicy Never: it runs until deleted, ${tally}`;
    return result('Progressing', `Waiting for ${label} to complete: ${detail}...`, { ...extra, detail });
  }
  const detail = s.desired === 0 ? 'no node is eligible for its pods yet' : tally;
  return result('Progressing', `Waiting for ${label} to complete: ${detail}...`, { ...extra, detail });
}

function failedContainer(pod: Pod): string {
  const cs = (pod.status?.containerStatuses ?? []).find((c) => (c.state?.terminated?.exitCode ?? 0) !== 0 || (c.restartCount ?? 0) > 0);
  return cs?.name ?? '';
}

function failedReason(pod: Pod): string {
  const t = (pod.status?.containerStatuses ?? []).find((c) => (c.state?.terminated?.exitCode ?? 0) !== 0)?.state?.terminated;
  if (t) return `exit code ${t.exitCode ?? '?'}`;
  return pod.status?.phase === 'Failed' ? 'Failed' : 'restarted beyond restartLimit';
}

/** The fields a BroadcastJob verdict reads of a pod (a long watch keeps no more). */
export function trimJobPod(pod: Pod): Pod {
  const metadata: Pod['metadata'] = { name: pod.metadata.name, uid: pod.metadata.uid, creationTimestamp: pod.metadata.creationTimestamp };
  if (pod.metadata.deletionTimestamp) metadata.deletionTimestamp = pod.metadata.deletionTimestamp;
  const spec = { containers: (pod.spec?.containers ?? []).map((c) => ({ name: c.name, image: c.image })) } as Pod['spec'];
  if (pod.spec?.nodeName) spec.nodeName = pod.spec.nodeName;
  return { metadata, spec, status: trimPodEnds(pod) } as Pod;
}
