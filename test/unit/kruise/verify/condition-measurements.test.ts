// The condition form and the measurement fold of `rollout verify` (src/kruise/verify): Argo Rollouts'
// documented AnalysisTemplate semantics (count, failureLimit, inconclusiveLimit, consecutiveErrorLimit,
// consecutiveSuccessLimit as successLimit), written from its documentation: no mirror of its tests was at hand.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { conditionHolds, parseCondition } from '../../../../src/kruise/verify/condition';
import { judgePrometheus } from '../../../../src/kruise/verify/judge';
import { DEFAULT_POLICY, foldMeasurements, stepVerdict, type MeasurementOutcome, type MeasurePolicy } from '../../../../src/kruise/verify/measurements';

describe('condition: result OP NUMBER', () => {
  test('every operator, both sides of its bound', () => {
    const rows: Array<[string, number, boolean]> = [
      ['result < 0.05', 0.04, true],
      ['result < 0.05', 0.05, false],
      ['result <= 0.05', 0.05, true],
      ['result > 10', 10, false],
      ['result >= 10', 10, true],
      ['result == 1', 1, true],
      ['result != 1', 2, true],
      ['result != 1', 1, false],
      ['result<1e-3', 0.0001, true],
      ['  result   >=   -2  ', -2, true],
    ];
    for (const [text, value, holds] of rows) assert.equal(conditionHolds(parseCondition(text), value), holds, `${text} with ${value}`);
  });
  test('NaN satisfies no condition (PromQL compares NaN false), != included', () => {
    for (const op of ['<', '>', '<=', '>=', '==', '!=']) assert.equal(conditionHolds(parseCondition(`result ${op} 1`), NaN), false, op);
  });
  test('anything else is refused naming the accepted form', () => {
    for (const bad of ['value < 1', 'result < ', 'result =< 1', 'result < 0x10', 'result < 1 and result > 0', '1 > result', 'result < 5%']) {
      assert.throws(() => parseCondition(bad), /expected "result OP NUMBER"|is not a number/, bad);
    }
  });
});

const policy = (p: Partial<MeasurePolicy>): MeasurePolicy => ({ ...DEFAULT_POLICY, ...p });
const fold = (p: Partial<MeasurePolicy>, outcomes: MeasurementOutcome[]) => foldMeasurements(policy(p), outcomes);

describe('the measurement fold (Argo AnalysisTemplate semantics)', () => {
  test('count measurements without failure: pass; before that: running', () => {
    assert.equal(fold({ count: 3 }, ['pass', 'pass']).phase, 'running');
    assert.equal(fold({ count: 3 }, ['pass', 'pass', 'pass']).phase, 'pass');
  });
  test('failureLimit 0 (the default): the first failure fails the check, at once', () => {
    const t = fold({ count: 5 }, ['pass', 'fail']);
    assert.equal(t.phase, 'fail');
    assert.equal(t.taken, 2);
    assert.match(t.reason, /1 of 2 measurements failed \(failureLimit 0\)/);
  });
  test('failureLimit N: failed once more than N failed; N failures and count reached: pass', () => {
    assert.equal(fold({ count: 4, failureLimit: 1 }, ['fail', 'pass', 'pass', 'pass']).phase, 'pass');
    assert.equal(fold({ count: 4, failureLimit: 1 }, ['fail', 'pass', 'fail']).phase, 'fail');
  });
  test('inconclusive past inconclusiveLimit: inconclusive (neither approved nor rolled back)', () => {
    assert.equal(fold({ count: 3 }, ['inconclusive']).phase, 'inconclusive');
    assert.equal(fold({ count: 3, inconclusiveLimit: 1 }, ['inconclusive', 'pass', 'pass']).phase, 'pass');
  });
  test('errors: more than consecutiveErrorLimit in a row is an error; a measurement taken resets the run; errors count toward count', () => {
    assert.equal(fold({ count: 10 }, ['error', 'error', 'error', 'error']).phase, 'running');
    assert.equal(fold({ count: 10 }, ['error', 'error', 'error', 'error', 'error']).phase, 'error');
    assert.equal(fold({ count: 10 }, ['error', 'error', 'error', 'error', 'pass', 'error', 'error']).phase, 'running');
    assert.equal(fold({ count: 2, consecutiveErrorLimit: 4 }, ['error', 'pass']).phase, 'pass');
    assert.equal(fold({ count: 5, consecutiveErrorLimit: 0 }, ['error']).phase, 'error');
  });
  test('successLimit (Argo consecutiveSuccessLimit): pass early after that many in a row; count reached without it: inconclusive', () => {
    assert.deepEqual([fold({ count: 10, successLimit: 2 }, ['pass', 'pass']).phase, fold({ count: 10, successLimit: 2 }, ['pass', 'pass']).taken], ['pass', 2]);
    assert.equal(fold({ count: 4, successLimit: 3, failureLimit: 2 }, ['pass', 'pass', 'fail', 'pass']).phase, 'inconclusive');
    assert.equal(fold({ count: 6, successLimit: 3, failureLimit: 2 }, ['pass', 'fail', 'pass', 'pass', 'pass']).phase, 'pass');
  });
  test('a failure decides before a run of successes would', () => {
    assert.equal(fold({ count: 3, successLimit: 1 }, ['fail']).phase, 'fail');
  });
  test('the step verdict: all pass → pass; a fail or an error → fail; else inconclusive', () => {
    assert.equal(stepVerdict(['pass', 'pass']), 'pass');
    assert.equal(stepVerdict(['pass', 'error']), 'fail');
    assert.equal(stepVerdict(['inconclusive', 'fail']), 'fail');
    assert.equal(stepVerdict(['pass', 'inconclusive']), 'inconclusive');
  });
});

describe('a Prometheus answer as a measurement (api/v1/query)', () => {
  const c = parseCondition('result < 0.05');
  const vector = (...values: string[]) => JSON.stringify({ status: 'success', data: { resultType: 'vector', result: values.map((v, i) => ({ metric: { pod: `p${i}` }, value: [1, v] })) } });
  test('every series must satisfy the condition; the failing ones are named', () => {
    assert.deepEqual(judgePrometheus(200, vector('0.01'), c, 'inconclusive'), { outcome: 'pass', values: [0.01], message: '0.01: result < 0.05' });
    const j = judgePrometheus(200, vector('0.01', '0.3'), c, 'inconclusive');
    assert.equal(j.outcome, 'fail');
    assert.equal(j.message, '0.3 {pod="p1"}: not result < 0.05');
  });
  test('empty vector and NaN: what onEmpty says; a scalar is one value; errors and range vectors are errors', () => {
    assert.equal(judgePrometheus(200, vector(), c, 'fail').outcome, 'fail');
    assert.equal(judgePrometheus(200, vector('NaN'), c, 'inconclusive').outcome, 'inconclusive');
    assert.equal(judgePrometheus(200, JSON.stringify({ status: 'success', data: { resultType: 'scalar', result: [1, '0.5'] } }), c, 'pass').outcome, 'fail');
    assert.deepEqual(judgePrometheus(400, JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'parse error' }), c, 'pass'), { outcome: 'error', message: 'HTTP 400: bad_data: parse error' });
    assert.equal(judgePrometheus(200, JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [] } }), c, 'pass').outcome, 'error');
    assert.equal(judgePrometheus(502, '<html>bad gateway</html>', c, 'pass').outcome, 'error');
  });
});
