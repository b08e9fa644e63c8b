// `version` end to end: plugin and server versions, --client without any request,
// -o json|yaml, and exit 0 with a warning when the server cannot be reached.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { startSandbox, type Sandbox } from '../helpers/sandbox';
import { runCli } from '../helpers/cli';

let sb: Sandbox;
before(async () => {
  sb = await startSandbox();
});
after(async () => {
  await sb?.stop();
});

test('version prints the plugin and the server version', async () => {
  const r = await runCli(['version'], { kubeconfig: sb.kubeconfig });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Plugin Version: v\d+\.\d+\.\d+\nServer Version: v1\.\d+\.\d+\S*\n$/);
  assert.equal(r.stderr, '');
  assert.ok(sb.audit().some((e) => e.path === '/version'), 'asked the server');
});

test('version --client sends nothing', async () => {
  sb.clearAudit();
  const r = await runCli(['version', '--client'], { kubeconfig: sb.kubeconfig });
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^Plugin Version: v\d+\.\d+\.\d+\n$/);
  assert.deepEqual(sb.audit(), []);
});

test('version -o json and -o yaml', async () => {
  const j = await runCli(['version', '-o', 'json'], { kubeconfig: sb.kubeconfig });
  assert.equal(j.code, 0, j.stderr);
  const doc = JSON.parse(j.stdout) as { pluginVersion: { gitVersion: string }; serverVersion: { gitVersion: string; major: string } };
  assert.match(doc.pluginVersion.gitVersion, /^v\d+\.\d+\.\d+$/);
  assert.match(doc.serverVersion.gitVersion, /^v1\./);
  assert.equal(doc.serverVersion.major, '1');
  const y = await runCli(['version', '--client', '-o', 'yaml'], { kubeconfig: sb.kubeconfig });
  assert.equal(y.code, 0);
  assert.match((parseYaml(y.stdout) as { pluginVersion: { gitVersion: string } }).pluginVersion.gitVersion, /^v\d/);
  const bad = await runCli(['version', '-o', 'wide'], { kubeconfig: sb.kubeconfig });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^error: --output must be 'yaml', 'kyaml' or 'json'/);
});

test('an unreachable server or a missing kubeconfig: the plugin version, then one error line and exit 1, as kubectl version does; a refused connection as fast as kubectl (no retry before the server ever answered)', async () => {
  const started = Date.now();
  const r = await runCli(['version', '-s', 'http://127.0.0.1:1']);
  const took = Date.now() - started;
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^Plugin Version: v\d+\.\d+\.\d+\n$/);
  assert.equal(r.stderr, 'error: could not get the server version: the server at http://127.0.0.1:1 is unreachable: connection refused\n');
  // It retried a refused connection 3 times first (0.3-0.6 s of backoff); kubectl fails at once.
  const refused = await runCli(['rollout', 'status', 'cloneset/web', '-s', 'http://127.0.0.1:1']);
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr, 'error: the server at http://127.0.0.1:1 is unreachable: connection refused\n');
  const noRetry = await runCli(['rollout', 'status', 'cloneset/web', '-s', 'http://127.0.0.1:1', '-v=6']);
  assert.equal(noRetry.stderr.match(/failed in \d+ milliseconds: ECONNREFUSED/g)?.length, 1, noRetry.stderr);
  assert.ok(took < 5000, 'bounded by the short version timeout');
  const json = await runCli(['version', '-o', 'json', '-s', 'http://127.0.0.1:1']);
  assert.equal(json.code, 1);
  assert.ok((JSON.parse(json.stdout) as { pluginVersion?: unknown }).pluginVersion);
  const none = await runCli(['version'], { env: { KUBECONFIG: undefined } });
  assert.equal(none.code, 1);
  assert.match(none.stderr, /^error: could not get the server version: no kubeconfig found/);
});
