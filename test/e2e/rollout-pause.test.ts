// `rollout pause|resume` set exactly the contract's field on CloneSet v1alpha1 (Kruise v1.9),
// CloneSet v1beta1 (master), Advanced StatefulSet, Advanced DaemonSet and Deployment (read back
// through the API); already paused / not paused exits 1 with nothing sent; native StatefulSet
// exits 2; the request budget is one read and one write.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';
import { applyFixture, getObject, PATHS, summary, waitSettled, writes } from './rollout-helpers';

let v19: Sandbox;
let master: Sandbox;
let conflicts: Sandbox;

before(async () => {
  [v19, master, conflicts] = await Promise.all([
    startSandbox({ kruise: 'v1.9', readyDelay: '50ms' }),
    startSandbox({ kruise: 'master', readyDelay: '50ms' }),
    startSandbox({ kruise: 'v1.9', readyDelay: '50ms', faults: { conflictEveryNthUpdate: 2 } }),
  ]);
  for (const f of ['cloneset-web.yaml', 'asts-db.yaml', 'ads-agent.yaml', 'deployment-api.yaml', 'statefulset-cache.yaml']) await applyFixture(v19, f);
  await applyFixture(master, 'cloneset-web-v1beta1.yaml');
});

after(async () => {
  await Promise.all([v19?.stop(), master?.stop(), conflicts?.stop()]);
});

const cases: Array<{ title: string; sandbox: () => Sandbox; ref: string; line: string; path: () => string; paused: (o: any) => unknown }> = [
  {
    title: 'CloneSet v1alpha1: spec.updateStrategy.paused',
    sandbox: () => v19,
    ref: 'cloneset/web',
    line: 'cloneset.apps.kruise.io/web',
    path: () => PATHS.cloneset('v1alpha1'),
    paused: (o) => o.spec.updateStrategy.paused,
  },
  {
    title: 'CloneSet v1beta1: spec.updateStrategy.rollingUpdate.paused',
    sandbox: () => master,
    ref: 'clonesets.apps.kruise.io/web',
    line: 'cloneset.apps.kruise.io/web',
    path: () => PATHS.cloneset('v1beta1'),
    paused: (o) => o.spec.updateStrategy.rollingUpdate?.paused,
  },
  {
    title: 'Advanced StatefulSet: spec.updateStrategy.rollingUpdate.paused',
    sandbox: () => v19,
    ref: 'asts/db',
    line: 'statefulset.apps.kruise.io/db',
    path: () => PATHS.asts(),
    paused: (o) => o.spec.updateStrategy.rollingUpdate?.paused,
  },
  {
    title: 'Advanced DaemonSet: spec.updateStrategy.rollingUpdate.paused',
    sandbox: () => v19,
    ref: 'ads/agent',
    line: 'daemonset.apps.kruise.io/agent',
    path: () => PATHS.ads('v1beta1'),
    paused: (o) => o.spec.updateStrategy.rollingUpdate?.paused,
  },
  {
    title: 'Deployment: spec.paused',
    sandbox: () => v19,
    ref: 'deployment/api',
    line: 'deployment.apps/api',
    path: () => PATHS.deployment(),
    paused: (o) => o.spec.paused,
  },
];

for (const c of cases) {
  test(`pause then resume, ${c.title}`, async () => {
    const sb = c.sandbox();
    const cli = (args: string[]) => runCli(args, { kubeconfig: sb.kubeconfig });
    // Warm the discovery cache, then count the requests of pause alone.
    await cli(['rollout', 'history', c.ref]);
    sb.clearAudit();
    const p = await cli(['rollout', 'pause', c.ref]);
    assert.equal(p.code, 0, summary(p));
    assert.equal(p.stdout, `${c.line} paused\n`);
    const audit = sb.audit();
    assert.equal(writes(audit).length, 1, JSON.stringify(audit));
    assert.equal(writes(audit)[0]!.contentType, 'application/merge-patch+json');
    assert.ok(audit.length <= 2, `at most one read besides the write: ${JSON.stringify(audit)}`);
    assert.equal(c.paused(await getObject(sb, c.path())), true);

    sb.clearAudit();
    const again = await cli(['rollout', 'pause', c.ref]);
    assert.equal(again.code, 1, summary(again));
    assert.match(again.stderr, /^error: .*"(web|db|agent|api)" is already paused$/m);
    assert.deepEqual(writes(sb.audit()), []);

    const r = await cli(['rollout', 'resume', c.ref]);
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, `${c.line} resumed\n`);
    assert.equal(c.paused(await getObject(sb, c.path())), false);

    sb.clearAudit();
    const notPaused = await cli(['rollout', 'resume', c.ref]);
    assert.equal(notPaused.code, 1, summary(notPaused));
    assert.match(notPaused.stderr, /is not paused$/m);
    assert.deepEqual(writes(sb.audit()), []);
  });
}

test('native StatefulSet has no pause: exit 2, nothing sent', async () => {
  v19.clearAudit();
  const r = await runCli(['rollout', 'pause', 'sts/cache'], { kubeconfig: v19.kubeconfig });
  assert.equal(r.code, 2, summary(r));
  assert.match(r.stderr, /^error: statefulsets\.apps "cache" cannot be paused/);
  assert.deepEqual(writes(v19.audit()), []);
});

test('a 409 Conflict on every other write: pause, resume, restart and undo retry on fresh state and succeed', async () => {
  const sb = conflicts;
  const cli = (args: string[]) => runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 40_000 });
  const created = await sb.api('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets', {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: 'web' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] } },
    },
  });
  assert.equal(created.status, 201, created.text);
  await waitSettled(sb, PATHS.cloneset());
  sb.clearAudit();
  for (const [verb, line] of [
    ['pause', 'cloneset.apps.kruise.io/web paused\n'],
    ['resume', 'cloneset.apps.kruise.io/web resumed\n'],
    ['restart', 'cloneset.apps.kruise.io/web restarted\n'],
  ] as const) {
    const r = await cli(['rollout', verb, 'cloneset/web']);
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, line);
  }
  assert.ok(sb.audit().some((e) => e.code === 409), 'the sandbox answered 409 at least once');
  const cs = await getObject(sb, PATHS.cloneset());
  assert.equal(cs.spec.updateStrategy.paused, false);
  assert.ok(cs.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt']);
  const s = await cli(['rollout', 'status', 'cloneset/web', '--timeout=30s']);
  assert.equal(s.code, 0, summary(s));
  const u = await cli(['rollout', 'undo', 'cloneset/web']);
  assert.equal(u.code, 0, summary(u));
  const back = await getObject(sb, PATHS.cloneset());
  assert.equal(back.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'], undefined);
});

test('pause/resume take TYPE -l SELECTOR and -o like kubectl; restart takes -o', async () => {
  const cli = (args: string[]) => runCli(args, { kubeconfig: v19.kubeconfig });
  const p = await cli(['rollout', 'pause', 'cloneset', '-l', 'app=web', '-o', 'name']);
  assert.equal(p.code, 0, summary(p));
  assert.equal(p.stdout, 'cloneset.apps.kruise.io/web\n');
  assert.equal((await getObject(v19, PATHS.cloneset('v1alpha1'))).spec.updateStrategy.paused, true);

  const r = await cli(['rollout', 'resume', 'cloneset/web', '-o', 'jsonpath={.metadata.name} {.spec.updateStrategy.paused}']);
  assert.equal(r.code, 0, summary(r));
  assert.equal(r.stdout.trim(), 'web false');
  assert.equal((await getObject(v19, PATHS.cloneset('v1alpha1'))).spec.updateStrategy.paused, false);

  const none = await cli(['rollout', 'pause', 'cloneset', '-l', 'app=nothing']);
  // kubectl rollout pause -l matching nothing: `No resources found in default namespace.`, exit 0.
  assert.equal(none.code, 0, summary(none));
  assert.equal(none.stderr, 'No resources found in default namespace.\n');

  v19.clearAudit();
  const bad = await cli(['rollout', 'pause', 'cloneset/web', '-o', 'wide']);
  assert.equal(bad.code, 2, summary(bad));
  assert.deepEqual(writes(v19.audit()), []);

  const y = await cli(['rollout', 'restart', 'deployment/api', '-o', 'yaml']);
  assert.equal(y.code, 0, summary(y));
  assert.match(y.stdout, /^kind: Deployment$/m);
  assert.match(y.stdout, /kubectl\.kubernetes\.io\/restartedAt: /);
  assert.ok((await getObject(v19, PATHS.deployment())).spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt']);
});
