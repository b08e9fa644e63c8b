// src/kube/shared-watches.ts: one list+watch per resource and namespace, however many objects a gate
// follows; each subscriber sees what its own watch (by name or label selector) would have shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeClient, KubeObject, ObserveOptions, ResourceType, WatchEvent } from '../../../src/kube/client';
import { SharedWatchClient } from '../../../src/kube/shared-watches';

const PODS: ResourceType = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const CLONESETS: ResourceType = { group: 'apps.kruise.io', version: 'v1alpha1', resource: 'clonesets', kind: 'CloneSet', namespaced: true };

function pod(name: string, labels: Record<string, string>, uid = `u-${name}`): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, uid, labels } };
}

/** A fake inner client: records each observe() and lets the test deliver its list and events. */
function fakeInner() {
  const observations: Array<{ rt: ResourceType; ns?: string; opts: ObserveOptions; emit: (ev: WatchEvent) => Promise<void>; sync: (items: KubeObject[]) => Promise<void>; stopped: boolean }> = [];
  const inner = {
    namespace: 'default',
    server: 'https://fake',
    userName: 'me',
    observe(rt: ResourceType, ns: string | undefined, opts: ObserveOptions, onEvent: (ev: WatchEvent) => void | Promise<void>) {
      const rec = {
        rt,
        ns,
        opts,
        stopped: false,
        emit: async (ev: WatchEvent) => {
          if (!rec.stopped) await onEvent({ type: ev.type, object: ev.object });
        },
        sync: async (items: KubeObject[]) => {
          if (rec.stopped) return;
          const kept = opts.mapItem ? items.map(opts.mapItem).filter((i): i is KubeObject => i !== undefined) : items;
          await opts.onSync?.(kept);
        },
      };
      observations.push(rec);
      return { done: new Promise<void>(() => undefined), stop: () => void (rec.stopped = true) };
    },
    list: async () => ({ apiVersion: 'v1', kind: 'List', metadata: {}, items: [] }),
  };
  return { inner: inner as unknown as KubeClient, observations };
}

function recorder() {
  const synced: string[][] = [];
  const events: string[] = [];
  return {
    synced,
    events,
    opts: (extra: Partial<ObserveOptions>): ObserveOptions => ({ ...extra, onSync: (items) => void synced.push(items.map((i) => i.metadata.name ?? '')) }),
    onEvent: (ev: WatchEvent) => void events.push(`${ev.type} ${ev.object.metadata.name}`),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

test('shared-watches: two selectors and a name in one namespace are one observation of the inner client, each sees only its own', async () => {
  const { inner, observations } = fakeInner();
  const shared = new SharedWatchClient(inner);
  const web = recorder();
  const api = recorder();
  shared.observe(PODS, 'default', web.opts({ labelSelector: 'app=web' }), web.onEvent);
  shared.observe(PODS, 'default', api.opts({ labelSelector: 'app in (api)' }), api.onEvent);
  assert.equal(observations.length, 1, 'one list+watch of pods in default');
  assert.equal(observations[0]!.opts.labelSelector, undefined);
  await observations[0]!.sync([pod('web-1', { app: 'web' }), pod('api-1', { app: 'api' }), pod('other', { app: 'db' })]);
  assert.deepEqual(web.synced, [['web-1']]);
  assert.deepEqual(api.synced, [['api-1']]);
  await observations[0]!.emit({ type: 'ADDED', object: pod('web-2', { app: 'web' }) });
  await observations[0]!.emit({ type: 'MODIFIED', object: pod('other', { app: 'db' }) });
  assert.deepEqual(web.events, ['ADDED web-2']);
  assert.deepEqual(api.events, []);
  // Another namespace and another resource: observations of their own.
  shared.observe(PODS, 'team', web.opts({ labelSelector: 'app=web' }), web.onEvent);
  shared.observe(CLONESETS, 'default', web.opts({ name: 'web' }), web.onEvent);
  assert.equal(observations.length, 3);
});

test('shared-watches: an item that stops matching a selector is DELETED for that subscriber, as the API server does', async () => {
  const { inner, observations } = fakeInner();
  const shared = new SharedWatchClient(inner);
  const web = recorder();
  shared.observe(PODS, 'default', web.opts({ labelSelector: 'app=web' }), web.onEvent);
  await observations[0]!.sync([pod('p', { app: 'web' })]);
  await observations[0]!.emit({ type: 'MODIFIED', object: pod('p', { app: 'other' }) });
  await observations[0]!.emit({ type: 'MODIFIED', object: pod('p', { app: 'other' }) });
  await observations[0]!.emit({ type: 'MODIFIED', object: pod('p', { app: 'web' }) });
  assert.deepEqual(web.events, ['DELETED p', 'ADDED p']);
});

test('shared-watches: a subscriber that joins after the list gets its share from the cache (declared interest), no second list', async () => {
  const { inner, observations } = fakeInner();
  const shared = new SharedWatchClient(inner);
  shared.declare(PODS, 'default', { labelSelector: 'app=api' });
  const web = recorder();
  shared.observe(PODS, 'default', web.opts({ labelSelector: 'app=web' }), web.onEvent);
  await observations[0]!.sync([pod('web-1', { app: 'web' }), pod('api-1', { app: 'api' }), pod('db-1', { app: 'db' })]);
  const api = recorder();
  shared.observe(PODS, 'default', api.opts({ labelSelector: 'app=api' }), api.onEvent);
  await tick();
  assert.equal(observations.length, 1);
  assert.deepEqual(api.synced, [['api-1']]);
  // An undeclared selector: the kept list cannot answer it, so the observation lists again.
  const db = recorder();
  shared.observe(PODS, 'default', db.opts({ labelSelector: 'app=db' }), db.onEvent);
  assert.equal(observations.length, 2);
  assert.equal(observations[0]!.stopped, true);
  await observations[1]!.sync([pod('web-1', { app: 'web' }), pod('api-1', { app: 'api' }), pod('db-1', { app: 'db' })]);
  assert.deepEqual(db.synced, [['db-1']]);
  assert.deepEqual(web.synced, [['web-1'], ['web-1']], 'the others see a relist, as after a 410');
});

test('shared-watches: the observation ends with its last subscriber; list() of a listFromWatch resource is the shared list and pins it', async () => {
  const { inner, observations } = fakeInner();
  const ROLLOUTS: ResourceType = { group: 'rollouts.kruise.io', version: 'v1beta1', resource: 'rollouts', kind: 'Rollout', namespaced: true };
  const shared = new SharedWatchClient(inner, { listFromWatch: ['rollouts.kruise.io/rollouts'] });
  const a = recorder();
  const obs = shared.observe(PODS, 'default', a.opts({ labelSelector: 'app=web' }), a.onEvent);
  obs.stop();
  assert.equal(observations[0]!.stopped, true);
  const listed = shared.list(ROLLOUTS, 'default');
  await observations[1]!.sync([{ apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name: 'r1', uid: 'r1' } }]);
  assert.deepEqual((await listed).items.map((i) => i.metadata.name), ['r1']);
  const b = recorder();
  shared.observe(ROLLOUTS, 'default', b.opts({ name: 'r1' }), b.onEvent);
  await tick();
  assert.equal(observations.length, 2, 'the Rollout watched by name comes from the same list');
  assert.deepEqual(b.synced, [['r1']]);
  assert.equal(observations[1]!.stopped, false);
});

test('shared-watches: mapItem of each subscriber applies to what it receives; shape applies to the cache', async () => {
  const { inner, observations } = fakeInner();
  const shared = new SharedWatchClient(inner, { shape: (_rt, item) => ({ ...item, metadata: { name: item.metadata.name, uid: item.metadata.uid, labels: item.metadata.labels } }) });
  const got: KubeObject[] = [];
  shared.observe(PODS, 'default', { labelSelector: 'app=web', mapItem: (i) => ({ ...i, kind: 'Trimmed' }), onSync: (items) => void got.push(...items) }, () => undefined);
  await observations[0]!.sync([{ ...pod('w', { app: 'web' }), metadata: { name: 'w', uid: 'u', labels: { app: 'web' }, annotations: { big: 'x'.repeat(100) } } }]);
  assert.equal(got[0]!.kind, 'Trimmed');
  assert.equal(got[0]!.metadata.annotations, undefined);
});
