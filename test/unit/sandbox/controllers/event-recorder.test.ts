// Event recording as kube's components do it: counts on repeats, combined messages, series, and
// the sandbox's bound (an object's events go with it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStore } from '../../../helpers/memory-store';
import { EVENTS, EventRecorder, microTime } from '../../../../src/sandbox/controllers/event-recorder';
import type { KubeObject } from '../../../../src/kruise/types';

const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', namespace: 'default', uid: 'uid-1', resourceVersion: '7' } };
type Ev = KubeObject & { count?: number; message: string; reason: string; firstTimestamp?: string | null; lastTimestamp?: string | null; series?: { count: number }; involvedObject: Record<string, string>; source: Record<string, string> };

function setup(style: 'core' | 'series') {
  const store = createStore();
  let now = Date.parse('2026-05-01T10:00:00Z');
  const recorder = new EventRecorder(store, { style, component: style === 'core' ? 'kubelet' : 'default-scheduler', instance: 'default-scheduler-x', now: () => now });
  const events = () => store.list(EVENTS, { namespace: 'default' }) as Ev[];
  return { store, recorder, events, tick: (ms: number) => (now += ms) };
}

test('core: the same event again counts up and moves lastTimestamp; another message is another event', () => {
  const { recorder, events, tick } = setup('core');
  const backOff = { type: 'Warning' as const, reason: 'BackOff', message: 'Back-off restarting failed container app in pod web-0_default(uid-1)', fieldPath: 'spec.containers{app}' };
  recorder.record(pod, backOff, 'node-1');
  tick(3000);
  recorder.record(pod, backOff, 'node-1');
  recorder.record(pod, backOff, 'node-1');
  recorder.record(pod, { ...backOff, reason: 'Started', type: 'Normal', message: 'Started container app' }, 'node-1');
  const [first, second] = events();
  assert.equal(events().length, 2);
  assert.equal(first!.count, 3);
  assert.equal(first!.firstTimestamp, '2026-05-01T10:00:00Z');
  assert.equal(first!.lastTimestamp, '2026-05-01T10:00:03Z');
  assert.match(first!.metadata.name!, /^web-0\.[0-9a-f]+$/);
  assert.deepEqual(first!.involvedObject, { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'uid-1', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec.containers{app}' });
  assert.deepEqual(first!.source, { component: 'kubelet', host: 'node-1' });
  assert.equal((first as unknown as { reportingInstance: string }).reportingInstance, 'node-1');
  assert.equal(second!.count, 1);
});

test('core: the 10th distinct message of one reason within 10 minutes is combined, and the combined one counts', () => {
  const { recorder, events } = setup('core');
  for (let i = 0; i < 12; i++) recorder.record(pod, { type: 'Normal', reason: 'Pulling', message: `Pulling image "nginx:1.${i}"` }, 'node-1');
  const all = events();
  const combined = all.filter((e) => e.message.startsWith('(combined from similar events): '));
  assert.equal(all.length, 10, '9 single messages and one combined event');
  assert.equal(combined.length, 1);
  assert.equal(combined[0]!.count, 3);
  assert.equal(combined[0]!.message, '(combined from similar events): Pulling image "nginx:1.11"');
});

test('series: eventTime and no timestamps; a repeat grows series.count', () => {
  const { recorder, events, tick } = setup('series');
  const failed = { type: 'Warning' as const, reason: 'FailedScheduling', message: '0/3 nodes are available', action: 'Scheduling' };
  recorder.record(pod, failed);
  let [ev] = events();
  assert.equal(ev!.firstTimestamp, null);
  assert.equal(ev!.lastTimestamp, null);
  assert.equal((ev as unknown as { eventTime: string }).eventTime, '2026-05-01T10:00:00.000000Z');
  assert.equal(ev!.count, undefined);
  assert.deepEqual(ev!.source, {});
  tick(1500);
  recorder.record(pod, failed);
  recorder.record(pod, failed);
  [ev] = events();
  assert.equal(events().length, 1);
  assert.deepEqual(ev!.series, { count: 3, lastObservedTime: '2026-05-01T10:00:01.500000Z' });
  assert.equal(microTime(Date.parse('2026-05-01T10:00:00Z') + 0.123456789), '2026-05-01T10:00:00.000123Z');
});

test('forget deletes every event recorded about the object; a later event starts afresh', () => {
  const { recorder, events } = setup('core');
  recorder.record(pod, { type: 'Normal', reason: 'Created', message: 'Created container app' }, 'node-1');
  recorder.record(pod, { type: 'Normal', reason: 'Started', message: 'Started container app' }, 'node-1');
  recorder.forget('uid-1');
  assert.equal(events().length, 0);
  recorder.record(pod, { type: 'Normal', reason: 'Created', message: 'Created container app' }, 'node-1');
  assert.equal(events()[0]!.count, 1);
});

test('an event another client deleted is created again rather than lost', () => {
  const { store, recorder, events } = setup('core');
  recorder.record(pod, { type: 'Normal', reason: 'Created', message: 'Created container app' }, 'node-1');
  store.delete(EVENTS, 'default', events()[0]!.metadata.name!);
  recorder.record(pod, { type: 'Normal', reason: 'Created', message: 'Created container app' }, 'node-1');
  assert.equal(events().length, 1);
});

test('an event another client changed meanwhile still counts up (written from what is stored now)', () => {
  const { store, recorder, events } = setup('core');
  const spec = { type: 'Normal' as const, reason: 'Created', message: 'Created container app' };
  recorder.record(pod, spec, 'node-1');
  const ev = events()[0]!;
  store.update(EVENTS, { ...ev, metadata: { ...ev.metadata, annotations: { note: 'kept' } } });
  recorder.record(pod, spec, 'node-1');
  assert.equal(events()[0]!.count, 2);
  assert.deepEqual(events()[0]!.metadata.annotations, { note: 'kept' });
});
