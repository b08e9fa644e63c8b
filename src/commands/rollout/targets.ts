// Which workloads a rollout verb acts on: TYPE/NAME..., TYPE NAME..., -f FILE, or TYPE -l SELECTOR.
// Parsed and validated before any request (exit 2) by the kube layer's parser; named and -f
// references resolve through discovery, while a selector stays a selector (status watches it).
import type { KubeClient, KubeObject, ResourceType } from '../../kube/client';
import { parseTargets as parseRefs, resolveTargets as resolveRefs, type TargetSpec } from '../../kube/targets';
import { CliError, ExitCode, usageError } from '../../cli/exit';
import { resourceLabel } from '../../kube/errors';
import { KIND_LABELS } from '../../kruise/progress';
import type { WorkloadKindName } from '../../kruise/workloads/types';
import { adapterForGroupKind } from '../../kruise/workloads/index';
import { jobProgressKind } from '../../kruise/progress-kinds';

export interface TargetRefs {
  specs: TargetSpec[];
  /** The -l selector (only with a TYPE). */
  selector?: string;
}

export interface ResolvedTarget {
  rt: ResourceType;
  /** Undefined with -l (every matching object). */
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
 * kubectl's argument forms: every argument `TYPE/NAME`, or `TYPE NAME...`, or `TYPE` with -l, or -f.
 * `single`: the verb takes exactly one object (explain partition).
 */
export function parseTargets(
  verb: string,
  args: string[],
  selector: string | undefined,
  opts: { single?: boolean; filenames?: string[]; recursive?: boolean } = {},
): TargetRefs {
  if (opts.recursive && !opts.filenames?.length) throw usageError('-R (--recursive) applies to -f DIRECTORY');
  const specs = parseRefs({ args, selector, filenames: opts.filenames, recursive: opts.recursive });
  if (opts.single && (specs.length !== 1 || specs[0]!.kind === 'selector' || specs[0]!.kind === 'all')) {
    throw usageError(`${verb} takes exactly one TYPE/NAME`);
  }
  return { specs, selector };
}

/** A Kruise Rollout (rollouts.kruise.io), which some verbs accept beside workloads. */
export function isKruiseRollout(rt: Pick<ResourceType, 'group' | 'resource'>): boolean {
  return rt.group === 'rollouts.kruise.io' && rt.resource === 'rollouts';
}

function unsupported(verb: string, rt: ResourceType, allowRollout = false, allowJobs = false): string | undefined {
  if (isRolloutKind(rt)) return undefined;
  if (allowJobs && jobProgressKind(rt.group, rt.kind)) return undefined;
  if (isKruiseRollout(rt)) return allowRollout ? undefined : `${verb} of a Kruise Rollout takes no rollout/NAME: name its workload (TYPE/NAME)`;
  const also = [allowRollout ? 'a Kruise Rollout' : '', allowJobs ? 'a BroadcastJob' : '', allowJobs ? 'a Job' : ''].filter(Boolean);
  const alternatives = also.length > 1 ? `${also.slice(0, -1).join(', ')} or ${also.at(-1)}` : also[0];
  return `${verb} is not supported for ${resourceLabel(rt)}: use a CloneSet, Advanced StatefulSet, Advanced DaemonSet, SidecarSet, UnitedDeployment, Deployment, StatefulSet or DaemonSet${alternatives ? ` (or ${alternatives})` : ''}`;
}

/**
 * Resolves the types through discovery; a kind without rollouts is a usage error (exit 2, nothing sent but
 * discovery). `allowRollout`: the verb also takes a Kruise Rollout (rollout/NAME); `allowJobs`: job kinds
 * awaited to completion (rollout status broadcastjob/NAME).
 */
export async function resolveTargets(client: KubeClient, verb: string, refs: TargetRefs, opts: { allowRollout?: boolean; allowJobs?: boolean } = {}): Promise<ResolvedTarget[]> {
  const out: ResolvedTarget[] = [];
  for (const spec of refs.specs) {
    if (spec.kind === 'selector' || spec.kind === 'all') {
      const rt = await client.resolve(spec.type);
      const problem = unsupported(verb, rt, opts.allowRollout, opts.allowJobs);
      if (problem) throw usageError(problem);
      out.push({ rt, namespace: client.namespace });
      continue;
    }
    for (const t of await resolveRefs(client, [spec], { allow: (rt) => unsupported(verb, rt, opts.allowRollout, opts.allowJobs) })) {
      out.push({ rt: t.rt, name: t.name, namespace: t.namespace ?? client.namespace });
    }
  }
  return out;
}

/** The objects behind resolved targets: one GET per name, one LIST per selector (an empty match is no object). */
export async function readTargetObjects(client: KubeClient, targets: readonly ResolvedTarget[], selector: string | undefined): Promise<Array<{ rt: ResourceType; obj: KubeObject }>> {
  const out: Array<{ rt: ResourceType; obj: KubeObject }> = [];
  for (const t of targets) {
    if (t.name !== undefined) out.push({ rt: t.rt, obj: await client.get(t.rt, t.name, t.namespace) });
    else for (const obj of await listMatching(client, t, selector)) out.push({ rt: t.rt, obj });
  }
  return out;
}

/** A `TYPE -l SELECTOR` that matched nothing (exit 1; `rollout status` words it like kubectl). */
export class NoMatchesError extends CliError {
  constructor(readonly namespace: string, resource: string, selector: string) {
    super(`no ${resource} found in namespace "${namespace}" matching "${selector}"`, ExitCode.FAILED);
  }
}

/** The objects a `TYPE -l SELECTOR` target matches (one LIST); none is not an error (kubectl: exit 0). */
async function listMatching(client: KubeClient, t: ResolvedTarget, selector: string | undefined): Promise<KubeObject[]> {
  return (await client.list(t.rt, t.namespace, { labelSelector: selector })).items;
}

/** kubectl's line (on stderr, exit 0) when a selector matched nothing: `No resources found in default namespace.` */
export function noResourcesFound(namespace: string | undefined): string {
  return namespace ? `No resources found in ${namespace} namespace.` : 'No resources found';
}

/**
 * A `TYPE -l SELECTOR` target becomes one named target per matching object; named targets are
 * kept as they are, unread (verbs that re-read inside a conflict retry read them there).
 */
export async function namedTargets(client: KubeClient, targets: readonly ResolvedTarget[], selector: string | undefined): Promise<ResolvedTarget[]> {
  const out: ResolvedTarget[] = [];
  for (const t of targets) {
    if (t.name !== undefined) out.push(t);
    else for (const obj of await listMatching(client, t, selector)) out.push({ rt: t.rt, name: obj.metadata.name ?? '', namespace: t.namespace });
  }
  return out;
}

/** `cloneset "web"`-style label before the object is read. */
export function targetLabel(rt: ResourceType, name: string): string {
  const kindName = rolloutKindName(rt);
  return `${kindName ? KIND_LABELS[kindName] : rt.kind.toLowerCase()} "${name}"`;
}
