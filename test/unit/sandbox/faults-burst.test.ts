// The sandbox's `failFirst` fault (docs/sandbox.md "Faults"): the first N requests of a verb or group fail,
// then its rate applies; the burst of one entry does not spend another's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FaultInjector, validateFaultSpec } from '../../../src/sandbox/server/faults';

test('failFirst: the first N lists fail with the code, then none (rate 0 by default); gets are not counted', () => {
  const f = new FaultInjector(validateFaultSpec({ errorRate: { list: { failFirst: 3, code: 503 } } }));
  const lists = [1, 2, 3, 4, 5].map(() => f.errorFor('list')?.code ?? 0);
  assert.deepEqual(lists, [503, 503, 503, 0, 0]);
  assert.equal(f.errorFor('get'), undefined);
});

test('failFirst with a rate: the burst first, the seeded rate after it; a bad count is refused', () => {
  const f = new FaultInjector(validateFaultSpec({ errorRate: { read: { failFirst: 2, rate: 1, code: 500 } } }));
  assert.deepEqual(['get', 'list', 'watch'].map((v) => f.errorFor(v as 'get')?.code), [500, 500, 500]);
  assert.throws(() => validateFaultSpec({ errorRate: { list: { failFirst: -1 } } }), /failFirst must be a whole number/);
  assert.throws(() => validateFaultSpec({ errorRate: { list: { failFirst: 1.5 } } }), /failFirst must be a whole number/);
});
