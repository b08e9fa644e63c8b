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
  });
});
