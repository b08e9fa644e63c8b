// Label and condition names of Kruise Rollout (api/v1beta1/rollout_types.go, v0.6.2).
export const ROLLOUT_ID_LABEL = 'rollouts.kruise.io/rollout-id';
export const ROLLOUT_BATCH_ID_LABEL = 'rollouts.kruise.io/rollout-batch-id';
export const ROLLOUT_GROUP = 'rollouts.kruise.io';

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
