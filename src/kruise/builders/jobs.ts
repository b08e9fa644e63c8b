// The objects `create job` and `create broadcastjob` send: a manual run of a cron job's template (kubectl's
// createJobFromCronJob, pkg/cmd/create/create_job.go: the template's labels, its annotations over
// `cronjob.kubernetes.io/instantiate: manual`, a controller reference to the cron job without
// blockOwnerDeletion), or a one-container job from --image (restartPolicy Never, as kubectl's).
// Plus `MANUAL_RUN_SOURCES`: which kinds each verb may run from, and where their template lives.
import { advancedCronJobSpec, CRON_CHILD_KINDS, cronTemplateKind, type CronTemplateKind } from '../rules/advancedcronjob';
import type { KubeObject, OwnerReference } from '../types';

export const INSTANTIATE_ANNOTATION = 'cronjob.kubernetes.io/instantiate';

/** What a run is made of: a Job or a BroadcastJob. */
export type RunKind = 'Job' | 'BroadcastJob';

export interface TemplateSource {
  /** kind of the source object (AdvancedCronJob, CronJob). */
  kind: string;
  group: string;
  /** The template kind the object holds (a CronJob always holds a Job's). */
  templateKind(obj: KubeObject): CronTemplateKind;
  /** The template (metadata + spec) for `run`, or undefined. */
  template(obj: KubeObject): { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> } | undefined;
  /** The template's field, for messages ("jobTemplate"). */
  field(kind: CronTemplateKind): string;
}

/** An AdvancedCronJob's template of `run`'s kind (its field from CRON_CHILD_KINDS). */
function advancedCronJobSource(run: RunKind): TemplateSource {
  return {
    kind: 'AdvancedCronJob',
    group: 'apps.kruise.io',
    templateKind: (o) => cronTemplateKind(advancedCronJobSpec(o)),
    template: (o) => advancedCronJobSpec(o).template?.[CRON_CHILD_KINDS[run].templateField],
    field: (k) => CRON_CHILD_KINDS[k].templateField,
  };
}

/** The sources each verb accepts in --from, by kind. */
export const MANUAL_RUN_SOURCES: Record<RunKind, readonly TemplateSource[]> = {
  Job: [
    advancedCronJobSource('Job'),
    {
      kind: 'CronJob',
      group: 'batch',
      templateKind: () => 'Job',
      template: (o) => (o.spec as { jobTemplate?: ReturnType<TemplateSource['template']> } | undefined)?.jobTemplate,
      field: () => 'jobTemplate',
    },
  ],
  BroadcastJob: [advancedCronJobSource('BroadcastJob')],
};

/** kubectl's owner reference of a manual run: controller, no blockOwnerDeletion (no finalizer permission needed). */
export function manualRunOwner(source: KubeObject): OwnerReference {
  return { apiVersion: source.apiVersion ?? '', kind: source.kind ?? '', name: source.metadata.name ?? '', uid: source.metadata.uid ?? '', controller: true };
}

/** A run of `source`'s template named `name` (the template must exist: checked by the caller). */
export function manualRun(run: { apiVersion: string; kind: RunKind; name: string }, source: KubeObject, template: NonNullable<ReturnType<TemplateSource['template']>>): KubeObject {
  const labels = template.metadata?.labels;
  return {
    apiVersion: run.apiVersion,
    kind: run.kind,
    metadata: {
      name: run.name,
      ...(labels && Object.keys(labels).length > 0 ? { labels: { ...labels } } : {}),
      annotations: { [INSTANTIATE_ANNOTATION]: 'manual', ...(template.metadata?.annotations ?? {}) },
      ownerReferences: [manualRunOwner(source)],
    },
    spec: structuredClone(template.spec ?? {}),
  };
}

/** `--image` (kubectl's createJob): one container named after the job, restartPolicy Never. */
export function imageRun(run: { apiVersion: string; kind: RunKind; name: string }, image: string, command: readonly string[]): KubeObject {
  const container: Record<string, unknown> = { name: run.name, image };
  if (command.length > 0) container.command = [...command];
  return {
    apiVersion: run.apiVersion,
    kind: run.kind,
    metadata: { name: run.name },
    spec: { template: { spec: { containers: [container], restartPolicy: 'Never' } } },
  };
}
