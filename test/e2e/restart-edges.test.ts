// `restart` at the edges (issue #14 items 7, 9): more than ten requests in flight on one abort
// signal (no MaxListenersExceededWarning), a pod deleted before its batch (said per pod in user
// terms, the other pods still restarted, exit 1), a StatefulSet pod replaced under its name before its batch (issue
// #26: neither restarted through a CRR nor deleted by --via=client), and singular/plural wording of the summaries.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, runCli, streamCli, REPO_ROOT, type RunResult } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'ops', 'cloneset-web.yaml');
const PODS_PATH = '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb';

interface PodView {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  status?: { phase?: string; conditions?: Array<{ type: string; status: string }>; containerStatuses?: Array<{ name: string; restartCount: number }> };
}
const isReady = (p: PodView): boolean => p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
const nginx = (p: PodView): number => p.status?.containerStatuses?.find((s) => s.name === 'nginx')?.restartCount ?? 0;
const show = (r: RunResult): string => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
const byName = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });

let sb: Sandbox;
before(async () => {
  sb = await startSandbox({ readyDelay: 600 });
  assert.equal((await kubectl(['apply', '-f', FIXTURE], sb.kubeconfig)).code, 0);
});
after(async () => {
  await sb?.stop();
});

async function readyPods(n: number): Promise<PodView[]> {
  return waitUntil(`${n} ready web pods`, async () => {
    const items = ((await sb.api('GET', PODS_PATH)).body.items as PodView[]).filter((p) => !p.metadata.deletionTimestamp);
    return items.length === n && items.every(isReady) ? items : undefined;
  }, 40_000);
}

test('--max-unavailable=12 on 12 pods: twelve CRRs in flight at once, no MaxListenersExceededWarning', async () => {
  assert.equal((await kubectl(['scale', 'cloneset/web', '--replicas=12'], sb.kubeconfig)).code, 0);
  const before = await readyPods(12);
  const r = await runCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=12'], { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
  assert.equal(r.code, 0, show(r));
  assert.doesNotMatch(r.stderr, /MaxListenersExceededWarning|Warning: Possible EventTarget memory leak/, show(r));
  const after = await readyPods(12);
  for (const p of before) assert.equal(nginx(after.find((q) => q.metadata.uid === p.metadata.uid)!), nginx(p) + 1, p.metadata.name);
});

test('a pod deleted before its batch: reported per pod (no raw 422), the others restarted, exit 1', async () => {
  assert.equal((await kubectl(['scale', 'cloneset/web', '--replicas=4'], sb.kubeconfig)).code, 0);
  const before = (await readyPods(4)).sort((a, b) => byName(a.metadata.name, b.metadata.name));
  const victim = before[3]!;
  const run = streamCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=1'], { kubeconfig: sb.kubeconfig });
  await waitUntil('batch 1 done', () => /^batch 1\/4: /m.test(run.stderr()) || undefined, 30_000, 10);
  const del = await sb.api('DELETE', `/api/v1/namespaces/default/pods/${victim.metadata.name}?gracePeriodSeconds=0`);
  assert.ok(del.status === 200 || del.status === 202, del.text);
  const r = await new Promise<RunResult>((resolve) => {
    run.child.on('close', (code) => resolve({ code: code ?? 128, stdout: run.stdout(), stderr: run.stderr() }));
    if (run.child.exitCode !== null) resolve({ code: run.child.exitCode, stdout: run.stdout(), stderr: run.stderr() });
  });
  assert.equal(r.code, 1, show(r));
  assert.doesNotMatch(r.stderr, /422|Unprocessable|admission webhook/i, show(r));
  assert.match(r.stdout, new RegExp(`^${victim.metadata.name}\\s+nginx\\s+Gone\\s.*pod was deleted before its restart: not restarted`, 'm'), show(r));
  assert.match(r.stderr, new RegExp(`^error: restart of cloneset/web failed: 1 pod deleted before its restart, not restarted: ${victim.metadata.name}; every other pod restarted$`, 'm'), show(r));
  const now = ((await sb.api('GET', PODS_PATH)).body.items as PodView[]);
  for (const p of before.slice(0, 3)) assert.equal(nginx(now.find((q) => q.metadata.uid === p.metadata.uid)!), nginx(p) + 1, `${p.metadata.name} restarted once`);
});

// Issue #26: a CRR batch acts on the pods it read. A StatefulSet pod replaced before its batch keeps its name: Kruise's
// webhook binds a CRR to whatever pod has that name now, so a CRR sent as planned restarted the replacement, a pod
// the run never decided on (and the summary said it was not restarted).
test('a StatefulSet pod replaced (same name, new UID) before its batch: the replacement is not restarted, reported Gone, exit 1', async () => {
  // Parallel: the controller recreates db-2 at once, not after db-1's restart (OrderedReady).
  const manifest = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'ops', 'statefulset-db.yaml'), 'utf8').replace('  serviceName: db', '  serviceName: db\n  podManagementPolicy: Parallel');
  assert.equal((await kubectl(['apply', '-f', '-'], sb.kubeconfig, { input: manifest })).code, 0);
  const dbPods = async (): Promise<PodView[]> => ((await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Ddb')).body.items as PodView[]).filter((p) => !p.metadata.deletionTimestamp);
  const before = await waitUntil('3 ready db pods', async () => {
    const items = await dbPods();
    return items.length === 3 && items.every(isReady) ? items.sort((a, b) => byName(a.metadata.name, b.metadata.name)) : undefined;
  }, 40_000);
  const victim = before[2]!;
  const run = streamCli(['restart', 'statefulset/db', '-c', 'mysql', '--max-unavailable=1'], { kubeconfig: sb.kubeconfig });
  await waitUntil('batch 1 done', () => /^batch 1\/3: /m.test(run.stderr()) || undefined, 30_000, 10);
  const del = await sb.api('DELETE', `/api/v1/namespaces/default/pods/${victim.metadata.name}?gracePeriodSeconds=0`);
  assert.ok(del.status === 200 || del.status === 202, del.text);
  const replacement = await waitUntil('db-2 recreated and scheduled', async () => (await dbPods()).find((p) => p.metadata.name === victim.metadata.name && p.metadata.uid !== victim.metadata.uid && (p as { spec?: { nodeName?: string } }).spec?.nodeName), 10_000, 10);
  // The replacement was there before the run reached its batch (batch 2 waits 600 ms for its pod to be ready again).
  assert.doesNotMatch(run.stderr(), /^batch 2\/3: /m, 'the replacement came too late for this test to mean anything');
  const r = await new Promise<RunResult>((resolve) => {
    run.child.on('close', (code) => resolve({ code: code ?? 128, stdout: run.stdout(), stderr: run.stderr() }));
    if (run.child.exitCode !== null) resolve({ code: run.child.exitCode, stdout: run.stdout(), stderr: run.stderr() });
  });
  assert.equal(r.code, 1, show(r));
  assert.match(r.stdout, new RegExp(`^${victim.metadata.name}\\s+mysql\\s+Gone\\s.*pod was deleted before its restart: not restarted`, 'm'), show(r));
  const crrs = (await sb.api('GET', `/apis/apps.kruise.io/v1alpha1/namespaces/default/containerrecreaterequests?labelSelector=crr.apps.kruise.io%2Fpod-uid%3D${replacement.metadata.uid}`)).body.items as unknown[];
  assert.deepEqual(crrs, [], 'no ContainerRecreateRequest for the replacement');
  const now = await dbPods();
  const mysql = (p: PodView): number => p.status?.containerStatuses?.find((c) => c.name === 'mysql')?.restartCount ?? 0;
  assert.equal(mysql(now.find((p) => p.metadata.uid === replacement.metadata.uid)!), 0, 'the replacement was not restarted');
  for (const p of before.slice(0, 2)) assert.equal(mysql(now.find((q) => q.metadata.uid === p.metadata.uid)!), mysql(p) + 1, `${p.metadata.name} restarted once`);
  assert.equal((await kubectl(['delete', 'statefulset', 'db'], sb.kubeconfig)).code, 0);
  await waitUntil('db pods gone', async () => ((await dbPods()).length === 0) || undefined, 10_000);
});

// The same for --via=client: it deleted db-2 by name, the replacement with it (a pod the run never chose).
test('--via=client: a StatefulSet pod replaced before its batch is not deleted again (the delete is conditional on the UID planned on)', async () => {
  const manifest = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'ops', 'statefulset-db.yaml'), 'utf8').replace('  serviceName: db', '  serviceName: db\n  podManagementPolicy: Parallel');
  assert.equal((await kubectl(['apply', '-f', '-'], sb.kubeconfig, { input: manifest })).code, 0);
  const dbPods = async (): Promise<PodView[]> => ((await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Ddb')).body.items as PodView[]).filter((p) => !p.metadata.deletionTimestamp);
  const before = await waitUntil('3 ready db pods', async () => {
    const items = await dbPods();
    return items.length === 3 && items.every(isReady) ? items.sort((a, b) => byName(a.metadata.name, b.metadata.name)) : undefined;
  }, 40_000);
  const victim = before[2]!;
  const run = streamCli(['restart', 'statefulset/db', '--via=client', '--max-unavailable=1'], { kubeconfig: sb.kubeconfig });
  await waitUntil('batch 1 done', () => /^batch 1\/3: /m.test(run.stderr()) || undefined, 30_000, 10);
  assert.ok([200, 202].includes((await sb.api('DELETE', `/api/v1/namespaces/default/pods/${victim.metadata.name}?gracePeriodSeconds=0`)).status));
  const replacement = await waitUntil('db-2 recreated', async () => (await dbPods()).find((p) => p.metadata.name === victim.metadata.name && p.metadata.uid !== victim.metadata.uid), 10_000, 10);
  assert.doesNotMatch(run.stderr(), /^batch 2\/3: /m, 'the replacement came too late for this test to mean anything');
  const r = await new Promise<RunResult>((resolve) => {
    run.child.on('close', (code) => resolve({ code: code ?? 128, stdout: run.stdout(), stderr: run.stderr() }));
    if (run.child.exitCode !== null) resolve({ code: run.child.exitCode, stdout: run.stdout(), stderr: run.stderr() });
  });
  assert.equal(r.code, 0, show(r));
  const now = await dbPods();
  assert.ok(now.some((p) => p.metadata.uid === replacement.metadata.uid), `the replacement ${replacement.metadata.uid} was deleted: ${now.map((p) => `${p.metadata.name} ${p.metadata.uid}`).join(', ')}`);
  assert.ok(!now.some((p) => p.metadata.uid === before[0]!.metadata.uid || p.metadata.uid === before[1]!.metadata.uid), 'db-0 and db-1 recreated');
  assert.equal((await kubectl(['delete', 'statefulset', 'db'], sb.kubeconfig)).code, 0);
  await waitUntil('db pods gone', async () => ((await dbPods()).length === 0) || undefined, 10_000);
});

test('singular wording: "1 batch", "1 ContainerRecreateRequest" in the interrupt summary', async () => {
  assert.equal((await kubectl(['scale', 'cloneset/web', '--replicas=4'], sb.kubeconfig)).code, 0);
  const [pod] = await readyPods(4);
  const crrsOf = async (): Promise<string[]> =>
    ((await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/containerrecreaterequests')).body.items as Array<{ metadata: { name: string }; spec: { podName: string } }>)
      .filter((c) => c.spec.podName === pod!.metadata.name)
      .map((c) => c.metadata.name);
  const earlier = new Set(await crrsOf());
  const run = streamCli(['restart', `pod/${pod!.metadata.name}`, '-c', 'nginx'], { kubeconfig: sb.kubeconfig });
  // Interrupted while it waits for the pod to be Ready again (ready delay 600 ms).
  await waitUntil('its CRR', async () => (await crrsOf()).some((n) => !earlier.has(n)) || undefined, 30_000, 10).catch((err: Error) => {
    throw new Error(`${err.message}\nstderr:\n${run.stderr()}\nstdout:\n${run.stdout()}`);
  });
  const r = await run.stop('SIGINT');
  assert.equal(r.code, 130, show(r));
  assert.match(r.stderr, /^interrupted: restart \w+ of pod\/\S+: 0 of 1 batch done, 1 ContainerRecreateRequest created; run the same command again/m, show(r));
});
