// Kruise's SetPodReadyCondition (pkg/util/pods.go) and its use when an in-place update starts
// (pkg/util/inplaceupdate/inplace_update.go updateCondition): Ready turns False in the very write that
// turns InPlaceUpdateReady False, before the revision label changes (issue #15: a CloneSet's canary
// pods counted ready mid in-place update).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withInPlaceReadyCondition } from '../../../../src/kruise/rules/cloneset-inplace';
import { setPodReadyCondition } from '../../../../src/kruise/rules/pod-readiness';
import type { Pod } from '../../../../src/kruise/types';

type Cond = { type: string; status: string };

function pod(conditions: Cond[], gates: string[] = []): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'pod0', namespace: 'default' },
    spec: { containers: [{ name: 'main', image: 'nginx' }], ...(gates.length ? { readinessGates: gates.map((conditionType) => ({ conditionType })) } : {}) },
    status: { phase: 'Running', conditions: conditions.map((c) => ({ ...c, lastTransitionTime: '2026-01-01T00:00:00Z' })) },
  } as Pod;
}
const readyOf = (p: Pod) => p.status?.conditions?.find((c) => c.type === 'Ready');

describe('SetPodReadyCondition (pkg/util/pods.go)', () => {
  const rows: Array<[string, Cond[], string[], string]> = [
    ['case 0: container not ready', [{ type: 'ContainersReady', status: 'False' }, { type: 'Ready', status: 'False' }], [], 'False'],
    ['case 1: ReadinessGates exist, but condition not exit', [{ type: 'Ready', status: 'True' }, { type: 'ContainersReady', status: 'True' }], ['type-A'], 'False'],
    ['case 2: ReadinessGates exist, but condition not true', [{ type: 'type-A', status: 'False' }, { type: 'Ready', status: 'True' }, { type: 'ContainersReady', status: 'True' }], ['type-A'], 'False'],
    ['case 3: ReadinessGates exist, but condition is not true', [{ type: 'type-A', status: 'False' }, { type: 'Ready', status: 'True' }, { type: 'ContainersReady', status: 'True' }], ['type-A'], 'False'],
    ['case 4: ReadinessGates exist, and condition is true', [{ type: 'type-A', status: 'True' }, { type: 'Ready', status: 'False' }, { type: 'ContainersReady', status: 'True' }], ['type-A'], 'True'],
  ];
  for (const [name, conditions, gates, want] of rows) {
    it(`TestSetPodReadyCondition row "${name}" (pkg/util/pods_test.go)`, () => {
      const p = pod(conditions, gates);
      setPodReadyCondition(p, '2026-02-02T00:00:00Z');
      assert.equal(readyOf(p)?.status, want);
    });
  }

  it('the message names every unready gate, reason ReadinessGatesNotReady; an unchanged status keeps its transition time (pkg/util/pods.go SetPodReadyCondition, SetPodCondition)', () => {
    const p = pod([{ type: 'A', status: 'False' }, { type: 'Ready', status: 'True' }, { type: 'ContainersReady', status: 'True' }], ['A', 'B']);
    setPodReadyCondition(p, '2026-02-02T00:00:00Z');
    assert.deepEqual(readyOf(p), {
      type: 'Ready',
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message: 'the status of pod readiness gate "A" is not "True", but False, corresponding condition of pod readiness gate "B" does not exist.',
      lastTransitionTime: '2026-02-02T00:00:00Z',
    });
    const q = pod([{ type: 'Ready', status: 'False' }, { type: 'ContainersReady', status: 'True' }], ['B']);
    setPodReadyCondition(q, '2026-02-02T00:00:00Z');
    assert.equal(readyOf(q)?.lastTransitionTime, '2026-01-01T00:00:00Z');
  });
});

describe('an in-place update starts with the pod unready (pkg/util/inplaceupdate/inplace_update.go updateCondition)', () => {
  const running = () =>
    pod([{ type: 'InPlaceUpdateReady', status: 'True' }, { type: 'Ready', status: 'True' }, { type: 'ContainersReady', status: 'True' }], ['InPlaceUpdateReady']);

  it('InPlaceUpdateReady False (StartInPlaceUpdate) turns Ready False in the same status write', () => {
    const next = withInPlaceReadyCondition(running(), 'False', new Date('2026-02-02T00:00:00Z'), 'StartInPlaceUpdate');
    assert.equal(next.status?.conditions?.find((c) => c.type === 'InPlaceUpdateReady')?.status, 'False');
    assert.equal(readyOf(next)?.status, 'False');
    assert.equal(readyOf(next)?.reason, 'ReadinessGatesNotReady');
  });

  it('InPlaceUpdateReady True leaves Ready to the kubelet ("We only update the ready condition to False")', () => {
    const unready = pod([{ type: 'InPlaceUpdateReady', status: 'False' }, { type: 'Ready', status: 'False' }, { type: 'ContainersReady', status: 'True' }], ['InPlaceUpdateReady']);
    const next = withInPlaceReadyCondition(unready, 'True', new Date('2026-02-02T00:00:00Z'));
    assert.equal(readyOf(next)?.status, 'False');
  });
});
