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
  'rollout status': [...WITH_ROLLOUT, 'uniteddeployment', 'broadcastjob'],
  'rollout undo': [...WITH_ROLLOUT, 'uniteddeployment'],
  'rollout history': [...WORKLOAD_TYPES, 'uniteddeployment'],
  'rollout pause': [...PAUSABLE_TYPES, 'rollout'],
  'rollout resume': [...PAUSABLE_TYPES, 'rollout'],
  'rollout approve': WITH_ROLLOUT,
  'rollout jump': ['rollout', ...WORKLOAD_TYPES],
  'rollout restart': [...WORKLOAD_TYPES, 'uniteddeployment'],
  'set image': [...WORKLOAD_TYPES, 'pod', 'sidecarset', 'uniteddeployment', 'job', 'cronjob'],
  'set env': [...WORKLOAD_TYPES, 'pod'],
  'set resources': [...WORKLOAD_TYPES, 'pod'],
  restart: [...WORKLOAD_TYPES, 'pod'],
  predownload: WORKLOAD_TYPES,
  'explain partition': ['cloneset', 'asts', 'ads', 'statefulset', 'uniteddeployment'],
  migrate: ['cloneset'],
};
// Issue #18: scaledown, set serviceaccount|selector|subject.
Object.assign(TYPES_BY_COMMAND, {
  scaledown: ['cloneset', 'asts'],
  'set serviceaccount': [...WORKLOAD_TYPES, 'pod', 'uniteddeployment', 'replicaset', 'job', 'cronjob'],
  'set selector': ['service'],
  'set subject': ['rolebinding', 'clusterrolebinding'],
});
// Issue #18: expose (the kinds it takes; DaemonSets and native StatefulSets are refused, as kubectl).
TYPES_BY_COMMAND.expose = ['cloneset', 'asts', 'uniteddeployment', 'deployment', 'replicaset', 'replicationcontroller', 'pod', 'service'];
// Issue #29: why takes every gated kind and rollout/NAME.
TYPES_BY_COMMAND.why = [...WORKLOAD_TYPES, 'sidecarset', 'uniteddeployment', 'broadcastjob', 'job', 'rollout'];
// SidecarSet (issue #17): the verbs that take sidecarset/NAME (set image already lists it).
for (const verb of ['rollout status', 'rollout undo', 'rollout history', 'rollout pause', 'rollout resume', 'rollout restart', 'restart', 'explain partition']) TYPES_BY_COMMAND[verb]!.push('sidecarset');
const FLAG_VALUES: Record<string, string[]> = {
  '--until': ['paused', 'complete', 'step='],
  '-o': ['json', 'yaml', 'kyaml', 'name', 'wide', 'jsonpath='],
  '--output': ['json', 'yaml', 'kyaml', 'name', 'wide', 'jsonpath='],
  '--dry-run': ['none', 'client', 'server'],
  '--via': ['auto', 'kruise', 'client'],
  '--kind': ['cloneset', 'asts', 'ads', 'statefulset', 'sidecarset'],
  '--failure-policy': ['Fail', 'Ignore'],
  '--retention': ['WhenScaled', 'WhenDeleted'],
  // expose
  '--protocol': ['TCP', 'UDP', 'SCTP'],
  '--type': ['ClusterIP', 'NodePort', 'LoadBalancer'],
  '--session-affinity': ['None', 'ClientIP'],
  '--override-type': ['merge', 'json', 'strategic'],
};

function globalFlagNames(): string[] {
  return GLOBAL_FLAG_HELP.flatMap(([f]) => f.split(/,\s*/)).map((f) => f.replace(/=.*$/, '')).filter((f) => f.startsWith('--'));
}

/** Global flags that take a value (`-n NS`, `--context NAME`): their help line names one (`=VALUE`). */
function globalValueFlags(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [line] of GLOBAL_FLAG_HELP) {
    const value = /=([A-Z]+)/.exec(line)?.[1];
    if (!value) continue;
    for (const part of line.split(/,\s*/)) out.set(part.replace(/=.*$/, ''), value);
  }
  return out;
}

/** How `flag` (no `=` attached) takes a value, on `command` or globally; `path` for a file or folder. */
function flagValue(command: Command, flag: string): { takes: 'required' | 'optional' | false; path: boolean } {
  for (let c: Command | null = command; c; c = c.parent) {
    const option = c.options.find((o) => o.long === flag || o.short === flag);
    if (option) return { takes: option.required ? 'required' : option.optional ? 'optional' : false, path: /<(file|dir)\b/.test(option.flags) };
  }
  const global = globalValueFlags().get(flag);
  return { takes: global ? 'required' : false, path: global === 'PATH' };
}

function takesValue(command: Command, flag: string): boolean {
  return flagValue(command, flag).takes === 'required';
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
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w.startsWith('-')) {
      // `-c app cloneset/web`: the flag's value is not a positional.
      // An optional value (`--watch [bool]`, `--dry-run [mode]`) only when it is one of its words.
      const takes = w.includes('=') ? false : flagValue(command, w).takes;
      const next = words[i + 1];
      if (takes === 'required' || (takes === 'optional' && next !== undefined && (/^(true|false)$/.test(next) || FLAG_VALUES[w]?.includes(next)))) i++;
      continue;
    }
    const sub = command.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (sub && positionals.length === 0) {
      command = sub;
      path.push(sub.name());
    } else positionals.push(w);
  }
  return { command, path, positionals };
}

/** Cluster work for a candidate list, cut short: completion must never hang a shell or print errors. */
async function timeBoxed(work: () => Promise<string[]>): Promise<string[]> {
  const deadline = new Promise<string[]>((resolve) => setTimeout(() => resolve([]), 2000).unref());
  try {
    return await Promise.race([work(), deadline]);
  } catch {
    return [];
  }
}

/** `TYPE/NAME` of every object of a type in the namespace (`-n` given earlier, else the context's). */
function objectNames(ctx: CommandContext, type: string): Promise<string[]> {
  return timeBoxed(async () => {
    const client = await ctx.kube();
    const rt = await client.resolve(type);
    const list = await client.list(rt, rt.namespaced ? client.namespace : undefined, { limit: 500 });
    return list.items.map((o) => `${type}/${o.metadata.name}`);
  });
}

function namespaceNames(ctx: CommandContext): Promise<string[]> {
  return timeBoxed(async () => {
    const client = await ctx.kube();
    const list = await client.list(await client.resolve('namespace'), undefined, { limit: 500 });
    return list.items.map((o) => o.metadata.name ?? '').filter(Boolean);
  });
}

/**
 * Container names of the objects named on the line (`cloneset/web`, `pod/web-x`):
 * the pod template's (a pod's own spec, a SidecarSet's sidecars), init containers included when
 * the command changes them too (`set`), never for `restart`, which restarts running containers.
 */
function containerNames(ctx: CommandContext, positionals: string[], withInit: boolean): Promise<string[]> {
  const refs = positionals.filter((p) => /^[^/=]+\/[^/=]+$/.test(p));
  if (!refs.length) return Promise.resolve([]);
  return timeBoxed(async () => {
    const client = await ctx.kube();
    const { allContainers } = await import('../../kruise/containers');
    const names = new Set<string>();
    for (const ref of refs) {
      const [type, name] = ref.split('/') as [string, string];
      const rt = await client.resolve(type);
      const obj = await client.get(rt, name, rt.namespaced ? client.namespace : undefined);
      for (const c of allContainers(obj)) if (withInit || c.list === 'containers') names.add(c.name);
    }
    return [...names];
  });
}

/** `scaledown cloneset/web --pods <TAB>`: the pods the workload named on the line controls. */
function workloadPodNames(ctx: CommandContext, positionals: string[]): Promise<string[]> {
  const ref = positionals.find((p) => /^[^/=]+\/[^/=]+$/.test(p));
  if (!ref) return Promise.resolve([]);
  return timeBoxed(async () => {
    const [type, name] = ref.split('/') as [string, string];
    const { resolveWorkload } = await import('../../engine/targets');
    const { pods } = await resolveWorkload(await ctx.kube(), { type, name });
    return pods.filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name ?? '');
  });
}

/** `-c a,b,<TAB>`: the containers not listed yet, after what is typed. */
function listCompletion(current: string, names: string[]): string[] {
  const comma = current.lastIndexOf(',');
  const done = current.slice(0, comma + 1);
  const taken = new Set(done.split(',').filter(Boolean));
  return names.filter((n) => !taken.has(n)).map((n) => done + n).filter((n) => n.startsWith(current));
}

/** `TYPE/` of the kinds a flag takes, then `TYPE/NAME` of the objects of the one typed. */
async function typedRefCandidates(ctx: CommandContext, current: string, types: readonly string[]): Promise<{ items: string[]; directive: number }> {
  const slash = current.indexOf('/');
  if (slash > 0) {
    const names = await objectNames(ctx, current.slice(0, slash));
    return { items: names.filter((n) => n.startsWith(current)), directive: NO_FILE_COMP };
  }
  return { items: types.map((t) => `${t}/`).filter((t) => t.startsWith(current)), directive: NO_FILE_COMP | NO_SPACE };
}

/** create pps NAME --for TYPE/NAME: the StatefulSets a PersistentPodState may target. */
function forCandidates(ctx: CommandContext, current: string): Promise<{ items: string[]; directive: number }> {
  return typedRefCandidates(ctx, current, ['statefulset', 'asts']);
}

/**
 * --from TYPE/NAME per command: the cron jobs a run can be made from (create job|broadcastjob), the
 * Deployments whose pods can move (migrate).
 */
const FROM_TYPES: Record<string, string[]> = { 'create job': ['advancedcronjob', 'cronjob'], 'create broadcastjob': ['advancedcronjob'], migrate: ['deployment'] };

const CONTAINER_FLAGS = ['-c', '--containers'];

/** exec -S (alone or among short flags: -itS). */
const SIDECAR_FLAG = /^(--sidecar|-[a-zA-Z]*S[a-zA-Z]*)$/;

/**
 * exec: the pod (its name, or a workload's TYPE/ to pick its pod from); after -c, the containers of the
 * pod named (init ones too, as kubectl offers), or with -S its SidecarSet sidecars (a hot pair by its
 * sidecar's name). Nothing once the pod is named: the command is the container's business.
 */
async function execCandidates(ctx: CommandContext, before: string[], positionals: string[], prev: string | undefined, current: string): Promise<{ items: string[]; directive: number }> {
  if (prev === '-c' || prev === '--container') {
    const ref = positionals[0];
    const m = ref ? /^(?:(?:pods?|po)\/)?([^/]+)$/.exec(ref) : null;
    if (!m) return { items: [], directive: NO_FILE_COMP };
    const sidecar = before.some((w) => SIDECAR_FLAG.test(w));
    const names = await timeBoxed(async () => {
      const client = await ctx.kube();
      const pod = await client.get<import('../../kruise/types').Pod>(await client.resolve('pod'), m[1]!);
      if (sidecar) {
        const { podSidecars } = await import('../../kruise/exec-target');
        return [...new Set(podSidecars(pod).map((s) => s.name))];
      }
      return [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].map((c) => c.name);
    });
    return { items: names.filter((n) => n.startsWith(current)), directive: NO_FILE_COMP };
  }
  if (positionals.length > 0) return { items: [], directive: NO_FILE_COMP };
  const slash = current.indexOf('/');
  if (slash > 0) return { items: (await objectNames(ctx, current.slice(0, slash))).filter((n) => n.startsWith(current)), directive: NO_FILE_COMP };
  const pods = (await objectNames(ctx, 'pod')).map((n) => n.slice(n.indexOf('/') + 1));
  const types = [...WORKLOAD_TYPES, 'uniteddeployment'].map((t) => `${t}/`);
  const items = [...pods, ...types].filter((n) => n.startsWith(current));
  return { items, directive: items.every((n) => n.endsWith('/')) ? NO_FILE_COMP | NO_SPACE : NO_FILE_COMP };
}

export async function candidates(ctx: CommandContext, root: Command, words: string[]): Promise<{ items: string[]; directive: number }> {
  const current = words.length ? words[words.length - 1]! : '';
  const before = words.slice(0, -1);
  const { command, path, positionals } = walk(root, before);
  const prev = before[before.length - 1];
  if (prev === '-n' || prev === '--namespace') return { items: (await namespaceNames(ctx)).filter((n) => n.startsWith(current)), directive: NO_FILE_COMP };
  const inline = /^(-n=|--namespace=)(.*)$/.exec(current);
  if (inline) return { items: (await namespaceNames(ctx)).map((n) => inline[1] + n).filter((n) => n.startsWith(current)), directive: NO_FILE_COMP };
  if (path[0] === 'exec' && !current.startsWith('-')) return execCandidates(ctx, before, positionals, prev, current);
  if (prev && CONTAINER_FLAGS.includes(prev) && takesValue(command, prev)) {
    const names = await containerNames(ctx, positionals, path[0] === 'set');
    return { items: listCompletion(current, names), directive: NO_FILE_COMP };
  }
  if (prev === '--pods' && path[0] === 'scaledown') return { items: listCompletion(current, await workloadPodNames(ctx, positionals)), directive: NO_FILE_COMP };
  if (prev && FLAG_VALUES[prev]) return { items: FLAG_VALUES[prev]!, directive: NO_FILE_COMP };
  if (prev === '--for') return forCandidates(ctx, current);
  if (prev === '--from' && FROM_TYPES[path.join(' ')]) return typedRefCandidates(ctx, current, FROM_TYPES[path.join(' ')]!);
  if (prev?.startsWith('-') && !prev.includes('=')) {
    const value = flagValue(command, prev);
    // A file or folder: the shell completes paths. Any other value: nothing to offer.
    if (value.takes === 'required') return { items: [], directive: value.path ? 0 : NO_FILE_COMP };
  }
  if (current.startsWith('-')) {
    const own = command.options.flatMap((o) => [o.long, o.short].filter((x): x is string => Boolean(x)));
    return { items: [...own, ...globalFlagNames()].filter((f) => f.startsWith(current)), directive: NO_FILE_COMP };
  }
  const subs = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden).map((c) => c.name());
  if (subs.length && positionals.length === 0) return { items: subs.filter((s) => s.startsWith(current)), directive: NO_FILE_COMP };
  if (path[0] === 'completion') return { items: ['bash', 'zsh', 'fish'], directive: NO_FILE_COMP };
  // get/describe take the type as a positional (`get pps NAME`, `describe rollout NAME`), not as a subcommand.
  if (path.length === 1 && (path[0] === 'get' || path[0] === 'describe')) {
    const kinds = path[0] === 'get' ? ['all', 'pps', 'rollouts'] : ['pps', 'rollout'];
    if (positionals.length === 0) return { items: kinds.filter((t) => t.startsWith(current)), directive: NO_FILE_COMP };
    if (positionals.length > 1) return { items: [], directive: NO_FILE_COMP };
    const type = /^rollouts?$/.test(positionals[0]!) ? 'rollout' : positionals[0] === 'pps' ? 'pps' : undefined;
    if (!type) return { items: [], directive: NO_FILE_COMP };
    const names = await objectNames(ctx, type);
    return { items: names.map((n) => n.slice(n.indexOf('/') + 1)).filter((n) => n.startsWith(current)), directive: NO_FILE_COMP };
  }
  const types = TYPES_BY_COMMAND[path.join(' ')];
  if (!types) return { items: [], directive: NO_FILE_COMP };
  const slash = current.indexOf('/');
  if (slash > 0) {
    const names = await objectNames(ctx, current.slice(0, slash));
    return { items: names.filter((n) => n.startsWith(current)), directive: NO_FILE_COMP };
  }
  // set image TYPE/NAME <TAB>: the CONTAINER= of each container, once an object is named.
  if (path.join(' ') === 'set image' && positionals.some((p) => p.includes('/')) && !current.includes('=')) {
    const names = (await containerNames(ctx, positionals, true)).map((n) => `${n}=`);
    const matching = names.filter((n) => n.startsWith(current));
    if (matching.length) return { items: matching, directive: NO_FILE_COMP | NO_SPACE };
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
