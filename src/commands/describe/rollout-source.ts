// Reading what `describe rollout` shows from the cluster: the Rollout, the workload it references,
// that workload's pods and the BatchRelease the controller names after the Rollout
// (openkruise/rollouts v0.6.2 pkg/controller/rollout/rollout_canary.go createBatchRelease: Name = rollout.Name).
import { failure } from '../../cli/exit';
import type { KubeClient, KubeObject, ResourceType } from '../../kube/client';
import { isNotFound } from '../../kube/errors';
import type { Pod } from '../../kruise/types';
import { adapterForGroupKind } from '../../kruise/workloads/index';
import { labelSelectorString } from '../../kruise/selectors';
import { readRollout } from '../../kruise/rollout/read';
import { checkObjectName, splitTypeName } from '../type-name-args';

/** `rollout NAME` or `rollout/NAME` → the type as typed and the name (undefined: every Rollout). */
export function parseRolloutArgs(type: string, name: string | undefined, verb: string): { type: string; name?: string } {
  const parsed = splitTypeName(type, name, verb);
  checkObjectName(parsed.name);
  return parsed;
}

/** rollouts.kruise.io/rollouts at the version discovery prefers (or the one typed). */
export function rolloutResourceType(client: KubeClient, type = 'rollout'): Promise<ResourceType> {
  return client.resolve(type);
}

/** BatchReleases are served beside Rollouts, at the same versions in every release. */
export function batchReleaseResourceType(rollout: ResourceType): ResourceType {
  return { group: rollout.group, version: rollout.version, resource: 'batchreleases', kind: 'BatchRelease', namespaced: true };
}

export interface RolloutWorkloadTarget {
  rt: ResourceType;
  name: string;
  /** The pods' label selector ("" when the workload has none: then no pods are read). */
  podSelector(workload: KubeObject): string;
}

/** The workload a Rollout references, resolved to a resource type (undefined: no workloadRef). */
export async function rolloutWorkloadTarget(client: KubeClient, rollout: KubeObject): Promise<RolloutWorkloadTarget | undefined> {
  const ref = readRollout(rollout).workloadRef;
  if (!ref) return undefined;
  const slash = ref.apiVersion.indexOf('/');
  const group = slash === -1 ? '' : ref.apiVersion.slice(0, slash);
  const adapter = adapterForGroupKind(group, ref.kind);
  if (!adapter) throw failure(`rollout "${rollout.metadata.name ?? ''}" references ${ref.kind}/${ref.name} (${ref.apiVersion}), a kind this plugin cannot read`);
  const plural = `${ref.kind.toLowerCase()}s`;
  // The referenced version when the server serves it, else the preferred one: the fields read are alike.
  let rt: ResourceType;
  try {
    rt = await client.resolve(`${plural}.${ref.apiVersion.slice(slash + 1)}.${group}`);
  } catch {
    rt = await client.resolve(group ? `${plural}.${group}` : plural);
  }
  return { rt, name: ref.name, podSelector: (w) => labelSelectorString(adapter.selector(w)) };
}

export interface RolloutObjects {
  rollout: KubeObject;
  /** null: looked up and missing. */
  workload: KubeObject | null;
  pods: Pod[];
  batchRelease?: KubeObject;
}

async function getOrUndefined(client: KubeClient, rt: ResourceType, name: string, namespace: string, signal?: AbortSignal): Promise<KubeObject | undefined> {
  try {
    return await client.get(rt, name, namespace, { signal });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Everything the view model needs, read once (one GET each, one LIST of pods). */
export async function readRolloutObjects(client: KubeClient, rolloutRt: ResourceType, rollout: KubeObject, signal?: AbortSignal): Promise<RolloutObjects> {
  const namespace = rollout.metadata.namespace ?? client.namespace;
  const target = await rolloutWorkloadTarget(client, rollout);
  const [workload, batchRelease] = await Promise.all([
    target ? getOrUndefined(client, target.rt, target.name, namespace, signal) : Promise.resolve(undefined),
    getOrUndefined(client, batchReleaseResourceType(rolloutRt), rollout.metadata.name ?? '', namespace, signal),
  ]);
  let pods: Pod[] = [];
  const selector = workload && target ? target.podSelector(workload) : '';
  if (selector) {
    const podRt = await client.resolve('pods');
    pods = (await client.list<Pod & KubeObject>(podRt, namespace, { labelSelector: selector, limit: 500, signal })).items;
  }
  return { rollout, workload: workload ?? null, pods, batchRelease };
}
