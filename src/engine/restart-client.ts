// Restart executor for clusters without Kruise: delete the pods one batch at a time and
// wait for the workload's controller to bring replacements Ready before the next batch.
// Whole pods are recreated (new UIDs); -c cannot be honoured without Kruise's daemon.
import type { CommandContext } from '../cli/context';
import type { KubeClient, KubeObject } from '../kube/client';
import type { Pod } from '../kruise/types';
import { batchSizeFor, planBatches, podIsReady } from '../kruise/plans/restart';
import { usageError } from '../cli/exit';
import { isNotFound } from '../kube/errors';
import { DEFAULT_REQUEST_CONCURRENCY, mapLimit } from './concurrency';
import { waitUntilDeadline, watchSet, type LiveSet } from './live';
import { labelSelectorString } from '../kruise/selectors';
import { POD_RT, type WorkloadTarget } from './targets';
import { podList, type RestartOptions, type RestartReporter, type RestartResult, type RestartRow } from './restart';

function controllerUid(pod: Pod): string | undefined {
  return pod.metadata.ownerReferences?.find((o) => o.controller)?.uid;
}

export async function restartByRecreating(ctx: CommandContext, client: KubeClient, target: WorkloadTarget, options: RestartOptions, reporter: RestartReporter): Promise<RestartResult> {
  const pods = target.pods;
  const orphans = pods.filter((p) => !controllerUid(p));
  if (orphans.length > 0) {
    throw usageError(`pod "${orphans[0]!.metadata.name}" has no controller to recreate it: deleting it would lose it (the client-side restart needs a workload); nothing was deleted`);
  }
  const ns = target.namespace;
  const size = batchSizeFor(options.maxUnavailable, pods.length);
  const batches = planBatches(pods, size);
  const wholePod = pods[0]!.spec.containers.map((c) => c.name);
  if (options.dryRun !== 'none') {
    if (options.dryRun === 'server') {
      await mapLimit(pods, options.concurrency ?? DEFAULT_REQUEST_CONCURRENCY, (p) => client.delete(POD_RT, p.metadata.name ?? '', ns, { dryRun: true, signal: ctx.signal }), ctx.signal);
    }
    // The pods that would be deleted, batch by batch: the command prints them like kubectl delete --dry-run.
    return { via: 'client', rows: [], objects: batches.flat() as KubeObject[], batches: batches.length, outcome: 'dry-run' };
  }
  if (options.containers.length > 0) reporter.log(`note: without Kruise the whole pod is recreated, not only ${options.containers.join(', ')}`);

  const owners = new Set(pods.map(controllerUid));
  const liveSelector = target.selector ? labelSelectorString(target.selector) : undefined;
  const podSet: LiveSet<Pod> = watchSet<Pod>(client, POD_RT, ns, { labelSelector: liveSelector, signal: ctx.signal });
  const deadline = options.timeoutMs > 0 ? Date.now() + options.timeoutMs : undefined;
  const rows: RestartRow[] = [];
  let deleted = 0;
  let batchesDone = 0;
  ctx.setInterruptSummary(
    () => `client-side restart of ${target.kind.toLowerCase()}/${target.name}: ${batchesDone} of ${batches.length} batches done, ${deleted} pods deleted`,
  );
  const owned = (): Pod[] => [...podSet.objects.values()].filter((p) => owners.has(controllerUid(p)) && !p.metadata.deletionTimestamp);
  try {
    await podSet.synced;
    // The workload is back once it has as many Ready pods as before the restart began.
    const readyBefore = owned().filter(podIsReady).length;
    for (let b = 0; b < batches.length; b++) {
      const batch = batches[b]!;
      const started = Date.now();
      const uids = new Set(batch.map((p) => p.metadata.uid));
      await mapLimit(
        batch,
        options.concurrency ?? DEFAULT_REQUEST_CONCURRENCY,
        async (p) => {
          try {
            await client.delete(POD_RT, p.metadata.name ?? '', ns, { signal: ctx.signal });
            deleted++;
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        },
        ctx.signal,
      );
      const batchRows = batch.map((p): RestartRow => ({ pod: p.metadata.name ?? '', containers: wholePod, phase: 'Deleted' }));
      rows.push(...batchRows);
      if (!options.wait) {
        reporter.log(`batch ${b + 1}/${batches.length}: deleted ${batch.length} pods (${podList(batch.map((p) => p.metadata.name))})`);
        return { via: 'client', rows, objects: [], batches: batches.length, outcome: 'created' };
      }
      const replaced = await waitUntilDeadline(
        [podSet as LiveSet<KubeObject>],
        () => {
          const current = owned();
          const stillOld = [...podSet.objects.values()].filter((p) => uids.has(p.metadata.uid)).length;
          const ready = current.filter(podIsReady).length;
          reporter.progress(`batch ${b + 1}/${batches.length}: ${batch.length - stillOld}/${batch.length} old pods gone, ${ready}/${readyBefore} pods ready`);
          return stillOld === 0 && ready >= readyBefore;
        },
        { deadline, signal: ctx.signal, what: `the replacements of batch ${b + 1}/${batches.length} of ${target.kind.toLowerCase()}/${target.name} to be ready` },
      );
      const timedOut = replaced === undefined;
      for (const r of batchRows) {
        r.durationMs = Date.now() - started;
        r.phase = timedOut ? 'Waiting' : 'Replaced';
      }
      if (timedOut) {
        return { via: 'client', rows, objects: [], batches: batches.length, outcome: 'timeout', message: `timed out waiting for the replacements of batch ${b + 1}/${batches.length} to be ready` };
      }
      batchesDone++;
      reporter.log(`batch ${b + 1}/${batches.length}: ${batch.length} pods recreated and ready (${podList(batch.map((p) => p.metadata.name))})`);
    }
  } finally {
    podSet.stop();
  }
  return { via: 'client', rows, objects: [], batches: batches.length, outcome: 'succeeded' };
}
