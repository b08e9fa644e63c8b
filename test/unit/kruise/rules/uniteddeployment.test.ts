// UnitedDeployment rules, ported from Kruise's pkg/controller/uniteddeployment tests
// (allocator_test.go, uniteddeployment_controller_utils_test.go) plus the template and status rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allocateSpecific,
  allocateSubsetReplicas,
  applySubsetTemplate,
  nextPartitions,
  parseSubsetReplicas,
  subsetPrefix,
  unitedDeploymentStatus,
  SUBSET_NAME_LABEL,
  UD_REVISION_LABEL,
} from '../../../../src/kruise/rules/uniteddeployment';
import type { KubeObject } from '../../../../src/kruise/types';

/** Kruise's specificAllocator.String(): " name -> n;" in its sorted order (by replicas, then name). */
function render(rows: Array<{ name: string; replicas: number }>): string {
  const sorted = [...rows].sort((a, b) => (a.replicas !== b.replicas ? a.replicas - b.replicas : a.name < b.name ? -1 : 1));
  return sorted.map((r) => ` ${r.name} -> ${r.replicas};`).join('');
}

function alloc(expected: number, current: Record<string, number>, specified: Record<string, number> = {}): string {
  const rows = Object.entries(current).map(([name, replicas]) => ({ name, replicas }));
  try {
    return render(allocateSpecific(expected, rows, new Map(Object.entries(specified))));
  } catch {
    // AllocateReplicas leaves the subsets untouched on an invalid spec
    return render(rows);
  }
}

test('allocator_test.go TestScaleReplicas: the rest shared evenly, the remainder to the largest subsets', () => {
  assert.equal(alloc(5, { t1: 1, t2: 4, t3: 2, t4: 2 }), ' t1 -> 1; t3 -> 1; t4 -> 1; t2 -> 2;');
  assert.equal(alloc(0, { t1: 2 }), ' t1 -> 0;');
  assert.equal(alloc(17, { t1: 1, t2: 4, t3: 2, t4: 2 }), ' t1 -> 4; t3 -> 4; t4 -> 4; t2 -> 5;');
  assert.equal(alloc(9, { t1: 2, t2: 4, t3: 2, t4: 2 }), ' t1 -> 2; t3 -> 2; t4 -> 2; t2 -> 3;');
  assert.equal(alloc(19, { t1: 0, t2: 10 }), ' t1 -> 9; t2 -> 10;');
  assert.equal(alloc(21, { t1: 0, t2: 10 }), ' t1 -> 10; t2 -> 11;');
});

test('allocator_test.go TestSpecifyValidReplicas: specified subsets keep their count', () => {
  assert.equal(alloc(27, { t1: 1, t2: 4, t3: 2, t4: 2 }, { t1: 4, t3: 4 }), ' t1 -> 4; t3 -> 4; t4 -> 9; t2 -> 10;');
  assert.equal(alloc(8, { t1: 2, t2: 4, t3: 2, t4: 2 }, { t1: 4, t3: 4 }), ' t2 -> 0; t4 -> 0; t1 -> 4; t3 -> 4;');
  assert.equal(alloc(16, { t1: 2, t2: 4, t3: 2, t4: 2 }, { t1: 4, t2: 4, t3: 4, t4: 4 }), ' t1 -> 4; t2 -> 4; t3 -> 4; t4 -> 4;');
  assert.equal(alloc(10, { t1: 4, t2: 2, t3: 2, t4: 2 }, { t1: 1, t2: 2, t3: 3 }), ' t1 -> 1; t2 -> 2; t3 -> 3; t4 -> 4;');
  assert.equal(alloc(10, { t1: 4, t2: 2, t3: 2, t4: 2 }, { t1: 1, t2: 2, t3: 3, t4: 4 }), ' t1 -> 1; t2 -> 2; t3 -> 3; t4 -> 4;');
  assert.equal(alloc(-1, { t1: 4, t2: 2, t3: 2, t4: 2 }, { t1: 1, t2: 2, t3: 3, t4: 4 }), ' t1 -> 1; t2 -> 2; t3 -> 3; t4 -> 4;');
});

test('allocator_test.go TestSpecifyInvalidReplicas: an over- or under-specified spec changes nothing', () => {
  assert.equal(alloc(14, { t1: 10, t2: 4 }, { t1: 6, t2: 6 }), ' t2 -> 4; t1 -> 10;');
  assert.equal(alloc(14, { t1: 10, t2: 4 }, { t1: 10, t2: 11 }), ' t2 -> 4; t1 -> 10;');
  assert.throws(() => allocateSpecific(14, [{ name: 't1', replicas: 10 }, { name: 't2', replicas: 4 }], new Map([['t1', 6], ['t2', 6]])), /is less than UnitedDeployment replica \(14\)/);
  assert.throws(() => allocateSpecific(-1, [{ name: 't1', replicas: 1 }, { name: 't2', replicas: 1 }], new Map([['t1', 6]])), /all subsets must be specified/);
});

function minMaxUd(replicas: number, min: number[], max: number[]): KubeObject {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'UnitedDeployment',
    metadata: { name: 'ud' },
    spec: {
      replicas,
      topology: { subsets: min.map((m, i) => ({ name: `subset-${i}`, minReplicas: m, ...(max[i] !== -1 ? { maxReplicas: max[i] } : {}) })) },
    },
  };
}

test('allocator_test.go TestCapacityAllocator: minimums first, then maximums, in subset order', () => {
  const rows: Array<[string, number, number[], number[], number[]]> = [
    ['sum_all_min_replicas == replicas', 10, [2, 2, 2, 2, 2], [5, 5, 5, 5, -1], [2, 2, 2, 2, 2]],
    ['sum_all_min_replicas < replicas', 14, [2, 2, 2, 2, 2], [5, 5, 5, 5, -1], [5, 3, 2, 2, 2]],
    ['sum_all_min_replicas > replicas', 5, [2, 2, 2, 2, 2], [5, 5, 5, 5, -1], [2, 2, 1, 0, 0]],
  ];
  for (const [name, replicas, min, max, want] of rows) {
    const got = allocateSubsetReplicas(minMaxUd(replicas, min, max), new Map());
    assert.deepEqual(want.map((_, i) => got.get(`subset-${i}`)), want, name);
  }
});

test('uniteddeployment_controller_utils.go ParseSubsetReplicas: ints, percentages rounded half up, errors', () => {
  assert.equal(parseSubsetReplicas(10, 3), 3);
  assert.equal(parseSubsetReplicas(10, '30%'), 3);
  assert.equal(parseSubsetReplicas(5, '30%'), 2); // 1.5 rounds up
  assert.equal(parseSubsetReplicas(5, '10%'), 1); // 0.5 rounds up
  assert.equal(parseSubsetReplicas(4, '10%'), 0);
  assert.throws(() => parseSubsetReplicas(-1, '30%'), /should not be string when unitedDeployment replicas is empty/);
  assert.throws(() => parseSubsetReplicas(10, '130%'), /should be in range \[0, 100\]/);
  assert.throws(() => parseSubsetReplicas(10, '3'), /only support integer value or percentage/);
  assert.throws(() => parseSubsetReplicas(10, -1), /should not be less than 0/);
});

const UD: KubeObject = {
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'UnitedDeployment',
  metadata: { name: 'web', namespace: 'default', uid: 'u-1' },
  spec: {
    replicas: 10,
    selector: { matchLabels: { app: 'web' } },
    template: {
      cloneSetTemplate: {
        metadata: { labels: { app: 'web' } },
        spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } } },
      },
    },
    topology: {
      subsets: [
        { name: 'a', replicas: 2, nodeSelectorTerm: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } },
        { name: 'b', replicas: '30%', tolerations: [{ key: 'dedicated', operator: 'Exists' }] },
        { name: 'c' },
      ],
    },
    updateStrategy: { type: 'Manual', manualUpdate: { partitions: { a: 1, b: 9 } } },
  },
};

test('subsets of 2, 30% and the rest of 10: 2, 3, 5; partitions capped at the subset replicas', () => {
  const next = allocateSubsetReplicas(UD, new Map());
  assert.deepEqual(Object.fromEntries(next), { a: 2, b: 3, c: 5 });
  assert.deepEqual(Object.fromEntries(nextPartitions(UD, next)), { a: 1, b: 3, c: 0 });
});

test('adapter/cloneset_adapter.go ApplySubsetTemplate: labels, selector, partition, affinity, tolerations, patch', () => {
  const subsets = (UD.spec as { topology: { subsets: Array<{ name: string }> } }).topology.subsets;
  const patched: unknown[] = [];
  const a = applySubsetTemplate(UD, subsets[0]!, 'web-5d9f', 2, 1, undefined, (t) => t);
  assert.equal(a.metadata.generateName, 'web-a-');
  assert.equal(a.metadata.labels?.[SUBSET_NAME_LABEL], 'a');
  assert.equal(a.metadata.labels?.[UD_REVISION_LABEL], 'web-5d9f');
  assert.equal(a.metadata.ownerReferences?.[0]?.uid, 'u-1');
  const spec = a.spec as Record<string, any>;
  assert.deepEqual(spec.selector, { matchLabels: { app: 'web', [SUBSET_NAME_LABEL]: 'a' } });
  assert.equal(spec.replicas, 2);
  assert.deepEqual(spec.updateStrategy, { partition: 1 });
  assert.deepEqual(spec.template.metadata.labels, { app: 'web', [SUBSET_NAME_LABEL]: 'a', [UD_REVISION_LABEL]: 'web-5d9f' });
  assert.deepEqual(spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, [
    { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
  ]);
  const b = applySubsetTemplate(UD, subsets[1]!, 'web-5d9f', 3, 0, undefined, (t, p) => (patched.push(p), t));
  assert.deepEqual((b.spec as Record<string, any>).template.spec.tolerations, [{ key: 'dedicated', operator: 'Exists' }]);
  assert.equal(patched.length, 0, 'no patch, no merge');
  // the UD's own template is not modified
  assert.equal(JSON.stringify(UD).includes('subset-name'), false);
});

test('getSubsetPrefix falls back to `<ud>-` when `<ud>-<subset>-` is not a valid name', () => {
  assert.equal(subsetPrefix('web', 'zone-a'), 'web-zone-a-');
  assert.equal(subsetPrefix('web', 'Zone_A'), 'web-');
});

test('calculateStatus: sums, per-subset partitions, currentRevision moves once every pod is updated and ready', () => {
  const base = {
    generation: 3,
    previousCurrentRevision: 'web-old',
    currentRevision: 'web-old',
    updatedRevision: 'web-new',
    nextReplicas: new Map([['a', 2], ['b', 3]]),
    nextPartitions: new Map([['a', 1], ['b', 0]]),
    withSubsetStatuses: true,
  };
  const rolling = unitedDeploymentStatus({
    ...base,
    subsets: [
      { name: 'a', replicas: 2, readyReplicas: 2, updatedReplicas: 1, updatedReadyReplicas: 1 },
      { name: 'b', replicas: 3, readyReplicas: 3, updatedReplicas: 3, updatedReadyReplicas: 3 },
    ],
  });
  assert.deepEqual(
    { r: rolling.replicas, ready: rolling.readyReplicas, u: rolling.updatedReplicas, ur: rolling.updatedReadyReplicas, cur: rolling.currentRevision },
    { r: 5, ready: 5, u: 4, ur: 4, cur: 'web-old' },
  );
  assert.deepEqual(rolling.updateStatus, { updatedRevision: 'web-new', currentPartitions: { a: 1, b: 0 } });
  assert.deepEqual(rolling.subsetReplicas, { a: 2, b: 3 });
  assert.deepEqual(rolling.subsetStatuses, [
    { name: 'a', replicas: 2, readyReplicas: 2, partition: 1 },
    { name: 'b', replicas: 3, readyReplicas: 3, partition: 0 },
  ]);
  const done = unitedDeploymentStatus({
    ...base,
    subsets: [
      { name: 'a', replicas: 2, readyReplicas: 2, updatedReplicas: 2, updatedReadyReplicas: 2 },
      { name: 'b', replicas: 3, readyReplicas: 3, updatedReplicas: 3, updatedReadyReplicas: 3 },
    ],
  });
  assert.equal(done.currentRevision, 'web-new');
  assert.equal(unitedDeploymentStatus({ ...base, withSubsetStatuses: false, subsets: [] }).subsetStatuses, undefined);
});
