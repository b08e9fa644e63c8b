// The normalised view of a Kruise Rollout (v1alpha1 or v1beta1), shared by the gate, the patches
// and the describe view model. Plain data, no behaviour.
import type { IntOrString } from '../intstr';

export type RolloutApiVersion = 'v1alpha1' | 'v1beta1';
export type RolloutStrategyKind = 'canary' | 'blueGreen';
/** Where the controller keeps the per-release status: status.canaryStatus or status.blueGreenStatus. */
export type RolloutSubStatusField = 'canaryStatus' | 'blueGreenStatus';

export interface RolloutWorkloadRef {
  apiVersion: string;
  kind: string;
  name: string;
}

export interface RolloutStepView {
  /** 1-based, as status.currentStepIndex counts. */
  index: number;
  /** The step's replicas as written (count or "N%"). */
  replicas?: IntOrString;
  /** Pods this step updates, resolved against the workload's replicas (undefined without a workload). */
  canaryReplicas?: number;
  /** Traffic weight as a percentage string ("20%"): v1beta1 `traffic`, v1alpha1 `weight` converted. */
  traffic?: string;
  /** Whether the step routes by request matches (headers). */
  hasMatches: boolean;
  /** Seconds the step waits; undefined: the step waits for a person (unless it is a final "100%" step). */
  pauseSeconds?: number;
}

export interface RolloutCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface RolloutStatusView {
  observedGeneration?: number;
  phase?: string;
  message?: string;
  /** v1beta1 mirrors of the sub-status at the top of status (undefined in v1alpha1). */
  topCurrentStepIndex?: number;
  topCurrentStepState?: string;
  /** Whether canaryStatus / blueGreenStatus is present. */
  hasSubStatus: boolean;
  currentStepIndex?: number;
  currentStepState?: string;
  nextStepIndex?: number;
  stableRevision?: string;
  /** canaryStatus.canaryRevision or blueGreenStatus.updatedRevision. */
  canaryRevision?: string;
  podTemplateHash?: string;
  /** canaryReplicas / updatedReplicas. */
  canaryReplicas?: number;
  /** canaryReadyReplicas / updatedReadyReplicas. */
  canaryReadyReplicas?: number;
  observedWorkloadGeneration?: number;
  observedRolloutID?: string;
  finalisingStep?: string;
  lastUpdateTime?: string;
  subMessage?: string;
  progressing?: RolloutCondition;
  succeeded?: RolloutCondition;
  conditions: RolloutCondition[];
}

export interface RolloutView {
  apiVersion: RolloutApiVersion;
  namespace: string;
  name: string;
  generation?: number;
  workloadRef?: RolloutWorkloadRef;
  strategy: RolloutStrategyKind;
  subStatusField: RolloutSubStatusField;
  steps: RolloutStepView[];
  paused: boolean;
  disabled: boolean;
  /** The workload's `rollouts.kruise.io/rollout-id` label: what status.observedRolloutID follows. */
  rolloutID?: string;
  /** v1alpha1 spec.rolloutID (the controller does not read it). */
  specRolloutID?: string;
  status: RolloutStatusView;
}
