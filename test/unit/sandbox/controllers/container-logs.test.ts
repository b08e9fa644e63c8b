// The container log model (current and previous instance, bounds, followers) and its texts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContainerLogs, INSTANCE_LOG_LIMIT_BYTES } from '../../../../src/sandbox/controllers/container-logs';
import { READY_LINE, exitLines, sandboxLogLines, startLines } from '../../../../src/sandbox/controllers/container-log-lines';
import type { LogLine } from '../../../../src/sandbox/store-api';

/** A clock standing still: the model still orders lines (strictly increasing stamps). */
const frozen = () => 1_700_000_000_000.25;
const texts = (lines: readonly LogLine[] | undefined) => (lines ?? []).map((l) => l.text);

test('an instance keeps its lines; a restart makes it the previous one, and the one before is gone', () => {
  const logs = new ContainerLogs(frozen);
  logs.start('uid', 'app', 'c1', ['one']);
  logs.end('uid', 'app', 'c1', ['exit code 1']);
  logs.start('uid', 'app', 'c2', ['two']);
  assert.deepEqual(texts(logs.lines('uid', 'app', 'c1')), ['one', 'exit code 1']);
  assert.deepEqual(texts(logs.lines('uid', 'app', 'c2')), ['two']);
  logs.start('uid', 'app', 'c3', ['three']);
  assert.equal(logs.lines('uid', 'app', 'c1'), undefined, 'the kubelet keeps one previous instance');
  assert.deepEqual(texts(logs.lines('uid', 'app', 'c2')), ['two'], 'replaced while running: ended, kept as previous');
  assert.equal(logs.current('uid', 'app')?.containerID, 'c3');
  logs.dropPod('uid');
  assert.equal(logs.lines('uid', 'app', 'c3'), undefined, 'dropped with the pod');
});

test('stamps increase strictly under a clock standing still (ms, then ns within it)', () => {
  const logs = new ContainerLogs(frozen);
  logs.start('u', 'c', 'id', ['a', 'b', 'c']);
  const stamps = logs.lines('u', 'c', 'id')!.map((l) => BigInt(l.ms) * 1_000_000n + BigInt(l.ns));
  assert.ok(stamps[0]! < stamps[1]! && stamps[1]! < stamps[2]!);
  assert.equal(logs.lines('u', 'c', 'id')![0]!.ns, 250_000, 'the clock fraction is the nanoseconds within the ms');
});

test('an instance keeps at most INSTANCE_LOG_LIMIT_BYTES: the oldest lines go first', () => {
  const logs = new ContainerLogs(frozen);
  const line = 'x'.repeat(99);
  logs.start('u', 'c', 'id', Array.from({ length: 100 }, (_, i) => `${i} ${line}`));
  const kept = logs.lines('u', 'c', 'id')!;
  const bytes = kept.reduce((n, l) => n + l.text.length + 1, 0);
  assert.ok(bytes <= INSTANCE_LOG_LIMIT_BYTES, `${bytes} bytes kept`);
  assert.ok(kept.length >= 30 && kept.at(-1)!.text.startsWith('99 '), 'the newest lines stay');
});

test('followers get new lines of their instance, then its end; a pod deletion ends them too', () => {
  const logs = new ContainerLogs(frozen);
  const seen: string[] = [];
  const follower = (tag: string) => ({ line: (l: LogLine) => seen.push(`${tag}:${l.text}`), end: () => seen.push(`${tag}:end`) });
  logs.start('u', 'app', 'c1', ['start']);
  logs.follow('u', 'app', 'c1', follower('a'));
  // Not started yet (a restart someone else wrote): waits for the kubelet to start it.
  logs.follow('u', 'app', 'c2', follower('b'));
  logs.append('u', 'app', 'c1', [READY_LINE]);
  logs.end('u', 'app', 'c1', ['bye']);
  logs.start('u', 'app', 'c2', ['again']);
  logs.follow('u', 'app', 'c1', follower('late'));
  logs.dropPod('u');
  assert.deepEqual(seen, ['a:[sandbox] ready', 'a:bye', 'a:end', 'b:again', 'late:end', 'b:end']);
});

test('unsubscribing a follower stops its lines (a client that went away)', () => {
  const logs = new ContainerLogs(frozen);
  const seen: string[] = [];
  logs.start('u', 'app', 'c1', []);
  const stop = logs.follow('u', 'app', 'c1', { line: (l) => seen.push(l.text), end: () => seen.push('end') });
  logs.append('u', 'app', 'c1', ['one']);
  stop();
  logs.append('u', 'app', 'c1', ['two']);
  logs.dropPod('u');
  assert.deepEqual(seen, ['one']);
});

test('markReady is news once per instance', () => {
  const logs = new ContainerLogs(frozen);
  logs.start('u', 'app', 'c1', []);
  assert.equal(logs.markReady('u', 'app', 'c1'), true);
  assert.equal(logs.markReady('u', 'app', 'c1'), false);
  assert.equal(logs.markReady('u', 'app', 'other'), false);
});

test('texts: start with SANDBOX_LOG lines (literal values only), and how an instance ended', () => {
  const container = {
    name: 'app',
    env: [
      { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      { name: 'SANDBOX_LOG', value: 'connecting to $(PASSWORD)\nerror: connection refused\n' },
    ],
  };
  assert.deepEqual(startLines(container, 'busybox:crashloop', 2), ['[sandbox] starting busybox:crashloop (container app, restart 2)', 'connecting to $(PASSWORD)', 'error: connection refused']);
  assert.deepEqual(sandboxLogLines({ env: [{ name: 'SANDBOX_LOG', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }), [], 'valueFrom is never read');
  assert.deepEqual(exitLines('busybox:crashloop', 1, 'crashloop'), ['[sandbox] error: busybox:crashloop crashed (image tag :crashloop)', '[sandbox] exit code 1']);
  assert.deepEqual(exitLines('busybox:exit-3', 3, 'exited'), ['[sandbox] error: busybox:exit-3 failed (image tag :exit-3)', '[sandbox] exit code 3']);
  assert.deepEqual(exitLines('busybox:exit-0', 0, 'exited'), ['[sandbox] work done', '[sandbox] exit code 0']);
  assert.deepEqual(exitLines('nginx:1.27', 137, 'killed'), ['[sandbox] received SIGTERM, shutting down', '[sandbox] exit code 137']);
});
