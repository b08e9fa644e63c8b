// A native (apps/v1) DaemonSet released by Kruise Rollout master, end to end: `kubectl kruise sandbox
// --kruise master --kruise-rollout master` with master's CRDs (Kruise and Kruise Rollout) on 4 nodes,
// real kubectl for the changes a person makes, bin/kubectl-kruise as the CI gate and for approve, jump,
// undo --fast, undo, history, describe and get; outcomes read back through the API (pods' images, the
// DaemonSet's strategy and annotations) or a real `kubectl get -w`.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl, REPO_ROOT, runCli, streamKubectl } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { podsOf, summary } from './rollout-helpers';
import { ROLLOUT_FIXTURES } from './rollout-kruise-helpers';

const SHARED = resolve(REPO_ROOT, '..', 'shared');
const KRUISE_CRDS = join(SHARED, 'kruise-crds', 'master');
const ROLLOUT_CRDS = join(SHARED, 'kruise-rollout-crds', 'master');
const SKIP = !(existsSync(KRUISE_CRDS) && existsSync(ROLLOUT_CRDS)) && 'no ../shared master CRDs';

const RO = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts/rollout-node-agent';
const DS = '/apis/apps/v1/namespaces/default/daemonsets/node-agent';
const GATE = ['--timeout=60s'];

describe('a native DaemonSet under a Kruise Rollout master release (sandbox --kruise master --kruise-rollout master, master CRDs, 4 nodes)', { skip: SKIP }, () => {
  let sb: Sandbox;
  const cli = (args: string[]) => runCli(args, { kubeconfig: sb.kubeconfig });
  const ok = async (args: string[]) => {
    const r = await cli(args);
    assert.equal(r.code, 0, summary(r));
    return r;
  };
  const rollout = async () => (await sb.api('GET', RO)).body;
  const daemonSet = async () => (await sb.api('GET', DS)).body;
  /** Live pods of node-agent by image. */
  const images = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const p of await podsOf(sb, 'app=node-agent')) out[p.spec.containers[0].image] = (out[p.spec.containers[0].image] ?? 0) + 1;
    return out;
  };
  const setImage = async (image: string) => {
    const r = await kubectl(['set', 'image', 'daemonset/node-agent', `agent=${image}`], sb.kubeconfig);
    assert.equal(r.code, 0, r.stderr);
  };
  /** Waits (on the API) for the release to stand at `step` waiting for a person. */
  const pausedAt = (step: number) =>
    waitUntil(`step ${step} StepPaused`, async () => {
      const s = (await rollout()).status ?? {};
      return s.currentStepIndex === step && s.currentStepState === 'StepPaused' ? s : undefined;
    }, 30_000);

  before(async () => {
    sb = await startSandbox({ nodes: 4, readyDelay: '50ms', extraArgs: ['--kruise', 'master', '--kruise-rollout', 'master', '--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS] });
    const r = await kubectl(['apply', '-f', join(ROLLOUT_FIXTURES, 'sandbox-rollout-native-daemonset.yaml')], sb.kubeconfig);
    assert.equal(r.code, 0, r.stderr);
    await waitUntil('4 pods and a Healthy Rollout', async () => (await images())['fluent/fluent-bit:3.0.4'] === 4 && (await rollout()).status?.phase === 'Healthy');
  });
  after(async () => {
    await sb?.stop();
  });

  it('two steps, a manual pause: --until=paused exits 0 with 2 nodes updated (OnDelete, strategy kept), approve, then exit 0 with all 4 and RollingUpdate back', async () => {
    await setImage('fluent/fluent-bit:3.1.0');
    await ok(['rollout', 'status', 'rollout/rollout-node-agent', '--until=paused', ...GATE]);
    assert.deepEqual(await images(), { 'fluent/fluent-bit:3.0.4': 2, 'fluent/fluent-bit:3.1.0': 2 });
    const held = await daemonSet();
    assert.equal(held.spec.updateStrategy.type, 'OnDelete');
    assert.equal(held.metadata.annotations['rollouts.kruise.io/daemonset-original-update-strategy'], 'RollingUpdate');

    const history = await ok(['rollout', 'history', 'daemonset/node-agent']);
    assert.match(history.stdout, /rollout\/rollout-node-agent releases revision 1 → revision 2, step 1\/2 StepPaused \(waiting for approval\)/);
    const described = await ok(['describe', 'rollout', 'rollout-node-agent']);
    assert.match(described.stdout, /^Workload:\s+DaemonSet\/node-agent \(4 replicas\)$/m);
    assert.match(described.stdout, /▶\s+1\s+50% \(2\)/);
    const got = await ok(['get', 'rollouts']);
    assert.match(got.stdout, /^rollout-node-agent\s+Progressing\s+1\s+StepPaused\s/m);
    // the workload's gate says it waits for a person (exit 4 without --watch)
    const waiting = await cli(['rollout', 'status', 'daemonset/node-agent', '--watch=false']);
    assert.equal(waiting.code, 4, summary(waiting));

    await ok(['rollout', 'approve', 'daemonset/node-agent']);
    await ok(['rollout', 'status', 'rollout/rollout-node-agent', ...GATE]);
    assert.deepEqual(await images(), { 'fluent/fluent-bit:3.1.0': 4 });
    const done = await daemonSet();
    assert.equal(done.spec.updateStrategy.type, 'RollingUpdate');
    assert.deepEqual(Object.keys(done.metadata.annotations ?? {}).filter((a) => a.startsWith('rollouts.kruise.io/') || a.startsWith('batchrelease.')), []);
    // the Rollout stopped following the DaemonSet before Finalize bumped its generation: the gate still passes
    assert.notEqual((await rollout()).status.canaryStatus.observedWorkloadGeneration, done.metadata.generation);
    await ok(['rollout', 'status', 'daemonset/node-agent', '--watch=false']);
  });

  it('jump and undo --fast land where master\'s doStepJump puts them: StepInit, or StepTrafficRouting when the step\'s pods are already updated', async () => {
    const steps = { spec: { strategy: { canary: { steps: [{ replicas: '25%' }, { replicas: '50%' }, { replicas: '75%' }, { replicas: '100%' }] } } } };
    assert.equal((await sb.api('PATCH', RO, steps, { contentType: 'application/merge-patch+json' })).status, 200);
    const watch = streamKubectl(['get', 'rollout', 'rollout-node-agent', '-w', '-o', 'jsonpath={.status.currentStepIndex}/{.status.currentStepState}{"\\n"}'], sb.kubeconfig);
    try {
      await setImage('fluent/fluent-bit:3.2.0');
      await ok(['rollout', 'status', 'rollout/rollout-node-agent', '--until=paused', ...GATE]);
      assert.equal((await images())['fluent/fluent-bit:3.2.0'], 1);

      // forward to step 3 (3 pods wanted, 1 updated): StepInit, its upgrade takes 2 more nodes
      const forward = await ok(['rollout', 'jump', 'rollout/rollout-node-agent', '--to-step', '3']);
      assert.equal(forward.stderr, 'rollout/rollout-node-agent: step 3 starts at StepInit: it wants 3 pods, 1 updated now\n');
      await ok(['rollout', 'status', 'rollout/rollout-node-agent', '--until=step=3', ...GATE]);
      assert.equal((await images())['fluent/fluent-bit:3.2.0'], 3);

      // back to step 1 (StepInit: a partition-style release keeps the 3 updated pods), then step 3 again:
      // its 3 pods are there, so straight to StepTrafficRouting
      await ok(['rollout', 'jump', 'rollout/rollout-node-agent', '--to-step', '1']);
      await pausedAt(1);
      await watch.waitFor(/1\/StepPaused\n$/);
      const mark = watch.stdout().length;
      const again = await ok(['rollout', 'jump', 'rollout/rollout-node-agent', '--to-step', '3']);
      assert.equal(again.stderr, 'rollout/rollout-node-agent: step 3 goes straight to StepTrafficRouting: its 3 pods are already updated\n');
      await pausedAt(3);
      await watch.waitFor(/3\/StepPaused\n$/);
      const seen = watch.stdout().slice(mark).split('\n').filter(Boolean);
      assert.equal(seen.find((l) => l.startsWith('3/')), '3/StepTrafficRouting', seen.join(' '));

      // undo --fast: back to the previous step without traffic and with the most pods, step 2 (StepInit)
      const fast = await ok(['rollout', 'undo', 'daemonset/node-agent', '--fast']);
      assert.equal(fast.stdout, 'rollout.rollouts.kruise.io/rollout-node-agent rolled back to step 2\n');
      assert.match(fast.stderr, /rollout\/rollout-node-agent: step 2 starts at StepInit: it wants 2 pods, 3 updated now \(a partition-style release does not take pods back\)\n$/);
      await pausedAt(2);
      assert.deepEqual(await images(), { 'fluent/fluent-bit:3.1.0': 1, 'fluent/fluent-bit:3.2.0': 3 });
      await watch.waitFor(/3\/StepPaused\n(.+\n)*2\/StepInit\n/);
    } finally {
      await watch.stop();
    }
    // the rest of the release, approved step by step
    await ok(['rollout', 'approve', 'rollout/rollout-node-agent']);
    await pausedAt(3);
    await ok(['rollout', 'approve', 'rollout/rollout-node-agent']);
    await ok(['rollout', 'status', 'rollout/rollout-node-agent', ...GATE]);
    assert.deepEqual(await images(), { 'fluent/fluent-bit:3.2.0': 4 });
  });

  it('undo of the DaemonSet mid-release restarts the release with the stable template (master never reads it as a rollback): the gate follows it to the end', async () => {
    await setImage('fluent/fluent-bit:3.3.0');
    await ok(['rollout', 'status', 'rollout/rollout-node-agent', '--until=paused', ...GATE]);
    const stable = (await rollout()).status.canaryStatus.stableRevision;
    const undo = await ok(['rollout', 'undo', 'daemonset/node-agent']);
    assert.equal(undo.stdout, 'daemonset.apps/node-agent rolled back\n');
    assert.match(undo.stderr, /^daemonset\/node-agent is released by rollout\/rollout-node-agent: not a rollback to it .*the release starts again from step 1 with revision \d+;/);
    // the restarted release (canary: the 3.2.0 template) waits at its first step like any other
    await waitUntil('the release restarted for 3.2.0', async () => {
      const s = (await rollout()).status ?? {};
      return s.currentStepIndex === 1 && s.currentStepState === 'StepPaused' && s.canaryStatus?.canaryRevision === stable ? s : undefined;
    }, 30_000);
    assert.deepEqual(await images(), { 'fluent/fluent-bit:3.2.0': 3, 'fluent/fluent-bit:3.3.0': 1 });
    for (let step = 1; step < 4; step++) {
      await pausedAt(step);
      await ok(['rollout', 'approve', 'daemonset/node-agent']);
    }
    await ok(['rollout', 'status', 'daemonset/node-agent', ...GATE]);
    assert.deepEqual(await images(), { 'fluent/fluent-bit:3.2.0': 4 });
  });
});
