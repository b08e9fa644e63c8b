// pods/log semantics: which container and instance is read, the kubelet's errors, and how
// tailLines / sinceSeconds / sinceTime / limitBytes / timestamps shape the text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../../../src/kruise/types';
import { ApiError } from '../../../../src/sandbox/server/errors';
import { LogWriter, logContainer, logInstance, rfc3339NanoFixed, validatePodLogOptions, type PodLogOptions } from '../../../../src/sandbox/server/pod-log';

const pod = (statuses: Array<Record<string, unknown>>, extra: Partial<Pod['spec']> = {}): Pod =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', namespace: 'default', uid: 'u1' },
    spec: { nodeName: 'node-1', containers: [{ name: 'app' }, { name: 'side' }], ...extra },
    status: { containerStatuses: statuses },
  }) as unknown as Pod;

function badRequest(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 400);
    return err.message;
  }
  assert.fail('expected a 400');
}

test('the container: the only one, the one named, else the API server 400 naming the choices', () => {
  assert.equal(logContainer(pod([], { containers: [{ name: 'app' }] }), undefined), 'app');
  assert.equal(logContainer(pod([], { initContainers: [{ name: 'init' }] }), 'init'), 'init');
  assert.equal(badRequest(() => logContainer(pod([]), undefined)), 'a container name must be specified for pod web-0, choose one of: [app side]');
  assert.equal(badRequest(() => logContainer(pod([], { initContainers: [{ name: 'init' }] }), undefined)), 'a container name must be specified for pod web-0, choose one of: [app side] or one of the init containers: [init]');
  assert.equal(badRequest(() => logContainer(pod([]), 'nope')), 'container nope is not valid for pod web-0');
});

test('the instance: previous, running, the last that exited, and the kubelet texts of the rest', () => {
  const crashing = { name: 'app', containerID: 'c2', state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, containerID: 'c2' } } };
  const restarted = { name: 'app', containerID: 'c3', state: { running: {} }, lastState: { terminated: { exitCode: 1, containerID: 'c2' } } };
  assert.equal(logInstance(pod([crashing]), 'app', false), 'c2', 'a crash-looping container shows its last run');
  assert.equal(logInstance(pod([crashing]), 'app', true), 'c2');
  assert.equal(logInstance(pod([restarted]), 'app', false), 'c3');
  assert.equal(logInstance(pod([restarted]), 'app', true), 'c2');
  assert.equal(logInstance(pod([{ name: 'app', containerID: 'c9', state: { terminated: { exitCode: 0 } } }]), 'app', false), 'c9');
  assert.equal(badRequest(() => logInstance(pod([{ name: 'app', containerID: 'c1', state: { running: {} } }]), 'app', true)), 'previous terminated container "app" in pod "web-0" not found');
  assert.equal(badRequest(() => logInstance(pod([{ name: 'app', state: { waiting: { reason: 'ImagePullBackOff' } } }]), 'app', false)), 'container "app" in pod "web-0" is waiting to start: trying and failing to pull image');
  assert.equal(badRequest(() => logInstance(pod([{ name: 'app', state: { waiting: { reason: 'ErrImagePull' } } }]), 'app', false)), 'container "app" in pod "web-0" is waiting to start: image can\'t be pulled');
  assert.equal(badRequest(() => logInstance(pod([{ name: 'app', state: { waiting: { reason: 'InvalidImageName' } } }]), 'app', false)), 'container "app" in pod "web-0" is waiting to start: InvalidImageName');
  assert.equal(badRequest(() => logInstance(pod([]), 'app', false)), 'container "app" in pod "web-0" is waiting to start: ContainerCreating');
});

test('ValidatePodLogOptions: 422 PodLogOptions with one cause per field', () => {
  const opts = (o: Partial<PodLogOptions>): PodLogOptions => ({ follow: false, previous: false, timestamps: false, ...o });
  validatePodLogOptions('web-0', opts({ tailLines: 0, limitBytes: 1, sinceSeconds: 1 }));
  try {
    validatePodLogOptions('web-0', opts({ tailLines: -1, limitBytes: 0 }));
    assert.fail('expected a 422');
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 422);
    assert.equal(err.message, 'PodLogOptions "web-0" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]');
  }
  assert.throws(() => validatePodLogOptions('web-0', opts({ sinceSeconds: 0 })), /sinceSeconds: Invalid value: 0: must be greater than 0/);
  assert.throws(() => validatePodLogOptions('web-0', opts({ sinceSeconds: 5, sinceTime: 0 })), /at most one of `sinceTime` or `sinceSeconds` may be specified/);
});

const t0 = Date.parse('2026-05-01T10:00:00Z');
const lines = [
  { ms: t0, ns: 1, text: 'one' },
  { ms: t0 + 1000, ns: 0, text: 'two' },
  { ms: t0 + 2000, ns: 123456, text: 'three' },
];
const write = (o: Partial<PodLogOptions>, now = t0 + 3000) => new LogWriter({ follow: false, previous: false, timestamps: false, ...o }, now).initial(lines);

test('tailLines, then since; timestamps are RFC3339Nano with nine digits; limitBytes cuts a line', () => {
  assert.equal(write({}), 'one\ntwo\nthree\n');
  assert.equal(write({ tailLines: 2 }), 'two\nthree\n');
  assert.equal(write({ tailLines: 0 }), '');
  assert.equal(write({ sinceSeconds: 2 }), 'two\nthree\n', 'a line at exactly now - sinceSeconds is kept');
  assert.equal(write({ sinceTime: t0 + 1500 }), 'three\n');
  assert.equal(write({ sinceSeconds: 60, sinceTime: t0 + 1500 }), 'three\n', 'the later of the two wins');
  assert.equal(write({ limitBytes: 6 }), 'one\ntw');
  assert.equal(write({ tailLines: 1, timestamps: true }), '2026-05-01T10:00:02.000123456Z three\n');
  assert.equal(rfc3339NanoFixed({ ms: t0 + 7, ns: 0 }), '2026-05-01T10:00:00.007000000Z');
});

test('a following writer goes on with the byte limit it has left, and says when it is done', () => {
  const w = new LogWriter({ follow: true, previous: false, timestamps: false, limitBytes: 10 }, t0);
  assert.equal(w.initial(lines.slice(0, 1)), 'one\n');
  assert.equal(w.line({ ms: t0, ns: 5, text: 'four' }), 'four\n');
  assert.equal(w.done, false);
  assert.equal(w.line({ ms: t0, ns: 6, text: 'five' }), 'f');
  assert.equal(w.done, true);
  assert.equal(w.line({ ms: t0, ns: 7, text: 'six' }), '');
  const utf8 = new LogWriter({ follow: false, previous: false, timestamps: false, limitBytes: 2 }, t0);
  assert.equal(utf8.initial([{ ms: t0, ns: 0, text: 'añb' }]), 'a', 'a multi-byte character is not split');
  assert.equal(utf8.done, true);
});
