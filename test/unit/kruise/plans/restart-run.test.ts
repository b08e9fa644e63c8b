// The record a restart run keeps in its Lease, which earlier run a rerun continues, and who
// holds the lease (src/kruise/plans/restart-run.ts, lease.ts). Not a Kruise rule: the lease follows the
// coordination.k8s.io/v1 Lease fields (holderIdentity, renewTime, leaseDurationSeconds).
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  coveredByRun,
  deletedByRun,
  multiNamespaceResume,
  parseRunRecord,
  resumableRun,
  serializeRunRecord,
  type RestartRunRecord,
} from '../../../../src/kruise/plans/restart-run';
import { leaseHolder, microTime } from '../../../../src/kruise/plans/lease';

const record: RestartRunRecord = { id: 'r1', via: 'kruise', containers: 'nginx', state: 'running', startedAt: '2026-11-24T10:00:00Z', pods: ['u1', 'u2', 'u3'], created: ['u1'] };

test('restart-run.ts parseRunRecord: round trip, and unreadable annotations resume nothing', () => {
  assert.deepEqual(parseRunRecord(serializeRunRecord(record)), record);
  assert.equal(parseRunRecord(undefined), undefined);
  assert.equal(parseRunRecord('{not json'), undefined);
  assert.equal(parseRunRecord('{"id":"x","via":"teleport"}'), undefined);
  assert.deepEqual(parseRunRecord('{"id":"x","via":"client","pods":["a",1]}'), { id: 'x', via: 'client', containers: '', state: 'running', startedAt: '', pods: ['a'], created: [] });
});

test('restart-run.ts resumableRun: only a run that did not end, with the same executor and containers', () => {
  assert.equal(resumableRun(record, 'kruise', ['nginx']), record);
  assert.equal(resumableRun({ ...record, state: 'done' }, 'kruise', ['nginx']), undefined, 'a finished run: running again restarts again');
  assert.equal(resumableRun({ ...record, state: 'failed' }, 'kruise', ['nginx']), undefined);
  assert.equal(resumableRun(record, 'client', ['nginx']), undefined, 'other executor');
  assert.equal(resumableRun(record, 'kruise', []), undefined, 'other containers');
  assert.equal(resumableRun(undefined, 'kruise', ['nginx']), undefined);
});

test('restart-run.ts coveredByRun: pods created after the run began, and pods whose CRR was accepted', () => {
  assert.equal(coveredByRun(record, 'u9'), 'new-pod');
  assert.equal(coveredByRun(record, 'u1'), 'crr-created');
  assert.equal(coveredByRun(record, 'u2'), undefined);
});

test('restart-run.ts multiNamespaceResume: a SidecarSet run over several namespaces continues past the namespaces it finished', () => {
  const parent = { id: 'p1', namespaces: ['default', 'team'] };
  const done: RestartRunRecord = { ...record, state: 'done', parent };
  const running: RestartRunRecord = { ...record, state: 'running', parent, startedAt: '2026-11-24T10:01:00Z' };
  // Interrupted in team: default is not restarted again.
  assert.deepEqual(multiNamespaceResume(new Map([['default', done], ['team', running]]), 'kruise', ['nginx']), { id: 'p1', namespaces: ['default', 'team'], done: ['default'] });
  // Interrupted before team began (no record there yet).
  assert.deepEqual(multiNamespaceResume(new Map([['default', done], ['team', undefined]]), 'kruise', ['nginx'])?.done, ['default']);
  // The whole run finished: a rerun is a new restart.
  assert.equal(multiNamespaceResume(new Map([['default', done], ['team', { ...done }]]), 'kruise', ['nginx']), undefined);
  // Other containers or executor: a different run.
  assert.equal(multiNamespaceResume(new Map([['default', done], ['team', running]]), 'kruise', ['sidecar']), undefined);
  assert.equal(multiNamespaceResume(new Map([['default', done], ['team', running]]), 'client', ['nginx']), undefined);
  // A single-namespace run's record (no parent) is never a multi-namespace run.
  assert.equal(multiNamespaceResume(new Map([['default', { ...record }]]), 'kruise', ['nginx']), undefined);
  // A newer whole run that finished hides an older unfinished one.
  const old = { id: 'p0', namespaces: ['default', 'team'] };
  assert.equal(multiNamespaceResume(new Map([['default', { ...done, startedAt: '2026-11-24T11:00:00Z' }], ['team', { ...done, startedAt: '2026-11-24T11:01:00Z' }], ['extra', { ...running, parent: old }]]), 'kruise', ['nginx']), undefined);
});

test('lease.ts leaseHolder: held until renewTime + leaseDurationSeconds, free once released or expired', () => {
  const renew = Date.parse('2026-11-24T10:00:00Z');
  const spec = { holderIdentity: 'alice@h pid 1 #ab', leaseDurationSeconds: 15, renewTime: microTime(renew) };
  assert.equal(leaseHolder(spec, renew + 14_000)?.holder, 'alice@h pid 1 #ab');
  assert.equal(leaseHolder(spec, renew + 14_000)?.expiresInMs, 1000);
  assert.equal(leaseHolder(spec, renew + 15_000), undefined, 'expired: the holder died');
  assert.equal(leaseHolder({ ...spec, holderIdentity: undefined }, renew), undefined, 'released');
  assert.equal(leaseHolder(undefined, renew), undefined);
  // A holder whose clock runs ahead still loses the lease once we saw it unchanged for its duration.
  const ahead = { ...spec, renewTime: microTime(renew + 3_600_000) };
  assert.ok(leaseHolder(ahead, renew + 16_000, renew + 1_000));
  assert.equal(leaseHolder(ahead, renew + 16_001, renew + 1_000), undefined);
});

test('restart-run.ts microTime: RFC 3339 with microseconds, as Lease times are', () => {
  assert.equal(microTime(Date.parse('2026-11-24T10:00:00.123Z')), '2026-11-24T10:00:00.123000Z');
});

describe('deletedByRun: the terminating pods an unfinished client-side run deleted', () => {
  const run = { id: 'r1', via: 'client' as const, containers: '', state: 'running' as const, startedAt: '', pods: ['uid-a', 'uid-b'], created: [] };
  const pod = (uid: string, terminating: boolean) => ({ metadata: { uid, ...(terminating ? { deletionTimestamp: '2026-11-25T05:00:00Z' } : {}) } });
  it('its own pod, terminating: yes', () => assert.equal(deletedByRun(run, pod('uid-a', true)), true));
  it('its own pod, not terminating (left to do): no', () => assert.equal(deletedByRun(run, pod('uid-a', false)), false));
  it('a pod it did not know, terminating (someone else deletes it): no', () => assert.equal(deletedByRun(run, pod('uid-z', true)), false));
  it('a finished run, or a kruise (CRR) run: no', () => {
    assert.equal(deletedByRun({ ...run, state: 'done' }, pod('uid-a', true)), false);
    assert.equal(deletedByRun({ ...run, via: 'kruise' }, pod('uid-a', true)), false);
    assert.equal(deletedByRun(undefined, pod('uid-a', true)), false);
  });
});
