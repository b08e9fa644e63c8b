// Type names → ResourceType: the alias table (aliases.ts) says what a spelling
// means; discovery says which version of a Kruise kind the server serves.
import { failure, usageError } from '../cli/exit';
import type { KubeClient, KubeObject, RequestOptions, ResourceType } from './client';
import { KNOWN_TYPES, KRUISE_GROUP, ROLLOUT_GROUP, lookupType, type KnownType } from './aliases';
import { servedResource, type Discovery } from './discovery';
import { isNotFound, resourceLabel } from './errors';

/**
 * A Kruise kind the server does not serve (learnt through discovery): exit 1.
 * A spelling no kind has is caught before any request, so it is invalid input: exit 2.
 */
export function unknownTypeError(input: string, hint?: string, beforeAnyRequest = false) {
  const message = `the server doesn't have a resource type "${input}"`;
  return beforeAnyRequest ? usageError(message, hint) : failure(message, hint);
}

/** A native kind's ResourceType without any request ("pods", "controllerrevisions", ...). */
export function nativeResourceType(resource: string): ResourceType {
  const known = KNOWN_TYPES.find((t) => t.nativeVersion !== undefined && t.resource === resource);
  if (!known) throw new Error(`${resource} is not a built-in native resource`);
  return fromKnown(known, known.nativeVersion!);
}

function fromKnown(known: KnownType, version: string): ResourceType {
  return { group: known.group, version, resource: known.resource, kind: known.kind, namespaced: known.namespaced, subresources: known.subresources };
}

/** Resolves a kubectl-style type through the alias table and (for Kruise kinds) discovery. */
export async function resolveType(input: string, discovery: Discovery): Promise<ResourceType> {
  const ref = lookupType(input);
  if (!ref) throw unknownTypeError(input, undefined, true);
  const { known, pinnedVersion } = ref;
  const label = resourceLabel(known);
  if (known.nativeVersion !== undefined) {
    if (pinnedVersion !== undefined && pinnedVersion !== known.nativeVersion) {
      throw failure(`the server does not serve ${label} version ${pinnedVersion} (served: ${known.nativeVersion})`);
    }
    return fromKnown(known, known.nativeVersion);
  }
  let data = await discovery.get();
  let served = servedResource(data, known.group, known.resource);
  const stale = !served || (pinnedVersion !== undefined && !served.versions.includes(pinnedVersion));
  if (stale && !discovery.isFresh) {
    // The cache may predate a CRD install or upgrade: ask the server once before failing.
    data = await discovery.refresh();
    served = servedResource(data, known.group, known.resource);
  }
  if (!served) {
    const project = known.group === ROLLOUT_GROUP ? 'Kruise Rollout' : 'OpenKruise';
    const hint = data.groups[known.group] ? undefined : `hint: ${project} (${known.group}) is not installed on this cluster`;
    throw unknownTypeError(input, hint);
  }
  if (pinnedVersion !== undefined && !served.versions.includes(pinnedVersion)) {
    throw failure(`the server does not serve ${label} version ${pinnedVersion} (served: ${served.versions.join(', ')})`);
  }
  return {
    group: known.group,
    version: pinnedVersion ?? served.preferredVersion,
    resource: known.resource,
    kind: served.kind || known.kind,
    namespaced: served.namespaced,
    shortNames: served.shortNames,
    verbs: served.verbs,
    subresources: served.subresources,
  };
}

/** Whether the server serves group/resource: native kinds always, Kruise kinds per discovery. */
export async function isServedBy(group: string, resource: string, discovery: Discovery): Promise<boolean> {
  const native = KNOWN_TYPES.find((t) => t.nativeVersion !== undefined && t.group === group && t.resource === resource);
  if (native) return true;
  const data = await discovery.get();
  return servedResource(data, group, resource) !== undefined;
}

const ADVANCED_COUNTERPART: Record<string, { type: string; title: string; short: string }> = {
  statefulsets: { type: 'statefulsets.apps.kruise.io', title: 'Advanced StatefulSet', short: 'asts' },
  daemonsets: { type: 'daemonsets.apps.kruise.io', title: 'Advanced DaemonSet', short: 'ads' },
};

/**
 * When a native StatefulSet/DaemonSet `name` is missing, checks whether the Kruise kind of
 * that name exists and returns the hint text ("an Advanced StatefulSet "x" exists: use asts/x").
 */
export async function advancedKindHint(client: KubeClient, rt: ResourceType, name: string, namespace?: string): Promise<string | undefined> {
  if (rt.group !== 'apps') return undefined;
  const counterpart = ADVANCED_COUNTERPART[rt.resource];
  if (!counterpart) return undefined;
  try {
    if (!(await client.isServed(KRUISE_GROUP, rt.resource))) return undefined;
    const advanced = await client.resolve(counterpart.type);
    await client.get(advanced, name, namespace);
    return `an ${counterpart.title} "${name}" exists: use ${counterpart.short}/${name}`;
  } catch {
    return undefined;
  }
}

/** get() that turns "statefulsets.apps "x" not found" into the hint when an Advanced StatefulSet x exists. */
export async function getWithAdvancedHint<T extends KubeObject = KubeObject>(
  client: KubeClient,
  rt: ResourceType,
  name: string,
  namespace?: string,
  opts?: RequestOptions,
): Promise<T> {
  try {
    return await client.get<T>(rt, name, namespace, opts);
  } catch (err) {
    // RestClient.get already adds the hint; other KubeClient implementations may not.
    if (!isNotFound(err) || err.message.includes('exists: use ')) throw err;
    const hint = await advancedKindHint(client, rt, name, namespace);
    if (!hint) throw err;
    throw failure(`${resourceLabel(rt)} "${name}" not found; ${hint}`);
  }
}
