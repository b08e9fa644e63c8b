// Pre-download through Kruise: one ImagePullJob for one image, one ImageListPullJob for
// several (one ImagePullJob per image where ImageListPullJob is not served, Kruise < 1.9).
// Job names are deterministic: a rerun follows the job it already created.
import type { CommandContext } from '../cli/context';
import type { KubeClient, KubeObject } from '../kube/client';
import { buildImageListPullJob, buildImagePullJob, pullJobName } from '../kruise/builders/imagepulljob';
import { createOrAdopt } from './idempotent';
import { DEFAULT_REQUEST_CONCURRENCY, mapLimit } from './concurrency';
import { waitUntilDeadline, watchSet, type LiveSet } from './live';
import { pullProgress, pullStatusOf, type PullView } from '../kruise/plans/pull-progress';
import type { PredownloadOptions, PredownloadReporter, PredownloadRequest, PredownloadResult } from './predownload-types';

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
  // A job removed by its TTL right after finishing (--ttl=0s) is judged from its last state (a LiveSet's
  // `gone` and `objects` never share a name).
  const view = (): PullView => ({
    pullJobs: new Map([...ipjs.gone, ...ipjs.objects]),
    goneJobs: new Set(ipjs.gone.keys()),
    listJobs: lists ? new Map([...lists.gone, ...lists.objects]) : new Map(),
  });
  const reportNow = () => pullProgress(jobs, view());
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
  const last = view();
  const { reports } = pullProgress(jobs, last);
  const lastState = (j: KubeObject): KubeObject | undefined => (j.kind === 'ImageListPullJob' ? last.listJobs : last.pullJobs).get(j.metadata.name ?? '');
  const listFailures = jobs.flatMap((j) => (j.kind === 'ImageListPullJob' ? pullStatusOf(lastState(j)).failedImageStatuses ?? [] : []));
  const failed = reports.some((r) => r.failed > 0) || listFailures.length > 0;
  const finalJobs = jobs.map((j) => lastState(j) ?? j);
  if (timedOut) return { via: 'kruise', objects: finalJobs, jobs: reports, outcome: 'timeout', message: `timed out waiting for the pre-download of ${request.what}` };
  return { via: 'kruise', objects: finalJobs, jobs: reports, outcome: failed ? 'failed' : 'succeeded' };
}
