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

function sidecarSet(updateStrategy: Record<string, unknown>, status: Record<string, number>): KubeObject {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'SidecarSet',
    metadata: { name: 'log-agent', generation: 2, annotations: { 'kruise.io/sidecarset-hash': 'b7c9x' } },
    spec: { selector: { matchLabels: { app: 'web' } }, updateStrategy: { type: 'RollingUpdate', ...updateStrategy }, containers: [{ name: 'log-agent', image: 'log-agent:2' }] },
    status: { observedGeneration: 2, matchedPods: 4, readyPods: 4, ...status },
  };
}

export const SIDECARSET_STATES: readonly HealthState[] = [
  { name: 'healthy', object: sidecarSet({}, { updatedPods: 4, updatedReadyPods: 4 }), status: 'Healthy', message: 'All 4 matched pods run the current sidecars' },
  {
    name: 'healthy-partition',
    object: sidecarSet({ partition: '50%' }, { updatedPods: 2, updatedReadyPods: 2 }),
    status: 'Healthy',
    message: '2 of 4 matched pods updated (2 kept on the old sidecars by the partition)',
  },
  { name: 'progressing', object: sidecarSet({}, { updatedPods: 3, updatedReadyPods: 2 }), status: 'Progressing', message: 'Waiting for the sidecar upgrade: 2 of 4 updated pods are ready' },
  { name: 'suspended-paused', object: sidecarSet({ paused: true }, { updatedPods: 1, updatedReadyPods: 1 }), status: 'Suspended', message: 'Sidecar upgrade paused: 1 of 4 matched pods updated' },
];

function broadcastJob(spec: Record<string, unknown>, status: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'BroadcastJob',
    metadata: { name: 'warmup', namespace: 'default', generation: 1 },
    spec: { template: { spec: { containers: [{ name: 'warmup', image: 'busybox' }], restartPolicy: 'Never' } }, completionPolicy: { type: 'Always' }, ...spec },
    status: { desired: 3, active: 0, succeeded: 0, failed: 0, ...status },
  };
}

export const BROADCASTJOB_STATES: readonly HealthState[] = [
  {
    name: 'healthy-completed',
    object: broadcastJob({}, { phase: 'completed', succeeded: 3, conditions: [{ type: 'Complete', status: 'True' }] }),
    status: 'Healthy',
    message: 'Completed: 3 of 3 pods succeeded',
  },
  { name: 'progressing', object: broadcastJob({}, { phase: 'running', active: 2, succeeded: 1 }), status: 'Progressing', message: 'Waiting for the job to complete: 1 of 3 pods succeeded, 2 active' },
  { name: 'suspended-paused', object: broadcastJob({ paused: true }, { phase: 'paused', succeeded: 1 }), status: 'Suspended', message: 'Paused: spec.paused is true (1 of 3 pods succeeded)' },
  {
    name: 'degraded-failed',
    object: broadcastJob({}, { phase: 'failed', succeeded: 2, failed: 1, conditions: [{ type: 'Failed', status: 'True', message: 'failure policy is FailurePolicyTypeFailFast and failed pod is found' }] }),
    status: 'Degraded',
    message: 'Failed: failure policy is FailurePolicyTypeFailFast and failed pod is found (2 of 3 pods succeeded, 1 failed)',
  },
];

function advancedCronJob(paused: boolean | undefined, status: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'AdvancedCronJob',
    metadata: { name: 'nightly', namespace: 'default', generation: 1 },
    spec: { schedule: '0 3 * * *', ...(paused === undefined ? {} : { paused }), template: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'job', image: 'busybox' }], restartPolicy: 'Never' } } } } } },
    status: { type: 'Job', ...status },
  };
}

export const ADVANCED_CRONJOB_STATES: readonly HealthState[] = [
  { name: 'healthy', object: advancedCronJob(undefined, { lastScheduleTime: '2026-11-29T03:00:00Z' }), status: 'Healthy', message: '0 active, last scheduled at 2026-11-29T03:00:00Z' },
  {
    name: 'healthy-running',
    object: advancedCronJob(false, { lastScheduleTime: '2026-11-29T03:00:00Z', active: [{ kind: 'Job', namespace: 'default', name: 'nightly-29001' }] }),
    status: 'Healthy',
    message: '1 active, last scheduled at 2026-11-29T03:00:00Z',
  },
  { name: 'suspended-paused', object: advancedCronJob(true, {}), status: 'Suspended', message: 'Paused (spec.paused): not scheduled yet' },
];

function imagePullJob(completionPolicy: string, status: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'ImagePullJob',
    metadata: { name: 'prefetch', namespace: 'default', generation: 1 },
    spec: { image: 'nginx:1.27', parallelism: 2, completionPolicy: { type: completionPolicy } },
    status: { desired: 3, active: 0, succeeded: 0, failed: 0, startTime: '2026-11-29T00:00:00Z', ...status },
  };
}

export const IMAGEPULLJOB_STATES: readonly HealthState[] = [
  { name: 'healthy', object: imagePullJob('Always', { succeeded: 3, completionTime: '2026-11-29T00:01:00Z' }), status: 'Healthy', message: '3 of 3 nodes pulled the image' },
  { name: 'healthy-never', object: imagePullJob('Never', { succeeded: 3 }), status: 'Healthy', message: '3 of 3 nodes pulled the image' },
  { name: 'progressing', object: imagePullJob('Always', { active: 2, succeeded: 1 }), status: 'Progressing', message: 'Pulling: 1 of 3 nodes pulled the image, 2 pulling' },
  {
    name: 'degraded-deadline',
    object: imagePullJob('Always', { succeeded: 2, failed: 1, failedNodes: ['node-3'], completionTime: '2026-11-29T00:30:00Z', message: 'job exceeds activeDeadlineSeconds' }),
    status: 'Degraded',
    message: '1 of 3 nodes failed to pull the image: job exceeds activeDeadlineSeconds',
  },
];

function containerRecreateRequest(status: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'ContainerRecreateRequest',
    metadata: { name: 'web-0-restart', namespace: 'default', generation: 1 },
    spec: { podName: 'web-0', containers: [{ name: 'app' }, { name: 'sidecar' }], strategy: { failurePolicy: 'Fail' } },
    status,
  };
}

export const CONTAINER_RECREATE_REQUEST_STATES: readonly HealthState[] = [
  {
    name: 'healthy',
    object: containerRecreateRequest({ phase: 'Completed', completionTime: '2026-11-29T00:01:00Z', containerRecreateStates: [{ name: 'app', phase: 'Succeeded' }, { name: 'sidecar', phase: 'Succeeded' }] }),
    status: 'Healthy',
    message: 'Containers recreated',
  },
  { name: 'progressing', object: containerRecreateRequest({ phase: 'Recreating', containerRecreateStates: [{ name: 'app', phase: 'Recreating' }, { name: 'sidecar', phase: 'Pending' }] }), status: 'Progressing', message: 'Recreating containers: phase Recreating' },
  {
    name: 'degraded-container-failed',
    object: containerRecreateRequest({ phase: 'Completed', containerRecreateStates: [{ name: 'app', phase: 'Failed', message: 'kill container error' }, { name: 'sidecar', phase: 'Pending' }] }),
    status: 'Degraded',
    message: 'Failed to recreate container(s) app',
  },
  { name: 'degraded-pod-gone', object: containerRecreateRequest({ phase: 'Completed', message: 'pod has gone' }), status: 'Degraded', message: 'Not completed: pod has gone' },
];

function unitedDeployment(partitions: Record<string, number> | undefined, status: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'UnitedDeployment',
    metadata: { name: 'shop', namespace: 'default', generation: 2 },
    spec: {
      replicas: 6,
      selector: { matchLabels: { app: 'shop' } },
      template: { cloneSetTemplate: { metadata: { labels: { app: 'shop' } }, spec: { selector: { matchLabels: { app: 'shop' } }, template: { metadata: { labels: { app: 'shop' } }, spec: { containers: [{ name: 'shop', image: 'shop:2' }] } } } } },
      topology: { subsets: [{ name: 'zone-a', replicas: 3 }, { name: 'zone-b' }] },
      updateStrategy: { type: 'Manual', ...(partitions ? { manualUpdate: { partitions } } : {}) },
    },
    status: { observedGeneration: 2, replicas: 6, readyReplicas: 6, subsetReplicas: { 'zone-a': 3, 'zone-b': 3 }, currentRevision: 'shop-5f6b4', updateStatus: { updatedRevision: 'shop-7c9d8' }, ...status },
  };
}

export const UNITED_DEPLOYMENT_STATES: readonly HealthState[] = [
  {
    name: 'healthy',
    object: unitedDeployment(undefined, { updatedReplicas: 6, updatedReadyReplicas: 6, currentRevision: 'shop-7c9d8' }),
    status: 'Healthy',
    message: 'All 6 pods updated and available',
  },
  {
    name: 'healthy-partition',
    object: unitedDeployment({ 'zone-a': 1, 'zone-b': 1 }, { updatedReplicas: 4, updatedReadyReplicas: 4 }),
    status: 'Healthy',
    message: '4 of 6 pods updated (2 kept at the old revision by the partition)',
  },
  {
    name: 'progressing',
    object: unitedDeployment(undefined, { updatedReplicas: 4, updatedReadyReplicas: 3, readyReplicas: 5 }),
    status: 'Progressing',
    message: 'Waiting for rollout to finish: 3 of 6 updated pods are available',
  },
];
