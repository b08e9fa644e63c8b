// `rollout undo` during a busy rollout (issue #14 item 3): a big CloneSet mid-update has its status
// written many times a second, each write changing the resourceVersion. The undo patch must not be
// guarded by the resourceVersion (every attempt would be rejected) but by what the rollback decided
// from: metadata.generation, which status writes leave alone (Kruise: pkg/controller/cloneset/
// cloneset_status.go updates only the status subresource; the apiserver bumps generation on spec changes only).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';
import { applyFixture, getObject, kubectlOk, PATHS, summary, waitSettled } from './rollout-helpers';

let sb: Sandbox;
const cli = (args: string[]) => runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });

before(async () => {
  sb = await startSandbox({ kruise: 'v1.9', readyDelay: '50ms' });
  await applyFixture(sb, 'cloneset-web.yaml');
  await waitSettled(sb, PATHS.cloneset());
  await kubectlOk(sb, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] } } } })]);
  await waitSettled(sb, PATHS.cloneset());
});

after(async () => {
  await sb?.stop();
});

/** Writes the CloneSet's status back to back (as a controller of a 2,000-pod rollout does) until stopped. */
function statusWriter(): { stop(): Promise<number> } {
  let running = true;
  let writes = 0;
  const loop = async (): Promise<void> => {
    for (let i = 0; running; i++) {
      const r = await sb.api('PATCH', `${PATHS.cloneset()}/status`, { status: { labelSelector: `app=web,tick=${i % 2}` } }, { contentType: 'application/merge-patch+json' });
      if (r.status === 200) writes++;
    }
  };
  const loops = [loop(), loop()];
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return writes;
    },
  };
}

test('undo succeeds while the status is written continuously (guard on metadata.generation, not resourceVersion)', async () => {
  const writer = statusWriter();
  const results = [];
  try {
    for (let i = 0; i < 3; i++) results.push(await cli(['rollout', 'undo', 'cloneset/web']));
  } finally {
    const writes = await writer.stop();
    assert.ok(writes > 30, `only ${writes} status writes happened during the undos`);
  }
  for (const r of results) {
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'cloneset.apps.kruise.io/web rolled back\n');
  }
  // Three undos alternate 1.26 → 1.25 → 1.26 → 1.25.
  const cs = await getObject(sb, PATHS.cloneset());
  assert.equal(cs.spec.template.spec.containers[0].image, 'nginx:1.25');
});
