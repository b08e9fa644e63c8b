// `create pps NAME --for sts/NAME|asts/NAME`: a PersistentPodState of the served version,
// or (--auto) the StatefulSet annotations that make Kruise generate one. Everything the
// webhook or the pod API would reject is checked first.
import type { CommandContext } from '../../cli/context';
import { ExitCode, failure, usageError } from '../../cli/exit';
import {
  autoGenerateAnnotations,
  buildPps,
  labelKeyProblem,
  parsePreferredTopology,
  parseTopologyKeys,
  type PreferredTopology,
} from '../../kruise/builders/pps';
import { dns1123SubdomainProblem } from '../../kruise/names';
import { formatObjects, mutationLine, parseDryRun, parseOutputFormat, type DryRunMode, type OutputFormat } from '../../printers/output';
import { parseSingleRef, type ResourceRef } from '../../engine/targets';

interface CreatePpsFlags {
  for?: string;
  requiredTopology?: string;
  preferredTopology?: string;
  persistentAnnotations?: string;
  retention?: string;
  auto?: boolean;
  preview?: boolean;
  dryRun?: string | boolean;
  output?: string;
}

export interface CreatePpsInput {
  name?: string;
  target: ResourceRef;
  required: string[];
  preferred: PreferredTopology[];
  podAnnotations: string[];
  retention?: 'WhenScaled' | 'WhenDeleted';
  auto: boolean;
  preview: boolean;
  dryRun: DryRunMode;
  output: OutputFormat;
}

function usage<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw usageError((err as Error).message);
  }
}

/** Every flag checked before any request (exit 2). */
export function parseCreatePps(args: readonly string[], flags: CreatePpsFlags): CreatePpsInput {
  if (args.length > 1) throw usageError(`create pps takes one NAME; unexpected argument "${args[1]}"`);
  const name = args[0];
  if (name !== undefined) {
    const p = dns1123SubdomainProblem(name);
    if (p) throw usageError(`invalid name "${name.length > 80 ? `${name.slice(0, 80)}...` : name}": ${p}`);
  }
  if (!flags.for) throw usageError('create pps needs --for sts/NAME or --for asts/NAME (the StatefulSet to keep in place)');
  const target = parseSingleRef([flags.for], 'create pps --for');
  if (!flags.auto && name === undefined) throw usageError('create pps needs a NAME (or --auto, which names it after the StatefulSet)');
  if (flags.auto && name !== undefined && name !== target.name) {
    throw usageError(`with --auto Kruise names the PersistentPodState after the StatefulSet ("${target.name}"), not "${name}"`);
  }
  const required = flags.requiredTopology !== undefined ? usage(() => parseTopologyKeys(flags.requiredTopology!, '--required-topology')) : [];
  const preferred = flags.preferredTopology !== undefined ? usage(() => parsePreferredTopology(flags.preferredTopology!)) : [];
  if (required.length === 0 && preferred.length === 0) throw usageError('a PersistentPodState needs at least one topology: --required-topology and/or --preferred-topology');
  const podAnnotations: string[] = [];
  if (flags.persistentAnnotations !== undefined) {
    for (const key of flags.persistentAnnotations.split(',')) {
      if (key === '') throw usageError('empty annotation key in --persistent-annotations');
      const p = labelKeyProblem(key);
      if (p) throw usageError(`invalid annotation key "${key}" in --persistent-annotations: ${p}`);
      if (!podAnnotations.includes(key)) podAnnotations.push(key);
    }
  }
  const r = flags.retention;
  if (r !== undefined && r !== 'WhenScaled' && r !== 'WhenDeleted') throw usageError(`invalid value "${r}" for --retention: expected WhenScaled or WhenDeleted`);
  if (flags.auto) {
    const weighted = preferred.find((p) => p.weight !== 100);
    if (weighted) throw usageError(`--auto cannot carry weights: Kruise gives generated preferred terms weight 100 (got ${weighted.key}:${weighted.weight})`);
    if (r !== undefined) throw usageError('--retention cannot be set with --auto (the generated PersistentPodState uses the default, WhenScaled)');
  }
  return {
    name,
    target,
    required,
    preferred,
    podAnnotations,
    retention: r as CreatePpsInput['retention'],
    auto: Boolean(flags.auto),
    preview: Boolean(flags.preview),
    dryRun: parseDryRun(flags.dryRun),
    output: parseOutputFormat(flags.output, ['yaml', 'json', 'name', 'jsonpath']),
  };
}

export async function run(ctx: CommandContext, args: string[], flags: CreatePpsFlags): Promise<number> {
  const input = parseCreatePps(args, flags);
  const client = await ctx.kube();
  try {
    const { resolveStatefulSet, ppsResourceType, ppsTargeting } = await import('../../engine/pps');
    const sts = await resolveStatefulSet(client, input.target, ctx.signal);
    const ppsRt = await ppsResourceType(client);
    const name = input.name ?? sts.name;
    const apiVersion = `${ppsRt.group}/${ppsRt.version}`;
    const pps = buildPps({
      apiVersion,
      name,
      namespace: sts.namespace,
      target: { apiVersion: sts.object.apiVersion ?? `${sts.rt.group}/${sts.rt.version}`, kind: 'StatefulSet', name: sts.name },
      required: input.required,
      preferred: input.preferred,
      podAnnotations: input.podAnnotations,
      retention: input.retention,
    });
    // The webhook's own rules, as a last check before anything is sent.
    const { validatePersistentPodState } = await import('../../kruise/rules/pps');
    const problems = validatePersistentPodState(pps, undefined, []);
    if (problems.length > 0) throw usageError(`persistentpodstate "${name}" is invalid: ${problems.map((p) => `${p.field}: ${p.detail}`).join('; ')}`);
    if (input.podAnnotations.length > 0 && !input.auto) {
      const { crdVersionLacksField } = await import('../../engine/crd-fields');
      if (await crdVersionLacksField(client, 'persistentpodstates.apps.kruise.io', ppsRt.version, 'persistentPodAnnotations')) {
        throw usageError('--persistent-annotations needs a newer OpenKruise: this cluster\'s PersistentPodState has no spec.persistentPodAnnotations; nothing was created');
      }
    }
    const out = ctx.term.stdout;
    if (input.preview) {
      const { previewTable } = await import('./pps-preview');
      out.write(await previewTable(client, pps, sts.pods, ctx.signal));
      return ExitCode.OK;
    }
    const others = (await ppsTargeting(client, ppsRt, sts, ctx.signal)).filter((p) => !(input.auto && p.metadata.name === sts.name));
    if (others.length > 0) {
      throw failure(`persistentpodstate "${others[0]!.metadata.name}" already targets ${sts.rt.kind.toLowerCase()}.${sts.rt.group}/${sts.name}: only one PersistentPodState may target a StatefulSet`);
    }
    if (input.auto) {
      const annotations = autoGenerateAnnotations(input.required, input.preferred.map((p) => p.key), input.podAnnotations);
      const patch = { metadata: { annotations } };
      if (input.dryRun === 'client') {
        const merged = { ...sts.object, metadata: { ...sts.object.metadata, annotations: { ...(sts.object.metadata.annotations ?? {}), ...annotations } } };
        if (input.output.kind !== 'default') out.write(formatObjects([merged], input.output));
        else out.write(`${mutationLine('StatefulSet', sts.rt.group, sts.name, 'annotated', 'client')}\n`);
        return ExitCode.OK;
      }
      const patched = await client.patch(sts.rt, sts.name, 'merge', patch, sts.namespace, { dryRun: input.dryRun === 'server', signal: ctx.signal });
      if (input.output.kind !== 'default') out.write(formatObjects([patched], input.output));
      else out.write(`${mutationLine('StatefulSet', sts.rt.group, sts.name, 'annotated', input.dryRun)}\n`);
      if (input.dryRun === 'none') {
        const { waitForGenerated } = await import('./pps-preview');
        const generated = await waitForGenerated(client, ppsRt, sts.name, sts.namespace, 10_000, ctx.signal);
        ctx.term.stderr.write(
          generated
            ? `persistentpodstate.apps.kruise.io/${sts.name} generated by Kruise\n`
            : `Kruise has not generated persistentpodstate.apps.kruise.io/${sts.name} yet (is the PersistentPodState controller running?)\n`,
        );
      }
      return ExitCode.OK;
    }
    let created = pps;
    if (input.dryRun !== 'client') created = await client.create(ppsRt, pps, sts.namespace, { dryRun: input.dryRun === 'server', signal: ctx.signal });
    if (input.output.kind !== 'default') out.write(formatObjects([created], input.output));
    else out.write(`${mutationLine('PersistentPodState', ppsRt.group, name, 'created', input.dryRun)}\n`);
    return ExitCode.OK;
  } finally {
    client.close();
  }
}
