// Kruise Rollout's validating webhook (src/kruise/rollout/rollout-validation.ts): the rows of openkruise/rollouts'
// own tables, per release, with their names:
// - v0.6.2 pkg/webhook/rollout/validating/rollout_create_update_handler_test.go TestRolloutValidateCreate,
//   TestRolloutV1alpha1ValidateCreate, TestRolloutValidateUpdate;
// - master (9dd6279d) validate_v1alpha1_rollout_test.go TestValidateV1alpha1Rollout, TestValidateV1alpha1RolloutUpdate,
//   TestValidateV1alpha1RolloutSpecCanarySteps, TestValidateV1alpha1RolloutConflict;
// - v0.4.4 rollout_create_update_handler_test.go TestRolloutValidateCreate.
// Upstream's tables change the package-level PartitionReplicasLimitWithTraffic per row (and restore 30 after each):
// the rows pass that limit explicitly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rolloutFieldErrorText, rolloutWebhookDenial, validateRollout, validateRolloutUpdate, type RolloutWebhookRelease } from '../../../../src/kruise/rollout/rollout-validation';
import type { KubeObject } from '../../../../src/kruise/types';

type Obj = Record<string, any>;

/** The v1beta1 `rollout` of v0.6.2's test file. */
function v1beta1(): Obj {
  return {
    apiVersion: 'rollouts.kruise.io/v1beta1',
    kind: 'Rollout',
    metadata: { name: 'rollout-demo', namespace: 'namespace-unit-test', annotations: {} },
    spec: {
      workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'deployment-demo' },
      strategy: {
        canary: {
          steps: [
            { traffic: '10%', replicas: 1, pause: {} },
            { traffic: '10%', replicas: 3, pause: { duration: 86400 } },
            { traffic: '30%', replicas: 10, pause: { duration: 604800 } },
            { traffic: '100%', replicas: 20 },
          ],
          trafficRoutings: [{ service: 'service-demo', ingress: { classType: 'nginx', name: 'ingress-nginx-demo' } }],
        },
      },
    },
    status: { canaryStatus: { currentStepState: 'Completed' } },
  };
}

/** The v1alpha1 `rolloutV1alpha1` of v0.6.2's test file. */
function v1alpha1(): Obj {
  return {
    apiVersion: 'rollouts.kruise.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'rollout-demo', namespace: 'namespace-unit-test', annotations: {} },
    spec: {
      objectRef: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'deployment-demo' } },
      strategy: {
        canary: {
          steps: [{ weight: 10, pause: {} }, { weight: 30, pause: { duration: 86400 } }, { weight: 100 }],
          trafficRoutings: [{ service: 'service-demo', ingress: { classType: 'nginx', name: 'ingress-nginx-demo' } }],
        },
      },
    },
  };
}

/** The v1alpha1 `rollout` of v0.4.4's test file (weights 101 and 200 included: v0.4.4 has no range for them). */
function v044(): Obj {
  const r = v1alpha1();
  r.spec.strategy.canary.steps = [
    { weight: 10, replicas: 1, pause: {} },
    { weight: 10, replicas: 3, pause: { duration: 86400 } },
    { weight: 30, pause: { duration: 604800 } },
    { weight: 100 },
    { weight: 101 },
    { weight: 200 },
  ];
  return r;
}

const ok = (o: Obj, release: RolloutWebhookRelease = 'v0.6', limit = 30, siblings: Obj[] = []) => validateRollout(o as KubeObject, siblings as KubeObject[], release, { partitionPercentLimit: limit });
const steps = (o: Obj) => (o.spec.strategy.canary ?? o.spec.strategy.blueGreen).steps as Obj[];

test('v0.6.2 TestRolloutValidateCreate (v1beta1): every row', () => {
  type Row = [name: string, succeed: boolean, edit: (o: Obj) => Obj[] | void, limit?: number];
  const rows: Row[] = [
    ['Normal case', true, () => undefined],
    ['Canary is nil', false, (o) => void delete o.spec.strategy.canary],
    ['Service name is empty', false, (o) => void (o.spec.strategy.canary.trafficRoutings[0].service = '')],
    ['Nginx ingress name is empty', false, (o) => void (o.spec.strategy.canary.trafficRoutings[0].ingress.name = '')],
    ['Steps is empty', false, (o) => void (o.spec.strategy.canary.steps = [])],
    ['WorkloadRef is not Deployment kind', true, (o) => void (o.spec.workloadRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'whatever' })],
    ['Steps.Traffic is a decreasing sequence', false, (o) => void (steps(o)[2]!.traffic = '%5')],
    ["Steps.Replicas is illegal value, '50'", false, (o) => void (steps(o)[1]!.replicas = '50')],
    ["Steps.Replicas is illegal value, '101%'", false, (o) => void (steps(o)[1]!.replicas = '101%')],
    ["Steps.Replicas is illegal value, '0%'", false, (o) => void (steps(o)[1]!.replicas = '0%')],
    ['Steps.Traffic is illegal value, 0', false, (o) => void (steps(o)[1]!.traffic = '0%')],
    ['Steps.Traffic is illegal value, 101', false, (o) => void (steps(o)[1]!.traffic = '101%')],
    ['Canary rolling style', true, (o) => void (o.spec.strategy.canary.enableExtraWorkloadForCanary = true)],
    ['Partition rolling style', true, () => undefined],
    ['matched rolling style', true, (o) => void Object.assign(o.spec, { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'deployment-demo' } }, (o.spec.strategy.canary.enableExtraWorkloadForCanary = true) && {})],
    ['test with replicasLimitWithTraffic - 1', true, (o) => void (steps(o)[3]!.replicas = '30%')],
    ['test with replicasLimitWithTraffic - 2', false, (o) => void (steps(o)[3]!.replicas = '31%')],
    ['test with replicasLimitWithTraffic - 2 - canary style', true, (o) => void ((o.spec.strategy.canary.enableExtraWorkloadForCanary = true), (steps(o)[3]!.replicas = '31%'))],
    ['test with replicasLimitWithTraffic - 2 - cloneset', false, (o) => void ((o.spec.workloadRef = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'whatever' }), (steps(o)[3]!.replicas = '31%'))],
    ['test with replicasLimitWithTraffic - 3', true, (o) => void (steps(o)[3]!.replicas = '100%'), 100],
    ['test with replicasLimitWithTraffic - 4', false, (o) => void (steps(o)[3]!.replicas = '51%'), 50],
  ];
  for (const [name, succeed, edit, limit] of rows) {
    const o = v1beta1();
    edit(o);
    assert.equal(ok(o, 'v0.6', limit ?? 30).length === 0, succeed, `${name}: ${ok(o, 'v0.6', limit ?? 30).map(rolloutFieldErrorText).join('; ')}`);
  }
  // "Without conflict" / "With conflict": another Rollout of the same workload in the namespace.
  const other = (name: string, edit: (o: Obj) => void = () => undefined): Obj => {
    const o = v1beta1();
    o.metadata.name = name;
    edit(o);
    return o;
  };
  const siblings = [other('object-1', (o) => (o.spec.workloadRef.name = 'another')), other('object-2', (o) => (o.spec.workloadRef.apiVersion = 'another')), other('object-3', (o) => (o.spec.workloadRef.kind = 'another'))];
  assert.deepEqual(ok(v1beta1(), 'v0.6', 30, siblings), []);
  const conflict = ok(v1beta1(), 'v0.6', 30, [...siblings, other('object-4')]);
  assert.equal(rolloutFieldErrorText(conflict[0]!), 'Conflict Checker: Invalid value: "rollout-demo": This rollout conflict with Rollout(namespace-unit-test/object-4), one workload only have less than one Rollout');
});

test('v0.6.2 TestRolloutV1alpha1ValidateCreate (v1alpha1): every row, the partition limit with weights', () => {
  type Row = [name: string, succeed: boolean, edit: (o: Obj) => void, limit?: number];
  const partition = (o: Obj) => (o.metadata.annotations['rollouts.kruise.io/rolling-style'] = 'Partition');
  const last = (o: Obj) => steps(o)[steps(o).length - 1]!;
  const rows: Row[] = [
    ['Canary style', true, () => undefined],
    ['Partition style without replicas - 1', false, partition],
    ['Partition style without replicas - 2', true, partition, 100],
    ['Partition style without replicas - 3', false, (o) => ((last(o).weight = 32), partition(o)), 31],
    ['Partition style without replicas- 3 - canary style', true, (o) => void (last(o).weight = 32), 31],
    ['Partition style without replicas - 3 - cloneset', false, (o) => ((o.spec.objectRef.workloadRef = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'whatever' }), (last(o).weight = 32), partition(o)), 31],
    ['Partition style with replicas - 1', false, (o) => ((last(o).weight = 50), (last(o).replicas = '32%'), partition(o)), 31],
    ['Partition style with replicas - 2', true, (o) => ((last(o).weight = 50), (last(o).replicas = '31%'), partition(o)), 31],
    ['Partition style with replicas - 3', true, (o) => (delete last(o).weight, (last(o).replicas = '50%'), partition(o))],
  ];
  for (const [name, succeed, edit, limit] of rows) {
    const o = v1alpha1();
    edit(o);
    const errs = ok(o, 'v0.6', limit ?? 30);
    assert.equal(errs.length === 0, succeed, `${name}: ${errs.map(rolloutFieldErrorText).join('; ')}`);
  }
});

test('v0.6.2 TestRolloutValidateUpdate (v1beta1): a release in flight (Progressing, Terminating) keeps its rolling style and traffic routings; other phases and status changes pass', () => {
  type Row = [name: string, succeed: boolean, phase: string | undefined, edit: (o: Obj) => void];
  const rows: Row[] = [
    ['Normal case', true, undefined, (o) => void (steps(o)[0]!.traffic = '5%')],
    ['Rollout is progressing, but spec not changed', true, 'Progressing', () => undefined],
    ['Rollout is progressing, and spec changed', true, 'Progressing', (o) => void (steps(o)[0]!.traffic = '5%')],
    ['Rollout is progressing, and rolling style changed', false, 'Progressing', (o) => void (o.spec.strategy.canary.enableExtraWorkloadForCanary = true)],
    ['Rollout is terminating, and spec changed', false, 'Terminating', (o) => void (o.spec.strategy.canary.trafficRoutings[0].ingress.classType = 'alb')],
    ['Rollout is initial, and spec changed', true, 'Initial', (o) => void (steps(o)[0]!.traffic = '5%')],
    ['Rollout is healthy, and spec changed', true, 'Healthy', (o) => void (steps(o)[0]!.traffic = '5%')],
  ];
  for (const [name, succeed, phase, edit] of rows) {
    const next = v1beta1();
    edit(next);
    const errs = validateRolloutUpdate(v1beta1() as KubeObject, next as KubeObject, phase, [], 'v0.6', { partitionPercentLimit: 30 });
    assert.equal(errs.length === 0, succeed, `${name}: ${errs.map(rolloutFieldErrorText).join('; ')}`);
  }
  // Mid-release, the number of steps (rollout_create_update_handler.go: "Amount of Rollout steps are immutable").
  const fewer = v1beta1();
  fewer.spec.strategy.canary.steps.pop();
  assert.equal(rolloutFieldErrorText(validateRolloutUpdate(v1beta1() as KubeObject, fewer as KubeObject, 'Progressing', [], 'v0.6')[0]!), 'Spec.Strategy.Canary|BlueGreen: Forbidden: Amount of Rollout steps are immutable');
});

test('master TestValidateV1alpha1Rollout / TestValidateV1alpha1RolloutUpdate / TestValidateV1alpha1RolloutSpecCanarySteps / TestValidateV1alpha1RolloutConflict: the messages asserted upstream', () => {
  const msg = (o: Obj) => ok(o, 'master', 50).map(rolloutFieldErrorText).join('; ');
  const noRef = v1alpha1();
  delete noRef.spec.objectRef.workloadRef;
  assert.match(msg(noRef), /WorkloadRef is required/);
  const style = v1alpha1();
  style.metadata.annotations['rollouts.kruise.io/rolling-style'] = 'invalid';
  assert.match(msg(style), /Rolling style must be 'Canary', 'Partition' or empty/);
  const empty = v1alpha1();
  empty.spec.strategy.canary.steps = [];
  assert.match(msg(empty), /The number of Canary.Steps cannot be empty/);
  const noReplicas = v1alpha1();
  noReplicas.spec.strategy.canary.steps = [{ pause: {} }];
  assert.match(msg(noReplicas), /weight and replicas cannot be empty at the same time/);
  // Steps: non-decreasing replicas pass, decreasing ones name CanaryReplicas, 120% is out of range.
  const withSteps = (s: Obj[]) => {
    const o = v1alpha1();
    o.spec.strategy.canary.steps = s;
    delete o.spec.strategy.canary.trafficRoutings;
    return ok(o, 'master', 50);
  };
  assert.deepEqual(withSteps([{ replicas: 2 }, { replicas: '50%' }]), []);
  assert.equal(withSteps([{ replicas: 5 }, { replicas: 3 }])[0]!.field, 'Spec.Strategy.Canary.Steps.CanaryReplicas');
  assert.equal(rolloutFieldErrorText(withSteps([{ replicas: '120%' }])[0]!), 'Spec.Strategy.Canary.Steps[0].Replicas: Invalid value: 120%: replicas must be positive number, or a percentage with "0%" < canaryReplicas <= "100%"');
  // Update: the ObjectRef, the traffic routings and the rolling-style annotation are immutable mid-release.
  const base = v1alpha1();
  const moved = v1alpha1();
  moved.spec.objectRef.workloadRef.name = 'other';
  assert.deepEqual(validateRolloutUpdate(base as KubeObject, moved as KubeObject, 'Initial', [], 'master'), [], 'allow update in initial phase');
  assert.match(rolloutFieldErrorText(validateRolloutUpdate(base as KubeObject, moved as KubeObject, 'Progressing', [], 'master')[0]!), /'ObjectRef' field is immutable/);
  const routed = v1alpha1();
  routed.spec.strategy.canary.trafficRoutings[0].service = 'another-service';
  assert.match(rolloutFieldErrorText(validateRolloutUpdate(base as KubeObject, routed as KubeObject, 'Terminating', [], 'master')[0]!), /'Strategy.Canary.TrafficRoutings' field is immutable/);
  const restyled = v1alpha1();
  restyled.metadata.annotations['rollouts.kruise.io/rolling-style'] = 'partition';
  assert.match(rolloutFieldErrorText(validateRolloutUpdate(base as KubeObject, restyled as KubeObject, 'Progressing', [], 'master', { partitionPercentLimit: 100 })[0]!), /'Rolling-Style' annotation is immutable/);
  // Conflict.
  const existing = v1alpha1();
  existing.metadata.name = 'existing-rollout';
  assert.match(msg({ ...v1alpha1(), metadata: { ...v1alpha1().metadata, name: 'new-rollout' } }) + rolloutFieldErrorText(ok(v1alpha1(), 'master', 50, [existing])[0]!), /conflict with Rollout/);
});

test('v0.4.4 TestRolloutValidateCreate (v1alpha1 only): every row; no weight range and no partition limit in that release', () => {
  type Row = [name: string, succeed: boolean, edit: (o: Obj) => void];
  const rows: Row[] = [
    ['Normal case', true, () => undefined],
    ['WorkloadRef is nil', false, (o) => void delete o.spec.objectRef.workloadRef],
    ['Canary is nil', false, (o) => void delete o.spec.strategy.canary],
    ['Service name is empty', false, (o) => void (o.spec.strategy.canary.trafficRoutings[0].service = '')],
    ['Nginx ingress name is empty', false, (o) => void (o.spec.strategy.canary.trafficRoutings[0].ingress.name = '')],
    ['Steps is empty', false, (o) => void (o.spec.strategy.canary.steps = [])],
    ['WorkloadRef is not Deployment kind', true, (o) => void (o.spec.objectRef.workloadRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'whatever' })],
    ['Steps.Weight is a decreasing sequence', false, (o) => void (steps(o)[2]!.weight = 5)],
    ['Steps.Replicas is a decreasing sequence', false, (o) => void (steps(o)[1]!.replicas = '50%')],
    ["Steps.Replicas is illegal value, '50'", false, (o) => void (steps(o)[1]!.replicas = '50')],
    ["Steps.Replicas is illegal value, '101%'", false, (o) => void (steps(o)[1]!.replicas = '101%')],
    ["Steps.Replicas is illegal value, '0%'", false, (o) => void (steps(o)[1]!.replicas = '0%')],
    ['Steps.Weight is illegal value, 0', false, (o) => void (steps(o)[1]!.weight = 0)],
    ['Steps.Weight is illegal value, 101', false, (o) => void (steps(o)[1]!.weight = 101)],
    ['Canary rolling style', true, (o) => void (o.metadata.annotations = { 'rollouts.kruise.io/rolling-style': 'Canary' })],
    ['Partition rolling style', true, (o) => void (o.metadata.annotations = { 'rollouts.kruise.io/rolling-style': 'Partition' })],
    ['Wrong rolling style', false, (o) => void (o.metadata.annotations = { 'rollouts.kruise.io/rolling-style': 'Other' })],
    ['Miss matched rolling style', false, (o) => void ((o.metadata.annotations = { 'rollouts.kruise.io/rolling-style': 'Canary' }), Object.assign(o.spec.objectRef.workloadRef, { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' }))],
  ];
  for (const [name, succeed, edit] of rows) {
    const o = v044();
    edit(o);
    const errs = ok(o, 'v0.4');
    assert.equal(errs.length === 0, succeed, `${name}: ${errs.map(rolloutFieldErrorText).join('; ')}`);
  }
  // The same "Normal case" is refused by v0.6's range for weights (101, 200).
  assert.match(ok(v044(), 'v0.6', 100).map(rolloutFieldErrorText).join(), /weight must be positive number/);
});

test('the known workloads per release (knownWorkloadGVKs): a native DaemonSet only on master; blue-green only on a Deployment or CloneSet', () => {
  const ds = v1beta1();
  ds.spec.workloadRef = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent' };
  delete ds.spec.strategy.canary.trafficRoutings;
  for (const s of steps(ds)) delete s.traffic;
  assert.equal(rolloutFieldErrorText(ok(ds, 'v0.6')[0]!), 'Spec.ObjectRef.WorkloadRef: Invalid value: v1beta1.ObjectRef{APIVersion:"apps/v1", Kind:"DaemonSet", Name:"agent"}: WorkloadRef kind is not supported');
  assert.deepEqual(ok(ds, 'master'), []);
  const bg = v1beta1();
  bg.spec.workloadRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' };
  bg.spec.strategy = { blueGreen: { steps: [{ replicas: '50%', traffic: '0%' }, { replicas: '100%', traffic: '100%' }] } };
  assert.match(ok(bg, 'v0.6').map(rolloutFieldErrorText).join(), /WorkloadRef kind is not supported for bluegreen style/);
  // "0%" traffic: allowed in blue-green, not in canary.
  bg.spec.workloadRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' };
  assert.deepEqual(ok(bg, 'v0.6'), []);
});

test('the denial as kube-apiserver words it for the webhook: one error as is, several in brackets', () => {
  const two = v1beta1();
  two.spec.strategy.canary.trafficRoutings[0] = { service: '', ingress: { name: '' } };
  const errs = ok(two, 'v0.6', 50);
  assert.equal(
    rolloutWebhookDenial(errs),
    'admission webhook "vrollout.kb.io" denied the request: [Spec.Strategy.Canary.TrafficRouting.Service: Invalid value: "": TrafficRouting.Service cannot be empty, Spec.Strategy.Canary.TrafficRouting.Ingress: Invalid value: v1beta1.IngressTrafficRouting{...}: TrafficRouting.Ingress.Ingress cannot be empty]',
  );
  const empty = v1beta1();
  empty.spec.strategy.canary.steps = [];
  assert.equal(rolloutWebhookDenial(ok(empty)), 'admission webhook "vrollout.kb.io" denied the request: Spec.Strategy.Canary.Steps: Invalid value: []v1beta1.CanaryStep{}: The number of Canary.Steps cannot be empty');
});
