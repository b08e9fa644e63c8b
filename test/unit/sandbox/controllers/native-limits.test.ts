// The sandbox's Deployment rolls with the arithmetic `explain partition` shows (src/kruise).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveFenceposts } from '../../../../src/sandbox/controllers/deployment';
import { deploymentRollingLimits } from '../../../../src/kruise/partition';

test('Deployment maxSurge/maxUnavailable come from the shared arithmetic, defaults and fallback included', () => {
  const cases: Array<[number | undefined, unknown, unknown]> = [
    [10, undefined, undefined],
    [10, '30%', '10%'],
    [3, '25%', '25%'],
    [1, 0, 0],
    [7, 2, '50%'],
    [undefined, undefined, undefined],
  ];
  for (const [replicas, maxSurge, maxUnavailable] of cases) {
    const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } } } };
    const shared = deploymentRollingLimits({ replicas, maxSurge, maxUnavailable });
    assert.deepEqual(resolveFenceposts(d as never), { maxSurge: shared.maxSurge, maxUnavailable: shared.maxUnavailable }, JSON.stringify({ replicas, maxSurge, maxUnavailable }));
  }
  assert.deepEqual(resolveFenceposts({ metadata: { name: 'r' }, spec: { replicas: 4, strategy: { type: 'Recreate' } } } as never), { maxSurge: 0, maxUnavailable: 0 });
});
