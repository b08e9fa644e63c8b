// Issue #17 acceptance for the SidecarSet commands, on the sandbox (Kruise v1.9 CRDs, schema-validated
// writes): a SidecarSet "log" injected into a CloneSet's 3 pods and a Deployment's 2;
// `set image sidecarset/log logger=...` with partition 2 / maxUnavailable 1 upgrades 3 pods in place
// (same UIDs, restartCount up) and keeps 2; `rollout status` exits 0 only then and reports the
// partition; `rollout pause` stops a second upgrade midway (read back through the API) and `resume`
// finishes it; an unknown sidecar container is one error line, exit 2, and no write.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { kubectl, REPO_ROOT, runCli, streamCli } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { jsonLines, summary, writes } from './rollout-helpers';

const SS_PATH = '/apis/apps.kruise.io/v1alpha1/sidecarsets/log';
let sb: Sandbox;
const cli = (args: string[], timeoutMs = 40_000) => runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs });

interface PodState {
  uid: string;
  owner: string;
  image: string;
  restarts: number;
}

async function loggerPods(): Promise<Map<string, PodState>> {
  const r = await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=logging%3Don');
  const out = new Map<string, PodState>();
  for (const p of r.body.items as any[]) {
    if (p.metadata.deletionTimestamp) continue;
    const spec = (p.spec.containers as any[]).find((c) => c.name === 'logger');
    const st = ((p.status?.containerStatuses ?? []) as any[]).find((c) => c.name === 'logger');
    out.set(p.metadata.name, { uid: p.metadata.uid, owner: p.metadata.ownerReferences?.[0]?.kind ?? '', image: spec?.image ?? '', restarts: st?.restartCount ?? -1 });
  }
  return out;
}

async function sidecarSet(): Promise<any> {
  const r = await sb.api('GET', SS_PATH);
  assert.equal(r.status, 200, r.text);
  return r.body;
}

/** The controller has seen the latest spec and every upgraded pod is ready again. */
async function settled(): Promise<any> {
  return waitUntil('the SidecarSet to settle', async () => {
    const o = await sidecarSet();
    const s = o.status ?? {};
    return s.observedGeneration >= o.metadata.generation && s.matchedPods === 5 && s.updatedPods === s.updatedReadyPods ? o : undefined;
  }, 20_000);
}

before(async () => {
  sb = await startSandbox({ kruise: 'v1.9', crds: '/work/shared/kruise-crds/v1.9.0', readyDelay: '700ms' });
  const r = await kubectl(['apply', '-f', join(REPO_ROOT, 'test/fixtures/sidecarset/e2e/log-stack.yaml')], sb.kubeconfig);
  assert.equal(r.code, 0, r.stderr);
  await waitUntil('5 injected pods, all ready', async () => {
    const s = (await sidecarSet()).status ?? {};
    return s.matchedPods === 5 && s.updatedReadyPods === 5;
  }, 20_000);
});

after(async () => {
  await sb?.stop();
});

test('new pods of both workloads got the sidecar', async () => {
  const pods = await loggerPods();
  assert.equal(pods.size, 5);
  assert.deepEqual([...pods.values()].map((p) => p.image), Array(5).fill('fluent-bit:3.0'));
  assert.deepEqual([...pods.values()].map((p) => p.owner).sort(), ['CloneSet', 'CloneSet', 'CloneSet', 'ReplicaSet', 'ReplicaSet']);
});

test('set image with an unknown sidecar container: one error line, exit 2, nothing written', async () => {
  sb.clearAudit();
  const r = await cli(['set', 'image', 'sidecarset/log', 'app=nginx:1.26']);
  assert.equal(r.code, 2, summary(r));
  assert.equal(r.stderr.split('\n')[0], 'error: unable to find container named "app" in sidecarset.apps.kruise.io/log');
  assert.doesNotMatch(r.stderr, /at .*\.(ts|js|cjs):\d+/);
  assert.deepEqual(writes(sb.audit()), []);
  assert.equal((await sidecarSet()).spec.containers[0].image, 'fluent-bit:3.0');
});

test('set image + rollout status: in-place upgrade of all but the partition\'s 2 pods; status exits 0 only then', async () => {
  const before = await loggerPods();
  const set = await cli(['set', 'image', 'sidecarset/log', 'logger=fluent-bit:3.1']);
  assert.equal(set.code, 0, summary(set));
  assert.equal(set.stdout, 'sidecarset.apps.kruise.io/log image updated\n');
  assert.equal(
    set.stderr,
    'Warning: sidecarset "log" will update the sidecar "logger" in place in 5 pods: cloneset/web (3), deployment/api (2) (the partition keeps 2 on the old sidecars)\n',
  );
  // Only the image path of the sidecar changed (read back through the API).
  const ss = await sidecarSet();
  assert.equal(ss.spec.containers[0].image, 'fluent-bit:3.1');
  assert.equal(ss.spec.updateStrategy.partition, 2);

  // -n is ignored for a cluster-scoped kind, as kubectl does.
  const st = await cli(['rollout', 'status', 'sidecarset/log', '-n', 'kube-system', '-o', 'json', '--timeout', '30s']);
  assert.equal(st.code, 0, summary(st));
  const lines = jsonLines(st.stdout);
  const last = lines.at(-1);
  assert.equal(last.state, 'PartitionComplete');
  assert.equal(last.kind, 'SidecarSet');
  assert.equal(last.name, 'log');
  assert.equal(last.partition, 2);
  assert.equal(last.replicas, 5);
  assert.equal(last.expectedUpdatedReplicas, 3);
  assert.equal(last.updatedReadyReplicas, 3);
  for (const l of lines.slice(0, -1)) assert.notEqual(l.state, 'PartitionComplete');

  // What the status said holds when it exits: exactly 3 pods run 3.1, in place (same UID, restartCount up).
  const now = await loggerPods();
  const upgraded = [...now].filter(([, p]) => p.image === 'fluent-bit:3.1');
  assert.equal(upgraded.length, 3, JSON.stringify([...now]));
  for (const [name, p] of now) {
    const was = before.get(name);
    assert.ok(was, `pod ${name} is not new`);
    assert.equal(p.uid, was.uid, `pod ${name} kept its UID`);
    assert.equal(p.restarts, p.image === 'fluent-bit:3.1' ? was.restarts + 1 : was.restarts, `pod ${name} restartCount`);
  }
  const human = await cli(['rollout', 'status', 'sidecarset/log', '--watch=false']);
  assert.equal(human.code, 0, summary(human));
  assert.equal(human.stdout, 'sidecarset "log" partition rollout complete: 3 of 5 matched pods updated (2 kept on the old sidecars by the partition)\n');
});

test('explain partition sidecarset/log: the partition against the matched pods, and the pods per sidecar revision', async () => {
  const r = await cli(['explain', 'partition', 'sidecarset/log', '-o', 'json']);
  assert.equal(r.code, 0, summary(r));
  const j = JSON.parse(r.stdout);
  assert.equal(j.kind, 'sidecarset');
  assert.equal(j.replicas, 5);
  assert.equal(j.partitionReplicas, 2);
  assert.equal(j.expectedUpdatedReplicas, 3);
  assert.equal(j.maxUnavailable, 1);
  assert.deepEqual(j.object, { kind: 'SidecarSet', namespace: '', name: 'log' });
  const hash = (await sidecarSet()).metadata.annotations['kruise.io/sidecarset-hash'];
  assert.deepEqual(j.live.revisions.map((x: any) => [x.revision === hash, x.current, x.pods]), [[true, 'update', 3], [false, 'other', 2]]);
  const text = await cli(['explain', 'partition', 'sidecarset/log']);
  assert.match(text.stdout, /^SidecarSet log: 5 matched pods, partition 2 → 2 pods stay at the old revision → expectedUpdatedReplicas 3\n/);
});

test('rollout pause stops an upgrade midway; resume finishes it', async () => {
  await settled();
  const set = await cli(['set', 'image', 'sidecarset/log', 'logger=fluent-bit:3.2']);
  assert.equal(set.code, 0, summary(set));
  await waitUntil('the first pod on 3.2', async () => [...(await loggerPods()).values()].some((p) => p.image === 'fluent-bit:3.2'), 20_000);
  const pause = await cli(['rollout', 'pause', 'sidecarset/log']);
  assert.equal(pause.code, 0, summary(pause));
  assert.equal(pause.stdout, 'sidecarset.apps.kruise.io/log paused\n');
  assert.equal((await sidecarSet()).spec.updateStrategy.paused, true);
  const paused = await settled();
  const upgradedAtPause = paused.status.updatedPods;
  assert.ok(upgradedAtPause >= 1 && upgradedAtPause < 3, `updatedPods ${upgradedAtPause}`);

  // Paused: --watch=false exits 4 and says so; a bounded wait times out (exit 3) with nothing more upgraded.
  const once = await cli(['rollout', 'status', 'sidecarset/log', '--watch=false', '-o', 'json']);
  assert.equal(once.code, 4, summary(once));
  assert.equal(jsonLines(once.stdout)[0].state, 'Paused');
  const wait = await cli(['rollout', 'status', 'sidecarset/log', '--timeout', '2s']);
  assert.equal(wait.code, 3, summary(wait));
  assert.match(wait.stderr, /^error: timed out waiting for sidecarset "log" rollout to finish: paused, /);
  assert.equal([...(await loggerPods()).values()].filter((p) => p.image === 'fluent-bit:3.2').length, upgradedAtPause);
  const again = await cli(['rollout', 'pause', 'sidecarset/log']);
  assert.equal(again.code, 1, summary(again));
  assert.equal(again.stderr, 'error: sidecarset.apps.kruise.io "log" is already paused\n');

  const resume = await cli(['rollout', 'resume', 'sidecarset/log']);
  assert.equal(resume.code, 0, summary(resume));
  assert.equal((await sidecarSet()).spec.updateStrategy.paused, false);
  const done = await cli(['rollout', 'status', 'sidecarset/log', '--timeout', '30s']);
  assert.equal(done.code, 0, summary(done));
  assert.equal([...(await loggerPods()).values()].filter((p) => p.image === 'fluent-bit:3.2').length, 3);
});

test('restart sidecarset/log -c logger: in place in every matched pod, in every namespace, batched; bad -c is exit 2 with nothing created', async () => {
  // A pod of another namespace, matched too (the SidecarSet is cluster-scoped).
  const ns = await kubectl(['create', 'namespace', 'team'], sb.kubeconfig);
  assert.equal(ns.code, 0, ns.stderr);
  const run = await kubectl(['run', 'lonely', '-n', 'team', '--image=busybox:1.36', '--labels=logging=on'], sb.kubeconfig);
  assert.equal(run.code, 0, run.stderr);
  await waitUntil('6 matched pods, all ready', async () => {
    const o = await sidecarSet();
    return o.status?.matchedPods === 6 && o.status?.readyPods === 6 ? o : undefined;
  }, 20_000);

  sb.clearAudit();
  for (const [args, message] of [
    [['restart', 'sidecarset/log'], 'error: restart sidecarset/log needs -c SIDECAR: the SidecarSet restarts only its own containers (logger)'],
    [['restart', 'sidecarset/log', '-c', 'app'], 'error: sidecarset "log" has no sidecar container "app" (its sidecars: logger); nothing was created'],
  ] as const) {
    const bad = await cli([...args]);
    assert.equal(bad.code, 2, summary(bad));
    assert.equal(bad.stderr.trim(), message);
  }
  assert.deepEqual(writes(sb.audit()), []);

  const listAll = async () => {
    const r = await sb.api('GET', '/api/v1/pods?labelSelector=logging%3Don');
    return new Map((r.body.items as any[]).map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, { uid: p.metadata.uid, restarts: (p.status.containerStatuses as any[]).find((c) => c.name === 'logger').restartCount }]));
  };
  const before = await listAll();
  assert.equal(before.size, 6);
  const r = await cli(['restart', 'sidecarset/log', '-c', 'logger', '--max-unavailable', '2', '--timeout', '60s']);
  assert.equal(r.code, 0, summary(r));
  assert.match(r.stdout, /^POD\s+CONTAINERS\s+PHASE\s+RESTARTS/);
  assert.match(r.stdout, /team\/lonely\s+logger\s+Completed/);
  // batches of at most 2 pods in default (5 pods: 3 batches), then team's one pod.
  assert.match(r.stderr, /batch 3\/3: 1\/1 pods restarted/);
  const after = await listAll();
  for (const [name, p] of after) {
    assert.equal(p.uid, before.get(name)!.uid, `${name} kept its UID`);
    assert.equal(p.restarts, before.get(name)!.restarts + 1, `${name} logger restarted once`);
  }
  const crrs = await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/containerrecreaterequests');
  assert.deepEqual((crrs.body.items as any[]).map((c) => c.metadata.namespace).sort(), ['default', 'default', 'default', 'default', 'default', 'team']);
});

test('restart sidecarset/log interrupted (SIGINT) in its second namespace, then rerun: the rerun continues the run, every sidecar restarted exactly once (issue #26: namespace default restarted twice)', async () => {
  const restarts = async () => {
    const r = await sb.api('GET', '/api/v1/pods?labelSelector=logging%3Don');
    return new Map((r.body.items as any[]).map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, (p.status.containerStatuses as any[]).find((c) => c.name === 'logger').restartCount as number]));
  };
  const before = await restarts();
  const args = ['restart', 'sidecarset/log', '-c', 'logger', '--max-unavailable', '2', '--timeout', '60s'];
  const first = streamCli(args, { kubeconfig: sb.kubeconfig });
  // Namespace default (5 pods, 3 batches) is done once team's turn is announced.
  await waitUntil('the run to reach namespace team', () => (/namespace team:/.test(first.stderr()) ? true : undefined), 40_000, 20);
  const stopped = await first.stop('SIGINT');
  assert.equal(stopped.code, 130, summary(stopped));
  const again = await cli(args, 60_000);
  assert.equal(again.code, 0, summary(again));
  assert.match(again.stderr, /resuming restart \w+ of sidecarset\/log, which did not finish: namespace default done, not restarted again/);
  const after = await waitUntil('team\'s sidecar restarted', async () => {
    const now = await restarts();
    return [...now.values()].every((n, i) => n >= [...before.values()][i]! + 1) ? now : undefined;
  }, 20_000);
  for (const [name, n] of after) assert.equal(n, before.get(name)! + 1, `${name}: logger restarted exactly once`);
});

test('rollout history|undo sidecarset/log: the ControllerRevisions Kruise records, undo restores the previous sidecars', async () => {
  const h = await cli(['rollout', 'history', 'sidecarset/log']);
  assert.equal(h.code, 0, summary(h));
  const lines = h.stdout.trim().split('\n');
  assert.equal(lines[0], 'sidecarset.apps.kruise.io/log');
  assert.match(lines[1]!, /^REVISION\s+IMAGES\s+PODS$/);
  assert.deepEqual(lines.slice(2).map((l) => l.split(/\s{2,}/)[1]), ['logger=fluent-bit:3.0', 'logger=fluent-bit:3.1', 'logger=fluent-bit:3.2']);
  assert.match(lines[4]!, /^3 \(current\)\s+logger=fluent-bit:3\.2\s+4$/);

  sb.clearAudit();
  const bad = await cli(['rollout', 'undo', 'sidecarset/log', '--to-revision', '99']);
  assert.equal(bad.code, 2, summary(bad));
  assert.equal(bad.stderr, 'error: unable to find the specified revision 99 of sidecarset "log" (revisions: 1, 2, 3)\n');
  assert.deepEqual(writes(sb.audit()), []);

  const undo = await cli(['rollout', 'undo', 'sidecarset/log']);
  assert.equal(undo.code, 0, summary(undo));
  assert.equal(undo.stdout, 'sidecarset.apps.kruise.io/log rolled back\n');
  const ss = await sidecarSet();
  assert.equal(ss.spec.containers[0].image, 'fluent-bit:3.1');
  assert.equal(ss.spec.updateStrategy.partition, 2, 'the update strategy is not part of a revision');
  const st = await cli(['rollout', 'status', 'sidecarset/log', '--timeout', '30s', '-o', 'json']);
  assert.equal(st.code, 0, summary(st));
  assert.equal(jsonLines(st.stdout).at(-1).state, 'PartitionComplete');
});

test('completion offers sidecarset/ and the SidecarSets by name (cluster-scoped: whatever -n says)', async () => {
  for (const verb of [['rollout', 'status'], ['rollout', 'pause'], ['rollout', 'history'], ['restart'], ['explain', 'partition']]) {
    const types = await cli(['__complete', ...verb, '']);
    assert.ok(types.stdout.split('\n').includes('sidecarset/'), `${verb.join(' ')}: ${types.stdout}`);
  }
  const names = await cli(['__complete', '-n', 'team', 'rollout', 'status', 'sidecarset/']);
  assert.deepEqual(names.stdout.split('\n').filter((l) => l && !l.startsWith(':')), ['sidecarset/log']);
});

test('rollout restart sidecarset/log: every sidecar restarted in place in every matched pod (no template to annotate)', async () => {
  const counts = async () => {
    const r = await sb.api('GET', '/api/v1/pods?labelSelector=logging%3Don');
    return new Map((r.body.items as any[]).map((p) => [p.metadata.uid as string, (p.status.containerStatuses as any[]).find((c) => c.name === 'logger').restartCount as number]));
  };
  const before = await counts();
  const r = await cli(['rollout', 'restart', 'sidecarset/log', '--timeout', '60s']);
  assert.equal(r.code, 0, summary(r));
  assert.match(r.stdout, /^sidecarset\.apps\.kruise\.io\/log has no pod template: restarting its sidecars \(logger\) in place through ContainerRecreateRequests\n/);
  assert.match(r.stdout, /sidecarset\.apps\.kruise\.io\/log restarted\n$/);
  const after = await counts();
  assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort(), 'same pods (UIDs)');
  for (const [uid, n] of after) assert.equal(n, before.get(uid)! + 1, `pod ${uid}`);
});

test('a SidecarSet that does not exist: one error line, exit 1, in every verb', async () => {
  for (const args of [
    ['rollout', 'status', 'sidecarset/nope', '--timeout', '10s'],
    ['rollout', 'status', 'sidecarset/nope', '--watch=false'],
    ['rollout', 'pause', 'sidecarset/nope'],
    ['restart', 'sidecarset/nope', '-c', 'logger'],
  ]) {
    const r = await cli(args);
    assert.equal(r.code, 1, `${args.join(' ')}: ${summary(r)}`);
    assert.match(r.stderr, /^error: sidecarsets?(\.apps\.kruise\.io)? "nope" not found\n$/, args.join(' '));
  }
});
