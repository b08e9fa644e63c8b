// Deployment's batch release control, canary style (`enableExtraWorkloadForCanary: true`; openkruise/rollouts
// v0.6.2 pkg/controller/batchrelease/control/canarystyle/{control_plane.go, deployment/{control,canary,stable}.go}
// and the Workload view pkg/util/controller_finder.go getDeployment): the stable Deployment stays paused (the
// webhook's default branch) while a canary Deployment beside it, owned by the BatchRelease, carries the new
// template and grows to each batch's replicas; Finalize resumes the stable Deployment (the native controller
// then rolls it) and releases the canary's finalizer so that it goes with the BatchRelease.
// The canary is named `<stable>-<template hash>` (upstream uses generateName `<stable>-`).
import type { KubeObject } from '../types';
import { at, numAt, strAt } from '../workloads/access';
import { BATCH_RELEASE_CONTROL_ANNOTATION, IN_ROLLOUT_PROGRESSING_ANNOTATION } from './deployment-partition';
import { canaryAndStableReplicaSets, holdDeployment, ownedReplicaSets, templateRevisionHash, templatesEqualIgnoringHash } from './release-control-deployment';
import {
  calculateBatchReplicas,
  isControlledByBatchRelease,
  releaseControlInfo,
  releasePlanOf,
  workloadIdentity,
  type BatchContext,
  type ReleaseControl,
  type RolloutWorkload,
  type SideWrite,
  type WorkloadRelated,
} from './release-workload';
import { compareText } from '../../lib/compare';

/** pkg/util/constant.go */
export const CANARY_DEPLOYMENT_LABEL = 'rollouts.kruise.io/canary-deployment';
export const CANARY_DEPLOYMENT_FINALIZER = 'finalizer.rollouts.kruise.io/batch-release';
const DEPLOYMENTS = { group: 'apps', resource: 'deployments' };

/** getLatestCanaryDeployment: the newest Deployment labelled as this one's canary, not being deleted. */
export function latestCanaryDeployment(stable: KubeObject, deployments: readonly KubeObject[]): KubeObject | undefined {
  return deployments
    .filter((d) => d.metadata.labels?.[CANARY_DEPLOYMENT_LABEL] === stable.metadata.name && !d.metadata.deletionTimestamp)
    .sort((a, b) => compareText(String(b.metadata.creationTimestamp ?? ''), String(a.metadata.creationTimestamp ?? '')))[0];
}

/** BuildCanaryController/filterCanaryDeployment: the BatchRelease's canary with the stable's current template. */
export function canaryOf(stable: KubeObject, br: KubeObject, deployments: readonly KubeObject[]): KubeObject | undefined {
  return deployments
    .filter((d) => !d.metadata.deletionTimestamp && (d.metadata.ownerReferences ?? []).some((o) => o.controller && o.uid === br.metadata.uid))
    .sort((a, b) => compareText(String(b.metadata.creationTimestamp ?? ''), String(a.metadata.creationTimestamp ?? '')))
    .find((d) => templatesEqualIgnoringHash(at(d, 'spec', 'template'), at(stable, 'spec', 'template')));
}

/** realCanaryController.create: a copy of the stable Deployment's spec with 0 replicas, owned by the BatchRelease. */
export function buildCanaryDeployment(stable: KubeObject, br: KubeObject): KubeObject {
  const spec = structuredClone((stable.spec ?? {}) as Record<string, unknown>);
  spec.replicas = 0;
  spec.paused = false;
  const owner = JSON.parse(releaseControlInfo(br)) as Record<string, unknown>;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: `${stable.metadata.name}-${templateRevisionHash(at(stable, 'spec', 'template'))}`,
      namespace: stable.metadata.namespace,
      labels: { [CANARY_DEPLOYMENT_LABEL]: stable.metadata.name ?? '' },
      annotations: { [BATCH_RELEASE_CONTROL_ANNOTATION]: releaseControlInfo(br) },
      finalizers: [CANARY_DEPLOYMENT_FINALIZER],
      ownerReferences: [owner as never],
    },
    spec,
  };
}

function readStableDeployment(obj: KubeObject, related: WorkloadRelated | undefined): RolloutWorkload {
  const id = workloadIdentity(obj, 'Deployment', 'apps/v1');
  const owned = ownedReplicaSets(obj, related?.replicaSets ?? []);
  // getDeployment: the stable ReplicaSet is the one with pods of another template (or the only one)
  const { stable: stableRS, canary: sameTemplate } = canaryAndStableReplicaSets(obj, owned);
  const stableHash = (stableRS ?? sameTemplate)?.metadata.labels?.['pod-template-hash'] ?? '';
  const inProgressing = IN_ROLLOUT_PROGRESSING_ANNOTATION in id.annotations;
  const canary = latestCanaryDeployment(obj, related?.deployments ?? []);
  const canaryRS = canary ? ownedReplicaSets(canary, related?.replicaSets ?? [])[0] : undefined;
  const podTemplateHash = canaryRS?.metadata.labels?.['pod-template-hash'] ?? '';
  const canaryRevision = templateRevisionHash(at(obj, 'spec', 'template'));
  return {
    ...id,
    replicas: numAt(obj, 'spec', 'replicas') ?? 1,
    statusConsistent: (numAt(obj, 'status', 'observedGeneration') ?? 0) === (obj.metadata.generation ?? 0),
    stableRevision: stableHash,
    canaryRevision,
    podTemplateHash,
    updateRevisionName: podTemplateHash || canaryRevision,
    stableRevisionName: stableHash,
    inRolloutProgressing: inProgressing,
    // getDeployment: a template equal to the stable ReplicaSet's is a rollback
    inRollback: inProgressing && stableRS === undefined && sameTemplate !== undefined,
    updatedReplicas: canary ? (numAt(canary, 'status', 'replicas') ?? 0) : 0,
    updatedReadyReplicas: canary ? (numAt(canary, 'status', 'availableReplicas') ?? 0) : 0,
  };
}

export const deploymentCanaryControl: ReleaseControl = {
  group: 'apps',
  kind: 'Deployment',
  style: 'Canary',
  readWorkload: readStableDeployment,

  holdOnRevisionChange(next, old, hook) {
    return holdDeployment(next, old, hook.rolloutName, hook.hasTrafficRoutings, hook.list('apps', 'replicasets'));
  },

  initialize(workload, br) {
    // stable.Initialize: the control info only (the canary is created by sideWrites)
    if (isControlledByBatchRelease(workload, br)) return undefined;
    return { metadata: { annotations: { [BATCH_RELEASE_CONTROL_ANNOTATION]: releaseControlInfo(br) } } };
  },

  batchContext(workload, br, _pods, related): BatchContext {
    const plan = releasePlanOf(br);
    const replicas = numAt(workload, 'spec', 'replicas') ?? 1;
    const currentBatch = numAt(br, 'status', 'canaryStatus', 'currentBatch') ?? 0;
    const desired = calculateBatchReplicas(plan.batches[currentBatch] ?? 0, replicas);
    const canary = canaryOf(workload, br, related?.deployments ?? []);
    return {
      currentBatch,
      replicas,
      rolloutID: plan.rolloutID,
      updateRevision: strAt(br, 'status', 'updateRevision') ?? '',
      plannedUpdatedReplicas: desired,
      desiredUpdatedReplicas: desired,
      desiredPartition: desired,
      currentPartition: canary ? (numAt(canary, 'spec', 'replicas') ?? 0) : 0,
      updatedReplicas: canary ? (numAt(canary, 'status', 'replicas') ?? 0) : 0,
      updatedReadyReplicas: canary ? (numAt(canary, 'status', 'availableReplicas') ?? 0) : 0,
      failureThreshold: plan.failureThreshold,
    };
  },

  // the stable Deployment is not touched by a batch: the canary is (sideWrites)
  upgradeBatch: () => undefined,

  finalize(workload, br) {
    // stable.Finalize: control info removed, paused only while a batchPartition remains
    return { metadata: { annotations: { [BATCH_RELEASE_CONTROL_ANNOTATION]: null } }, spec: { paused: releasePlanOf(br).batchPartition !== undefined } };
  },

  sideWrites(phase, workload, br, related, ctx): SideWrite[] {
    const deployments = related?.deployments ?? [];
    const canary = canaryOf(workload, br, deployments);
    if (phase === 'initialize') return canary ? [] : [{ kind: 'create', resource: DEPLOYMENTS, object: buildCanaryDeployment(workload, br) }];
    if (phase === 'upgrade') {
      // realCanaryController.UpgradeBatch: the canary's replicas up to the batch's
      if (!canary || !ctx || (numAt(canary, 'spec', 'replicas') ?? 0) >= ctx.desiredUpdatedReplicas) return [];
      return [{ kind: 'patch', resource: DEPLOYMENTS, name: canary.metadata.name ?? '', patch: { spec: { replicas: ctx.desiredUpdatedReplicas } } }];
    }
    // realCanaryController.Delete: every canary of this BatchRelease loses its finalizer (GC removes it with the BatchRelease)
    return deployments
      .filter((d) => (d.metadata.ownerReferences ?? []).some((o) => o.controller && o.uid === br.metadata.uid) && (d.metadata.finalizers ?? []).includes(CANARY_DEPLOYMENT_FINALIZER))
      .map((d) => ({ kind: 'patch', resource: DEPLOYMENTS, name: d.metadata.name ?? '', patch: { metadata: { finalizers: (d.metadata.finalizers ?? []).filter((f) => f !== CANARY_DEPLOYMENT_FINALIZER) } } }));
  },
};
