// The rules of `migrate` (src/kruise/plans/migrate.ts): --max-surge as Kubernetes reads a
// Deployment's maxSurge, the next action from the cluster's state (so a rerun continues exactly),
// the step plan for replicas / max-surge combinations, and the record kept on the CloneSet.
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cloneSetScalePatch,
  deploymentScalePatch,
  nextMigrationAction,
  parseMaxSurge,
  parseMigrationRecord,
  planMigration,
  resolveMaxSurge,
  serializeMigrationRecord,
  type MigrationRecord,
  type MigrationStep,
  type MigrationView,
} from '../../../../src/kruise/plans/migrate';

const surge = (value: string, total: number): number => resolveMaxSurge(parseMaxSurge(value), total);

describe('parseMaxSurge / resolveMaxSurge: percentages of the total rounded up', () => {
  // kubernetes pkg/controller/deployment/util/deployment_util_test.go TestResolveFenceposts, the
  // maxSurge column (ResolveFenceposts scales maxSurge with GetScaledValueFromIntOrPercent(.., desired, true)).
  for (const [maxSurge, desired, expectSurge] of [
    ['0%', 0, 0],
    ['39%', 10, 4],
  ] as const) {
    it(`TestResolveFenceposts: maxSurge ${maxSurge} of ${desired} → ${expectSurge}`, () => assert.equal(surge(maxSurge, desired), expectSurge));
  }
  it('TestResolveFenceposts: maxSurge "oops" is an error', () => assert.throws(() => parseMaxSurge('oops'), /invalid value "oops" for --max-surge/));

  // k8s.io/apimachinery/pkg/util/intstr/intstr_test.go TestGetValueFromIntOrPercent, the roundUp rows
  // (and its error rows): the scaling Kruise's CloneSet controller applies to maxSurge
  // (cloneset_sync_utils.go: intstrutil.GetValueFromIntOrPercent(maxSurge, replicas, true)).
  for (const [input, total, expectVal] of [
    ['123', 0, 123],
    ['90%', 100, 90],
    ['90%', 95, 86],
  ] as const) {
    it(`TestGetValueFromIntOrPercent: ${input} of ${total} rounded up → ${expectVal}`, () => assert.equal(surge(input, total), expectVal));
  }
  for (const bad of ['%', '90#', '#%']) {
    it(`TestGetValueFromIntOrPercent: "${bad}" is an error`, () => assert.throws(() => parseMaxSurge(bad), /for --max-surge/));
  }

  it('a whole percentage only, as a Deployment accepts it; no sign, no decimals', () => {
    assert.throws(() => parseMaxSurge('12.5%'), /a percentage must be a whole number/);
    assert.throws(() => parseMaxSurge('-1'), /for --max-surge/);
    assert.throws(() => parseMaxSurge('1.5'), /for --max-surge/);
    assert.throws(() => parseMaxSurge('99999999999'), /too large/);
    assert.deepEqual(parseMaxSurge('25%'), { kind: 'percent', percent: 25, text: '25%' });
    assert.deepEqual(parseMaxSurge('2'), { kind: 'int', value: 2 });
  });

  it('rounding up: 25% of 6 is 2 (1.5), 1% of 6 is 1, 100% of 6 is 6, any share of 0 is 0', () => {
    assert.equal(surge('25%', 6), 2);
    assert.equal(surge('1%', 6), 1);
    assert.equal(surge('100%', 6), 6);
    assert.equal(surge('50%', 0), 0);
    assert.equal(surge('3', 0), 3, 'a count stays a count');
  });
});

const rows = (plan: MigrationStep[]): string[] => plan.map((s) => `${s.cloneSet.from}->${s.cloneSet.to} ${s.deployment.from}->${s.deployment.to} peak ${s.peakPods}`);

describe('planMigration: the steps for replicas / max-surge combinations', () => {
  it('the acceptance case: 6 replicas, max surge 2 → three steps, never more than 8 pods', () => {
    assert.deepEqual(rows(planMigration({ cloneSetReplicas: 0, deploymentReplicas: 6 }, 6, 2)), ['0->2 6->4 peak 8', '2->4 4->2 peak 8', '4->6 2->0 peak 8']);
  });
  it('max surge 1 (kruise-tools default): one pod at a time', () => {
    assert.equal(planMigration({ cloneSetReplicas: 0, deploymentReplicas: 6 }, 6, 1).length, 6);
  });
  it('max surge 25% of 6 (rounded up to 2) plans like 2', () => {
    assert.deepEqual(planMigration({ cloneSetReplicas: 0, deploymentReplicas: 6 }, 6, surge('25%', 6)), planMigration({ cloneSetReplicas: 0, deploymentReplicas: 6 }, 6, 2));
  });
  it('max surge 4 of 6: the last step raises only by what is left', () => {
    assert.deepEqual(rows(planMigration({ cloneSetReplicas: 0, deploymentReplicas: 6 }, 6, 4)), ['0->4 6->2 peak 10', '4->6 2->0 peak 8']);
  });
  it('max surge at or above the total: one step (the whole CloneSet beside the whole Deployment)', () => {
    assert.deepEqual(rows(planMigration({ cloneSetReplicas: 0, deploymentReplicas: 6 }, 6, 6)), ['0->6 6->0 peak 12']);
    assert.deepEqual(rows(planMigration({ cloneSetReplicas: 0, deploymentReplicas: 6 }, 6, 100)), ['0->6 6->0 peak 12']);
  });
  it('--replicas below the Deployment: first lowered to the total (no surge is needed), then moved', () => {
    assert.deepEqual(rows(planMigration({ cloneSetReplicas: 0, deploymentReplicas: 6 }, 4, 2)), ['0->0 6->4 peak 6', '0->2 4->2 peak 6', '2->4 2->0 peak 6']);
  });
  it('--replicas above the Deployment: the CloneSet grows by at most the surge per step, the Deployment stays until the end', () => {
    assert.deepEqual(rows(planMigration({ cloneSetReplicas: 0, deploymentReplicas: 2 }, 6, 2)), ['0->2 2->2 peak 4', '2->4 2->2 peak 6', '4->6 2->0 peak 8']);
  });
  it('after --copy (the CloneSet already at the total): the Deployment goes to 0 in one step', () => {
    assert.deepEqual(rows(planMigration({ cloneSetReplicas: 6, deploymentReplicas: 6 }, 6, 1)), ['6->6 6->0 peak 12']);
  });
  it('--replicas 0: the Deployment is scaled to 0, nothing is created', () => {
    assert.deepEqual(rows(planMigration({ cloneSetReplicas: 0, deploymentReplicas: 6 }, 0, 0)), ['0->0 6->0 peak 6']);
  });
  it('nothing left: no step', () => {
    assert.deepEqual(planMigration({ cloneSetReplicas: 6, deploymentReplicas: 0 }, 6, 2), []);
    assert.deepEqual(planMigration({ cloneSetReplicas: 0, deploymentReplicas: 0 }, 0, 0), []);
  });
  it('max surge 0 with pods to add: refused (nothing could ever move)', () => {
    assert.throws(() => planMigration({ cloneSetReplicas: 0, deploymentReplicas: 6 }, 6, 0), /nothing can move/);
  });

  it('every combination up to 12 pods: converges, adds at most the surge per step, keeps T available and at most max(T + s, start) pods', () => {
    for (let total = 0; total <= 12; total++) {
      for (let start = 0; start <= 12; start++) {
        for (let s = 1; s <= 5; s++) {
          const plan = planMigration({ cloneSetReplicas: 0, deploymentReplicas: start }, total, s);
          const at = `T=${total} D=${start} s=${s}`;
          let c = 0;
          let d = start;
          for (const step of plan) {
            assert.equal(step.cloneSet.from, c, at);
            assert.equal(step.deployment.from, d, at);
            assert.ok(step.cloneSet.to - step.cloneSet.from <= s, `${at}: raised by at most the surge`);
            assert.ok(step.cloneSet.to >= step.cloneSet.from && step.deployment.to <= step.deployment.from, `${at}: the CloneSet only grows, the Deployment only shrinks`);
            assert.ok(step.peakPods <= Math.max(total + s, start), `${at}: peak ${step.peakPods}`);
            // Once the raised pods are available, lowering the Deployment keeps at least T (or all there was).
            assert.ok(step.cloneSet.to + step.deployment.to >= Math.min(total, c + d), `${at}: availability`);
            c = step.cloneSet.to;
            d = step.deployment.to;
          }
          assert.deepEqual([c, d], [total, 0], `${at}: ends with the CloneSet at the total and the Deployment at 0`);
        }
      }
    }
  });
});

const view = (c: number, available: number, d: number, extra: Partial<{ csObserved: boolean; depObserved: boolean; total: number; maxSurge: number }> = {}): MigrationView => ({
  cloneSet: { replicas: c, available, observed: extra.csObserved ?? true },
  deployment: { replicas: d, observed: extra.depObserved ?? true },
  total: extra.total ?? 6,
  maxSurge: extra.maxSurge ?? 2,
});

describe('nextMigrationAction: decided from the cluster alone, so a rerun continues exactly', () => {
  it('a fresh start surges first', () => assert.deepEqual(nextMigrationAction(view(0, 0, 6)), { kind: 'scale-cloneset', from: 0, to: 2 }));
  it('interrupted after a surge, its pods not available yet: waits, never surges twice', () => {
    assert.deepEqual(nextMigrationAction(view(4, 2, 4)), { kind: 'wait', reason: 'cloneset-available', available: 2, wanted: 4 });
  });
  it('interrupted after a surge whose pods became available: lowers the Deployment by as many', () => {
    assert.deepEqual(nextMigrationAction(view(4, 4, 4)), { kind: 'scale-deployment', from: 4, to: 2 });
  });
  it('the Deployment is lowered only as far as available CloneSet pods allow', () => {
    assert.deepEqual(nextMigrationAction(view(4, 3, 4)), { kind: 'scale-deployment', from: 4, to: 3 });
  });
  it('a CloneSet status that has not observed its spec is not trusted', () => {
    assert.deepEqual(nextMigrationAction(view(2, 2, 6, { csObserved: false })), { kind: 'wait', reason: 'cloneset-observed', available: 0, wanted: 2 });
  });
  it('no surge before the Deployment observed its last scale-down', () => {
    assert.deepEqual(nextMigrationAction(view(2, 2, 4, { depObserved: false })), { kind: 'wait', reason: 'deployment-observed', available: 2, wanted: 2 });
  });
  it('pods of both never above the total + surge, whatever the per-step room', () => {
    assert.deepEqual(nextMigrationAction(view(2, 2, 6, { maxSurge: 2 })), { kind: 'scale-deployment', from: 6, to: 4 });
    assert.deepEqual(nextMigrationAction(view(1, 1, 6, { maxSurge: 2 })), { kind: 'scale-deployment', from: 6, to: 5 });
    assert.deepEqual(nextMigrationAction(view(1, 1, 5, { maxSurge: 2 })), { kind: 'scale-cloneset', from: 1, to: 3 });
  });
  it('done once the Deployment is at 0 and the total is available; waits for the last pods before that', () => {
    assert.deepEqual(nextMigrationAction(view(6, 6, 0)), { kind: 'done' });
    assert.deepEqual(nextMigrationAction(view(6, 5, 0)), { kind: 'wait', reason: 'cloneset-available', available: 5, wanted: 6 });
  });
  it('a CloneSet pod lost mid-way (available drops): the Deployment is not lowered, the CloneSet not raised', () => {
    assert.deepEqual(nextMigrationAction(view(4, 3, 2)), { kind: 'wait', reason: 'cloneset-available', available: 3, wanted: 4 });
  });
});

describe('the record on the CloneSet and the guarded patches', () => {
  const record: MigrationRecord = { from: 'web', sourceUid: 'u-1', sourceReplicas: 6, replicas: 6, maxSurge: '2', state: 'migrating', startedAt: '2026-11-27T10:00:00.000Z' };
  it('round trip, stable text (the writes test it), unreadable annotations are no record', () => {
    assert.deepEqual(parseMigrationRecord(serializeMigrationRecord(record)), record);
    const shuffled = Object.fromEntries(Object.entries(record).reverse()) as unknown as MigrationRecord;
    assert.equal(serializeMigrationRecord(shuffled), serializeMigrationRecord(record));
    assert.equal(parseMigrationRecord(undefined), undefined);
    assert.equal(parseMigrationRecord('{nope'), undefined);
    assert.equal(parseMigrationRecord('{"from":"web","sourceUid":"u","sourceReplicas":6,"state":"teleporting","startedAt":"x"}'), undefined);
    assert.equal(parseMigrationRecord('{"from":"web","sourceUid":"u","sourceReplicas":-1,"state":"done","startedAt":"x"}'), undefined);
    assert.deepEqual(parseMigrationRecord('{"from":"web","sourceUid":"u","sourceReplicas":6,"state":"created","startedAt":"x","replicas":"6"}'), { from: 'web', sourceUid: 'u', sourceReplicas: 6, state: 'created', startedAt: 'x' });
  });
  it('the CloneSet scale tests its replicas and record (the annotation key escaped as a JSON pointer)', () => {
    assert.deepEqual(cloneSetScalePatch(2, 4, 'a', 'b'), [
      { op: 'test', path: '/spec/replicas', value: 2 },
      { op: 'test', path: '/metadata/annotations/kubectl-kruise~1migration', value: 'a' },
      { op: 'replace', path: '/spec/replicas', value: 4 },
      { op: 'replace', path: '/metadata/annotations/kubectl-kruise~1migration', value: 'b' },
    ]);
  });
  it('the Deployment scale tests its UID, the mark naming the CloneSet and its replicas', () => {
    assert.deepEqual(deploymentScalePatch('u-1', 6, 4, 'web'), [
      { op: 'test', path: '/metadata/uid', value: 'u-1' },
      { op: 'test', path: '/metadata/annotations/kubectl-kruise~1migration-target', value: 'web' },
      { op: 'test', path: '/spec/replicas', value: 6 },
      { op: 'replace', path: '/spec/replicas', value: 4 },
    ]);
  });
});

test('plan and next action agree: following the plan step by step reaches done', () => {
  let c = 0;
  let d = 6;
  for (const step of planMigration({ cloneSetReplicas: 0, deploymentReplicas: 6 }, 6, 2)) {
    assert.deepEqual(nextMigrationAction(view(c, c, d)), { kind: 'scale-cloneset', from: c, to: step.cloneSet.to });
    c = step.cloneSet.to;
    assert.deepEqual(nextMigrationAction(view(c, c, d)), { kind: 'scale-deployment', from: d, to: step.deployment.to });
    d = step.deployment.to;
  }
  assert.deepEqual(nextMigrationAction(view(c, c, d)), { kind: 'done' });
});
