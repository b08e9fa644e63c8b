// `set` under write conflicts (sandbox --faults conflictEveryNthUpdate): a conflicting patch is
// rebuilt from a fresh read and resent, the result is applied once, and persistent conflicts end
// in exit 1 with the object unchanged.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { kubectl, runCli } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/set');
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments/api';

let every2: Sandbox;
let always: Sandbox;

before(async () => {
  [every2, always] = await Promise.all([startSandbox({ faults: { conflictEveryNthUpdate: 2 } }), startSandbox({ faults: { conflictEveryNthUpdate: 1 } })]);
  for (const sb of [every2, always]) {
    const applied = await kubectl(['apply', '-f', join(FIXTURES, 'deployment-api.yaml')], sb.kubeconfig);
    assert.equal(applied.code, 0, applied.stderr);
  }
});

after(async () => {
  await Promise.all([every2?.stop(), always?.stop()]);
});

test('a conflicting patch is retried on a fresh read and applied once', async () => {
  const first = await runCli(['set', 'image', 'deployment/api', 'api=ghcr.io/example/api:1.5.0'], { kubeconfig: every2.kubeconfig });
  assert.equal(first.code, 0, first.stderr);
  every2.clearAudit();
  // The second API update of this sandbox conflicts.
  const second = await runCli(['set', 'env', 'deployment/api', 'MODE=staging', 'ADDED=1'], { kubeconfig: every2.kubeconfig });
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stdout, 'deployment.apps/api env updated\n');
  const patches = every2.audit().filter((e) => e.verb === 'patch');
  assert.deepEqual(
    patches.map((p) => p.code),
    [409, 200],
  );
  const reads = every2.audit().filter((e) => e.verb === 'get' && e.path === DEPLOY);
  assert.equal(reads.length, 2, 'one read, and one more to rebuild the patch');
  const dep = (await every2.api('GET', DEPLOY)).body;
  assert.equal(dep.spec.template.spec.containers[0].image, 'ghcr.io/example/api:1.5.0');
  assert.deepEqual(dep.spec.template.spec.containers[0].env, [
    { name: 'MODE', value: 'staging' },
    { name: 'ADDED', value: '1' },
  ], 'applied exactly once (no duplicate entry)');
});

test('conflicts on every attempt: exit 1, bounded attempts, object unchanged', async () => {
  always.clearAudit();
  const r = await runCli(['set', 'image', 'deployment/api', 'api=ghcr.io/example/api:2.0.0'], { kubeconfig: always.kubeconfig });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^error: deployment\.apps\/api kept changing while it was being patched \(3 attempts\)/m);
  assert.equal(always.audit().filter((e) => e.verb === 'patch').length, 3);
  const dep = (await always.api('GET', DEPLOY)).body;
  assert.equal(dep.spec.template.spec.containers[0].image, 'ghcr.io/example/api:1.4.2');
});
