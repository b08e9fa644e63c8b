// `scaledown TYPE/NAME --pods a,b | --ordinals 2,5-7`: check every flag (exit 2, nothing sent),
// then read, decide and write once (src/engine/scaledown.ts), print like kubectl, and with --wait
// watch until the pods are gone.
import type { CommandContext } from '../../cli/context';
import { usageError } from '../../cli/exit';
import { lookupType } from '../../kube/aliases';
import { resourceLabel } from '../../kube/errors';
import { parseOrdinals, parsePodNames, type ScaledownKind, type ScaledownRequest, type ScaledownTarget } from '../../kruise/plans/scaledown';
import { formatObjects, mutationLine, parseDryRun, parseOutputFormat } from '../../printers/output';
import { parseSingleRef } from '../../engine/targets';
import { boolFlag, durationFlag, fieldManagerFlag } from '../restart/flags';

interface ScaledownFlags {
  pods?: string;
  ordinals?: string;
  dryRun?: string | boolean;
  output?: string;
  wait?: unknown;
  timeout?: string;
  fieldManager?: string;
}

const SUPPORTED = 'scaledown works on clonesets (cloneset/NAME) and Advanced StatefulSets (asts/NAME)';

/** The kind scaledown handles for a group and kind (the alias table's before any request, discovery's after). */
function scaledownKindOf(group: string, kind: string): ScaledownKind | undefined {
  if (group !== 'apps.kruise.io') return undefined;
  return kind === 'CloneSet' ? 'CloneSet' : kind === 'StatefulSet' ? 'AdvancedStatefulSet' : undefined;
}

/** The kind of a type as typed, before any request: anything but a CloneSet or an ASTS is exit 2. */
function kindOfType(type: string): ScaledownKind {
  const ref = lookupType(type);
  if (!ref) throw usageError(`unknown resource type "${type}"`, `hint: ${SUPPORTED}`);
  const { group, kind } = ref.known;
  const handled = scaledownKindOf(group, kind);
  if (handled) return handled;
  if (group === 'apps' && kind === 'StatefulSet') {
    throw usageError(`scaledown is not supported for statefulsets.apps: a StatefulSet only removes its highest ordinals (kubectl scale)`, `hint: for an Advanced StatefulSet use asts/NAME; ${SUPPORTED}`);
  }
  throw usageError(`scaledown is not supported for ${resourceLabel(ref.known)}`, `hint: ${SUPPORTED}`);
}

function parseRequest(kind: ScaledownKind, flags: ScaledownFlags): ScaledownRequest {
  if (flags.pods !== undefined && flags.ordinals !== undefined) throw usageError('give either --pods or --ordinals, not both');
  if (flags.ordinals !== undefined) {
    if (kind !== 'AdvancedStatefulSet') throw usageError('--ordinals applies to Advanced StatefulSets only: name the pods of a cloneset with --pods');
    const parsed = parseOrdinals(flags.ordinals);
    if (!parsed.ok) throw usageError(parsed.message);
    return { ordinals: parsed.value };
  }
  if (flags.pods === undefined) throw usageError(kind === 'CloneSet' ? 'scaledown needs the pods to remove: --pods POD[,POD...]' : 'scaledown needs the pods to remove: --ordinals N[,A-B...] or --pods POD[,POD...]');
  const parsed = parsePodNames(flags.pods);
  if (!parsed.ok) throw usageError(parsed.message);
  return { pods: parsed.value };
}

const plural = (n: number, one: string, many: string): string => (n === 1 ? one : many);
const names = (targets: readonly ScaledownTarget[]): string => targets.map((t) => t.name).join(', ');

export async function run(ctx: CommandContext, args: string[], flags: ScaledownFlags): Promise<number> {
  const ref = parseSingleRef(args, 'scaledown');
  const kind = kindOfType(ref.type);
  const request = parseRequest(kind, flags);
  const dryRun = parseDryRun(flags.dryRun);
  const output = parseOutputFormat(flags.output, ['json', 'yaml', 'name', 'jsonpath']);
  const wait = boolFlag(flags.wait, '--wait', false);
  const timeoutMs = durationFlag(flags.timeout ?? '0', '--timeout') ?? 0;
  if (timeoutMs > 0 && !wait) throw usageError('--timeout applies to --wait: add --wait, or leave --timeout out');
  if (wait && dryRun !== 'none') throw usageError('--wait cannot be combined with --dry-run: a dry run removes no pod to wait for');
  const fieldManager = fieldManagerFlag(flags.fieldManager, 'kubectl-kruise-scaledown');

  const client = await ctx.kube();
  try {
    const { runScaledown, waitForScaledown } = await import('../../engine/scaledown');
    const rt = await client.resolve(ref.type);
    if (scaledownKindOf(rt.group, rt.kind) !== kind) throw usageError(`scaledown is not supported for ${resourceLabel(rt)}`, `hint: ${SUPPORTED}`);
    const opts = { rt, kind, name: ref.name, namespace: client.namespace, request, dryRun, fieldManager, signal: ctx.signal };
    const outcome = await runScaledown(client, opts);
    const obj = outcome.object;
    const group = rt.group;
    const out = ctx.term.stdout;
    let targets: ScaledownTarget[];
    if (outcome.kind === 'unchanged') {
      const already = outcome.decision.already;
      targets = already;
      if (output.kind !== 'default') out.write(formatObjects([obj], output));
      else out.write(`${mutationLine(rt.kind, group, ref.name, `unchanged (${plural(already.length, 'pod', 'pods')} ${names(already)} already scaled down)`, dryRun)}\n`);
    } else {
      const d = outcome.decision;
      targets = [...d.removing, ...d.already];
      if (output.kind !== 'default') out.write(formatObjects([obj], output));
      else {
        const reserved = d.reserved ? `reserving ${plural(d.removing.length, 'ordinal', 'ordinals')} ${d.reserved.join(', ')}, ` : '';
        const earlier = d.already.length > 0 ? `; ${names(d.already)} already scaled down` : '';
        const what = `scaled down from ${d.from} to ${d.to} replicas (${reserved}removing ${plural(d.removing.length, 'pod', 'pods')} ${names(d.removing)}${earlier})`;
        out.write(`${mutationLine(rt.kind, group, ref.name, what, dryRun)}\n`);
      }
    }
    // pods an availability budget would not let go now were left out of the write: say which and why
    for (const line of outcome.waiting ?? []) ctx.term.stderr.write(`note: ${line}; left out of this scale-down (run it again once the budget has room)\n`);
    if (!wait) return 0;
    ctx.setInterruptSummary(() => `the scale-down of ${rt.kind.toLowerCase()}/${ref.name} is written; its pods may still be going (rerun with --wait to wait for them)`);
    const done = await waitForScaledown(client, opts, obj, targets, timeoutMs > 0 ? Date.now() + timeoutMs : undefined);
    if (output.kind === 'default') {
      const gone = targets.length > 0 ? `${plural(targets.length, 'pod', 'pods')} ${names(targets)} gone, ` : '';
      out.write(`${mutationLine(rt.kind, group, ref.name, `scale-down complete (${gone}${done.replicas} replicas)`, 'none')}\n`);
    }
    return 0;
  } finally {
    client.close();
  }
}
