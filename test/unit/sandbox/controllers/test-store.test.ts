// The controller tests' store is the sandbox's own: storage versions follow the imitated release,
// admission hooks run on writes, and committed objects cannot be mutated behind the store's back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStore, startControllers } from '../../../helpers/memory-store';
import { CLONESETS } from '../../../../src/sandbox/controllers/cloneset';
import { PODS } from '../../../../src/sandbox/controllers/pods';
import { ApiError } from '../../../../src/sandbox/server/errors';
import type { KubeObject } from '../../../../src/kruise/types';

const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] } };

test('storage versions come from the release CRDs: CloneSet is v1beta1 only on master', () => {
  assert.equal(createStore({ kruise: 'v1.9' }).storageVersion(CLONESETS), 'apps.kruise.io/v1alpha1');
  assert.equal(createStore({ kruise: 'master' }).storageVersion(CLONESETS), 'apps.kruise.io/v1beta1');
  assert.equal(createStore().storageVersion(PODS), 'v1');
});

test('a listener that mutates an event object fails instead of changing what is stored', () => {
  const store = createStore();
  const errors: string[] = [];
  const origWrite = process.stderr.write.bind(process.stderr);
  // The store logs (does not rethrow) a failing listener; capture that line.
  process.stderr.write = ((chunk: string | Uint8Array) => (errors.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    store.subscribe((ev) => {
      (ev.object.metadata.labels ??= {}).touched = 'yes';
    });
    store.create(PODS, pod);
  } finally {
    process.stderr.write = origWrite;
  }
  assert.equal(store.get(PODS, 'default', 'web-0')!.metadata.labels, undefined);
  assert.match(errors.join(''), /listener failed on ADDED pods\/web-0/);
});

test('admission hooks of started controllers run on store writes (rejection is an ApiError)', () => {
  const store = createStore();
  const stop = startControllers(
    store,
    [{ name: 'deny', start() {}, stop() {}, admission: [{ gr: PODS, operations: ['CREATE'], admit: () => { throw ApiError.badRequest('denied by test hook'); } }] }],
    { readyDelayMs: 10, kruise: 'v1.9', nodes: 1 },
  );
  try {
    assert.throws(() => store.create(PODS, pod), (e: unknown) => e instanceof ApiError && /denied by test hook/.test(e.message));
    assert.equal(store.get(PODS, 'default', 'web-0'), undefined);
  } finally {
    stop();
  }
});
