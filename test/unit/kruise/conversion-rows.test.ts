// Kruise's own conversion test rows (apis/apps/v1alpha1/conversion_test.go and the per-kind
// *_conversion_test.go, apis/policy/v1alpha1/podunavailablebudget_conversion_test.go), ported to
// test/fixtures/conversion/, replayed against src/kruise/conversion: each row's object converted to the
// other version must be the row's expected object, and a round trip must give the original back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertKruiseObject, ConversionError } from '../../../src/kruise/conversion';
import { conversionRows } from '../../helpers/conversion-rows';

for (const row of conversionRows()) {
  test(`${row.kind}: ${row.test} / ${row.name} (${row.source})`, () => {
    const alpha = `${row.group}/v1alpha1`;
    const beta = `${row.group}/v1beta1`;
    if (row.error) {
      const input = row.direction === 'to-v1alpha1' ? row.v1beta1! : row.v1alpha1!;
      assert.throws(() => convertKruiseObject(input, row.direction === 'to-v1alpha1' ? alpha : beta), (err: unknown) => err instanceof ConversionError && new RegExp(row.error!).test(err.message));
      return;
    }
    if (row.direction === 'to-v1alpha1') {
      const before = structuredClone(row.v1beta1!);
      assert.deepEqual(convertKruiseObject(row.v1beta1!, alpha), row.v1alpha1);
      assert.deepEqual(row.v1beta1, before, 'the input is not mutated');
      return;
    }
    const hub = convertKruiseObject(row.v1alpha1!, beta);
    if (row.v1beta1) assert.deepEqual(hub, row.v1beta1);
    if (row.direction === 'round-trip') assert.deepEqual(convertKruiseObject(hub, alpha), row.back ?? row.v1alpha1);
  });
}
