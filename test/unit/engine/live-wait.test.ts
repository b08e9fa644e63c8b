// engine/live.ts waitUntil: the verdict over several live views waits for all of their first lists.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitUntil, WaitTimeout, type LiveSet } from '../../../src/engine/live';
import type { KubeObject } from '../../../src/kube/client';

/** A LiveSet driven by hand: sync(items) delivers the first list, change() a later event. */
function fakeSet(): LiveSet<KubeObject> & { sync(items: KubeObject[]): void; change(): void } {
  const objects = new Map<string, KubeObject>();
  const listeners = new Set<() => void>();
  let markSynced: () => void = () => undefined;
  const synced = new Promise<void>((res) => (markSynced = res));
  const notify = (): void => {
    for (const l of [...listeners]) l();
  };
  return {
    objects,
    gone: new Map(),
    synced,
    failure: () => undefined,
    onChange(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    stop() {},
    sync(items) {
      for (const o of items) objects.set(o.metadata.name ?? '', o);
      markSynced();
      notify();
    },
    change: notify,
  };
}

const pod = (name: string): KubeObject => ({ metadata: { name } });

test('a set listed before the others does not decide: "pod gone" needs the pods listed (bug: scaledown --wait passed early)', async () => {
  const pods = fakeSet();
  const workload = fakeSet();
  let verdicts = 0;
  const done = waitUntil([pods, workload], () => {
    verdicts++;
    return !pods.objects.has('web-a') || undefined; // "gone" unless listed
  }, { what: 'web-a to go', deadline: Date.now() + 300 });
  workload.sync([pod('web')]); // the workload's list arrives first
  workload.change();
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(verdicts, 0, 'no check before the pods are listed');
  pods.sync([pod('web-a')]); // the pod is still there
  await assert.rejects(done, WaitTimeout);
  assert.ok(verdicts >= 1);
});

test('once every set is listed, the first true check resolves; later changes re-check', async () => {
  const a = fakeSet();
  const b = fakeSet();
  const done = waitUntil([a, b], () => (a.objects.has('x') && b.objects.has('y') ? 'both' : undefined), { what: 'x and y' });
  a.sync([]);
  b.sync([pod('y')]);
  await new Promise((r) => setTimeout(r, 10));
  a.objects.set('x', pod('x'));
  a.change();
  assert.equal(await done, 'both');
});
