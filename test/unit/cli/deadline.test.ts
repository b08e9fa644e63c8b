// --timeout bounds the whole command (src/cli/deadline.ts): the work's own answer when it comes in time,
// the deadline's error otherwise, whatever the work does (a request that never answers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEADLINE_GRACE_MS, untilDeadline } from '../../../src/cli/deadline';

test('work that settles in time keeps its answer; work that never settles ends with the deadline\'s error, just after the deadline', async () => {
  assert.equal(await untilDeadline(Promise.resolve(7), Date.now() + 1_000, () => new Error('late')), 7);
  assert.equal(await untilDeadline(Promise.resolve(8), undefined, () => new Error('late')), 8);
  const started = Date.now();
  await assert.rejects(untilDeadline(new Promise<never>(() => undefined), started + 100, () => new Error('timed out')), /timed out/);
  const took = Date.now() - started;
  assert.ok(took >= 100 && took < 100 + DEADLINE_GRACE_MS + 500, `${took} ms`);
});
