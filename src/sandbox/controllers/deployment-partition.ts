// Kruise Rollout's own deployment controller (openkruise/rollouts pkg/controller/deployment), for a
// Deployment under a Rollout's partition-style release: the Deployment stays paused + Recreate (the
// native rules leave it alone) and this rolls its ReplicaSets by the `rollouts.kruise.io/deployment-strategy`
// annotation: the new one up to the partition, the old ones down to what is left (rolloutRolling), or
// nothing but the new ReplicaSet's lookup while the strategy says paused. The arithmetic is the pure
// src/kruise/rollout/deployment-partition.ts; this module only reads and writes ReplicaSets.
import type { KubeObject } from '../../kruise/types';
import type { GroupResource, Store } from '../store-api';
import {
  DEPLOYMENT_EXTRA_STATUS_ANNOTATION,
  deploymentExtraStatus,
  reconcileNewReplicaSet,
  reconcileOldReplicaSets,
  type AdvancedDeploymentStrategy,
  type ReplicaSetSizes,
} from '../../kruise/rollout/deployment-partition';
import type { Informer } from './informer';
import { keyOf, parseKubeTime } from './pods';

const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';

export interface PartitionedRollingDeps {
  owned(): KubeObject[];
  findOrCreateNewRS(d: KubeObject, owned: KubeObject[], create: boolean, initial: number): KubeObject | undefined;
  scaleReplicaSet(rs: KubeObject, replicas: number, d: KubeObject): KubeObject;
  sets: Informer;
  store: Store;
  deployments: GroupResource;
  latest(d: KubeObject): KubeObject;
}

const replicasOf = (o: KubeObject) => ((o.spec ?? {}) as { replicas?: number }).replicas ?? 0;
const statusOf = (o: KubeObject) => (o.status ?? {}) as { availableReplicas?: number; readyReplicas?: number };

function sizes(rs: KubeObject): ReplicaSetSizes {
  const revision = Number.parseInt(rs.metadata.annotations?.[REVISION_ANNOTATION] ?? '', 10);
  return {
    name: rs.metadata.name ?? '',
    replicas: replicasOf(rs),
    available: statusOf(rs).availableReplicas ?? 0,
    revision: Number.isNaN(revision) ? 0 : revision,
    created: parseKubeTime(rs.metadata.creationTimestamp) ?? 0,
  };
}

/** One pass of the Advanced Deployment controller; returns the new ReplicaSet (if any) for the status. */
export function rollPartitionedDeployment(d: KubeObject, strategy: AdvancedDeploymentStrategy, deps: PartitionedRollingDeps): KubeObject | undefined {
  const replicas = ((d.spec ?? {}) as { replicas?: number }).replicas ?? 1;
  let newRS: KubeObject | undefined;
  if (strategy.paused) {
    // dc.sync while the strategy is paused: no new ReplicaSet is created, nothing rolls.
    newRS = deps.findOrCreateNewRS(d, deps.owned(), false, 0);
  } else {
    const before = deps.owned();
    newRS = deps.findOrCreateNewRS(d, before, true, before.length === 0 ? replicas : 0);
    if (newRS) {
      const fresh = () => deps.sets.get(keyOf(newRS!)) ?? newRS!;
      const all = deps.owned().map(sizes);
      const target = reconcileNewReplicaSet(replicas, all, sizes(fresh()), strategy);
      if (target !== replicasOf(fresh())) {
        newRS = deps.scaleReplicaSet(fresh(), target, d); // scaled up: the status is synced, old ones wait a pass
      } else {
        const name = newRS.metadata.name;
        const olds = deps.owned().filter((rs) => rs.metadata.name !== name);
        const targets = reconcileOldReplicaSets(replicas, olds.map(sizes), sizes(fresh()), strategy);
        for (const rs of olds) {
          const want = targets.get(rs.metadata.name ?? '');
          if (want !== undefined) deps.scaleReplicaSet(rs, want, d);
        }
      }
    }
  }
  // patchExtraStatus: the new ReplicaSet's ready pods and the partition's size, in an annotation.
  const latest = deps.latest(d);
  const ready = newRS ? statusOf(deps.sets.get(keyOf(newRS)) ?? newRS).readyReplicas ?? 0 : 0;
  const extra = deploymentExtraStatus(ready, strategy.partition, replicas);
  if (latest.metadata.annotations?.[DEPLOYMENT_EXTRA_STATUS_ANNOTATION] !== extra) {
    deps.store.update(deps.deployments, {
      ...latest,
      metadata: { ...latest.metadata, annotations: { ...(latest.metadata.annotations ?? {}), [DEPLOYMENT_EXTRA_STATUS_ANNOTATION]: extra } },
    });
  }
  return newRS;
}
