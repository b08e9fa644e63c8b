// describe/get/history of a real release: the sandbox's simulated Kruise Rollout controller (v0.6.2
// CRDs) releases CloneSet web of 10 in steps 20% (approval) → 50% (5 s) → 100%, while
// `describe rollout -w` (piped) follows it to the end by itself.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli, streamCli } from '../helpers/cli';
import { waitUntil, type Sandbox } from '../helpers/sandbox';
import { haveRealCrds, rolloutPath } from './describe-rollout-helpers';
import { applyRolloutFixtures, startWithRolloutCrds } from './rollout-kruise-helpers';

const CS = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web';

const SETUPS = [
  { release: 'v0.6.2', version: 'v1beta1', rollout: 'rollout-web', fixture: 'sandbox-rollout-web-v1beta1.yaml' },
  { release: 'v0.4.4', version: 'v1alpha1', rollout: 'rollout-web-alpha', fixture: 'sandbox-rollout-web-v1alpha1.yaml' },
] as const;

for (const { release, version, rollout, fixture } of SETUPS) describe(`describe rollout -w on the simulated controller (${release} CRDs, ${version}): CloneSet canary to completion`, { skip: !haveRealCrds && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  const run = (...args: string[]) => runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 40_000 });
  before(async () => {
    sb = await startWithRolloutCrds(release);
    await applyRolloutFixtures(sb, ['sandbox-cloneset-web-10.yaml', fixture]);
    await waitUntil('the Rollout to be Healthy before the release', async () => (await sb.api('GET', rolloutPath(version, rollout))).body.status?.phase === 'Healthy' || undefined, 20_000);
  });
  after(async () => {
    await sb?.stop();
  });

  it('follows the release: step 1 waits for approval (pods of batch 1 shown), approve, step 2, ends with exit 0 at completion', async () => {
    const w = streamCli(['describe', 'rollout', rollout, '-w'], { kubeconfig: sb.kubeconfig });
    try {
      // Already released: the view says so before the new template arrives... and does not end (nothing is released yet).
      await w.waitFor(new RegExp(`^rollout/${rollout}  \\S+  step 3/3`, 'm'));
      const patched = await sb.api('PATCH', CS, { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.26' }] } } } }, { contentType: 'application/merge-patch+json' });
      assert.equal(patched.status, 200, patched.text);
      await w.waitFor(`StepPaused  step 1/3  StepPaused  canary 2/2 ready  stable 8/8 ready  (waiting for approval: kubectl kruise rollout approve rollout/${rollout} -n default)`, 30_000);

      const once = await run('describe', 'rollout', rollout);
      assert.equal(once.code, 0, once.stderr);
      assert.match(once.stdout, /^\s+▶\s+1\s+20% \(2\)\s+-\s+manual\s+StepPaused, waiting for approval/m);
      // The controller labelled the canary pods with their batch (rollouts.kruise.io/rollout-batch-id).
      assert.match(once.stdout, /^  canary  \S+  batch 1  \(2\/2 ready\)$/m);
      assert.match(once.stdout, /^\s+canary\s+\S+\s+2\s+2\s+web=nginx:1\.26$/m);
      assert.match(once.stdout, /^Batch:\s+1\/3 /m);
      const table = await run('get', 'rollouts');
      assert.match(table.stdout, new RegExp(`\\n${rollout}\\s+Progressing\\s+1\\s+StepPaused\\s+`));
      const history = await run('rollout', 'history', 'cloneset/web');
      assert.ok(history.stdout.includes(`\nrollout/${rollout} releases revision 1 → revision 2, step 1/3 StepPaused (waiting for approval)\n`), history.stdout);

      const approve = await run('rollout', 'approve', `rollout/${rollout}`);
      assert.equal(approve.code, 0, approve.stderr);
      await w.waitFor(/step 2\/3/, 30_000);
      const code = await new Promise<number | null>((res) => (w.child.exitCode !== null ? res(w.child.exitCode) : w.child.once('exit', (c) => res(c))));
      assert.equal(code, 0, `${w.stdout()}\n${w.stderr()}`);
      const lines = w.stdout().trimEnd().split('\n');
      assert.ok(lines.at(-1)!.startsWith(`rollout/${rollout}  Complete  step 3/3  Completed  canary 10/10 ready`), lines.at(-1));
      for (let i = 1; i < lines.length; i++) assert.notEqual(lines[i], lines[i - 1], 'one line per change');
    } finally {
      if (w.child.exitCode === null) await w.stop();
    }
  });
});
