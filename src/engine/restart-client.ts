// Restart executor for clusters without Kruise: delete the pods one batch at a time and
// wait for the workload's controller to bring replacements Ready before the next batch.
// Whole pods are recreated (new UIDs); -c cannot be honoured without Kruise's daemon.
import type { CommandContext } from '../cli/context';
import type { KubeClient, KubeObject } from '../kube/client';
import type { Pod } from '../kruise/types';
import { batchSizeFor, planBatches, podIsReady } from '../kruise/plans/restart';
import { usageError } from '../cli/exit';
import { isApiStatus, isConflict, isNotFound } from '../kube/errors';
import { planWithBudgets, readBudgets } from './budgets';
import { DEFAULT_REQUEST_CONCURRENCY, mapLimit } from './concurrency';
import { waitUntilDeadline, watchSet, type LiveSet } from './live';
import { labelSelectorString } from '../kruise/selectors';
import { POD_RT, type WorkloadTarget } from './targets';
import { coveredByRun, deletedByRun, resumableRun, type RestartRunRecord } from '../kruise/plans/restart-run';
import { shortHash } from '../kruise/builders/hash';
import type { RestartLease } from './restart-lease';
import { podList, type RestartOptions, type RestartReporter, type RestartResult, type RestartRow } from './restart-types';

function controllerUid(pod: Pod): string | undefined {
  return pod.metadata.ownerReferences?.find((o) => o.controller)?.uid;
}

export async function restartByRecreating(
  ctx: CommandContext,
  client: KubeClient,
  target: WorkloadTarget,
  options: RestartOptions,
  reporter: RestartReporter,
  lease?: RestartLease,
): Promise<RestartResult> {
  const what = `${target.kind.toLowerCase()}/${target.name}`;
  // An earlier run that did not end is continued: a pod it did not know (created after it began,
  // by the controller, of the current template) is done; its own pods still here are left to do,
  // but for those it deleted that are still terminating (going already: deleting them again would
  // count twice).
  const resumed = options.dryRun === 'none' ? resumableRun(lease?.previous, 'client', options.containers) : undefined;
  const all = resumed ? target.pods.filter((p) => !deletedByRun(resumed, p)) : target.pods;
  const pods = resumed ? all.filter((p) => coveredByRun(resumed, p.metadata.uid ?? '') === undefined) : all;
  const orphans = pods.filter((p) => !controllerUid(p));
  if (orphans.length > 0) {
    throw usageError(`pod "${orphans[0]!.metadata.name}" has no controller to recreate it: deleting it would lose it (the client-side restart needs a workload); nothing was deleted`);
  }
  const ns = target.namespace;
  const size = batchSizeFor(options.maxUnavailable, all.length);
  const batches = planBatches(pods, size);
  const wholePod = (all[0] ?? target.pods[0])!.spec.containers.map((c) => c.name);
  if (options.dryRun !== 'none') {
    if (options.dryRun === 'server') {
      await mapLimit(pods, options.concurrency ?? DEFAULT_REQUEST_CONCURRENCY, (p) => client.delete(POD_RT, p.metadata.name ?? '', ns, { dryRun: true, signal: ctx.signal }), ctx.signal);
    }
    // The pods that would be deleted, batch by batch: the command prints them like kubectl delete --dry-run.
    return { via: 'client', rows: [], objects: batches.flat() as KubeObject[], batches: batches.length, outcome: 'dry-run' };
  }
  if (options.containers.length > 0) reporter.log(`note: without Kruise the whole pod is recreated, not only ${options.containers.join(', ')}`);

  const owners = new Set(all.map(controllerUid));
  const liveSelector = target.selector ? labelSelectorString(target.selector) : undefined;
  const podSet: LiveSet<Pod> = watchSet<Pod>(client, POD_RT, ns, { labelSelector: liveSelector, signal: ctx.signal });
  const deadline = options.timeoutMs > 0 ? Date.now() + options.timeoutMs : undefined;
  const rows: RestartRow[] = [];
  let deleted = 0;
  let batchesDone = 0;
  const inFlight = new Set<Promise<unknown>>();
  const stop = new AbortController();
  // Stops starting deletes at the interrupt; those already sent are answered, to be counted.
  const startSignal = AbortSignal.any([ctx.signal, stop.signal]);
  let record: RestartRunRecord | undefined;
  ctx.setInterruptSummary(async () => {
    stop.abort();
    await Promise.race([Promise.allSettled([...inFlight]), new Promise((res) => setTimeout(res, 1500))]);
    if (lease) await lease.release(record);
    return `client-side restart of ${what}: ${batchesDone} of ${batches.length} batch${batches.length === 1 ? '' : 'es'} done, ${deleted} pod${deleted === 1 ? '' : 's'} deleted; run the same command again to resume (only what is left is done)`;
  });
  const owned = (): Pod[] => [...podSet.objects.values()].filter((p) => owners.has(controllerUid(p)) && !p.metadata.deletionTimestamp);
  // PodUnavailableBudgets refuse pod deletes beyond their headroom (Kruise's webhook): watched when any exist.
  const budgets = await readBudgets(client, ns, ctx.signal);
  const pubSet: LiveSet<KubeObject> | undefined = budgets.pubs.length > 0 && budgets.pubRt ? watchSet<KubeObject>(client, budgets.pubRt, ns, { signal: ctx.signal }) : undefined;
  /**
   * With budgets, the batch's deletes are sent here one by one as the budgets admit them (a pod that
   * must wait is named once); returns the pods left for the caller to delete (all of them without
   * budgets, none with), or undefined at the deadline.
   */
  const admitThroughBudgets = async (batch: Pod[], say: (line: string) => void): Promise<Pod[] | undefined> => {
    if (!pubSet) return batch;
    await pubSet.synced;
    const said = new Set<string>();
    let pending = batch;
    while (pending.length > 0) {
      const live = [...podSet.objects.values()];
      const current = pending.map((p) => live.find((l) => l.metadata.uid === p.metadata.uid) ?? p);
      const { plan, lines } = planWithBudgets('DELETE', current, live, { ...budgets, pubs: [...pubSet.objects.values()] });
      for (const line of lines) if (!said.has(line.split(' (')[0]!)) (said.add(line.split(' (')[0]!), say(`${line}; not deleted until it has room`));
      const now = pending.filter((p) => plan.allowed.includes(p.metadata.name ?? ''));
      if (now.length > 0) {
        // spend the budget as the webhook will: one delete at a time, re-read before the next
        const first = now[0]!;
        try {
          await client.delete(POD_RT, first.metadata.name ?? '', ns, { signal: ctx.signal, preconditions: { uid: first.metadata.uid } });
          deleted++;
        } catch (err) {
          // refused by a budget our (watched) view had not caught up with: wait for the next change
          const byBudget = isApiStatus(err, 403) && /podunavailablebudget/.test((err as Error).message);
          if (!isNotFound(err) && !isConflict(err) && !byBudget) throw err;
          if (byBudget) {
            if (!(await waitForChange())) return undefined;
            continue;
          }
        }
        pending = pending.filter((p) => p !== first);
        continue;
      }
      if (!(await waitForChange())) return undefined;
    }
    return [];
  };
  /** Resolves at the next change of a budget or a pod (false at the deadline). */
  const waitForChange = async (): Promise<boolean> => {
    const sets = [podSet as LiveSet<KubeObject>, ...(pubSet ? [pubSet] : [])];
    let changed = false;
    const offs = sets.map((set) => set.onChange(() => (changed = true)));
    try {
      const r = await waitUntilDeadline(sets, () => changed || undefined, { deadline, signal: ctx.signal, what: 'an availability budget to admit the next pod' });
      return r === true;
    } finally {
      for (const off of offs) off();
    }
  };
  try {
    await podSet.synced;
    // The workload is back once it has as many Ready pods as before the restart began (the
    // first run's count when resuming: its last batch may still be coming back).
    const readyBefore = resumed?.readyBefore ?? owned().filter(podIsReady).length;
    record = resumed ?? { id: shortHash(`${target.object.metadata.uid ?? target.name}|${Date.now()}|${Math.random()}`, 8), via: 'client', containers: options.containers.join(','), state: 'running', startedAt: new Date().toISOString(), pods: all.map((p) => p.metadata.uid ?? ''), created: [], readyBefore, ...(options.parent ? { parent: options.parent } : {}) };
    if (lease) await lease.save(record);
    if (resumed) {
      const done = all.length - pods.length;
      reporter.log(`resuming client-side restart ${resumed.id} of ${what}, which did not finish: ${done} of ${all.length} pods already recreated${pods.length === 0 ? '; nothing left to do' : `, ${pods.length} left`}`);
      const back = await waitUntilDeadline(
        [podSet as LiveSet<KubeObject>],
        () => owned().filter(podIsReady).length >= readyBefore,
        { deadline, signal: ctx.signal, what: `the pods recreated by the earlier run of ${what} to be ready` },
      );
      if (back === undefined) return { via: 'client', rows, objects: [], batches: batches.length, outcome: 'timeout', message: `timed out waiting for the pods recreated by the earlier run of ${what} to be ready` };
    }
    for (let b = 0; b < batches.length; b++) {
      const batch = batches[b]!;
      const started = Date.now();
      const uids = new Set(batch.map((p) => p.metadata.uid));
      // Only the pods the budgets admit are deleted; the others wait (named once) until the budget frees.
      const admitted = await admitThroughBudgets(batch, (line) => reporter.log(`batch ${b + 1}/${batches.length}: ${line}`));
      if (admitted === undefined) {
        for (const p of batch) rows.push({ pod: p.metadata.name ?? '', containers: wholePod, phase: 'WaitingForBudget' });
        return { via: 'client', rows, objects: [], batches: batches.length, outcome: 'timeout', message: `timed out waiting for an availability budget to admit the pods of batch ${b + 1}/${batches.length}` };
      }
      await mapLimit(
        admitted,
        options.concurrency ?? DEFAULT_REQUEST_CONCURRENCY,
        async (p) => {
          try {
            // Only the pod planned on: a StatefulSet's replacement keeps the name, and is recreated already (409).
            const sent = client.delete(POD_RT, p.metadata.name ?? '', ns, { signal: ctx.signal, preconditions: { uid: p.metadata.uid } });
            inFlight.add(sent);
            await sent.finally(() => inFlight.delete(sent));
            deleted++;
          } catch (err) {
            if (!isNotFound(err) && !isConflict(err)) throw err;
          }
        },
        startSignal,
      );
      const batchRows = batch.map((p): RestartRow => ({ pod: p.metadata.name ?? '', containers: wholePod, phase: 'Deleted' }));
      rows.push(...batchRows);
      if (!options.wait) {
        reporter.log(`batch ${b + 1}/${batches.length}: deleted ${batch.length} pod${batch.length === 1 ? '' : 's'} (${podList(batch.map((p) => p.metadata.name))})`);
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
      // Interrupted: the summary being written is the last word; record nothing more.
      if (stop.signal.aborted) await new Promise<never>(() => undefined);
      const timedOut = replaced === undefined;
      for (const r of batchRows) {
        r.durationMs = Date.now() - started;
        r.phase = timedOut ? 'Waiting' : 'Replaced';
      }
      if (timedOut) {
        return { via: 'client', rows, objects: [], batches: batches.length, outcome: 'timeout', message: `timed out waiting for the replacements of batch ${b + 1}/${batches.length} to be ready` };
      }
      batchesDone++;
      reporter.log(`batch ${b + 1}/${batches.length}: ${batch.length} pod${batch.length === 1 ? '' : 's'} recreated and ready (${podList(batch.map((p) => p.metadata.name))})`);
    }
    record.state = 'done';
    if (lease) await lease.save(record);
  } finally {
    podSet.stop();
    pubSet?.stop();
  }
  return { via: 'client', rows, objects: [], batches: batches.length, outcome: 'succeeded' };
}
