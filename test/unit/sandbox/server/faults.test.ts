// Injected faults are deterministic for a seed, so resilience tests repeat exactly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FaultInjector, validateFaultSpec } from '../../../../src/sandbox/server/faults';

describe('FaultInjector', () => {
  it('injects the same errors for the same seed, at roughly the configured rate', () => {
    const spec = validateFaultSpec({ errorRate: { read: { rate: 0.2, codes: [500, 429], retryAfterSeconds: 1 } }, seed: 42 });
    const run = (): number[] => {
      const f = new FaultInjector(spec);
      return Array.from({ length: 500 }, () => f.errorFor('get')?.code ?? 0);
    };
    const a = run();
    const b = run();
    assert.deepEqual(a, b);
    const failures = a.filter((c) => c !== 0);
    assert.ok(failures.length > 60 && failures.length < 140, `about 20%: ${failures.length}/500`);
    assert.ok(failures.includes(500) && failures.includes(429));
    assert.equal(new FaultInjector(spec).errorFor('patch'), undefined, 'writes untouched');
  });

  it('counts updates for conflictEveryNthUpdate', () => {
    const f = new FaultInjector({ conflictEveryNthUpdate: 3 });
    assert.deepEqual([1, 2, 3, 4, 5, 6].map(() => f.injectConflict()), [false, false, true, false, false, true]);
  });

  it('rejects malformed specs with a message naming the key', () => {
    assert.throws(() => validateFaultSpec({ latency: 5 }), /unknown key "latency"/);
    assert.throws(() => validateFaultSpec({ errorRate: { get: { rate: 2 } } }), /errorRate\.get\.rate must be between 0 and 1/);
    assert.throws(() => validateFaultSpec({ errorRate: { fetch: 0.1 } }), /unknown verb "fetch"/);
    assert.throws(() => validateFaultSpec([1]), /YAML mapping/);
    assert.throws(() => validateFaultSpec({ errorRate: { patch: { rate: 0.5, retry_after: 2 } } }), /errorRate\.patch: unknown key "retry_after"/);
    assert.throws(() => validateFaultSpec({ errorRate: { get: { rate: 0.5, code: 200 } } }), /errorRate\.get\.code must be an HTTP error status/);
    assert.throws(() => validateFaultSpec({ watchLagMs: { pods: -1 } }), /watchLagMs\.pods in the faults file must be a non-negative number/);
    assert.throws(() => validateFaultSpec({ watchLagMs: 5 }), /watchLagMs in the faults file must map resources to milliseconds/);
    assert.deepEqual(validateFaultSpec({ watchLagMs: { "policy.kruise.io/podunavailablebudgets": 1500 } }).watchLagMs, { "policy.kruise.io/podunavailablebudgets": 1500 });
  });

  it('accepts the usual names for the status code and Retry-After', () => {
    for (const entry of [{ rate: 1, status: 503, retryAfter: 2 }, { rate: 1, statusCode: 503, 'Retry-After': 2 }, { rate: 1, code: 503, retryAfterSeconds: 2 }]) {
      const err = new FaultInjector(validateFaultSpec({ errorRate: { create: entry } })).errorFor('create');
      assert.equal(err?.code, 503, JSON.stringify(entry));
      assert.equal(err?.details?.retryAfterSeconds, 2, JSON.stringify(entry));
    }
  });

  it('also takes errorRate as a list of entries naming their verbs', () => {
    const spec = validateFaultSpec({ errorRate: [{ verb: 'patch', rate: 1, code: 409 }, { verbs: ['get', 'list'], rate: 1, code: 503, retryAfter: 1 }] });
    const f = new FaultInjector(spec);
    assert.equal(f.errorFor('patch')?.code, 409);
    assert.equal(f.errorFor('list')?.code, 503);
    assert.equal(f.errorFor('create'), undefined);
    assert.throws(() => validateFaultSpec({ errorRate: [{ rate: 1 }] }), /errorRate\[0\] needs a verb/);
    assert.throws(() => validateFaultSpec({ errorRate: [{ verb: 'fetch', rate: 1 }] }), /unknown verb "fetch"/);
  });
});
