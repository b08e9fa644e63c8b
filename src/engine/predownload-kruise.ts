// Pre-download through Kruise: one ImagePullJob for one image, one ImageListPullJob for
// several (one ImagePullJob per image where ImageListPullJob is not served, Kruise < 1.9).
// Job names are deterministic: a rerun follows the job it already created.
import type { CommandContext } from '../cli/context';
import type { KubeClient, KubeObject } from '../kube/client';
import { buildImageListPullJob, buildImagePullJob, pullJobName } from '../kruise/builders/imagepulljob';
import { createOrAdopt } from './idempotent';
import { DEFAULT_REQUEST_CONCURRENCY, mapLimit } from './concurrency';
import { waitUntilDeadline, watchSet, type LiveSet } from './live';
import type { JobReport, PredownloadOptions, PredownloadReporter, PredownloadRequest, PredownloadResult } from './predownload';

interface PullStatus {
  desired?: number;
  succeeded?: number;
  failed?: number;
  completed?: number;
  failedNodes?: string[];
  completionTime?: string;
  failedImageStatuses?: Array<{ imagePullJob?: string; name?: string; message?: string }>;
}

function statusOf(obj: KubeObject | undefined): PullStatus {
  return (obj?.status ?? {}) as PullStatus;
}

function imagesOf(obj: KubeObject): string[] {
  const spec = (obj.spec ?? {}) as { image?: string; images?: string[] };
  return spec.images ?? (spec.image ? [spec.image] : []);
}

function jobReport(label: string, obj: KubeObject | undefined, images: string[]): JobReport {
  const st = statusOf(obj);
  const desired = st.desired ?? 0;
  const succeeded = st.succeeded ?? 0;
  const failed = st.failed ?? 0;
  const done = Boolean(st.completionTime) || (desired > 0 && succeeded + failed >= desired);
  return { name: label, images, desired, succeeded, failed, failedNodes: [...(st.failedNodes ?? [])].sort(), done };
}

export async function pullWithJobs(ctx: CommandContext, client: KubeClient, request: PredownloadRequest, options: PredownloadOptions, reporter: PredownloadReporter): Promise<PredownloadResult> {
  const ns = request.namespace;
  const ipjRt = await client.resolve('imagepulljobs.apps.kruise.io');
  const useList = request.images.length > 1 && (await client.isServed('apps.kruise.io', 'imagelistpulljobs'));
  const ilpjRt = useList ? await client.resolve('imagelistpulljobs.apps.kruise.io') : undefined;
  const jobOptions = {
    parallelism: options.parallelism,
    timeoutSeconds: options.timeoutSeconds,
    backoffLimit: options.backoffLimit,
    pullSecrets: options.pullSecrets,
    ttlSecondsAfterFinished: options.ttlSecondsAfterFinished,
  };
  const desiredJobs: KubeObject[] = useList
    ? [
        buildImageListPullJob({
          apiVersion: `${ilpjRt!.group}/${ilpjRt!.version}`,
          name: pullJobName(request.nameBase, request.images, request.target),
          namespace: ns,
          images: request.images,
          target: request.target,
          options: jobOptions,
        }),
      ]
    : request.images.map((image) =>
        buildImagePullJob({
          apiVersion: `${ipjRt.group}/${ipjRt.version}`,
          name: pullJobName(request.nameBase, [image], request.target),
          namespace: ns,
          images: [image],
          target: request.target,
          options: jobOptions,
        }),
      );
  const rtOf = (o: KubeObject) => (o.kind === 'ImageListPullJob' ? ilpjRt! : ipjRt);
  if (options.dryRun !== 'none') {
    if (options.dryRun === 'server') await mapLimit(desiredJobs, DEFAULT_REQUEST_CONCURRENCY, (o) => client.create(rtOf(o), o, ns, { dryRun: true, signal: ctx.signal }));
    return { via: 'kruise', objects: desiredJobs, jobs: [], outcome: 'dry-run' };
  }
  const jobs: KubeObject[] = [];
  for (const o of desiredJobs) {
    const r = await createOrAdopt(client, rtOf(o), o, { signal: ctx.signal });
    if (!r.created) reporter.log(`${o.kind!.toLowerCase()}/${o.metadata.name} already exists: following it`);
    jobs.push(r.object);
  }
  ctx.setInterruptSummary(() => `created ${jobs.map((j) => `${j.kind!.toLowerCase()}/${j.metadata.name}`).join(', ')}; Kruise keeps pulling in the background`);
  if (!options.wait) return { via: 'kruise', objects: jobs, jobs: [], outcome: 'created' };

  const ipjs: LiveSet<KubeObject> = watchSet(client, ipjRt, ns, { signal: ctx.signal });
  const lists: LiveSet<KubeObject> | undefined = ilpjRt ? watchSet(client, ilpjRt, ns, { signal: ctx.signal }) : undefined;
  const deadline = options.timeoutMs > 0 ? Date.now() + options.timeoutMs : undefined;
  // A job removed by its TTL right after finishing (--ttl=0s) is judged from its last state.
  const lastState = (set: LiveSet<KubeObject> | undefined, name: string | undefined): KubeObject | undefined => set?.objects.get(name ?? '') ?? set?.gone.get(name ?? '');
  const reportNow = (): { reports: JobReport[]; done: boolean } => {
    const reports: JobReport[] = [];
    let done = true;
    for (const job of jobs) {
      if (job.kind === 'ImageListPullJob') {
        const live = lastState(lists, job.metadata.name);
        const st = statusOf(live);
        const byName = new Map([...ipjs.gone, ...ipjs.objects]);
        const children = [...byName.values()].filter((c) => c.metadata.ownerReferences?.some((o) => o.uid === job.metadata.uid));
        for (const c of children) reports.push(jobReport(`imagepulljob/${c.metadata.name}`, c, imagesOf(c)));
        const missing = imagesOf(job).filter((img) => !children.some((c) => imagesOf(c).includes(img)));
        if (missing.length > 0 && !st.completionTime) reports.push(jobReport(`imagelistpulljob/${job.metadata.name}`, undefined, missing));
        const listDone = Boolean(st.completionTime) || ((st.desired ?? 0) > 0 && (st.completed ?? 0) >= (st.desired ?? 0));
        if (!listDone) done = false;
      } else {
        const r = jobReport(`imagepulljob/${job.metadata.name}`, lastState(ipjs, job.metadata.name), imagesOf(job));
        reports.push(r);
        if (!r.done) done = false;
      }
    }
    return { reports, done };
  };
  let timedOut: boolean;
  try {
    const finished = await waitUntilDeadline(
      lists ? [ipjs, lists] : [ipjs],
      () => {
        const { reports, done } = reportNow();
        const lines = reports.map((r) => `${r.name} ${r.images.join(',')}: ${r.succeeded}/${r.desired} succeeded, ${r.failed} failed`);
        // A spinner on a TTY; in a log, one line per change of the counts.
        if (reports.some((r) => r.desired > 0 || r.done)) reporter.progress(lines.join('; '));
        return done;
      },
      { deadline, signal: ctx.signal, what: `the pre-download of ${request.what}` },
    );
    timedOut = finished === undefined;
  } finally {
    ipjs.stop();
    lists?.stop();
  }
  const { reports } = reportNow();
  const listFailures = jobs.flatMap((j) => (j.kind === 'ImageListPullJob' ? statusOf(lastState(lists, j.metadata.name)).failedImageStatuses ?? [] : []));
  const failed = reports.some((r) => r.failed > 0) || listFailures.length > 0;
  const finalJobs = jobs.map((j) => (j.kind === 'ImageListPullJob' ? lastState(lists, j.metadata.name) : lastState(ipjs, j.metadata.name)) ?? j);
  if (timedOut) return { via: 'kruise', objects: finalJobs, jobs: reports, outcome: 'timeout', message: `timed out waiting for the pre-download of ${request.what}` };
  return { via: 'kruise', objects: finalJobs, jobs: reports, outcome: failed ? 'failed' : 'succeeded' };
}
