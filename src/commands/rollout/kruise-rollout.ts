// The Kruise Rollout side of the rollout verbs: which Rollout a target means (rollout/NAME, or the
// Rollout releasing a workload: one list of the namespace's Rollouts), the workload a Rollout points
// at, and how its refusals read.
import { failure } from '../../cli/exit';
import type { KubeClient, KubeObject, ResourceType } from '../../kube/client';
import { lookupKind, ROLLOUT_GROUP } from '../../kube/aliases';
import { isForbidden, isNotFound } from '../../kube/errors';
import { apiGroupOf, rolloutForWorkload } from '../../kruise/rollout/find';
import { readRollout } from '../../kruise/rollout/read';
import { isKruiseRollout, type ResolvedTarget } from './targets';
import { workloadRefText } from '../../printers/release-hints';

export { workloadRefText };

export interface RolloutOfTarget {
  rolloutRt: ResourceType;
  rollout: KubeObject;
  /** Set when the user named the workload: "cloneset/web". */
  via?: string;
}


/** The Rollout resource type as the server serves it (discovery: v1beta1 before v1alpha1). */
export function rolloutType(client: KubeClient): Promise<ResourceType> {
  return client.resolve('rollouts.rollouts.kruise.io');
}

/**
 * The Rollout releasing workload `name` of type `rt`: undefined when Kruise Rollout is not installed,
 * none matches, or the user may not list Rollouts (then the workload is all we can follow).
 */
export async function findRolloutOf(client: KubeClient, rt: ResourceType, name: string, namespace: string): Promise<RolloutOfTarget | undefined> {
  if (!(await client.isServed(ROLLOUT_GROUP, 'rollouts'))) return undefined;
  const rolloutRt = await rolloutType(client);
  let items: KubeObject[];
  try {
    items = (await client.list(rolloutRt, namespace)).items;
  } catch (err) {
    if (isForbidden(err) || isNotFound(err)) return undefined;
    throw err;
  }
  const rollout = rolloutForWorkload(items, { apiVersion: rt.group ? `${rt.group}/${rt.version}` : rt.version, kind: rt.kind, name });
  return rollout ? { rolloutRt, rollout, via: workloadRefText(rt, name) } : undefined;
}

/**
 * The Rollouts of some namespaces, listed once each (only when the cluster serves them), to find the
 * one releasing each of several workloads without a list per workload. A user who may not list
 * Rollouts gets no index: the workloads are all that can be followed.
 */
export class RolloutIndex {
  private constructor(
    readonly rolloutRt: ResourceType,
    private readonly byNamespace: ReadonlyMap<string, readonly KubeObject[]>,
  ) {}

  static async load(client: KubeClient, namespaces: Iterable<string>): Promise<RolloutIndex | undefined> {
    if (!(await client.isServed(ROLLOUT_GROUP, 'rollouts'))) return undefined;
    const rolloutRt = await rolloutType(client);
    const byNamespace = new Map<string, readonly KubeObject[]>();
    try {
      // One list per namespace, at once.
      const all = [...new Set(namespaces)];
      const lists = await Promise.all(all.map((ns) => client.list(rolloutRt, ns)));
      all.forEach((ns, i) => byNamespace.set(ns, lists[i]!.items));
    } catch (err) {
      if (isForbidden(err) || isNotFound(err)) return undefined;
      throw err;
    }
    return new RolloutIndex(rolloutRt, byNamespace);
  }

  /** The Rollout releasing workload `name` of type `rt` in `namespace` (one of those listed). */
  find(rt: Pick<ResourceType, 'group' | 'version' | 'kind'>, name: string, namespace: string): RolloutOfTarget | undefined {
    const items = this.byNamespace.get(namespace) ?? [];
    const rollout = rolloutForWorkload(items, { apiVersion: rt.group ? `${rt.group}/${rt.version}` : rt.version, kind: rt.kind, name });
    return rollout ? { rolloutRt: this.rolloutRt, rollout, via: workloadRefText(rt, name) } : undefined;
  }
}

/**
 * The Rollout a target names: rollout/NAME (one GET), or the one releasing TYPE/NAME (a list);
 * a workload no Rollout releases is an error (exit 1) naming both.
 */
export async function rolloutOfTarget(client: KubeClient, t: ResolvedTarget, verb: string): Promise<RolloutOfTarget> {
  const name = t.name!;
  if (isKruiseRollout(t.rt)) return { rolloutRt: t.rt, rollout: await client.get(t.rt, name, t.namespace) };
  // The workload must exist: "not found" is a clearer answer than "no Rollout".
  await client.get(t.rt, name, t.namespace);
  const found = await findRolloutOf(client, t.rt, name, t.namespace);
  if (!found) {
    throw failure(`${workloadRefText(t.rt, name)} is not released by a Kruise Rollout in namespace "${t.namespace}": nothing to ${verb}`, verb === 'approve' ? undefined : `hint: use '${verb}' on a rollout/NAME or on a workload a Rollout manages`);
  }
  return found;
}

/** The resource type of the workload a Rollout points at (its own apiVersion), or undefined for a kind we do not know. */
export function workloadTypeOf(rollout: KubeObject): ResourceType | undefined {
  const ref = readRollout(rollout).workloadRef;
  if (!ref) return undefined;
  const group = apiGroupOf(ref.apiVersion);
  const known = lookupKind(group, ref.kind);
  if (!known) return undefined;
  const version = ref.apiVersion.slice(ref.apiVersion.indexOf('/') + 1);
  return { group, version, resource: known.resource, kind: known.kind, namespaced: known.namespaced, subresources: known.subresources };
}

/** "rollout/web-rollout" */
export function rolloutText(rollout: KubeObject): string {
  return `rollout/${rollout.metadata.name ?? ''}`;
}
