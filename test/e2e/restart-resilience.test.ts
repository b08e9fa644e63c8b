// `restart` under trouble: Ctrl-C mid-run (exit 130, a summary, and a rerun that resumes
// the same run), and a flaky server (5xx/429 on reads and creates, dropped watches, 410
// Gone): still exactly one CRR per pod and one restart per container.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { kubectl, runCli, streamCli, REPO_ROOT } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'ops');
const CRR_PATH = '/apis/apps.kruise.io/v1alpha1/namespaces/default/containerrecreaterequests';

interface PodView {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  status?: { phase?: string; conditions?: Array<{ type: string; status: string }>; containerStatuses?: Array<{ name: string; restartCount: number }> };
}

async function readyPods(sb: Sandbox, n: number): Promise<PodView[]> {
  return waitUntil(`${n} ready web pods`, async () => {
    const r = await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb');
    if (r.status !== 200) return undefined;
    const items = (r.body.items as PodView[]).filter((p) => !p.metadata.deletionTimestamp);
    return items.length === n && items.every((p) => p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')) ? items : undefined;
  }, 30_000);
}

function restartCount(p: PodView, c: string): number {
  return p.status!.containerStatuses!.find((s) => s.name === c)!.restartCount;
}

async function crrsByPod(sb: Sandbox): Promise<Map<string, number>> {
  const r = await waitUntil('CRR list', async () => {
    const res = await sb.api('GET', CRR_PATH);
    return res.status === 200 ? res : undefined;
  });
  const counts = new Map<string, number>();
  for (const c of r.body.items as Array<{ spec: { podName: string } }>) counts.set(c.spec.podName, (counts.get(c.spec.podName) ?? 0) + 1);
  return counts;
}

test('Ctrl-C stops between batches with a summary; the rerun resumes without restarting a pod twice', async () => {
  const sb = await startSandbox({ readyDelay: 400 });
  try {
    assert.equal((await kubectl(['apply', '-f', join(FIXTURES, 'cloneset-web.yaml')], sb.kubeconfig)).code, 0);
    const before = await readyPods(sb, 6);
    const run = streamCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=1'], { kubeconfig: sb.kubeconfig });
    await waitUntil('two batches done', () => /batch 2\/6: 1\/1 pods restarted/.test(run.stderr()), 20_000);
    const stopped = await run.stop('SIGINT');
    assert.equal(stopped.code, 130, stopped.stderr);
    assert.match(stopped.stderr, /^interrupted: restart \w+ of cloneset\/web: [2-6] of 6 batches done, \d ContainerRecreateRequests? created(?:; pods restarted: [^;]+)?; run the same command again to resume \(only what is left is done\)$/m);
    assert.doesNotMatch(stopped.stderr, /\n\s+at /);

    const again = await runCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=1'], { kubeconfig: sb.kubeconfig, timeoutMs: 45_000 });
    assert.equal(again.code, 0, `${again.stdout}\n${again.stderr}`);
    assert.match(again.stderr, /resuming restart \w+ of cloneset\/web/);
    const counts = await crrsByPod(sb);
    assert.equal(counts.size, 6);
    assert.ok([...counts.values()].every((n) => n === 1), 'one CRR per pod');
    const after = await readyPods(sb, 6);
    for (const p of before) {
      const q = after.find((x) => x.metadata.name === p.metadata.name)!;
      assert.equal(q.metadata.uid, p.metadata.uid);
      assert.equal(restartCount(q, 'nginx'), restartCount(p, 'nginx') + 1, p.metadata.name);
    }
  } finally {
    await sb.stop();
  }
});

test('a flaky server (5xx/429, dropped watches, 410 Gone) still gets exactly one CRR per pod', async () => {
  const sb = await startSandbox({
    readyDelay: 200,
    faults: {
      seed: 7,
      latencyMs: 20,
      errorRate: { get: { rate: 0.2, code: 429, retryAfterSeconds: 0 }, list: { rate: 0.2, code: 500 }, create: { rate: 0.3, code: 503 } },
      dropWatchAfterEvents: 4,
      expireResourceVersionsAfter: 15,
    },
  });
  try {
    await waitUntil('cloneset applied', async () => (await kubectl(['apply', '-f', join(FIXTURES, 'cloneset-web.yaml')], sb.kubeconfig)).code === 0, 20_000, 100);
    const before = await readyPods(sb, 6);
    const r = await runCli(['restart', 'cloneset/web', '--max-unavailable=3'], { kubeconfig: sb.kubeconfig, timeoutMs: 50_000 });
    const createLog = sb.audit().filter((e) => e.verb === 'create').map((e) => `${e.time} ${e.code} ${e.path.split('/').pop()}`);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}\ncreates:\n${createLog.join('\n')}`);
    assert.ok(sb.audit().some((e) => e.verb === 'create' && e.code >= 500), 'faults were injected on creates');
    const counts = await crrsByPod(sb);
    assert.equal(counts.size, 6);
    assert.ok([...counts.values()].every((n) => n === 1), 'no duplicate CRR');
    const after = await readyPods(sb, 6);
    for (const p of before) {
      const q = after.find((x) => x.metadata.name === p.metadata.name)!;
      for (const c of ['nginx', 'log-agent']) assert.equal(restartCount(q, c), restartCount(p, c) + 1, `${p.metadata.name}/${c}`);
    }
  } finally {
    await sb.stop();
  }
});
