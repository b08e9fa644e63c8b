// Reading a Rollout of either served version into one `RolloutView`:
// - v1alpha1: spec.objectRef.workloadRef, canary only, steps' traffic in `weight` (an integer percent),
//   spec.rolloutID; no status mirrors at the top.
// - v1beta1 (storage since v0.5): spec.workloadRef, canary or blueGreen, steps' `traffic` ("20%"),
//   status.currentStepIndex/currentStepState mirroring the sub-status.
// The conversion follows api/v1alpha1/conversion.go (v0.6.2): a v1alpha1 step without replicas but
// with a weight releases "<weight>%" of the pods.
import type { KubeObject } from '../types';
import type { IntOrString } from '../intstr';
import { at, isObj, numAt, strAt, boolAt, intOrStringAt, type Obj } from '../workloads/access';
import { stepCanaryReplicas } from './step-math';
import { ROLLOUT_ID_LABEL } from './labels';
import type { RolloutApiVersion, RolloutCondition, RolloutStatusView, RolloutStepView, RolloutView, RolloutWorkloadRef } from './types';

export class RolloutReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RolloutReadError';
  }
}

export function rolloutApiVersion(obj: KubeObject): RolloutApiVersion {
  const v = obj.apiVersion ?? '';
  if (v === 'rollouts.kruise.io/v1alpha1') return 'v1alpha1';
  if (v === 'rollouts.kruise.io/v1beta1') return 'v1beta1';
  throw new RolloutReadError(`rollout "${obj.metadata.name ?? ''}": unsupported apiVersion ${JSON.stringify(v)} (expected rollouts.kruise.io/v1alpha1 or v1beta1)`);
}

/**
 * The workload's replicas as the Rollout controller reads them (workloads_utils.go GetReplicas):
 * spec.replicas (default 1), a DaemonSet's (native or Advanced) status.desiredNumberScheduled.
 */
export function workloadReplicas(workload: KubeObject): number {
  if (workload.kind === 'DaemonSet') return numAt(workload, 'status', 'desiredNumberScheduled') ?? 0;
  return numAt(workload, 'spec', 'replicas') ?? 1;
}

/**
 * Normalised view of a Rollout. `workload` (when known) resolves percentage steps into pod counts
 * and supplies the rollout ID a v1beta1 Rollout reads from the workload's label.
 */
export function readRollout(obj: KubeObject, workload?: KubeObject | null): RolloutView {
  const apiVersion = rolloutApiVersion(obj);
  const strategy = at(obj, 'spec', 'strategy');
  const blueGreen = apiVersion === 'v1beta1' && isObj(at(strategy, 'blueGreen'));
  const stratObj = at(strategy, blueGreen ? 'blueGreen' : 'canary');
  const replicas = workload ? workloadReplicas(workload) : undefined;
  const rawSteps = at(stratObj, 'steps');
  const steps = (Array.isArray(rawSteps) ? rawSteps : []).map((s: unknown, i) => readStep(s, i + 1, apiVersion, replicas));
  // The controller's rollout ID is the workload's label in every release (rollout_status.go getRolloutID,
  // v0.4.4 and v0.6.2); v1alpha1 spec.rolloutID is informational only and never compared.
  const rolloutID = workload?.metadata.labels?.[ROLLOUT_ID_LABEL] || undefined;
  const subStatusField = blueGreen ? 'blueGreenStatus' : 'canaryStatus';
  return {
    apiVersion,
    namespace: obj.metadata.namespace ?? '',
    name: obj.metadata.name ?? '',
    generation: obj.metadata.generation,
    workloadRef: rolloutWorkloadRef(obj),
    strategy: blueGreen ? 'blueGreen' : 'canary',
    subStatusField,
    steps,
    paused: boolAt(strategy, 'paused'),
    disabled: boolAt(obj, 'spec', 'disabled'),
    rolloutID,
    specRolloutID: apiVersion === 'v1alpha1' ? strAt(obj, 'spec', 'rolloutID') : undefined,
    status: readStatus(at(obj, 'status'), subStatusField, apiVersion),
  };
}

/** A Rollout's workload: v1alpha1 spec.objectRef.workloadRef, v1beta1 spec.workloadRef. */
export function rolloutWorkloadRef(obj: KubeObject): RolloutWorkloadRef | undefined {
  return readWorkloadRef(at(obj, 'spec', ...(rolloutApiVersion(obj) === 'v1alpha1' ? ['objectRef', 'workloadRef'] : ['workloadRef'])));
}

/** A `{apiVersion, kind, name}` workload reference (a Rollout's, or a v1beta1 BatchRelease's spec.workloadRef). */
export function readWorkloadRef(ref: unknown): RolloutWorkloadRef | undefined {
  const kind = strAt(ref, 'kind');
  const name = strAt(ref, 'name');
  if (!kind || !name) return undefined;
  return { apiVersion: strAt(ref, 'apiVersion') ?? '', kind, name };
}

function readStep(step: unknown, index: number, version: RolloutApiVersion, replicas: number | undefined): RolloutStepView {
  const weight = version === 'v1alpha1' ? numAt(step, 'weight') : undefined;
  const traffic = version === 'v1alpha1' ? (weight !== undefined ? `${weight}%` : undefined) : strAt(step, 'traffic');
  let stepReplicas: IntOrString | undefined = intOrStringAt(step, 'replicas');
  if (stepReplicas === undefined && weight !== undefined) stepReplicas = `${weight}%`;
  const matches = at(step, 'matches');
  return {
    index,
    replicas: stepReplicas,
    canaryReplicas: replicas === undefined ? undefined : stepCanaryReplicas(stepReplicas, replicas),
    traffic,
    hasMatches: Array.isArray(matches) && matches.length > 0,
    pauseSeconds: numAt(step, 'pause', 'duration'),
  };
}

function readStatus(status: unknown, field: 'canaryStatus' | 'blueGreenStatus', version: RolloutApiVersion): RolloutStatusView {
  const sub = at(status, field);
  const canary = field === 'canaryStatus';
  const conditions = readConditions(at(status, 'conditions'));
  return {
    observedGeneration: numAt(status, 'observedGeneration'),
    phase: strAt(status, 'phase'),
    message: strAt(status, 'message'),
    topCurrentStepIndex: version === 'v1beta1' ? numAt(status, 'currentStepIndex') : undefined,
    topCurrentStepState: version === 'v1beta1' ? strAt(status, 'currentStepState') : undefined,
    hasSubStatus: isObj(sub),
    currentStepIndex: numAt(sub, 'currentStepIndex'),
    currentStepState: strAt(sub, 'currentStepState'),
    nextStepIndex: numAt(sub, 'nextStepIndex'),
    stableRevision: strAt(sub, 'stableRevision'),
    canaryRevision: strAt(sub, canary ? 'canaryRevision' : 'updatedRevision'),
    podTemplateHash: strAt(sub, 'podTemplateHash'),
    canaryReplicas: numAt(sub, canary ? 'canaryReplicas' : 'updatedReplicas'),
    canaryReadyReplicas: numAt(sub, canary ? 'canaryReadyReplicas' : 'updatedReadyReplicas'),
    observedWorkloadGeneration: numAt(sub, 'observedWorkloadGeneration'),
    observedRolloutID: strAt(sub, 'observedRolloutID'),
    finalisingStep: strAt(sub, 'finalisingStep'),
    lastUpdateTime: strAt(sub, 'lastUpdateTime'),
    subMessage: strAt(sub, 'message'),
    progressing: conditions.find((c) => c.type === 'Progressing'),
    succeeded: conditions.find((c) => c.type === 'Succeeded'),
    conditions,
  };
}

function readConditions(raw: unknown): RolloutCondition[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isObj).map((c: Obj) => ({
    type: strAt(c, 'type') ?? '',
    status: strAt(c, 'status') ?? '',
    reason: strAt(c, 'reason'),
    message: strAt(c, 'message'),
    lastUpdateTime: strAt(c, 'lastUpdateTime'),
    lastTransitionTime: strAt(c, 'lastTransitionTime'),
  }));
}
