// `predownload TYPE/NAME | --image IMAGE...`: validate every flag (exit 2, nothing sent),
// decide what to pull where, run the engine, print progress and failed nodes.
import type { CommandContext } from '../../cli/context';
import { CliError, ExitCode, failure, usageError } from '../../cli/exit';
import { imageReferenceProblem, type PullTarget } from '../../kruise/builders/imagepulljob';
import { parseNodeSelector } from '../../kruise/plans/predownload';
import { dns1123SubdomainProblem } from '../../kruise/names';
import { formatObjects, mutationLine, parseDryRun, parseOutputFormat } from '../../printers/output';
import { formatTable } from '../../printers/table';
import { withProgress } from '../../printers/progress';
import type { PredownloadOptions, PredownloadRequest, PredownloadResult } from '../../engine/predownload';
import { isPodType, parseSingleRef, resolveWorkload, type ResourceRef } from '../../engine/targets';
import { boolFlag, durationFlag, intFlag, secondsFlag, viaFlag } from '../restart/flags';

interface PredownloadFlags {
  image?: string[];
  nodes?: string;
  nodeSelector?: string;
  parallelism?: string;
  timeout?: string;
  backoffLimit?: string;
  pullSecret?: string[];
  ttl?: string;
  wait?: unknown;
  via?: string;
  dryRun?: string | boolean;
  output?: string;
}

function checkName(value: string, what: string): string {
  const p = dns1123SubdomainProblem(value);
  if (p) throw usageError(`invalid ${what} "${value.length > 80 ? `${value.slice(0, 80)}...` : value}": ${p}`);
  return value;
}

export function parseImages(values: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const v of values ?? []) {
    for (const image of v.split(',')) {
      const problem = imageReferenceProblem(image.trim());
      if (problem) throw usageError(`invalid image "${image}" for --image: ${problem}`);
      if (!out.includes(image.trim())) out.push(image.trim());
    }
  }
  if (out.length > 255) throw usageError('too many images: at most 255 per pre-download');
  return out;
}

/** The explicit-images request: where to pull (names, labels, or every node). */
export function explicitTarget(flags: PredownloadFlags): { target: PullTarget; nodes?: string[] } {
  if (flags.nodes !== undefined && flags.nodeSelector !== undefined) throw usageError('--nodes and --node-selector cannot be used together');
  if (flags.nodes !== undefined) {
    const names = flags.nodes.split(',').map((n) => n.trim());
    if (names.some((n) => n === '')) throw usageError('empty node name in --nodes');
    for (const n of names) checkName(n, 'node name in --nodes');
    const unique = [...new Set(names)];
    return { target: { kind: 'nodes', names: unique }, nodes: unique };
  }
  if (flags.nodeSelector !== undefined) {
    try {
      return { target: { kind: 'nodeSelector', matchLabels: parseNodeSelector(flags.nodeSelector) } };
    } catch (err) {
      throw usageError((err as Error).message);
    }
  }
  return { target: { kind: 'allNodes' } };
}

export function predownloadOptionsFromFlags(flags: PredownloadFlags): PredownloadOptions {
  const timeoutMs = durationFlag(flags.timeout, '--timeout');
  // 0 (or absent) = Kruise's default pull timeout and no overall limit.
  const timeoutSeconds = timeoutMs ? Math.max(1, Math.ceil(timeoutMs / 1000)) : undefined;
  return {
    parallelism: intFlag(flags.parallelism ?? '1', '--parallelism', 1, 1000)!,
    timeoutSeconds,
    backoffLimit: intFlag(flags.backoffLimit, '--backoff-limit', 0, 1000),
    pullSecrets: (flags.pullSecret ?? []).map((s) => checkName(s, 'secret name in --pull-secret')),
    ttlSecondsAfterFinished: secondsFlag(flags.ttl, '--ttl'),
    wait: boolFlag(flags.wait, '--wait', true),
    timeoutMs: timeoutMs ?? 0,
    via: viaFlag(flags.via),
    dryRun: parseDryRun(flags.dryRun),
  };
}

function resultTable(result: PredownloadResult): string {
  return formatTable(
    ['JOB', 'IMAGES', 'DESIRED', 'SUCCEEDED', 'FAILED', 'FAILED NODES'],
    result.jobs.map((j) => [j.name, j.images.join(','), j.desired, j.succeeded, j.failed, j.failedNodes.join(',')]),
  )
    .replace(/<none>$/gm, '')
    .replace(/[ \t]+$/gm, '');
}

export async function run(ctx: CommandContext, args: string[], flags: PredownloadFlags): Promise<number> {
  const images = parseImages(flags.image);
  let ref: ResourceRef | undefined;
  if (args.length > 0) {
    ref = parseSingleRef(args, 'predownload');
    // TYPE/NAME with --image: warm the nodes of its pods with images it does not use yet (before a switch).
    if (flags.nodes !== undefined || flags.nodeSelector !== undefined) throw usageError('--nodes and --node-selector go with --image alone; for a workload the nodes of its pods are used');
  } else if (images.length === 0) {
    throw usageError('predownload needs a workload (TYPE/NAME) or at least one --image');
  }
  const explicit = ref ? undefined : explicitTarget(flags);
  const options = predownloadOptionsFromFlags(flags);
  const output = parseOutputFormat(flags.output, ['yaml', 'json', 'name', 'jsonpath']);

  const client = await ctx.kube();
  try {
    const { checkPullNodes, runPredownload, workloadImagesRequest, workloadRequest } = await import('../../engine/predownload');
    let request: PredownloadRequest;
    if (ref) {
      const target = await resolveWorkload(client, ref, ctx.signal);
      if (isPodType(target.rt)) throw usageError('predownload takes a workload (e.g. cloneset/web) or --image, not a pod');
      const r = images.length > 0 ? workloadImagesRequest(target, images) : workloadRequest(target);
      if (!r) {
        const why = images.length > 0 ? `no pod of ${ref.type}/${ref.name} runs on a node yet` : `every pod of ${ref.type}/${ref.name} already runs its template's images`;
        ctx.term.stderr.write(`nothing to pre-download: ${why}\n`);
        return ExitCode.OK;
      }
      request = r;
      const nodes = r.nodes ?? [];
      const where = `${nodes.length} ${nodes.length === 1 ? 'node' : 'nodes'}`;
      ctx.term.stderr.write(
        images.length > 0
          ? `pre-downloading ${r.images.join(', ')} on the ${where} of the pods of ${ref.type}/${ref.name}: ${nodes.join(', ')}\n`
          : `pre-downloading ${r.images.join(', ')} on ${where} of the pods that do not run them yet: ${nodes.join(', ')}\n`,
      );
    } else {
      request = { images, target: explicit!.target, nodes: explicit!.nodes, nameBase: 'predownload', namespace: client.namespace, what: images.join(', ') };
      await checkPullNodes(client, request.target, ctx.signal);
    }
    const result: PredownloadResult = await withProgress(ctx.term, (reporter) => runPredownload(ctx, client, request, options, reporter));
    const out = ctx.term.stdout;
    if (result.outcome === 'dry-run' || result.outcome === 'created') {
      if (output.kind !== 'default') out.write(formatObjects(result.objects, output));
      else for (const o of result.objects) out.write(`${mutationLine(o.kind ?? '', o.kind === 'Pod' ? '' : 'apps.kruise.io', o.metadata.name ?? '', 'created', options.dryRun)}\n`);
      return ExitCode.OK;
    }
    if (output.kind !== 'default' && result.objects.length > 0) out.write(formatObjects(result.objects, output));
    else out.write(resultTable(result));
    const failedNodes = [...new Set(result.jobs.flatMap((j) => j.failedNodes))].sort();
    if (result.outcome === 'timeout') throw new CliError(result.message ?? 'timed out', ExitCode.TIMEOUT);
    if (result.outcome === 'failed') {
      throw failure(`pre-download of ${request.what} failed on ${failedNodes.length} ${failedNodes.length === 1 ? 'node' : 'nodes'}: ${failedNodes.join(', ') || 'see the jobs above'}`);
    }
    return ExitCode.OK;
  } finally {
    client.close();
  }
}
