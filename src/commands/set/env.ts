// `set env`: add, change or remove env entries of the selected containers with guarded
// JSON patch ops; `--list` prints them; `--from` references every key of a ConfigMap or Secret.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { failure, usageError } from '../../cli/exit';
import { envFromSource, formatEnvList, isValidEnvName, parseEnvArgs, planEnvChange, selectContainers, type EnvEdits } from '../../kruise/containers';
import { dns1123SubdomainProblem } from '../../kruise/names';
import type { KubeObject } from '../../kruise/types';
import { objectName } from './edit';
import { readManifests } from './manifests';
import { parseCommon, parseContainerSelector, type CommonSetOptions } from './options';
import { runEdit } from './run-edit';
import { splitEditArgs } from './targets';

interface EnvOptions extends CommonSetOptions {
  containers?: string;
  from?: string;
  prefix?: string;
  list?: boolean;
}

const isEnvArg = (a: string): boolean => a.includes('=') || (a.endsWith('-') && !a.includes('/') && a.length > 1);

function parseFrom(value: string): { kind: 'configmap' | 'secret'; name: string } {
  const m = /^(configmap|configmaps|cm|secret|secrets)\/(.*)$/.exec(value);
  if (!m) throw usageError(`invalid --from "${value}": expected configmap/NAME or secret/NAME`);
  const problem = dns1123SubdomainProblem(m[2]!);
  if (problem) throw usageError(`invalid --from name "${m[2]}": ${problem}`);
  return { kind: m[1]!.startsWith('secret') ? 'secret' : 'configmap', name: m[2]! };
}

/** "clonesets/web", kubectl's header for --list. */
function listHeader(obj: KubeObject, plural?: string): string {
  return `${plural ?? `${(obj.kind ?? '').toLowerCase()}s`}/${obj.metadata.name ?? ''}`;
}

export async function run(ctx: CommandContext, args: string[], opts: EnvOptions, _cmd: Command): Promise<number> {
  const { resources, edits: envArgs } = splitEditArgs(args, isEnvArg, 'KEY=VALUE / KEY-');
  const parsed = parseEnvArgs(envArgs);
  if (!parsed.ok) throw usageError(parsed.message);
  const selector = parseContainerSelector(opts.containers);
  const from = opts.from !== undefined ? parseFrom(opts.from) : undefined;
  if (opts.prefix !== undefined && !from) throw usageError('--prefix only applies with --from');
  if (opts.prefix !== undefined && opts.prefix !== '' && !isValidEnvName(`${opts.prefix}X`)) throw usageError(`invalid --prefix "${opts.prefix}": env names may only hold letters, digits, '_', '-' and '.'`);
  const common = parseCommon('set env', resources, opts);

  if (opts.list) {
    if (envArgs.length > 0 || from) throw usageError('--list cannot be combined with changes (KEY=VALUE, KEY-, --from)');
    let text = '';
    const list = (obj: KubeObject, header: string): void => {
      if (selectContainers(obj, selector).length === 0) throw failure(`unable to find container named "${selector}" in ${objectName(obj)}`);
      text += formatEnvList(header, obj, selector);
    };
    if (common.selection.local) {
      for (const { object } of readManifests(common.selection.files, 'set env')) list(object, listHeader(object));
    } else {
      const { readTargets } = await import('./cluster');
      for (const live of await readTargets(ctx, common.selection, 'set env')) list(live.obj, listHeader(live.obj, live.rt.resource));
    }
    ctx.term.stdout.write(text);
    return 0;
  }
  if (envArgs.length === 0 && !from) throw usageError('set env needs at least one KEY=VALUE, KEY- or --from=configmap/NAME|secret/NAME (or --list)');
  if (from && common.selection.local) throw usageError('--from reads a ConfigMap or Secret from the cluster and cannot be combined with --local');

  const edits: EnvEdits = { set: [...parsed.edits.set], remove: [...parsed.edits.remove] };
  if (from) {
    const { readSourceKeys } = await import('./cluster');
    const keys = await readSourceKeys(ctx, from.kind, from.name);
    const fromEntries = envFromSource(from.kind, from.name, keys, opts.prefix ?? '');
    for (const entry of fromEntries) {
      if (!isValidEnvName(entry.name)) throw usageError(`key "${entry.name}" of ${from.kind} "${from.name}" is not a valid env name; use --prefix`);
    }
    // Explicit KEY=VALUE arguments win over the referenced keys.
    edits.set = [...fromEntries.filter((e) => !edits.set.some((s) => s.name === e.name) && !edits.remove.includes(e.name)), ...edits.set];
  }
  return runEdit(ctx, common, {
    command: 'set env',
    updatedVerb: 'env updated',
    unchangedVerb: 'env unchanged',
    plan: (obj) => planEnvChange(obj, selector, edits),
  });
}
