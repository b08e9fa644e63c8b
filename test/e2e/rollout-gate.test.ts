// The rollout-status CI gate (issues #13/#14) on the sandbox: `rollout status` passes in none of
// the gate cases (a partition batch not yet available, stale partition arithmetic after
// `rollout undo`, an Advanced DaemonSet whose surge pods crashloop), an unreadable API is not a
// timeout, a failing pod is named while its grace runs down, -o yaml|jsonpath, -l matching nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAllDocuments } from 'yaml';
import { join } from 'node:path';
import { REPO_ROOT, runCli, streamCli } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';
import { applyFixture, getObject, isPodReady, jsonLines, kubectlOk, PATHS, podsOf, summary, waitSettled } from './rollout-helpers';

let sb: Sandbox;
let master: Sandbox;

before(async () => {
  [sb, master] = await Promise.all([startSandbox({ kruise: 'v1.9', readyDelay: '150ms' }), startSandbox({ kruise: 'master', readyDelay: '150ms' })]);
});

after(async () => {
  await Promise.all([sb?.stop(), master?.stop()]);
});

const cli = (s: Sandbox, args: string[], timeoutMs = 40_000) => runCli(args, { kubeconfig: s.kubeconfig, timeoutMs });

test('partition batch: not done before the updated pod is available (minReadySeconds), like Kruise CloneSetPartitionAvailable', async () => {
  await applyFixture(sb, 'cloneset-web.yaml');
  await waitSettled(sb, PATHS.cloneset());
  const patch = { spec: { minReadySeconds: 4, updateStrategy: { partition: 7 }, template: { spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] } } } };
  await kubectlOk(sb, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', JSON.stringify(patch)]);
  const r = await cli(sb, ['rollout', 'status', 'cloneset/web', '-o', 'json', '--timeout=30s']);
  assert.equal(r.code, 0, summary(r));
  const last = jsonLines(r.stdout).pop();
  assert.equal(last.state, 'PartitionComplete');
  // Read back: when the gate passed, Kruise's own count said the batch was available.
  const cs = await getObject(sb, PATHS.cloneset());
  assert.ok(cs.status.updatedAvailableReplicas >= 1, `updatedAvailableReplicas ${cs.status.updatedAvailableReplicas} when the gate passed`);
  assert.ok(jsonLines(r.stdout).some((l) => /1 updated pods are ready|0 of 1 updated pods are available/.test(l.message)), 'said it waited for availability');
  await kubectlOk(sb, ['delete', 'clonesets.apps.kruise.io', 'web']);
});

test('Kruise v1.3 (no updatedAvailableReplicas): the partition batch counts as done only minReadySeconds after its pod became ready', async () => {
  const v13 = await startSandbox({ kruise: 'v1.3', readyDelay: '100ms', crds: join(REPO_ROOT, '../shared/kruise-crds/v1.3.0') });
  try {
    await applyFixture(v13, 'cloneset-web.yaml');
    await waitSettled(v13, PATHS.cloneset());
    const patch = { spec: { minReadySeconds: 4, updateStrategy: { partition: 7 }, template: { spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] } } } };
    await kubectlOk(v13, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', JSON.stringify(patch)]);
    const r = await cli(v13, ['rollout', 'status', 'cloneset/web', '-o', 'json', '--timeout=30s']);
    const exitedAt = Date.now();
    assert.equal(r.code, 0, summary(r));
    assert.equal(jsonLines(r.stdout).pop().state, 'PartitionComplete');
    const cs = await getObject(v13, PATHS.cloneset());
    assert.equal(cs.status.updatedAvailableReplicas, undefined, 'the v1.3 status has no updatedAvailableReplicas');
    const updated = (await podsOf(v13, 'app=web')).filter((p) => p.metadata.labels['controller-revision-hash'] === cs.status.updateRevision);
    assert.equal(updated.length, 1);
    const readySince = Date.parse(updated[0].status.conditions.find((c: any) => c.type === 'Ready').lastTransitionTime);
    assert.ok(exitedAt >= readySince + 4_000, `exited ${exitedAt - readySince} ms after the pod became ready (minReadySeconds 4)`);
  } finally {
    await v13.stop();
  }
});

test('`rollout undo asts/db` under a partition: no "partition rollout complete" while pods still run the undone revision', async () => {
  await applyFixture(master, 'asts-db.yaml');
  await kubectlOk(master, ['patch', 'statefulsets.apps.kruise.io', 'db', '--type', 'merge', '-p', '{"spec":{"replicas":4,"updateStrategy":{"rollingUpdate":{"partition":2}}}}']);
  await waitSettled(master, PATHS.asts());
  await kubectlOk(master, ['patch', 'statefulsets.apps.kruise.io', 'db', '--type', 'merge', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"mysql","image":"mysql:8.1"}]}}}}']);
  const first = await cli(master, ['rollout', 'status', 'asts/db', '--timeout=30s']);
  assert.equal(first.code, 0, summary(first));
  assert.match(first.stdout, /partition rollout complete: 2 of 4 pods updated \(2 kept/);
  const undo = await cli(master, ['rollout', 'undo', 'asts/db']);
  assert.equal(undo.code, 0, summary(undo));
  const r = await cli(master, ['rollout', 'status', 'asts/db', '-o', 'json', '--timeout=30s']);
  assert.equal(r.code, 0, summary(r));
  const lines = jsonLines(r.stdout);
  assert.equal(lines.pop().state, 'Complete', summary(r));
  for (const l of lines) assert.doesNotMatch(l.message, /partition rollout complete|kept at the old revision/);
  // Every pod runs the restored template and is ready.
  const pods = await podsOf(master, 'app=db');
  assert.equal(pods.length, 4);
  for (const p of pods) {
    assert.equal(p.spec.containers[0].image, 'mysql:8.0', p.metadata.name);
    assert.ok(isPodReady(p), `${p.metadata.name} ready`);
  }
});

test('v1beta1 CloneSet, partition 50%, then `rollout undo`: the partition keeps the undone pods, as Kruise does, and says so truthfully', async () => {
  await applyFixture(master, 'cloneset-web-v1beta1.yaml');
  await kubectlOk(master, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', '{"spec":{"replicas":4}}']);
  await waitSettled(master, PATHS.cloneset('v1beta1'));
  const patch = { spec: { updateStrategy: { rollingUpdate: { partition: '50%' } }, template: { spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] } } } };
  await kubectlOk(master, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', JSON.stringify(patch)]);
  const first = await cli(master, ['rollout', 'status', 'cloneset/web', '--timeout=30s']);
  assert.equal(first.code, 0, summary(first));
  assert.match(first.stdout, /partition rollout complete: 2 of 4 pods updated \(2 kept/);
  const undo = await cli(master, ['rollout', 'undo', 'cloneset/web']);
  assert.equal(undo.code, 0, summary(undo));
  const r = await cli(master, ['rollout', 'status', 'cloneset/web', '-o', 'json', '--timeout=30s']);
  assert.equal(r.code, 0, summary(r));
  const last = jsonLines(r.stdout).pop();
  // What the line claims is what the pods are: 2 at the update revision (ready), 2 kept at another one.
  const cs = await getObject(master, PATHS.cloneset('v1beta1'));
  const pods = await podsOf(master, 'app=web');
  const atUpdate = pods.filter((p) => p.metadata.labels['controller-revision-hash'] === cs.status.updateRevision);
  assert.equal(last.state, atUpdate.length === 4 ? 'Complete' : 'PartitionComplete', summary(r));
  assert.equal(last.updatedReplicas, atUpdate.length);
  assert.equal(last.partition, 4 - atUpdate.length);
  for (const p of atUpdate) assert.ok(isPodReady(p), `${p.metadata.name} ready`);
  for (const l of jsonLines(r.stdout)) assert.ok(l.updatedReplicas + l.partition <= 4, `no line claims more pods than exist: ${l.message}`);
});

test('Advanced DaemonSet, maxSurge 100%: crashlooping surge pods fail the gate after --failure-grace (status counts a node by its oldest pod)', async () => {
  await applyFixture(sb, 'ads-agent-surge.yaml');
  await waitSettled(sb, PATHS.ads());
  await kubectlOk(sb, ['patch', 'daemonsets.apps.kruise.io', 'agent', '--type', 'merge', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"agent","image":"fluent/fluent-bit:crashloop"}]}}}}']);
  const r = await cli(sb, ['rollout', 'status', 'ads/agent', '--failure-grace=2s', '--timeout=30s']);
  assert.equal(r.code, 1, summary(r));
  assert.match(r.stderr, /^error: advanced daemonset "agent" rollout failed: pod "agent-[a-z0-9]+" container "agent" is in CrashLoopBackOff/m);
  // The sandbox's status agrees with Kruise: no node is updated while its old pod is the oldest.
  const ads = await getObject(sb, PATHS.ads());
  assert.ok(ads.status.numberAvailable < ads.status.desiredNumberScheduled || ads.status.updatedNumberScheduled < ads.status.desiredNumberScheduled, JSON.stringify(ads.status));
  await kubectlOk(sb, ['delete', 'daemonsets.apps.kruise.io', 'agent']);
});

test('a failing pod is named while its grace runs down (human line and JSON Lines)', async () => {
  await applyFixture(sb, 'cloneset-web.yaml');
  await waitSettled(sb, PATHS.cloneset());
  await kubectlOk(sb, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', '{"spec":{"updateStrategy":{"partition":0},"template":{"spec":{"containers":[{"name":"app","image":"nginx:fail-pull"}]}}}}']);
  const human = streamCli(['rollout', 'status', 'cloneset/web', '--failure-grace=60s'], { kubeconfig: sb.kubeconfig });
  await human.waitFor(/pod web-[a-z0-9]+ (ErrImagePull|ImagePullBackOff), failing the rollout in \d+s/, 20_000);
  await human.stop();
  const json = streamCli(['rollout', 'status', 'cloneset/web', '--failure-grace=60s', '-o', 'json'], { kubeconfig: sb.kubeconfig });
  const out = await json.waitFor(/"failingPod":\{[^}]*"failingInSeconds":\d+/, 20_000);
  await json.stop();
  const line = jsonLines(out).find((l) => l.failingPod);
  assert.match(line.failingPod.name, /^web-/);
  assert.ok(line.failingPod.failingInSeconds <= 60 && line.failingPod.failingInSeconds > 0);
  await kubectlOk(sb, ['delete', 'clonesets.apps.kruise.io', 'web']);
});

test('-o yaml and -o jsonpath (no trailing newline); -l matching nothing fails like kubectl', async () => {
  await applyFixture(sb, 'cloneset-web.yaml');
  await waitSettled(sb, PATHS.cloneset());
  const path = await cli(sb, ['rollout', 'status', 'cloneset/web', '-o', 'jsonpath={.state}']);
  assert.equal(path.code, 0, summary(path));
  assert.equal(path.stdout, 'Complete');
  const yaml = await cli(sb, ['rollout', 'status', 'cloneset/web', '-o', 'yaml']);
  assert.equal(yaml.code, 0, summary(yaml));
  const docs = parseAllDocuments(yaml.stdout).map((d) => d.toJS());
  assert.equal(docs.pop().state, 'Complete');
  sb.clearAudit();
  const none = await cli(sb, ['rollout', 'status', 'cloneset', '-l', 'app=nothing-here', '--timeout=10s']);
  assert.equal(none.code, 1, summary(none));
  assert.equal(none.stderr, 'No resources found in default namespace.\n');
  assert.equal(none.stdout, '');
});

test('every request failing: exit 1 with the API error, not 3 "timed out"', async () => {
  const faulty = await startSandbox({ kruise: 'v1.9', readyDelay: '50ms', faults: { errorRate: { list: 1, watch: 1 } } });
  try {
    await applyFixture(faulty, 'cloneset-web.yaml');
    await waitSettled(faulty, PATHS.cloneset());
    const r = await cli(faulty, ['rollout', 'status', 'cloneset/web', '--timeout=3s']);
    assert.equal(r.code, 1, summary(r));
    assert.match(r.stderr, /^error: /m);
    assert.doesNotMatch(r.stderr, /timed out waiting/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    await faulty.stop();
  }
});

test('--request-timeout below the server latency: every request is cut and retried until --timeout, then exit 3 naming the server and the request timeout (issue #25: the deadline bounds the whole command)', async () => {
  const slow = await startSandbox({ kruise: 'v1.9', readyDelay: '50ms', faults: { latencyMs: 800 } });
  try {
    await applyFixture(slow, 'cloneset-web.yaml');
    await waitSettled(slow, PATHS.cloneset(), 30_000);
    const started = Date.now();
    const r = await cli(slow, ['rollout', 'status', 'cloneset/web', '--timeout=3s', '--request-timeout=200ms']);
    assert.equal(r.code, 3, summary(r));
    assert.match(r.stderr, /^error: timed out .*no answer from the server at http:\/\/127\.0\.0\.1:\d+ \(last error: .*timed out after 200ms \(--request-timeout\)\)$/m);
    assert.equal(r.stderr.trim().split('\n').length, 1, 'one line');
    assert.ok(Date.now() - started < 6_000, 'within the deadline');
  } finally {
    await slow.stop();
  }
});
