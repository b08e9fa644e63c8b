// Which workloads a rollout verb acts on: TYPE/NAME..., TYPE NAME..., or TYPE -l SELECTOR.
// Parsed and validated before any request (exit 2), then resolved through discovery.
import type { KubeClient, ResourceType } from '../../kube/client';
import { usageError } from '../../cli/exit';
import { dns1123SubdomainProblem } from '../../kruise/names';
import { KIND_LABELS } from '../../kruise/progress';
import type { WorkloadKindName } from '../../kruise/workloads/types';
import { adapterForGroupKind } from '../../kruise/workloads/index';

export interface TargetRef {
  type: string;
  /** Undefined with -l (every matching object). */
  name?: string;
}

export interface ResolvedTarget {
  rt: ResourceType;
  name?: string;
  namespace: string;
}

/** The workload kind behind a resolved type (undefined for kinds without rollouts). */
export function rolloutKindName(rt: ResourceType): WorkloadKindName | undefined {
  return adapterForGroupKind(rt.group, rt.kind)?.kindName;
}

export function isRolloutKind(rt: ResourceType): boolean {
  return rolloutKindName(rt) !== undefined;
}

/**
 * kubectl's argument forms: every argument `TYPE/NAME`, or `TYPE NAME...`, or `TYPE` with -l.
 * `single`: the verb takes exactly one object (undo, history).
 */
export function parseTargets(verb: string, args: string[], selector: string | undefined, opts: { single?: boolean } = {}): TargetRef[] {
  if (args.length === 0) throw usageError(`${verb} needs a resource, e.g. cloneset/web`);
  let refs: TargetRef[];
  if (args[0]!.includes('/')) {
    refs = args.map((arg) => {
      const parts = arg.split('/');
      if (parts.length !== 2 || !parts[0] || !parts[1]) throw usageError(`invalid resource "${arg}": use TYPE/NAME, e.g. cloneset/web`);
      return { type: parts[0], name: parts[1] };
    });
    if (selector) throw usageError('a name cannot be combined with -l/--selector');
  } else {
    const [type, ...names] = args;
    for (const n of names) if (n.includes('/')) throw usageError(`there is no need to specify a resource type as a separate argument when passing arguments in resource/name form ("${n}")`);
    if (names.length === 0 && !selector) throw usageError(`${verb} needs a name: ${type}/NAME, or -l SELECTOR`);
    if (names.length > 0 && selector) throw usageError('a name cannot be combined with -l/--selector');
    refs = names.length ? names.map((name) => ({ type: type!, name })) : [{ type: type! }];
  }
  for (const r of refs) {
    if (r.name === undefined) continue;
    const problem = dns1123SubdomainProblem(r.name);
    if (problem) throw usageError(`invalid name "${r.name}": ${problem}`);
  }
  if (opts.single && (refs.length !== 1 || refs[0]!.name === undefined)) throw usageError(`${verb} takes exactly one TYPE/NAME`);
  return refs;
}

/** Resolves the types through discovery; a kind without rollouts is a usage error (exit 2, nothing sent but discovery). */
export async function resolveTargets(client: KubeClient, verb: string, refs: TargetRef[]): Promise<ResolvedTarget[]> {
  const cache = new Map<string, ResourceType>();
  const out: ResolvedTarget[] = [];
  for (const ref of refs) {
    let rt = cache.get(ref.type);
    if (!rt) {
      rt = await client.resolve(ref.type);
      cache.set(ref.type, rt);
    }
    if (!isRolloutKind(rt)) {
      throw usageError(`${verb} is not supported for ${rt.resource}${rt.group ? `.${rt.group}` : ''}: use a CloneSet, Advanced StatefulSet, Advanced DaemonSet, Deployment, StatefulSet or DaemonSet`);
    }
    out.push({ rt, name: ref.name, namespace: client.namespace });
  }
  return out;
}

/** `cloneset "web"`-style label before the object is read. */
export function targetLabel(rt: ResourceType, name: string): string {
  const kindName = rolloutKindName(rt);
  return `${kindName ? KIND_LABELS[kindName] : rt.kind.toLowerCase()} "${name}"`;
}
