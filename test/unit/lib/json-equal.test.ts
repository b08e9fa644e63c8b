// jsonEqual agrees with comparing canonical JSON (src/sandbox/canonical-json.ts), which the
// store used before to detect no-op writes (kube keeps the resourceVersion of a no-op update).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson } from '../../../src/sandbox/canonical-json';
import { jsonEqual } from '../../../src/lib/json-equal';

const pairs: Array<[string, unknown, unknown]> = [
  ['key order does not matter', { a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }],
  ['an undefined key is absent', { a: 1, b: undefined }, { a: 1 }],
  ['null is not absent', { a: 1, b: null }, { a: 1 }],
  ['array order matters', { a: [1, 2] }, { a: [2, 1] }],
  ['undefined in an array is null', [undefined, 1], [null, 1]],
  ['a nested difference', { spec: { template: { spec: { containers: [{ image: 'a' }] } } } }, { spec: { template: { spec: { containers: [{ image: 'b' }] } } } }],
  ['number and string differ', { a: 1 }, { a: '1' }],
  ['object and array differ', { a: {} }, { a: [] }],
  ['empty objects', {}, {}],
];

describe('jsonEqual', () => {
  for (const [name, a, b] of pairs) {
    it(`agrees with canonical JSON: ${name}`, () => {
      assert.equal(jsonEqual(a, b), canonicalJson(a) === canonicalJson(b));
      assert.equal(jsonEqual(b, a), canonicalJson(a) === canonicalJson(b));
    });
  }
  it('skips the keys it is told to (the spec comparison ignores metadata and status)', () => {
    const skip = new Set(['metadata', 'status']);
    assert.equal(jsonEqual({ metadata: { rv: '1' }, spec: { r: 1 }, status: { x: 1 } }, { metadata: { rv: '2' }, spec: { r: 1 } }, skip), true);
    assert.equal(jsonEqual({ metadata: {}, spec: { r: 1 } }, { metadata: {}, spec: { r: 2 } }, skip), false);
  });
});
