// A canary release of a CloneSet driven by the sandbox's simulated Kruise Rollout controller, followed
// and steered with bin/kubectl-kruise: `rollout status --until=paused` stops at the step waiting for a
// person, `rollout approve cloneset/web` lets it go on, `rollout status cloneset/web` follows the Rollout
// through the timed pause to Healthy. Results are read back through the API.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl, REPO_ROOT, runCli } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { jsonLines, summary } from './rollout-helpers';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'rollout-kruise');
const SHARED = resolve(REPO_ROOT, '..', 'shared');
const KRUISE_CRDS = join(SHARED, 'kruise-crds', 'v1.9.0');
const CS = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web';

const SETUPS = [
  { name: 'v1beta1 on the real v0.6.2 CRDs', crds: join(SHARED, 'kruise-rollout-crds', 'v0.6.2'), fixture: 'sandbox-rollout-web-v1beta1.yaml', rollout: 'rollout-web', version: 'v1beta1' },
  { name: 'v1alpha1 on the real v0.4.4 CRDs', crds: join(SHARED, 'kruise-rollout-crds', 'v0.4.4'), fixture: 'sandbox-rollout-web-v1alpha1.yaml', rollout: 'rollout-web-alpha', version: 'v1alpha1' },
];

for (const setup of SETUPS) describe(`Kruise Rollout commands on the simulated controller (${setup.name}): CloneSet canary 20% (approval) → 50% (5 s) → 100%`, { skip: !(existsSync(setup.crds) && existsSync(KRUISE_CRDS)) && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  const RO = `/apis/rollouts.kruise.io/${setup.version}/namespaces/default/rollouts/${setup.rollout}`;
  const ROLLOUT = `rollout/${setup.rollout}`;
  before(async () => {
    sb = await startSandbox({ readyDelay: '50ms', extraArgs: ['--crds', KRUISE_CRDS, '--crds', setup.crds] });
    for (const f of ['sandbox-cloneset-web-10.yaml', setup.fixture]) {
      const r = await kubectl(['apply', '-f', join(FIXTURES, f)], sb.kubeconfig);
      assert.equal(r.code, 0, r.stderr);
    }
    await waitUntil('the Rollout to be Healthy before the release', async () => (await sb.api('GET', RO)).body.status?.phase === 'Healthy' || undefined, 20_000);
    const r = await runCli(['set', 'image', 'cloneset/web', 'web=nginx:1.26'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, summary(r));
  });
  after(async () => {
    await sb?.stop();
  });

  it('status --until=paused exits 0 at step 1 waiting for approval; approve; status of the workload follows the Rollout to Complete', async () => {
    const paused = await runCli(['rollout', 'status', ROLLOUT, '--until=paused', '--timeout=30s', '-o', 'json'], { kubeconfig: sb.kubeconfig, timeoutMs: 40_000 });
    assert.equal(paused.code, 0, summary(paused));
    const last = jsonLines(paused.stdout).at(-1);
    assert.deepEqual([last.state, last.step, last.steps, last.stepState, last.canaryReplicas, last.canaryReadyReplicas], ['StepPaused', 1, 3, 'StepPaused', 2, 2]);
    const notYet = await runCli(['rollout', 'status', 'cloneset/web', '--watch=false'], { kubeconfig: sb.kubeconfig });
    assert.equal(notYet.code, 4, summary(notYet));

    const approve = await runCli(['rollout', 'approve', 'cloneset/web'], { kubeconfig: sb.kubeconfig });
    assert.equal(approve.code, 0, summary(approve));
    assert.equal(approve.stdout, `rollout.rollouts.kruise.io/${setup.rollout} approved\n`);

    sb.clearAudit();
    const done = await runCli(['rollout', 'status', 'cloneset/web', '--timeout=40s'], { kubeconfig: sb.kubeconfig, timeoutMs: 50_000 });
    assert.equal(done.code, 0, summary(done));
    // Watches, not polling: the whole rest of the release (three batches, a timed pause) in a handful of requests.
    const requests = sb.audit();
    assert.ok(requests.length <= 12, `${requests.length} requests: ${requests.map((e) => `${e.verb} ${e.path}`).join(', ')}`);
    assert.equal(done.stderr, `cloneset/web is released by ${ROLLOUT}: following it\n`);
    assert.match(done.stdout, /step 2\/3/);
    assert.ok(done.stdout.endsWith(`rollout "${setup.rollout}" successfully rolled out\n`), done.stdout);
    const ro = (await sb.api('GET', RO)).body;
    assert.deepEqual([ro.status.phase, ro.status.canaryStatus?.currentStepState ?? ro.status.currentStepState], ['Healthy', 'Completed']);
    const cs = (await sb.api('GET', CS)).body;
    assert.equal(cs.status.updatedReadyReplicas, 10);
  });

  it('a canary whose image never pulls fails the release (exit 1, --failure-grace=0); undo of the workload brings the stable template back and the Rollout cancels (Succeeded=False → exit 1)', async () => {
    const r = await sb.api('PATCH', CS, { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:fail-pull' }] } } } }, { contentType: 'application/merge-patch+json' });
    assert.equal(r.status, 200, r.text);
    const failed = await runCli(['rollout', 'status', ROLLOUT, '--failure-grace=0', '--timeout=30s', '-o', 'json'], { kubeconfig: sb.kubeconfig, timeoutMs: 40_000 });
    assert.equal(failed.code, 1, summary(failed));
    assert.equal(jsonLines(failed.stdout).at(-1).state, 'Failed');
    assert.match(failed.stderr, new RegExp(`^error: rollout "${setup.rollout}" failed: .*(ErrImagePull|ImagePullBackOff)`));

    const undo = await runCli(['rollout', 'undo', 'cloneset/web'], { kubeconfig: sb.kubeconfig });
    assert.equal(undo.code, 0, summary(undo));
    assert.ok(undo.stderr.includes(`cloneset/web is released by ${ROLLOUT}: it cancels its release`), undo.stderr);
    assert.equal((await sb.api('GET', CS)).body.spec.template.spec.containers[0].image, 'nginx:1.26');
    const cancelled = await runCli(['rollout', 'status', ROLLOUT, '--timeout=30s'], { kubeconfig: sb.kubeconfig, timeoutMs: 40_000 });
    assert.equal(cancelled.code, 1, summary(cancelled));
    assert.match(cancelled.stderr, new RegExp(`^error: rollout "${setup.rollout}" was cancelled.*\\(Succeeded=False\\)\\n$`));
  });
});
