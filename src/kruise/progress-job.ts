// `rollout status job/NAME` (and a batch/v1 Job in a release's manifest) as a wait-for-completion gate,
// pure: from the Job, its pods and the clock. Kube v1.32 facts (pkg/controller/job/job_controller.go,
// mirrored by src/kruise/rules/job.ts): the terminal conditions are Complete and Failed, written once
// the job's pods are gone; FailureTarget (and SuccessCriteriaMet) come first, when the outcome is
// decided; a suspended job has Suspended=True. Helm's kstatus reads a Job the same way (Complete or
// Failed condition). Same states and JSON fields as BroadcastJob (progress-broadcastjob.ts).
import type { KubeObject, Pod } from './types';
import type { EvaluateOptions, JobProgress, RolloutProgress } from './progress';
import { stuckPods, stuckPodText } from './progress';
import { failedPodText } from './progress-broadcastjob';
import { jobSpec, type JobStatus } from './rules/job';

function condition(s: JobStatus, type: string): { reason?: string; message?: string } | undefined {
  return s.conditions?.find((c) => c.type === type && c.status === 'True');
}

export function evaluateJob(job: KubeObject, pods: readonly Pod[], now: number, opts: EvaluateOptions = {}): RolloutProgress {
  const label = `job "${job.metadata.name ?? ''}"`;
  const s = (job.status ?? {}) as JobStatus;
  const spec = jobSpec(job);
  const desired = typeof spec.completions === 'number' ? spec.completions : 1;
  const succeeded = s.succeeded ?? 0;
  const failed = s.failed ?? 0;
  const active = s.active ?? 0;
  const counts: JobProgress = { desired, active, succeeded, failed, phase: '' };
  const base: RolloutProgress = {
    kind: job.kind ?? 'Job',
    apiVersion: job.apiVersion ?? 'batch/v1',
    namespace: job.metadata.namespace ?? '',
    name: job.metadata.name ?? '',
    state: 'Progressing',
    replicas: desired,
    expectedUpdatedReplicas: desired,
    updatedReplicas: succeeded,
    updatedReadyReplicas: succeeded,
    updatedAvailableReplicas: succeeded,
    partition: 0,
    message: '',
    expectedFromStatus: true,
    job: counts,
  };
  const result = (state: RolloutProgress['state'], phase: string, message: string, extra: Partial<RolloutProgress> = {}): RolloutProgress => ({ ...base, ...extra, job: { ...counts, phase }, state, message });
  const tally = `${succeeded} of ${desired} ${desired === 1 ? 'completion' : 'completions'} succeeded${active ? `, ${active} active` : ''}${failed ? `, ${failed} failed` : ''}`;

  // The outcome is decided at FailureTarget: waiting for the pods to go would not change it.
  const failure = condition(s, 'Failed') ?? condition(s, 'FailureTarget');
  if (failure) {
    const failedPod = pods.find((p) => p.status?.phase === 'Failed') ?? pods.find((p) => (p.status?.containerStatuses ?? []).some((c) => (c.restartCount ?? 0) > 0));
    const extra: Partial<RolloutProgress> = opts.podsListed ? {} : { needsPods: true };
    if (failedPod) {
      const cs = (failedPod.status?.containerStatuses ?? []).find((c) => (c.state?.terminated?.exitCode ?? 0) !== 0 || (c.restartCount ?? 0) > 0);
      const code = cs?.state?.terminated?.exitCode;
      extra.failedPod = { name: failedPod.metadata.name ?? '', reason: code !== undefined ? `exit code ${code}` : 'Failed', container: cs?.name ?? '' };
    }
    const why = [failure.reason, failure.message].filter(Boolean).join(': ') || 'the job failed';
    return result('Failed', 'failed', `${label} failed: ${why} (${tally})${failedPod ? `; ${failedPodText(failedPod)}` : ''}`, extra);
  }
  if (condition(s, 'Complete')) return result('Complete', 'completed', `${label} completed: ${tally}`);
  if (condition(s, 'Suspended') || spec.suspend) return result('Paused', 'suspended', `${label} is suspended (spec.suspend is true): ${tally}`, { detail: `suspended, ${tally}` });

  // A container that will not come up by itself fails the gate after the grace, as for rollouts.
  const { stuck, failing } = stuckPods(pods.filter((p) => !p.metadata.deletionTimestamp), now, opts);
  if (stuck) return result('Failed', 'running', `${label} failed: ${stuckPodText(stuck)}`, { failedPod: { name: stuck.name, reason: stuck.reason, container: stuck.container } });
  const extra: Partial<RolloutProgress> = failing ? { failing, recheckAt: failing.failAt } : {};
  const detail = condition(s, 'SuccessCriteriaMet') ? `${tally}; its pods are finishing` : tally;
  return result('Progressing', 'running', `Waiting for ${label} to complete: ${detail}...`, { ...extra, detail });
}
