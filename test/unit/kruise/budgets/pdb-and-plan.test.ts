// PodDisruptionBudget status and eviction (src/kruise/rules/pdb.ts, after kube's
// pkg/controller/disruption and pkg/registry/core/pod/storage/eviction.go) and the planner API
// (src/kruise/budgets.ts budgetHeadroom / planAroundBudgets) on test/fixtures/budgets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computePdbStatus, evictionDecision } from '../../../../src/kruise/rules/pdb';
import { budgetHeadroom, planAroundBudgets, refusedPods } from '../../../../src/kruise/budgets';
import type { KubeObject, Pod } from '../../../../src/kruise/types';
import { fixtureObject, podCopy } from './helpers';

const NOW = new Date('2026-11-29T00:10:00Z');
const pods = (n: number, edit?: (p: Pod, i: number) => void): Pod[] => Array.from({ length: n }, (_, i) => podCopy('pdb-demo.yaml', `web-${i}`, (p) => edit?.(p, i)));
const pdb = (): KubeObject => fixtureObject('pdb-demo.yaml', 'PodDisruptionBudget');
const cloneset = (): KubeObject => fixtureObject('pdb-demo.yaml', 'CloneSet');

test('PDB minAvailable 2 over 3 ready pods: 1 disruption allowed; with one unready, none', () => {
  const s = computePdbStatus(pdb(), pods(3), [cloneset()], NOW);
  assert.deepEqual(
    { expectedPods: s.expectedPods, currentHealthy: s.currentHealthy, desiredHealthy: s.desiredHealthy, disruptionsAllowed: s.disruptionsAllowed, observedGeneration: s.observedGeneration, reason: s.conditions?.[0]?.reason },
    { expectedPods: 3, currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1, observedGeneration: 1, reason: 'SufficientPods' },
  );
  const t = computePdbStatus(pdb(), pods(3, (p, i) => i === 0 && (p.status!.conditions![0]!.status = 'False')), [cloneset()], NOW);
  assert.equal(t.disruptionsAllowed, 0);
  assert.equal(t.conditions?.[0]?.reason, 'InsufficientPods');
});

test('PDB maxUnavailable counts the owner CloneSet scale (expectedPods 3 with 2 pods present)', () => {
  const budget = pdb();
  budget.spec = { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } };
  const s = computePdbStatus(budget, pods(2), [cloneset()], NOW);
  assert.deepEqual([s.expectedPods, s.desiredHealthy, s.currentHealthy, s.disruptionsAllowed], [3, 2, 2, 0]);
});

test('eviction: 429 naming the budget when no disruption is allowed; spends one and records the pod otherwise', () => {
  const budget = pdb();
  budget.status = { ...computePdbStatus(budget, pods(3), [cloneset()], NOW), disruptionsAllowed: 0, currentHealthy: 2 };
  const refused = evictionDecision(pods(1)[0]!, [budget], { now: NOW });
  assert.equal(refused.allowed, false);
  if (!refused.allowed) {
    assert.equal(refused.code, 429);
    assert.equal(refused.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.equal(refused.cause?.message, 'The disruption budget web-pdb needs 2 healthy pods and has 2 currently');
  }
  budget.status = computePdbStatus(budget, pods(3), [cloneset()], NOW);
  const ok = evictionDecision(pods(1)[0]!, [budget], { now: NOW });
  assert.equal(ok.allowed, true);
  if (ok.allowed) {
    assert.equal(ok.status?.disruptionsAllowed, 0);
    assert.deepEqual(Object.keys(ok.status?.disruptedPods ?? {}), ['web-0']);
  }
  // a stale status (observedGeneration behind) is refused until the controller catches up
  budget.metadata.generation = 2;
  const stale = evictionDecision(pods(1)[0]!, [budget], { now: NOW });
  assert.equal(stale.allowed === false && stale.cause?.message, 'The disruption budget web-pdb is still being processed by the server.');
});

test('planAroundBudgets: a PUB of 4 at maxUnavailable 1 lets one pod go, three wait with the webhook message', () => {
  const ws = pods(4);
  const cs = cloneset();
  (cs.spec as { replicas: number }).replicas = 4;
  const pub: KubeObject = {
    apiVersion: 'policy.kruise.io/v1alpha1',
    kind: 'PodUnavailableBudget',
    metadata: { name: 'web-pub', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'web' } }, maxUnavailable: 1 },
  };
  const budgets = budgetHeadroom({ pods: ws, pubs: [pub], workloads: [cs] }, { release: 'v1.8', now: NOW });
  assert.deepEqual(budgets.map((b) => [b.kind, b.totalReplicas, b.desiredAvailable, b.currentAvailable, b.unavailableAllowed]), [['PodUnavailableBudget', 4, 3, 4, 1]]);
  const plan = planAroundBudgets('DELETE', ws, budgets);
  assert.deepEqual(plan.allowed, ['web-0']);
  assert.deepEqual(plan.waiting.map((w) => w.pod), ['web-1', 'web-2', 'web-3']);
  assert.equal(plan.waiting[0]!.message, 'admission webhook "vpod.kb.io" denied the request: podunavailablebudget.policy.kruise.io "web-pub" is forbidden: pub unavailable allowed is negative');
  // an unready pod costs nothing; the annotation limiting protection to EVICT lets deletes through
  const unready = pods(4, (p, i) => i === 3 && (p.status!.conditions![0]!.status = 'False'));
  assert.deepEqual(planAroundBudgets('DELETE', [unready[3]!, ...unready.slice(0, 3)], budgetHeadroom({ pods: unready, pubs: [pub], workloads: [cs] }, { release: 'v1.8', now: NOW })).allowed, ['web-3']);
  pub.metadata.annotations = { 'kruise.io/pub-protect-operations': 'EVICT' };
  assert.deepEqual(refusedPods('DELETE', ws, budgetHeadroom({ pods: ws, pubs: [pub], workloads: [cs] }, { release: 'v1.8', now: NOW })), []);
  assert.equal(refusedPods('EVICT', ws, budgetHeadroom({ pods: ws, pubs: [pub], workloads: [cs] }, { release: 'v1.8', now: NOW })).length, 3);
});
