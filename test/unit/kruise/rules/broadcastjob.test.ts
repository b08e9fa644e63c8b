// BroadcastJob rules (src/kruise/rules/broadcastjob.ts) on the rows of Kruise v1.9.0's own tests:
// pkg/controller/broadcastjob/broadcastjob_controller_test.go (every Test*, with its createJob /
// createNode / createPod fixtures) and pkg/webhook/broadcastjob/validating/broadcastjob_test.go;
// where Kruise has no table (node fitness, restartLimit), the source function is named in the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BROADCAST_JOB_NAME_LABEL,
  BROADCAST_JOB_UID_LABEL,
  broadcastJobDefaults,
  broadcastJobNameProblems,
  broadcastJobPod,
  filterBroadcastJobPods,
  nodeFitnessProblem,
  nodeToPodMap,
  reconcileBroadcastJob,
  validateBroadcastJob,
  validateBroadcastJobSpec,
  type BroadcastJobSpec,
} from '../../../../src/kruise/rules/broadcastjob';
import { validateAdvancedCronJob } from '../../../../src/kruise/rules/advancedcronjob';
import type { KubeObject, Pod } from '../../../../src/kruise/types';

const NOW = Date.parse('2025-10-10T09:00:00Z');

/** createNode of broadcastjob_controller_test.go: allocatable pods 10. */
function createNode(name: string, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { ...extra }, status: { allocatable: { pods: '10' } } };
}

/** createJob: uid 12345, the given parallelism, an empty completion policy (no webhook defaults). */
function createJob(name: string, parallelism: number | string, spec: Partial<BroadcastJobSpec> = {}, status?: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'BroadcastJob',
    metadata: { name, namespace: 'default', uid: '12345' },
    spec: { parallelism, completionPolicy: {}, template: { spec: { containers: [] } }, ...spec },
    ...(status ? { status } : {}),
  };
}

/** createPod: the job's labels, a controller reference to it, spec.nodeName and a phase. */
function createPod(job: KubeObject, name: string, nodeName: string, phase: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      labels: { [BROADCAST_JOB_NAME_LABEL]: job.metadata.name ?? '', [BROADCAST_JOB_UID_LABEL]: '12345' },
      ownerReferences: [{ apiVersion: 'apps.kruise.io/v1beta1', kind: 'BroadcastJob', name: job.metadata.name ?? '', uid: '12345', controller: true, blockOwnerDeletion: true }],
    },
    spec: { nodeName, containers: [] },
    status: { phase },
  };
}

const nodes = (...names: string[]) => names.map((n) => createNode(n));

test('TestGetNodeToPodMap: spec.nodeName, or the single metadata.name In node affinity value', () => {
  const affinity = (node: string) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] } } });
  const pods: Pod[] = [
    { metadata: { name: 'p01' }, spec: { nodeName: 'n01', containers: [] } },
    { metadata: { name: 'p02' }, spec: { affinity: affinity('n02'), containers: [] } },
    { metadata: { name: 'p03' }, spec: { nodeName: 'n03', containers: [] } },
    { metadata: { name: 'p04' }, spec: { affinity: affinity('n04'), containers: [] } },
  ];
  const { map, duplicates } = nodeToPodMap(pods);
  assert.deepEqual([...map].map(([n, p]) => [n, p.metadata.name]), [['n01', 'p01'], ['n02', 'p02'], ['n03', 'p03'], ['n04', 'p04']]);
  assert.deepEqual(duplicates, []);
});

test('TestReconcileJobCreatePodAbsolute: 1 pod running, 3 nodes, parallelism 2 → 1 pod created, 2 active, 3 desired', () => {
  const job = createJob('job1', 2);
  const plan = reconcileBroadcastJob({ job, pods: [createPod(job, 'job1pod1node1', 'node1', 'Running')], nodes: nodes('node1', 'node2', 'node3'), now: NOW });
  assert.deepEqual(plan.createOn, ['node2']);
  assert.equal(plan.status?.active, 2);
  assert.equal(plan.status?.desired, 3);
  assert.ok(plan.status?.startTime);
  assert.equal(plan.status?.phase, 'running');
  const pod = broadcastJobPod(job, 'node2', 'apps.kruise.io/v1beta1');
  assert.equal(pod.metadata.labels?.[BROADCAST_JOB_NAME_LABEL], 'job1', 'the new pod has the job-name label');
});

test('TestReconcileJobCreatePodPercentage: parallelism 40% of 5 desired nodes (rounded up) → 1 more pod, 2 active', () => {
  const job = createJob('job2', '40%');
  const plan = reconcileBroadcastJob({ job, pods: [createPod(job, 'jobpod1node1', 'node1', 'Running')], nodes: nodes('node1', 'node2', 'node3', 'node4', 'node5'), now: NOW });
  assert.equal(plan.createOn.length, 1);
  assert.equal(plan.status?.active, 2);
  assert.equal(plan.status?.desired, 5);
  assert.equal(plan.status?.phase, 'running');
});

test('TestPodsOnUnschedulableNodes: an unschedulable node gets no pod and is not desired', () => {
  const job = createJob('job3', 2);
  const n = [createNode('node1', { unschedulable: true }), createNode('node2')];
  const plan = reconcileBroadcastJob({ job, pods: [], nodes: n, now: NOW });
  assert.deepEqual(plan.createOn, ['node2']);
  assert.equal(plan.status?.active, 1);
  assert.equal(plan.status?.desired, 1);
  assert.equal(plan.status?.phase, 'running');
});

test('TestReconcileJobMultipleBatches: 10 nodes, parallelism 20 → 10 pods created at once', () => {
  const job = createJob('job4', 20);
  const plan = reconcileBroadcastJob({ job, pods: [], nodes: Array.from({ length: 10 }, (_, i) => createNode(`node-${i}`)), now: NOW });
  assert.equal(plan.createOn.length, 10);
  assert.equal(plan.status?.active, 10);
});

test('TestJobFailed: FailFast with 2 succeeded and 1 failed pod → Failed condition, completionTime, phase failed', () => {
  const job = createJob('job5', 10, { failurePolicy: { type: 'FailFast' } });
  const pods = [createPod(job, 'pod1node1', 'node1', 'Succeeded'), createPod(job, 'pod2node2', 'node2', 'Succeeded'), createPod(job, 'pod3node3', 'node3', 'Failed')];
  const plan = reconcileBroadcastJob({ job, pods, nodes: nodes('node1', 'node2', 'node3'), now: NOW });
  const s = plan.status!;
  assert.ok(s.completionTime);
  assert.equal(s.conditions?.at(-1)?.type, 'Failed');
  assert.equal(s.conditions?.at(-1)?.message, 'failure policy is FailurePolicyTypeFailFast and failed pod is found');
  assert.deepEqual([s.desired, s.succeeded, s.failed, s.active, s.phase], [3, 2, 1, 0, 'failed']);
});

test('TestJobFailurePolicyTypeContinue: a failed pod does not stop the job; node2 still gets its pod', () => {
  const job = createJob('job6', 10, { failurePolicy: { type: 'Continue' } });
  const pods = [createPod(job, 'pod1node1', 'node1', 'Succeeded'), createPod(job, 'pod3node3', 'node3', 'Failed')];
  const plan = reconcileBroadcastJob({ job, pods, nodes: nodes('node1', 'node2', 'node3'), now: NOW });
  const s = plan.status!;
  assert.deepEqual([s.desired, s.succeeded, s.failed, s.active, s.phase], [3, 1, 1, 1, 'running']);
  assert.deepEqual(plan.createOn, ['node2']);
});

test('TestJobFailurePolicyTypeFailFast: the same pods under FailFast → failed, nothing created', () => {
  const job = createJob('job7', 10, { failurePolicy: { type: 'FailFast' } });
  const pods = [createPod(job, 'pod1node1', 'node1', 'Succeeded'), createPod(job, 'pod3node3', 'node3', 'Failed')];
  const plan = reconcileBroadcastJob({ job, pods, nodes: nodes('node1', 'node2', 'node3'), now: NOW });
  const s = plan.status!;
  assert.deepEqual([s.desired, s.succeeded, s.failed, s.active, s.phase], [3, 1, 1, 0, 'failed']);
  assert.deepEqual(plan.createOn, []);
});

test('TestJobFailurePolicyPause: a failed pod pauses the job (phase paused, nothing created)', () => {
  const job = createJob('job8', 10, { failurePolicy: { type: 'Pause' } });
  const pods = [createPod(job, 'pod1node1', 'node1', 'Succeeded'), createPod(job, 'pod2node2', 'node2', 'Failed')];
  const plan = reconcileBroadcastJob({ job, pods, nodes: nodes('node1', 'node2', 'node3'), now: NOW });
  const s = plan.status!;
  assert.deepEqual([s.phase, s.desired, s.succeeded, s.failed, s.active], ['paused', 3, 1, 1, 0]);
  assert.deepEqual(plan.createOn, []);
});

test('TestJobSetPaused: spec.paused with 50% parallelism over 10 nodes → phase paused, 3 active, no new pod', () => {
  const job = createJob('job9', '50%', { paused: true });
  const pods = [0, 1, 2].map((i) => createPod(job, `pod${i}node${i}`, `node${i}`, 'Running'));
  const plan = reconcileBroadcastJob({ job, pods, nodes: Array.from({ length: 10 }, (_, i) => createNode(`node-${i}`)), now: NOW });
  const s = plan.status!;
  assert.deepEqual([s.phase, s.desired, s.succeeded, s.failed, s.active], ['paused', 10, 0, 0, 3]);
  assert.deepEqual(plan.createOn, []);
});

test('TestJobFailedAfterActiveDeadline: past activeDeadlineSeconds → Failed, active pods deleted and counted failed', () => {
  const job = createJob('job10', 10, { completionPolicy: { activeDeadlineSeconds: 0 }, failurePolicy: { type: 'Continue' } }, { startTime: '2025-10-10T09:00:00Z' });
  const pods = [createPod(job, 'job1pod1node1', 'node1', 'Running'), createPod(job, 'job1pod2node2', 'node2', 'Running')];
  const plan = reconcileBroadcastJob({ job, pods, nodes: nodes('node1', 'node2'), now: NOW });
  const s = plan.status!;
  assert.equal(s.conditions?.at(-1)?.type, 'Failed');
  assert.equal(s.conditions?.at(-1)?.message, 'Job default/job10 was active longer than specified deadline');
  assert.deepEqual([s.failed, s.active, s.phase], [2, 0, 'failed']);
  assert.deepEqual(plan.deletePods.sort(), ['job1pod1node1', 'job1pod2node2']);
});

test('completion: every desired node has a finished pod → Complete with Kruise\'s message; TTL then deletes the job', () => {
  const job = createJob('done', 10, { completionPolicy: { type: 'Always', ttlSecondsAfterFinished: 30 } });
  const pods = [createPod(job, 'a', 'node1', 'Succeeded'), createPod(job, 'b', 'node2', 'Succeeded')];
  const plan = reconcileBroadcastJob({ job, pods, nodes: nodes('node1', 'node2'), now: NOW });
  assert.equal(plan.status?.phase, 'completed');
  assert.equal(plan.status?.conditions?.at(-1)?.message, 'Job completed, 2 pods succeeded, 0 pods failed');
  assert.equal(plan.requeueAfterMs, 31_000, 'finishJob comes back one second after the TTL');
  const finished = { ...job, status: plan.status };
  assert.deepEqual(reconcileBroadcastJob({ job: finished, pods, nodes: nodes('node1', 'node2'), now: NOW + 10_000 }), { createOn: [], deletePods: [], deleteJob: false, duplicates: [], requeueAfterMs: 20_000 });
  assert.equal(reconcileBroadcastJob({ job: finished, pods, nodes: nodes('node1', 'node2'), now: NOW + 30_000 }).deleteJob, true);
  // Never: never complete, whatever the pods
  const never = createJob('never', 10, { completionPolicy: { type: 'Never' } });
  const p2 = [createPod(never, 'a', 'node1', 'Succeeded')];
  assert.equal(reconcileBroadcastJob({ job: never, pods: p2, nodes: nodes('node1'), now: NOW }).status?.phase, 'running');
  // no eligible node: pending, not complete
  assert.equal(reconcileBroadcastJob({ job: createJob('none', 1), pods: [], nodes: [], now: NOW }).status?.phase, 'running');
});

test('filterPods / isPodFailed: an OnFailure pod restarted more than restartLimit times counts as failed', () => {
  const pod = (restarts: number, policy: string): Pod => ({
    metadata: { name: `p${restarts}${policy}` },
    spec: { restartPolicy: policy, containers: [] },
    status: { phase: 'Running', containerStatuses: [{ name: 'c', ready: false, image: 'x', restartCount: restarts }] },
  });
  const r = filterBroadcastJobPods(1, [pod(1, 'OnFailure'), pod(2, 'OnFailure'), pod(5, 'Never'), { ...pod(0, 'Never'), metadata: { name: 'gone', deletionTimestamp: '2025-01-01T00:00:00Z' } }]);
  assert.deepEqual(r.active.map((p) => p.metadata.name), ['p1OnFailure', 'p5Never']);
  assert.deepEqual(r.failed.map((p) => p.metadata.name), ['p2OnFailure']);
});

test('checkNodeFitness: node name, nodeSelector / affinity, NoSchedule and NoExecute taints vs tolerations, cordon, resources', () => {
  const node = createNode('n1', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }, { key: 'soft', effect: 'PreferNoSchedule' }] });
  node.metadata.labels = { zone: 'a' };
  (node.status as Record<string, unknown>).allocatable = { pods: '10', cpu: '2', memory: '4Gi' };
  assert.equal(nodeFitnessProblem({ nodeName: 'n2' }, node), "node(s) didn't match the requested node name");
  assert.equal(nodeFitnessProblem({ nodeSelector: { zone: 'b' } }, node), "node(s) didn't match Pod's node affinity/selector");
  assert.equal(nodeFitnessProblem({}, node), "node(s) had taint {dedicated: gpu}, that the pod didn't tolerate");
  const tolerated = { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] };
  assert.equal(nodeFitnessProblem(tolerated, node), undefined, 'PreferNoSchedule is not checked');
  assert.equal(nodeFitnessProblem({ tolerations: [{ operator: 'Exists' }] }, node), undefined);
  assert.match(nodeFitnessProblem({ tolerations: [{ key: 'dedicated', value: 'cpu' }] }, node) ?? '', /taint \{dedicated: gpu\}/);
  const cordoned = createNode('n3', { unschedulable: true });
  assert.equal(nodeFitnessProblem({}, cordoned), 'node(s) were unschedulable');
  assert.equal(nodeFitnessProblem({ tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] }, cordoned), undefined);
  const big = { ...tolerated, containers: [{ name: 'c', resources: { requests: { cpu: '3', memory: '1Gi' } } }] };
  assert.equal(nodeFitnessProblem(big, node), 'Insufficient cpu');
  const init = { ...tolerated, containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }], initContainers: [{ name: 'i', resources: { requests: { memory: '8Gi' } } }] };
  assert.equal(nodeFitnessProblem(init, node), 'Insufficient memory', 'the largest init container counts');
});

test('a pod no longer fitting its node is deleted (counted failed); the pods are pinned by node affinity with the job as controller', () => {
  const job = createJob('pin', 10, { failurePolicy: { type: 'Continue' }, template: { spec: { containers: [{ name: 'c', image: 'busybox' }], nodeSelector: { role: 'x' } } } });
  const n1 = createNode('n1');
  n1.metadata.labels = { role: 'x' };
  const n2 = createNode('n2');
  n2.metadata.labels = { role: 'y' };
  const stale = createPod(job, 'stale', 'n2', 'Running');
  stale.spec.nodeSelector = { role: 'x' };
  const plan = reconcileBroadcastJob({ job, pods: [stale], nodes: [n1, n2], now: NOW });
  assert.deepEqual(plan.deletePods, ['stale']);
  assert.deepEqual(plan.createOn, ['n1']);
  assert.deepEqual([plan.status?.failed, plan.status?.active, plan.status?.desired], [1, 1, 1]);
  const pod = broadcastJobPod(job, 'n1', 'apps.kruise.io/v1beta1');
  assert.equal(pod.metadata.generateName, 'pin-');
  assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'apps.kruise.io/v1beta1', kind: 'BroadcastJob', name: 'pin', uid: '12345', controller: true, blockOwnerDeletion: true }]);
  assert.deepEqual(pod.spec.affinity, { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] } } });
  assert.equal(pod.spec.nodeName, undefined, 'bound by the scheduler (--assign-bcj-pods-by-scheduler)');
});

test('broadcastjob_test.go TestValidateBroadcastJobSpec: errors in Kruise\'s order', () => {
  const errors = validateBroadcastJobSpec(
    {
      template: { metadata: { labels: { 'broadcastjob-name': 'bjtest', 'broadcastjob-controller-uid': '1234' } }, spec: { restartPolicy: 'Always', containers: [] } },
      completionPolicy: { type: 'Never', ttlSecondsAfterFinished: 1, activeDeadlineSeconds: 2 },
    },
    'spec',
  );
  assert.deepEqual(errors.slice(0, 4).map((e) => e.field), ['spec.completionPolicy.ttlSecondsAfterFinished', 'spec.completionPolicy.activeDeadlineSeconds', 'spec.template.spec.restartPolicy', 'spec.template.metadata.labels']);
});

test('broadcastjob_test.go TestBroadcastJobCreateUpdateHandler_Handle rows, through the mutating webhook\'s defaults', () => {
  const bcj = (name: string, spec: Record<string, unknown>, apiVersion = 'apps.kruise.io/v1beta1'): KubeObject => ({ apiVersion, kind: 'BroadcastJob', metadata: { name, namespace: 'default' }, spec });
  const template = (restartPolicy: string, labels?: Record<string, string>) => ({ ...(labels ? { metadata: { labels } } : {}), spec: { containers: [{ name: 'test', image: 'nginx:latest' }], restartPolicy } });
  const admit = (o: KubeObject) => validateBroadcastJob(broadcastJobDefaults(o, true));
  assert.deepEqual(admit(bcj('test-bj', { template: template('OnFailure') })), [], 'create valid v1beta1 BroadcastJob');
  assert.deepEqual(admit(bcj('test-bj-invalid', { template: template('Always') })).map((e) => e.field), ['spec.template.spec.restartPolicy']);
  assert.deepEqual(admit(bcj('test-bj-forbidden-labels', { template: template('OnFailure', { 'broadcastjob-name': 'forbidden' }) })).map((e) => e.field), ['spec.template.metadata.labels']);
  assert.deepEqual(admit(bcj('test-bj-invalid-completion', { completionPolicy: { type: 'Never', ttlSecondsAfterFinished: 300 }, template: template('OnFailure') })).map((e) => e.field), ['spec.completionPolicy.ttlSecondsAfterFinished']);
  assert.deepEqual(admit(bcj('test-bj-v1alpha1', { template: template('OnFailure') }, 'apps.kruise.io/v1alpha1')), [], 'create v1alpha1 BroadcastJob');
  // what users hit most: no restartPolicy is defaulted to Always, then refused
  const missing = admit(bcj('x', { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } }));
  assert.deepEqual(missing.map((e) => [e.field, e.value, e.detail]), [['spec.template.spec.restartPolicy', 'Always', 'pod restartPolicy can only be Never or OnFailure']]);
  // validateBroadcastJobName: no dots (stricter than an object name), at most 63
  assert.deepEqual(admit(bcj('a.b', { template: template('Never') })).map((e) => e.field), ['metadata.name']);
  assert.deepEqual(admit(bcj('a'.repeat(64), { template: template('Never') })).map((e) => e.detail), ['must be no more than 63 characters']);
  // no containers, no image
  assert.deepEqual(admit(bcj('y', { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c' }] } } })).map((e) => e.field), ['spec.template.spec.containers[0].image']);
});

test('SetDefaultsBroadcastJob: Always, MaxInt32 parallelism, FailFast; pod defaults only when the template is new or changed', () => {
  const d = broadcastJobDefaults({ metadata: { name: 'x' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } } } }, true);
  const spec = d.spec as BroadcastJobSpec;
  assert.deepEqual([spec.completionPolicy?.type, spec.parallelism, spec.failurePolicy?.type], ['Always', 2147483647, 'FailFast']);
  assert.equal(spec.template?.spec.restartPolicy, 'Always');
  // Kruise's SetDefaultPodSpec (apis/apps/defaults/pod.go): app containers Always "for in-place update"
  assert.equal((spec.template?.spec.containers[0] as { imagePullPolicy?: string }).imagePullPolicy, 'Always');
  const kept = broadcastJobDefaults({ metadata: { name: 'x' }, spec: { parallelism: '50%', template: { spec: { containers: [] } } } }, false);
  assert.equal((kept.spec as BroadcastJobSpec).parallelism, '50%');
  assert.equal((kept.spec as BroadcastJobSpec).template?.spec.restartPolicy, undefined);
});

test('validateBroadcastJobName / validateAdvancedCronJobName (no table upstream): alphanumerics and "-" only, at most 63, each webhook naming its kind', () => {
  const rule = (kind: string) => `${kind} name must consist of alphanumeric characters or '-' (e.g. 'example-com', regex used for validation is '^[a-zA-Z0-9\\-]+$')`;
  assert.deepEqual(broadcastJobNameProblems('Warm-Up-2'), []);
  assert.deepEqual(broadcastJobNameProblems('warm.up'), [rule('BroadcastJob')]);
  assert.deepEqual(broadcastJobNameProblems(`a.${'b'.repeat(63)}`), [rule('BroadcastJob'), 'must be no more than 63 characters']);
  const acjNameErrors = (name: string) => validateAdvancedCronJob({ apiVersion: 'apps.kruise.io/v1beta1', kind: 'AdvancedCronJob', metadata: { name }, spec: {} }).filter((e) => e.field === 'metadata.name').map((e) => e.detail);
  assert.deepEqual(acjNameErrors('nightly.report'), [rule('AdvancedCronJob')]);
  assert.deepEqual(acjNameErrors('n'.repeat(64)), ['must be no more than 63 characters']);
});
