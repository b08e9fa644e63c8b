// Restart executor that posts ContainerRecreateRequests and follows their status.
// CRR names are derived from pod + run, and a rerun continues the run that did not finish (its
// record is kept in the restart Lease), so an interrupted restart never restarts a pod twice.
import type { CommandContext } from '../cli/context';
import type { KubeClient, KubeObject } from '../kube/client';
import type { Pod } from '../kruise/types';
import { buildCrr, crrName, RESTART_RUN_LABEL, type CrrRunInfo } from '../kruise/builders/crr';
import { shortHash } from '../kruise/builders/hash';
import { batchSizeFor, comparePodNames, crrBoundElsewhere, crrMessage, crrOutcome, crrPhase, crrRecordedRestarts, planBatches, podIsReady, podReplacedSince, restartCounts } from '../kruise/plans/restart';
import { coveredByRun, resumableRun, type RestartRunRecord } from '../kruise/plans/restart-run';
import { isApiStatus, isNotFound } from '../kube/errors';
import { failingContainer } from '../kruise/progress';
import type { RestartLease } from './restart-lease';
import { usageError } from '../cli/exit';
import { createOrAdopt } from './idempotent';
import { DEFAULT_REQUEST_CONCURRENCY, mapLimit } from './concurrency';
import { waitUntilDeadline, watchSet, type LiveSet } from './live';
import { labelSelectorString } from '../kruise/selectors';
import { POD_RT, type WorkloadTarget } from './targets';
import { crdVersionLacksField } from './crd-fields';
import { podList, type RestartOptions, type RestartOutcome, type RestartReporter, type RestartResult, type RestartRow } from './restart-types';

/** --force needs strategy.forceRecreate (Kruise ≥ v1.8); a real server would silently prune it. */
async function checkForceSupported(client: KubeClient, version: string): Promise<void> {
  if (await crdVersionLacksField(client, 'containerrecreaterequests.apps.kruise.io', version, 'forceRecreate')) {
    throw usageError('--force needs OpenKruise v1.8 or later: this cluster\'s ContainerRecreateRequest has no spec.strategy.forceRecreate; nothing was created');
  }
}

export async function restartWithCrrs(
  ctx: CommandContext,
  client: KubeClient,
  target: WorkloadTarget,
  options: RestartOptions,
  reporter: RestartReporter,
  perPod: Map<string, string[]>,
  lease?: RestartLease,
): Promise<RestartResult> {
  const crrRt = await client.resolve('containerrecreaterequests.apps.kruise.io');
  const apiVersion = `${crrRt.group}/${crrRt.version}`;
  if (options.strategy.forceRecreate) await checkForceSupported(client, crrRt.version);
  const ns = target.namespace;
  const pods = target.pods;
  const size = batchSizeFor(options.maxUnavailable, pods.length);
  const what = `${target.kind.toLowerCase()}/${target.name}`;

  // An earlier run that did not end (Ctrl-C, --timeout, killed) is continued, not started over:
  // its record on the cluster says which pods it set out to restart and which got a CRR.
  const resumed = resumableRun(lease?.previous, 'kruise', options.containers);
  const runId = resumed?.id ?? shortHash(`${target.object.metadata.uid ?? target.name}|${options.containers.join(',')}|${Date.now()}|${Math.random()}`, 8);
  const record: RestartRunRecord = resumed
    ? { ...resumed, created: [...resumed.created] }
    : { id: runId, via: 'kruise', containers: options.containers.join(','), state: 'running', startedAt: new Date().toISOString(), pods: pods.map((p) => p.metadata.uid ?? ''), created: [], ...(options.parent ? { parent: options.parent } : {}) };
  const onRecord: KubeObject[] = resumed ? (await client.list(crrRt, ns, { labelSelector: `${RESTART_RUN_LABEL}=${runId}`, signal: ctx.signal })).items : [];
  const run: CrrRunInfo = { runId, workloadKind: target.kind, workloadName: target.name, total: pods.length, requestedContainers: options.containers };
  const build = (pod: Pod): KubeObject =>
    buildCrr({
      apiVersion,
      pod,
      containers: perPod.get(pod.metadata.name ?? '') ?? [],
      run,
      strategy: options.strategy,
      activeDeadlineSeconds: options.activeDeadlineSeconds,
      ttlSecondsAfterFinished: options.ttlSecondsAfterFinished,
    });

  if (options.dryRun !== 'none') {
    const batches = planBatches(pods, size);
    const objects = pods.map(build);
    if (options.dryRun === 'server') {
      await mapLimit(objects, options.concurrency ?? DEFAULT_REQUEST_CONCURRENCY, (o) => client.create(crrRt, o, ns, { dryRun: true, signal: ctx.signal }), ctx.signal);
    }
    return { via: 'kruise', runId, rows: [], objects, batches: batches.length, outcome: 'dry-run' };
  }
  if (lease && !resumed) await lease.save(record);

  const byName = new Map(onRecord.map((c) => [c.metadata.name ?? '', c]));
  const rows = new Map<string, RestartRow>();
  const nameOf = (p: Pod): string => crrName(p.metadata.name ?? '', p.metadata.uid ?? '', perPod.get(p.metadata.name ?? '') ?? [], runId);
  // Pods the resumed run already covered are not touched again: created after it began, or
  // given a CRR that finished (or was deleted after, by its TTL). Unfinished CRRs are adopted
  // and waited for in the first batch; the rest are batched as usual.
  const remaining: Pod[] = [];
  let covered = 0;
  for (const p of pods) {
    const name = p.metadata.name ?? '';
    const containers = perPod.get(name) ?? [];
    const existing = byName.get(nameOf(p));
    const cover = resumed ? coveredByRun(resumed, p.metadata.uid ?? '') : undefined;
    if (cover === 'new-pod') {
      covered++;
      rows.set(name, { pod: name, containers, phase: 'Skipped', message: 'pod created after the restart began' });
    } else if (existing && crrOutcome(existing) !== 'Running') {
      covered++;
      // Before: as the webhook recorded it; after: from the pod watch below (this pod read may predate the kill).
      const before = crrRecordedRestarts(existing);
      rows.set(name, { pod: name, containers, phase: crrPhaseShown(existing), crr: existing.metadata.name, message: 'done in an earlier attempt', ...(before ? { restartsBeforeByContainer: before } : {}) });
    } else if (cover === 'crr-created' && !existing) {
      covered++;
      rows.set(name, { pod: name, containers, phase: 'Completed', crr: nameOf(p), message: 'done in an earlier attempt (its ContainerRecreateRequest was deleted since)' });
    } else remaining.push(p);
  }
  if (resumed) {
    reporter.log(
      `resuming restart ${runId} of ${what}, which did not finish: ${covered} of ${pods.length} pods already restarted${remaining.length === 0 ? '; nothing left to do' : `, ${remaining.length} left`}`,
    );
  }
  const batches = planBatches(remaining, size);
  const objects: KubeObject[] = [];
  // The result of this run as far as it got (the rows say which pods restarted).
  const result = (outcome: RestartOutcome, message?: string): RestartResult => ({
    via: 'kruise',
    runId,
    rows: [...rows.values()],
    objects,
    batches: batches.length,
    outcome,
    ...(message === undefined ? {} : { message }),
  });
  let created = 0;
  let batchesDone = 0;
  // Creates sent and not yet answered, and a stop for new ones once the user interrupts.
  const inFlight = new Set<Promise<unknown>>();
  const stop = new AbortController();
  // Stops starting creates at the interrupt; those already sent are not cancelled (the server
  // may have them) but answered, so that the summary can count them.
  const startSignal = AbortSignal.any([ctx.signal, stop.signal]);
  ctx.setInterruptSummary(async () => {
    // The process exits 5 s after the interrupt whatever happens (cli.ts): the lease's release,
    // which lets a rerun start at once, gets what the reads before it leave.
    const releaseBy = Date.now() + 4500;
    stop.abort();
    // What the server accepted, requests in flight included: let them answer (briefly), then
    // read back the run's CRRs, since an accepted create may not have been answered yet.
    await settleWithin([...inFlight], 2000);
    const unanswered = inFlight.size;
    const listed = await withinMs(client.list(crrRt, ns, { labelSelector: `${RESTART_RUN_LABEL}=${runId}` }), 1000);
    if (listed) {
      const uidOf = new Map(pods.map((p) => [nameOf(p), p.metadata.uid ?? '']));
      const fresh = listed.items.filter((c) => !byName.has(c.metadata.name ?? ''));
      created = Math.max(created, fresh.length);
      for (const c of fresh) {
        const uid = uidOf.get(c.metadata.name ?? '');
        if (uid && !record.created.includes(uid)) record.created.push(uid);
      }
    }
    if (lease) await withinMs(lease.release(record), Math.max(1000, releaseBy - Date.now()));
    const done = batchesDone === batches.length ? 'all' : `${batchesDone} of`;
    // Requests still unanswered may have been accepted too: said, not guessed (a rerun finds them by their run label).
    const unsure = unanswered > 0 ? ` (and ${plural(unanswered, 'create')} still unanswered)` : '';
    return `restart ${runId} of ${what}: ${done} ${batches.length} batch${batches.length === 1 ? '' : 'es'} done, ${plural(created, 'ContainerRecreateRequest')} created${unsure}${restartedSoFar()}; run the same command again to resume (only what is left is done)`;
  });
  // ", pods restarted: a, b" for messages that stop a run part-way.
  const restartedSoFar = (): string => {
    const okPods = [...rows.values()].filter((r) => r.phase === 'Completed').map((r) => r.pod).sort(comparePodNames);
    return okPods.length > 0 ? `; pods restarted: ${podList(okPods)}` : '';
  };

  const deadline = options.timeoutMs > 0 ? Date.now() + options.timeoutMs : undefined;
  const crrs: LiveSet<KubeObject> = watchSet(client, crrRt, ns, { labelSelector: `${RESTART_RUN_LABEL}=${runId}`, signal: ctx.signal });
  const podSet: LiveSet<Pod> =
    target.selector !== undefined
      ? watchSet<Pod>(client, POD_RT, ns, { labelSelector: labelSelectorString(target.selector), signal: ctx.signal })
      : watchSet<Pod>(client, POD_RT, ns, { fieldSelector: `metadata.name=${target.name}`, signal: ctx.signal });
  try {
    await Promise.all([crrs.synced, podSet.synced]);
    // The pods restarted by an earlier attempt, as they are now (read after their CRRs were listed finished).
    for (const p of pods) {
      const row = rows.get(p.metadata.name ?? '');
      const live = podSet.objects.get(p.metadata.name ?? '');
      if (row?.restartsBeforeByContainer && live && !podReplacedSince(p, live)) row.restartsAfterByContainer = restartCounts(live, row.containers);
    }
    for (let b = 0; b < batches.length; b++) {
      const todo = batches[b]!;
      const started = Date.now();
      for (const p of todo) {
        const cs = perPod.get(p.metadata.name ?? '') ?? [];
        rows.set(p.metadata.name ?? '', { pod: p.metadata.name ?? '', containers: cs, phase: 'Pending', restartsBeforeByContainer: restartCounts(p, cs) });
      }
      // Readiness before the CRRs exist: once created, the pod watch may already show the restart.
      const readyBeforeRestart = new Set(todo.filter((p) => podIsReady(podSet.objects.get(p.metadata.name ?? '') ?? p)).map((p) => p.metadata.name ?? ''));
      let createdInBatch = 0;
      const results = await mapLimit(
        todo,
        options.concurrency ?? DEFAULT_REQUEST_CONCURRENCY,
        async (p) => {
          const gone = (): undefined => {
            const row = rows.get(p.metadata.name ?? '')!;
            row.phase = 'Gone';
            row.message = 'pod was deleted before its restart: not restarted';
            return undefined;
          };
          // A batch acts on the pods it was planned on: one deleted or replaced since (a StatefulSet's keeps its name) is not restarted.
          if (podReplacedSince(p, podSet.objects.get(p.metadata.name ?? ''))) return gone();
          const sent = createOrAdopt(client, crrRt, build(p), { signal: ctx.signal });
          inFlight.add(sent);
          try {
            const r = await sent;
            // Replaced between that look and the create: the webhook bound the CRR to the new pod, which nobody chose.
            if (crrBoundElsewhere(r.object, p)) {
              await client.delete(crrRt, r.object.metadata.name ?? '', ns, { signal: ctx.signal }).catch(() => undefined);
              return gone();
            }
            if (r.created) {
              created++;
              createdInBatch++;
            }
            if (!record.created.includes(p.metadata.uid ?? '')) record.created.push(p.metadata.uid ?? '');
            return r.object;
          } catch (err) {
            // A pod deleted before its CRR was accepted cannot be restarted: said per pod, not a raw 422.
            if (!ctx.signal.aborted && (isApiStatus(err, 422) || isNotFound(err)) && (await podGone(client, p, ctx.signal))) return gone();
            throw err;
          } finally {
            inFlight.delete(sent);
          }
        },
        startSignal,
      );
      if (lease) await lease.save(record);
      for (const o of results) if (o) objects.push(o);
      for (const [i, p] of todo.entries()) rows.get(p.metadata.name ?? '')!.crr = results[i]?.metadata.name;
      const last = b === batches.length - 1;
      if (!options.wait) {
        const left = batches.length - b - 1;
        const adopted = results.filter(Boolean).length - createdInBatch;
        reporter.log(
          `batch ${b + 1}/${batches.length}: created ${plural(createdInBatch, 'ContainerRecreateRequest')} (${podList(todo.map((p) => p.metadata.name))})${adopted > 0 ? `; ${adopted} from an earlier attempt still running` : ''}`,
        );
        if (!last) reporter.log(`not waiting (--wait=false): ${left} more batch${left === 1 ? '' : 'es'} remain${left === 1 ? 's' : ''}; run the same command again to continue`);
        for (const p of todo) if (rows.get(p.metadata.name ?? '')!.phase !== 'Gone') rows.get(p.metadata.name ?? '')!.phase = 'Created';
        return result('created');
      }
      // Wait for every CRR of the batch to finish and its pod to be Ready again.
      const pending = todo.filter((p) => rows.get(p.metadata.name ?? '')!.phase !== 'Gone').map((p) => ({ pod: p, crr: rows.get(p.metadata.name ?? '')!.crr ?? '' }));
      // When each pod was first seen restarted and Ready (the DURATION column).
      const doneAt = new Map<string, number>();
      // A pod that was not Ready before its restart is not waited for to become Ready after it.
      const wasReady = new Set(pending.filter(({ pod }) => readyBeforeRestart.has(pod.metadata.name ?? '')).map(({ crr }) => crr));
      const allReady = await waitUntilDeadline(
        [crrs, podSet as LiveSet<KubeObject>],
        () => {
          let finished = 0;
          let ready = 0;
          for (const { pod, crr } of pending) {
            const obj = crrs.objects.get(crr) ?? crrs.gone.get(crr);
            const outcome = crrOutcomeSeen(crrs, crr);
            const current = podSet.objects.get(pod.metadata.name ?? '');
            const gone = !current || current.metadata.uid !== pod.metadata.uid;
            if (outcome !== 'Running') finished++;
            if (outcome === 'Failed' || gone || (outcome === 'Succeeded' && podSeenRestarted(obj!, current!) && (!wasReady.has(crr) || podIsReady(current!)))) {
              ready++;
              if (!doneAt.has(crr)) doneAt.set(crr, Date.now());
            }
          }
          reporter.progress(`batch ${b + 1}/${batches.length}: ${finished}/${pending.length} recreated, ${ready}/${pending.length} pods ready again`);
          return ready === pending.length;
        },
        { deadline, signal: ctx.signal, what: `batch ${b + 1}/${batches.length} of the restart of ${target.kind.toLowerCase()}/${target.name}` },
      );
      // Interrupted: the summary being written is the last word; record nothing more.
      if (stop.signal.aborted) await untilExit();
      fillRows(pending, rows, crrs, podSet, started, doneAt);
      if (allReady === undefined) {
        return result('timeout', `timed out waiting for batch ${b + 1}/${batches.length} of the restart of ${what}${restartedSoFar()}; run the same command again to resume`);
      }
      batchesDone++;
      const batchRows = todo.map((p) => rows.get(p.metadata.name ?? '')!);
      const ok = batchRows.filter((r) => r.phase === 'Completed');
      const gone = batchRows.filter((r) => r.phase === 'Gone');
      const failedRows = batchRows.filter((r) => r.phase !== 'Completed' && r.phase !== 'Gone');
      reporter.log(
        `batch ${b + 1}/${batches.length}: ${ok.length}/${batchRows.length} pods restarted (${podList(batchRows.map((r) => r.pod))})${gone.length > 0 ? `; deleted before their restart: ${podList(gone.map((r) => r.pod))}` : ''}`,
      );
      if (failedRows.length > 0) {
        const rest = batches.length - b - 1;
        record.state = 'failed';
        const why = failedRows.map((r) => `${r.pod}${r.message ? ` (${r.message})` : ''}`).slice(0, 3).join(', ');
        return result(
          'failed',
          `${failedRows.length === 1 ? '1 pod' : `${failedRows.length} pods`} of batch ${b + 1} did not restart: ${why}${restartedSoFar()}${rest > 0 ? `; stopped before the remaining ${rest} batch${rest === 1 ? '' : 'es'}` : ''}`,
        );
      }
    }
  } finally {
    crrs.stop();
    podSet.stop();
    if (lease && record.state !== 'running') await lease.save(record);
  }
  const gone = [...rows.values()].filter((r) => r.phase === 'Gone').map((r) => r.pod).sort(comparePodNames);
  // Nothing is left that this run could do: a deleted pod's replacement started after the run began.
  record.state = 'done';
  if (lease) await lease.save(record);
  if (gone.length > 0) {
    return result('failed', `${plural(gone.length, 'pod')} deleted before ${gone.length === 1 ? 'its' : 'their'} restart, not restarted: ${podList(gone)}; every other pod restarted`);
  }
  return result([...rows.values()].every((r) => r.phase === 'Completed' || r.phase === 'Skipped') ? 'succeeded' : 'failed');
}

/** Never resolves: after Ctrl-C the process ends from the interrupt handler. */
export function untilExit(): Promise<never> {
  return new Promise<never>(() => undefined);
}

/** "1 ContainerRecreateRequest", "10 ContainerRecreateRequests". */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The promise's value, or undefined when it fails or takes longer than `ms`. */
async function withinMs<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const value = await Promise.race([promise.catch(() => undefined), new Promise<undefined>((res) => (timer = setTimeout(() => res(undefined), ms)))]);
  clearTimeout(timer);
  return value;
}

/** Waits for the promises to settle, at most `ms`. */
async function settleWithin(promises: Array<Promise<unknown>>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise<void>((res) => (timer = setTimeout(res, ms)))]);
  clearTimeout(timer);
}

/** Whether the pod the CRR was for no longer exists (deleted, or replaced under the same name). */
async function podGone(client: KubeClient, pod: Pod, signal: AbortSignal): Promise<boolean> {
  try {
    const now = await client.get<Pod>(POD_RT, pod.metadata.name ?? '', pod.metadata.namespace, { signal });
    return now.metadata.uid !== pod.metadata.uid || !!now.metadata.deletionTimestamp;
  } catch (err) {
    return isNotFound(err);
  }
}

/** The PHASE column: Kruise's CRR phase (Completed), or Failed when a container failed to restart. */
function crrPhaseShown(crr: KubeObject): string {
  const outcome = crrOutcome(crr);
  return outcome === 'Succeeded' ? 'Completed' : outcome === 'Failed' ? 'Failed' : crrPhase(crr);
}

/**
 * A CRR's outcome from its current or, once deleted (ttlSecondsAfterFinished, or by hand), its
 * last state: deleted after completing counts as completed; deleted before that, as failed.
 */
function crrOutcomeSeen(crrs: LiveSet<KubeObject>, name: string): 'Running' | 'Succeeded' | 'Failed' {
  const live = crrs.objects.get(name);
  if (live) return crrOutcome(live);
  const last = crrs.gone.get(name);
  if (!last) return 'Running';
  const outcome = crrOutcome(last);
  return outcome === 'Running' ? 'Failed' : outcome;
}

/**
 * The CRR and pod watches are separate streams: a CRR can report Succeeded before the pod's
 * restart reaches us, and the stale pod still looks Ready. Wait until the pod shows the restart
 * (restartCount past the CRR's statusContext, or a new containerID) before counting it ready.
 */
function podSeenRestarted(crr: KubeObject, pod: Pod): boolean {
  const specs = ((crr.spec as { containers?: Array<{ name: string; statusContext?: { containerID?: string; restartCount?: number } }> } | undefined)?.containers) ?? [];
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  return specs.every((c) => {
    if (!c.statusContext) return true;
    const st = statuses.find((s) => s.name === c.name);
    if (!st) return true;
    return st.restartCount > (c.statusContext.restartCount ?? 0) || (!!c.statusContext.containerID && st.containerID !== c.statusContext.containerID);
  });
}

function fillRows(pending: Array<{ pod: Pod; crr: string }>, rows: Map<string, RestartRow>, crrs: LiveSet<KubeObject>, pods: LiveSet<Pod>, started: number, doneAt: Map<string, number>): void {
  for (const { pod, crr } of pending) {
    const row = rows.get(pod.metadata.name ?? '')!;
    const obj = crrs.objects.get(crr) ?? crrs.gone.get(crr);
    const current = pods.objects.get(pod.metadata.name ?? '');
    const gone = !current || current.metadata.uid !== pod.metadata.uid;
    const outcome = crrOutcomeSeen(crrs, crr);
    row.phase = outcome === 'Running' ? (obj ? crrPhase(obj) : 'Pending') : outcome === 'Succeeded' ? 'Completed' : outcome;
    if (gone && outcome !== 'Failed') {
      row.phase = 'Gone';
      row.message = 'pod was deleted during its restart';
    }
    if (obj && outcome === 'Failed') {
      row.message = crrMessage(obj) ?? (crrs.objects.has(crr) ? 'recreate failed' : 'ContainerRecreateRequest deleted before it completed');
      // The CRR says only that its deadline passed; the pod says why (e.g. CrashLoopBackOff).
      const stuck = current && !gone ? failingContainer(current) : undefined;
      if (stuck && row.containers.includes(stuck.container)) row.message += `; container ${stuck.container} is in ${stuck.reason}`;
    }
    // The count when the CRR was admitted, not when the pod was first read: a CRR adopted from an
    // interrupted run may have restarted the container before this run read the pod (was "1 -> 1").
    const recorded = obj ? crrRecordedRestarts(obj) : undefined;
    if (recorded) row.restartsBeforeByContainer = recorded;
    if (current && !gone) row.restartsAfterByContainer = restartCounts(current, row.containers);
    row.durationMs = (doneAt.get(crr) ?? Date.now()) - started;
  }
}
