// Label and condition names of Kruise Rollout (api/v1beta1/rollout_types.go, v0.6.2).
export const ROLLOUT_ID_LABEL = 'rollouts.kruise.io/rollout-id';
export const ROLLOUT_BATCH_ID_LABEL = 'rollouts.kruise.io/rollout-batch-id';
export const ROLLOUT_GROUP = 'rollouts.kruise.io';
/** A Rollout annotation: a workload rolled back mid-release goes back in batches (pkg/util IsRollbackInBatchPolicy). */
export const ROLLBACK_IN_BATCH_ANNOTATION = 'rollouts.kruise.io/rollback-in-batch';
/** A workload label naming its type for the Rollout controller (pkg/util WorkloadTypeLabel). */
export const WORKLOAD_TYPE_LABEL = 'rollouts.kruise.io/workload-type';
/** The workload webhook's mark on a workload held for a release (pkg/util InRolloutProgressingAnnotation); the release finalises by removing it. */
export const IN_ROLLOUT_PROGRESSING_ANNOTATION = 'rollouts.kruise.io/in-progressing';
/** The BatchRelease's control record on the workload it drives (pkg/util BatchReleaseControlAnnotation). */
export const BATCH_RELEASE_CONTROL_ANNOTATION = 'batchrelease.rollouts.kruise.io/control-info';

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
