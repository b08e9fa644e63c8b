import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  IntOrPercentError,
  legacyScaledValue,
  parseIntOrPercent,
  parserDisagreement,
  scaleIntOrPercent,
  scaledValueFromIntOrPercent,
  formatDecimal,
} from '../../../src/kruise/intstr';

test('integers are returned as is, whatever the total', () => {
  assert.equal(scaledValueFromIntOrPercent(3, 10, true), 3);
  assert.equal(scaledValueFromIntOrPercent(30, 10, false), 30);
  assert.equal(scaledValueFromIntOrPercent(0, 0, true), 0);
});

test('percentages scale and round up or down', () => {
  assert.equal(scaledValueFromIntOrPercent('90%', 8, true), 8);
  assert.equal(scaledValueFromIntOrPercent('90%', 8, false), 7);
  assert.equal(scaledValueFromIntOrPercent('50%', 8, true), 4);
  assert.equal(scaledValueFromIntOrPercent('0%', 8, true), 0);
  assert.equal(scaledValueFromIntOrPercent('100%', 8, false), 8);
  assert.equal(scaledValueFromIntOrPercent('20%', 0, true), 0);
});

test('decimal percentages use double precision like Go', () => {
  assert.equal(scaledValueFromIntOrPercent('0.01%', 999, true), 1);
  assert.equal(scaledValueFromIntOrPercent('0.01%', 999, false), 0);
  assert.equal(scaledValueFromIntOrPercent('99.99%', 999, true), 999);
  assert.equal(scaledValueFromIntOrPercent('99.99%', 999, false), 998);
  assert.equal(scaledValueFromIntOrPercent('12.5%', 8, true), 1);
  assert.equal(scaledValueFromIntOrPercent('12.5%', 8, false), 1);
  assert.equal(scaledValueFromIntOrPercent('12.5%', 10, false), 1);
  assert.equal(scaledValueFromIntOrPercent('12.5%', 10, true), 2);
  // 7% of 100 is 7.000000000000001 in doubles when computed as 0.07*100; v*total/100 gives exactly 7
  assert.equal(scaledValueFromIntOrPercent('7%', 100, true), 7);
  const r = scaleIntOrPercent('90%', 8, true);
  assert.ok(r.ok);
  assert.equal(formatDecimal(r.value.exact), '7.2');
  assert.equal(r.value.rounding, 'up');
});

test('strings that are not percentages are errors (Kruise parser)', () => {
  for (const bad of ['5', '99', '%', '90#', '#%', '', 'abc%', '1.2.3%', ' 5%', '5 %']) {
    const r = parseIntOrPercent(bad);
    assert.equal(r.ok, false, `expected ${JSON.stringify(bad)} to be rejected`);
    assert.throws(() => scaledValueFromIntOrPercent(bad, 10, true), IntOrPercentError);
  }
  assert.match((parseIntOrPercent('5') as { ok: false; error: Error }).error.message, /not a percentage/);
  assert.equal(parseIntOrPercent(1.5).ok, false);
  assert.equal(parseIntOrPercent(null).ok, false);
  assert.equal(parseIntOrPercent(true).ok, false);
});

test('the legacy parser strips % and reads integers only', () => {
  assert.deepEqual(legacyScaledValue('5', 100, true), { value: 5, isPercent: true });
  assert.equal(legacyScaledValue('20%', 8, true).value, 2);
  assert.equal(legacyScaledValue('20%', 8, false).value, 1);
  const decimal = legacyScaledValue('12.5%', 8, true);
  assert.equal(decimal.value, 0);
  assert.ok(decimal.error);
  assert.ok(legacyScaledValue('%', 8, true).error);
  assert.equal(legacyScaledValue(3, 8, true).value, 3);
});

test('disagreements between the two parsers produce a warning, agreements none', () => {
  assert.match(parserDisagreement('maxUnavailable', '12.5%', 8, true) ?? '', /read as 0 by the controller/);
  assert.match(parserDisagreement('maxUnavailable', '5', 100, true) ?? '', /has no "%"/);
  assert.equal(parserDisagreement('maxUnavailable', '20%', 8, true), undefined);
  assert.equal(parserDisagreement('maxUnavailable', 2, 8, true), undefined);
  assert.equal(parserDisagreement('maxUnavailable', '90#', 8, true), undefined);
  // decimal that happens to agree after rounding is still read differently (1 vs 0)
  assert.ok(parserDisagreement('partition', '0.5%', 8, true));
});
