// The KruisePodReady gate on the sandbox's store: CloneSet pods get it and the condition True;
// a bare pod gets it only with kruise-manager's KruisePodReadinessGate feature gate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { waitFor } from '../../../helpers/memory-store';
import { CLONESETS, createCloneSetController } from '../../../../src/sandbox/controllers/cloneset';
import { PODS } from '../../../../src/sandbox/controllers/pods';
import { createPodReadinessController } from '../../../../src/sandbox/controllers/pod-readiness';
import type { Pod } from '../../../../src/kruise/types';
import { fixture, startSim } from './cloneset-harness';

const barePod = () => parse(readFileSync(join(import.meta.dirname, '../../../fixtures/sandbox-controllers/pod-web-0.yaml'), 'utf8')) as Pod;
const gates = (p: Pod) => ((p.spec.readinessGates ?? []) as Array<{ conditionType: string }>).map((g) => g.conditionType);
const kruiseReady = (p: Pod | undefined) => p?.status?.conditions?.find((c) => c.type === 'KruisePodReady')?.status;

test('injectPodReadinessGate (pkg/webhook/pod/mutating/pod_readiness.go) + podreadiness Reconcile: a CloneSet pod gets KruisePodReady True and is Ready; a bare pod gets no gate', async () => {
  const sim = startSim([createPodReadinessController(), createCloneSetController()]);
  try {
    const cs = fixture('cloneset-v1alpha1.yaml')[0];
    (cs.spec as { replicas: number }).replicas = 1;
    sim.store.create(CLONESETS, cs);
    sim.store.create(PODS, barePod());
    const p = await waitFor('CloneSet pod ready', () => {
      const list = (sim.store.list(PODS, { namespace: 'default' }) as Pod[]).filter((x) => x.metadata.name !== 'web-0');
      return list.length === 1 && list[0].status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? list[0] : undefined;
    }, 5000);
    assert.ok(gates(p).includes('KruisePodReady'));
    assert.equal(kruiseReady(p), 'True');
    const bare = sim.store.get(PODS, 'default', 'web-0') as Pod;
    assert.deepEqual(gates(bare), []);
    assert.equal(kruiseReady(bare), undefined);
  } finally {
    sim.stop();
  }
});

test('KruisePodReadinessGate=true (pkg/features/kruise_features.go: "inject KruisePodReady readiness-gate to all Pods"): a bare pod gets the gate and the condition True', async () => {
  const sim = startSim([createPodReadinessController()], { settings: { featureGates: { KruisePodReadinessGate: true } } });
  try {
    sim.store.create(PODS, barePod());
    const p = await waitFor('KruisePodReady True', () => {
      const x = sim.store.get(PODS, 'default', 'web-0') as Pod | undefined;
      return kruiseReady(x) === 'True' ? x : undefined;
    }, 5000);
    assert.deepEqual(gates(p!), ['KruisePodReady']);
  } finally {
    sim.stop();
  }
});
