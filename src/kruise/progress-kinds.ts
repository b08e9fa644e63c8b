// What `rollout status` needs of each kind it waits for, as one table: how to judge an object
// (its verdict), which pods to watch (selector) and which of them a verdict reads (podTest, trimPod).
// The workload kinds come through their adapters (src/kruise/workloads, judged by progress.ts);
// BroadcastJob is a job kind, judged by completion (progress-broadcastjob.ts). Commands look a kind
// up here and never branch on it.
import type { KubeObject, Pod } from './types';
import type { LabelSelector } from './selectors';
import { evaluateRolloutWith, KIND_LABELS, updatedPodTest, type EvaluateOptions, type RolloutProgress } from './progress';
import { evaluateBroadcastJob, trimJobPod } from './progress-broadcastjob';
import { BROADCAST_JOB_UID_LABEL } from './rules/broadcastjob';
import { evaluateJob } from './progress-job';
import { jobSpec } from './rules/job';
import { trimPod } from './rollout-pods';
import { apiGroupOf } from './api-version';
import { adapterFor, adapterForGroupKind } from './workloads/index';

export interface ProgressKind {
  /** Lower-case words for messages before the object is read ("cloneset", "broadcastjob"). */
  label: string;
  /** What is awaited, in the timeout and deletion messages: `timed out waiting for cloneset "x" <after>`, `deleted while waiting for <deleted>`. */
  awaited: { after: string; deleted: string };
  /** The pods to watch (undefined: none, an empty selector would match the namespace). */
  selector(obj: KubeObject): LabelSelector | undefined;
  /** The pods a verdict reads, and the identity of that test (a new key restarts the pod watch). */
  podTest(obj: KubeObject): ((pod: Pod) => boolean) & { key: string };
  /** The fields of a pod the verdict reads. */
  trimPod(pod: Pod): Pod;
  evaluate(obj: KubeObject, pods: readonly Pod[], now: number, opts: EvaluateOptions): RolloutProgress;
}

const allPods = Object.assign(() => true, { key: 'all' });

const BROADCAST_JOB: ProgressKind = {
  label: 'broadcastjob',
  awaited: { after: 'to complete', deleted: 'it to complete' },
  selector: (obj) => (obj.metadata.uid ? { matchLabels: { [BROADCAST_JOB_UID_LABEL]: obj.metadata.uid } } : undefined),
  podTest: () => allPods,
  trimPod: trimJobPod,
  evaluate: evaluateBroadcastJob,
};

/** batch/v1 Job: its pods through its own selector (the controller-uid label the API server generates). */
const JOB: ProgressKind = {
  label: 'job',
  awaited: { after: 'to complete', deleted: 'it to complete' },
  selector: (obj) => {
    const sel = jobSpec(obj).selector;
    return sel && (Object.keys(sel.matchLabels ?? {}).length > 0 || (sel.matchExpressions ?? []).length > 0) ? sel : undefined;
  },
  podTest: () => allPods,
  trimPod: trimJobPod,
  evaluate: evaluateJob,
};

/** Job kinds by "group/Kind". */
const JOB_KINDS: Record<string, ProgressKind> = { 'apps.kruise.io/BroadcastJob': BROADCAST_JOB, 'batch/Job': JOB };

/** The progress kind of an object: a workload (through its adapter) or a job kind; undefined otherwise. */
export function progressKindFor(obj: KubeObject): ProgressKind | undefined {
  const job = JOB_KINDS[`${apiGroupOf(obj.apiVersion)}/${obj.kind ?? ''}`];
  if (job) return job;
  const adapter = adapterFor(obj);
  if (!adapter) return undefined;
  return {
    label: KIND_LABELS[adapter.kindName],
    awaited: { after: 'rollout to finish', deleted: 'its rollout to finish' },
    selector: (o) => adapter.selector(o),
    podTest: (o) => updatedPodTest(adapter, o),
    trimPod,
    evaluate: (o, pods, now, opts) => evaluateRolloutWith(adapter, o, pods, now, opts),
  };
}

/** Whether `rollout status` can wait for objects of this group and kind. */
export function hasProgressKind(group: string, kind: string): boolean {
  return JOB_KINDS[`${group}/${kind}`] !== undefined || adapterForGroupKind(group, kind) !== undefined;
}

/** The job kind of a group and kind (undefined for workloads and everything else). */
export function jobProgressKind(group: string, kind: string): ProgressKind | undefined {
  return JOB_KINDS[`${group}/${kind}`];
}
