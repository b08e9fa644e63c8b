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

export async function readLive(ctx: CommandContext, args: string[]): Promise<{ object: KubeObject; state: LiveState }> {
  const refs = parseTargets('explain partition', args, undefined, { single: true });
  const client = await ctx.kube();
  try {
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
  return [...rows.values()].sort((a, b) => order[a.current] - order[b.current] || a.revision.localeCompare(b.revision));
}
