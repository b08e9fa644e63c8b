// The SidecarSet commands against the v1.3.0 and master CRDs (the sandbox validates every write
// against them): set image, rollout status, pause/resume and undo each write a valid object, and
// rollout status reads the status the same way (master serves v1beta1 as well).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { kubectl, REPO_ROOT, runCli } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { jsonLines, summary } from './rollout-helpers';

const RELEASES = [
  { crds: 'v1.3.0', kruise: 'v1.3' },
  { crds: 'master', kruise: 'master' },
] as const;
const sandboxes = new Map<string, Sandbox>();

before(async () => {
  await Promise.all(
    RELEASES.map(async (r) => {
      const sb = await startSandbox({ kruise: r.kruise, crds: `/work/shared/kruise-crds/${r.crds}`, readyDelay: '300ms' });
      sandboxes.set(r.crds, sb);
      const a = await kubectl(['apply', '-f', join(REPO_ROOT, 'test/fixtures/sidecarset/e2e/log-stack.yaml')], sb.kubeconfig);
      assert.equal(a.code, 0, a.stderr);
    }),
  );
});

after(async () => {
  await Promise.all([...sandboxes.values()].map((sb) => sb.stop()));
});

for (const r of RELEASES) {
  test(`${r.crds} CRDs: set image, rollout status, pause/resume, undo`, async () => {
    const sb = sandboxes.get(r.crds)!;
    const cli = (args: string[]) => runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 40_000 });
    const ss = async () => (await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/sidecarsets/log')).body;
    await waitUntil('5 injected pods, ready', async () => (await ss()).status?.updatedReadyPods === 5, 20_000);

    const set = await cli(['set', 'image', 'sidecarset/log', 'logger=fluent-bit:3.1']);
    assert.equal(set.code, 0, summary(set));
    const st = await cli(['rollout', 'status', 'sidecarset/log', '--timeout', '30s', '-o', 'json']);
    assert.equal(st.code, 0, summary(st));
    const last = jsonLines(st.stdout).at(-1);
    assert.deepEqual([last.state, last.partition, last.updatedReadyReplicas, last.replicas], ['PartitionComplete', 2, 3, 5]);

    for (const verb of ['pause', 'resume']) {
      const p = await cli(['rollout', verb, 'sidecarset/log']);
      assert.equal(p.code, 0, summary(p));
      assert.equal((await ss()).spec.updateStrategy.paused, verb === 'pause');
    }
    const undo = await cli(['rollout', 'undo', 'sidecarset/log']);
    assert.equal(undo.code, 0, summary(undo));
    assert.equal((await ss()).spec.containers[0].image, 'fluent-bit:3.0');
    const back = await cli(['rollout', 'status', 'sidecarset/log', '--timeout', '30s']);
    assert.equal(back.code, 0, summary(back));
  });
}

test('a sidecar image that cannot be pulled: status names the stuck pod, then fails after --failure-grace (exit 1)', async () => {
  const sb = sandboxes.get('master')!;
  const cli = (args: string[]) => runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 50_000 });
  const set = await cli(['set', 'image', 'sidecarset/log', 'logger=fluent-bit:fail-pull']);
  assert.equal(set.code, 0, summary(set));
  const stuck = await waitUntil('a pod upgraded to the unpullable image', async () => {
    const r = await cli(['rollout', 'status', 'sidecarset/log', '--watch=false']);
    return r.code === 4 && /not ready after the upgrade: default\/[a-z0-9-]+/.test(r.stdout) ? r : undefined;
  }, 20_000);
  assert.match(
    stuck.stdout,
    /^Waiting for sidecarset "log" rollout to finish: 1 of 3 matched pods updated \(partition keeps 2 of 5\); not ready after the upgrade: (default\/[a-z0-9-]+); on the old sidecars: [^;]+; pod \1 (ErrImagePull|ImagePullBackOff), failing the rollout in \d+s\.\.\.\n$/,
  );
  const r = await cli(['rollout', 'status', 'sidecarset/log', '--failure-grace=2s', '--timeout=40s']);
  assert.equal(r.code, 1, summary(r));
  assert.match(r.stderr, /^error: sidecarset "log" rollout failed: pod "default\/[a-z0-9-]+" container "logger" is in (ErrImagePull|ImagePullBackOff)/m);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
});
