// The CloneSet Progressing condition (progressDeadlineSeconds, Kruise v1.9), ported from the rows of
// Kruise's TestSyncProgressingStatus (pkg/controller/cloneset/cloneset_status_test.go). In Kruise the
// new status carries the stored conditions; a row's carried condition is the one in its `newStatus`
// (rows whose newStatus has none start without one). Rows judged against the wall clock in Kruise
// (time.Now() in CloneSetDeadlineExceeded) get an explicit `now`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CloneSetStatus } from '../../../../src/kruise/rules/cloneset';
import { msUntilProgressDeadline, progressingCondition } from '../../../../src/kruise/rules/cloneset-progressing';

const SRC = 'pkg/controller/cloneset/cloneset_status_test.go';
const t = (sec: number) => new Date(sec * 1000);
const iso = (sec: number) => t(sec).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Kruise's newStatus(replicas, ready, available, updated, updatedReady, updatedAvailable, expected, current, update). */
function ns(r: number, rd: number, av: number, up: number, upRd: number, upAv: number, exp: number, cur: string, upd: string) {
  const status: CloneSetStatus = {
    observedGeneration: 1,
    replicas: r,
    readyReplicas: rd,
    availableReplicas: av,
    updatedReplicas: up,
    updatedReadyReplicas: upRd,
    updatedAvailableReplicas: upAv,
    expectedUpdatedReplicas: exp,
    currentRevision: cur,
    updateRevision: upd,
    collisionCount: 0,
    labelSelector: '',
  };
  return { status, expectedUpdatedReplicas: exp };
}
const cond = (status: string, reason: string, lastUpdate: number) => ({
  type: 'Progressing',
  status,
  reason,
  message: '',
  lastUpdateTime: iso(lastUpdate),
  lastTransitionTime: iso(lastUpdate),
});

interface Row {
  name: string;
  pds?: number;
  replicas: number;
  paused?: boolean;
  st: ReturnType<typeof ns>;
  carried?: Record<string, string>;
  now: number;
  want?: [string, string];
  /** lastUpdateTime the condition must have (seconds), when the row pins it. */
  wantUpdate?: number;
}
const MAX = 2147483647;
const rows: Row[] = [
  { name: 'legacy cs starts with nil pds, should remove the condition', replicas: 10, st: ns(5, 4, 3, 2, 1, 1, 2, '1', '2'), now: 0 },
  { name: 'legacy cs starts with MaxInt32 pds, should remove the condition', pds: MAX, replicas: 10, st: ns(5, 4, 3, 2, 1, 1, 2, '1', '2'), now: 0 },
  { name: 'legacy cs starts deploying', pds: 10, replicas: 10, st: ns(5, 4, 3, 2, 1, 1, 2, '1', '2'), now: 0, want: ['True', 'CloneSetUpdated'] },
  { name: 'legacy cs starts paused', pds: 10, replicas: 10, paused: true, st: ns(5, 4, 3, 2, 1, 1, 2, '1', '1'), now: 0, want: ['True', 'CloneSetPaused'] },
  { name: 'legacy cs is available', pds: 10, replicas: 10, st: ns(10, 10, 10, 10, 10, 10, 10, '1', '1'), now: 0, want: ['True', 'CloneSetAvailable'] },
  { name: 'legacy cs is scaling', pds: 10, replicas: 1, st: ns(10, 9, 8, 10, 9, 8, 10, '2', '2'), now: 0, want: ['True', 'CloneSetUpdated'] },
  { name: 'legacy cs is paused', pds: 10, replicas: 1, paused: true, st: ns(10, 8, 7, 6, 5, 5, 6, '1', '2'), now: 0, want: ['True', 'CloneSetPaused'] },
  {
    name: 'legacy cs is available, and CloneSet is paused due to partition available',
    pds: 10,
    replicas: 10,
    st: ns(10, 10, 10, 1, 1, 1, 1, '1', '2'),
    now: 0,
    want: ['True', 'ProgressPartitionAvailable'],
  },
  {
    name: 'startup with CloneSetAvailable condition, and CloneSet scales up replicas, timeout',
    pds: 10,
    replicas: 10,
    st: ns(10, 8, 8, 10, 8, 8, 10, '1', '1'),
    carried: cond('True', 'CloneSetUpdated', Date.parse('2025-07-20T11:00:00Z') / 1000),
    now: Date.parse('2026-01-01T00:00:00Z') / 1000,
    want: ['False', 'ProgressDeadlineExceeded'],
  },
  {
    name: 'startup with CloneSetAvailable condition, and CloneSet reconciles with a new revision',
    pds: 10,
    replicas: 1,
    st: ns(1, 0, 0, 0, 0, 0, 1, '1', '2'),
    now: 5,
    want: ['True', 'CloneSetUpdated'],
    wantUpdate: 5,
  },
  {
    name: 'startup with Updated condition, and CloneSet is paused due to partition available',
    pds: 10,
    replicas: 10,
    st: ns(10, 10, 10, 5, 5, 5, 5, '1', '2'),
    now: 5,
    want: ['True', 'ProgressPartitionAvailable'],
  },
  {
    name: 'startup with Updated condition, and CloneSet is scaled down from 10 to 6, only ExpectedUpdatedReplicas and timeout',
    pds: 10,
    replicas: 6,
    st: ns(6, 6, 6, 4, 4, 4, 6, '1', '2'),
    carried: cond('True', 'CloneSetUpdated', Date.parse('2025-07-20T11:00:00Z') / 1000),
    now: Date.parse('2026-01-01T00:00:00Z') / 1000,
    want: ['False', 'ProgressDeadlineExceeded'],
  },
  {
    name: 'startup with Updated condition, and CloneSet is timeout',
    pds: 10,
    replicas: 20,
    st: ns(10, 5, 5, 5, 3, 1, 10, '1', '2'),
    carried: cond('True', 'CloneSetUpdated', 10),
    now: 30,
    want: ['False', 'ProgressDeadlineExceeded'],
    wantUpdate: 30,
  },
  { name: 'startup with Updated condition, and CloneSet is available', pds: 10, replicas: 20, st: ns(20, 20, 20, 20, 20, 20, 20, '2', '2'), now: 9, want: ['True', 'CloneSetAvailable'] },
  { name: 'startup with Updated condition, and CloneSet is paused', pds: 10, replicas: 20, paused: true, st: ns(15, 14, 14, 10, 10, 9, 10, '1', '2'), now: 8, want: ['True', 'CloneSetPaused'] },
  { name: 'startup with Paused condition, and pds is updated to nil', replicas: 20, paused: true, st: ns(15, 14, 14, 10, 10, 9, 10, '1', '2'), carried: cond('True', 'CloneSetPaused', 0), now: 8 },
  {
    name: 'startup with Paused condition, and CloneSet is paused again',
    pds: 10,
    replicas: 20,
    paused: true,
    st: ns(15, 14, 14, 10, 10, 9, 10, '1', '2'),
    carried: cond('True', 'CloneSetPaused', 0),
    now: 8,
    want: ['True', 'CloneSetPaused'],
    wantUpdate: 0,
  },
  {
    name: 'startup with DeadlineExceeded condition,and pds is updated to maxInt32',
    pds: MAX,
    replicas: 20,
    st: ns(15, 14, 14, 10, 10, 9, 10, '1', '2'),
    carried: cond('False', 'ProgressDeadlineExceeded', 0),
    now: 40,
  },
  {
    name: 'startup with DeadlineExceeded condition, and CloneSet is paused',
    pds: 10,
    replicas: 20,
    paused: true,
    st: ns(15, 14, 14, 10, 10, 9, 10, '1', '2'),
    carried: cond('False', 'ProgressDeadlineExceeded', 0),
    now: 40,
    want: ['True', 'CloneSetPaused'],
  },
  { name: 'startup with PartitionAvailable condition, and CloneSet is paused', pds: 10, replicas: 10, paused: true, st: ns(10, 10, 10, 5, 5, 5, 5, '1', '2'), now: 8, want: ['True', 'CloneSetPaused'] },
  { name: 'startup with PartitionAvailable condition, and CloneSet scales up', pds: 10, replicas: 20, st: ns(15, 15, 15, 6, 6, 6, 10, '1', '2'), now: 8, want: ['True', 'CloneSetUpdated'] },
  {
    name: 'startup with PartitionAvailable condition, and CloneSet scales up and available again',
    pds: 10,
    replicas: 20,
    st: ns(20, 20, 20, 10, 10, 10, 10, '1', '2'),
    carried: cond('True', 'ProgressPartitionAvailable', 0),
    now: 8,
    want: ['True', 'ProgressPartitionAvailable'],
  },
  {
    name: 'startup with Updated condition, and CloneSet is still progressing',
    pds: 10,
    replicas: 10,
    st: ns(10, 5, 5, 5, 3, 1, 10, '1', '2'),
    carried: cond('True', 'CloneSetUpdated', 1),
    now: 8,
    want: ['True', 'CloneSetUpdated'],
    wantUpdate: 1,
  },
];

for (const r of rows) {
  test(`TestSyncProgressingStatus row "${r.name}" (${SRC})`, () => {
    const got = progressingCondition({
      progressDeadlineSeconds: r.pds,
      paused: r.paused === true,
      specReplicas: r.replicas,
      status: r.st.status,
      expectedUpdatedReplicas: r.st.expectedUpdatedReplicas,
      previousCondition: r.carried,
      now: t(r.now),
    });
    if (!r.want) {
      assert.equal(got, undefined);
      return;
    }
    assert.deepEqual([got?.status, got?.reason], r.want);
    if (r.wantUpdate !== undefined) assert.equal(got?.lastUpdateTime, iso(r.wantUpdate));
  });
}

test('Progressing: the deadline runs from the last change of reason, not of counts (pkg/controller/cloneset/utils/cloneset_utils.go SetCloneSetCondition)', () => {
  // ready counts keep moving, but the condition stays CloneSetUpdated: the clock is not reset
  const carried = cond('True', 'CloneSetUpdated', 100);
  const moving = progressingCondition({ progressDeadlineSeconds: 10, paused: false, specReplicas: 10, ...ns(10, 7, 7, 7, 7, 7, 10, '1', '2'), previousCondition: carried, now: t(105) });
  assert.equal(moving?.lastUpdateTime, iso(100));
  const late = progressingCondition({ progressDeadlineSeconds: 10, paused: false, specReplicas: 10, ...ns(10, 9, 9, 9, 9, 9, 10, '1', '2'), previousCondition: moving, now: t(111) });
  assert.deepEqual([late?.status, late?.reason, late?.message], ['False', 'ProgressDeadlineExceeded', 'CloneSet revision 2 has timed out progressing']);
});

test('Progressing: once exceeded it stays exceeded until available, paused or partition available (cloneset_utils.go CloneSetDeadlineExceeded)', () => {
  const exceeded = cond('False', 'ProgressDeadlineExceeded', 100);
  const still = progressingCondition({ progressDeadlineSeconds: 600, paused: false, specReplicas: 10, ...ns(10, 9, 9, 9, 9, 9, 10, '1', '2'), previousCondition: exceeded, now: t(101) });
  assert.deepEqual([still?.status, still?.reason], ['False', 'ProgressDeadlineExceeded']);
  const done = progressingCondition({ progressDeadlineSeconds: 600, paused: false, specReplicas: 10, ...ns(10, 10, 10, 10, 10, 10, 10, '2', '2'), previousCondition: exceeded, now: t(102) });
  assert.deepEqual([done?.status, done?.reason, done?.lastTransitionTime], ['True', 'CloneSetAvailable', iso(102)]);
});

test('TestGetRequeueSecondsFromCondition: re-queue only while CloneSetUpdated, just past the deadline (cloneset_status.go)', () => {
  assert.equal(msUntilProgressDeadline(undefined, 10, t(0)), undefined);
  assert.equal(msUntilProgressDeadline(cond('True', 'CloneSetUpdated', 0), 10, t(4)), 6005);
  assert.equal(msUntilProgressDeadline(cond('True', 'CloneSetUpdated', 0), 10, t(20)), 5);
  assert.equal(msUntilProgressDeadline(cond('True', 'CloneSetAvailable', 0), 10, t(4)), undefined);
});

test('Progressing: a new revision on a CloneSet available for longer than the deadline is exceeded at once, the clock running from CloneSetAvailable (cloneset_utils.go CloneSetDeadlineExceeded reads the carried condition whatever its reason, v1.9.0 and main)', () => {
  const available = cond('True', 'CloneSetAvailable', 0);
  const got = progressingCondition({ progressDeadlineSeconds: 600, paused: false, specReplicas: 10, ...ns(10, 10, 10, 0, 0, 0, 10, '1', '2'), previousCondition: available, now: t(3600) });
  assert.deepEqual([got?.status, got?.reason], ['False', 'ProgressDeadlineExceeded']);
  // within the deadline of becoming available, the same change is progressing
  const soon = progressingCondition({ progressDeadlineSeconds: 600, paused: false, specReplicas: 10, ...ns(10, 10, 10, 0, 0, 0, 10, '1', '2'), previousCondition: available, now: t(60) });
  assert.deepEqual([soon?.status, soon?.reason, soon?.lastUpdateTime], ['True', 'CloneSetUpdated', iso(60)]);
});
