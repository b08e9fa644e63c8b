// `restart TYPE/NAME | pod/NAME`: validate every flag (exit 2, nothing sent), read the pods,
// hand the plan to the restart engine, print progress on stderr and a summary on stdout.
import type { CommandContext } from '../../cli/context';
import { CliError, ExitCode, failure, usageError } from '../../cli/exit';
import { batchSizeFor, comparePodNames, parseContainerList } from '../../kruise/plans/restart';
import { formatObjects, mutationLine, parseDryRun, parseOutputFormat } from '../../printers/output';
import { formatTable } from '../../printers/table';
import { withProgress } from '../../printers/progress';
import type { RestartOptions, RestartResult } from '../../engine/restart-types';
import { parseSingleRef, resolveWorkload } from '../../engine/targets';
import { isSidecarSetType } from '../../kruise/workloads/sidecarset';
import { boolFlag, durationFlag, formatDurationMs, secondsFlag, viaFlag } from './flags';

interface RestartFlags {
  containers?: string[];
  maxUnavailable?: string;
  ordered?: unknown;
  failurePolicy?: string;
  unreadyGracePeriod?: string;
  minStarted?: string;
  activeDeadline?: string;
  ttl?: string;
  force?: unknown;
  wait?: unknown;
  timeout?: string;
  waitForLock?: unknown;
  via?: string;
  dryRun?: string | boolean;
  output?: string;
}

/** Every flag checked and converted before any request. */
export function restartOptionsFromFlags(flags: RestartFlags): RestartOptions {
  let containers: string[];
  try {
    containers = parseContainerList(flags.containers);
  } catch (err) {
    throw usageError((err as Error).message);
  }
  const maxUnavailable = flags.maxUnavailable ?? '1';
  try {
    batchSizeFor(maxUnavailable, 1);
  } catch (err) {
    throw usageError((err as Error).message);
  }
  const fp = flags.failurePolicy;
  if (fp !== undefined && fp !== 'Fail' && fp !== 'Ignore') throw usageError(`invalid value "${fp}" for --failure-policy: expected Fail or Ignore`);
  return {
    containers,
    maxUnavailable,
    strategy: {
      failurePolicy: fp as 'Fail' | 'Ignore' | undefined,
      orderedRecreate: boolFlag(flags.ordered, '--ordered', false),
      forceRecreate: boolFlag(flags.force, '--force', false),
      unreadyGracePeriodSeconds: secondsFlag(flags.unreadyGracePeriod, '--unready-grace-period'),
      minStartedSeconds: secondsFlag(flags.minStarted, '--min-started'),
    },
    activeDeadlineSeconds: secondsFlag(flags.activeDeadline, '--active-deadline', 3),
    ttlSecondsAfterFinished: flags.ttl === '-1' ? null : secondsFlag(flags.ttl, '--ttl'),
    wait: boolFlag(flags.wait, '--wait', true),
    timeoutMs: durationFlag(flags.timeout ?? '0', '--timeout') ?? 0,
    via: viaFlag(flags.via),
    dryRun: parseDryRun(flags.dryRun),
    waitForLock: boolFlag(flags.waitForLock, '--wait-for-lock', false),
  };
}

/** "0 -> 1" for one container, "nginx 0->1, sidecar 2->3" for several. */
function restartsCell(containers: string[], before: Record<string, number> | undefined, after: Record<string, number> | undefined): string {
  if (!before && !after) return '-';
  const one = (c: string): string => `${before?.[c] ?? '?'}${containers.length === 1 ? ' -> ' : '->'}${after?.[c] ?? '?'}`;
  return containers.length === 1 ? one(containers[0]!) : containers.map((c) => `${c} ${one(c)}`).join(', ');
}

export function summaryTable(result: RestartResult): string {
  const withMessage = result.rows.some((r) => r.message);
  const headers = ['POD', 'CONTAINERS', 'PHASE', 'RESTARTS', 'DURATION', ...(withMessage ? ['MESSAGE'] : [])];
  return formatTable(
    headers,
    [...result.rows].sort((a, b) => comparePodNames(a.pod, b.pod)).map((r) => [
      r.pod,
      r.containers.join(','),
      r.phase,
      result.via === 'client' ? 'pod recreated' : restartsCell(r.containers, r.restartsBeforeByContainer, r.restartsAfterByContainer),
      formatDurationMs(r.durationMs) || '-',
      ...(withMessage ? [r.message ?? '-'] : []),
    ]),
  );
}

export async function run(ctx: CommandContext, args: string[], flags: RestartFlags): Promise<number> {
  const ref = parseSingleRef(args, 'restart');
  const options = restartOptionsFromFlags(flags);
  const output = parseOutputFormat(flags.output, ['yaml', 'json', 'name', 'jsonpath']);
  const client = await ctx.kube();
  try {
    const { runRestart } = await import('../../engine/restart');
    const rt = await client.resolve(ref.type);
    // A SidecarSet (cluster-scoped) restarts its sidecars in the pods it matched, namespace by namespace.
    const target = isSidecarSetType(rt) ? undefined : await resolveWorkload(client, ref, ctx.signal);
    const sidecarSet = target ? undefined : await import('./sidecarset');
    const result: RestartResult = await withProgress(
      ctx.term,
      (reporter) => (target ? runRestart(ctx, client, target, options, reporter) : sidecarSet!.restartSidecarSet(ctx, client, rt, ref.name, options, reporter)),
      { liveTextOnlyOnTty: true },
    );
    const out = ctx.term.stdout;
    if (result.outcome === 'dry-run' || result.outcome === 'created') {
      if (output.kind !== 'default') out.write(formatObjects(result.objects, output));
      else if (result.via === 'kruise') for (const o of result.objects) out.write(`${mutationLine('ContainerRecreateRequest', 'apps.kruise.io', o.metadata.name ?? '', 'created', options.dryRun)}\n`);
      else if (result.outcome === 'dry-run') for (const o of result.objects) out.write(`${mutationLine('Pod', '', o.metadata.name ?? '', 'deleted', options.dryRun)}\n`);
      return ExitCode.OK;
    }
    if (output.kind !== 'default') out.write(formatObjects(result.objects, output));
    else out.write(summaryTable(result));
    if (result.outcome === 'timeout') throw new CliError(result.message ?? 'timed out', ExitCode.TIMEOUT);
    if (result.outcome === 'failed') throw failure(`restart of ${ref.type}/${ref.name} failed: ${result.message ?? 'not every container restarted successfully'}`);
    return ExitCode.OK;
  } finally {
    client.close();
  }
}
