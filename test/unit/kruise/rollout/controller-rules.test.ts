// The pure rules of the simulated Kruise Rollout controller, ported from openkruise/rollouts v0.6.2's
// own test tables (each test names the Go file and test), and a whole canary release of a CloneSet
// driven through reconcileRollout + reconcileBatchRelease with a minimal CloneSet imitation, every
// status written validated against the real v0.6.2 CRDs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchNotReadyReason, batchReleasePlanHash as batchReleasePlanHashOf, podBatchLabels, reconcileBatchRelease } from '../../../../src/kruise/rollout/batch-release';
import { cloneSetReleaseControl } from '../../../../src/kruise/rollout/release-control-cloneset';
import { releaseControlFor } from '../../../../src/kruise/rollout/release-control';
import { integerAsPercentage, type BatchContext } from '../../../../src/kruise/rollout/release-workload';
import { FINALISING_STEP, nextCanaryTask } from '../../../../src/kruise/rollout/rollout-canary';
import { reconcileRollout, type RolloutWrite } from '../../../../src/kruise/rollout/state-machine';
import { rolloutScaledValue } from '../../../../src/kruise/rollout/step-math';
import { recalculateCanaryStep, rolloutPlanHash } from '../../../../src/kruise/rollout/rollout-plan';
import type { KubeObject } from '../../../../src/kruise/types';
import { mergePatch } from '../../../../src/lib/json-patch';
import { batchReleaseV1beta1ToV1alpha1, rolloutV1beta1ToV1alpha1 } from '../../../../src/kruise/rollout-conversion';
import { haveRolloutCrds, loadKind, rolloutSchemaErrors } from './helpers';

const CTX: BatchContext = {
  currentBatch: 0,
  replicas: 10,
  rolloutID: '',
  updateRevision: 'v2',
  plannedUpdatedReplicas: 5,
  desiredUpdatedReplicas: 5,
  desiredPartition: 5,
  currentPartition: 10,
  updatedReplicas: 5,
  updatedReadyReplicas: 5,
};

const pod = (name: string, labels: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels } });

/** labelpatch/patcher_test.go generatePods(begin, end, labeled, rolloutID, batchID, version). */
function generatePods(begin: number, end: number, labeled: number, rolloutID: string, batchID: string, version: string): KubeObject[] {
  const out: KubeObject[] = [];
  const total = end - begin + 1;
  for (let i = 0; i < total - labeled; i++) out.push(pod(`pod-${begin + labeled + i}`, { 'controller-revision-hash': version }));
  for (let i = 0; i < labeled; i++) out.push(pod(`pod-${begin + i}`, { 'rollouts.kruise.io/rollout-id': rolloutID, 'rollouts.kruise.io/rollout-batch-id': batchID, 'controller-revision-hash': version }));
  return out;
}

describe('BatchRelease rules (pkg/controller/batchrelease)', () => {
  const ready: Array<[string, Partial<BatchContext>, KubeObject[], boolean]> = [
    ['ready: no-rollout-id, all pod ready', { failureThreshold: 1, updatedReadyReplicas: 5 }, [], true],
    ['ready: no-rollout-id, tolerated failed pods', { failureThreshold: 1, updatedReadyReplicas: 4 }, [], true],
    ['false: no-rollout-id, un-tolerated failed pods', { failureThreshold: 1, updatedReadyReplicas: 3 }, [], false],
    ['false: no-rollout-id, tolerated failed pods, but 1 pod isn\'t updated', { failureThreshold: '60%', updatedReplicas: 4, updatedReadyReplicas: 4 }, [], false],
    ['false: no-rollout-id, tolerated, but no-pod-ready', { failureThreshold: 100, updatedReadyReplicas: 0 }, [], false],
    ['false: no-rollout-id, un-tolerated failed pods, failureThreshold=nil', { updatedReadyReplicas: 3 }, [], false],
    ['true: rollout-id, labeled pods satisfied', { failureThreshold: 1, rolloutID: '1', updateRevision: 'version-1' }, generatePods(1, 5, 5, '1', '1', 'version-1'), true],
    ['false: rollout-id, labeled pods not satisfied', { failureThreshold: 1, rolloutID: '1', updateRevision: 'version-1' }, generatePods(1, 3, 3, '1', '1', 'version-1'), false],
  ];
  for (const [name, ctx, pods, isReady] of ready) {
    it(`TestIsBatchReady row "${name}" (pkg/controller/batchrelease/context/context_test.go)`, () => {
      assert.equal(batchNotReadyReason({ ...CTX, ...ctx }, pods) === undefined, isReady);
    });
  }

  const patched: Array<[string, number, number, number, string, string, Array<number | string>, number[]]> = [
    ['10 pods, 0 patched, 5 new patched', 0, 10, 0, '', '', [5], [5]],
    ['10 pods, 2 patched, 3 new patched', 0, 10, 2, 'rollout-1', '1', [5], [5]],
    ['10 pods, 5 patched, 0 new patched', 0, 10, 5, 'rollout-1', '1', [5], [5]],
    ['10 pods, 7 patched, 0 new patched', 0, 10, 7, 'rollout-1', '1', [5], [7]],
    ['2 pods, 0 patched, 2 new patched', 0, 2, 0, 'rollout-1', '1', [5], [2]],
    ['10 pods, 3 patched with old rollout-id, 5 new patched', 0, 10, 3, 'previous-rollout-id', '1', [5], [5]],
    ['10 pods, 2 patched with batch-id:1, 3 new patched', 1, 5, 2, 'rollout-1', '1', [2, 5], [2, 3]],
    ['10 pods, 0 patched with batch-id:1, 5 new patched', 1, 5, 0, 'rollout-1', '1', [2, 5], [2, 3]],
    ['10 pods, 3 patched with batch-id:1, 2 new patched', 1, 5, 3, 'rollout-1', '1', [2, 5], [3, 2]],
    ['batch-id out of range, equal to no pods are labelled', 1, 5, 3, 'rollout-1', '3', [2, 5], [2, 3]],
  ];
  for (const [name, currentBatch, end, labeled, id, batchID, batches, expected] of patched) {
    it(`TestLabelPatcher row "${name}" (pkg/controller/batchrelease/labelpatch/patcher_test.go)`, () => {
      const pods = generatePods(1, end, labeled, id, batchID, 'version-1');
      const ctx = { ...CTX, currentBatch, rolloutID: 'rollout-1', updateRevision: 'version-1' };
      const patches = new Map(podBatchLabels(batches, ctx, pods).map((p) => [p.name, p.labels]));
      const counts = new Array<number>(currentBatch + 1).fill(0);
      for (const p of pods) {
        const labels = { ...p.metadata.labels, ...(patches.get(p.metadata.name ?? '') ?? {}) };
        const b = Number(labels['rollouts.kruise.io/rollout-batch-id']);
        if (labels['rollouts.kruise.io/rollout-id'] === 'rollout-1' && b <= counts.length) counts[b - 1]!++;
      }
      assert.deepEqual(counts, expected);
    });
  }

  it('TestParseIntegerAsPercentage (pkg/controller/batchrelease/control/util_test.go): ⌈P·all⌉ within 1% of the stable pods, ≥1 canary pod unless 0%', () => {
    for (let all = 1; all <= 2000; all++) {
      for (let percent = 0; percent <= 100; percent++) {
        const canary = rolloutScaledValue(`${percent}%`, all)!;
        const partition = integerAsPercentage(all - canary, all, `${percent}%`);
        const stable = rolloutScaledValue(partition, all)!;
        if (percent === 0) assert.equal(stable, all);
        else if (percent === 100) assert.equal(stable, 0);
        else assert.ok(all - stable > 0, `${percent}% of ${all}`);
        assert.ok(stable <= all);
        assert.ok(Math.abs(all - canary - stable) < all * 0.01 || all - canary === stable, `${percent}% of ${all}: ${partition}`);
      }
    }
  });

  it('CloneSet control (partitionstyle/cloneset/control.go): Initialize takes control with partition "100%", UpgradeBatch lowers it to the batch, Finalize hands it back', () => {
    const cs = loadKind('sandbox-cloneset-web-10.yaml', 'CloneSet');
    const br: KubeObject = { apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'BatchRelease', metadata: { name: 'rollout-web', namespace: 'default', uid: 'br-uid' }, spec: { releasePlan: { batches: [{ canaryReplicas: '20%' }, { canaryReplicas: 5 }], batchPartition: 0 } }, status: { canaryStatus: { currentBatch: 0 } } };
    const init = cloneSetReleaseControl.initialize(cs, br)!;
    assert.deepEqual((init.spec as { updateStrategy: unknown }).updateStrategy, { paused: false, partition: '100%' });
    const controlled = mergePatch(cs, init) as KubeObject;
    assert.equal(cloneSetReleaseControl.initialize(controlled, br), undefined, 'IsControlledByBatchRelease');
    const ctx = cloneSetReleaseControl.batchContext(controlled, br, []);
    assert.equal(ctx.plannedUpdatedReplicas, 2);
    assert.equal(ctx.desiredPartition, '80%', 'a percentage plan keeps a percentage partition (ParseIntegerAsPercentageIfPossible)');
    assert.deepEqual(cloneSetReleaseControl.upgradeBatch(controlled, ctx), { spec: { updateStrategy: { partition: '80%' } } });
    const batch2 = cloneSetReleaseControl.batchContext(controlled, { ...br, status: { canaryStatus: { currentBatch: 1 } } }, []);
    assert.equal(batch2.desiredPartition, 5, 'an integer plan gives an integer partition');
    // a current partition already at or below the desired one is left alone
    assert.equal(cloneSetReleaseControl.upgradeBatch(controlled, { ...ctx, currentPartition: '50%' }), undefined);
    const fin = cloneSetReleaseControl.finalize(controlled, { ...br, spec: { releasePlan: { batches: [] } } });
    const back = mergePatch(controlled, fin) as KubeObject;
    assert.equal((back.spec as { updateStrategy: { partition?: unknown } }).updateStrategy.partition, undefined);
    assert.equal(back.metadata.annotations?.['batchrelease.rollouts.kruise.io/control-info'], undefined);
  });

  it('getReleaseController (batchrelease_executor.go): Canary style falls back to the partition control for a CloneSet; an unknown kind has none', () => {
    assert.equal(releaseControlFor('apps.kruise.io/v1alpha1', 'CloneSet', 'Canary'), cloneSetReleaseControl);
    assert.equal(releaseControlFor('apps.kruise.io/v1beta1', 'CloneSet', undefined), cloneSetReleaseControl);
    assert.equal(releaseControlFor('example.com/v1', 'Widget', 'Partition'), undefined);
  });
});

describe('Rollout rules (pkg/controller/rollout)', () => {
  it('nextCanaryTask (rollout_canary.go): success/disabled/deleting and rollback orders, then END', () => {
    const walk = (reason: string) => {
      const out: string[] = [];
      for (let cur = ''; cur !== FINALISING_STEP.End; ) out.push((cur = nextCanaryTask(reason, cur)));
      return out;
    };
    // The values are api/v1beta1/rollout_types.go's FinalisingStepType spellings, as status.canaryStatus.finalisingStep shows them.
    assert.deepEqual(walk('Success'), ['RestoreStableService', 'FinalisingStepRouteTrafficToStable', 'RemoveCanaryService', 'ResumeWorkload', 'ReleaseWorkloadControl', 'END']);
    assert.deepEqual(walk('Rollback'), ['FinalisingStepRouteTrafficToStable', 'ResumeWorkload', 'ReleaseWorkloadControl', 'RestoreStableService', 'RemoveCanaryService', 'END']);
  });

  const base = () => {
    const ro = loadKind('sandbox-rollout-web-v1beta1.yaml', 'Rollout');
    ro.metadata.generation = 1;
    ro.metadata.uid = 'ro-uid';
    return ro;
  };
  const settled = (): KubeObject => {
    const cs = loadKind('sandbox-cloneset-web-10.yaml', 'CloneSet');
    cs.metadata.generation = 1;
    cs.metadata.uid = 'cs-uid';
    cs.status = { observedGeneration: 1, replicas: 10, updatedReplicas: 10, updatedReadyReplicas: 10, readyReplicas: 10, currentRevision: 'web-6bd8c7d4c9', updateRevision: 'web-6bd8c7d4c9' };
    return cs;
  };
  const rows: Array<[string, boolean, string]> = [
    ['apply an enabled rollout', false, 'Healthy'],
    ['disable an working rollout', true, 'Disabled'],
  ];
  for (const [name, disabled, phase] of rows) {
    it(`TestCalculateRolloutStatus row "${name}" (rollout_status_test.go; with a workload present Initial moves on to Healthy at once)`, () => {
      const ro = base();
      (ro.spec as { disabled?: boolean }).disabled = disabled;
      const res = reconcileRollout({ rollout: ro, workload: settled(), now: new Date() });
      assert.equal(res.status?.phase, phase);
    });
  }

  it('calculateRolloutStatus (rollout_status.go): a missing workload resets the status to Initial "Workload Not Found"', () => {
    const ro = { ...base(), status: { phase: 'Healthy', currentStepIndex: 3, currentStepState: 'Completed' } };
    const res = reconcileRollout({ rollout: ro, now: new Date() });
    assert.deepEqual(res.status, { observedGeneration: 1, phase: 'Initial', message: 'Workload Not Found', currentStepIndex: 0, currentStepState: '' });
  });

  it('TestReconcileRolloutProgressing row "init -> rolling" (rollout_progressing_test.go): after the grace period Initializing becomes InRolling at step 1 StepInit, rollout ID = canary revision', () => {
    const t0 = new Date('2026-11-25T01:00:00Z');
    const cs = settled();
    cs.metadata.annotations = { 'rollouts.kruise.io/in-progressing': '{"rolloutName":"rollout-web"}' };
    (cs.status as Record<string, unknown>).updateRevision = 'web-88bd5dbfd';
    (cs.status as Record<string, unknown>).updatedReplicas = 0;
    const ro = { ...base(), status: { phase: 'Progressing', currentStepIndex: 3, currentStepState: 'Completed', conditions: [{ type: 'Progressing', status: 'True', reason: 'Initializing', message: 'Rollout is in Progressing', lastUpdateTime: t0.toISOString(), lastTransitionTime: t0.toISOString() }] } };
    const early = reconcileRollout({ rollout: ro, workload: cs, now: new Date(t0.getTime() + 1000) });
    assert.equal(early.recheckMs, 2000, 'doProgressingInitializing waits defaultGracePeriodSeconds');
    const res = reconcileRollout({ rollout: ro, workload: cs, now: new Date(t0.getTime() + 3500) });
    const s = res.status!;
    assert.equal(s.conditions?.find((c) => c.type === 'Progressing')?.reason, 'InRolling');
    assert.equal(s.canaryStatus?.currentStepIndex, 1);
    assert.equal(s.canaryStatus?.nextStepIndex, 2);
    assert.equal(s.canaryStatus?.currentStepState, 'StepInit');
    assert.equal(s.canaryStatus?.canaryRevision, '88bd5dbfd');
    assert.equal(s.canaryStatus?.stableRevision, '6bd8c7d4c9');
    assert.equal(s.canaryStatus?.observedRolloutID, '88bd5dbfd');
    assert.equal(s.currentStepState, 'StepInit', 'top-level mirror (updateRolloutStatusInternal)');
  });

  it('TestReconcileRolloutProgressing rows "rolling -> finalizing" and "rolling -> rollback" (rollout_progressing_test.go, on a CloneSet)', () => {
    const cs = settled();
    cs.metadata.annotations = { 'rollouts.kruise.io/in-progressing': '{"rolloutName":"rollout-web"}' };
    const sub = { canaryRevision: '88bd5dbfd', podTemplateHash: '88bd5dbfd', canaryReplicas: 10, canaryReadyReplicas: 10, currentStepIndex: 3, currentStepState: 'Completed', nextStepIndex: -1, finalisingStep: '' };
    const inRolling = [{ type: 'Progressing', status: 'True', reason: 'InRolling', message: 'Rollout is in Progressing' }];
    (cs.status as Record<string, unknown>).updateRevision = 'web-88bd5dbfd';
    const fin = reconcileRollout({ rollout: { ...base(), status: { phase: 'Progressing', canaryStatus: sub, conditions: inRolling } }, workload: cs, now: new Date() });
    assert.equal(fin.status?.conditions?.find((c) => c.type === 'Progressing')?.reason, 'Finalising');
    // the template back on the stable revision while 2 pods run the canary one: Cancelling
    const back = settled();
    back.metadata.annotations = { 'rollouts.kruise.io/in-progressing': '{"rolloutName":"rollout-web"}' };
    (back.status as Record<string, unknown>).updatedReplicas = 8;
    const rb = reconcileRollout({ rollout: { ...base(), status: { phase: 'Progressing', canaryStatus: { ...sub, currentStepIndex: 1, currentStepState: 'StepPaused' }, conditions: inRolling } }, workload: back, now: new Date() });
    const cond = rb.status?.conditions?.find((c) => c.type === 'Progressing');
    assert.equal(cond?.reason, 'Cancelling');
    assert.equal(cond?.message, 'The workload has been rolled back and the rollout process will be cancelled');
    assert.equal(rb.status?.canaryStatus?.canaryRevision, '6bd8c7d4c9');
  });

  it('TestRunCanaryPaused row "paused, last step, 60% weight" and doCanaryPaused (rollout_canary.go): no duration waits for a person, a duration elapses, a last "100%" step goes on at once', () => {
    const cs = settled();
    cs.metadata.annotations = { 'rollouts.kruise.io/in-progressing': '{"rolloutName":"rollout-web"}' };
    (cs.status as Record<string, unknown>).updateRevision = 'web-88bd5dbfd';
    const t0 = new Date('2026-11-25T01:00:00Z');
    const at = (index: number) => ({ ...base(), status: { phase: 'Progressing', canaryStatus: { canaryRevision: '88bd5dbfd', podTemplateHash: '88bd5dbfd', canaryReplicas: 2, canaryReadyReplicas: 2, currentStepIndex: index, currentStepState: 'StepPaused', nextStepIndex: index + 1, finalisingStep: '', lastUpdateTime: t0.toISOString() }, conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', message: '' }] } });
    const manual = reconcileRollout({ rollout: at(1), workload: cs, now: new Date(t0.getTime() + 3600_000) });
    assert.equal(manual.status?.canaryStatus?.currentStepState, 'StepPaused');
    assert.equal(manual.status?.message, 'Rollout is in step(1/3), and you need manually confirm to enter the next step');
    const waiting = reconcileRollout({ rollout: at(2), workload: cs, now: new Date(t0.getTime() + 2000) });
    assert.equal(waiting.status?.canaryStatus?.currentStepState, 'StepPaused');
    assert.equal(waiting.recheckMs, 3000);
    const elapsed = reconcileRollout({ rollout: at(2), workload: cs, now: new Date(t0.getTime() + 5001) });
    assert.equal(elapsed.status?.canaryStatus?.currentStepState, 'StepReady');
    const last = reconcileRollout({ rollout: at(3), workload: cs, now: t0 });
    assert.equal(last.status?.canaryStatus?.currentStepState, 'StepReady');
  });

  it('TestDoCanaryJump row "jump to next step normally" (rollout_canary_test.go): a patched nextStepIndex moves the release', () => {
    const cs = settled();
    cs.metadata.annotations = { 'rollouts.kruise.io/in-progressing': '{"rolloutName":"rollout-web"}' };
    (cs.status as Record<string, unknown>).updateRevision = 'web-88bd5dbfd';
    const ro = { ...base(), status: { phase: 'Progressing', canaryStatus: { canaryRevision: '88bd5dbfd', podTemplateHash: '88bd5dbfd', canaryReplicas: 2, canaryReadyReplicas: 2, currentStepIndex: 1, currentStepState: 'StepPaused', nextStepIndex: 3, finalisingStep: '' }, conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', message: '' }] } };
    const res = reconcileRollout({ rollout: ro, workload: cs, now: new Date() });
    assert.equal(res.status?.canaryStatus?.currentStepIndex, 3);
    // v0.4.4 (no nextStepIndex in its API) never jumps, and writes no nextStepIndex
    const v04 = reconcileRollout({ rollout: ro, workload: cs, now: new Date(), release: 'v0.4' });
    assert.equal(v04.status?.canaryStatus?.currentStepIndex, 1);
    assert.equal(v04.status?.canaryStatus?.nextStepIndex, undefined);
    assert.equal(res.status?.canaryStatus?.nextStepIndex, -1);
    assert.equal(res.status?.canaryStatus?.currentStepState, 'StepInit');
  });
});

/**
 * A CloneSet imitation good enough for the release: every pod the partition lets through is updated
 * and ready at once (the sandbox's real CloneSet controller is exercised by the e2e test).
 */
function settleCloneSet(cs: KubeObject, revisions: { stable: string; update: string }): KubeObject {
  const spec = cs.spec as { replicas: number; updateStrategy: { partition?: number | string } };
  const partition = spec.updateStrategy.partition;
  const kept = partition === undefined ? 0 : (rolloutScaledValue(partition, spec.replicas) ?? 0);
  const updated = spec.replicas - Math.min(kept, spec.replicas);
  return { ...cs, status: { observedGeneration: cs.metadata.generation, replicas: spec.replicas, readyReplicas: spec.replicas, updatedReplicas: updated, updatedReadyReplicas: updated, currentRevision: updated === spec.replicas ? revisions.update : revisions.stable, updateRevision: revisions.update } };
}

const WHOLE_RELEASES: Array<[crds: string, release: 'v0.4' | 'v0.6' | 'master']> = [
  ['v0.6.2', 'v0.6'],
  ['master', 'master'],
  ['v0.4.4', 'v0.4'],
];
for (const [crds, release] of WHOLE_RELEASES) describe(`a whole canary release through the pure rules (CloneSet of 10, steps 20% manual / 50% 5 s / 100%), ${crds} CRDs`, { skip: !haveRolloutCrds && 'no ../shared/kruise-rollout-crds' }, () => {
  it(`Healthy → Progressing (Initializing, InRolling) → step 1 paused → approval → step 2 → 5 s → step 3 → Finalising → Completed/Healthy, Succeeded=True; every status valid for ${crds}`, () => {
    let now = new Date('2026-11-25T01:00:00Z').getTime();
    let ro: KubeObject = loadKind('sandbox-rollout-web-v1beta1.yaml', 'Rollout');
    ro.metadata.generation = 1;
    ro.metadata.uid = 'ro-uid';
    const revs = { stable: 'web-6bd8c7d4c9', update: 'web-6bd8c7d4c9' };
    let cs = settleCloneSet({ ...loadKind('sandbox-cloneset-web-10.yaml', 'CloneSet'), metadata: { name: 'web', namespace: 'default', generation: 1, uid: 'cs-uid' } }, revs);
    let br: KubeObject | undefined;
    let brGen = 0;
    const seen: string[] = [];
    const write = (w: RolloutWrite) => {
      if (w.kind === 'createBatchRelease') br = { ...w.object, metadata: { ...w.object.metadata, uid: 'br-uid', generation: (brGen = 1) } };
      else if (w.kind === 'updateBatchRelease' && br) br = { ...br, spec: w.spec, metadata: { ...br.metadata, generation: ++brGen } };
      else if (w.kind === 'patchBatchRelease' && br) br = { ...(mergePatch(br, w.patch) as KubeObject), metadata: { ...br.metadata, generation: ++brGen } };
      else if (w.kind === 'deleteBatchRelease') br = undefined;
      else if (w.kind === 'patchWorkload') cs = settleCloneSet(mergePatch(cs, w.patch) as KubeObject, revs);
    };
    const turn = () => {
      const res = reconcileRollout({ rollout: ro, workload: cs, batchRelease: br, now: new Date(now), release });
      res.writes.forEach(write);
      if (res.status) {
        ro = { ...ro, status: res.status as unknown as Record<string, unknown> };
        // v0.4.4 serves v1alpha1 only: its status is checked in that shape
        assert.deepEqual(rolloutSchemaErrors(crds, release === 'v0.4' ? rolloutV1beta1ToV1alpha1(ro) : ro), []);
        const s = res.status;
        const label = `${s.phase}/${s.conditions?.find((c) => c.type === 'Progressing')?.reason ?? '-'}/${s.currentStepIndex}/${s.currentStepState}`;
        if (seen[seen.length - 1] !== label) seen.push(label);
      }
      if (br) {
        const b = reconcileBatchRelease({ batchRelease: br, workload: cs, pods: [], now: new Date(now) });
        if (b.workloadPatch) cs = settleCloneSet(mergePatch(cs, b.workloadPatch) as KubeObject, revs);
        if (b.status) {
          br = { ...br, status: b.status as unknown as Record<string, unknown> };
          // v0.4.4's BatchRelease has no rollingStyle / enableExtraWorkloadForCanary: the API server prunes them
          const errors = release === 'v0.4' ? rolloutSchemaErrors(crds, batchReleaseV1beta1ToV1alpha1(br)).filter((e) => !e.endsWith(': unknown field')) : rolloutSchemaErrors(crds, br);
          assert.deepEqual(errors, []);
        }
      }
    };
    const until = (what: string, ok: () => boolean, advanceMs = 500) => {
      for (let i = 0; i < 200 && !ok(); i++) {
        turn();
        now += advanceMs;
      }
      assert.ok(ok(), `${what}: ${seen.join(' → ')}`);
    };
    const status = () => (ro.status ?? {}) as { phase?: string; currentStepIndex?: number; currentStepState?: string; canaryStatus?: { canaryReplicas: number }; conditions?: Array<{ type: string; status: string; reason: string }> };
    until('Healthy', () => status().phase === 'Healthy');
    // the webhook's hold on an image change (handleCloneSet)
    const next = structuredClone(cs);
    ((next.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0]!).image = 'nginx:1.26';
    const held = cloneSetReleaseControl.holdOnRevisionChange(next, cs, { rolloutName: 'rollout-web', hasTrafficRoutings: false, list: () => [] })!;
    assert.equal((held.spec as { updateStrategy: { partition: string } }).updateStrategy.partition, '100%');
    revs.update = 'web-88bd5dbfd';
    cs = settleCloneSet({ ...held, metadata: { ...held.metadata, generation: 2 } }, revs);
    until('step 1 paused', () => status().currentStepIndex === 1 && status().currentStepState === 'StepPaused');
    assert.equal(status().canaryStatus?.canaryReplicas, 2);
    assert.equal((cs.status as { updatedReplicas: number }).updatedReplicas, 2);
    // approval (patches.ts approvePatch writes the same)
    ro = { ...ro, status: { ...status(), currentStepState: 'StepReady', canaryStatus: { ...status().canaryStatus, currentStepState: 'StepReady' } } };
    until('step 2 paused', () => status().currentStepIndex === 2 && status().currentStepState === 'StepPaused', 100);
    assert.equal((cs.status as { updatedReplicas: number }).updatedReplicas, 5);
    until('Completed', () => status().phase === 'Healthy' && status().conditions?.find((c) => c.type === 'Progressing')?.reason === 'Completed');
    assert.equal(status().conditions?.find((c) => c.type === 'Succeeded')?.status, 'True');
    assert.equal((cs.status as { updatedReplicas: number }).updatedReplicas, 10);
    assert.equal(br, undefined, 'the BatchRelease is removed (ReleaseWorkloadControl)');
    assert.deepEqual(seen.filter((l) => /Progressing\/(Initializing|Finalising|Completed)|Healthy\/Completed/.test(l)).map((l) => l.split('/').slice(0, 2).join('/')).filter((l, i, a) => a.indexOf(l) === i), ['Progressing/Initializing', 'Progressing/Finalising', 'Progressing/Completed', 'Healthy/Completed']);
    // v0.4.4 has no StepInit (api/v1alpha1/rollout_types.go@v0.4.4): every step starts at StepUpgrade
    // (rollout_progressing.go Initializing, rollout_canary.go runCanary case StepReady); v0.5 added StepInit
    const inits = seen.filter((l) => l.endsWith('/StepInit'));
    if (release === 'v0.4') {
      assert.deepEqual(inits, [], seen.join(' → '));
      // nor the ingress-nginx shortcut of v0.5+: the last (100 %) step routes traffic after its upgrade
      assert.ok(seen.includes('Progressing/InRolling/3/StepTrafficRouting'), seen.join(' → '));
    }
    else assert.ok(inits.length >= 3, `every step starts at StepInit: ${seen.join(' → ')}`);
  });
});

describe('v1alpha1 Rollouts (Kruise Rollout v0.4.4)', () => {
  const v04Workload = (): KubeObject => {
    const cs = loadKind('sandbox-cloneset-web-10.yaml', 'CloneSet');
    cs.metadata.generation = 2;
    cs.metadata.uid = 'cs-uid';
    cs.metadata.annotations = { 'rollouts.kruise.io/in-progressing': '{"rolloutName":"rollout-web"}' };
    cs.status = { observedGeneration: 2, replicas: 10, updatedReplicas: 0, updatedReadyReplicas: 0, readyReplicas: 10, currentRevision: 'web-6bd8c7d4c9', updateRevision: 'web-88bd5dbfd' };
    return cs;
  };
  const v04Rollout = (status: Record<string, unknown>): KubeObject => {
    const ro = loadKind('sandbox-rollout-web-v1beta1.yaml', 'Rollout');
    ro.metadata.generation = 1;
    return { ...ro, status };
  };

  it('TestReconcileRolloutProgressing row "ReconcileRolloutProgressing init -> rolling" (pkg/controller/rollout/rollout_progressing_test.go@v0.4.4): step 1 starts at StepUpgrade, never StepInit', () => {
    const t0 = new Date('2026-11-25T01:00:00Z');
    const ro = v04Rollout({ phase: 'Progressing', conditions: [{ type: 'Progressing', status: 'True', reason: 'Initializing', message: 'Rollout is in Progressing', lastUpdateTime: t0.toISOString(), lastTransitionTime: t0.toISOString() }] });
    const res = reconcileRollout({ rollout: ro, workload: v04Workload(), now: new Date(t0.getTime() + 3500), release: 'v0.4' });
    assert.equal(res.status?.conditions?.find((c) => c.type === 'Progressing')?.reason, 'InRolling');
    assert.deepEqual([res.status?.canaryStatus?.currentStepIndex, res.status?.canaryStatus?.currentStepState], [1, 'StepUpgrade']);
  });

  it('runCanary case StepReady (pkg/controller/rollout/rollout_canary.go@v0.4.4): the next step starts at StepUpgrade', () => {
    const sub = { canaryRevision: '88bd5dbfd', stableRevision: '6bd8c7d4c9', podTemplateHash: '88bd5dbfd', canaryReplicas: 2, canaryReadyReplicas: 2, currentStepIndex: 1, currentStepState: 'StepReady' };
    const res = reconcileRollout({ rollout: v04Rollout({ phase: 'Progressing', canaryStatus: sub, conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', message: '' }] }), workload: v04Workload(), now: new Date(), release: 'v0.4' });
    assert.deepEqual([res.status?.canaryStatus?.currentStepIndex, res.status?.canaryStatus?.currentStepState], [2, 'StepUpgrade']);
  });

  it('handleRollbackInBatches (pkg/controller/rollout/rollout_progressing.go@v0.4.4): the release restarts at step 1 StepUpgrade', () => {
    const ro = v04Rollout({ phase: 'Progressing', canaryStatus: { canaryRevision: '88bd5dbfd', stableRevision: '6bd8c7d4c9', podTemplateHash: '88bd5dbfd', canaryReplicas: 5, canaryReadyReplicas: 5, currentStepIndex: 2, currentStepState: 'StepPaused' }, conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', message: '' }] });
    ro.metadata.annotations = { ...(ro.metadata.annotations ?? {}), 'rollouts.kruise.io/rollback-in-batch': 'true' };
    // the template back on the stable revision while 5 pods still run the canary one (getKruiseCloneSet IsInRollback)
    const cs = v04Workload();
    cs.status = { ...(cs.status as Record<string, unknown>), updatedReplicas: 5, updateRevision: 'web-6bd8c7d4c9' };
    const res = reconcileRollout({ rollout: ro, workload: cs, now: new Date(), release: 'v0.4' });
    assert.deepEqual([res.status?.canaryStatus?.currentStepIndex, res.status?.canaryStatus?.currentStepState, res.status?.canaryStatus?.canaryRevision], [1, 'StepUpgrade', '6bd8c7d4c9']);
  });

  it('doCanaryFinalising as v0.4.4 (pkg/controller/rollout/rollout_canary.go@v0.4.4): no finalisingStep; BatchRelease resumed, deleted once Completed, then done', () => {
    const ro = loadKind('sandbox-rollout-web-v1beta1.yaml', 'Rollout');
    ro.metadata.generation = 1;
    const cs = loadKind('sandbox-cloneset-web-10.yaml', 'CloneSet');
    cs.metadata.generation = 2;
    cs.status = { observedGeneration: 2, replicas: 10, updatedReplicas: 10, updatedReadyReplicas: 10, currentRevision: 'web-88bd5dbfd', updateRevision: 'web-88bd5dbfd' };
    const status = { phase: 'Progressing', canaryStatus: { canaryRevision: '88bd5dbfd', podTemplateHash: '88bd5dbfd', canaryReplicas: 10, canaryReadyReplicas: 10, currentStepIndex: 3, currentStepState: 'Completed', nextStepIndex: 0, finalisingStep: '' }, conditions: [{ type: 'Progressing', status: 'True', reason: 'Finalising', message: '' }] };
    const br: KubeObject = { apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'BatchRelease', metadata: { name: 'rollout-web', namespace: 'default' }, spec: { releasePlan: { batches: [], batchPartition: 2 } }, status: { phase: 'Progressing' } };
    const step = (b: KubeObject | undefined) => reconcileRollout({ rollout: { ...ro, status }, workload: cs, batchRelease: b, now: new Date(), release: 'v0.4' });
    const first = step(br);
    const own = (ws: RolloutWrite[]) => ws.filter((w) => w.kind !== 'patchRollout');
    assert.deepEqual(own(first.writes), [{ kind: 'patchBatchRelease', patch: { spec: { releasePlan: { batchPartition: null, finalizingPolicy: 'WaitResume' } } } }]);
    assert.equal(first.status?.canaryStatus?.finalisingStep, undefined, 'v0.4.4 has no finalisingStep to walk');
    assert.equal(first.status?.canaryStatus?.nextStepIndex, undefined, 'nor nextStepIndex');
    const completed = step({ ...br, spec: { releasePlan: { batches: [], finalizingPolicy: 'WaitResume' } }, status: { phase: 'Completed' } });
    assert.deepEqual(own(completed.writes), [{ kind: 'deleteBatchRelease' }]);
    const gone = step(undefined);
    assert.equal(gone.status?.conditions?.find((c) => c.type === 'Progressing')?.reason, 'Completed');
    assert.equal(gone.status?.conditions?.find((c) => c.type === 'Succeeded')?.status, 'True');
  });
});

describe('BatchRelease kept up to date (rollout_releaseManager.go runBatchRelease)', () => {
  it('a BatchRelease read through the v1alpha1 conversion (rolling-style annotation added) is up to date: no update write, the step goes on', () => {
    const ro = loadKind('sandbox-rollout-web-v1beta1.yaml', 'Rollout');
    ro.metadata.generation = 1;
    const cs = loadKind('sandbox-cloneset-web-10.yaml', 'CloneSet');
    cs.metadata.generation = 2;
    cs.metadata.annotations = { 'rollouts.kruise.io/in-progressing': '{"rolloutName":"rollout-web"}' };
    cs.status = { observedGeneration: 2, replicas: 10, updatedReplicas: 2, updatedReadyReplicas: 2, currentRevision: 'web-6bd8c7d4c9', updateRevision: 'web-88bd5dbfd' };
    const status = { phase: 'Progressing', canaryStatus: { canaryRevision: '88bd5dbfd', podTemplateHash: '', canaryReplicas: 0, canaryReadyReplicas: 0, currentStepIndex: 1, currentStepState: 'StepUpgrade', nextStepIndex: 2, finalisingStep: '', observedRolloutID: '88bd5dbfd' }, conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', message: '' }] };
    const br: KubeObject = {
      apiVersion: 'rollouts.kruise.io/v1beta1',
      kind: 'BatchRelease',
      metadata: { name: 'rollout-web', namespace: 'default', generation: 1, annotations: { 'rollouts.kruise.io/rolling-style': 'partition' } },
      spec: { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web' }, releasePlan: { batches: [{ canaryReplicas: '20%' }, { canaryReplicas: '50%' }, { canaryReplicas: '100%' }], rolloutID: '88bd5dbfd', batchPartition: 0, rollingStyle: 'Partition', enableExtraWorkloadForCanary: false } },
      status: { observedGeneration: 1, canaryStatus: { currentBatch: 0, batchState: 'Ready', updatedReplicas: 2, updatedReadyReplicas: 2 }, observedRolloutID: '88bd5dbfd' },
    };
    (br.status as Record<string, unknown>).observedReleasePlanHash = batchReleasePlanHashOf(br);
    const res = reconcileRollout({ rollout: { ...ro, status }, workload: cs, batchRelease: br, now: new Date() });
    assert.deepEqual(res.writes.filter((w) => w.kind !== 'patchRollout'), []);
    assert.equal(res.status?.canaryStatus?.currentStepState, 'StepTrafficRouting');
  });
});

describe('per-kind batch context (partitionstyle/<kind>/control_test.go TestCalculateBatchContext*)', () => {
  const br = (extra: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'rollouts.kruise.io/v1beta1',
    kind: 'BatchRelease',
    metadata: { name: 'test-br', namespace: 'test' },
    spec: { releasePlan: { failureThreshold: '20%', batches: [{ canaryReplicas: '20%' }] } },
    status: { canaryStatus: { currentBatch: 0 }, ...extra },
  });
  /** control_test.go generatePods(n, version, ready). */
  const pods = (n: number, version: string, ready: string): KubeObject[] =>
    Array.from({ length: n }, (_, i) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `pod-${version}-${i}`, namespace: 'test', labels: { app: 'foo', 'controller-revision-hash': version } }, status: { conditions: [{ type: 'Ready', status: ready }] } }));
  const mixed = [...pods(5, 'stable-version', 'True'), ...pods(5, 'update-version', 'True')];
  const pick = (c: BatchContext) => ({ replicas: c.replicas, updated: c.updatedReplicas, updatedReady: c.updatedReadyReplicas, planned: c.plannedUpdatedReplicas, desired: c.desiredUpdatedReplicas, current: c.currentPartition, partition: c.desiredPartition });

  it('TestCalculateBatchContext row "without NoNeedUpdate" (cloneset/control_test.go): partition "100%" → "80%", 2 planned', () => {
    const cs: KubeObject = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'test' }, spec: { replicas: 10, updateStrategy: { partition: '100%' } }, status: { replicas: 10, updatedReplicas: 5, updatedReadyReplicas: 5, availableReplicas: 10 } };
    assert.deepEqual(pick(cloneSetReleaseControl.batchContext(cs, br(), [])), { replicas: 10, updated: 5, updatedReady: 5, planned: 2, desired: 2, current: '100%', partition: '80%' });
  });

  for (const [name, apiVersion] of [['TestCalculateBatchContextForNativeStatefulSet', 'apps/v1'], ['TestCalculateBatchContextForAdvancedStatefulSet', 'apps.kruise.io/v1beta1']] as const) {
    it(`${name} row "without NoNeedUpdate" (statefulset/control_test.go): partition 100 → 8, updated ready counted from the pods`, () => {
      const sts: KubeObject = { apiVersion, kind: 'StatefulSet', metadata: { name: 'test' }, spec: { replicas: 10, updateStrategy: { rollingUpdate: { partition: 100 } } }, status: { replicas: 10, updatedReplicas: 5, availableReplicas: 10, currentRevision: 'stable-version', updateRevision: 'update-version' } };
      const control = releaseControlFor(apiVersion, 'StatefulSet', 'Partition')!;
      assert.deepEqual(pick(control.batchContext(sts, br({ updateRevision: 'update-version' }), mixed)), { replicas: 10, updated: 5, updatedReady: 5, planned: 2, desired: 2, current: 100, partition: 8 });
    });
  }

  it('TestCalculateBatchContext row "without NoNeedUpdate" (daemonset/control_test.go): desiredNumberScheduled 10, partition 10 → 8', () => {
    const ds: KubeObject = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'DaemonSet', metadata: { name: 'test-ds' }, spec: { updateStrategy: { rollingUpdate: { partition: 10 } } }, status: { currentNumberScheduled: 10, desiredNumberScheduled: 10, numberReady: 10, observedGeneration: 1, updatedNumberScheduled: 5, numberAvailable: 10, daemonSetHash: 'update-version' } };
    const control = releaseControlFor('apps.kruise.io/v1alpha1', 'DaemonSet', 'Partition')!;
    assert.deepEqual(pick(control.batchContext(ds, br({ updateRevision: 'update-version' }), mixed)), { replicas: 10, updated: 5, updatedReady: 5, planned: 2, desired: 2, current: 10, partition: 8 });
  });
});

describe('release plan changes (rollout_status.go calculateRolloutHash, rollout_progressing.go handleRolloutPlanChanged)', () => {
  const rows: Array<[string, string[], string[], number, number]> = [
    ['steps changed v1', ['20%', '50%', '100%'], ['40%', '60%', '100%'], 0, 2],
    ['steps changed v2', ['20%', '40%', '100%'], ['40%', '60%', '100%'], 0, 2],
    ['steps changed v3', ['40%', '60%', '100%'], ['20%', '40%', '100%'], 1, 1],
    ['steps changed v4', ['10%', '30%', '100%'], ['20%', '40%', '100%'], 0, 2],
  ];
  for (const [name, steps, batches, partition, expected] of rows) {
    it(`TestReCalculateCanaryStepIndex row "${name}" (rollout_progressing_test.go)`, () => {
      assert.equal(recalculateCanaryStep(steps.map((r) => ({ replicas: r })), batches, partition, 10, 1), expected);
    });
  }

  it('calculateRolloutHash: pauses and failureThreshold do not change the hash, replicas do', () => {
    const a = rolloutPlanHash({ steps: [{ replicas: '20%', pause: {} }, { replicas: '100%' }], failureThreshold: '10%' });
    assert.equal(a, rolloutPlanHash({ steps: [{ replicas: '20%', pause: { duration: 60 } }, { replicas: '100%' }] }));
    assert.notEqual(a, rolloutPlanHash({ steps: [{ replicas: '30%' }, { replicas: '100%' }] }));
    assert.match(a, /^[bcdfghjklmnpqrstvwxz2456789]{64}$/);
  });

  it('a plan edited mid-release (rolloutHash differs): the step is recalculated from the BatchRelease and the release jumps there', () => {
    const ro = loadKind('sandbox-rollout-web-v1beta1.yaml', 'Rollout');
    ro.metadata.generation = 2;
    // steps now [40%, 60%, 100%]; 2 pods (20%) were released in batch 0; the current step (2, now 60%) is tried
    // first and reaches them, so the release redoes step 2 with the new plan
    (ro.spec as { strategy: { canary: { steps: unknown[] } } }).strategy.canary.steps = [{ replicas: '40%', pause: {} }, { replicas: '60%' }, { replicas: '100%' }];
    const cs = loadKind('sandbox-cloneset-web-10.yaml', 'CloneSet');
    cs.metadata.generation = 2;
    cs.metadata.annotations = { 'rollouts.kruise.io/in-progressing': '{"rolloutName":"rollout-web"}' };
    cs.status = { observedGeneration: 2, replicas: 10, updatedReplicas: 2, updatedReadyReplicas: 2, currentRevision: 'web-6bd8c7d4c9', updateRevision: 'web-88bd5dbfd' };
    const status = { phase: 'Progressing', canaryStatus: { canaryRevision: '88bd5dbfd', podTemplateHash: '88bd5dbfd', canaryReplicas: 2, canaryReadyReplicas: 2, currentStepIndex: 2, currentStepState: 'StepPaused', nextStepIndex: 3, finalisingStep: '', rolloutHash: 'old-plan' }, conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', message: '' }] };
    const br: KubeObject = { apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'BatchRelease', metadata: { name: 'rollout-web' }, spec: { releasePlan: { batches: [{ canaryReplicas: '20%' }, { canaryReplicas: '50%' }, { canaryReplicas: '100%' }], batchPartition: 0 } } };
    const res = reconcileRollout({ rollout: { ...ro, status }, workload: cs, batchRelease: br, now: new Date() });
    const hash = rolloutPlanHash((ro.spec as { strategy: { canary: Record<string, unknown> } }).strategy.canary);
    assert.deepEqual(res.writes[0], { kind: 'patchRollout', patch: { metadata: { annotations: { 'rollouts.kruise.io/hash': hash } } } });
    assert.equal(res.status?.canaryStatus?.rolloutHash, hash);
    assert.equal(res.status?.canaryStatus?.currentStepIndex, 2);
    assert.equal(res.status?.canaryStatus?.nextStepIndex, 3);
    assert.equal(res.status?.canaryStatus?.currentStepState, 'StepInit');
  });
});
