import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retryOnConflict } from '../../../src/kube/conflict';
import { apiError } from '../../../src/kube/errors';

const conflict = () =>
  apiError(409, 'Conflict', JSON.stringify({ kind: 'Status', code: 409, reason: 'Conflict', message: 'Operation cannot be fulfilled on clonesets.apps.kruise.io "web": the object has been modified' }), { verb: 'update' });
const noSleep = { sleep: async () => undefined };

test('a conflicting step runs again (re-reading state) until it succeeds', async () => {
  let version = 0;
  const result = await retryOnConflict(async (attempt) => {
    const fresh = ++version; // the step re-reads each time
    if (attempt < 3) throw conflict();
    return fresh;
  }, noSleep);
  assert.equal(result, 3);
});

test('bounded; other errors are not retried', async () => {
  let n = 0;
  await assert.rejects(retryOnConflict(async () => {
    n++;
    throw conflict();
  }, { ...noSleep, attempts: 3 }), /the object has been modified \(still conflicting after 3 attempts\)/);
  assert.equal(n, 3);
  let m = 0;
  await assert.rejects(retryOnConflict(async () => {
    m++;
    throw apiError(404, 'Not Found', '', { verb: 'get', resource: 'clonesets', group: 'apps.kruise.io', name: 'x' });
  }, noSleep), /not found/);
  assert.equal(m, 1);
});
