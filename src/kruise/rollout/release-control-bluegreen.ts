// The blue-green entries of the release control table (openkruise/rollouts v0.6.2
// pkg/controller/batchrelease/control/bluegreenstyle/{cloneset,deployment}/control.go): the patches are
// bluegreen-control.ts's; the Workload views and the webhook rules are the partition-style ones of the
// same kind (upstream's webhook and controller_finder do not tell the styles apart for these kinds).
// In BatchContext, desiredPartition / currentPartition carry blue-green's DesiredSurge / CurrentSurge.
import type { KubeObject } from '../types';
import { numAt, strAt } from '../workloads/access';
import { blueGreenBatchContext, blueGreenFinalizePending, blueGreenInitialize, blueGreenNotReady, blueGreenRestore, blueGreenUpgrade, type BlueGreenKind } from './bluegreen-control';
import { cloneSetReleaseControl } from './release-control-cloneset';
import { canaryAndStableReplicaSets, deploymentReleaseControl, ownedReplicaSets } from './release-control-deployment';
import { releaseControlInfo, releasePlanOf, type BatchContext, type ReleaseControl, type RolloutWorkload, type WorkloadRelated } from './release-workload';

/** bluegreenstyle deployment getUpdatedReadyReplicas: the new ReplicaSet's ready pods (0 before it exists). */
function deploymentUpdatedReady(d: KubeObject, related: WorkloadRelated | undefined): number {
  const { canary } = canaryAndStableReplicaSets(d, ownedReplicaSets(d, related?.replicaSets ?? []));
  return canary ? (numAt(canary, 'status', 'readyReplicas') ?? 0) : 0;
}

function updatedReadyOf(kind: BlueGreenKind, w: KubeObject, related: WorkloadRelated | undefined): number {
  return kind === 'CloneSet' ? (numAt(w, 'status', 'updatedReadyReplicas') ?? 0) : deploymentUpdatedReady(w, related);
}

function blueGreenControl(kind: BlueGreenKind, base: ReleaseControl): ReleaseControl {
  return {
    group: base.group,
    kind: base.kind,
    style: 'BlueGreen',

    readWorkload(obj, related): RolloutWorkload {
      const w = base.readWorkload(obj, related);
      return kind === 'Deployment' ? { ...w, updatedReadyReplicas: deploymentUpdatedReady(obj, related) } : w;
    },

    holdOnRevisionChange: (next, old, hook) => base.holdOnRevisionChange(next, old, hook),

    initialize(workload, br) {
      const patch = blueGreenInitialize(kind, workload, br.metadata.uid, releaseControlInfo(br));
      // an unreadable saved setting is a BadRequest upstream: nothing is written
      return typeof patch === 'string' ? undefined : patch;
    },

    batchContext(workload, br, _pods, related): BatchContext {
      const plan = releasePlanOf(br);
      const currentBatch = numAt(br, 'status', 'canaryStatus', 'currentBatch') ?? 0;
      const b = blueGreenBatchContext(kind, workload, plan.batches, currentBatch, updatedReadyOf(kind, workload, related));
      return {
        currentBatch,
        replicas: b.replicas,
        rolloutID: plan.rolloutID,
        updateRevision: strAt(br, 'status', 'updateRevision') ?? '',
        plannedUpdatedReplicas: b.plannedUpdatedReplicas,
        desiredUpdatedReplicas: b.desiredUpdatedReplicas,
        desiredPartition: b.desiredSurge,
        currentPartition: b.currentSurge,
        updatedReplicas: b.updatedReplicas,
        updatedReadyReplicas: b.updatedReadyReplicas,
        failureThreshold: plan.failureThreshold,
      };
    },

    upgradeBatch(workload, ctx) {
      // ValidateReadyForBlueGreenRelease: a BadRequest upstream, nothing written
      if (blueGreenNotReady(kind, workload)) return undefined;
      return blueGreenUpgrade(kind, workload, {
        currentBatch: ctx.currentBatch,
        replicas: ctx.replicas,
        desiredSurge: ctx.desiredPartition,
        currentSurge: ctx.currentPartition,
        plannedUpdatedReplicas: ctx.plannedUpdatedReplicas,
        desiredUpdatedReplicas: ctx.desiredUpdatedReplicas,
        updatedReplicas: ctx.updatedReplicas,
        updatedReadyReplicas: ctx.updatedReadyReplicas,
      });
    },

    finalize(workload, br) {
      return blueGreenRestore(kind, workload, releasePlanOf(br).batchPartition) ?? {};
    },

    // bluegreenstyle Finalize: after the restore, wait until every pod is updated and ready
    finalizePending(workload, br) {
      if (releasePlanOf(br).batchPartition !== undefined) return undefined;
      return blueGreenFinalizePending(kind, workload);
    },
  };
}

export const cloneSetBlueGreenControl = blueGreenControl('CloneSet', cloneSetReleaseControl);
export const deploymentBlueGreenControl = blueGreenControl('Deployment', deploymentReleaseControl);
