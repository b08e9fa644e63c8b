// What a workload's own partition keeps of the revision `rollout undo` leaves (src/kruise/rules/undo-partition.ts):
// CloneSet counts pods not at the update revision (cloneset_update.go calculateDiffsWithExpectation), a StatefulSet
// keeps its ordinals below the partition (stateful_set_control.go updateStatefulSet), a UD each subset by its kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keptAfterUndo, keptAfterUndoText, partitionMayKeep } from '../../../../src/kruise/rules/undo-partition';
import { adapterFor } from '../../../../src/kruise/workloads/index';
import { revisionSourceFor, type Revision } from '../../../../src/kruise/revisions';
import type { KubeObject, Pod } from '../../../../src/kruise/types';

function pod(name: string, labels: Record<string, string>): Pod {
  return { metadata: { name, namespace: 'default', labels }, spec: { containers: [{ name: 'app', image: 'x' }] }, status: { phase: 'Running' } } as Pod;
}
const left = (name: string): Revision => ({ revision: 2, name, hash: name.slice(name.lastIndexOf('-') + 1), template: {}, object: { metadata: {} } });

const cloneSet = (partition: unknown): KubeObject => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name: 'web', namespace: 'default' },
  spec: { replicas: 6, selector: { matchLabels: { app: 'web' } }, template: {}, updateStrategy: { partition } },
  status: { updateRevision: 'web-7b5d6c9f4' },
});

test('CloneSet partition 50% of 6 keeps 3 pods of the revision left, even with 4 there; none without a partition', () => {
  const a = adapterFor(cloneSet('50%'))!;
  const pods = ['a', 'b', 'c', 'd'].map((n) => pod(`web-${n}`, { 'controller-revision-hash': 'web-7b5d6c9f4' }));
  const kept = keptAfterUndo(a, cloneSet('50%'), pods, left('web-7b5d6c9f4'), revisionSourceFor('CloneSet'));
  assert.deepEqual(kept, [{ partition: '50%', kept: 3 }]);
  assert.equal(keptAfterUndoText(kept[0]!, 2, ['nginx:1.27']), 'partition 50% keeps 3 pods at revision 2 (nginx:1.27): set partition 0 to roll them back');
  assert.equal(partitionMayKeep(a, cloneSet(undefined)), false);
  assert.deepEqual(keptAfterUndo(a, cloneSet('50%'), [pod('web-x', { 'controller-revision-hash': 'web-other' })], left('web-7b5d6c9f4'), revisionSourceFor('CloneSet')), []);
});

test('Advanced StatefulSet partition 2 of 4: only ordinals 0 and 1 at the revision left stay on it', () => {
  const asts: KubeObject = {
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace: 'default' },
    spec: { replicas: 4, selector: { matchLabels: { app: 'db' } }, template: {}, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } },
  };
  const a = adapterFor(asts)!;
  const pods = ['db-1', 'db-2', 'db-3'].map((n) => pod(n, { 'controller-revision-hash': 'db-5f6d7c8b9' }));
  assert.deepEqual(keptAfterUndo(a, asts, pods, left('db-5f6d7c8b9'), revisionSourceFor('AdvancedStatefulSet')), [{ partition: '2', kept: 1 }]);
});

test('UnitedDeployment of CloneSets: subset zone-a partition 1 keeps its one pod of the revision left; zone-b has none', () => {
  const ud: KubeObject = {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'UnitedDeployment',
    metadata: { name: 'ud2', namespace: 'default' },
    spec: {
      replicas: 6,
      selector: { matchLabels: { app: 'ud2' } },
      template: { cloneSetTemplate: { spec: { template: {} } } },
      topology: { subsets: [{ name: 'zone-a', replicas: 2 }, { name: 'zone-b', replicas: 4 }] },
      updateStrategy: { type: 'Manual', manualUpdate: { partitions: { 'zone-a': 1 } } },
    },
    status: { subsetReplicas: { 'zone-a': 2, 'zone-b': 4 } },
  };
  const a = adapterFor(ud)!;
  const at = { 'apps.kruise.io/controller-revision-hash': 'ud2-6c4f9b7d8' };
  const pods = [pod('p1', { ...at, 'apps.kruise.io/subset-name': 'zone-a' }), pod('p2', { ...at, 'apps.kruise.io/subset-name': 'zone-b' })];
  const kept = keptAfterUndo(a, ud, pods, left('ud2-6c4f9b7d8'), revisionSourceFor('UnitedDeployment'));
  assert.deepEqual(kept, [{ subset: 'zone-a', partition: '1', kept: 1 }]);
  assert.equal(keptAfterUndoText(kept[0]!, 3, ['nginx:1.27']), 'subset "zone-a"\'s partition 1 keeps 1 pod at revision 3 (nginx:1.27): set spec.updateStrategy.manualUpdate.partitions.zone-a to 0 to roll it back');
  assert.equal(partitionMayKeep(a, ud), true);
});
