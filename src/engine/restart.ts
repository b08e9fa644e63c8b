// The restart operation: one plan (which containers of which pods, in which batches),
// two executors — ContainerRecreateRequests for Kruise's daemon (in place, pod UIDs kept),
// or client-side pod deletion when Kruise is absent. `rollout restart` calls runRestart
// for Kruise workloads with in-place update policies.
import type { CommandContext } from '../cli/context';
import type { KubeClient } from '../kube/client';
import { failure, usageError } from '../cli/exit';
import { batchSizeFor, validateRestartTargets } from '../kruise/plans/restart';
import type { WorkloadTarget } from './targets';
import type { RestartLease } from './restart-lease';
import { deletedByRun, type RestartRunRecord } from '../kruise/plans/restart-run';
import type { Pod } from '../kruise/types';
import { setMaxListeners } from 'node:events';
import type { RestartOptions, RestartReporter, RestartResult, Via } from './restart-types';

/** One line naming every pod problem (the first few), for exit 2 before anything is created. */
export function restartValidationError(target: WorkloadTarget, problems: Array<{ pod: string; message: string }>): Error {
  const shown = problems.slice(0, 3).map((p) => `pod "${p.pod}" ${p.message}`);
  const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : '';
  return usageError(`cannot restart ${target.kind.toLowerCase()}/${target.name}: ${shown.join('; ')}${more}; nothing was created`);
}

/** Whether ContainerRecreateRequests are served (discovery), for --via=auto. */
export async function chooseRestartExecutor(client: KubeClient, via: Via): Promise<'kruise' | 'client'> {
  if (via === 'client') return 'client';
  const served = await client.isServed('apps.kruise.io', 'containerrecreaterequests');
  if (served) return 'kruise';
  if (via === 'kruise') {
    throw failure('this cluster does not serve containerrecreaterequests.apps.kruise.io (is OpenKruise installed?)', 'hint: --via=client recreates the pods batch by batch instead');
  }
  return 'client';
}

/**
 * Restarts the containers of `target`'s pods batch by batch. Validates every pod first
 * (exit 2, nothing created), then runs the chosen executor. Never throws for a failed
 * restart: the result's outcome says how it ended (timeouts throw exit 3).
 */
export async function runRestart(ctx: CommandContext, client: KubeClient, target: WorkloadTarget, options: RestartOptions, reporter: RestartReporter): Promise<RestartResult> {
  if (target.pods.length === 0) throw failure(`${target.kind.toLowerCase()}/${target.name} has no pods to restart`);
  try {
    batchSizeFor(options.maxUnavailable, target.pods.length);
  } catch (err) {
    throw usageError((err as Error).message);
  }
  const { perPod, problems } = validateRestartTargets(target.pods, options.containers);
  const what = `${target.kind.toLowerCase()}/${target.name}`;
  if (problems.length > 0) {
    // Pods mid-restart by another run (e.g. being deleted by --via=client) are that run's doing:
    // say who holds the workload (exit 1) rather than blame the pods, or wait and look again.
    const { restartLeaseState } = await import('./restart-lease');
    const state = options.dryRun === 'none' ? await restartLeaseState(client, target.namespace, target.kind, target.name, what, ctx.signal) : {};
    if (state.holder) {
      if (!options.waitForLock) throw failure(state.holder, 'hint: --wait-for-lock waits until it is released or expires');
    } else {
      // A rerun just after an interrupted client-side restart finds the pods that run deleted still
      // terminating: its work in progress, which the rerun resumes (restart-client waits for them).
      const left = problemsBesidesRun(target.pods, problems, state.previous);
      if (left.length > 0) throw restartValidationError(target, left);
    }
  }
  const via = await chooseRestartExecutor(client, options.via);
  if (options.dryRun !== 'none') {
    // --dry-run=server sends up to 16 requests at once on this signal (one listener each).
    setMaxListeners(0, ctx.signal);
    return runExecutor(via, ctx, client, target, options, reporter, perPod, undefined);
  }
  // Exactly one run drives a restart of a workload at a time; its lease also carries what it did.
  const { acquireRestartLease } = await import('./restart-lease');
  const lease = await acquireRestartLease(client, target.namespace, target.kind, target.name, {
    wait: options.waitForLock === true,
    deadline: options.timeoutMs > 0 ? Date.now() + options.timeoutMs : undefined,
    signal: ctx.signal,
    log: (line) => reporter.log(line),
    what,
  });
  // Interrupted before the executor says more (it replaces this summary), the lease is still let go:
  // a rerun must not find it held by a process that is gone (a SidecarSet's next namespace, just taken).
  ctx.setInterruptSummary(async () => {
    await Promise.race([lease.release(), new Promise((res) => setTimeout(res, 4000))]);
    return `restart of ${what} interrupted before its first batch; run the same command again to resume`;
  });
  // The run stops when the user interrupts it or when the lease is lost to another run. Many
  // requests share this signal (one listener each): no MaxListenersExceededWarning past 10.
  const signal = AbortSignal.any([ctx.signal, lease.lost]);
  setMaxListeners(0, signal);
  const runCtx: CommandContext = { ...ctx, signal };
  try {
    let current = target;
    let plan = perPod;
    if (lease.waited || problems.length > 0) {
      // Another run changed the pods while we waited: plan from what is there now.
      current = await refreshPods(client, target, signal);
      const again = validateRestartTargets(current.pods, options.containers);
      const left = problemsBesidesRun(current.pods, again.problems, lease.previous);
      if (left.length > 0) throw restartValidationError(current, left);
      plan = again.perPod;
    }
    return await runExecutor(via, runCtx, client, current, options, reporter, plan, lease);
  } catch (err) {
    if (lease.lost.aborted) throw failure(`${what}: ${(lease.lost.reason as Error).message}; stopped`);
    throw err;
  } finally {
    await lease.release();
  }
}

async function runExecutor(
  via: 'kruise' | 'client',
  ctx: CommandContext,
  client: KubeClient,
  target: WorkloadTarget,
  options: RestartOptions,
  reporter: RestartReporter,
  perPod: Map<string, string[]>,
  lease: RestartLease | undefined,
): Promise<RestartResult> {
  if (via === 'kruise') {
    const { restartWithCrrs } = await import('./restart-kruise');
    return restartWithCrrs(ctx, client, target, options, reporter, perPod, lease);
  }
  const { restartByRecreating } = await import('./restart-client');
  if (options.via === 'auto') reporter.log('ContainerRecreateRequests are not served by this cluster: recreating pods batch by batch instead');
  return restartByRecreating(ctx, client, target, options, reporter, lease);
}

/** The pod problems left once the terminating pods an unfinished client-side run deleted are set aside. */
function problemsBesidesRun(pods: readonly Pod[], problems: Array<{ pod: string; message: string }>, previous: RestartRunRecord | undefined): Array<{ pod: string; message: string }> {
  const theirs = new Set(pods.filter((p) => deletedByRun(previous, p)).map((p) => p.metadata.name));
  return problems.filter((p) => !theirs.has(p.pod));
}

async function refreshPods(client: KubeClient, target: WorkloadTarget, signal: AbortSignal): Promise<WorkloadTarget> {
  if (target.relistPods) return { ...target, pods: await target.relistPods(signal) };
  if (!target.selector) return { ...target, pods: [await client.get<Pod>(target.rt, target.name, target.namespace, { signal })] };
  const { workloadPods } = await import('./targets');
  return { ...target, pods: await workloadPods(client, target.rt, target.object, target.selector, target.namespace, signal) };
}
