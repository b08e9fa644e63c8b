// -v=8/9 logs request and response bodies (issue #14 item 7): the values of a Secret's data and
// stringData (and of the last-applied annotation `kubectl apply` leaves on it) never appear,
// while the keys and the other bodies stay readable.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO_ROOT, runCli } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';
import { applyFixture, kubectlOk, PATHS, waitSettled } from './rollout-helpers';

let sb: Sandbox;

before(async () => {
  sb = await startSandbox({ kruise: 'v1.9', readyDelay: '50ms' });
  await applyFixture(sb, 'cloneset-web.yaml');
  await kubectlOk(sb, ['apply', '-f', join(REPO_ROOT, 'test/fixtures/secrets/db-secret.yaml')]);
  await waitSettled(sb, PATHS.cloneset());
});

after(async () => {
  await sb?.stop();
});

for (const v of ['8', '9']) {
  test(`set env --from=secret/db -v=${v} logs the Secret's keys but none of its values`, async () => {
    const r = await runCli(['set', 'env', 'cloneset/web', '--from=secret/db', '--dry-run=server', `-v=${v}`], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Response Body: \{"apiVersion":"v1","data":\{"password":"<redacted>"[^\n]*"kind":"Secret"/);
    for (const secret of ['czNjcjN0LXA0c3N3MHJk', 's3cr3t-p4ssw0rd', 'admin-from-stringdata', 'YWRtaW4tZnJvbS1zdHJpbmdkYXRh']) {
      assert.ok(!r.stderr.includes(secret), `${secret} printed at -v=${v}`);
      assert.ok(!r.stdout.includes(secret), `${secret} printed on stdout at -v=${v}`);
    }
    // Other bodies are logged as they are.
    assert.match(r.stderr, /Response Body: \{"apiVersion":"apps\.kruise\.io\/v1alpha1","kind":"CloneSet"/);
  });
}
