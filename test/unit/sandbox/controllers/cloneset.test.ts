// CloneSet controller on the in-memory store with the runtime (scheduler, kubelet): scaling,
// revisions, partitioned in-place and recreate updates, status as Kruise writes it, webhook rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../../../helpers/memory-store';
import { CLONESETS, createCloneSetController } from '../../../../src/sandbox/controllers/cloneset';
import { CONTROLLER_REVISIONS, PODS } from '../../../../src/sandbox/controllers/pods';
import type { KubeObject, Pod } from '../../../../src/kruise/types';
import { fixture, startSim, type Sim } from './cloneset-harness';

type CS = KubeObject & { spec: Record<string, any>; status?: Record<string, any> };

function getCs(sim: Sim, name = 'web'): CS {
  return sim.store.get(CLONESETS, 'default', name) as CS;
}
function podsOf(sim: Sim, name = 'web'): Pod[] {
  const cs = getCs(sim, name);
  return (sim.store.list(PODS, { namespace: 'default' }) as Pod[]).filter((p) =>
    (p.metadata.ownerReferences ?? []).some((r) => r.uid === cs.metadata.uid),
  );
}
function patchSpec(sim: Sim, mutate: (cs: CS) => void, name = 'web'): void {
  const cs = getCs(sim, name);
  mutate(cs);
  sim.store.update(CLONESETS, cs);
}
const image = (p: Pod) => p.spec.containers[0].image;
/** The controller has seen the latest spec. */
const fresh = (sim: Sim) => getCs(sim).status?.observedGeneration === getCs(sim).metadata.generation;
const readyAll = (sim: Sim, n: number) => () => {
  const s = getCs(sim).status;
  return s && s.readyReplicas === n && s.replicas === n && s.observedGeneration === getCs(sim).metadata.generation ? s : undefined;
};

function withSim(shape: 'v1alpha1' | 'v1beta1', fn: (sim: Sim) => Promise<void>) {
  return async () => {
    const sim = startSim([createCloneSetController()], {
      // CloneSet is stored as v1beta1 only on master (kruise-semantics §1).
      settings: { kruise: shape === 'v1beta1' ? 'master' : 'v1.9' },
    });
    try {
      await fn(sim);
    } finally {
      sim.stop();
    }
  };
}

for (const shape of ['v1alpha1', 'v1beta1'] as const) {
  test(
    `${shape}: 8 replicas become ready with Kruise's labels, revision and status`,
    withSim(shape, async (sim) => {
      sim.store.create(CLONESETS, fixture(`cloneset-${shape}.yaml`)[0]);
      const status = await waitFor('8 ready', readyAll(sim, 8), 5000);
      const pods = podsOf(sim);
      assert.equal(pods.length, 8);
      const rev = status.updateRevision as string;
      assert.match(rev, /^web-[a-z0-9]+$/);
      assert.equal(status.currentRevision, rev);
      assert.equal(status.expectedUpdatedReplicas, 8);
      assert.equal(status.updatedReadyReplicas, 8);
      assert.equal(status.labelSelector, 'app=web');
      assert.equal(status.collisionCount, 0);
      for (const p of pods) {
        assert.match(p.metadata.name!, /^web-[a-z0-9]{5}$/);
        assert.equal(p.metadata.labels!['controller-revision-hash'], rev);
        assert.equal(p.metadata.labels!['pod-template-hash'], rev.slice(4));
        assert.equal(p.metadata.labels!['apps.kruise.io/cloneset-instance-id'], p.metadata.name!.slice(4));
        assert.equal(p.metadata.labels!['lifecycle.apps.kruise.io/state'], 'Normal');
        assert.deepEqual(p.spec.readinessGates, [{ conditionType: 'InPlaceUpdateReady' }]);
        assert.equal(p.metadata.ownerReferences![0].controller, true);
      }
      const revs = sim.store.list(CONTROLLER_REVISIONS, { namespace: 'default' });
      assert.equal(revs.length, 1);
      assert.equal(revs[0].metadata.name, rev);
      assert.equal(revs[0].revision, 1);
      assert.equal(revs[0].metadata.labels!['controller.kubernetes.io/hash'], rev.slice(4));
      assert.equal(revs[0].metadata.labels!.app, 'web');
      const data = revs[0].data as { spec: { template: Record<string, unknown> } };
      assert.equal(data.spec.template.$patch, 'replace');
    }),
  );

  test(
    `${shape}: partition 90% of 8 → exactly 1 pod updated in place, currentRevision unchanged; partition 0 → all`,
    withSim(shape, async (sim) => {
      sim.store.create(CLONESETS, fixture(`cloneset-${shape}.yaml`)[0]);
      const first = await waitFor('8 ready', readyAll(sim, 8), 5000);
      const before = new Map(podsOf(sim).map((p) => [p.metadata.name, p]));
      patchSpec(sim, (cs) => {
        cs.spec.template.spec.containers[0].image = 'nginx:1.26';
        const target = shape === 'v1beta1' ? cs.spec.updateStrategy.rollingUpdate : cs.spec.updateStrategy;
        target.partition = '90%';
      });
      const st = await waitFor(
        'partition batch done',
        () => {
          const s = getCs(sim).status!;
          return s.updateRevision !== first.updateRevision && s.updatedReadyReplicas === 1 && s.readyReplicas === 8 ? s : undefined;
        },
        5000,
      );
      assert.equal(st.expectedUpdatedReplicas, 1);
      assert.equal(st.updatedReplicas, 1);
      assert.equal(st.currentRevision, first.updateRevision, 'currentRevision stays until every pod is updated');
      const pods = podsOf(sim);
      const updated = pods.filter((p) => image(p) === 'nginx:1.26');
      assert.equal(updated.length, 1);
      const u = updated[0];
      const old = before.get(u.metadata.name);
      assert.ok(old, 'same pod name: updated in place');
      assert.equal(u.metadata.uid, old!.metadata.uid, 'same UID');
      assert.equal(u.status!.containerStatuses![0].restartCount, 1);
      assert.equal(u.metadata.labels!['controller-revision-hash'], st.updateRevision);
      const state = JSON.parse(u.metadata.annotations!['apps.kruise.io/inplace-update-state']);
      assert.equal(state.revision, st.updateRevision);
      assert.equal(u.status!.conditions!.find((c) => c.type === 'InPlaceUpdateReady')?.status, 'True');
      assert.equal(sim.store.list(CONTROLLER_REVISIONS).length, 2);

      patchSpec(sim, (cs) => {
        const target = shape === 'v1beta1' ? cs.spec.updateStrategy.rollingUpdate : cs.spec.updateStrategy;
        target.partition = 0;
      });
      const done = await waitFor(
        'all updated',
        () => {
          const s = getCs(sim).status!;
          return s.updatedReadyReplicas === 8 && s.readyReplicas === 8 && s.currentRevision === s.updateRevision ? s : undefined;
        },
        8000,
      );
      assert.equal(done.expectedUpdatedReplicas, 8);
      assert.equal(done.updatedReplicas, 8);
      assert.ok(podsOf(sim).every((p) => image(p) === 'nginx:1.26' && before.has(p.metadata.name)));
    }),
  );
}

test(
  'ReCreate: a template change replaces pods within maxUnavailable, never more unavailable',
  withSim('v1alpha1', async (sim) => {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.spec.replicas = 4;
    cs.spec.updateStrategy = { type: 'ReCreate', maxUnavailable: 1 };
    sim.store.create(CLONESETS, cs);
    await waitFor('4 ready', readyAll(sim, 4), 5000);
    const names = new Set(podsOf(sim).map((p) => p.metadata.name));
    let maxUnavailable = 0;
    const unsub = sim.store.subscribe(() => {
      const s = getCs(sim).status;
      if (s && s.observedGeneration === getCs(sim).metadata.generation) maxUnavailable = Math.max(maxUnavailable, 4 - (s.availableReplicas ?? 0));
    });
    patchSpec(sim, (c) => {
      c.spec.template.spec.containers[0].image = 'nginx:1.26';
    });
    await waitFor('all recreated', () => {
      const s = getCs(sim).status!;
      return fresh(sim) && s.updatedReadyReplicas === 4 && s.replicas === 4 && s.currentRevision === s.updateRevision ? s : undefined;
    }, 8000);
    unsub();
    const pods = podsOf(sim);
    assert.ok(pods.every((p) => !names.has(p.metadata.name) && image(p) === 'nginx:1.26'), 'every pod is new');
    assert.ok(maxUnavailable <= 1, `at most 1 unavailable, saw ${maxUnavailable}`);
  }),
);

test(
  'maxSurge with ReCreate: extra pods during the update, back to replicas at the end',
  withSim('v1alpha1', async (sim) => {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.spec.replicas = 3;
    cs.spec.updateStrategy = { type: 'ReCreate', maxSurge: 1, maxUnavailable: 0 };
    sim.store.create(CLONESETS, cs);
    await waitFor('3 ready', readyAll(sim, 3), 5000);
    let maxPods = 0;
    const unsub = sim.store.subscribe(() => {
      maxPods = Math.max(maxPods, podsOf(sim).filter((p) => !p.metadata.deletionTimestamp).length);
    });
    patchSpec(sim, (c) => {
      c.spec.template.spec.containers[0].image = 'nginx:1.26';
    });
    await waitFor('done', () => {
      const s = getCs(sim).status!;
      return fresh(sim) && s.updatedReadyReplicas === 3 && s.replicas === 3 && s.availableReplicas === 3 ? s : undefined;
    }, 8000);
    unsub();
    assert.equal(maxPods, 4, 'one surge pod at most');
    assert.equal(podsOf(sim).length, 3);
  }),
);

test(
  'scale down removes not-ready pods first; podsToDelete replaces the named pod; paused stops updates only',
  withSim('v1alpha1', async (sim) => {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.spec.replicas = 3;
    sim.store.create(CLONESETS, cs);
    await waitFor('3 ready', readyAll(sim, 3), 5000);
    const victim = podsOf(sim)[1].metadata.name!;
    patchSpec(sim, (c) => {
      c.spec.scaleStrategy = { podsToDelete: [victim] };
    });
    await waitFor('victim replaced', () => {
      const pods = podsOf(sim);
      return pods.length === 3 && !pods.some((p) => p.metadata.name === victim) ? pods : undefined;
    });
    patchSpec(sim, (c) => {
      c.spec.updateStrategy.paused = true;
      c.spec.template.spec.containers[0].image = 'nginx:1.26';
      c.spec.replicas = 5;
    });
    const s = await waitFor('scaled while paused', readyAll(sim, 5), 5000);
    assert.equal(s.updatedReplicas, 2, 'new pods are created at the update revision');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(podsOf(sim).filter((p) => image(p) === 'nginx:1.25').length, 3, 'paused: old pods are not updated');
    patchSpec(sim, (c) => {
      c.spec.updateStrategy.paused = false;
      c.spec.replicas = 2;
    });
    const end = await waitFor('scaled down and updated', () => {
      const st = getCs(sim).status!;
      return st.replicas === 2 && st.updatedReadyReplicas === 2 ? st : undefined;
    }, 5000);
    assert.equal(end.currentRevision, end.updateRevision);
  }),
);

for (const shape of ['v1alpha1', 'v1beta1'] as const) {
  test(
    `${shape}: selective scale-in (podsToDelete + replicas in one write) removes exactly those pods, then truncatePodsToDelete (cloneset_controller.go) drops their names`,
    withSim(shape, async (sim) => {
      const cs = fixture(`cloneset-${shape}.yaml`)[0] as CS;
      cs.spec.replicas = 4;
      sim.store.create(CLONESETS, cs);
      await waitFor('4 ready', readyAll(sim, 4), 5000);
      const [a, b, keep] = podsOf(sim).map((p) => p.metadata.name!);
      patchSpec(sim, (c) => {
        c.spec.replicas = 2;
        c.spec.scaleStrategy = { podsToDelete: [a, b] };
      });
      const left = await waitFor('a and b gone, their names truncated', () => {
        const names = podsOf(sim).map((p) => p.metadata.name);
        const list = getCs(sim).spec.scaleStrategy?.podsToDelete;
        return names.length === 2 && !names.includes(a) && !names.includes(b) && list === undefined ? names : undefined;
      }, 5000);
      assert.ok(left.includes(keep), 'no other pod was taken instead');
      // A name whose pod is still there stays listed: replaced (replicas unchanged), then truncated.
      patchSpec(sim, (c) => {
        c.spec.scaleStrategy = { podsToDelete: [keep] };
      });
      await waitFor('keep replaced and truncated', () => {
        const names = podsOf(sim).map((p) => p.metadata.name);
        return names.length === 2 && !names.includes(keep) && getCs(sim).spec.scaleStrategy?.podsToDelete === undefined ? true : undefined;
      }, 5000);
    }),
  );
}

test(
  're-applying an old template reuses its revision and bumps its number; history is pruned to the limit',
  withSim('v1alpha1', async (sim) => {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.spec.replicas = 1;
    cs.spec.revisionHistoryLimit = 2;
    sim.store.create(CLONESETS, cs);
    const s1 = await waitFor('ready', readyAll(sim, 1), 5000);
    for (const img of ['nginx:1.26', 'nginx:1.27']) {
      patchSpec(sim, (c) => {
        c.spec.template.spec.containers[0].image = img;
      });
      await waitFor(img, () => (getCs(sim).status!.updatedReadyReplicas === 1 && podsOf(sim).every((p) => image(p) === img) ? true : undefined), 5000);
    }
    patchSpec(sim, (c) => {
      c.spec.template.spec.containers[0].image = 'nginx:1.25';
    });
    const back = await waitFor('back', () => {
      const s = getCs(sim).status!;
      return s.updateRevision === s1.updateRevision && s.updatedReadyReplicas === 1 ? s : undefined;
    }, 5000);
    await waitFor('pruned', () => sim.store.list(CONTROLLER_REVISIONS).length <= 2 || undefined);
    const rev = sim.store.get(CONTROLLER_REVISIONS, 'default', back.updateRevision)!;
    assert.equal(rev.revision, 4, 'old revision reused with max+1');
  }),
);

test(
  'expectedUpdatedReplicas is omitted with the sandbox annotation (Kruise < v1.2) and when 0',
  withSim('v1alpha1', async (sim) => {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.metadata.name = 'old';
    cs.metadata.annotations = { 'sandbox.kruise.io/omit-expected-updated-replicas': 'true' };
    cs.spec.replicas = 2;
    sim.store.create(CLONESETS, cs);
    const s = await waitFor('ready', () => {
      const st = getCs(sim, 'old').status;
      return st?.readyReplicas === 2 ? st : undefined;
    }, 5000);
    assert.equal('expectedUpdatedReplicas' in s, false);
    patchSpec(sim, (c) => {
      delete c.metadata.annotations;
      c.spec.updateStrategy.partition = '100%';
    }, 'old');
    const s2 = await waitFor('observed', () => {
      const st = getCs(sim, 'old').status!;
      return st.observedGeneration === getCs(sim, 'old').metadata.generation ? st : undefined;
    });
    assert.equal('expectedUpdatedReplicas' in s2, false, 'partition 100% → 0 expected → omitted');
  }),
);

test(
  'ProgressDeadlineExceeded when a fail-pull image makes no progress',
  withSim('v1alpha1', async (sim) => {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.spec.replicas = 2;
    cs.spec.progressDeadlineSeconds = 1;
    sim.store.create(CLONESETS, cs);
    await waitFor('ready', readyAll(sim, 2), 5000);
    assert.equal(getCs(sim).status!.conditions[0].reason, 'CloneSetAvailable');
    patchSpec(sim, (c) => {
      c.spec.template.spec.containers[0].image = 'nginx:fail-pull';
    });
    const cond = await waitFor('deadline', () => {
      const c = (getCs(sim).status!.conditions ?? []).find((x: { type: string }) => x.type === 'Progressing');
      return c?.reason === 'ProgressDeadlineExceeded' ? c : undefined;
    }, 5000);
    assert.equal(cond.status, 'False');
  }),
);

test('Progressing clock resets only when its reason changes: a steady rollout slower than the deadline is ProgressDeadlineExceeded, and stays so until available (pkg/controller/cloneset/cloneset_status.go calculateProgressingStatus, v1.9.0)', async () => {
  const sim = startSim([createCloneSetController()], { settings: { readyDelayMs: 500 } });
  const reasons: string[] = [];
  const unsubscribe = sim.store.subscribe((ev) => {
    if (ev.gr.resource !== 'clonesets') return;
    const c = ((ev.object.status as { conditions?: Array<Record<string, string>> } | undefined)?.conditions ?? []).find((x) => x.type === 'Progressing');
    if (c && reasons[reasons.length - 1] !== c.reason) reasons.push(c.reason);
  });
  try {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.spec.replicas = 8;
    cs.spec.progressDeadlineSeconds = 2;
    cs.spec.updateStrategy = { type: 'ReCreate', maxUnavailable: 1 };
    sim.store.create(CLONESETS, cs);
    await waitFor('ready', readyAll(sim, 8), 5000);
    patchSpec(sim, (c) => {
      c.spec.template.spec.containers[0].image = 'nginx:1.26';
    });
    reasons.length = 0; // the spec write itself still carries CloneSetAvailable
    // each pod is replaced well within the 2 s deadline, the whole rollout (8 × 0.5 s) is not
    const done = await waitFor('rolled out', () => {
      const st = getCs(sim).status!;
      return fresh(sim) && st.updatedReadyReplicas === 8 && st.currentRevision === st.updateRevision && reasons[reasons.length - 1] === 'CloneSetAvailable' ? st : undefined;
    }, 10_000);
    assert.equal(done.replicas, 8);
    assert.deepEqual(reasons, ['CloneSetUpdated', 'ProgressDeadlineExceeded', 'CloneSetAvailable']);
  } finally {
    unsubscribe();
    sim.stop();
  }
});

test('no Progressing condition before Kruise v1.9 (progressDeadlineSeconds arrived in v1.9.0)', async () => {
  const sim = startSim([createCloneSetController()], { settings: { kruise: 'v1.8' } });
  try {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.spec.replicas = 1;
    cs.spec.progressDeadlineSeconds = 5;
    sim.store.create(CLONESETS, cs);
    const st = await waitFor('ready', readyAll(sim, 1), 5000);
    assert.equal((st.conditions ?? []).some((c: { type: string }) => c.type === 'Progressing'), false);
  } finally {
    sim.stop();
  }
});

/** The lowest number of ready, not deleting pods of the CloneSet seen at any committed change. */
function trackMinReady(sim: Sim): { min: () => number; stop: () => void } {
  let min = Infinity;
  const stop = sim.store.subscribe((ev) => {
    if (ev.gr.resource !== 'pods') return;
    const ready = podsOf(sim).filter((p) => !p.metadata.deletionTimestamp && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
    min = Math.min(min, ready);
  });
  return { min: () => min, stop };
}

test(
  'podsToDelete takes ready pods down only within maxUnavailable (pkg/controller/cloneset/sync/cloneset_scale.go Scale "specified delete" with deleteReadyLimit)',
  withSim('v1alpha1', async (sim) => {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.spec.replicas = 4;
    cs.spec.updateStrategy = { type: 'ReCreate', maxUnavailable: 1 };
    sim.store.create(CLONESETS, cs);
    await waitFor('ready', readyAll(sim, 4), 5000);
    const victims = podsOf(sim).slice(0, 2).map((p) => p.metadata.name!);
    const track = trackMinReady(sim);
    try {
      patchSpec(sim, (c) => {
        c.spec.scaleStrategy = { podsToDelete: victims };
      });
      await waitFor('both replaced', () => {
        const names = podsOf(sim).map((p) => p.metadata.name!);
        const s = getCs(sim).status!;
        return victims.every((v) => !names.includes(v)) && s.readyReplicas === 4 && s.replicas === 4 ? true : undefined;
      }, 5000);
      assert.equal(track.min(), 3, 'one ready pod down at a time');
    } finally {
      track.stop();
    }
  }),
);

test(
  'podsToDelete with maxSurge creates the replacement before deleting (TestCalculateDiffsWithExpectation rows "specified delete with maxSurge", cloneset_sync_utils.go scaleSurge)',
  withSim('v1alpha1', async (sim) => {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.spec.replicas = 3;
    cs.spec.updateStrategy = { type: 'ReCreate', maxUnavailable: 0, maxSurge: 1 };
    sim.store.create(CLONESETS, cs);
    await waitFor('ready', readyAll(sim, 3), 5000);
    const victim = podsOf(sim)[0].metadata.name!;
    const track = trackMinReady(sim);
    try {
      patchSpec(sim, (c) => {
        c.spec.scaleStrategy = { podsToDelete: [victim] };
      });
      await waitFor('replaced', () => {
        const s = getCs(sim).status!;
        return !podsOf(sim).some((p) => p.metadata.name === victim) && s.readyReplicas === 3 && s.replicas === 3 ? true : undefined;
      }, 5000);
      assert.equal(track.min(), 3, 'never below 3 ready pods: the surge pod was ready before the victim went');
    } finally {
      track.stop();
    }
  }),
);

test(
  'v1beta1 OnDelete with a partition: scaling up creates pods at the current revision up to the partition, expectedUpdatedReplicas = replicas − partition (cloneset_sync_utils.go calculateDiffsWithExpectation, cloneset_status.go calculateStatus)',
  withSim('v1beta1', async (sim) => {
    // OnDelete exists on the v1beta1 shape (master); v1.9's webhook rejects it on v1alpha1
    const cs = fixture('cloneset-v1beta1.yaml')[0] as CS;
    cs.spec.replicas = 2;
    cs.spec.updateStrategy = { type: 'OnDelete', rollingUpdate: { partition: 3 } };
    sim.store.create(CLONESETS, cs);
    await waitFor('ready', readyAll(sim, 2), 5000);
    patchSpec(sim, (c) => {
      c.spec.template.spec.containers[0].image = 'nginx:1.26';
      c.spec.replicas = 4;
    });
    const s = await waitFor('4 ready', readyAll(sim, 4), 5000);
    assert.equal(s.expectedUpdatedReplicas, 1);
    assert.deepEqual(podsOf(sim).map(image).sort(), ['nginx:1.25', 'nginx:1.25', 'nginx:1.25', 'nginx:1.26'], 'one new pod at the current revision (partition 3), one at the update revision');
  }),
);

test('webhook: invalid values are rejected with field paths; InPlaceOnly rejects non-image changes', () => {
  const sim = startSim([createCloneSetController()]);
  try {
    const bad = (mut: (c: CS) => void) => {
      const c = fixture('cloneset-v1alpha1.yaml')[0] as CS;
      mut(c);
      try {
        sim.store.create(CLONESETS, c);
      } catch (e) {
        return e as { code: number; message: string };
      }
      assert.fail('accepted');
    };
    assert.match(bad((c) => (c.spec.replicas = -1)).message, /spec\.replicas: Invalid value: -1/);
    assert.match(bad((c) => (c.spec.updateStrategy.partition = '99')).message, /spec\.updateStrategy\.partition: Invalid value: "99"/);
    assert.match(bad((c) => (c.spec.updateStrategy.partition = -1)).message, /spec\.updateStrategy\.partition/);
    assert.match(
      bad((c) => Object.assign(c.spec.updateStrategy, { type: 'InPlaceOnly', maxSurge: 1 })).message,
      /maxSurge.*InPlaceOnly/,
    );
    assert.match(bad((c) => (c.spec.scaleStrategy = { podsToDelete: ['a', 'a'] })).message, /spec\.scaleStrategy\.podsToDelete: Invalid value: \["a","a"\]: duplicated items \[a\]/);
    assert.equal(bad((c) => (c.spec.replicas = -1)).code, 422);

    const ok = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    ok.spec.updateStrategy = { type: 'InPlaceOnly' };
    const created = sim.store.create(CLONESETS, ok) as CS;
    assert.equal(created.spec.updateStrategy.maxUnavailable, '20%', 'defaults from the mutating webhook');
    assert.equal(created.spec.updateStrategy.partition, 0);
    const envChange = structuredClone(created);
    envChange.spec.template.spec.containers[0].env = [{ name: 'A', value: 'b' }];
    assert.throws(() => sim.store.update(CLONESETS, envChange), /spec\.template: Forbidden: only allowed to update images/);
    const imgChange = structuredClone(created);
    imgChange.spec.template.spec.containers[0].image = 'nginx:1.26';
    sim.store.update(CLONESETS, imgChange);
  } finally {
    sim.stop();
  }
});

test(
  'inPlaceUpdateStrategy.gracePeriodSeconds: pod marked not ready first, images applied after the grace period',
  withSim('v1alpha1', async (sim) => {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.spec.replicas = 1;
    cs.spec.updateStrategy.inPlaceUpdateStrategy = { gracePeriodSeconds: 1 };
    sim.store.create(CLONESETS, cs);
    await waitFor('ready', readyAll(sim, 1), 5000);
    const started = Date.now();
    patchSpec(sim, (c) => {
      c.spec.template.spec.containers[0].image = 'nginx:1.26';
    });
    const parked = await waitFor('grace annotation', () => {
      const p = podsOf(sim)[0];
      return p.metadata.annotations?.['apps.kruise.io/inplace-update-grace'] ? p : undefined;
    });
    assert.equal(image(parked), 'nginx:1.25', 'images wait for the grace period');
    assert.equal(parked.status!.conditions!.find((c) => c.type === 'InPlaceUpdateReady')?.status, 'False');
    await waitFor('updated after grace', () => {
      const s = getCs(sim).status!;
      return s.updatedReadyReplicas === 1 && image(podsOf(sim)[0]) === 'nginx:1.26' ? s : undefined;
    }, 5000);
    assert.ok(Date.now() - started >= 900, 'not before the grace period');
    assert.equal(podsOf(sim)[0].metadata.annotations?.['apps.kruise.io/inplace-update-grace'], undefined);
  }),
);

test(
  'a template change during the in-place grace period does not lose the earlier change: pods in grace are skipped (pkg/controller/cloneset/sync/cloneset_update.go Update "still in grace period", pkg/util/inplaceupdate/inplace_update.go finishGracePeriod)',
  withSim('v1alpha1', async (sim) => {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.spec.replicas = 2;
    cs.spec.template.spec.containers.push({ name: 'sidecar', image: 'envoy:1.0' });
    cs.spec.updateStrategy.inPlaceUpdateStrategy = { gracePeriodSeconds: 1 };
    sim.store.create(CLONESETS, cs);
    await waitFor('ready', readyAll(sim, 2), 5000);
    patchSpec(sim, (c) => {
      c.spec.template.spec.containers[1].image = 'envoy:2.0';
    });
    await waitFor('sidecar change parked', () => (podsOf(sim).every((p) => p.metadata.annotations?.['apps.kruise.io/inplace-update-grace']) ? true : undefined));
    // a second revision arrives while the first one's images are still parked
    patchSpec(sim, (c) => {
      c.spec.template.spec.containers[0].image = 'nginx:1.26';
    });
    const done = await waitFor('rolled out', () => {
      const s = getCs(sim).status!;
      return fresh(sim) && s.updatedReadyReplicas === 2 && s.readyReplicas === 2 && s.currentRevision === s.updateRevision ? s : undefined;
    }, 8000);
    for (const p of podsOf(sim)) {
      assert.equal(p.metadata.labels!['controller-revision-hash'], done.updateRevision);
      assert.deepEqual(p.spec.containers.map((c) => c.image), ['nginx:1.26', 'envoy:2.0'], `${p.metadata.name} runs both changes`);
    }
  }),
);

test(
  'InPlaceUpdateEnvFromMetadata: a template label read by a container env restarts that container in place, not the others (pkg/util/inplaceupdate/inplace_update_defaults.go)',
  withSim('v1alpha1', async (sim) => {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.spec.replicas = 1;
    cs.spec.template.metadata.labels.release = 'r1';
    cs.spec.template.spec.containers[0].env = [{ name: 'RELEASE', valueFrom: { fieldRef: { fieldPath: "metadata.labels['release']" } } }];
    cs.spec.template.spec.containers.push({ name: 'sidecar', image: 'envoy:1.0' });
    sim.store.create(CLONESETS, cs);
    await waitFor('ready', readyAll(sim, 1), 5000);
    const before = podsOf(sim)[0];
    patchSpec(sim, (c) => {
      c.spec.template.metadata.labels.release = 'r2';
    });
    const done = await waitFor('updated and ready again', () => {
      const s = getCs(sim).status!;
      return fresh(sim) && s.updatedReadyReplicas === 1 && s.readyReplicas === 1 ? s : undefined;
    }, 5000);
    const pod = podsOf(sim)[0];
    assert.equal(pod.metadata.uid, before.metadata.uid, 'in place');
    assert.equal(pod.metadata.labels!.release, 'r2');
    assert.equal(pod.metadata.labels!['controller-revision-hash'], done.updateRevision);
    const restarts = Object.fromEntries(pod.status!.containerStatuses!.map((c) => [c.name, c.restartCount]));
    assert.deepEqual(restarts, { nginx: 1, sidecar: 0 });
    const state = JSON.parse(pod.metadata.annotations!['apps.kruise.io/inplace-update-state']);
    assert.equal(state.updateEnvFromMetadata, true);
  }),
);

test(
  'lifecycle.inPlaceUpdate hook: PreparingUpdate holds the pod until released, then Updating → Updated → Normal once the hook is back (pkg/controller/cloneset/sync/cloneset_update.go updatePod / refreshPodState)',
  withSim('v1alpha1', async (sim) => {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.spec.replicas = 1;
    cs.spec.template.metadata.labels['example.io/inplace-hook'] = 'true';
    cs.spec.lifecycle = { inPlaceUpdate: { labelsHandler: { 'example.io/inplace-hook': 'true' } } };
    sim.store.create(CLONESETS, cs);
    await waitFor('ready', readyAll(sim, 1), 5000);
    const state = () => podsOf(sim)[0].metadata.labels!['lifecycle.apps.kruise.io/state'];
    const setHook = (on: boolean) => {
      const pod = sim.store.get(PODS, 'default', podsOf(sim)[0].metadata.name!) as Pod;
      const labels = { ...pod.metadata.labels! };
      if (on) labels['example.io/inplace-hook'] = 'true';
      else delete labels['example.io/inplace-hook'];
      sim.store.update(PODS, { ...pod, metadata: { ...pod.metadata, labels } });
    };
    patchSpec(sim, (c) => {
      c.spec.template.spec.containers[0].image = 'nginx:1.26';
    });
    await waitFor('PreparingUpdate', () => (state() === 'PreparingUpdate' ? true : undefined));
    await waitFor('observed', () => (fresh(sim) ? true : undefined));
    await new Promise((r) => setTimeout(r, 100)); // several syncs: still held
    assert.equal(state(), 'PreparingUpdate');
    assert.equal(image(podsOf(sim)[0]), 'nginx:1.25', 'held before the in-place update');
    setHook(false);
    await waitFor('Updated', () => (state() === 'Updated' ? true : undefined), 5000);
    assert.equal(image(podsOf(sim)[0]), 'nginx:1.26');
    assert.equal(getCs(sim).status!.availableReplicas, 0, 'Updated is not available until the hook is back');
    setHook(true);
    const done = await waitFor('Normal and available', () => {
      const s = getCs(sim).status!;
      return state() === 'Normal' && s.updatedAvailableReplicas === 1 ? s : undefined;
    }, 5000);
    assert.equal(done.currentRevision, done.updateRevision);
  }),
);

test(
  'scaling back up returns a PreparingDelete pod to Normal instead of creating one (pkg/controller/cloneset/sync/cloneset_scale.go managePreparingDelete)',
  withSim('v1alpha1', async (sim) => {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.spec.replicas = 2;
    cs.spec.template.metadata.labels['example.io/block-deletion'] = 'true';
    cs.spec.lifecycle = { preDelete: { labelsHandler: { 'example.io/block-deletion': 'true' } } };
    sim.store.create(CLONESETS, cs);
    await waitFor('2 ready', readyAll(sim, 2), 5000);
    const names = podsOf(sim).map((p) => p.metadata.name).sort();
    patchSpec(sim, (c) => (c.spec.replicas = 1));
    const held = await waitFor('PreparingDelete', () => podsOf(sim).find((p) => p.metadata.labels!['lifecycle.apps.kruise.io/state'] === 'PreparingDelete'));
    patchSpec(sim, (c) => (c.spec.replicas = 2));
    await waitFor('back to Normal', () => ((sim.store.get(PODS, 'default', held.metadata.name!) as Pod).metadata.labels!['lifecycle.apps.kruise.io/state'] === 'Normal' ? true : undefined));
    await waitFor('2 available', () => (fresh(sim) && getCs(sim).status!.availableReplicas === 2 ? true : undefined));
    assert.deepEqual(podsOf(sim).map((p) => p.metadata.name).sort(), names, 'no pod created, none deleted');
  }),
);

test(
  'lifecycle: preDelete hook holds a pod in PreparingDelete until released; preNormal holds new pods; exclude label replaces early',
  withSim('v1alpha1', async (sim) => {
    const cs = fixture('cloneset-v1alpha1.yaml')[0] as CS;
    cs.spec.replicas = 2;
    cs.spec.template.metadata.labels['example.io/block-deletion'] = 'true';
    cs.spec.lifecycle = { preDelete: { labelsHandler: { 'example.io/block-deletion': 'true' } } };
    sim.store.create(CLONESETS, cs);
    await waitFor('2 ready', readyAll(sim, 2), 5000);
    patchSpec(sim, (c) => (c.spec.replicas = 1));
    const held = await waitFor('PreparingDelete', () => podsOf(sim).find((p) => p.metadata.labels!['lifecycle.apps.kruise.io/state'] === 'PreparingDelete'));
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(podsOf(sim).length, 2, 'the hooked pod is not deleted');
    assert.equal(getCs(sim).status!.replicas, 2);
    assert.equal(getCs(sim).status!.availableReplicas, 1, 'PreparingDelete is not available');
    const release = sim.store.get(PODS, 'default', held.metadata.name!) as Pod;
    delete release.metadata.labels!['example.io/block-deletion'];
    sim.store.update(PODS, release);
    await waitFor('deleted once released', () => (podsOf(sim).length === 1 && getCs(sim).status!.replicas === 1 ? true : undefined));

    // exclude-preparing-delete: a podsToDelete pod held by its hook is replaced at once
    patchSpec(sim, (c) => {
      c.metadata.labels = { ...(c.metadata.labels ?? {}), 'apps.kruise.io/cloneset-scaling-exclude-preparing-delete': 'true' };
      c.spec.scaleStrategy = { podsToDelete: [podsOf(sim)[0].metadata.name] };
    });
    await waitFor('replacement while held', () => {
      const ps = podsOf(sim);
      return ps.length === 2 && ps.some((p) => p.metadata.labels!['lifecycle.apps.kruise.io/state'] === 'PreparingDelete') ? ps : undefined;
    });

    // preNormal: new pods wait in PreparingNormal until every hook label is on them
    patchSpec(sim, (c) => {
      c.spec.lifecycle.preNormal = { labelsHandler: { 'example.io/registered': 'true' } };
      c.spec.replicas = 2;
      delete c.spec.scaleStrategy;
    });
    const fresh = await waitFor('PreparingNormal pod', () => podsOf(sim).find((p) => p.metadata.labels!['lifecycle.apps.kruise.io/state'] === 'PreparingNormal'));
    const reg = sim.store.get(PODS, 'default', fresh.metadata.name!) as Pod;
    reg.metadata.labels!['example.io/registered'] = 'true';
    sim.store.update(PODS, reg);
    await waitFor('Normal after the hook', () => (sim.store.get(PODS, 'default', fresh.metadata.name!) as Pod).metadata.labels!['lifecycle.apps.kruise.io/state'] === 'Normal' || undefined);
  }),
);
