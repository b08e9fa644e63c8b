// `migrate cloneset/NEW --from deployment/OLD`: every flag checked before any request (exit 2),
// then the migrate engine; progress on stderr, mutation lines (or -o) on stdout.
import type { CommandContext } from '../../cli/context';
import { ExitCode, usageError } from '../../cli/exit';
import { parseMaxSurge, type MaxSurge, type MigrationStep } from '../../kruise/plans/migrate';
import { formatObjects, mutationLine, parseDryRun, parseOutputFormat, type DryRunMode, type OutputFormat } from '../../printers/output';
import { formatTable } from '../../printers/table';
import { withProgress } from '../../printers/progress';
import { parseSingleRef, type ResourceRef } from '../../engine/targets';
import type { MigrateMode, MigrateOptions } from '../../engine/migrate';
import { boolFlag, durationFlag, intFlag } from '../restart/flags';

interface MigrateFlags {
  from?: string;
  create?: boolean;
  copy?: boolean;
  replicas?: string;
  maxSurge?: string;
  timeout?: string;
  deleteSource?: boolean;
  waitForLock?: unknown;
  dryRun?: string | boolean;
  output?: string;
}

export interface MigrateInput {
  target: ResourceRef;
  from: ResourceRef;
  options: MigrateOptions;
  output: OutputFormat;
}

/** Every flag checked and converted before any request (exit 2). */
export function parseMigrate(args: readonly string[], flags: MigrateFlags): MigrateInput {
  const target = parseSingleRef(args, 'migrate');
  if (!flags.from) throw usageError('migrate needs --from deployment/NAME (the Deployment whose pods move to the CloneSet)');
  const from = parseSingleRef([flags.from], 'migrate --from');
  // kruise-tools spells "create it with the Deployment's replicas" --create --copy: the same as --copy here.
  const mode: MigrateMode = flags.copy ? 'copy' : flags.create ? 'create' : 'migrate';
  const replicas = intFlag(flags.replicas, '--replicas', 0);
  let maxSurge: MaxSurge | undefined;
  if (flags.maxSurge !== undefined) {
    try {
      maxSurge = parseMaxSurge(flags.maxSurge);
    } catch (err) {
      throw usageError((err as Error).message);
    }
  }
  if (mode === 'create' && replicas !== undefined) throw usageError('--replicas has no effect with --create (the CloneSet starts at 0): give it to the run that moves the pods, or use --copy');
  if (mode !== 'migrate' && maxSurge !== undefined) throw usageError(`--max-surge has no effect with --${mode} (nothing is moved): give it to the run that moves the pods`);
  const deleteSource = Boolean(flags.deleteSource);
  if (mode !== 'migrate' && deleteSource) throw usageError(`--delete-source cannot be used with --${mode}: the Deployment keeps its pods`);
  const dryRun: DryRunMode = parseDryRun(flags.dryRun);
  return {
    target,
    from,
    options: {
      mode,
      ...(replicas !== undefined ? { replicas } : {}),
      ...(maxSurge ? { maxSurge } : {}),
      timeoutMs: durationFlag(flags.timeout ?? '0', '--timeout') ?? 0,
      dryRun,
      deleteSource,
      waitForLock: boolFlag(flags.waitForLock, '--wait-for-lock', false),
    },
    output: parseOutputFormat(flags.output, ['yaml', 'json', 'name']),
  };
}

/** The step plan as a table: each row raises the CloneSet, waits for its pods, lowers the Deployment. */
export function planTable(plan: readonly MigrationStep[], target: string, from: string): string {
  if (plan.length === 0) return 'nothing to move\n';
  const arrow = (a: { from: number; to: number }): string => (a.from === a.to ? String(a.to) : `${a.from} -> ${a.to}`);
  return formatTable(
    ['STEP', `CLONESET/${target}`, `DEPLOYMENT/${from}`, 'PODS AT MOST'],
    plan.map((s, i) => [String(i + 1), arrow(s.cloneSet), arrow(s.deployment), String(s.peakPods)]),
  );
}

export async function run(ctx: CommandContext, args: string[], flags: MigrateFlags): Promise<number> {
  const input = parseMigrate(args, flags);
  const { options, output } = input;
  const client = await ctx.kube();
  try {
    const { rerunCommand, runMigrate } = await import('../../engine/migrate');
    const out = ctx.term.stdout;
    const err = ctx.term.stderr;
    const result = await withProgress(
      ctx.term,
      (reporter) =>
        runMigrate(ctx, client, { target: input.target, from: input.from }, options, {
          progress: reporter.progress,
          log: reporter.log,
          created: (cs) => {
            if (output.kind === 'default') out.write(`${mutationLine('CloneSet', 'apps.kruise.io', cs.metadata.name ?? '', 'created', 'none')}\n`);
          },
        }),
      { liveTextOnlyOnTty: true },
    );
    const target = input.target.name;
    const from = input.from.name;
    const rerun = rerunCommand(ctx, client.namespace, target, from);
    // -o prints the CloneSet (as built, or as the cluster has it) instead of the mutation lines.
    if (output.kind !== 'default') out.write(formatObjects([result.cloneSet], output));
    switch (result.outcome) {
      case 'dry-run': {
        const table = planTable(result.plan, target, from);
        if (output.kind === 'default' && !result.existing) out.write(`${mutationLine('CloneSet', 'apps.kruise.io', target, 'created', options.dryRun)}\n`);
        if (options.mode === 'migrate') {
          // The plan goes with the summary on stdout, or beside the object on stderr (-o keeps stdout parseable).
          (output.kind === 'default' ? out : err).write(table);
          err.write(`${result.plan.length} step${result.plan.length === 1 ? '' : 's'}: ${result.total} pods in the end, max surge ${result.maxSurge}; each step waits until the CloneSet's new pods are available before lowering the Deployment\n`);
        }
        return ExitCode.OK;
      }
      case 'unchanged':
        if (output.kind === 'default') out.write(`${mutationLine('CloneSet', 'apps.kruise.io', target, 'unchanged', 'none')}\n`);
        if (result.message) err.write(`${result.message}\n`);
        return ExitCode.OK;
      case 'created':
      case 'copied':
        err.write(
          result.outcome === 'created'
            ? `cloneset/${target} is at 0 replicas; move the pods of deployment/${from} into it with "${rerun}"\n`
            : `cloneset/${target} runs ${result.total} pods beside those of deployment/${from}; once they are available, "${rerun}" scales the Deployment to 0\n`,
        );
        return ExitCode.OK;
      case 'migrated':
        if (output.kind === 'default') {
          out.write(`${mutationLine('CloneSet', 'apps.kruise.io', target, 'migrated', 'none')}\n`);
          if (result.deploymentDeleted) out.write(`${mutationLine('Deployment', 'apps', from, 'deleted', 'none')}\n`);
        }
        err.write(
          `deployment/${from} moved to cloneset/${target}: ${result.total} pods, ${result.plan.length} step${result.plan.length === 1 ? '' : 's'} in this run` +
            (result.deploymentDeleted ? '; deployment/' + from + ' deleted\n' : `; deployment/${from} is at 0 replicas and kept (delete it once nothing refers to it)\n`),
        );
        return ExitCode.OK;
    }
  } finally {
    client.close();
  }
}
