// `rollout restart TYPE/NAME...`: native kinds and ReCreate-policy Kruise workloads get
// kubectl's template annotation (a new revision that recreates every pod). Kruise workloads
// with an in-place policy would only patch pod metadata in place for that annotation, so
// their containers are restarted through ContainerRecreateRequests (the `restart` engine).
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { ExitCode, exitCodeOf, failure, usageError } from '../../cli/exit';
import { batchSizeFor } from '../../kruise/plans/restart';
import { parseDuration } from '../../cli/globals';
import type { KubeClient, KubeObject, ResourceType } from '../../kube/client';
import { retryOnConflict } from '../../kube/conflict';
import { adapterFor } from '../../kruise/workloads/index';
import { formatObjects, mutationLine, parseOutputFormat, resourceName } from '../../printers/output';
import { releaseHint, workloadRefText } from '../../printers/release-hints';
import { rolloutHolding } from '../../kruise/rollout/holder';
import { noResourcesFound, parseTargets, readTargetObjects, resolveTargets } from './targets';
import { restartInPlace, type InPlaceOptions } from './restart-inplace';
import { rolloutRestartSidecarSets } from './sidecarset-restart';
import { sidecarSetTargets } from './sidecarset-status';

export { RESTARTED_AT_ANNOTATION, restartPatch } from './restart-patch';
import { restartPatch } from './restart-patch';

import type { RestartOptions } from './restart-options';
export type { RestartOptions } from './restart-options';

export async function run(ctx: CommandContext, args: string[], opts: RestartOptions, _cmd: Command): Promise<number> {
  const timeoutMs = opts.timeout === undefined ? 0 : parseDuration(opts.timeout, '--timeout');
  const format = parseOutputFormat(opts.output, ['default', 'json', 'yaml', 'name', 'jsonpath']);
  if (opts.maxUnavailable !== undefined) {
    try {
      batchSizeFor(opts.maxUnavailable, 1);
    } catch (err) {
      throw usageError((err as Error).message);
    }
  }
  const refs = parseTargets('rollout restart', args, opts.selector, { filenames: opts.filename });
  if (opts.preview) return (await import('./restart-preview')).previewRestart(ctx, refs, opts);
  if (opts.featureGates !== undefined) throw usageError('--feature-gates only goes with --preview');
  const client = await ctx.kube();
  let code: number = ExitCode.OK;
  try {
    const sidecarSets = await sidecarSetTargets(client, 'rollout restart', refs);
    if (sidecarSets) return await rolloutRestartSidecarSets(ctx, client, sidecarSets, { timeoutMs, maxUnavailable: opts.maxUnavailable });
    const objects = await readTargetObjects(client, await resolveTargets(client, 'rollout restart', refs), opts.selector);
    // kubectl rollout restart -l matching nothing: its line on stderr, exit 0
    if (objects.length === 0) ctx.term.stderr.write(`${noResourcesFound(client.namespace)}\n`);
    // With -o, the restarted objects are printed together at the end (a List when several).
    const printed: KubeObject[] = [];
    for (const { rt, obj } of objects) {
      code = Math.max(code, await restartOne(ctx, client, rt, obj, objects.length > 1, { timeoutMs, maxUnavailable: opts.maxUnavailable }, format.kind === 'default' ? undefined : printed));
    }
    if (printed.length > 0) ctx.term.stdout.write(formatObjects(printed, format));
  } finally {
    client.close();
  }
  return code;
}

async function restartOne(ctx: CommandContext, client: KubeClient, rt: ResourceType, obj: KubeObject, several: boolean, inPlace: InPlaceOptions, printed?: KubeObject[]): Promise<number> {
  const name = obj.metadata.name ?? '';
  try {
    const adapter = adapterFor(obj);
    if (!adapter) throw failure(`no rollout support for ${obj.apiVersion} ${obj.kind} "${name}"`);
    const holder = rolloutHolding(obj);
    if (adapter.paused(obj)) {
      // A Deployment under a release is paused by its Rollout, not by a person: resuming it would fight the release.
      if (holder !== undefined) {
        throw failure(`can't restart ${rt.kind.toLowerCase()} "${name}": it is paused by ${holder ? `rollout/${holder}` : 'its Kruise Rollout'} for a release in progress (finish or cancel the release first)`);
      }
      // kubectl refuses for Deployments, for the same reason: nothing would restart until resumed.
      throw failure(`can't restart paused ${rt.kind.toLowerCase()} "${name}" (run rollout resume first)`);
    }
    const policy = adapter.updatePolicy(obj);
    if ((policy === 'InPlaceIfPossible' || policy === 'InPlaceOnly') && !adapter.restartsThroughTemplate) {
      // With -o, stdout carries only the formatted object: the note goes to stderr.
      const note = printed ? ctx.term.stderr : ctx.term.stdout;
      note.write(`${resourceName(rt.kind, rt.group, name)} has an in-place update policy: restarting containers through ContainerRecreateRequests\n`);
      const code = await restartInPlace(ctx, client, rt, obj, inPlace, !printed);
      // The workload object itself is unchanged (its containers restarted in place): -o prints it as read.
      printed?.push(obj);
      return code;
    }
    const patched = await retryOnConflict(() => client.patch(rt, name, 'merge', restartPatch(new Date(), adapter.templatePointer(obj).split('/').slice(1)), obj.metadata.namespace));
    if (printed) printed.push(patched);
    else ctx.term.stdout.write(`${mutationLine(rt.kind, rt.group, name, 'restarted', 'none')}\n`);
    // The restart annotation is a template change: under a Kruise Rollout it goes out in the release's steps.
    const released = rolloutHolding(patched) ?? holder;
    if (released !== undefined) ctx.term.stderr.write(`${releaseHint(ctx.programName, workloadRefText(rt, name), released, 'change')}\n`);
    return ExitCode.OK;
  } catch (err) {
    if (!several) throw err;
    ctx.term.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return exitCodeOf(err);
  }
}
