// Fault tolerance: bin/kubectl-kruise against sandboxes that inject faults (`sandbox --faults`):
// flaky reads (500s, 429s with Retry-After), 200 ms latency, watches dropped every two events
// with resourceVersions expiring (410 Gone), a conflict on every other update, and a restart
// interrupted halfway and run again. Results are read back through the API and the audit log.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, streamCli, type RunResult } from '../helpers/cli';
import { startSandbox, waitUntil, type AuditEntry, type Sandbox } from '../helpers/sandbox';
import {
  CLONESET,
  CRRS,
  RUN_LABEL,
  apiSteady,
  assertNoStackTrace,
  assertOneErrorLine,
  createCloneSet,
  describeRun,
  getCloneSet,
  listCrrs,
  patchCloneSet,
  podsOf,
  waitCloneSetSettled,
  waitExit,
} from './helpers';

const started: Sandbox[] = [];
async function sandbox(opts: Parameters<typeof startSandbox>[0]): Promise<Sandbox> {
  const sb = await startSandbox(opts);
  started.push(sb);
  return sb;
}
after(async () => {
  await Promise.all(started.map((sb) => sb.stop()));
});

const images = (o: any): string[] => o.spec.template.spec.containers.map((c: any) => `${c.name}=${c.image}`);
const isError = (e: AuditEntry): boolean => e.code === 429 || e.code >= 500;
// The transport resends exactly the same request (path and query) after a 5xx/429.
const sameRequest = (a: AuditEntry, b: AuditEntry): boolean => a.verb === b.verb && a.method === b.method && a.path === b.path && a.query === b.query;

/** Every injected 5xx/429 of a CLI request is followed by the same request succeeding; 429s wait for Retry-After. */
function assertRetried(entries: AuditEntry[], retryAfterMs: number): { faults: number; throttled: number } {
  let faults = 0;
  let throttled = 0;
  entries.forEach((e, i) => {
    if (!isError(e)) return;
    faults++;
    // A watch that failed while its command was finishing anyway need not be re-established.
    if (e.verb === 'watch') return;
    const again = entries.slice(i + 1).filter((x) => sameRequest(x, e));
    assert.ok(again.length > 0, `the failed ${e.verb} ${e.path} (${e.code}) was retried`);
    if (e.code === 429) {
      throttled++;
      // Identical requests of concurrent watchers may come sooner; the retry itself waits for Retry-After.
      const waits = again.map((x) => Date.parse(x.time) - Date.parse(e.time));
      assert.ok(waits.some((w) => w >= retryAfterMs - 100), `Retry-After honoured after a 429 on ${e.path}?${e.query}: later identical requests after ${waits.join(', ')} ms`);
    }
  });
  for (const e of entries) {
    if (!isError(e) || e.verb === 'watch') continue;
    const later = entries.filter((x) => sameRequest(x, e) && Date.parse(x.time) >= Date.parse(e.time));
    assert.ok(later.some((x) => x.code < 300), `the ${e.verb} of ${e.path} eventually succeeded`);
  }
  return { faults, throttled };
}

describe('20% 500s and 429s (Retry-After: 1) on reads', () => {
  test('rollout status, set image and rollout history succeed, and the audit log shows the retries', async () => {
    const sb = await sandbox({
      readyDelay: '50ms',
      faults: {
        seed: 11,
        errorRate: {
          get: { rate: 0.2, code: 500 },
          list: { rate: 0.2, code: 429, retryAfterSeconds: 1 },
          watch: { rate: 0.2, code: 503 },
        },
      },
    });
    await createCloneSet(sb, { replicas: 3 });
    sb.clearAudit();
    const tags = ['1.25.4', '1.25.5', '1.26.0', '1.26.1'];
    // set image and rollout history need every answer, one request after the other: each of their
    // failed reads must be resent (after Retry-After for 429s). rollout status's watchers may end
    // with a retry pending once the rollout is done, so only its outcome is checked.
    const sequential: AuditEntry[][] = [];
    const run = async (args: string[], strict: boolean): Promise<RunResult> => {
      const from = sb.audit().length;
      const r = await runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 45_000 });
      if (strict) sequential.push(sb.audit().slice(from));
      assertNoStackTrace(r.stderr);
      return r;
    };
    for (const tag of tags) {
      const set = await run(['set', 'image', 'cloneset/web', `nginx=nginx:${tag}`], true);
      assert.equal(set.code, 0, describeRun(set));
      assert.equal(set.stdout, 'cloneset.apps.kruise.io/web image updated\n');
      const status = await run(['rollout', 'status', 'cloneset/web', '--timeout=40s'], false);
      assert.equal(status.code, 0, describeRun(status));
      assert.match(status.stdout, /successfully rolled out/);
      const history = await run(['rollout', 'history', 'cloneset/web'], true);
      assert.equal(history.code, 0, describeRun(history));
      assert.match(history.stdout, new RegExp(`nginx:${tag.replace(/\./g, '\\.')}`));
    }
    const entries = sb.audit();
    let checked = { faults: 0, throttled: 0 };
    for (const slice of sequential) {
      const r = assertRetried(slice, 1000);
      checked = { faults: checked.faults + r.faults, throttled: checked.throttled + r.throttled };
    }
    const faults = entries.filter(isError).length;
    const throttled = entries.filter((e) => e.code === 429).length;
    assert.ok(faults >= 1, `faults were injected into the CLI's reads (${faults})`);
    // The reads failed, never the writes: exactly one image patch per set image, each applied.
    const patches = entries.filter((e) => e.verb === 'patch');
    assert.equal(patches.length, tags.length, 'one patch per set image (nothing resent twice)');
    assert.ok(patches.every((p) => p.code === 200));
    const cs = await getCloneSet(sb);
    assert.deepEqual(images(cs), ['nginx=nginx:1.26.1', 'log-agent=fluent/fluent-bit:2.2']);
    console.log(`# flaky reads: ${checked.faults} of ${faults} injected faults (${throttled} 429s) hit set image / rollout history and were resent (${checked.throttled} after waiting Retry-After)`);
  });
});

describe('50% 429s with Retry-After on writes', () => {
  test('set image, pause, resume and restart wait, resend, and apply each change exactly once', async () => {
    const sb = await sandbox({ readyDelay: '50ms', faults: { seed: 3, errorRate: { patch: { rate: 0.5, code: 429, retryAfterSeconds: 1 }, create: { rate: 0.5, code: 429, retryAfterSeconds: 1 } } } });
    await createCloneSet(sb, { replicas: 2 });
    sb.clearAudit();
    for (const args of [
      ['set', 'image', 'cloneset/web', 'nginx=nginx:1.26.0'],
      ['rollout', 'pause', 'cloneset/web'],
      ['rollout', 'resume', 'cloneset/web'],
      ['set', 'image', 'cloneset/web', 'log-agent=fluent/fluent-bit:3.0'],
    ]) {
      await waitCloneSetSettled(sb);
      const r = await runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 40_000 });
      assert.equal(r.code, 0, `${args.join(' ')}: ${describeRun(r)}`);
    }
    await waitCloneSetSettled(sb);
    const restart = await runCli(['restart', 'cloneset/web', '--timeout=40s'], { kubeconfig: sb.kubeconfig, timeoutMs: 45_000 });
    assert.equal(restart.code, 0, describeRun(restart));
    const entries = sb.audit();
    const { throttled } = assertRetried(entries, 1000);
    assert.ok(throttled >= 1, `429s were injected into the CLI's writes (${throttled})`);
    assert.equal(entries.filter((e) => e.verb === 'patch' && e.code === 200).length, 4, 'each change was applied exactly once');
    const cs = await waitCloneSetSettled(sb);
    assert.deepEqual(images(cs), ['nginx=nginx:1.26.0', 'log-agent=fluent/fluent-bit:3.0']);
    assert.equal(cs.spec.updateStrategy.paused ?? false, false);
    assert.equal((await listCrrs(sb, 'kubectl-kruise/workload-name=web')).length, 2, 'one CRR per pod');
    console.log(`# throttled writes: ${throttled} 429s injected, each waited out and resent`);
  });
});

describe('200 ms latency on every request', () => {
  test('commands still succeed, in time proportional to their requests', async () => {
    const sb = await sandbox({ readyDelay: '50ms', faults: { latencyMs: 200 } });
    await createCloneSet(sb, { replicas: 2 });
    const commands = [
      ['rollout', 'history', 'cloneset/web'],
      ['rollout', 'pause', 'cloneset/web'],
      ['set', 'image', 'cloneset/web', 'nginx=nginx:1.26.0'],
      ['rollout', 'resume', 'cloneset/web'],
      ['rollout', 'status', 'cloneset/web', '--timeout=30s'],
      ['restart', 'cloneset/web', '-c', 'log-agent', '--timeout=30s'],
    ];
    for (const args of commands) {
      sb.clearAudit();
      const t0 = Date.now();
      const r = await runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 40_000 });
      const elapsed = Date.now() - t0;
      assert.equal(r.code, 0, `${args.join(' ')}: ${describeRun(r)}`);
      const requests = sb.audit().filter((e) => e.verb !== 'watch').length;
      assert.ok(elapsed >= 200, `${args.join(' ')} waited for the server (${elapsed} ms)`);
      // Sequential requests at most, plus startup and the rollout itself: never a retry storm or a hang.
      assert.ok(elapsed < requests * 200 + 8_000, `${args.join(' ')} took ${elapsed} ms for ${requests} requests`);
    }
    const cs = await waitCloneSetSettled(sb);
    assert.deepEqual(images(cs), ['nginx=nginx:1.26.0', 'log-agent=fluent/fluent-bit:2.2']);
    assert.equal(cs.spec.updateStrategy.paused ?? false, false);
  });
});

describe('a server slower than --request-timeout', () => {
  test('fails with one clear line naming the timeout, not a hang or a stack trace', async () => {
    const sb = await sandbox({ faults: { latencyMs: 1500 } });
    const t0 = Date.now();
    const r = await runCli(['rollout', 'history', 'cloneset/web', '--request-timeout=400ms'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 1, describeRun(r));
    assertOneErrorLine(r, /timed out after 400ms \(--request-timeout\)/);
    assert.ok(Date.now() - t0 < 15_000, 'gave up in bounded time');
  });
});

describe('the API server killed (SIGKILL) while rollout status waits', () => {
  // An unreadable server is not a slow rollout (issue #14 item 5): at --timeout, exit 1 with the API's error.
  test('the wait ends at --timeout with exit 1 and one error line naming the unreachable server', async () => {
    const sb = await sandbox({ readyDelay: '50ms' });
    await createCloneSet(sb, { replicas: 2 });
    await patchCloneSet(sb, 'web', { spec: { updateStrategy: { paused: true }, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.26.0' }] } } } });
    const s = streamCli(['rollout', 'status', 'cloneset/web', '--timeout=4s'], { kubeconfig: sb.kubeconfig });
    await s.waitFor(/paused/, 20_000);
    sb.process.kill('SIGKILL');
    const killedAt = Date.now();
    const r = await waitExit(s, 20_000);
    assert.equal(r.code, 1, describeRun(r));
    assertOneErrorLine(r, /is unreachable/);
    assert.doesNotMatch(r.stderr, /timed out waiting/);
    assert.ok(Date.now() - killedAt < 15_000, 'ended at --timeout, not after the 60 s outage limit');
  });
});

describe('watches dropped every 2 events, resourceVersions expiring after 3 (410 Gone)', () => {
  let sb: Sandbox;
  test('rollout status follows a whole rollout to Complete (exit 0)', async () => {
    sb = await sandbox({ readyDelay: '250ms', faults: { dropWatchAfterEvents: 2, expireResourceVersionsAfter: 3 } });
    await createCloneSet(sb, { replicas: 5 });
    // Paused first, so that the watch starts before the rollout and must follow every step of it.
    await patchCloneSet(sb, 'web', { spec: { updateStrategy: { paused: true }, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.26.0' }] } } } });
    sb.clearAudit();
    const s = streamCli(['rollout', 'status', 'cloneset/web', '-o', 'json', '--timeout=60s'], { kubeconfig: sb.kubeconfig });
    await s.waitFor('"state":"Paused"', 20_000);
    await patchCloneSet(sb, 'web', { spec: { updateStrategy: { paused: false } } });
    const done = await waitExit(s, 60_000);
    assert.equal(done.code, 0, describeRun(done));
    const lines = s.stdout().trim().split('\n').map((l) => JSON.parse(l));
    const last = lines[lines.length - 1];
    assert.equal(last.state, 'Complete');
    assert.equal(last.updatedReplicas, 5);
    assert.equal(last.updatedReadyReplicas, 5);
    const final = await getCloneSet(sb);
    assert.equal(last.updateRevision, final.status.updateRevision, 'the last line reports the final revision');
    assert.ok(lines.some((l) => l.state === 'Progressing'), 'progress was followed through the dropped watches');
    const watches = sb.audit().filter((e) => e.verb === 'watch' && e.path === CLONESET);
    assert.ok(watches.length >= 3, `the dropped watch was resumed (${watches.length} watch requests)`);
    const lists = sb.audit().filter((e) => e.verb === 'list' && e.path === CLONESET);
    console.log(`# dropped watches: ${watches.length} CloneSet watches and ${lists.length} lists (re-lists after 410 Gone) for one rollout status`);
    assertNoStackTrace(s.stderr());
  });

  test('a failing rollout is still reported as failed (exit 1) through dropped watches', async () => {
    await patchCloneSet(sb, 'web', { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:fail-pull' }] } } } });
    const r = await runCli(['rollout', 'status', 'cloneset/web', '--failure-grace=0', '--timeout=30s'], { kubeconfig: sb.kubeconfig, timeoutMs: 40_000 });
    assert.equal(r.code, 1, describeRun(r));
    assert.match(r.stderr, /^error: .*web.*(ErrImagePull|ImagePullBackOff)/m);
    assertNoStackTrace(r.stderr);
  });

  test('an object deleted while waiting ends the wait with exit 1', async () => {
    await createCloneSet(sb, { name: 'doomed', replicas: 1 });
    await patchCloneSet(sb, 'doomed', { spec: { updateStrategy: { paused: true }, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.26.0' }] } } } });
    const s = streamCli(['rollout', 'status', 'cloneset/doomed', '--timeout=30s'], { kubeconfig: sb.kubeconfig });
    await s.waitFor(/paused/i, 20_000);
    assert.equal((await apiSteady(sb, 'DELETE', `${CLONESET}/doomed`)).status, 200);
    const done = await waitExit(s, 30_000);
    assert.equal(done.code, 1, describeRun(done));
    assert.match(s.stderr(), /^error: .*doomed.*deleted/m);
  });
});

describe('a 409 Conflict on every other update (and 30% 500s on creates)', () => {
  let sb: Sandbox;
  const conflicts = (from: number): AuditEntry[] => sb.audit().slice(from).filter((e) => e.code === 409);

  test('pause, resume, set image and undo retry with fresh state: exactly the intended change, nothing lost', async () => {
    sb = await sandbox({ readyDelay: '50ms', faults: { conflictEveryNthUpdate: 2, errorRate: { create: { rate: 0.3, code: 500 } }, seed: 5 } });
    await createCloneSet(sb, { replicas: 3 });
    const steps: Array<{ args: string[]; expect: (before: any) => any }> = [
      { args: ['rollout', 'pause', 'cloneset/web'], expect: (b) => ({ ...b, updateStrategy: { ...b.updateStrategy, paused: true } }) },
      { args: ['rollout', 'resume', 'cloneset/web'], expect: (b) => ({ ...b, updateStrategy: { ...b.updateStrategy, paused: false } }) },
      { args: ['rollout', 'pause', 'cloneset/web'], expect: (b) => ({ ...b, updateStrategy: { ...b.updateStrategy, paused: true } }) },
      { args: ['rollout', 'resume', 'cloneset/web'], expect: (b) => ({ ...b, updateStrategy: { ...b.updateStrategy, paused: false } }) },
      { args: ['set', 'image', 'cloneset/web', 'nginx=nginx:1.26.0'], expect: (b) => withImage(b, 'nginx', 'nginx:1.26.0') },
      { args: ['set', 'image', 'cloneset/web', 'log-agent=fluent/fluent-bit:3.0'], expect: (b) => withImage(b, 'log-agent', 'fluent/fluent-bit:3.0') },
      { args: ['rollout', 'undo', 'cloneset/web'], expect: (b) => withImage(b, 'log-agent', 'fluent/fluent-bit:2.2') },
      { args: ['rollout', 'undo', 'cloneset/web', '--to-revision=1'], expect: (b) => withImage(b, 'nginx', 'nginx:1.25.3') },
    ];
    let seen409 = 0;
    for (const step of steps) {
      await waitCloneSetSettled(sb);
      const before = (await getCloneSet(sb)).spec;
      const from = sb.audit().length;
      const r = await runCli(step.args, { kubeconfig: sb.kubeconfig });
      assert.equal(r.code, 0, `${step.args.join(' ')}: ${describeRun(r)}`);
      assertNoStackTrace(r.stderr);
      const after = (await getCloneSet(sb)).spec;
      assert.deepEqual(normalise(after), normalise(step.expect(before)), `${step.args.join(' ')} changed exactly what it was asked to`);
      const c = conflicts(from);
      seen409 += c.length;
      // A conflict is followed by a fresh read of the object before the next attempt.
      for (const e of c) {
        const rest = sb.audit().slice(from);
        const i = rest.indexOf(rest.find((x) => x.time === e.time && x.code === 409)!);
        assert.ok(rest.slice(i + 1).some((x) => x.verb === 'get' && x.path === e.path), `a fresh GET of ${e.path} after the 409`);
      }
    }
    assert.ok(seen409 >= 3, `conflicts were injected into the CLI's writes (${seen409})`);
    console.log(`# conflicts: ${seen409} injected 409s across ${steps.length} commands, each retried on fresh state`);
  });

  test('restart never creates a duplicate ContainerRecreateRequest', async () => {
    await waitCloneSetSettled(sb);
    const pods = await podsOf(sb, 'web');
    const from = sb.audit().length;
    const r = await runCli(['restart', 'cloneset/web', '--max-unavailable=1', '--timeout=40s'], { kubeconfig: sb.kubeconfig, timeoutMs: 45_000 });
    assert.equal(r.code, 0, describeRun(r));
    // The summary shows each pod's restart as seen after it happened, not a stale read.
    const rows = r.stdout.split('\n').filter((l) => /^web-/.test(l));
    assert.equal(rows.length, pods.length, describeRun(r));
    for (const row of rows) {
      assert.match(row, /\bCompleted\b/);
      const counts = [...row.matchAll(/(\d+)\s*->\s*(\d+)/g)];
      assert.ok(counts.length > 0 && counts.every((m) => Number(m[2]) > Number(m[1])), `restart counted after it happened: ${row}`);
    }
    const crrs = await listCrrs(sb, 'kubectl-kruise/workload-name=web');
    assert.equal(crrs.length, pods.length, `one CRR per pod: ${crrs.map((c) => c.metadata.name).join(', ')}`);
    assert.deepEqual(new Set(crrs.map((c) => c.spec.podName)), new Set(pods.map((p) => p.metadata.name)));
    assert.equal(new Set(crrs.map((c) => c.metadata.labels[RUN_LABEL])).size, 1, 'one run');
    const creates = sb.audit().slice(from).filter((e) => e.verb === 'create');
    assert.ok(creates.every((e) => !/generateName/.test(e.query)), 'deterministic names');
    for (const p of await podsOf(sb, 'web')) {
      const old = pods.find((x) => x.metadata.name === p.metadata.name);
      for (const cs of p.status.containerStatuses) {
        const was = old.status.containerStatuses.find((x: any) => x.name === cs.name).restartCount;
        assert.equal(cs.restartCount, was + 1, `${p.metadata.name}/${cs.name} restarted exactly once`);
      }
    }
  });
});

describe('restart interrupted mid-way (SIGINT) and run again', () => {
  test('the rerun recognises the existing CRRs, creates only the missing ones, and completes', async () => {
    const sb = await sandbox({ readyDelay: '400ms' });
    await createCloneSet(sb, { replicas: 6 });
    const args = ['restart', 'cloneset/web', '--max-unavailable=1', '--timeout=60s'];
    const first = streamCli(args, { kubeconfig: sb.kubeconfig });
    await waitUntil('the second batch to finish', () => /batch 2\/6/.test(first.stderr()), 30_000, 20);
    const stopped = await first.stop('SIGINT');
    assert.equal(stopped.code, 130, describeRun(stopped));
    assert.match(stopped.stderr, /^interrupted: restart \S+ of cloneset\/web: \d of 6 batches done, \d ContainerRecreateRequests? created(?:; pods restarted: [^;]+)?; run the same command again to resume \(only what is left is done\)$/m);
    assertNoStackTrace(stopped.stderr);
    const before = await listCrrs(sb, 'kubectl-kruise/workload-name=web');
    assert.ok(before.length >= 2 && before.length < 6, `interrupted part-way (${before.length} CRRs)`);
    // --max-unavailable=1: each CRR is created only once the previous pod is Ready again (ready delay 400 ms).
    const createdAt = sb.audit().filter((e) => e.verb === 'create' && e.path === CRRS && e.code === 201).map((e) => Date.parse(e.time));
    for (let i = 1; i < createdAt.length; i++) assert.ok(createdAt[i]! - createdAt[i - 1]! >= 300, `batch ${i + 1} waited for batch ${i} (${createdAt[i]! - createdAt[i - 1]!} ms)`);
    const runId = before[0].metadata.labels[RUN_LABEL];

    const rerun = await runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
    assert.equal(rerun.code, 0, describeRun(rerun));
    assert.match(rerun.stderr, new RegExp(`resuming restart ${runId} of cloneset/web, which did not finish: \\d of 6 pods already restarted, \\d left`));
    const crrs = await listCrrs(sb, 'kubectl-kruise/workload-name=web');
    assert.equal(crrs.length, 6, `one CRR per pod, no duplicates: ${crrs.map((c) => c.metadata.name).join(', ')}`);
    assert.ok(crrs.every((c) => c.metadata.labels[RUN_LABEL] === runId), 'the rerun continued the same run');
    for (const old of before) assert.ok(crrs.some((c) => c.metadata.uid === old.metadata.uid), `${old.metadata.name} was kept, not recreated`);
    assert.equal(new Set(crrs.map((c) => c.spec.podName)).size, 6);
    for (const p of await podsOf(sb, 'web')) {
      for (const cs of p.status.containerStatuses) assert.equal(cs.restartCount, 1, `${p.metadata.name}/${cs.name} restarted exactly once`);
    }
  });
});

function withImage(spec: any, container: string, image: string): any {
  const next = structuredClone(spec);
  next.template.spec.containers.find((c: any) => c.name === container).image = image;
  return next;
}

/** Defaults that differ only in presence (paused: false vs absent) compare equal. */
function normalise(spec: any): any {
  const s = structuredClone(spec);
  if (s.updateStrategy && !s.updateStrategy.paused) delete s.updateStrategy.paused;
  return s;
}
