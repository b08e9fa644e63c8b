// Restart executor that posts ContainerRecreateRequests and follows their status.
// CRR names are derived from pod + run, and a rerun adopts the newest unfinished run of
// the same containers, so an interrupted restart is resumed without restarting any pod twice.
import type { CommandContext } from '../cli/context';
import type { KubeClient, KubeObject } from '../kube/client';
import type { Pod } from '../kruise/types';
import {
  buildCrr,
  crrName,
  RESTART_CONTAINERS_ANNOTATION,
  RESTART_RUN_LABEL,
  RESTART_TOTAL_ANNOTATION,
  workloadCrrSelector,
  type CrrRunInfo,
} from '../kruise/builders/crr';
import { shortHash } from '../kruise/builders/hash';
import { batchSizeFor, crrMessage, crrOutcome, crrPhase, findResumableRun, planBatches, podIsReady, restartCounts } from '../kruise/plans/restart';
import { usageError } from '../cli/exit';
import { createOrAdopt } from './idempotent';
import { DEFAULT_REQUEST_CONCURRENCY, mapLimit } from './concurrency';
import { waitUntilDeadline, watchSet, type LiveSet } from './live';
import { labelSelectorString } from '../kruise/selectors';
import { POD_RT, type WorkloadTarget } from './targets';
import { crdVersionLacksField } from './crd-fields';
import { podList, type RestartOptions, type RestartOutcome, type RestartReporter, type RestartResult, type RestartRow } from './restart';

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
): Promise<RestartResult> {
  const crrRt = await client.resolve('containerrecreaterequests.apps.kruise.io');
  const apiVersion = `${crrRt.group}/${crrRt.version}`;
  if (options.strategy.forceRecreate) await checkForceSupported(client, crrRt.version);
  const ns = target.namespace;
  const pods = target.pods;
  const size = batchSizeFor(options.maxUnavailable, pods.length);

  // Resume an interrupted run of the same containers instead of starting over.
  let runId: string | undefined;
  let onRecord: KubeObject[] = [];
  if (options.dryRun === 'none') {
    onRecord = (await client.list(crrRt, ns, { labelSelector: workloadCrrSelector(target.kind, target.name), signal: ctx.signal })).items;
    const resumable = findResumableRun(onRecord, options.containers, { run: RESTART_RUN_LABEL, total: RESTART_TOTAL_ANNOTATION, containers: RESTART_CONTAINERS_ANNOTATION });
    if (resumable) {
      runId = resumable.runId;
      reporter.log(`resuming restart ${runId} of ${target.kind.toLowerCase()}/${target.name}: ${resumable.crrs} of ${resumable.total} pods already have a ContainerRecreateRequest`);
    }
  }
  runId ??= shortHash(`${target.object.metadata.uid ?? target.name}|${options.containers.join(',')}|${Date.now()}|${Math.random()}`, 8);
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

  const byName = new Map(onRecord.map((c) => [c.metadata.name ?? '', c]));
  const rows = new Map<string, RestartRow>();
  const nameOf = (p: Pod): string => crrName(p.metadata.name ?? '', p.metadata.uid ?? '', perPod.get(p.metadata.name ?? '') ?? [], runId!);
  // Pods whose CRR of this run already finished (a resumed run) are not touched again; the
  // rest are batched as usual.
  const remaining: Pod[] = [];
  for (const p of pods) {
    const existing = byName.get(nameOf(p));
    if (existing && crrOutcome(existing) !== 'Running') {
      rows.set(p.metadata.name ?? '', {
        pod: p.metadata.name ?? '',
        containers: perPod.get(p.metadata.name ?? '') ?? [],
        phase: crrOutcome(existing),
        crr: existing.metadata.name,
        message: 'done in an earlier attempt',
      });
    } else remaining.push(p);
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
  ctx.setInterruptSummary(
    () => `restart ${runId} of ${target.kind.toLowerCase()}/${target.name}: ${batchesDone} of ${batches.length} batches done, ${created} ContainerRecreateRequests created; run the same command again to resume`,
  );

  const deadline = options.timeoutMs > 0 ? Date.now() + options.timeoutMs : undefined;
  const crrs: LiveSet<KubeObject> = watchSet(client, crrRt, ns, { labelSelector: `${RESTART_RUN_LABEL}=${runId}`, signal: ctx.signal });
  const podSet: LiveSet<Pod> =
    target.selector !== undefined
      ? watchSet<Pod>(client, POD_RT, ns, { labelSelector: labelSelectorString(target.selector), signal: ctx.signal })
      : watchSet<Pod>(client, POD_RT, ns, { fieldSelector: `metadata.name=${target.name}`, signal: ctx.signal });
  try {
    await Promise.all([crrs.synced, podSet.synced]);
    for (let b = 0; b < batches.length; b++) {
      const todo = batches[b]!;
      const started = Date.now();
      for (const p of todo) {
        const cs = perPod.get(p.metadata.name ?? '') ?? [];
        rows.set(p.metadata.name ?? '', { pod: p.metadata.name ?? '', containers: cs, phase: 'Pending', restartsBeforeByContainer: restartCounts(p, cs) });
      }
      // Readiness before the CRRs exist: once created, the pod watch may already show the restart.
      const readyBeforeRestart = new Set(todo.filter((p) => podIsReady(podSet.objects.get(p.metadata.name ?? '') ?? p)).map((p) => p.metadata.name ?? ''));
      const results = await mapLimit(
        todo,
        options.concurrency ?? DEFAULT_REQUEST_CONCURRENCY,
        async (p) => {
          const r = await createOrAdopt(client, crrRt, build(p), { signal: ctx.signal });
          if (r.created) created++;
          return r.object;
        },
        ctx.signal,
      );
      objects.push(...results);
      for (const [i, p] of todo.entries()) rows.get(p.metadata.name ?? '')!.crr = results[i]?.metadata.name;
      const last = b === batches.length - 1;
      if (!options.wait) {
        const left = batches.length - b - 1;
        reporter.log(`batch ${b + 1}/${batches.length}: created ${todo.length} ContainerRecreateRequest${todo.length === 1 ? '' : 's'} (${podList(todo.map((p) => p.metadata.name))})`);
        if (!last) reporter.log(`not waiting (--wait=false): ${left} more batch${left === 1 ? '' : 'es'} remain${left === 1 ? 's' : ''}; run the same command again to continue`);
        for (const p of todo) rows.get(p.metadata.name ?? '')!.phase = 'Created';
        return result('created');
      }
      // Wait for every CRR of the batch to finish and its pod to be Ready again.
      const pending = todo.map((p) => ({ pod: p, crr: rows.get(p.metadata.name ?? '')!.crr ?? '' }));
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
      fillRows(pending, rows, crrs, podSet, started, doneAt);
      if (allReady === undefined) {
        return result('timeout', `timed out waiting for batch ${b + 1}/${batches.length} of the restart of ${target.kind.toLowerCase()}/${target.name}; run the same command again to resume`);
      }
      batchesDone++;
      const failedPods = pending.filter(({ pod }) => rows.get(pod.metadata.name ?? '')!.phase !== 'Succeeded');
      reporter.log(
        `batch ${b + 1}/${batches.length}: ${pending.length - failedPods.length}/${pending.length} pods restarted (${podList(pending.map(({ pod }) => pod.metadata.name))})`,
      );
      if (failedPods.length > 0) {
        const rest = batches.length - b - 1;
        return result('failed', `${failedPods.length} pod(s) of batch ${b + 1} did not restart successfully${rest > 0 ? `; stopped before the remaining ${rest} batch(es)` : ''}`);
      }
    }
  } finally {
    crrs.stop();
    podSet.stop();
  }
  return result([...rows.values()].every((r) => r.phase === 'Succeeded') ? 'succeeded' : 'failed');
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
    row.phase = outcome === 'Running' ? (obj ? crrPhase(obj) : 'Pending') : outcome;
    if (gone && outcome !== 'Failed') {
      row.phase = 'Failed';
      row.message = 'pod has gone';
    }
    if (obj && outcome === 'Failed') row.message = crrMessage(obj) ?? (crrs.objects.has(crr) ? 'recreate failed' : 'ContainerRecreateRequest deleted before it completed');
    if (current && !gone) row.restartsAfterByContainer = restartCounts(current, row.containers);
    row.durationMs = (doneAt.get(crr) ?? Date.now()) - started;
  }
}
