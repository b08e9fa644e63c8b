// #32: the sandbox's crash-looping containers back off as a kubelet does by default (`sandbox`
// without --crash-backoff): the first exit is restarted at once, then the container waits
// CrashLoopBackOff "back-off 10s ..." (restartCount 1), then "back-off 20s ..." (restartCount 2),
// as kuberuntime_manager.go doBackOff and client-go flowcontrol/backoff.go do (kubelet.go:
// backOffPeriod 10s, MaxContainerBackOff 5m; the rest of the sequence: test/unit/sandbox/controllers/
// kubelet-backoff.test.ts). Only the first two back-offs are waited for (about 11 s); the waits are
// read from the pod's own status timestamps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox, waitUntil } from '../helpers/sandbox';

interface Terminated {
  startedAt: string;
  finishedAt: string;
}
interface AppStatus {
  restartCount: number;
  state: { waiting?: { reason: string; message: string }; running?: { startedAt: string } };
  lastState?: { terminated?: Terminated };
}

const seconds = (t: string): number => Date.parse(t) / 1000;

test('the default crash back-off is the kubelet\'s: at once, then 10s (restartCount 1), then 20s (restartCount 2)', async () => {
  const sb = await startSandbox({ readyDelay: 200, crashBackoff: null });
  try {
    const created = await sb.api('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'crash' },
      spec: { containers: [{ name: 'app', image: 'busybox:crashloop' }] },
    });
    assert.equal(created.status, 201, created.text);
    const uid = created.body.metadata.uid as string;
    const app = async (): Promise<{ status: AppStatus; startTime: string }> => {
      const pod = (await sb.api('GET', '/api/v1/namespaces/default/pods/crash')).body;
      return { status: pod.status.containerStatuses[0], startTime: pod.status.startTime };
    };
    const waitingWith = (duration: string) => async () => {
      const { status, startTime } = await app();
      return status.state.waiting?.message?.startsWith(`back-off ${duration} `) ? { status, startTime } : undefined;
    };

    const first = await waitUntil('back-off 10s', waitingWith('10s'), 15_000, 50);
    assert.equal(first.status.state.waiting!.reason, 'CrashLoopBackOff');
    assert.equal(first.status.state.waiting!.message, `back-off 10s restarting failed container=app pod=crash_default(${uid})`);
    assert.equal(first.status.restartCount, 1, 'the first exit was restarted at once; the second waits');
    const secondRun = first.status.lastState!.terminated!;
    assert.ok(seconds(secondRun.startedAt) - seconds(first.startTime) <= 1, `restarted at once after the first exit: ${JSON.stringify(first)}`);

    const second = await waitUntil('back-off 20s', waitingWith('20s'), 20_000, 100);
    assert.equal(second.status.restartCount, 2);
    assert.equal(second.status.state.waiting!.message, `back-off 20s restarting failed container=app pod=crash_default(${uid})`);
    // The third run started 10 s after the second ended (timestamps are whole seconds).
    const waited = seconds(second.status.lastState!.terminated!.startedAt) - seconds(secondRun.finishedAt);
    assert.ok(waited >= 10 && waited <= 11, `waited ${waited}s between the second run's exit and the third run`);
  } finally {
    await sb.stop();
  }
});
