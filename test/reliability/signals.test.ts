// Signals: Ctrl-C (SIGINT) while waiting stops cleanly with exit 130 and one line saying what was
// done; a reader that goes away (`| head -1`, a pipe closed early) ends the command without a
// stack trace. (SIGINT in the middle of `restart` and its resumption: faults.test.ts.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliCommand, REPO_ROOT, streamCli, testEnv, type RunResult } from '../helpers/cli';
import { junit } from '../helpers/junit';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { assertNoStackTrace, createCloneSet, describeRun, getCloneSet, patchCloneSet, podsOf } from './helpers';

let sb: Sandbox;
before(async () => {
  sb = await startSandbox({ readyDelay: '600ms' });
  await createCloneSet(sb, { replicas: 4 });
  // Some history, so that `rollout history` has several revisions to print.
  for (const tag of ['1.25.4', '1.25.5']) {
    await patchCloneSet(sb, 'web', { spec: { template: { spec: { containers: [{ name: 'nginx', image: `nginx:${tag}` }] } } } });
  }
});
after(async () => {
  await sb?.stop();
});

function interruptedLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('interrupted'));
}

describe('Ctrl-C (SIGINT)', () => {
  test('during rollout status of a progressing rollout: exit 130 and a one-line summary', async () => {
    await patchCloneSet(sb, 'web', { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.26.0' }] } } } });
    const s = streamCli(['rollout', 'status', 'cloneset/web', '--timeout=60s'], { kubeconfig: sb.kubeconfig });
    await s.waitFor(/Waiting for cloneset "web" rollout to finish/, 20_000);
    const r = await s.stop('SIGINT');
    assert.equal(r.code, 130, describeRun(r));
    const lines = interruptedLines(r.stderr);
    assert.equal(lines.length, 1, describeRun(r));
    assert.match(lines[0]!, /^interrupted: stopped waiting for 1 rollout$/);
    assertNoStackTrace(r.stderr);
    assert.doesNotMatch(r.stderr, /^error: /m, 'an interruption is not reported as an error');
  });

  test('during rollout status -o json of several objects: exit 130, the JSON lines so far stay valid', async () => {
    await createCloneSet(sb, { name: 'api', replicas: 2 });
    await patchCloneSet(sb, 'api', { spec: { updateStrategy: { paused: true }, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.26.0' }] } } } });
    const s = streamCli(['rollout', 'status', 'cloneset/web', 'cloneset/api', '-o', 'json'], { kubeconfig: sb.kubeconfig });
    await s.waitFor('"name":"api"', 20_000);
    const r = await s.stop('SIGINT');
    assert.equal(r.code, 130, describeRun(r));
    assert.equal(interruptedLines(r.stderr).length, 1, describeRun(r));
    for (const line of r.stdout.split('\n').filter((l) => l.trim())) assert.doesNotThrow(() => JSON.parse(line), `valid JSON: ${line}`);
    assertNoStackTrace(r.stderr);
  });

  test('during a restart: exit 130 and a summary of the batches done and the CRRs created', async () => {
    await waitUntil('web to settle', async () => (await getCloneSet(sb)).status.updatedReadyReplicas === 4 || undefined, 30_000);
    const pods = await podsOf(sb, 'web');
    assert.equal(pods.length, 4);
    const s = streamCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=1'], { kubeconfig: sb.kubeconfig });
    await waitUntil('the first batch to finish', () => /batch 1\/4/.test(s.stderr()), 30_000, 20);
    const r = await s.stop('SIGINT');
    assert.equal(r.code, 130, describeRun(r));
    const lines = interruptedLines(r.stderr);
    assert.equal(lines.length, 1, describeRun(r));
    // The run's lease was released on the way out: the next run need not wait for it to expire.
    const lease = await sb.api('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases/kubectl-kruise-restart-cloneset-web');
    assert.equal(lease.status, 200, lease.text);
    assert.equal(lease.body.spec.holderIdentity, undefined, 'released on Ctrl-C');
    assert.match(lines[0]!, /^interrupted: restart \S+ of cloneset\/web: [1-3] of 4 batches done, [1-4] ContainerRecreateRequests? created(?:; pods restarted: [^;]+)?; run the same command again to resume \(only what is left is done\)$/);
    assertNoStackTrace(r.stderr);
  });
});

describe('SIGTERM (a pod, or a CI runner cancelling the job)', () => {
  test('ends as Ctrl-C does, with exit 143: one summary line, the CI group printed and the JUnit file written', async () => {
    // cloneset/api was left paused mid-update by the JSON test above.
    const junitFile = join(sb.dir, 'sigterm.xml');
    sb.clearAudit();
    const s = streamCli(['rollout', 'status', 'cloneset/api', '--ci=gitlab', '--junit', junitFile], { kubeconfig: sb.kubeconfig });
    // The gate reports the paused state before it starts on the pods (status-watch.ts evaluate).
    await waitUntil('the gate lists the pods', () => sb.audit().some((e) => e.path === '/api/v1/namespaces/default/pods') || undefined, 20_000);
    const r = await s.stop('SIGTERM');
    assert.equal(r.code, 143, describeRun(r));
    assert.deepEqual(r.stderr.split('\n').filter((l) => l.startsWith('terminated')), ['terminated: stopped waiting for 1 rollout'], describeRun(r));
    assert.match(r.stdout, /section_start:\d+:\S+\[collapsed=true\]\r\x1b\[0Kcloneset\/api: not finished \(Paused\)\n/);
    assert.equal(junit(junitFile), '1 0 0 1\ncloneset/api Skipped\n');
    assertNoStackTrace(r.stderr);
  });
});

/** Runs `CMD | head -1` through bash and returns the CLI's own exit status and stderr. */
function pipedToHead(args: string[]): Promise<{ code: number; stderr: string; head: string }> {
  const [file, fileArgs] = cliCommand(args);
  const quoted = [file, ...fileArgs].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const errFile = join(sb.dir, `stderr-${Date.now()}.txt`);
  const script = `${quoted} 2>'${errFile}' | head -1; echo "status=\${PIPESTATUS[0]}" >&2`;
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/bash', ['-c', script], { env: testEnv(sb.kubeconfig), cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', () => {
      const code = Number(/status=(\d+)/.exec(err)?.[1] ?? NaN);
      resolve({ code, stderr: readFileSync(errFile, 'utf8'), head: out });
    });
  });
}

/** Runs the CLI with a stdout pipe that the reader closes before anything was written. */
function closedStdout(args: string[]): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(...cliCommand(args), { env: testEnv(sb.kubeconfig), cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code: code ?? 128, stdout: '', stderr: err, signal });
    });
  });
}

describe('a reader that goes away (SIGPIPE / EPIPE)', () => {
  for (const args of [
    ['rollout', 'history', 'cloneset/web'],
    ['rollout', 'history', 'cloneset/web', '-o', 'yaml'],
    ['completion', 'bash'],
  ]) {
    test(`${args.join(' ')} | head -1: no stack trace, exit 0 or 141`, async () => {
      const r = await pipedToHead(args);
      assert.ok(r.code === 0 || r.code === 141, `exit ${r.code}\nstderr:\n${r.stderr}`);
      assert.ok(r.head.length > 0, 'head got the first line');
      assertNoStackTrace(r.stderr);
      assert.doesNotMatch(r.stderr, /EPIPE|write after end/i);
    });
  }

  for (const args of [
    ['rollout', 'history', 'cloneset/web', '-o', 'json'],
    ['rollout', 'status', 'cloneset/web', '-o', 'json', '--timeout=30s'],
    ['explain', 'partition', '--replicas=10', '--partition=30%', '--plan=20%,50%,100%'],
  ]) {
    test(`${args.join(' ')} with stdout closed early: no stack trace, exit 0 or 141`, async () => {
      const r = await closedStdout(args);
      assert.ok(!r.signal || r.signal === 'SIGPIPE', describeRun(r));
      assert.ok(r.code === 0 || r.code === 141, describeRun(r));
      assertNoStackTrace(r.stderr);
      assert.doesNotMatch(r.stderr, /EPIPE|write after end/i);
    });
  }
});
