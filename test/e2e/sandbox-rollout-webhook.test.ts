// Kruise Rollout's validating webhook in the sandbox (src/sandbox/controllers/rollout-validating-webhook.ts over
// src/kruise/rollout/rollout-validation.ts): each rule refuses through real `kubectl apply`, with upstream's
// words (pkg/webhook/rollout/validating/ at v0.6.2, v0.4.4 and master), on the real CRDs; a manifest the
// webhook accepts still goes through. One sandbox per release.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { kubectl } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';
import { haveCrds, KRUISE_CRDS, ROLLOUT_CRDS } from './rollout-kruise-helpers';

const DENIED = 'admission webhook "vrollout.kb.io" denied the request: ';

type Obj = Record<string, any>;

function beta(name: string, workload: Obj, strategy: Obj, annotations: Record<string, string> = {}): Obj {
  return { apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name, namespace: 'default', annotations: { 'kruise-sandbox/controller': 'none', ...annotations } }, spec: { workloadRef: workload, strategy } };
}
const CLONESET = (name: string): Obj => ({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name });
const canary = (steps: Obj[], extra: Obj = {}): Obj => ({ canary: { steps, ...extra } });

async function apply(sb: Sandbox, obj: Obj): Promise<{ code: number; stderr: string }> {
  return kubectl(['apply', '-f', '-'], sb.kubeconfig, { input: stringify(obj) });
}

async function refused(sb: Sandbox, obj: Obj, message: string): Promise<void> {
  const r = await apply(sb, obj);
  assert.equal(r.code, 1, `expected a refusal: ${r.stderr}`);
  assert.ok(r.stderr.includes(`${DENIED}${message}`), `stderr: ${r.stderr}\nexpected: ${DENIED}${message}`);
  // Nothing stored.
  const get = await sb.api('GET', `/apis/${obj.apiVersion}/namespaces/default/rollouts/${obj.metadata.name}`);
  if (get.status === 200) assert.notDeepEqual(get.body.spec, obj.spec, 'the refused spec was stored');
}

describe('Kruise Rollout v0.6.2 webhook (v1beta1 and v1alpha1 on the real CRDs)', { skip: !haveCrds('v0.6.2') && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ readyDelay: '50ms', extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS('v0.6.2')] });
  });
  after(async () => {
    await sb?.stop();
  });

  it('steps: empty, replicas 0 / "0%" / "120%" / "abc", decreasing replicas, canary traffic "0%": refused with upstream\'s words', async () => {
    const w = CLONESET('web');
    await refused(sb, beta('r-empty', w, canary([])), 'Spec.Strategy.Canary.Steps: Invalid value: []v1beta1.CanaryStep{}: The number of Canary.Steps cannot be empty');
    const range = 'replicas must be positive number, or a percentage with "0%" < canaryReplicas <= "100%"';
    await refused(sb, beta('r-zero', w, canary([{ replicas: 0 }])), `Spec.Strategy.Canary.Steps[0].Replicas: Invalid value: 0: ${range}`);
    await refused(sb, beta('r-zero-pct', w, canary([{ replicas: '0%' }])), `Spec.Strategy.Canary.Steps[0].Replicas: Invalid value: 0%: ${range}`);
    await refused(sb, beta('r-120', w, canary([{ replicas: '120%' }])), `Spec.Strategy.Canary.Steps[0].Replicas: Invalid value: 120%: ${range}`);
    await refused(sb, beta('r-abc', w, canary([{ replicas: 'abc' }])), `Spec.Strategy.Canary.Steps[0].Replicas: Invalid value: abc: ${range}`);
    await refused(sb, beta('r-down', w, canary([{ replicas: '50%' }, { replicas: '20%' }])), 'Spec.Strategy.Canary.Steps.CanaryReplicas: Invalid value: []v1beta1.CanaryStep{...}: Steps.CanaryReplicas must be a non decreasing sequence');
    const routed = { trafficRoutings: [{ service: 'web', ingress: { name: 'web' } }] };
    await refused(sb, beta('r-traffic', w, canary([{ replicas: '20%', traffic: '0%' }, { replicas: '100%' }], routed)), 'Spec.Strategy.Canary.Steps[0].steps: Invalid value: []v1beta1.CanaryStep{...}: traffic must be percentage with "0%" < traffic <= "100%" in canary strategy');
    // v0.6's partition-style limit: a step with traffic may release at most 50% of a CloneSet.
    await refused(sb, beta('r-limit', w, canary([{ replicas: '60%', traffic: '30%' }, { replicas: '100%' }], routed)), 'Spec.Strategy.Canary.Steps[0].steps: Invalid value: []v1beta1.CanaryStep{...}: For partition style rollout: step[x].replicas must not greater than partition-percent-limit if traffic specified');
  });

  it('workloads: an unsupported kind, blue-green on a StatefulSet, a second Rollout of the same workload', async () => {
    await refused(sb, beta('r-job', { apiVersion: 'batch/v1', kind: 'Job', name: 'j' }, canary([{ replicas: 1 }])), 'Spec.ObjectRef.WorkloadRef: Invalid value: v1beta1.ObjectRef{APIVersion:"batch/v1", Kind:"Job", Name:"j"}: WorkloadRef kind is not supported');
    await refused(sb, beta('r-bg', { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' }, { blueGreen: { steps: [{ replicas: '50%' }, { replicas: '100%' }] } }), 'Spec.ObjectRef.WorkloadRef: Invalid value: v1beta1.ObjectRef{APIVersion:"apps/v1", Kind:"StatefulSet", Name:"db"}: WorkloadRef kind is not supported for bluegreen style');
    const first = await apply(sb, beta('first', CLONESET('shared'), canary([{ replicas: 1 }, { replicas: '100%' }])));
    assert.equal(first.code, 0, first.stderr);
    await refused(sb, beta('second', CLONESET('shared'), canary([{ replicas: 1 }])), 'Conflict Checker: Invalid value: "second": This rollout conflict with Rollout(default/first), one workload only have less than one Rollout');
  });

  it('mid-release (Progressing): the rolling style and the number of steps are immutable; Terminating: the traffic routings', async () => {
    const routed = { trafficRoutings: [{ service: 'live', ingress: { name: 'live' } }] };
    const live = beta('live', CLONESET('live'), canary([{ replicas: '20%', traffic: '10%' }, { replicas: '100%' }], routed));
    const created = await apply(sb, live);
    assert.equal(created.code, 0, created.stderr);
    // A status as the controller writes it (the v1beta1 schema's required fields included).
    const status = (phase: string) =>
      sb.api(
        'PATCH',
        '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts/live/status',
        {
          status: {
            observedGeneration: 1,
            phase,
            currentStepIndex: 1,
            currentStepState: 'StepUpgrade',
            canaryStatus: { observedWorkloadGeneration: 1, stableRevision: 'live-6c4f9b7d8', canaryRevision: 'live-7b5d6c9f4', podTemplateHash: '7b5d6c9f4', canaryReplicas: 1, canaryReadyReplicas: 0, currentStepIndex: 1, nextStepIndex: 2, currentStepState: 'StepUpgrade', finalisingStep: '', lastUpdateTime: new Date().toISOString() },
            conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', message: '', lastUpdateTime: '2026-11-25T01:00:00Z', lastTransitionTime: '2026-11-25T01:00:00Z' }],
          },
        },
        { contentType: 'application/merge-patch+json' },
      );
    const progressing = await status('Progressing');
    assert.equal(progressing.status, 200, progressing.text);
    await refused(sb, { ...live, spec: { ...live.spec, strategy: canary(live.spec.strategy.canary.steps, { ...routed, enableExtraWorkloadForCanary: true }) } }, 'Spec.Strategy.Canary|BlueGreen: Forbidden: Rollout style and enableExtraWorkloadForCanary are immutable');
    await refused(sb, { ...live, spec: { ...live.spec, strategy: canary([{ replicas: '20%', traffic: '10%' }, { replicas: '50%' }, { replicas: '100%' }], routed) } }, 'Spec.Strategy.Canary|BlueGreen: Forbidden: Amount of Rollout steps are immutable');
    // A pause's length may change mid-release (TestRolloutValidateUpdate "Rollout is progressing, and spec changed").
    const longer = await apply(sb, { ...live, spec: { ...live.spec, strategy: canary([{ replicas: '20%', traffic: '10%', pause: { duration: 60 } }, { replicas: '100%' }], routed) } });
    assert.equal(longer.code, 0, longer.stderr);
    assert.equal((await status('Terminating')).status, 200);
    await refused(sb, { ...live, spec: { ...live.spec, strategy: canary([{ replicas: '20%', traffic: '10%', pause: { duration: 60 } }, { replicas: '100%' }], { trafficRoutings: [{ service: 'other', ingress: { name: 'live' } }] }) } }, "Spec.Strategy.Canary|BlueGreen.TrafficRoutings: Forbidden: Rollout 'Strategy.Canary|BlueGreen.TrafficRoutings' field is immutable");
  });

  it('v1alpha1 on v0.6.2: weights past 100, an unknown rolling style', async () => {
    const alpha = (name: string, steps: Obj[], annotations: Record<string, string> = {}): Obj => ({
      apiVersion: 'rollouts.kruise.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name, namespace: 'default', annotations: { 'kruise-sandbox/controller': 'none', ...annotations } },
      spec: { objectRef: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name } }, strategy: { canary: { steps } } },
    });
    await refused(sb, alpha('a-weight', [{ weight: 10 }, { weight: 120 }]), 'Spec.Strategy.Canary.Steps[1].Weight: Invalid value: 120: weight must be positive number, and less than or equal to replicasLimitWithTraffic (defaults to 30)');
    await refused(sb, alpha('a-style', [{ weight: 10 }, { weight: 50 }], { 'rollouts.kruise.io/rolling-style': 'Other' }), `RollingStyle: Invalid value: "Other": Rolling style must be 'Canary', 'Partition' or empty`);
    // An unknown style is judged as partition (GetContextFromv1alpha1Rollout): a weight past the 50% limit is refused
    // too, both in one aggregate.
    await refused(sb, alpha('a-style2', [{ weight: 10 }, { weight: 100 }], { 'rollouts.kruise.io/rolling-style': 'Other' }), `[RollingStyle: Invalid value: "Other": Rolling style must be 'Canary', 'Partition' or empty, Spec.Strategy.Canary.Steps[1].steps: Invalid value: []v1alpha1.CanaryStep{...}: For patition style rollout: step[x].weight must not greater than replicasLimitWithTraffic if replicas is not specified]`);
    const fine = await apply(sb, alpha('a-fine', [{ weight: 10 }, { weight: 100 }]));
    assert.equal(fine.code, 0, fine.stderr);
  });
});

describe('Kruise Rollout v0.4.4 webhook (v1alpha1 only)', { skip: !haveCrds('v0.4.4') && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ readyDelay: '50ms', extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS('v0.4.4')] });
  });
  after(async () => {
    await sb?.stop();
  });

  it('only a Deployment takes the canary rolling style; decreasing weights with traffic are refused; weights past 100 are not (no range in v0.4.4)', async () => {
    const alpha = (name: string, workload: Obj, steps: Obj[], annotations: Record<string, string> = {}, extra: Obj = {}): Obj => ({
      apiVersion: 'rollouts.kruise.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name, namespace: 'default', annotations: { 'kruise-sandbox/controller': 'none', ...annotations } },
      spec: { objectRef: { workloadRef: workload }, strategy: { canary: { steps, ...extra } } },
    });
    await refused(sb, alpha('c-style', CLONESET('c-style'), [{ replicas: 1 }], { 'rollouts.kruise.io/rolling-style': 'Canary' }), 'RollingStyle: Invalid value: "Canary": Only Deployment support canary rolling style');
    const routed = { trafficRoutings: [{ service: 'web', ingress: { name: 'web' } }] };
    await refused(sb, alpha('c-down', CLONESET('c-down'), [{ weight: 30 }, { weight: 10 }], {}, routed), 'Spec.Strategy.Canary.Steps.Weight: Invalid value: []v1alpha1.CanaryStep{...}: Steps.Weight must be a non decreasing sequence');
    const r = await apply(sb, alpha('c-past', CLONESET('c-past'), [{ weight: 10 }, { weight: 200 }]));
    assert.equal(r.code, 0, r.stderr);
  });
});
