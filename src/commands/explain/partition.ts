// `explain partition`: offline from flags or a manifest, or live from the cluster (TYPE/NAME).
// Parse → validate (exit 2 on any invalid value) → arithmetic from src/kruise → print.
// The offline path imports neither src/kube nor @kubernetes/client-node.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { usageError } from '../../cli/exit';
import { explainPartition, InvalidValueError, type PartitionInput } from '../../kruise/partition';
import { parsePlanList, planRollout, type RolloutPlan } from '../../kruise/plan';
import type { KubeObject } from '../../kruise/types';
import { applyFlags, parseKindFlag, type ExplainFlags } from './partition-input';
import { reportJson, reportText, type LiveState } from './partition-print';

export async function run(ctx: CommandContext, args: string[], flags: ExplainFlags, _command: Command): Promise<number> {
  const output = parseOutput(flags.output);
  const kindFlag = parseKindFlag(flags.kind);
  const planList = flags.plan !== undefined ? guard(() => parsePlanList(flags.plan!)) : undefined;
  if (args.length > 0 && flags.filename) throw usageError('give either TYPE/NAME or -f FILE, not both');

  let inputs: Array<{ input: PartitionInput; live?: LiveState; origin?: string; object?: KubeObject; heading?: string }>;
  if (args.length > 0) {
    const [{ readLive }, { inputFromObjectChecked, expandSubsets }] = await Promise.all([import('./partition-live'), import('./partition-object')]);
    const live = await readLive(ctx, args);
    // A UnitedDeployment: each subset's arithmetic (the live pod summary is the whole UD's, so left out)
    const parts = expandSubsets(live.object, flags.subset);
    inputs = parts.map(({ object, subset }) => ({
      input: applyFlags(inputFromObjectChecked(object, kindFlag), flags),
      live: subset === undefined ? live.state : undefined,
      origin: describe(object),
      object,
      heading: subset === undefined ? undefined : `UnitedDeployment "${live.object.metadata.name ?? ''}" subset "${subset}":`,
    }));
  } else if (flags.filename) {
    const [{ readManifest }, { inputFromObjectChecked, hasPartitionKind, expandSubsets }] = await Promise.all([import('./manifest'), import('./partition-object')]);
    const expanded = (await readManifest(flags.filename)).flatMap((obj) => expandSubsets(obj, flags.subset).map((e) => ({ ...e, ud: obj })));
    const objects = expanded.map((e) => e.object);
    const headings = new Map(expanded.filter((e) => e.subset !== undefined).map((e) => [e.object, `UnitedDeployment "${e.ud.metadata.name ?? ''}" subset "${e.subset}":`]));
    // In a multi-object file, kinds without a partition (a Deployment next to a CloneSet) are skipped.
    const usable = objects.length === 1 ? objects : objects.filter((obj) => hasPartitionKind(obj));
    if (usable.length === 0) inputFromObjectChecked(objects[0]!, kindFlag); // throws the precise error
    for (const obj of objects) if (!usable.includes(obj)) ctx.term.stderr.write(`skipped ${describe(obj)}: no partition\n`);
    inputs = usable.map((obj) => ({ input: applyFlags(inputFromObjectChecked(obj, kindFlag), flags), origin: `${describe(obj)} (${flags.filename})`, object: obj, heading: headings.get(obj) }));
  } else {
    if (flags.subset !== undefined) throw usageError('--subset needs a UnitedDeployment (uniteddeployment/NAME or -f FILE)');
    inputs = [{ input: applyFlags({ kind: kindFlag ?? 'cloneset' }, flags) }];
  }

  // The same webhook rules the sandbox and the write pre-checks use: an object Kruise would refuse is said so.
  const webhook = inputs.some((i) => i.object) ? await import('../../kruise/rules/webhook-precheck') : undefined;
  const results = inputs.map(({ input, live, origin, object, heading }) => {
    const report = guard(() => explainPartition(input), origin);
    if (object && webhook) report.warnings.push(...webhook.webhookWarnings(object));
    const plan: RolloutPlan | undefined = planList ? guard(() => planRollout(withoutPartition(input), planList), origin) : undefined;
    if (live) live.batchDone = live.batchDone && live.updatedReplicas >= report.expectedUpdatedReplicas;
    return { report, plan, live, heading };
  });

  // The arithmetic depends on it: say what was assumed rather than silently answer for 1 pod
  // (once the answer stands: an invalid value prints just its error).
  if (args.length === 0 && !flags.filename && flags.replicas === undefined) {
    ctx.term.stderr.write(`note: --replicas not given: assuming 1 (Kruise's default for spec.replicas)\n`);
  }
  if (output) {
    const objs = results.map((r) => reportJson(r.report, r.plan, r.live));
    const data = objs.length === 1 ? objs[0] : objs;
    if (output === 'json') ctx.term.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
    else {
      // The same document as -o json, for readers of YAML (the library loads only here).
      const { yamlText } = await import('../../printers/output');
      ctx.term.stdout.write(yamlText(data, { kyaml: output === 'kyaml' }));
    }
  } else {
    ctx.term.stdout.write(results.map((r) => `${r.heading ? `${r.heading}\n` : ''}${reportText(r.report, r.plan, r.live)}`).join('\n'));
  }
  return 0;
}

function withoutPartition(input: PartitionInput): Omit<PartitionInput, 'partition'> {
  const { partition: _ignored, ...rest } = input;
  return rest;
}

function parseOutput(value: string | undefined): 'json' | 'yaml' | 'kyaml' | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'json' || value === 'yaml' || value === 'kyaml') return value;
  throw usageError(`unable to match a printer suitable for the output format "${value}", allowed formats are: json,yaml,kyaml`);
}

/** Invalid values (partition "99", negative numbers...) are usage errors: exit 2, one line. */
function guard<T>(fn: () => T, origin?: string): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof InvalidValueError) {
      if (!origin) throw usageError(e.message);
      const what = e.value === undefined ? `missing ${e.field}` : `invalid ${e.field} ${JSON.stringify(e.value)}`;
      throw usageError(`${what} in ${origin}: ${e.reason}`);
    }
    throw e;
  }
}

function describe(obj: KubeObject): string {
  return `${obj.kind ?? 'object'} "${obj.metadata?.name ?? ''}"`;
}
