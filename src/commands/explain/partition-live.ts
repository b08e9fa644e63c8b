// The live branch of `explain partition`: read one workload (TYPE/NAME) and its pods, and
// summarise where the rollout stands (updated/ready per revision, whether the batch is done).
// Loaded only when a TYPE/NAME is given, so the offline form never touches the cluster client.
import type { CommandContext } from '../../cli/context';
import { usageError } from '../../cli/exit';
import type { KubeObject, Pod } from '../../kruise/types';
import { adapterFor } from '../../kruise/workloads/index';
import { loadPods } from '../rollout/revision-source';
import { parseTargets, resolveTargets } from '../rollout/targets';
import type { LiveState } from './partition-print';
import { sidecarSetTargets } from '../rollout/sidecarset-status';
import type { KubeClient, ResourceType } from '../../kube/client';
import { labelSelectorString } from '../../kruise/selectors';
import { podSidecarSetHash, readSidecarSet, sidecarSetMatchesPod } from '../../kruise/workloads/sidecarset';
import { compareText } from '../../lib/compare';

export async function readLive(ctx: CommandContext, args: string[]): Promise<{ object: KubeObject; state: LiveState }> {
  const refs = parseTargets('explain partition', args, undefined, { single: true });
  const client = await ctx.kube();
  try {
    // A SidecarSet (cluster-scoped): its matched pods, by sidecar revision.
    const sidecarSets = await sidecarSetTargets(client, 'explain partition', refs);
    if (sidecarSets) return await readSidecarSetLive(client, sidecarSets.rt, sidecarSets.names[0]!, ctx.signal);
    const [target] = await resolveTargets(client, 'explain partition', refs);
    const object = await client.get(target!.rt, target!.name!, target!.namespace, { signal: ctx.signal });
    const adapter = adapterFor(object);
    if (!adapter) throw usageError(`${object.apiVersion} ${object.kind} "${target!.name}" has no partition`);
    const status = adapter.status(object);
    const pods = await loadPods(client, object, adapter, ctx.signal);
    const perRevision = podsPerRevision(pods, adapter.revisionLabelKey, status.updateRevision, status.currentRevision);
    const updatedReady = status.updatedReadyReplicas;
    const expected = status.expectedUpdatedReplicas;
    const state: LiveState = {
      namespace: target!.namespace,
      name: target!.name!,
      kind: object.kind ?? adapter.kindName,
      updatedReplicas: status.updatedReplicas,
      updatedReadyReplicas: updatedReady,
      readyReplicas: status.readyReplicas,
      replicas: status.replicas,
      statusExpected: expected,
      // Refined by the caller against the computed expectation; here: observed and ready.
      batchDone:
        (status.observedGeneration ?? 0) >= (object.metadata.generation ?? 0) &&
        (updatedReady === undefined || expected === undefined || updatedReady >= expected),
      perRevision,
    };
    return { object, state };
  } finally {
    client.close();
  }
}

function revisionMatches(value: string, revision: string | undefined): boolean {
  if (!revision) return false;
  // Pods carry the full revision name or only the hash (CloneSetShortHash): compare both ways.
  return value === revision || value === revision.slice(revision.lastIndexOf('-') + 1) || revision === value.slice(value.lastIndexOf('-') + 1);
}

function isReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function podsPerRevision(pods: Pod[], labelKey: string, updateRevision?: string, currentRevision?: string): LiveState['perRevision'] {
  const rows = new Map<string, LiveState['perRevision'][number]>();
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    const value = pod.metadata.labels?.[labelKey] ?? '<none>';
    let row = rows.get(value);
    if (!row) {
      const current = revisionMatches(value, updateRevision) ? 'update' : revisionMatches(value, currentRevision) ? 'current' : 'other';
      row = { revision: value, pods: 0, ready: 0, current };
      rows.set(value, row);
    }
    row.pods++;
    if (isReady(pod)) row.ready++;
  }
  const order = { update: 0, current: 1, other: 2 } as const;
  return [...rows.values()].sort((a, b) => order[a.current] - order[b.current] || compareText(a.revision, b.revision));
}

/** The live state of a SidecarSet: its status counts and its matched pods per sidecar revision (hash). */
async function readSidecarSetLive(client: KubeClient, rt: ResourceType, name: string, signal: AbortSignal): Promise<{ object: KubeObject; state: LiveState }> {
  const object = await client.get(rt, name, undefined, { signal });
  const view = readSidecarSet(object);
  const podRt: ResourceType = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
  const selector = labelSelectorString(view.selector);
  const pods = selector ? (await client.list<Pod>(podRt, view.namespace, { labelSelector: selector, signal, limit: 500 })).items.filter((p) => sidecarSetMatchesPod(view, p)) : [];
  const rows = new Map<string, LiveState['perRevision'][number]>();
  for (const pod of pods) {
    const hash = podSidecarSetHash(pod, view.name) ?? '<none>';
    const row = rows.get(hash) ?? { revision: hash, pods: 0, ready: 0, current: hash === view.hash ? 'update' : 'other' };
    row.pods++;
    if (isReady(pod)) row.ready++;
    rows.set(hash, row);
  }
  const state: LiveState = {
    namespace: '',
    name,
    kind: 'SidecarSet',
    updatedReplicas: view.updatedPods,
    updatedReadyReplicas: view.updatedReadyPods,
    readyReplicas: view.readyPods,
    replicas: view.matchedPods,
    batchDone: (view.observedGeneration ?? 0) >= (view.generation ?? 0),
    perRevision: [...rows.values()].sort((a, b) => (a.current === b.current ? compareText(a.revision, b.revision) : a.current === 'update' ? -1 : 1)),
  };
  return { object, state };
}
