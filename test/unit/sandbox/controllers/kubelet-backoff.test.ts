// The sandbox kubelet's restart back-off (src/sandbox/controllers/kubelet-backoff.ts), against the
// kubelet's own numbers: pkg/kubelet/kubelet.go backOffPeriod 10s and MaxContainerBackOff 300s,
// kuberuntime_manager.go doBackOff's message, client-go util/flowcontrol/backoff.go Next /
// IsInBackOffSince / hasExpired (2 x max). The doubling as the kubelet prints it: 10s, 20s, 40s,
// 1m20s, 2m40s, 5m0s (Go's Duration.String).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crashBackoffPolicy, crashLoopMessage, KUBELET_CRASH_BACKOFF, nextBackoff, parseCrashBackoff, waitsAfterExit, type BackoffEntry } from '../../../../src/sandbox/controllers/kubelet-backoff';
import { formatGoDuration, parseGoDuration } from '../../../../src/lib/go-duration';

test('Go Duration.String for the back-offs and the sandbox flags', () => {
  const cases: Array<[number, string]> = [[0, '0s'], [100, '100ms'], [1500, '1.5s'], [10_000, '10s'], [80_000, '1m20s'], [160_000, '2m40s'], [300_000, '5m0s'], [3_600_000, '1h0m0s'], [3_723_250, '1h2m3.25s']];
  for (const [ms, text] of cases) {
    assert.equal(formatGoDuration(ms), text);
    assert.equal(parseGoDuration(text), ms);
  }
});

test('a container crashing every few seconds: restarted at once, then waits 10s, 20s, 40s, 1m20s, 2m40s, 5m0s, 5m0s', () => {
  const policy = crashBackoffPolicy(undefined, 500);
  assert.deepEqual(policy, KUBELET_CRASH_BACKOFF);
  assert.deepEqual(crashBackoffPolicy('kubelet', 500), { initialMs: 10_000, maxMs: 300_000 });
  let entry: BackoffEntry | undefined;
  let now = 0;
  const waits: string[] = [];
  for (let exit = 0; exit < 8; exit++) {
    now += 2000; // each run lasts 2 s
    if (waitsAfterExit(entry, now, policy)) {
      waits.push(formatGoDuration(entry!.backoffMs));
      const exitAt = now;
      now += entry!.backoffMs;
      entry = nextBackoff(entry, exitAt, now, policy);
    } else {
      waits.push('at once');
      entry = nextBackoff(entry, now, now, policy);
    }
  }
  assert.deepEqual(waits, ['at once', '10s', '20s', '40s', '1m20s', '2m40s', '5m0s', '5m0s']);
  assert.equal(crashLoopMessage(entry!.backoffMs, 'app', { name: 'web-0', namespace: 'shop', uid: 'u-1' }), 'back-off 5m0s restarting failed container=app pod=web-0_shop(u-1)');
});

test('after more than 10 minutes of running fine (2 x MaxContainerBackOff since the last restart) the back-off starts over', () => {
  const policy = KUBELET_CRASH_BACKOFF;
  const entry: BackoffEntry = { backoffMs: 300_000, lastUpdateMs: 0 };
  assert.equal(waitsAfterExit(entry, 600_000, policy), true, 'exactly 10 minutes: still backing off');
  assert.equal(waitsAfterExit(entry, 600_001, policy), false, 'past 10 minutes: restarted at once');
  assert.deepEqual(nextBackoff(entry, 600_001, 600_002, policy), { backoffMs: 10_000, lastUpdateMs: 600_002 });
});

test('--crash-backoff: kubelet, fast (the ready delay, at least 100ms, doubling to 8 times it), or a first wait doubling to 30 times it', () => {
  const parse = (v: string) => parseCrashBackoff(v, parseGoDuration);
  assert.equal(parse('kubelet'), 'kubelet');
  assert.equal(parse('fast'), 'fast');
  assert.deepEqual(crashBackoffPolicy(parse('fast'), 500), { initialMs: 500, maxMs: 4000 });
  assert.deepEqual(crashBackoffPolicy(parse('fast'), 20), { initialMs: 100, maxMs: 800 });
  assert.deepEqual(crashBackoffPolicy(parse('1s'), 500), { initialMs: 1000, maxMs: 30_000 });
  assert.throws(() => parse('slow'), /invalid value "slow" for --crash-backoff: use kubelet, fast or a duration such as 1s/);
  assert.throws(() => parse('0s'), /at least 1ms/);
});
