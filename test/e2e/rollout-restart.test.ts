// `rollout restart` (template annotation for ReCreate and native workloads, ContainerRecreateRequests
// for in-place CloneSets) and the native kinds: Deployment status/history/undo (paused → error),
// StatefulSet status with `-l`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { applyFixture, getObject, isPodReady, kubectlOk, PATHS, podsOf, summary, waitSettled, writes } from './rollout-helpers';

let sb: Sandbox;
const cli = (args: string[], timeoutMs = 40_000) => runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs });
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

before(async () => {
  sb = await startSandbox({ kruise: 'v1.9', readyDelay: '50ms' });
  await applyFixture(sb, 'cloneset-web.yaml');
  await applyFixture(sb, 'deployment-api.yaml');
  await applyFixture(sb, 'statefulset-cache.yaml');
  // An in-place CloneSet of 3 pods.
  const inplace = {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: 'inpl', namespace: 'default' },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'inpl' } },
      template: { metadata: { labels: { app: 'inpl' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] } },
      updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 },
    },
  };
  const created = await sb.api('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets', inplace);
  assert.equal(created.status, 201, created.text);
  await Promise.all([waitSettled(sb, PATHS.cloneset()), waitSettled(sb, PATHS.cloneset('v1alpha1', 'inpl')), waitSettled(sb, PATHS.deployment())]);
});

after(async () => {
  await sb?.stop();
});

test('restart of a ReCreate CloneSet sets the restartedAt template annotation and replaces the pods', async () => {
  const oldPods = new Set((await podsOf(sb, 'app=web')).map((p) => p.metadata.uid));
  sb.clearAudit();
  const r = await cli(['rollout', 'restart', 'cloneset/web']);
  assert.equal(r.code, 0, summary(r));
  assert.equal(r.stdout, 'cloneset.apps.kruise.io/web restarted\n');
  const w = writes(sb.audit());
  assert.equal(w.length, 1);
  assert.equal(w[0]!.contentType, 'application/merge-patch+json');
  const cs = await getObject(sb, PATHS.cloneset());
  assert.match(cs.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt'], RFC3339);
  const s = await cli(['rollout', 'status', 'cloneset/web', '--timeout=30s']);
  assert.equal(s.code, 0, summary(s));
  const pods = await podsOf(sb, 'app=web');
  assert.equal(pods.length, 8);
  assert.ok(pods.every((p) => !oldPods.has(p.metadata.uid)), 'every pod was recreated');
});

test('restart of an in-place CloneSet goes through ContainerRecreateRequests: same pods, restartCount +1', async () => {
  const before = await podsOf(sb, 'app=inpl');
  const r = await cli(['rollout', 'restart', 'cloneset/inpl'], 60_000);
  assert.equal(r.code, 0, summary(r));
  assert.match(r.stdout, /^cloneset\.apps\.kruise\.io\/inpl has an in-place update policy: restarting containers through ContainerRecreateRequests$/m);
  assert.match(r.stdout, /cloneset\.apps\.kruise\.io\/inpl restarted/);
  // One line per batch (the workload's maxUnavailable 1: three batches), like `restart`; no per-pod progress lines.
  assert.deepEqual(r.stderr.split('\n').filter(Boolean).map((l) => l.replace(/:.*/, '')), ['batch 1/3', 'batch 2/3', 'batch 3/3'], summary(r));
  const cs = await getObject(sb, PATHS.cloneset('v1alpha1', 'inpl'));
  assert.equal(cs.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'], undefined, 'no template change');
  const crrs = await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/containerrecreaterequests');
  assert.equal(crrs.body.items.length, 3);
  const after = await waitUntil('pods ready again', async () => {
    const pods = await podsOf(sb, 'app=inpl');
    return pods.length === 3 && pods.every(isPodReady) ? pods : undefined;
  });
  for (const p of before) {
    const same = after.find((x: any) => x.metadata.uid === p.metadata.uid);
    assert.ok(same, `pod ${p.metadata.name} kept its UID`);
    assert.equal(same.status.containerStatuses[0].restartCount, p.status.containerStatuses[0].restartCount + 1);
  }
});

test('rollout restart --max-unavailable of an in-place CloneSet: one batch of 3, one line; invalid values exit 2 before any request', async () => {
  const before = await waitUntil('inpl ready', async () => {
    const pods = await podsOf(sb, 'app=inpl');
    return pods.length === 3 && pods.every(isPodReady) ? pods : undefined;
  });
  sb.clearAudit();
  const r = await cli(['rollout', 'restart', 'cloneset/inpl', '--max-unavailable=3'], 60_000);
  assert.equal(r.code, 0, summary(r));
  assert.deepEqual(r.stderr.split('\n').filter(Boolean), [`batch 1/1: 3/3 pods restarted (${before.map((p: any) => p.metadata.name).sort((a: string, b: string) => a.localeCompare(b, 'en', { numeric: true })).join(', ')})`], summary(r));
  const creates = sb.audit().filter((e) => e.verb === 'create' && e.path.endsWith('/containerrecreaterequests'));
  assert.equal(creates.length, 3);
  const times = creates.map((e) => Date.parse(e.time));
  assert.ok(Math.max(...times) - Math.min(...times) < 250, 'the three CRRs are created together, not one pod at a time');

  sb.clearAudit();
  const bad = await cli(['rollout', 'restart', 'cloneset/inpl', '--max-unavailable=0']);
  assert.equal(bad.code, 2, summary(bad));
  assert.match(bad.stderr, /^error: invalid --max-unavailable "0": must be at least 1$/m);
  assert.deepEqual(writes(sb.audit()), []);
});

test('rollout restart -l matching nothing prints kubectl\'s "No resources found in default namespace." and exits 0, writing nothing', async () => {
  sb.clearAudit();
  const r = await cli(['rollout', 'restart', 'deployment', '-l', 'app=nothing']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, 'No resources found in default namespace.\n');
  assert.equal(r.stdout, '');
  assert.deepEqual(sb.audit().filter((e) => !['get', 'list', 'watch'].includes(e.verb)), []);
});

test('Deployment: restart, history, undo refused while paused, undo', async () => {
  const r = await cli(['rollout', 'restart', 'deploy/api']);
  assert.equal(r.code, 0, summary(r));
  assert.equal(r.stdout, 'deployment.apps/api restarted\n');
  const s = await cli(['rollout', 'status', 'deployment/api', '--timeout=30s']);
  assert.equal(s.code, 0, summary(s));
  assert.match(s.stdout, /deployment "api" successfully rolled out\n$/);
  const pinned = await cli(['rollout', 'status', 'deployment/api', '--revision=2', '--watch=false']);
  assert.equal(pinned.code, 0, summary(pinned));
  const wrong = await cli(['rollout', 'status', 'deployment/api', '--revision=9']);
  assert.equal(wrong.code, 1, summary(wrong));
  assert.match(wrong.stderr, /^error: desired revision \(9\) is different from the running revision \(2\)/);
  const h = await cli(['rollout', 'history', 'deployment/api']);
  assert.equal(h.code, 0, summary(h));
  assert.match(h.stdout, /^1\s+<none>\s+ghcr\.io\/example\/api:1\.7\.3\s+0$/m);
  assert.match(h.stdout, /^2\s+<none>\s+ghcr\.io\/example\/api:1\.7\.3\s+2$/m);
  assert.equal((await cli(['rollout', 'pause', 'deployment/api'])).code, 0);
  sb.clearAudit();
  const refused = await cli(['rollout', 'undo', 'deployment/api']);
  assert.equal(refused.code, 1, summary(refused));
  assert.match(refused.stderr, /^error: you cannot rollback a paused deployment; resume it first/);
  assert.deepEqual(writes(sb.audit()), []);
  assert.equal((await cli(['rollout', 'resume', 'deployment/api'])).code, 0);
  const u = await cli(['rollout', 'undo', 'deployment/api']);
  assert.equal(u.code, 0, summary(u));
  const d = await getObject(sb, PATHS.deployment());
  assert.equal(d.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'], undefined, 'the restart annotation is gone with the old template');
  assert.equal(d.spec.template.metadata.labels['pod-template-hash'], undefined);
  const s2 = await cli(['rollout', 'status', 'deployment/api', '--timeout=30s']);
  assert.equal(s2.code, 0, summary(s2));
});

test('native StatefulSet status with -l awaits every match', async () => {
  const r = await cli(['rollout', 'status', 'statefulset', '-l', 'app=cache', '--timeout=30s', '-o', 'json']);
  assert.equal(r.code, 0, summary(r));
  const last = JSON.parse(r.stdout.trim().split('\n').pop()!);
  assert.equal(last.name, 'cache');
  assert.equal(last.state, 'Complete');
  const none = await cli(['rollout', 'status', 'statefulset', '-l', 'app=nothing', '--timeout=5s']);
  assert.equal(none.code, 1, summary(none));
  // A gate never passes on nothing: kubectl's words, exit 1 (issue #14 item 10).
  assert.equal(none.stderr, 'No resources found in default namespace.\n');
});

test('several objects are awaited concurrently; the exit code is the worst', async () => {
  const r = await cli(['rollout', 'status', 'cloneset/web', 'deployment/api', 'sts/cache', '-o', 'json', '--timeout=30s']);
  assert.equal(r.code, 0, summary(r));
  const finals = new Map<string, string>();
  for (const line of r.stdout.trim().split('\n')) {
    const o = JSON.parse(line);
    finals.set(`${o.kind}/${o.name}`, o.state);
  }
  assert.deepEqual(Object.fromEntries(finals), { 'CloneSet/web': 'Complete', 'Deployment/api': 'Complete', 'StatefulSet/cache': 'Complete' });
  assert.equal((await cli(['rollout', 'pause', 'cloneset/web'])).code, 0);
  await kubectlOk(sb, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.29"}]}}}}']);
  await waitUntil('generation observed', async () => {
    const cs = await getObject(sb, PATHS.cloneset());
    return cs.status.observedGeneration >= cs.metadata.generation;
  });
  const mixed = await cli(['rollout', 'status', 'cloneset/web', 'deployment/api', '--watch=false']);
  assert.equal(mixed.code, 4, summary(mixed));
  assert.match(mixed.stdout, /cloneset "web" rollout is paused/);
  assert.match(mixed.stdout, /deployment "api" successfully rolled out/);
  // A missing object ends the wait at once, even while another rollout (paused) is still waited for.
  const started = Date.now();
  const missing = await cli(['rollout', 'status', 'cloneset/web', 'cloneset/missing', '--timeout=20s']);
  assert.equal(missing.code, 1, summary(missing));
  assert.match(missing.stderr, /^error: clonesets\.apps\.kruise\.io "missing" not found in namespace "default"$/m);
  assert.ok(Date.now() - started < 15_000, 'did not wait for the paused rollout');
  assert.equal((await cli(['rollout', 'resume', 'cloneset/web'])).code, 0);
});
