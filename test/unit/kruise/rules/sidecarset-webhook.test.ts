// The SidecarSet webhooks' defaults and validation against rows of Kruise v1.9.0's
// pkg/webhook/sidecarset/validating/sidecarset_validating_test.go (test names cited).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../../src/kruise/types';
import { selectorsOverlap, sidecarSetDefaults, validateSidecarSet } from '../../../../src/kruise/rules/sidecarset-webhook';

const ss = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'apps.kruise.io/v1beta1', kind: 'SidecarSet', metadata: { name }, spec });
const coldContainer = { name: 'test-sidecar', image: 'test-image', podInjectPolicy: 'BeforeAppContainer', shareVolumePolicy: { type: 'disabled' }, upgradeStrategy: { upgradeType: 'ColdUpgrade' } };

test('TestValidateSidecarSet missing-selector: 1 error', () => {
  const errs = validateSidecarSet(ss('test-sidecarset', { updateStrategy: { type: 'NotUpdate' }, containers: [coldContainer] }), undefined, []);
  assert.deepEqual(errs.map((e) => `${e.field}: ${e.detail}`), ['spec.selector: no selector defined for SidecarSet']);
});

test('TestValidateSidecarSet missing-container: 1 error', () => {
  const errs = validateSidecarSet(ss('test-sidecarset', { selector: { matchLabels: { a: 'b' } }, updateStrategy: { type: 'NotUpdate' } }), undefined, []);
  assert.equal(errs.length, 1);
  assert.equal(errs[0].detail, 'no initContainer or container defined for SidecarSet');
});

test('TestValidateSidecarSet "The initContainer in-place upgrade is not currently supported.": 1 error', () => {
  const errs = validateSidecarSet(ss('test-sidecarset', {
    selector: { matchLabels: { a: 'b' } },
    updateStrategy: { type: 'RollingUpdate' },
    initContainers: [{ ...coldContainer, name: 'native', restartPolicy: 'Always' }],
  }), undefined, []);
  assert.deepEqual(errs.map((e) => e.detail), ['The initContainer in-place upgrade is not currently supported.']);
});

test('validateSidecarSetUpdateStrategy: partition and selector together, negative maxUnavailable', () => {
  const errs = validateSidecarSet(ss('s', { selector: { matchLabels: { a: 'b' } }, updateStrategy: { type: 'RollingUpdate', partition: 2, selector: { matchLabels: { x: 'y' } }, maxUnavailable: -1 }, containers: [coldContainer] }), undefined, []);
  assert.deepEqual(errs.map((e) => e.field), ['updateStrategy', 'spec.updateStrategy.maxUnavailable']);
});

test('validateSidecarContainerConflict: upgradeType immutable, a container added on update is "not found"', () => {
  const old = ss('s', { selector: { matchLabels: { a: 'b' } }, containers: [coldContainer] });
  const changed = ss('s', { selector: { matchLabels: { a: 'b' } }, containers: [{ ...coldContainer, upgradeStrategy: { upgradeType: 'HotUpgrade', hotUpgradeEmptyImage: 'empty' } }, { ...coldContainer, name: 'extra' }] });
  assert.deepEqual(validateSidecarSet(changed, old, []).map((e) => e.detail), ['container test-sidecar upgradeType is immutable', 'container extra is not found']);
});

const conflictRows: Array<{ name: string; mine: Record<string, unknown>; other: Record<string, unknown>; expect: number }> = [
  {
    name: 'test1',
    mine: { selector: { matchLabels: { a: 'b' } }, containers: [{ ...coldContainer, name: 'container-name' }], initContainers: [{ ...coldContainer, name: 'init-name' }], volumes: [{ name: 'volume-name' }] },
    other: { selector: { matchLabels: { a: 'b' } }, containers: [{ ...coldContainer, name: 'container-name' }], initContainers: [{ ...coldContainer, name: 'init-name' }], volumes: [{ name: 'volume-name' }] },
    expect: 2,
  },
  {
    name: 'test2',
    mine: { selector: { matchLabels: { a: 'b' } }, namespaceSelector: { matchLabels: { app: 'nginx' } }, containers: [{ ...coldContainer, name: 'container-name' }] },
    other: { selector: { matchLabels: { a: 'b' } }, namespaceSelector: { matchLabels: { app: 'nginx' } }, containers: [{ ...coldContainer, name: 'container-name' }] },
    expect: 1,
  },
  {
    name: 'test3',
    mine: { selector: { matchLabels: { a: 'b' } }, namespaceSelector: { matchLabels: { app: 'nginx' } }, containers: [{ ...coldContainer, name: 'container-name' }] },
    other: { selector: { matchLabels: { a: 'b' } }, namespaceSelector: { matchLabels: { app: 'redis' } }, containers: [{ ...coldContainer, name: 'container-name' }] },
    expect: 0,
  },
];
for (const row of conflictRows) {
  test(`TestSidecarSetNameConflict ${row.name}: ${row.expect} error(s)`, () => {
    assert.equal(validateSidecarSet(ss('sidecarset2', row.mine), undefined, [ss('sidecarset1', row.other)]).length, row.expect);
  });
}

test('TestSelectorConflict (pkg/util/selector.go IsSelectorOverlapping): equal overlap, different values do not, different keys do', () => {
  assert.equal(selectorsOverlap({ matchLabels: { a: 'h' } }, { matchLabels: { a: 'h' } }), true);
  assert.equal(selectorsOverlap({ matchLabels: { a: 'h' } }, { matchLabels: { a: 'i' } }), false);
  assert.equal(selectorsOverlap({ matchLabels: { a: 'h' } }, { matchLabels: { b: 'i' } }), true);
  assert.equal(selectorsOverlap({ matchLabels: { a: 'h' } }, { matchExpressions: [{ key: 'a', operator: 'In', values: ['h', 'i'] }] }), true);
});

test('SetDefaultsSidecarSetV1beta1: strategy, containers BeforeAppContainer, init containers AfterAppContainer (v1.3: Before), container defaults, history limit', () => {
  const d = sidecarSetDefaults(ss('s', { selector: { matchLabels: { a: 'b' } }, containers: [{ name: 'c', image: 'x:1' }], initContainers: [{ name: 'i', image: 'y' }] }), 'v1.9');
  const spec = d.spec as Record<string, any>;
  assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', maxUnavailable: 1, partition: 0 });
  assert.deepEqual(spec.containers[0], {
    name: 'c', image: 'x:1', podInjectPolicy: 'BeforeAppContainer', upgradeStrategy: { upgradeType: 'ColdUpgrade' }, shareVolumePolicy: { type: 'disabled' },
    terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent',
  });
  assert.equal(spec.initContainers[0].podInjectPolicy, 'AfterAppContainer');
  assert.equal(spec.initContainers[0].imagePullPolicy, 'Always', 'no tag means latest');
  // a digest without a tag is not "latest" (it pulled Always), and ports get TCP (setDefaultContainer)
  const pinned = sidecarSetDefaults(ss('s', { containers: [{ name: 'c', image: 'x@sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', ports: [{ containerPort: 80 }] }] }), 'v1.9').spec as Record<string, any>;
  assert.equal(pinned.containers[0].imagePullPolicy, 'IfNotPresent');
  assert.deepEqual(pinned.containers[0].ports, [{ containerPort: 80, protocol: 'TCP' }]);
  assert.equal(spec.revisionHistoryLimit, 10);
  const v13 = sidecarSetDefaults(ss('s', { initContainers: [{ name: 'i', image: 'y' }] }), 'v1.3').spec as Record<string, any>;
  assert.equal(v13.initContainers[0].podInjectPolicy, 'BeforeAppContainer');
});
