// Container logs and kubelet Events of the sandbox through real kubectl (and once the Python client):
// `kubectl logs` with -c, the default-container annotation, --previous of a crash-looping container
// (and the kubelet's error without one), --tail, --timestamps, -f until the instance ends or the pod
// is deleted; `kubectl events` / `get events` showing the BackOff of a crash loop counted, not repeated.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { kubectl, REPO_ROOT, streamKubectl } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const FIXTURE = join(REPO_ROOT, 'test/fixtures/sandbox-logs/pods.yaml');

interface EventJson {
  reason: string;
  type: string;
  count?: number;
  message: string;
  involvedObject: { name: string; fieldPath?: string };
}

describe('pod logs and events on the sandbox', () => {
  let sb: Sandbox;
  const k = (args: string[]) => kubectl(args, sb.kubeconfig, { timeoutMs: 20_000 });
  const ok = async (args: string[]) => {
    const r = await k(args);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const restarts = async (pod: string) => ((await sb.api('GET', `/api/v1/namespaces/default/pods/${pod}`)).body.status?.containerStatuses ?? []).find((c: { name: string }) => c.name === 'app')?.restartCount ?? 0;
  const events = async (selector: string) => (JSON.parse(await ok(['get', 'events', '--field-selector', selector, '-o', 'json'])).items ?? []) as EventJson[];

  before(async () => {
    sb = await startSandbox({ readyDelay: '200ms' });
    await ok(['apply', '-f', FIXTURE]);
    await waitUntil('the app container crashed twice and web is ready', async () => (await restarts('crash')) >= 2 && (await ok(['get', 'pod', 'web', '-o', 'jsonpath={.status.containerStatuses[0].ready}'])) === 'true', 15_000);
  });
  after(() => sb?.stop());

  test('kubectl logs: the annotated default container, -c, SANDBOX_LOG lines, --tail, --timestamps; no Secret value ever', async () => {
    const app = await k(['logs', 'crash']);
    assert.equal(app.code, 0, app.stderr);
    assert.equal(app.stderr, '', 'the annotation names the container: no "Defaulted container" note');
    // Running again or crashed again (then --previous, below, is the same run): it printed its SANDBOX_LOG lines.
    assert.match(app.stdout, /^\[sandbox\] starting busybox:crashloop \(container app, restart \d+\)\nconnecting to db:5432 as app\nerror: connection refused\n(\[sandbox\] error: busybox:crashloop crashed \(image tag :crashloop\)\n\[sandbox\] exit code 1\n)?$/);
    assert.ok(!app.stdout.includes('s3cr3t'));
    assert.equal(await ok(['logs', 'crash', '-c', 'side']), '[sandbox] starting nginx:1.27 (container side, restart 0)\n[sandbox] ready\n');
    assert.equal(await ok(['logs', 'web', '--tail=5']), 'line 5\nline 6\nline 7\nline 8\n[sandbox] ready\n');
    const stamped = (await ok(['logs', 'web', '--tail=2', '--timestamps'])).split('\n');
    assert.match(stamped[0]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z line 8$/);
    assert.match(stamped[1]!, /^\S+Z \[sandbox\] ready$/);
    assert.equal(await ok(['logs', 'web', '--limit-bytes=18']), '[sandbox] starting');
    // The API server itself does not default: kubectl chose the container above.
    const raw = await sb.api('GET', '/api/v1/namespaces/default/pods/crash/log');
    assert.equal(raw.status, 400);
    assert.equal(raw.body.message, 'a container name must be specified for pod crash, choose one of: [app side]');
  });

  test('--previous: the crashed instance ends with its error and exit code; without one, the kubelet\'s 400', async () => {
    const previous = await ok(['logs', 'crash', '-c', 'app', '--previous']);
    assert.match(previous, /\[sandbox\] error: busybox:crashloop crashed \(image tag :crashloop\)\n\[sandbox\] exit code 1\n$/);
    const none = await k(['logs', 'web', '--previous']);
    assert.equal(none.code, 1);
    assert.equal(none.stderr.trim(), 'Error from server (BadRequest): previous terminated container "web" in pod "web" not found');
  });

  test('a Job\'s failed container: kubectl logs job/NAME shows why it exited', async () => {
    await waitUntil('the job failed', async () => (await ok(['get', 'job', 'migrate', '-o', 'jsonpath={.status.failed}'])) === '1', 15_000);
    assert.match(await ok(['logs', 'job/migrate']), /\[sandbox\] error: busybox:exit-3 failed \(image tag :exit-3\)\n\[sandbox\] exit code 3\n$/);
  });

  test('-f follows a running container until its pod is deleted, and a crash-looping one until its instance exits', async () => {
    const follow = streamKubectl(['logs', '-f', 'web', '--tail=1'], sb.kubeconfig);
    const exited = new Promise<number | null>((res) => follow.child.once('close', (code) => res(code)));
    try {
      await follow.waitFor('[sandbox] ready\n');
      await ok(['delete', 'pod', 'web', '--wait=false']);
      assert.equal(await exited, 0, follow.stderr());
      assert.equal(follow.stdout(), '[sandbox] ready\n[sandbox] received SIGTERM, shutting down\n[sandbox] exit code 0\n');
    } finally {
      await follow.stop('SIGKILL');
    }
    // Running or already crashed, the stream ends with the instance's last line.
    const crash = await k(['logs', '-f', 'crash', '-c', 'app']);
    assert.equal(crash.code, 0, crash.stderr);
    assert.match(crash.stdout, /\[sandbox\] exit code 1\n$/);
  });

  test('events: kubelet and scheduler reasons; the crash loop\'s BackOff is one event counted up', async () => {
    const backOff = await waitUntil('BackOff counted twice', async () => (await events('involvedObject.name=crash,reason=BackOff')).find((e) => (e.count ?? 0) > 1), 15_000);
    assert.equal(backOff.type, 'Warning');
    assert.equal(backOff.involvedObject.fieldPath, 'spec.containers{app}');
    assert.match(backOff.message, /^Back-off restarting failed container app in pod crash_default\([0-9a-f-]{36}\)$/);
    assert.equal((await events('involvedObject.name=crash,reason=BackOff')).length, 1);
    const reasons = new Set((await events('involvedObject.name=crash')).map((e) => e.reason));
    for (const r of ['Scheduled', 'Pulled', 'Created', 'Started', 'BackOff']) assert.ok(reasons.has(r), `${r} in ${[...reasons].join(',')}`);
    const scheduled = (await events('involvedObject.name=crash,reason=Scheduled'))[0]!;
    assert.match(scheduled.message, /^Successfully assigned default\/crash to node-\d$/);
    const table = await ok(['events', '--for', 'pod/crash']);
    assert.match(table, /\(x\d+ over \S+\)\s+Warning\s+BackOff\s+Pod\/crash\s+Back-off restarting failed container app/);
  });

  test('the Python client reads a container log (read_namespaced_pod_log)', async () => {
    const script = "import json\nfrom kubernetes import client, config\nconfig.load_kube_config()\nprint(json.dumps(client.CoreV1Api().read_namespaced_pod_log('crash', 'default', container='side', tail_lines=1)))";
    const out = await new Promise<string>((res, rej) =>
      execFile('/usr/bin/python3', ['-c', script], { env: { ...sb.env, KUBECONFIG: sb.kubeconfig }, timeout: 30_000 }, (err, stdout, stderr) => (err ? rej(new Error(stderr || err.message)) : res(stdout))),
    );
    assert.equal(JSON.parse(out), '[sandbox] ready\n');
  });
});
