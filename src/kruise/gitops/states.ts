// One table of states per kind: example objects with the Argo CD health our gate gives them and
// the message the generated Lua prints. `gitops export --out-dir` writes them as Argo CD's
// testdata/ and health_test.yaml; test/unit/kruise/gitops/lua.test.ts checks the gate and lua5.1 agree.
import type { KubeObject } from '../types';
import type { ArgoHealth } from './health';

export interface HealthState {
  /** testdata/<name>.yaml */
  name: string;
  object: KubeObject;
  status: ArgoHealth;
  message: string;
}

function cloneSet(apiVersion: 'v1alpha1' | 'v1beta1', updateStrategy: Record<string, unknown>, status: Record<string, number | string>): KubeObject {
  return {
    apiVersion: `apps.kruise.io/${apiVersion}`,
    kind: 'CloneSet',
    metadata: { name: 'web', namespace: 'default', generation: 2 },
    spec: {
      replicas: 5,
      selector: { matchLabels: { app: 'web' } },
      updateStrategy,
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } },
    },
    status: { observedGeneration: 2, updateRevision: 'web-7c9d8', currentRevision: 'web-5f6b4', ...status },
  };
}

const counts = (updated: number, available: number, expected = 5): Record<string, number> => ({
  replicas: 5,
  readyReplicas: 5,
  availableReplicas: 5,
  updatedReplicas: updated,
  updatedReadyReplicas: available,
  updatedAvailableReplicas: available,
  expectedUpdatedReplicas: expected,
});

export const CLONESET_STATES: readonly HealthState[] = [
  {
    name: 'healthy',
    object: cloneSet('v1alpha1', { type: 'ReCreate' }, { ...counts(5, 5), currentRevision: 'web-7c9d8' }),
    status: 'Healthy',
    message: 'All 5 pods updated and available',
  },
  {
    name: 'healthy-v1beta1-partition',
    object: cloneSet('v1beta1', { type: 'RollingUpdate', rollingUpdate: { partition: 2 } }, counts(3, 3, 3)),
    status: 'Healthy',
    message: '3 of 5 pods updated (2 kept at the old revision by the partition)',
  },
  {
    name: 'progressing-updated-not-available',
    object: cloneSet('v1alpha1', { type: 'InPlaceIfPossible' }, { ...counts(5, 2), availableReplicas: 2, readyReplicas: 2 }),
    status: 'Progressing',
    message: 'Waiting for rollout to finish: 2 of 5 updated pods are available',
  },
  {
    name: 'suspended-v1beta1-paused',
    object: cloneSet('v1beta1', { type: 'RollingUpdate', rollingUpdate: { paused: true } }, counts(1, 1)),
    status: 'Suspended',
    message: 'Rollout paused: 1 of 5 pods updated',
  },
];

function advancedStatefulSet(apiVersion: 'v1alpha1' | 'v1beta1', rollingUpdate: Record<string, unknown>, status: Record<string, number | string>): KubeObject {
  return {
    apiVersion: `apps.kruise.io/${apiVersion}`,
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace: 'default', generation: 3 },
    spec: {
      replicas: 4,
      serviceName: 'db',
      selector: { matchLabels: { app: 'db' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate },
      template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'db:2' }] } },
    },
    status: { observedGeneration: 3, replicas: 4, readyReplicas: 4, availableReplicas: 4, updateRevision: 'db-7c9d8', currentRevision: 'db-5f6b4', ...status },
  };
}

export const ADVANCED_STATEFULSET_STATES: readonly HealthState[] = [
  {
    name: 'healthy',
    object: advancedStatefulSet('v1beta1', {}, { updatedReplicas: 4, updatedReadyReplicas: 4, updatedAvailableReplicas: 4, currentRevision: 'db-7c9d8' }),
    status: 'Healthy',
    message: 'All 4 pods updated and available',
  },
  {
    name: 'healthy-partition',
    object: advancedStatefulSet('v1beta1', { partition: 1 }, { updatedReplicas: 3, updatedReadyReplicas: 3, updatedAvailableReplicas: 3 }),
    status: 'Healthy',
    message: '3 of 4 pods updated (1 kept at the old revision by the partition)',
  },
  {
    name: 'progressing',
    object: advancedStatefulSet('v1alpha1', {}, { updatedReplicas: 2, readyReplicas: 3, availableReplicas: 3 }),
    status: 'Progressing',
    message: 'Waiting for rollout to finish: 1 of 4 updated pods are available',
  },
  {
    name: 'suspended-paused',
    object: advancedStatefulSet('v1beta1', { paused: true }, { updatedReplicas: 1, updatedReadyReplicas: 1, updatedAvailableReplicas: 1 }),
    status: 'Suspended',
    message: 'Rollout paused: 1 of 4 pods updated',
  },
];

function advancedDaemonSet(rollingUpdate: Record<string, unknown>, status: Record<string, number | string>): KubeObject {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'default', generation: 2 },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { rollingUpdateType: 'Standard', ...rollingUpdate } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'agent:2' }] } },
    },
    status: { observedGeneration: 2, desiredNumberScheduled: 4, currentNumberScheduled: 4, numberMisscheduled: 0, numberReady: 4, numberAvailable: 4, daemonSetHash: '7c9d8', ...status },
  };
}

export const ADVANCED_DAEMONSET_STATES: readonly HealthState[] = [
  { name: 'healthy', object: advancedDaemonSet({}, { updatedNumberScheduled: 4 }), status: 'Healthy', message: 'All 4 pods updated and available' },
  {
    name: 'healthy-partition',
    object: advancedDaemonSet({ partition: '50%' }, { updatedNumberScheduled: 2 }),
    status: 'Healthy',
    message: '2 of 4 pods updated (2 kept at the old revision by the partition)',
  },
  {
    name: 'progressing',
    object: advancedDaemonSet({}, { updatedNumberScheduled: 3, numberReady: 3, numberAvailable: 3 }),
    status: 'Progressing',
    message: 'Waiting for rollout to finish: 2 of 4 updated pods are available',
  },
  { name: 'suspended-paused', object: advancedDaemonSet({ paused: true }, { updatedNumberScheduled: 1 }), status: 'Suspended', message: 'Rollout paused: 1 of 4 pods updated' },
];

function rollout(strategy: Record<string, unknown>, status: Record<string, unknown>): KubeObject {
  const blueGreen = 'blueGreen' in strategy;
  return {
    apiVersion: 'rollouts.kruise.io/v1beta1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'default', generation: 1 },
    spec: { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web' }, strategy },
    status: {
      observedGeneration: 1,
      conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling' }],
      ...status,
      [blueGreen ? 'blueGreenStatus' : 'canaryStatus']: status.sub,
      sub: undefined,
    },
  };
}

const canarySteps = { canary: { steps: [{ replicas: 1, pause: { duration: 300 } }, { replicas: 2 }, { replicas: '100%' }] } };
const blueGreenSteps = { blueGreen: { steps: [{ replicas: '50%', traffic: '0%' }, { replicas: '100%', traffic: '100%' }] } };
const step = (index: number, state: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  phase: 'Progressing',
  currentStepIndex: index,
  currentStepState: state,
  sub: { currentStepIndex: index, currentStepState: state, ...extra },
});

function withoutUndefined(obj: KubeObject): KubeObject {
  return JSON.parse(JSON.stringify(obj)) as KubeObject;
}

export const ROLLOUT_STATES: readonly HealthState[] = [
  {
    name: 'healthy',
    object: withoutUndefined(rollout(canarySteps, { phase: 'Healthy', sub: { currentStepIndex: 3, currentStepState: 'Completed' }, conditions: [{ type: 'Progressing', status: 'False', reason: 'Completed' }, { type: 'Succeeded', status: 'True', reason: 'Completed' }] })),
    status: 'Healthy',
    message: 'Rollout is complete',
  },
  {
    name: 'progressing-timed-pause',
    object: withoutUndefined(rollout(canarySteps, step(1, 'StepPaused', { lastUpdateTime: '2026-11-28T23:58:00Z' }))),
    status: 'Progressing',
    message: 'step 1/3 pauses for 300s',
  },
  {
    name: 'suspended-approval',
    object: withoutUndefined(rollout(canarySteps, step(2, 'StepPaused'))),
    status: 'Suspended',
    message: 'Waiting for approval at step 2/3: approve it to continue',
  },
  {
    name: 'suspended-bluegreen-approval',
    object: withoutUndefined(rollout(blueGreenSteps, step(1, 'StepPaused'))),
    status: 'Suspended',
    message: 'Waiting for approval at step 1/2: approve it to continue',
  },
  {
    name: 'progressing-bluegreen-upgrade',
    object: withoutUndefined(rollout(blueGreenSteps, step(2, 'StepUpgrade'))),
    status: 'Progressing',
    message: 'step 2/2 StepUpgrade',
  },
  {
    name: 'degraded-cancelled',
    object: withoutUndefined(rollout(canarySteps, { phase: 'Healthy', sub: { currentStepIndex: 1, currentStepState: 'Completed' }, conditions: [{ type: 'Progressing', status: 'False', reason: 'Completed', message: 'workload has been rollback, then rollout is canceled' }, { type: 'Succeeded', status: 'False', reason: 'Completed' }] })),
    status: 'Degraded',
    message: 'The release was cancelled: workload has been rollback, then rollout is canceled',
  },
];
