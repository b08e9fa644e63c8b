// The planners' view of budgets (src/kruise/budgets.ts): headroom read from status (what the webhook
// reads), the headroom a scale-down frees, and how many pods a drain may remove now (migrate).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { budgetHeadroomFromStatus, headroomAfterScaleDown, planAroundBudgets, removableNow, waitingLine } from '../../../../src/kruise/budgets';
import type { KubeObject, Pod } from '../../../../src/kruise/types';
import { podCopy } from './helpers';

const pods = (n: number, edit?: (p: Pod, i: number) => void): Pod[] => Array.from({ length: n }, (_, i) => podCopy('pdb-demo.yaml', `web-${i}`, (p) => edit?.(p, i)));
const pub = (spec: Record<string, unknown>, status: Record<string, unknown>, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'policy.kruise.io/v1alpha1',
  kind: 'PodUnavailableBudget',
  metadata: { name: 'web-pub', namespace: 'default', ...(annotations ? { annotations } : {}) },
  spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
  status,
});

test('budgetHeadroomFromStatus: the PUB status numbers, its pods by related-pub annotation, what it protects', () => {
  const ps = pods(3, (p, i) => i < 2 && (p.metadata.annotations = { 'kruise.io/related-pub': 'web-pub' }));
  const [h] = budgetHeadroomFromStatus({ pods: ps, pubs: [pub({ maxUnavailable: 1 }, { totalReplicas: 3, desiredAvailable: 2, currentAvailable: 3, unavailableAllowed: 1, disruptedPods: { 'web-9': 'x' } })] }, { release: 'v1.9' });
  assert.deepEqual(
    [h!.selectedPods, h!.unavailableAllowed, h!.disruptedPods, h!.protects],
    [['web-0', 'web-1'], 1, ['web-9'], ['DELETE', 'EVICT', 'UPDATE', 'RESIZE']],
  );
  const plan = planAroundBudgets('DELETE', ps, [h!]);
  assert.deepEqual([plan.allowed, plan.waiting.map((w) => w.pod)], [['web-0', 'web-2'], ['web-1']]);
  assert.equal(waitingLine(plan.waiting[0]!, [h!]), 'pod web-1 waits for PodUnavailableBudget web-pub (unavailableAllowed 1, taken by the pod before it: 3 available, 2 desired)');
});

test('headroomAfterScaleDown: maxUnavailable 1 of 4, removing 2 frees 2 (desired 3 → 1); a fixed total frees nothing', () => {
  const status = { totalReplicas: 4, desiredAvailable: 3, currentAvailable: 4, unavailableAllowed: 1 };
  const budget = pub({ maxUnavailable: 1 }, status);
  const [h] = budgetHeadroomFromStatus({ pods: pods(4), pubs: [budget] });
  assert.equal(headroomAfterScaleDown(h!, budget, 2).unavailableAllowed, 3);
  const fixed = pub({ maxUnavailable: 1 }, status, { 'pub.kruise.io/protect-total-replicas': '4' });
  assert.equal(headroomAfterScaleDown(budgetHeadroomFromStatus({ pods: pods(4), pubs: [fixed] })[0]!, fixed, 2).unavailableAllowed, 1);
  const minAvailable = pub({ minAvailable: 4 }, { totalReplicas: 4, desiredAvailable: 4, currentAvailable: 4, unavailableAllowed: 0 });
  assert.equal(headroomAfterScaleDown(budgetHeadroomFromStatus({ pods: pods(4), pubs: [minAvailable] })[0]!, minAvailable, 1).unavailableAllowed, 0);
});

test('removableNow: a drain of 3 under minAvailable 5 of 6 (allowed 1) may remove 1, and names the budget; no budget, all', () => {
  const labels = { app: 'web' };
  const budget = pub({ minAvailable: 5 }, { totalReplicas: 6, desiredAvailable: 5, currentAvailable: 6, unavailableAllowed: 1 });
  assert.deepEqual(removableNow([budget], { kind: 'Deployment', name: 'web', labels }, 3), {
    count: 1,
    limitedBy: { name: 'web-pub', unavailableAllowed: 1, currentAvailable: 6, desiredAvailable: 5 },
  });
  assert.deepEqual(removableNow([], { kind: 'Deployment', name: 'web', labels }, 3), { count: 3 });
  // a budget protecting only EVICT does not hold a controller's deletes
  const evictOnly = pub({ minAvailable: 5 }, { totalReplicas: 6, desiredAvailable: 5, currentAvailable: 6, unavailableAllowed: 0 }, { 'kruise.io/pub-protect-operations': 'EVICT' });
  assert.deepEqual(removableNow([evictOnly], { kind: 'Deployment', name: 'web', labels }, 3), { count: 3 });
});
