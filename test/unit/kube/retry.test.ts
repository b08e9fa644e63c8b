import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_ATTEMPTS, backoffDelay, parseRetryAfter, retryDecision } from '../../../src/kube/retry';

const half = () => 0.5;

test('idempotent requests retry on 429, 500, 502, 503, 504 and connection failures', () => {
  for (const status of [429, 500, 502, 503, 504]) {
    assert.equal(retryDecision({ method: 'GET', idempotent: true, attempt: 1, status }, half).retry, true, String(status));
  }
  for (const errorCode of ['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE']) {
    assert.equal(retryDecision({ method: 'GET', idempotent: true, attempt: 1, errorCode }, half).retry, true, errorCode);
  }
  for (const status of [400, 401, 403, 404, 409, 410, 415, 422, 501]) {
    assert.equal(retryDecision({ method: 'GET', idempotent: true, attempt: 1, status }, half).retry, false, String(status));
  }
  // TLS failures and timeouts of our own are final.
  for (const errorCode of ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'REQUEST_TIMEOUT', 'ENOTFOUND']) {
    assert.equal(retryDecision({ method: 'GET', idempotent: true, attempt: 1, errorCode }, half).retry, false, errorCode);
  }
});

test('writes retry only when the server surely did not process them: 429 or connection refused', () => {
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    assert.equal(retryDecision({ method, idempotent: false, attempt: 1, status: 429 }, half).retry, true);
    assert.equal(retryDecision({ method, idempotent: false, attempt: 1, errorCode: 'ECONNREFUSED' }, half).retry, true);
    for (const status of [500, 502, 503, 504]) assert.equal(retryDecision({ method, idempotent: false, attempt: 1, status }, half).retry, false);
    assert.equal(retryDecision({ method, idempotent: false, attempt: 1, errorCode: 'ECONNRESET' }, half).retry, false);
  }
});

test('bounded: no retry after the last attempt; a refused connection gives up after 3 attempts', () => {
  assert.equal(retryDecision({ method: 'GET', idempotent: true, attempt: 2, errorCode: 'ECONNREFUSED' }, half).retry, true);
  assert.equal(retryDecision({ method: 'GET', idempotent: true, attempt: 3, errorCode: 'ECONNREFUSED' }, half).retry, false);
  assert.equal(retryDecision({ method: 'GET', idempotent: true, attempt: MAX_ATTEMPTS - 1, status: 503 }, half).retry, true);
  assert.equal(retryDecision({ method: 'GET', idempotent: true, attempt: MAX_ATTEMPTS, status: 503 }, half).retry, false);
  assert.equal(retryDecision({ method: 'GET', idempotent: true, attempt: 2, status: 503, maxAttempts: 2 }, half).retry, false);
});

test('exponential backoff with jitter, capped', () => {
  assert.equal(backoffDelay(1, () => 0), 100);
  assert.equal(backoffDelay(1, () => 0.999999), 200);
  assert.equal(backoffDelay(2, () => 0), 200);
  assert.equal(backoffDelay(3, () => 0), 400);
  assert.ok(backoffDelay(20, () => 0.999) <= 5000);
  const d1 = retryDecision({ method: 'GET', idempotent: true, attempt: 1, status: 500 }, half).delayMs;
  const d3 = retryDecision({ method: 'GET', idempotent: true, attempt: 3, status: 500 }, half).delayMs;
  assert.ok(d3 > d1 * 3, `${d1} ${d3}`);
});

test('Retry-After is honoured (seconds or HTTP date), too long means give up', () => {
  assert.equal(parseRetryAfter('2'), 2000);
  assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 7_000), 3000);
  assert.equal(parseRetryAfter('soon'), undefined);
  const d = retryDecision({ method: 'GET', idempotent: true, attempt: 1, status: 429, retryAfter: '3' }, () => 0);
  assert.deepEqual([d.retry, d.delayMs], [true, 3000]);
  const w = retryDecision({ method: 'POST', idempotent: false, attempt: 1, status: 429, retryAfter: '1' }, () => 0);
  assert.deepEqual([w.retry, w.delayMs], [true, 1000]);
  assert.equal(retryDecision({ method: 'GET', idempotent: true, attempt: 1, status: 429, retryAfter: '3600' }, half).retry, false);
});

test('a refused connection to a server that never answered this process is final at once, as in kubectl (client-go rest/request.go retries a GET only on a reset or EOF); after an answer it is a restart, tried 3 times', () => {
  for (const method of ['GET', 'POST']) {
    const d = retryDecision({ method, idempotent: method === 'GET', attempt: 1, errorCode: 'ECONNREFUSED', contacted: false }, half);
    assert.deepEqual([d.retry, d.reason], [false, 'connection refused']);
    assert.equal(retryDecision({ method, idempotent: method === 'GET', attempt: 1, errorCode: 'ECONNREFUSED', contacted: true }, half).retry, true);
  }
  // A reset is not a refusal: retried on a GET whether or not the server answered before.
  assert.equal(retryDecision({ method: 'GET', idempotent: true, attempt: 1, errorCode: 'ECONNRESET', contacted: false }, half).retry, true);
});
