// Kruise Rollout blue-green (v1beta1 spec.strategy.blueGreen, openkruise/rollouts v0.6.2
// rollout_bluegreen.go + batchrelease control/bluegreenstyle) on a CloneSet in the sandbox, on the
// real CRDs (kruise v1.9.0 + kruise-rollout v0.6.2 validate every write): the new pods come up beside
// the old ones (maxSurge, minReadySeconds MaxReadySeconds so no old pod is removed), the status lives in
// status.blueGreenStatus, and at the end the saved rolling settings come back and the old pods go.
// Driven only through real kubectl and the API.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl, REPO_ROOT } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const SHARED = resolve(REPO_ROOT, '..', 'shared');
const KRUISE_CRDS = join(SHARED, 'kruise-crds', 'v1.9.0');
const ROLLOUT_CRDS = join(SHARED, 'kruise-rollout-crds', 'v0.6.2');
const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'rollout-kruise');
const CLONESET = join(FIXTURES, 'sandbox-cloneset-blue-4.yaml');
const ROLLOUT = join(FIXTURES, 'sandbox-rollout-blue-bluegreen.yaml');
const haveCrds = existsSync(KRUISE_CRDS) && existsSync(ROLLOUT_CRDS);
const RO_PATH = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts/rollout-blue';
const CS_PATH = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/blue';
const MAX_READY_SECONDS = 2 ** 31 - 2;

interface Cond {
  type: string;
  status: string;
  reason: string;
}
interface Pod {
  metadata: { name: string; labels: Record<string, string>; deletionTimestamp?: string };
  spec: { containers: Array<{ image: string }> };
}

describe('sandbox Kruise Rollout: blue-green on a CloneSet of 4 (v0.6.2 CRDs)', { skip: !haveCrds && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  const rollout = async () => (await sb.api('GET', RO_PATH)).body;
  const cloneSet = async () => (await sb.api('GET', CS_PATH)).body;
  const cond = (ro: { status?: { conditions?: Cond[] } }, type: string) => ro.status?.conditions?.find((c) => c.type === type);
  /** Live pods by image. */
  const images = async (): Promise<Record<string, number>> => {
    const pods = (await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dblue')).body.items as Pod[];
    const out: Record<string, number> = {};
    for (const p of pods) if (!p.metadata.deletionTimestamp) out[p.spec.containers[0]!.image] = (out[p.spec.containers[0]!.image] ?? 0) + 1;
    return out;
  };
  const waitStep = (what: string, index: number, state: string, timeoutMs = 30_000) =>
    waitUntil(what, async () => {
      const ro = await rollout();
      return ro.status?.currentStepIndex === index && ro.status?.currentStepState === state && ro.status.blueGreenStatus?.currentStepState === state ? ro : undefined;
    }, timeoutMs);

  before(async () => {
    sb = await startSandbox({ readyDelay: '50ms', extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS] });
    for (const f of [CLONESET, ROLLOUT]) {
      const res = await kubectl(['apply', '-f', f], sb.kubeconfig);
      assert.equal(res.code, 0, res.stderr);
    }
    await waitUntil('4 ready', async () => (await cloneSet()).status?.readyReplicas === 4, 20_000);
    await waitUntil('Rollout Healthy', async () => (await rollout()).status?.phase === 'Healthy', 20_000);
  });
  after(async () => {
    await sb.stop();
  });

  it('image change → step 1 StepPaused: 2 new pods beside the 4 old ones (6 pods), status in blueGreenStatus, the CloneSet surging with minReadySeconds MaxReadySeconds', async () => {
    const res = await kubectl(['patch', 'cloneset', 'blue', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.27' }])], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    // the write entering StepPaused still carries the previous message (doCanaryPaused writes its own on
    // the next reconcile, as upstream does): wait for that one too
    const ro = await waitUntil('step 1 StepPaused, its message written', async () => {
      const r = await waitStep('step 1 StepPaused', 1, 'StepPaused');
      return r.status.message === 'Rollout is in step(1/2), and you need manually confirm to enter the next step' ? r : undefined;
    }, 30_000);
    assert.equal(ro.status.phase, 'Progressing');
    assert.equal(ro.status.canaryStatus, undefined);
    assert.equal(ro.status.blueGreenStatus.updatedReplicas, 2);
    assert.equal(ro.status.blueGreenStatus.updatedReadyReplicas, 2);
    assert.equal(ro.status.blueGreenStatus.nextStepIndex, 2);
    assert.equal(ro.status.message, 'Rollout is in step(1/2), and you need manually confirm to enter the next step');
    const cs = await cloneSet();
    assert.equal(ro.status.blueGreenStatus.updatedRevision, cs.status.updateRevision.replace(/^blue-/, ''));
    assert.equal(cs.spec.minReadySeconds, MAX_READY_SECONDS);
    assert.equal(cs.spec.updateStrategy.maxSurge, '50%');
    assert.equal(cs.spec.updateStrategy.maxUnavailable, 0);
    assert.deepEqual(JSON.parse(cs.metadata.annotations['rollouts.kruise.io/original-deployment-strategy']), { maxUnavailable: '25%', maxSurge: 0 }); // Kruise's defaulting wrote maxSurge 0
    assert.deepEqual(await images(), { 'nginx:1.25': 4, 'nginx:1.27': 2 });
  });

  it('cancellation: the template back to the stable image → Cancelling → Succeeded=False; the new pods go, the 4 stable ones stay, the settings come back', async () => {
    const stable = (await cloneSet()).status.currentRevision as string;
    const res = await kubectl(['patch', 'cloneset', 'blue', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.25' }])], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    const ro = await waitUntil('cancelled and Healthy', async () => {
      const r = await rollout();
      return r.status?.phase === 'Healthy' && cond(r, 'Progressing')?.reason === 'Completed' ? r : undefined;
    }, 30_000);
    assert.equal(cond(ro, 'Succeeded')?.status, 'False');
    assert.equal(ro.status.message, 'Rollout progressing has been cancelled');
    await waitUntil('only the 4 stable pods', async () => JSON.stringify(await images()) === JSON.stringify({ 'nginx:1.25': 4 }), 20_000);
    const cs = await cloneSet();
    assert.equal(cs.status.updateRevision, stable);
    assert.equal(cs.spec.minReadySeconds ?? 0, 0);
    assert.equal(cs.spec.updateStrategy.maxSurge, 0);
    assert.equal(cs.spec.updateStrategy.maxUnavailable, '25%');
    for (const a of ['rollouts.kruise.io/original-deployment-strategy', 'batchrelease.rollouts.kruise.io/control-info', 'rollouts.kruise.io/in-progressing']) assert.equal(cs.metadata.annotations?.[a], undefined, a);
  });
});

describe('sandbox Kruise Rollout: blue-green of a CloneSet of 4 in one 100% step, completed (v0.6.2 CRDs)', { skip: !haveCrds && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  const rollout = async () => (await sb.api('GET', '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts/rollout-green')).body;
  const cloneSet = async () => (await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/green')).body;
  const cond = (ro: { status?: { conditions?: Cond[] } }, type: string) => ro.status?.conditions?.find((c) => c.type === type);
  const images = async (): Promise<Record<string, number>> => {
    const pods = (await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dgreen')).body.items as Pod[];
    const out: Record<string, number> = {};
    for (const p of pods) if (!p.metadata.deletionTimestamp) out[p.spec.containers[0]!.image] = (out[p.spec.containers[0]!.image] ?? 0) + 1;
    return out;
  };

  before(async () => {
    sb = await startSandbox({ readyDelay: '50ms', extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS] });
    for (const f of [join(FIXTURES, 'sandbox-cloneset-green-4.yaml'), join(FIXTURES, 'sandbox-rollout-green-bluegreen.yaml')]) {
      const res = await kubectl(['apply', '-f', f], sb.kubeconfig);
      assert.equal(res.code, 0, res.stderr);
    }
    await waitUntil('4 ready', async () => (await cloneSet()).status?.readyReplicas === 4, 20_000);
    await waitUntil('Rollout Healthy', async () => (await rollout()).status?.phase === 'Healthy', 20_000);
  });
  after(async () => {
    await sb.stop();
  });

  it('image change → 4 new pods beside the 4 old (8) while paused; approval → Completed, Succeeded=True, the old pods gone, the settings back', async () => {
    let res = await kubectl(['patch', 'cloneset', 'green', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.27' }])], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    const paused = await waitUntil('step 1 StepPaused', async () => {
      const r = await rollout();
      return r.status?.currentStepIndex === 1 && r.status?.currentStepState === 'StepPaused' ? r : undefined;
    }, 30_000);
    assert.equal(paused.status.blueGreenStatus.updatedReplicas, 4);
    assert.deepEqual(await images(), { 'nginx:1.25': 4, 'nginx:1.27': 4 });
    res = await kubectl(['patch', 'rollout', 'rollout-green', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { blueGreenStatus: { currentStepState: 'StepReady' } } })], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    const ro = await waitUntil('Completed and Healthy', async () => {
      const r = await rollout();
      return r.status?.phase === 'Healthy' && cond(r, 'Progressing')?.reason === 'Completed' ? r : undefined;
    }, 30_000);
    assert.equal(cond(ro, 'Succeeded')?.status, 'True');
    assert.equal(ro.status.blueGreenStatus.finalisingStep, 'END');
    // bluegreenstyle Finalize waits for every pod updated and ready: by Completed the old pods are gone
    assert.deepEqual(await images(), { 'nginx:1.27': 4 });
    const cs = await cloneSet();
    assert.equal(cs.spec.minReadySeconds ?? 0, 0);
    assert.equal(cs.spec.updateStrategy.maxSurge, 0);
    assert.equal(cs.spec.updateStrategy.maxUnavailable, '25%');
    for (const a of ['rollouts.kruise.io/original-deployment-strategy', 'batchrelease.rollouts.kruise.io/control-info', 'rollouts.kruise.io/in-progressing']) assert.equal(cs.metadata.annotations?.[a], undefined, a);
  });
});
