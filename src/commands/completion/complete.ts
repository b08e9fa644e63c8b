// Completion candidates (cobra's __complete protocol: one candidate per line, then
// ":<directive>"). Object names come from the cluster with a short deadline.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { GLOBAL_FLAG_HELP } from '../../cli/globals';

const NO_SPACE = 2;
const NO_FILE_COMP = 4;

const WORKLOAD_TYPES = ['cloneset', 'asts', 'ads', 'deployment', 'statefulset', 'daemonset'];
/** Kinds with a paused field (contract: rollout pause|resume). */
const PAUSABLE_TYPES = ['cloneset', 'asts', 'ads', 'deployment'];
/** Verbs that also take a Kruise Rollout (rollout/NAME). */
const WITH_ROLLOUT = [...WORKLOAD_TYPES, 'rollout'];
/** Which resource types each command path takes (first positional words). */
const TYPES_BY_COMMAND: Record<string, string[]> = {
  'rollout status': WITH_ROLLOUT,
  'rollout undo': WITH_ROLLOUT,
  'rollout history': WORKLOAD_TYPES,
  'rollout pause': [...PAUSABLE_TYPES, 'rollout'],
  'rollout resume': [...PAUSABLE_TYPES, 'rollout'],
  'rollout approve': WITH_ROLLOUT,
  'rollout jump': ['rollout', ...WORKLOAD_TYPES],
  'rollout restart': WORKLOAD_TYPES,
  'set image': [...WORKLOAD_TYPES, 'pod', 'sidecarset', 'job', 'cronjob'],
  'set env': [...WORKLOAD_TYPES, 'pod'],
  'set resources': [...WORKLOAD_TYPES, 'pod'],
  restart: [...WORKLOAD_TYPES, 'pod'],
  predownload: WORKLOAD_TYPES,
  'explain partition': ['cloneset', 'asts', 'ads', 'statefulset'],
};
const FLAG_VALUES: Record<string, string[]> = {
  '--until': ['paused', 'complete', 'step='],
  '-o': ['json', 'yaml', 'name', 'wide', 'jsonpath='],
  '--output': ['json', 'yaml', 'name', 'wide', 'jsonpath='],
  '--dry-run': ['none', 'client', 'server'],
  '--via': ['auto', 'kruise', 'client'],
  '--kind': ['cloneset', 'asts', 'ads', 'statefulset'],
  '--failure-policy': ['Fail', 'Ignore'],
  '--retention': ['WhenScaled', 'WhenDeleted'],
};

function globalFlagNames(): string[] {
  return GLOBAL_FLAG_HELP.flatMap(([f]) => f.split(/,\s*/)).map((f) => f.replace(/=.*$/, '')).filter((f) => f.startsWith('--'));
}

interface Resolved {
  command: Command;
  path: string[];
  positionals: string[];
}

function walk(root: Command, words: string[]): Resolved {
  let command = root;
  const path: string[] = [];
  const positionals: string[] = [];
  for (const w of words) {
    if (w.startsWith('-')) continue;
    const sub = command.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (sub && positionals.length === 0) {
      command = sub;
      path.push(sub.name());
    } else positionals.push(w);
  }
  return { command, path, positionals };
}

async function objectNames(ctx: CommandContext, type: string): Promise<string[]> {
  const work = (async () => {
    const client = await ctx.kube();
    const rt = await client.resolve(type);
    const list = await client.list(rt, rt.namespaced ? client.namespace : undefined, { limit: 500 });
    return list.items.map((o) => `${type}/${o.metadata.name}`);
  })();
  const deadline = new Promise<string[]>((resolve) => setTimeout(() => resolve([]), 2000).unref());
  try {
    return await Promise.race([work, deadline]);
  } catch {
    return [];
  }
}

async function forCandidates(ctx: CommandContext, current: string): Promise<{ items: string[]; directive: number }> {
  const slash = current.indexOf('/');
  if (slash > 0) {
    const names = await objectNames(ctx, current.slice(0, slash));
    return { items: names.filter((n) => n.startsWith(current)), directive: NO_FILE_COMP };
  }
  return { items: ['statefulset/', 'asts/'].filter((t) => t.startsWith(current)), directive: NO_FILE_COMP | NO_SPACE };
}

export async function candidates(ctx: CommandContext, root: Command, words: string[]): Promise<{ items: string[]; directive: number }> {
  const current = words.length ? words[words.length - 1]! : '';
  const before = words.slice(0, -1);
  const { command, path, positionals } = walk(root, before);
  const prev = before[before.length - 1];
  if (prev && FLAG_VALUES[prev]) return { items: FLAG_VALUES[prev]!, directive: NO_FILE_COMP };
  if (current.startsWith('-')) {
    const own = command.options.flatMap((o) => [o.long, o.short].filter((x): x is string => Boolean(x)));
    return { items: [...own, ...globalFlagNames()].filter((f) => f.startsWith(current)), directive: NO_FILE_COMP };
  }
  const subs = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden).map((c) => c.name());
  if (subs.length && positionals.length === 0) return { items: subs.filter((s) => s.startsWith(current)), directive: NO_FILE_COMP };
  if (path[0] === 'completion') return { items: ['bash', 'zsh', 'fish'], directive: NO_FILE_COMP };
  // get/describe take the type as a positional (`get pps NAME`, `describe rollout NAME`), not as a subcommand.
  if (path.length === 1 && (path[0] === 'get' || path[0] === 'describe')) {
    const kinds = path[0] === 'get' ? ['pps', 'rollouts'] : ['pps', 'rollout'];
    if (positionals.length === 0) return { items: kinds.filter((t) => t.startsWith(current)), directive: NO_FILE_COMP };
    if (positionals.length > 1) return { items: [], directive: NO_FILE_COMP };
    const type = /^rollouts?$/.test(positionals[0]!) ? 'rollout' : positionals[0] === 'pps' ? 'pps' : undefined;
    if (!type) return { items: [], directive: NO_FILE_COMP };
    const names = await objectNames(ctx, type);
    return { items: names.map((n) => n.slice(n.indexOf('/') + 1)).filter((n) => n.startsWith(current)), directive: NO_FILE_COMP };
  }
  // create pps NAME --for TYPE/NAME: the StatefulSets a PersistentPodState may target.
  if (prev === '--for') return forCandidates(ctx, current);
  const types = TYPES_BY_COMMAND[path.join(' ')];
  if (!types) return { items: [], directive: NO_FILE_COMP };
  const slash = current.indexOf('/');
  if (slash > 0) {
    const names = await objectNames(ctx, current.slice(0, slash));
    return { items: names.filter((n) => n.startsWith(current)), directive: NO_FILE_COMP };
  }
  return { items: types.map((t) => `${t}/`).filter((t) => t.startsWith(current)), directive: NO_FILE_COMP | NO_SPACE };
}

export async function run(ctx: CommandContext, args: string[], _opts: unknown, command: Command): Promise<number> {
  let root = command;
  while (root.parent) root = root.parent;
  const { items, directive } = await candidates(ctx, root, args.length ? args : ['']);
  ctx.term.stdout.write(`${items.join('\n')}${items.length ? '\n' : ''}:${directive}\n`);
  return 0;
}
