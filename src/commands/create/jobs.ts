// `create job NAME --from advancedcronjob/X|cronjob/X` and `create broadcastjob NAME --from advancedcronjob/X`
// (or `--image IMAGE [-- COMMAND...]`): a manual run of a cron job's template, owned by it as kubectl's
// `create job --from=cronjob/X` makes it. Everything knowable is checked before anything is written:
// the name (the kind's own rules), the --from kind (offline), then, after reading the source, that it
// holds this verb's template kind and that the object would pass the API's / Kruise's webhook rules.
// One GET of the source and one POST (discovery from the cache).
import type { CommandContext } from '../../cli/context';
import { ExitCode, failure, usageError } from '../../cli/exit';
import { joinApiVersion } from '../../kruise/api-version';
import { MANUAL_RUN_SOURCES, imageRun, manualRun, type RunKind } from '../../kruise/builders/jobs';
import { broadcastJobNameProblems } from '../../kruise/rules/broadcastjob';
import { fieldErrorMessage, type FieldError } from '../../kruise/rules/cloneset-webhook';
import { dns1123SubdomainProblem, LABEL_VALUE_MAX } from '../../kruise/names';
import type { KubeObject } from '../../kruise/types';
import { lookupType } from '../../kube/aliases';
import { parseSingleRef, type ResourceRef } from '../../engine/targets';
import { formatObjects, mutationLine, parseDryRun, parseOutputFormat, type DryRunMode, type OutputFormat } from '../../printers/output';

interface CreateRunFlags {
  from?: string;
  image?: string;
  dryRun?: string | boolean;
  output?: string;
}

interface RunVerb {
  verb: string;
  kind: RunKind;
  /** The type resolved for the object created. */
  type: string;
  /** Its MANUAL_RUN_SOURCES as users type them, for the refusal of another --from kind. */
  fromTypes: string;
  /** The kind's own name rule (beyond a DNS subdomain), undefined when fine. */
  nameProblem(name: string): string | undefined;
  /** The server's rules for the object about to be sent: the API's (Job) or Kruise's webhook (BroadcastJob). */
  check(obj: KubeObject): Promise<FieldError[]>;
}

/** One row per verb: the command code below never branches on the kind. */
const VERBS: Record<RunKind, RunVerb> = {
  Job: {
    verb: 'create job',
    kind: 'Job',
    type: 'jobs.batch',
    fromTypes: 'advancedcronjob/NAME (acj) or cronjob/NAME (cj)',
    // job-name becomes a label of the Job's pods: a label value
    nameProblem: (name) => (name.length > LABEL_VALUE_MAX ? `must be no more than ${LABEL_VALUE_MAX} characters (it becomes the job-name label of its pods)` : undefined),
    async check(obj) {
      const { jobDefaults, validateJob } = await import('../../kruise/rules/job');
      return validateJob(jobDefaults({ ...obj, metadata: { ...obj.metadata, uid: 'to-be-assigned' } }));
    },
  },
  BroadcastJob: {
    verb: 'create broadcastjob',
    kind: 'BroadcastJob',
    type: 'broadcastjobs.apps.kruise.io',
    fromTypes: 'advancedcronjob/NAME (acj)',
    // Kruise's webhook: no dots, at most 63 characters
    nameProblem: (name) => broadcastJobNameProblems(name)[0],
    async check(obj) {
      const { broadcastJobDefaults, validateBroadcastJob } = await import('../../kruise/rules/broadcastjob');
      return validateBroadcastJob(broadcastJobDefaults(obj, true));
    },
  },
};

interface CreateRunInput {
  name: string;
  from?: ResourceRef;
  image?: string;
  command: string[];
  dryRun: DryRunMode;
  output: OutputFormat;
}

/** Every flag checked before any request (exit 2). */
export function parseCreateRun(v: RunVerb, args: readonly string[], flags: CreateRunFlags): CreateRunInput {
  const name = args[0];
  if (name === undefined) throw usageError(`${v.verb} needs a NAME`, `hint: ${v.verb} NAME --from advancedcronjob/CRONJOB`);
  const short = name.length > 80 ? `${name.slice(0, 80)}...` : name;
  const problem = dns1123SubdomainProblem(name) ?? v.nameProblem(name);
  if (problem) throw usageError(`invalid name "${short}": ${problem}`);
  const command = args.slice(1);
  if ((flags.image === undefined) === (flags.from === undefined)) throw usageError('either --image or --from must be specified');
  if (flags.from !== undefined && command.length > 0) throw usageError('cannot specify --from and command');
  if (flags.image !== undefined && flags.image.trim() === '') throw usageError('--image is empty');
  let from: ResourceRef | undefined;
  if (flags.from !== undefined) {
    from = parseSingleRef([flags.from], `${v.verb} --from`);
    // The alias table knows the kind without a request: a wrong kind never reaches the server.
    const known = lookupType(from.type)?.known;
    const sources = MANUAL_RUN_SOURCES[v.kind];
    if (!known || !sources.some((s) => s.kind === known.kind && s.group === known.group)) throw usageError(`--from must name ${v.fromTypes}, not "${flags.from}"`);
  }
  return { name, from, image: flags.image, command, dryRun: parseDryRun(flags.dryRun), output: parseOutputFormat(flags.output, ['yaml', 'json', 'name', 'jsonpath']) };
}

const ARTICLE = (word: string) => (/^[aeiou]/i.test(word) ? 'an' : 'a');

async function runVerb(v: RunVerb, ctx: CommandContext, args: string[], flags: CreateRunFlags): Promise<number> {
  const input = parseCreateRun(v, args, flags);
  const client = await ctx.kube();
  try {
    const rt = await client.resolve(v.type);
    const namespace = client.namespace;
    const run = { apiVersion: joinApiVersion(rt.group, rt.version), kind: v.kind, name: input.name };
    let obj: KubeObject;
    let origin = `${v.kind} "${input.name}"`;
    if (input.from) {
      const sourceRt = await client.resolve(input.from.type);
      const source = await client.get(sourceRt, input.from.name, namespace, { signal: ctx.signal });
      const entry = MANUAL_RUN_SOURCES[v.kind].find((s) => s.kind === source.kind && s.group === sourceRt.group)!;
      const label = `${sourceRt.kind.toLowerCase()} "${input.from.name}"`;
      const held = entry.templateKind(source);
      if (held !== v.kind) {
        const verbFor = (VERBS as Partial<Record<string, RunVerb>>)[held]?.verb;
        throw usageError(
          `${label} holds ${ARTICLE(entry.field(held))} ${entry.field(held)}, not ${ARTICLE(entry.field(v.kind))} ${entry.field(v.kind)}: ${verbFor ? `it runs ${held}s` : `neither a Job nor a BroadcastJob can be made from it`}; nothing was created`,
          verbFor ? `hint: ${ctx.programName} ${verbFor} ${input.name} --from ${input.from.type}/${input.from.name}` : undefined,
        );
      }
      const template = entry.template(source);
      if (!template) throw failure(`${label} has no ${entry.field(v.kind)}; nothing was created`);
      obj = manualRun(run, source, template);
      origin = `the ${entry.field(v.kind)} of ${label}`;
    } else {
      obj = imageRun(run, input.image!, input.command);
    }
    const problems = await v.check(obj);
    if (problems.length > 0) {
      const what = input.from ? `${origin} cannot make a ${v.kind}` : `${v.kind.toLowerCase()} "${input.name}" would be refused`;
      throw usageError(`${what}: ${problems.map((p) => `${p.field}: ${fieldErrorMessage(p)}`).join('; ')}; nothing was created`);
    }
    let created = obj;
    if (input.dryRun !== 'client') created = await client.create(rt, obj, namespace, { dryRun: input.dryRun === 'server', signal: ctx.signal });
    const out = ctx.term.stdout;
    if (input.output.kind !== 'default') out.write(formatObjects([created], input.output));
    else out.write(`${mutationLine(v.kind, rt.group, input.name, 'created', input.dryRun)}\n`);
    return ExitCode.OK;
  } finally {
    client.close();
  }
}

export function runJob(ctx: CommandContext, args: string[], flags: CreateRunFlags): Promise<number> {
  return runVerb(VERBS.Job, ctx, args, flags);
}

export function runBroadcastJob(ctx: CommandContext, args: string[], flags: CreateRunFlags): Promise<number> {
  return runVerb(VERBS.BroadcastJob, ctx, args, flags);
}
