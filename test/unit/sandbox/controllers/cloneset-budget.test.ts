// A large CloneSet's sync stops its pod writes at a time budget and goes on at the next turn of
// the event loop (src/sandbox/controllers/cloneset.ts SYNC_WRITE_BUDGET_MS), so the API server
// answers between chunks. Cutting a sync must not change Kruise's rollout rules: pods not reached
// yet count as not refreshed, so the in-place update never has more than maxUnavailable pods
// unavailable at once (cloneset_update.go limitUpdateIndexes caps by maxUnavailable) and still
// finishes with every pod updated and ready.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../../../helpers/memory-store';
import { CLONESETS, createCloneSetController } from '../../../../src/sandbox/controllers/cloneset';
import { PODS, isPodReady } from '../../../../src/sandbox/controllers/pods';
import type { KubeObject, Pod } from '../../../../src/kruise/types';
import { startSim } from './cloneset-harness';

const REPLICAS = 2000;
const MAX_UNAVAILABLE = 400; // 20%

function cloneSet(image: string): KubeObject {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: 'big', namespace: 'default' },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: { app: 'big' } },
      template: { metadata: { labels: { app: 'big' } }, spec: { containers: [{ name: 'app', image }] } },
      updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: '20%' },
    },
  };
}

test(`a ${REPLICAS}-pod CloneSet is created over several turns of the event loop, and its in-place update (limitUpdateIndexes, pkg/controller/cloneset/sync/cloneset_update.go) never has more than maxUnavailable=${MAX_UNAVAILABLE} pods unready`, { timeout: 240_000 }, async (t) => {
  const sim = startSim([createCloneSetController()], { settings: { readyDelayMs: 20, nodes: 10 } });
  // Turns of the event loop, counted by a setImmediate chain, and the turns in which pods were created.
  let turn = 0;
  let ticking = true;
  const tick = () => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const createTurns = new Set<number>();
  const unready = new Set<string>();
  let maxUnready = 0;
  let updating = false;
  const unsubscribe = sim.store.subscribe((ev) => {
    if (ev.gr.resource !== 'pods') return;
    // Every pod write costs at least 0.1 ms here, as serving it to a few watchers does in the
    // sandbox, so creating 2,000 pods takes longer than one sync's budget on any machine.
    const end = performance.now() + 0.1;
    while (performance.now() < end) {
      /* spin */
    }
    const pod = ev.object as Pod;
    if (ev.type === 'ADDED') createTurns.add(turn);
    if (!updating) return;
    const name = pod.metadata.name ?? '';
    if (ev.type !== 'DELETED' && !isPodReady(pod)) unready.add(name);
    else unready.delete(name);
    maxUnready = Math.max(maxUnready, unready.size);
  });
  try {
    sim.store.create(CLONESETS, cloneSet('nginx:1.25'));
    type Status = { readyReplicas?: number; updatedReadyReplicas?: number; updateRevision?: string; observedGeneration?: number };
    const readyOf = (): Status => (sim.store.get(CLONESETS, 'default', 'big')?.status as Status | undefined) ?? {};
    await waitFor('all pods ready', () => readyOf().readyReplicas === REPLICAS, 120_000, 50);
    // One uncut sync would have created all of them within one turn.
    assert.ok(createTurns.size >= 2, `pods created within ${createTurns.size} turn(s) of the event loop`);

    updating = true;
    const cs = sim.store.get(CLONESETS, 'default', 'big')!;
    const spec = cs.spec as { template: { spec: { containers: Array<{ name: string; image: string }> } } };
    const written = sim.store.update(CLONESETS, { ...cs, spec: { ...spec, template: { ...spec.template, spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] } } } });
    const oldRevision = readyOf().updateRevision;
    await waitFor('the update to finish', () => {
      const s = readyOf();
      return s.observedGeneration === written.metadata.generation && s.updateRevision !== oldRevision && s.updatedReadyReplicas === REPLICAS && s.readyReplicas === REPLICAS;
    }, 120_000, 50);
    t.diagnostic(`created within ${createTurns.size} turns; at most ${maxUnready} pods unready during the update`);
    assert.ok(maxUnready > 0, 'the update made pods unready (in place)');
    assert.ok(maxUnready <= MAX_UNAVAILABLE, `${maxUnready} pods unready at once`);
    const pods = sim.store.list(PODS).filter((p) => p.metadata.labels?.app === 'big') as Pod[];
    assert.equal(pods.length, REPLICAS);
    assert.ok(pods.every((p) => p.spec.containers[0]!.image === 'nginx:1.26' && isPodReady(p)));
  } finally {
    ticking = false;
    unsubscribe();
    sim.stop();
  }
});
