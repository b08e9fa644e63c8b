// The sandbox's PodUnavailableBudget controller and pod webhooks (src/sandbox/controllers/pub.ts) with the
// Advanced StatefulSet controller on the in-memory store: an ASTS of 4 updating 2 pods at a time in place
// under a PUB of maxUnavailable 1 moves one pod per budget record (the webhook would refuse the second),
// and a controller-side delete of a ready pod beyond the budget is refused with Kruise's message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../../../helpers/memory-store';
import { ADVANCED_STATEFULSETS, createAdvancedStatefulSetController } from '../../../../src/sandbox/controllers/asts';
import { createPodUnavailableBudgetController } from '../../../../src/sandbox/controllers/pub';
import { PUBS } from '../../../../src/sandbox/controllers/pub-control';
import { PODS } from '../../../../src/sandbox/controllers/pods';
import type { KubeObject, Pod } from '../../../../src/kruise/types';
import { fixture, startSim } from './cloneset-harness';

const PUB: KubeObject = {
  apiVersion: 'policy.kruise.io/v1alpha1',
  kind: 'PodUnavailableBudget',
  metadata: { name: 'db-pub', namespace: 'default' },
  spec: { targetRef: { apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet', name: 'db' }, maxUnavailable: 1 },
};

test('ASTS in-place update under a PUB: one pod at a time although its maxUnavailable is 2; delete refused at no headroom', async () => {
  const sim = startSim([createAdvancedStatefulSetController(), createPodUnavailableBudgetController()], { settings: { kruise: 'v1.9', featureGates: { PodUnavailableBudgetUpdateGate: true } } });
  try {
    sim.store.create(ADVANCED_STATEFULSETS, fixture('asts-v1beta1.yaml')[0]!);
    sim.store.create(PUBS, structuredClone(PUB));
    const status = () => (sim.store.get(PUBS, 'default', 'db-pub')?.status ?? {}) as Record<string, any>;
    await waitFor('PUB counts 4 available', () => status().currentAvailable === 4 && status().unavailableAllowed === 1, 5000);
    const pods = () => (sim.store.list(PODS, { namespace: 'default' }) as Pod[]).filter((p) => !p.metadata.deletionTimestamp);
    assert.ok(pods().every((p) => p.metadata.annotations?.['kruise.io/related-pub'] === 'db-pub'));

    const sts = sim.store.get(ADVANCED_STATEFULSETS, 'default', 'db')!;
    (sts.spec as any).template.spec.containers[0].image = 'redis:7.4';
    sim.store.update(ADVANCED_STATEFULSETS, sts);
    const first = await waitFor('one pod updated', () => {
      const updated = pods().filter((p) => p.spec.containers[0]!.image === 'redis:7.4');
      return updated.length > 0 ? updated : undefined;
    }, 5000);
    // the ASTS would take 2; the budget lets 1 go, and the pod is recorded as unavailable for 10 s
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(pods().filter((p) => p.spec.containers[0]!.image === 'redis:7.4').length, 1);
    assert.deepEqual(Object.keys(status().unavailablePods ?? {}), [first[0]!.metadata.name]);

    // a delete of a ready, untouched pod now is refused as Kruise's webhook refuses it
    const other = pods().find((p) => p.spec.containers[0]!.image === 'redis:7.2' && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))!;
    assert.throws(() => sim.store.delete(PODS, 'default', other.metadata.name!), (err: Error & { code?: number }) => {
      assert.equal(err.code, 403);
      assert.equal(err.message, 'admission webhook "vpod.kb.io" denied the request: podunavailablebudget.policy.kruise.io "db-pub" is forbidden: pub unavailable allowed is negative');
      return true;
    });
  } finally {
    sim.stop();
  }
});
