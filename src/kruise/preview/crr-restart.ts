// `rollout restart --preview` of a Kruise workload with an in-place policy: the restart goes through
// ContainerRecreateRequests (the `restart` engine's batches, plans/restart.ts), every container of
// each pod restarted in place; nothing about the template changes.
import type { KubeObject, Pod } from '../types';
import { adapterFor } from '../workloads';
import { batchSizeFor, containersToRestart, planBatches } from '../plans/restart';
import { REVISION_HASH_LABEL } from '../rules/revisions';
import type { WorkloadPreview } from './types';

export function previewCrrRestart(command: string, obj: KubeObject, pods: readonly Pod[], maxUnavailable: string): WorkloadPreview {
  const adapter = adapterFor(obj)!;
  const size = batchSizeFor(maxUnavailable, pods.length);
  const batches = planBatches(pods, size);
  const batchOf = new Map<string, number>();
  batches.forEach((b, i) => b.forEach((p) => batchOf.set(p.metadata.name ?? '', i + 1)));
  return {
    kind: obj.kind ?? '',
    apiVersion: obj.apiVersion ?? '',
    ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
    name: obj.metadata.name ?? '',
    command,
    policy: String(adapter.updatePolicy(obj)),
    replicas: adapter.desiredReplicas(obj),
    partition: 0,
    maxUnavailable: size,
    maxSurge: 0,
    paused: adapter.paused(obj),
    featureGates: {},
    pods: [...pods]
      .sort((a, b) => (batchOf.get(a.metadata.name ?? '') ?? 0) - (batchOf.get(b.metadata.name ?? '') ?? 0))
      .map((p) => ({
        name: p.metadata.name ?? '',
        ...(p.metadata.uid ? { uid: p.metadata.uid } : {}),
        ...(p.spec.nodeName ? { node: p.spec.nodeName } : {}),
        ...(p.metadata.labels?.[REVISION_HASH_LABEL] ? { revision: p.metadata.labels[REVISION_HASH_LABEL] } : {}),
        action: 'restart-in-place' as const,
        restartOrder: [containersToRestart(p, []).containers],
        reasons: ['ContainerRecreateRequest (in-place update policy: a template annotation would not restart containers)'],
        batch: batchOf.get(p.metadata.name ?? '') ?? 0,
      })),
    batches: batches.map((b, i) => ({ index: i + 1, pods: b.map((p) => p.metadata.name ?? ''), surge: 0 })),
    warnings: [],
  };
}
