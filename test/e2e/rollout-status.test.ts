// `rollout status` against the sandbox (Kruise v1.9 imitation): partition rollouts, full
// rollouts, failure detection, paused, timeout, deletion while waiting, and `kubectl kruise`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { junit } from '../helpers/junit';
import { runCli, streamCli } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { applyFixture, FIXTURES, getObject, kubectlKruise, isPodReady, jsonLines, kubectlOk, PATHS, podsOf, summary, waitSettled } from './rollout-helpers';

let sb: Sandbox;

before(async () => {
  sb = await startSandbox({ kruise: 'v1.9', readyDelay: '150ms' });
  await applyFixture(sb, 'cloneset-web.yaml');
  await waitSettled(sb, PATHS.cloneset());
});

after(async () => {
  await sb?.stop();
});

async function setImage(image: string, extra: Record<string, unknown> = {}): Promise<void> {
  const patch = { spec: { template: { spec: { containers: [{ name: 'app', image }] } }, ...extra } };
  await kubectlOk(sb, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', JSON.stringify(patch)]);
}

test('partition 90% of 8: exits 0 once exactly 1 pod is updated and ready, state PartitionComplete', async () => {
  await setImage('nginx:1.26', { updateStrategy: { partition: '90%' } });
  const r = await runCli(['rollout', 'status', 'cloneset/web', '-o', 'json', '--timeout=30s'], { kubeconfig: sb.kubeconfig, timeoutMs: 40_000 });
  assert.equal(r.code, 0, summary(r));
  const lines = jsonLines(r.stdout);
  const last = lines[lines.length - 1];
  assert.equal(last.state, 'PartitionComplete');
  assert.equal(last.expectedUpdatedReplicas, 1);
  assert.equal(last.updatedReadyReplicas, 1);
  assert.equal(last.partition, 7);
  assert.equal(last.replicas, 8);
  assert.equal(last.kind, 'CloneSet');
  for (const l of lines.slice(0, -1)) assert.ok(['Progressing'].includes(l.state), `intermediate state ${l.state}`);
  for (const key of ['apiVersion', 'namespace', 'name', 'updatedReplicas', 'updateRevision', 'currentRevision', 'message']) assert.ok(key in last, key);
  // Read back through the API: exactly one pod at the update revision, and it is ready.
  const cs = await getObject(sb, PATHS.cloneset());
  const pods = await podsOf(sb, 'app=web');
  const updated = pods.filter((p) => p.metadata.labels['controller-revision-hash'] === cs.status.updateRevision);
  assert.equal(updated.length, 1);
  assert.ok(isPodReady(updated[0]));
  assert.equal(cs.status.expectedUpdatedReplicas, 1);
});

test('partition 0: waits for all 8 and reports Complete (human output through kubectl kruise)', async () => {
  await kubectlOk(sb, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', '{"spec":{"updateStrategy":{"partition":0}}}']);
  // Through kubectl's plugin mechanism, with bin/ on PATH.
  const r = await kubectlKruise(sb, ['rollout', 'status', 'cloneset/web', '--timeout=30s']);
  assert.equal(r.code, 0, summary(r));
  assert.match(r.stdout, /cloneset "web" successfully rolled out\n$/);
  const lines = r.stdout.trim().split('\n');
  assert.equal(new Set(lines).size, lines.length, 'no repeated lines');
  const cs = await getObject(sb, PATHS.cloneset());
  assert.equal(cs.status.updatedReadyReplicas, 8);
  assert.equal(cs.status.replicas, 8);
  const pods = await podsOf(sb, 'app=web');
  assert.equal(pods.filter((p) => p.metadata.labels['controller-revision-hash'] === cs.status.updateRevision && isPodReady(p)).length, 8);
});

test("-o name: each gated object's name once, when it passes, as kubectl's name printer writes it; no summary table", async () => {
  await applyFixture(sb, 'statefulset-cache.yaml');
  await setImage('nginx:1.29');
  const r = await runCli(['rollout', 'status', 'cloneset/web', 'statefulset/cache', '-o', 'name', '--timeout=30s'], { kubeconfig: sb.kubeconfig, timeoutMs: 40_000 });
  assert.equal(r.code, 0, summary(r));
  const lines = r.stdout.split('\n');
  assert.equal(lines.pop(), '', 'each name ends its line');
  assert.deepEqual(lines.sort(), ['cloneset.apps.kruise.io/web', 'statefulset.apps/cache']);
  await waitSettled(sb, PATHS.cloneset());
});

test('a fail-pull image fails the rollout after --failure-grace, naming the pod and the reason', async () => {
  await setImage('nginx:fail-pull');
  const r = await runCli(['rollout', 'status', 'cloneset/web', '--failure-grace=2s', '--timeout=40s'], { kubeconfig: sb.kubeconfig, timeoutMs: 50_000 });
  assert.equal(r.code, 1, summary(r));
  assert.match(r.stderr, /^error: cloneset "web" rollout failed: pod "web-[a-z0-9]+" container "app" is in (ErrImagePull|ImagePullBackOff)/m);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  await setImage('nginx:1.27');
  await waitSettled(sb, PATHS.cloneset(), 30_000);
});

test('paused with --watch=false exits 4 (Paused); --watch=false on a finished rollout exits 0', async () => {
  const done = await runCli(['rollout', 'status', 'cloneset/web', '--watch=false', '-o', 'json'], { kubeconfig: sb.kubeconfig });
  assert.equal(done.code, 0, summary(done));
  assert.equal(jsonLines(done.stdout).pop().state, 'Complete');
  // An explicit --timeout=0 checks once, as kubectl wait --timeout=0 does (issue #32).
  const zeroDone = await runCli(['rollout', 'status', 'cloneset/web', '--timeout=0', '-o', 'json'], { kubeconfig: sb.kubeconfig });
  assert.equal(zeroDone.code, 0, summary(zeroDone));
  assert.equal(jsonLines(zeroDone.stdout).pop().state, 'Complete');
  sb.clearAudit();
  const both = await runCli(['rollout', 'status', 'cloneset/web', '--timeout=0', '--watch=true'], { kubeconfig: sb.kubeconfig });
  assert.equal(both.code, 2, summary(both));
  assert.match(both.stderr, /^error: --timeout=0 checks once and --watch=true waits: give one of them\n/);
  assert.deepEqual(sb.audit(), [], 'a refused flag pair sends nothing');
  const pause = await runCli(['rollout', 'pause', 'cloneset/web'], { kubeconfig: sb.kubeconfig });
  assert.equal(pause.code, 0, summary(pause));
  await setImage('nginx:1.28');
  await waitUntil('generation observed', async () => {
    const cs = await getObject(sb, PATHS.cloneset());
    return cs.status.observedGeneration >= cs.metadata.generation;
  });
  const r = await runCli(['rollout', 'status', 'cloneset/web', '--watch=false', '-o', 'json'], { kubeconfig: sb.kubeconfig });
  assert.equal(r.code, 4, summary(r));
  assert.equal(jsonLines(r.stdout).pop().state, 'Paused');
  // Not passed: -o name prints nothing.
  const names = await runCli(['rollout', 'status', 'cloneset/web', '--watch=false', '-o', 'name'], { kubeconfig: sb.kubeconfig });
  assert.equal(names.code, 4, summary(names));
  assert.equal(names.stdout, '');
  // --timeout=0 on the paused rollout: one read of each object, no watch, exit 4 at once.
  sb.clearAudit();
  const zero = await runCli(['rollout', 'status', 'cloneset/web', '--timeout=0s', '-o', 'json'], { kubeconfig: sb.kubeconfig, timeoutMs: 15_000 });
  assert.equal(zero.code, 4, summary(zero));
  assert.equal(jsonLines(zero.stdout).pop().state, 'Paused');
  assert.deepEqual(sb.audit().filter((e) => e.verb === 'watch' || /[?&]watch=(true|1)/.test(e.query)), [], 'no watch');
  const resume = await runCli(['rollout', 'resume', 'cloneset/web'], { kubeconfig: sb.kubeconfig });
  assert.equal(resume.code, 0, summary(resume));
  await waitSettled(sb, PATHS.cloneset(), 30_000);
});

test('--timeout=2s on a slow rollout exits 3 (TimedOut)', async () => {
  await setImage('nginx:slow');
  sb.clearAudit();
  const started = Date.now();
  const r = await runCli(['rollout', 'status', 'cloneset/web', '--timeout=2s', '-o', 'json'], { kubeconfig: sb.kubeconfig, timeoutMs: 20_000 });
  assert.equal(r.code, 3, summary(r));
  assert.equal(jsonLines(r.stdout).pop().state, 'TimedOut');
  assert.match(r.stderr, /^error: timed out waiting for cloneset "web" rollout to finish: \d+ of 8 /m);
  assert.doesNotMatch(r.stderr, /Waiting for/, 'the timeout error does not repeat the waiting line');
  assert.ok(Date.now() - started >= 2_000);
  // Its pods were listed in kubectl's pages (--chunk-size 500).
  const podLists = sb.audit().filter((e) => e.verb === 'list' && e.path.endsWith('/pods'));
  assert.ok(podLists.length >= 1 && podLists.every((e) => new URLSearchParams(e.query).get('limit') === '500'), JSON.stringify(podLists));
  await waitSettled(sb, PATHS.cloneset(), 30_000);
});

test('deleting the CloneSet while waiting exits 1', async () => {
  await setImage('registry.example.com/nginx:slow');
  const s = streamCli(['rollout', 'status', 'cloneset/web', '--timeout=30s'], { kubeconfig: sb.kubeconfig });
  await s.waitFor(/Waiting for cloneset "web"/);
  await kubectlOk(sb, ['delete', 'clonesets.apps.kruise.io', 'web', '--wait=false']);
  const r = await waitUntil('rollout status to exit', async () => (s.child.exitCode !== null ? true : undefined), 20_000).then(() => s.stop());
  assert.equal(r.code, 1, summary(r));
  assert.match(r.stderr, /^error: cloneset "web" was deleted while waiting for its rollout to finish$/m);
});

test('invalid input exits 2 before anything is sent', async () => {
  sb.clearAudit();
  for (const args of [
    ['rollout', 'status', 'cloneset/web', '--timeout=abc'],
    ['rollout', 'status', 'cloneset/Web_1'],
    ['rollout', 'status', 'cloneset/web', '-o', 'wide'],
    ['rollout', 'status', 'cloneset/web', '--watch=maybe'],
    ['rollout', 'status'],
  ]) {
    const r = await runCli(args, { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 2, `${args.join(' ')}: ${summary(r)}`);
    assert.match(r.stderr, /^error: /);
  }
  assert.equal(sb.audit().length, 0);
});

test('request budget: status of a finished rollout lists once, no pod list, no discovery on a warm cache', async () => {
  await applyFixture(sb, 'cloneset-web.yaml');
  await waitSettled(sb, PATHS.cloneset(), 30_000);
  // -f names the objects of a manifest (and warms the discovery cache).
  const fromFile = await runCli(['rollout', 'status', '-f', join(FIXTURES, 'cloneset-web.yaml'), '--watch=false'], { kubeconfig: sb.kubeconfig });
  assert.equal(fromFile.code, 0, summary(fromFile));
  // A manifest is a release: its one workload, then the summary table (issue #28).
  assert.equal(fromFile.stdout, 'cloneset "web" successfully rolled out\n\nWORKLOAD       VERDICT    UPDATED   READY   TIME   REASON\n' + `cloneset/web   complete   8/8       8/8     ${fromFile.stdout.match(/ (\d+\.\d)s /)?.[1]}s   cloneset "web" successfully rolled out\n` + '1 workload: 1 complete; exit 0\n');
  sb.clearAudit();
  const r = await runCli(['rollout', 'status', 'cloneset/web'], { kubeconfig: sb.kubeconfig });
  assert.equal(r.code, 0, summary(r));
  const requests = sb.audit().filter((e) => e.verb !== 'watch');
  assert.ok(requests.length <= 2, JSON.stringify(requests));
  assert.ok(!requests.some((e) => /\/pods/.test(e.path)), 'no pod list for a finished rollout');
  assert.ok(!requests.some((e) => e.path === '/apis' || e.path === '/api' || e.path.startsWith('/apis/apps.kruise.io') && !e.path.includes('/namespaces/')), 'no discovery');
});

test('Ctrl-C while waiting stops with exit 130 and a one-line summary', async () => {
  await kubectlOk(sb, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', '{"spec":{"updateStrategy":{"paused":true},"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.30"}]}}}}']);
  const s = streamCli(['rollout', 'status', 'cloneset/web'], { kubeconfig: sb.kubeconfig });
  await s.waitFor(/rollout is paused/);
  const r = await s.stop('SIGINT');
  assert.equal(r.code, 130, summary(r));
  assert.match(r.stderr, /^interrupted: stopped waiting for 1 rollout$/m);
  assert.doesNotMatch(r.stderr, /\n\s+at /);

  // In a CI job (a cancel sends SIGINT): the lines held back for the object's group are printed, and the
  // JUnit file and job summary are written with the object stopped, not lost with the process.
  const junitFile = join(sb.dir, 'interrupted.xml');
  const stepSummary = join(sb.dir, 'interrupted-summary.md');
  writeFileSync(stepSummary, '');
  sb.clearAudit();
  const ci = streamCli(['rollout', 'status', 'cloneset/web', '--ci=github', '--junit', junitFile], { kubeconfig: sb.kubeconfig, env: { GITHUB_STEP_SUMMARY: stepSummary } });
  // The gate reports the paused state before it starts on the pods (status-watch.ts evaluate): a pod request means it was seen.
  await waitUntil('the gate lists the pods', async () => sb.audit().some((e) => e.path === '/api/v1/namespaces/default/pods'));
  const cr = await ci.stop('SIGINT');
  assert.equal(cr.code, 130, summary(cr));
  assert.match(cr.stdout, /^::group::cloneset\/web: not finished \(Paused\)\ncloneset "web" rollout is paused: \d+ of 8 pods updated\n::endgroup::\n$/);
  assert.equal(junit(junitFile), '1 0 0 1\ncloneset/web Skipped\n');
  assert.match(readFileSync(stepSummary, 'utf8'), /^### kubectl kruise rollout status: interrupted\n/);
});

test("kubectl's flag spellings: -w before the resource, -o=json, -w=false, -l=SELECTOR", async () => {
  // The CloneSet was left paused by the previous test: a Deployment of its own.
  await applyFixture(sb, 'deployment-api.yaml');
  await waitSettled(sb, PATHS.deployment(), 30_000);
  for (const args of [
    ['rollout', 'status', '-w', 'deployment/api'],
    ['rollout', 'status', '--watch', 'deployment', 'api'],
    ['rollout', 'status', 'deployment/api', '-o=json', '-w=false'],
    ['rollout', 'status', 'deployment', '-l=app=api', '-w=false'],
  ]) {
    const r = await runCli(args, { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, `${args.join(' ')}: ${summary(r)}`);
    assert.match(r.stdout, /successfully rolled out/, args.join(' '));
  }
});

test('one named workload: its list goes out beside the lookup of a Kruise Rollout releasing it, not one round trip later', async () => {
  // 300 ms per request: sent one after the other, the two lists would start >= 300 ms apart.
  const slow = await startSandbox({ kruise: 'v1.9', readyDelay: '50ms', faults: { latencyMs: 300 } });
  try {
    await applyFixture(slow, 'deployment-api.yaml');
    await waitSettled(slow, PATHS.deployment(), 30_000);
    const warm = await runCli(['rollout', 'status', 'deployment/api', '--timeout=30s'], { kubeconfig: slow.kubeconfig, timeoutMs: 40_000 });
    assert.equal(warm.code, 0, summary(warm));
    slow.clearAudit();
    const r = await runCli(['rollout', 'status', 'deployment/api', '--timeout=30s'], { kubeconfig: slow.kubeconfig, timeoutMs: 40_000 });
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'deployment "api" successfully rolled out\n');
    const lists = slow.audit().filter((e) => e.verb === 'list');
    const rollouts = lists.find((e) => e.path.endsWith('/rollouts'));
    const workload = lists.find((e) => e.path.endsWith('/deployments'));
    assert.ok(rollouts && workload, JSON.stringify(lists));
    assert.equal(lists.length, 2, 'still one list each');
    const apart = Math.abs(Date.parse(rollouts.time) - Date.parse(workload.time));
    assert.ok(apart < 200, `the lists started ${apart} ms apart`);
  } finally {
    await slow.stop();
  }
});
