// What the job kinds share (batch/v1 Job, Kruise's BroadcastJob, AdvancedCronJob's children):
// the condition shape and the "finished" test both Kruise and kube use, API timestamps, the name
// rule of Kruise's job webhooks, and the pod a controller makes from a job's template.
import type { KubeObject, OwnerReference, Pod } from '../types';

export interface JobCondition {
  type: string;
  status: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** RFC 3339 with second precision, as the API server stores metav1.Time. */
export function kubeTimestamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The Complete or Failed condition that is True (the job has finished), if any. */
export function finishedCondition(conditions: readonly JobCondition[] | undefined): 'Complete' | 'Failed' | undefined {
  for (const c of conditions ?? []) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  }
  return undefined;
}

const KRUISE_JOB_NAME = /^[a-zA-Z0-9-]+$/;

/**
 * The name rule Kruise's BroadcastJob and AdvancedCronJob webhooks share (validateBroadcastJobName,
 * validateAdvancedCronJobName: the same but for the kind), stricter than a DNS subdomain: no dots.
 */
export function kruiseJobNameProblems(kind: 'BroadcastJob' | 'AdvancedCronJob', name: string): string[] {
  const out: string[] = [];
  if (!KRUISE_JOB_NAME.test(name)) out.push(`${kind} name must consist of alphanumeric characters or '-' (e.g. 'example-com', regex used for validation is '^[a-zA-Z0-9\\-]+$')`);
  if (name.length > 63) out.push('must be no more than 63 characters');
  return out;
}

/** A job's pod template, as the job kinds' specs hold it. */
export interface JobPodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: unknown;
}

/**
 * A pod of a job from its template (GetPodFromTemplate): the template's labels (plus `labels`) and
 * annotations, generateName `<job>-`, the controller reference `owner`, and `finalizers` if given.
 */
export function podFromJobTemplate(job: KubeObject, template: JobPodTemplate | undefined, owner: OwnerReference, extra: { labels?: Record<string, string>; finalizers?: string[] } = {}): Pod {
  const t = structuredClone(template ?? {});
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${job.metadata.name}-`,
      namespace: job.metadata.namespace,
      labels: { ...(t.metadata?.labels ?? {}), ...(extra.labels ?? {}) },
      ...(extra.finalizers ? { finalizers: extra.finalizers } : {}),
      ownerReferences: [owner],
    },
    spec: (t.spec ?? { containers: [] }) as Pod['spec'],
  };
  const annotations = t.metadata?.annotations;
  if (annotations && Object.keys(annotations).length > 0) pod.metadata.annotations = { ...annotations };
  return pod;
}
