// Server-side printing: kube's age format, kubectl's pod STATUS logic, CRD printer columns
// through JSONPath (including escaped dots in label keys).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonPathValues } from '../../../../src/sandbox/server/jsonpath';
import { humanDuration, podStatusReason } from '../../../../src/sandbox/server/tables';

describe('humanDuration', () => {
  const cases: Array<[number, string]> = [
    [5_000, '5s'],
    [119_000, '119s'],
    [125_000, '2m5s'],
    [600_000, '10m'],
    [3 * 3600_000 + 5 * 60_000, '3h5m'],
    [30 * 3600_000, '30h'],
    [3 * 86400_000 + 4 * 3600_000, '3d4h'],
    [40 * 86400_000, '40d'],
    [-500, '0s'],
  ];
  for (const [ms, want] of cases) it(`${ms} ms → ${want}`, () => assert.equal(humanDuration(ms), want));
});

describe('pod STATUS column', () => {
  const pod = (status: object, extra: object = {}) => ({ metadata: { name: 'p', ...extra }, spec: { containers: [{ name: 'a' }, { name: 'b' }] }, status });
  it('counts ready containers and restarts', () => {
    const s = podStatusReason(pod({ phase: 'Running', containerStatuses: [{ name: 'a', ready: true, restartCount: 2, state: { running: {} } }, { name: 'b', ready: false, restartCount: 1, state: { running: {} } }] }));
    assert.deepEqual(s, { reason: 'Running', ready: 1, total: 2, restarts: 3 });
  });
  it('shows a waiting reason such as ImagePullBackOff or CrashLoopBackOff', () => {
    assert.equal(podStatusReason(pod({ phase: 'Pending', containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } } }] })).reason, 'ImagePullBackOff');
    assert.equal(podStatusReason(pod({ phase: 'Running', containerStatuses: [{ name: 'a', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }] })).reason, 'CrashLoopBackOff');
  });
  it('shows Terminating once deletionTimestamp is set, and init progress', () => {
    assert.equal(podStatusReason(pod({ phase: 'Running' }, { deletionTimestamp: '2026-01-01T00:00:00Z' })).reason, 'Terminating');
    const init = { metadata: { name: 'p' }, spec: { containers: [{ name: 'a' }], initContainers: [{ name: 'i' }] }, status: { phase: 'Pending', initContainerStatuses: [{ name: 'i', ready: false, restartCount: 0, state: { running: {} } }] } };
    assert.equal(podStatusReason(init).reason, 'Init:0/1');
  });
});

describe('printer-column JSONPath', () => {
  const obj = {
    metadata: { labels: { 'crr.apps.kruise.io/node-name': 'node-2' } },
    spec: { template: { spec: { containers: [{ name: 'a', image: 'x:1' }, { name: 'b', image: 'y:2' }] } } },
    status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Progressing', status: 'False' }] },
  };
  it('follows fields, wildcards, indexes and filters', () => {
    assert.deepEqual(jsonPathValues(obj, '.spec.template.spec.containers[*].image'), ['x:1', 'y:2']);
    assert.deepEqual(jsonPathValues(obj, '.spec.template.spec.containers[1].name'), ['b']);
    assert.deepEqual(jsonPathValues(obj, '.status.conditions[?(@.type=="Ready")].status'), ['True']);
    assert.deepEqual(jsonPathValues(obj, '{.status.missing}'), []);
  });
  it('reads label keys with escaped dots', () => {
    assert.deepEqual(jsonPathValues(obj, '.metadata.labels.crr\\.apps\\.kruise\\.io/node-name'), ['node-2']);
  });
});
