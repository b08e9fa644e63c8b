// `rollout verify` as a token user of the sandbox (--tls --token-user verifier) authorized by RBAC (sandbox/server/rbac.ts):
// the Role the README lists for it, bound to the user, is enough to verify a healthy release (Prometheus checks at
// each step, a Job check at step 2: each step approved) and to roll a failing one back (--on-failure=undo); without
// one of its verbs, verify fails with the API server's 403 naming the permission.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { kubectl, REPO_ROOT, runCli } from '../helpers/cli';
import { haveCrds } from './rollout-kruise-helpers';
import { jsonLines, summary } from './rollout-helpers';
import { QUERY, RO, startVerifyWorld, VERIFY_FIXTURES, type VerifyWorld } from './verify-helpers';

const ROLES = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles';

/** The Role of the README's "rollout verify" section. */
function readmeRole(): any {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('#### rollout verify'));
  const m = /```yaml\n(apiVersion: rbac\.authorization\.k8s\.io\/v1\nkind: Role\n[\s\S]*?)```/.exec(section);
  assert.ok(m, 'the README\'s rollout verify section lists a Role');
  return parseYaml(m[1]!);
}

describe('rollout verify as a token user with the README\'s Role (sandbox RBAC)', { skip: !haveCrds('v0.6.2') && 'no ../shared CRDs' }, () => {
  let w: VerifyWorld;
  const role = readmeRole();
  before(async () => {
    w = await startVerifyWorld('v0.6.2', ['--tls', '--token-user', 'verifier']);
    assert.equal((await w.sb.api('POST', ROLES, role)).status, 201);
    const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'rollout-verify', namespace: 'default' }, subjects: [{ kind: 'User', name: 'verifier', apiGroup: 'rbac.authorization.k8s.io' }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name } };
    assert.equal((await w.sb.api('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', binding)).status, 201);
  });
  after(() => w?.stop());

  const verify = (extra: string[] = []) => runCli(['--context', 'verifier', 'rollout', 'verify', 'rollout/rollout-web', ...w.prom(), '--timeout=50s', ...extra], { kubeconfig: w.sb.kubeconfig, timeoutMs: 55_000 });

  /** The token user's requests refused since the audit was cleared. */
  const refused = () => w.sb.audit().filter((e) => e.user === 'verifier' && e.code === 403).map((e) => `${e.verb} ${e.path}`);

  it('the README\'s Role: a healthy release verified (Prometheus at each step, a Job at step 2) and every step approved by the token user; kubectl auth can-i agrees', { timeout: 60_000 }, async () => {
    const can = await kubectl(['--context', 'verifier', 'auth', 'can-i', 'patch', 'rollouts.rollouts.kruise.io', '--subresource=status'], w.sb.kubeconfig);
    assert.equal(can.stdout.trim(), 'yes', can.stderr);
    const cannot = await kubectl(['--context', 'verifier', 'auth', 'can-i', 'delete', 'rollouts.rollouts.kruise.io'], w.sb.kubeconfig);
    assert.equal(cannot.stdout.trim(), 'no');
    const checks = join(w.dir, 'checks.yaml');
    writeFileSync(checks, [
      'checks:',
      '- name: errors',
      '  count: 3',
      '  interval: 1s',
      '  initialDelay: 2s',
      `  prometheus: {address: "${w.promUrl}", query: '${QUERY}', condition: result < 0.05}`,
      '- name: smoke',
      '  step: 2',
      '  timeout: 30s',
      `  job: {file: ${join(VERIFY_FIXTURES, 'job-smoke-pass.yaml')}}`,
      '',
    ].join('\n'));
    w.sb.clearAudit();
    await w.release('nginx:1.26', 0.01);
    const r = await runCli(['--context', 'verifier', 'rollout', 'verify', 'rollout/rollout-web', '--checks', checks, '--timeout=50s', '-o', 'json'], { kubeconfig: w.sb.kubeconfig, timeoutMs: 55_000 });
    assert.equal(r.code, 0, summary(r));
    const events = jsonLines(r.stdout);
    assert.deepEqual(events.filter((e) => e.event === 'approved').map((e) => e.step), [1, 2]);
    assert.deepEqual(events.filter((e) => e.event === 'check').map((e) => `${e.step} ${e.check} ${e.phase}`).sort(), ['1 errors pass', '2 errors pass', '2 smoke pass']);
    assert.deepEqual(refused(), []);
    await w.allOn('nginx:1.26');
  });

  it('the README\'s Role: a failing canary rolled back by the token user (--on-failure=undo), exit 1', { timeout: 60_000 }, async () => {
    w.sb.clearAudit();
    await w.release('nginx:1.27', 0.3);
    const r = await verify();
    assert.equal(r.code, 1, summary(r));
    assert.match(r.stderr, /step 1 failed its checks: .* cloneset\/web rolled back to its stable revision/);
    assert.deepEqual(refused(), []);
    await w.allOn('nginx:1.26');
  });

  it('without "patch" on rollouts/status: exit 1 with the 403 naming it, the step left waiting, nothing approved', { timeout: 60_000 }, async () => {
    const rules = role.rules.filter((r: any) => !(r.resources.includes('rollouts/status')));
    assert.equal(rules.length, role.rules.length - 1);
    const put = await w.sb.api('PUT', `${ROLES}/${role.metadata.name}`, { ...role, rules });
    assert.equal(put.status, 200, put.text);
    const raw = await w.sb.api('PATCH', `${RO}/status`, { status: {} }, { user: 'verifier', contentType: 'application/merge-patch+json' });
    assert.equal(raw.status, 403);
    assert.equal(raw.body.message, 'rollouts.rollouts.kruise.io "rollout-web" is forbidden: User "verifier" cannot patch resource "rollouts/status" in API group "rollouts.kruise.io" in the namespace "default"');
    await w.release('nginx:1.28', 0.01);
    const r = await verify();
    assert.equal(r.code, 1, summary(r));
    // The API server's 403 (User "verifier" cannot patch resource "rollouts/status" in API group ...), as the client words it.
    assert.match(r.stderr, /^error: rollout\/rollout-web: step 1 was not approved: verifier cannot patch rollouts\/status\.rollouts\.kruise\.io in namespace default\n/);
    assert.match(r.stderr, /hint: this needs the "patch" verb on "rollouts\/status" \(group rollouts\.kruise\.io\) in namespace "default"/);
    assert.doesNotMatch(r.stdout, /approved/);
    const ro = (await w.sb.api('GET', RO)).body;
    assert.deepEqual([ro.status.canaryStatus.currentStepIndex, ro.status.canaryStatus.currentStepState], [1, 'StepPaused']);
  });
});
