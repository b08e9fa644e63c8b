// Label and condition names of Kruise Rollout (api/v1beta1/rollout_types.go, v0.6.2).
export const ROLLOUT_ID_LABEL = 'rollouts.kruise.io/rollout-id';
export const ROLLOUT_BATCH_ID_LABEL = 'rollouts.kruise.io/rollout-batch-id';
export const ROLLOUT_GROUP = 'rollouts.kruise.io';
/** A Rollout annotation: a workload rolled back mid-release goes back in batches (pkg/util IsRollbackInBatchPolicy). */
export const ROLLBACK_IN_BATCH_ANNOTATION = 'rollouts.kruise.io/rollback-in-batch';
/** A workload label naming its type for the Rollout controller (pkg/util WorkloadTypeLabel). */
export const WORKLOAD_TYPE_LABEL = 'rollouts.kruise.io/workload-type';

export const STEP_STATE = {
  Init: 'StepInit',
  Upgrade: 'StepUpgrade',
  TrafficRouting: 'StepTrafficRouting',
  MetricsAnalysis: 'StepMetricsAnalysis',
  Paused: 'StepPaused',
  Ready: 'StepReady',
  Completed: 'Completed',
} as const;

export const PROGRESSING_REASON = {
  Initializing: 'Initializing',
  InRolling: 'InRolling',
  Finalising: 'Finalising',
  Completed: 'Completed',
  Cancelling: 'Cancelling',
  Paused: 'Paused',
} as const;
