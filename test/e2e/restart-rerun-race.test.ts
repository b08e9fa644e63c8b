// `restart` interrupted, rerun and raced (issue #14 items 1, 2, 4): a rerun does only what the
// interrupted run left (never a pod twice, --via=kruise and --via=client), exactly one run drives
// a workload at a time (a Lease; the second exits 1 naming the holder, or waits with
// --wait-for-lock; a killed holder's lease is taken at once by a rerun on its machine, or expires), and the interrupt summary counts what the
// server accepted. Restart counts and unready pods are read back through the API.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { kubectl, runCli, streamCli, REPO_ROOT, type RunResult } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'ops', 'cloneset-web.yaml');
const CRR_PATH = '/apis/apps.kruise.io/v1alpha1/namespaces/default/containerrecreaterequests';
const PODS_PATH = '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb';

interface PodView {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  status?: { phase?: string; conditions?: Array<{ type: string; status: string }>; containerStatuses?: Array<{ name: string; restartCount: number }> };
}
interface CrrView {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { podName: string };
  status?: { phase?: string };
}

const isReady = (p: PodView): boolean => p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
const nginxRestarts = (p: PodView): number => p.status?.containerStatuses?.find((s) => s.name === 'nginx')?.restartCount ?? 0;
const show = (r: RunResult): string => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

async function pods(sb: Sandbox): Promise<PodView[]> {
  const r = await sb.api('GET', PODS_PATH);
  return (r.body.items as PodView[]).filter((p) => !p.metadata.deletionTimestamp);
}

async function readyPods(sb: Sandbox, n: number): Promise<PodView[]> {
  return waitUntil(`${n} ready web pods`, async () => {
    const items = await pods(sb);
    return items.length === n && items.every(isReady) ? items : undefined;
  }, 40_000);
}

async function crrs(sb: Sandbox): Promise<CrrView[]> {
  return (await sb.api('GET', CRR_PATH)).body.items as CrrView[];
}

/** A fresh sandbox with CloneSet web scaled to `replicas`, every pod Ready. */
async function webOf(replicas: number, readyDelay: number, faults?: Record<string, unknown>): Promise<{ sb: Sandbox; before: PodView[] }> {
  const sb = await startSandbox({ readyDelay, ...(faults ? { faults } : {}) });
  assert.equal((await kubectl(['apply', '-f', FIXTURE], sb.kubeconfig)).code, 0);
  assert.equal((await kubectl(['scale', 'cloneset/web', `--replicas=${replicas}`], sb.kubeconfig)).code, 0);
  return { sb, before: await readyPods(sb, replicas) };
}

/** Samples the number of unready web pods until stopped; returns the maximum seen. */
function unreadySampler(sb: Sandbox): { stop(): Promise<number> } {
  let max = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const items = await pods(sb).catch(() => []);
      max = Math.max(max, items.filter((p) => !isReady(p)).length);
      await new Promise((r) => setTimeout(r, 30));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return max;
    },
  };
}

/** How many times each original pod's nginx restarted since `before`. */
async function restartsSince(sb: Sandbox, before: PodView[]): Promise<number[]> {
  const now = await readyPods(sb, before.length);
  return before.map((p) => {
    const q = now.find((x) => x.metadata.uid === p.metadata.uid);
    assert.ok(q, `pod ${p.metadata.name} kept its UID`);
    return nginxRestarts(q) - nginxRestarts(p);
  });
}

/**
 * A kubeconfig whose server is a proxy in front of the sandbox that forwards every request at
 * once but holds the answers to CRR creates for `holdMs`: creates the server accepted and the
 * client has not heard back about, as over a slow link.
 */
async function slowCreateAnswers(sb: Sandbox, holdMs: number): Promise<{ kubeconfig: string; close(): void }> {
  const upstream = new URL(sb.url);
  const server: Server = createServer((req, res) => {
    const fwd = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
      const answer = (): void => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      };
      if (req.method === 'POST' && req.url?.includes('/containerrecreaterequests')) setTimeout(answer, holdMs);
      else answer();
    });
    fwd.on('error', () => res.destroy());
    req.pipe(fwd);
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const port = (server.address() as { port: number }).port;
  const kubeconfig = join(sb.dir, 'kubeconfig-slow');
  writeFileSync(kubeconfig, readFileSync(sb.kubeconfig, 'utf8').replaceAll(sb.url.replace(/\/$/, ''), `http://127.0.0.1:${port}`));
  return { kubeconfig, close: () => server.close() };
}

describe('a rerun after an interrupted restart does only what is left (#14 item 1, 4)', () => {
  test('Ctrl-C with the last batch in flight: the summary counts the CRRs the server accepted, the rerun restarts no pod twice', async () => {
    const { sb, before } = await webOf(10, 1500);
    // The interrupt lands while the creates are accepted but not answered.
    const slow = await slowCreateAnswers(sb, 1500);
    try {
      const run = streamCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=10'], { kubeconfig: slow.kubeconfig });
      await waitUntil('the first CRR on the server', async () => (await crrs(sb)).length > 0 || undefined, 30_000, 10);
      const stopped = await run.stop('SIGINT');
      assert.equal(stopped.code, 130, show(stopped));
      const onServer = await crrs(sb);
      const m = /^interrupted: restart \w+ of cloneset\/web: 0 of 1 batch done, (\d+) ContainerRecreateRequests? created(?: \(and (\d+) creates? still unanswered\))?/m.exec(stopped.stderr);
      assert.ok(m, show(stopped));
      // Exact when every create was answered within the grace; otherwise the unanswered ones are said, not guessed.
      const [counted, unanswered] = [Number(m[1]), Number(m[2] ?? 0)];
      assert.ok(counted <= onServer.length && onServer.length <= counted + unanswered, `the summary counts what the server accepted (${onServer.length} CRRs exist)\n${show(stopped)}`);
      assert.ok(counted > 0, show(stopped));
      // The CRRs already created finish by themselves.
      await waitUntil('the CRRs to complete', async () => {
        const items = await crrs(sb);
        return items.every((c) => c.status?.phase === 'Completed') || undefined;
      }, 40_000);

      const again = await runCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=10'], { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
      assert.equal(again.code, 0, show(again));
      assert.match(again.stderr, new RegExp(`resuming restart \\w+ of cloneset/web, which did not finish: ${onServer.length} of 10 pods already restarted`));
      const counts = await restartsSince(sb, before);
      assert.deepEqual(counts, before.map(() => 1), 'every pod restarted exactly once over both runs');
      // A later run is a new restart, not a resumption.
      const third = await runCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=10'], { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
      assert.equal(third.code, 0, show(third));
      assert.doesNotMatch(third.stderr, /resuming/);
      assert.deepEqual(await restartsSince(sb, before), before.map(() => 2));
    } finally {
      slow.close();
      await sb.stop();
    }
  });

  test('--timeout during the last batch, CRRs deleted by their TTL since: the rerun has nothing left to do', async () => {
    const { sb, before } = await webOf(6, 2500);
    try {
      const first = await runCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=3', '--ttl=0s', '--timeout=4s'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
      assert.equal(first.code, 3, show(first));
      assert.match(first.stderr, /run the same command again to resume/);
      await waitUntil('the CRRs to finish and be deleted', async () => (await crrs(sb)).length === 0 || undefined, 40_000);
      await readyPods(sb, 6);
      const again = await runCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=3', '--ttl=0s'], { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
      assert.equal(again.code, 0, show(again));
      assert.match(again.stderr, /resuming restart \w+ of cloneset\/web, which did not finish: \d of 6 pods already restarted/);
      assert.deepEqual(await restartsSince(sb, before), before.map(() => 1), 'every pod restarted exactly once over both runs');
    } finally {
      await sb.stop();
    }
  });

  test('#32: Ctrl-C after batch 2 killed its containers: the rerun reports every pod 0 -> 1 (batch 1 done before the interruption, batch 2 finished while it was down, from the CRR\'s statusContext), never 1 -> 1; CRRs carry the default TTL', async () => {
    // --min-started keeps a CRR Recreating for 3 s after its kill: batch 2 is caught killed, not Completed.
    const { sb, before } = await webOf(6, 500);
    const args = ['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=2', '--min-started=3s'];
    try {
      const run = streamCli(args, { kubeconfig: sb.kubeconfig });
      await waitUntil('batch 2 killed', async () => ((await pods(sb)).filter((p) => nginxRestarts(p) === 1).length >= 4) || undefined, 40_000, 20);
      const stopped = await run.stop('SIGINT');
      assert.equal(stopped.code, 130, show(stopped));
      const made = (await sb.api('GET', CRR_PATH)).body.items as Array<{ spec: { ttlSecondsAfterFinished?: number } }>;
      assert.equal(made.length, 4);
      // Kruise keeps a CRR forever without ttlSecondsAfterFinished (crr_controller.go): restart sets 5 minutes.
      assert.ok(made.every((c) => c.spec.ttlSecondsAfterFinished === 300), JSON.stringify(made.map((c) => c.spec.ttlSecondsAfterFinished)));
      const again = await runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
      assert.equal(again.code, 0, show(again));
      assert.match(again.stderr, /resuming restart \w+ of cloneset\/web, which did not finish: \d of 6 pods already restarted/);
      const rows = again.stdout.trim().split('\n').slice(1);
      assert.equal(rows.length, 6, again.stdout);
      for (const row of rows) assert.match(row, /^web-\S+\s+nginx\s+Completed\s+0 -> 1\s/, `every pod restarted once, said so\n${again.stdout}`);
      assert.deepEqual(await restartsSince(sb, before), before.map(() => 1));
    } finally {
      await sb.stop();
    }
  });

  test('--via=client rerun at once after Ctrl-C, the deleted pods still terminating: it resumes (waits for them) instead of refusing them', async () => {
    // A finalizer keeps the pods of batch 2 (batches go in name order) terminating once deleted, as a
    // slow kubelet would: the rerun then always meets them (a fast-starting rerun used to, by chance,
    // and exited 2: "pod ... is being deleted; nothing was created").
    const { sb, before } = await webOf(6, 1200);
    const hold = (name: string, finalizers: string[]): Promise<unknown> =>
      sb.api('PATCH', `/api/v1/namespaces/default/pods/${name}`, { metadata: { finalizers } }, { contentType: 'application/merge-patch+json' });
    const batch2 = before.map((p) => p.metadata.name).sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).slice(2, 4);
    try {
      for (const name of batch2) await hold(name, ['kubectl-kruise.test/hold']);
      const run = streamCli(['restart', 'cloneset/web', '--via=client', '--max-unavailable=2'], { kubeconfig: sb.kubeconfig });
      await waitUntil('batch 2 deleting', async () => {
        const live = await pods(sb);
        return live.filter((p) => !before.some((b) => b.metadata.uid === p.metadata.uid)).length >= 4 || undefined;
      }, 40_000, 20);
      const stopped = await run.stop('SIGINT');
      assert.equal(stopped.code, 130, show(stopped));
      const all = (await sb.api('GET', PODS_PATH)).body.items as PodView[];
      assert.deepEqual(all.filter((p) => p.metadata.deletionTimestamp).map((p) => p.metadata.name).sort(), [...batch2].sort(), 'the pods of batch 2 are still terminating');
      sb.clearAudit();
      const again = await runCli(['restart', 'cloneset/web', '--via=client', '--max-unavailable=2'], { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
      assert.equal(again.code, 0, show(again));
      assert.match(again.stderr, /resuming client-side restart \w+ of cloneset\/web, which did not finish: 4 of 6 pods already recreated, 2 left/);
      const deletes = sb.audit().filter((e) => e.verb === 'delete' && e.path.includes('/pods/'));
      assert.equal(deletes.length, 2, `the rerun deleted only the 2 pods left, not the terminating ones again: ${deletes.map((e) => e.path).join(', ')}`);
      const now = await readyPods(sb, 6);
      assert.ok(now.every((p) => !before.some((b) => b.metadata.uid === p.metadata.uid)), 'every original pod was recreated');
    } finally {
      for (const name of batch2) await hold(name, []).catch(() => undefined);
      await sb.stop();
    }
  });

  test('--via=client interrupted mid-batch: the rerun recreates only the pods left, each original pod once', async () => {
    const { sb, before } = await webOf(6, 1200);
    try {
      const run = streamCli(['restart', 'cloneset/web', '--via=client', '--max-unavailable=2'], { kubeconfig: sb.kubeconfig });
      await waitUntil('batch 2 deleting', async () => {
        const live = await pods(sb);
        return live.filter((p) => !before.some((b) => b.metadata.uid === p.metadata.uid)).length >= 4 || undefined;
      }, 40_000, 20);
      const stopped = await run.stop('SIGINT');
      assert.equal(stopped.code, 130, show(stopped));
      assert.match(stopped.stderr, /^interrupted: client-side restart of cloneset\/web: \d of 3 batches done, 4 pods deleted/m);
      sb.clearAudit();
      const again = await runCli(['restart', 'cloneset/web', '--via=client', '--max-unavailable=2'], { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
      assert.equal(again.code, 0, show(again));
      assert.match(again.stderr, /resuming client-side restart \w+ of cloneset\/web, which did not finish: 4 of 6 pods already recreated, 2 left/);
      const deletes = sb.audit().filter((e) => e.verb === 'delete' && e.path.includes('/pods/'));
      assert.equal(deletes.length, 2, `the rerun deleted only the 2 pods left: ${deletes.map((e) => e.path).join(', ')}`);
      const now = await readyPods(sb, 6);
      assert.ok(now.every((p) => !before.some((b) => b.metadata.uid === p.metadata.uid)), 'every original pod was recreated');
    } finally {
      await sb.stop();
    }
  });
});

describe('one restart of a workload at a time (#14 item 2)', () => {
  let sb: Sandbox;
  before(async () => {
    ({ sb } = await webOf(8, 1000));
  });
  after(async () => {
    await sb?.stop();
  });

  test('a second run while the first drives it exits 1 naming the holder; --max-unavailable holds', async () => {
    const before = await readyPods(sb, 8);
    const sampler = unreadySampler(sb);
    const first = runCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=2'], { kubeconfig: sb.kubeconfig, timeoutMs: 90_000 });
    await waitUntil('the first run to create CRRs', async () => (await crrs(sb)).length > 0 || undefined, 30_000, 20);
    const second = await runCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=2'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
    assert.equal(second.code, 1, show(second));
    assert.match(second.stderr, /^error: cloneset\/web is being restarted by another run \(\S+@\S+ pid \d+ #\w+; lease default\/kubectl-kruise-restart-cloneset-web, renewed \d+s ago, expires in \d+s unless renewed\)$/m);
    assert.match(second.stderr, /--wait-for-lock/);
    const done = await first;
    assert.equal(done.code, 0, show(done));
    assert.ok((await sampler.stop()) <= 2, 'never more than 2 pods unready');
    assert.deepEqual(await restartsSince(sb, before), before.map(() => 1));
  });

  test('two runs started together: one drives, the other exits 1; each pod restarted once, at most 2 unready', async () => {
    const before = await readyPods(sb, 8);
    const sampler = unreadySampler(sb);
    const args = ['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=2'];
    const results = await Promise.all([runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 90_000 }), runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 90_000 })]);
    const max = await sampler.stop();
    assert.deepEqual(results.map((r) => r.code).sort(), [0, 1], results.map(show).join('\n---\n'));
    assert.ok(max <= 2, `never more than 2 pods unready (saw ${max})`);
    assert.deepEqual(await restartsSince(sb, before), before.map(() => 1));
  });

  test('--via=client: a second run while the first deletes pods exits 1 naming the holder, not the terminating pods', async () => {
    await readyPods(sb, 8);
    const first = streamCli(['restart', 'cloneset/web', '--via=client', '--max-unavailable=2'], { kubeconfig: sb.kubeconfig });
    await waitUntil('the first run to delete pods', () => sb.audit().some((e) => e.verb === 'delete' && e.path.includes('/pods/')) || undefined, 30_000, 10);
    const second = await runCli(['restart', 'cloneset/web', '--via=client', '--max-unavailable=2'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
    assert.equal(second.code, 1, show(second));
    assert.match(second.stderr, /^error: cloneset\/web is being restarted by another run \(/m);
    const done = await first.stop('SIGINT');
    assert.equal(done.code, 130, show(done));
    // Finish the interrupted run (resumed), leaving the workload settled for the next test.
    const rest = await runCli(['restart', 'cloneset/web', '--via=client', '--max-unavailable=2'], { kubeconfig: sb.kubeconfig, timeoutMs: 90_000 });
    assert.equal(rest.code, 0, show(rest));
  });

  test('a holder killed with SIGKILL: a rerun on the same machine sees its process gone, takes the lease at once and resumes its run (was: refused until the lease expired)', async () => {
    const before = await readyPods(sb, 8);
    const run = streamCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=2'], { kubeconfig: sb.kubeconfig });
    // Killed in its second batch: the first is done, the second's CRRs are on the server.
    await waitUntil('the run to finish its first batch', () => /batch 1\/4: 2\/2 pods restarted/.test(run.stderr()) || undefined, 30_000, 10).catch((err: Error) => {
      throw new Error(`${err.message}\nstderr:\n${run.stderr()}`);
    });
    const pid = run.child.pid!;
    await run.stop('SIGKILL');
    const lease = (await sb.api('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases/kubectl-kruise-restart-cloneset-web')).body;
    assert.match(lease.spec.holderIdentity, new RegExp(` pid ${pid} `), 'the killed run could not release its lease');
    assert.match(lease.metadata.annotations['kubectl-kruise/holder-process'], new RegExp(`^\\S+ pid:\\[\\d+\\] ${pid}$`));
    const started = Date.now();
    const again = await runCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=2'], { kubeconfig: sb.kubeconfig, timeoutMs: 90_000 });
    assert.equal(again.code, 0, show(again));
    assert.match(again.stderr, new RegExp(`^note: the run holding the lease \\(\\S+ pid ${pid} #\\w+\\) has exited; taking the lease over$`, 'm'));
    assert.doesNotMatch(again.stderr, /waiting for the lease/);
    assert.match(again.stderr, /resuming restart \w+ of cloneset\/web/);
    assert.ok(Date.now() - started < 14_000, 'taken at once, not after the 15 s expiry');
    const after = (await sb.api('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases/kubectl-kruise-restart-cloneset-web')).body;
    assert.equal(after.spec.holderIdentity, undefined, 'released at the end');
    assert.equal(after.metadata.annotations?.['kubectl-kruise/holder-process'], undefined);
    assert.deepEqual(await restartsSince(sb, before), before.map(() => 1), 'the killed run and its resumption restarted each pod once');
  });
});
