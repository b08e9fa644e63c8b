// Rows of Kruise's own tables for the in-place update decision (pkg/util/inplaceupdate, v1.9.0 and
// master, identical files), run against our one implementation (rules/cloneset-inplace.ts +
// rules/inplace-vertical.ts), which the sandbox controllers and `--preview` both call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { inPlaceUpdateDecision, inPlaceUpdatePlan } from '../../../src/kruise/rules/cloneset-inplace';
import { podQosClass, resizeRestartsContainer, validateResourcePatch, type TemplatePatchOp } from '../../../src/kruise/rules/inplace-vertical';
import type { Container } from '../../../src/kruise/types';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'preview');
type Tpl = { metadata?: Record<string, unknown>; spec: { containers: Container[] } };

// --- inplace_update_test.go TestCalculateInPlaceUpdateSpec (cases #0–#6; InPlaceUpdateEnvFromMetadata on) ---
const c1 = (image: string, extra: Record<string, unknown> = {}): Container => ({ name: 'c1', image, ...extra });
const tpl = (containers: Container[], labels?: Record<string, string>, extraMeta: Record<string, unknown> = {}): Tpl => ({
  metadata: { ...(labels ? { labels } : {}), ...extraMeta },
  spec: { containers },
});

test('TestCalculateInPlaceUpdateSpec #0: no old revision → no in-place spec', () => {
  assert.equal(inPlaceUpdatePlan(undefined, tpl([c1('foo2')])), undefined);
});

test('TestCalculateInPlaceUpdateSpec #1, #2: only the image changed → ContainerImages {c1: foo2}', () => {
  // #2 differs only in labels on the revision object itself, outside the template: same answer.
  const plan = inPlaceUpdatePlan(tpl([c1('foo1')]), tpl([c1('foo2')]), { envFromMetadata: true });
  assert.deepEqual(plan?.containerImages, { c1: 'foo2' });
  assert.deepEqual(plan?.containerResources, {});
  assert.deepEqual(plan?.envFromMetadataContainers, []);
});

test('TestCalculateInPlaceUpdateSpec #3: image + a label added → metadata patch {labels: {k1: v1}}', () => {
  const plan = inPlaceUpdatePlan(tpl([c1('foo1')], { k: 'v' }), tpl([c1('foo2')], { k: 'v', k1: 'v1' }), { envFromMetadata: true });
  assert.deepEqual(plan?.containerImages, { c1: 'foo2' });
  assert.deepEqual(plan?.labels, { k1: 'v1' });
  assert.deepEqual(plan?.envFromMetadataContainers, []);
});

test('TestCalculateInPlaceUpdateSpec #4: env reads metadata.labels[k], k changes → c1 restarts (UpdateEnvFromMetadata)', () => {
  const env = [{ name: 'TEST_ENV', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.labels['k']" } } }];
  const plan = inPlaceUpdatePlan(tpl([c1('foo1', { env })], { k: 'v' }), tpl([c1('foo2', { env })], { k: 'v2', k1: 'v1' }), { envFromMetadata: true });
  assert.deepEqual(plan?.containerImages, { c1: 'foo2' });
  assert.deepEqual(plan?.envFromMetadataContainers, ['c1']);
  assert.equal(plan?.labels.k1, 'v1');
  // gate off (v1.3): the label still changes on the pod, no container restarts for it
  const off = inPlaceUpdatePlan(tpl([c1('foo1', { env })], { k: 'v' }), tpl([c1('foo2', { env })], { k: 'v2' }), { envFromMetadata: false });
  assert.deepEqual(off?.envFromMetadataContainers, []);
});

test('TestCalculateInPlaceUpdateSpec #5: labels and finalizers change with the image → still in place', () => {
  const plan = inPlaceUpdatePlan(
    tpl([c1('foo1')], { k: 'v', k2: 'v2' }, { finalizers: ['fz1', 'fz2'] }),
    tpl([c1('foo2')], { k: 'v', k1: 'v1' }, { finalizers: ['fz2'] }),
  );
  assert.deepEqual(plan?.containerImages, { c1: 'foo2' });
  assert.deepEqual(plan?.labels, { k1: 'v1', k2: null });
});

test('TestCalculateInPlaceUpdateSpec #6: a pod-spec field and a container env change → recreate (nil)', () => {
  const d = inPlaceUpdateDecision({ spec: { name: 'c1', containers: [{ image: 'foo1' }] } } as unknown as Tpl, tpl([c1('foo2', { env: [{ name: 'k', value: 'v' }] })]));
  assert.equal(d.inPlace, false);
});

// --- inplace_update_defaults_test.go TestDefaultCalculateInPlaceUpdateSpec (getFakeControllerRevisionData) ---
const base = (parse(readFileSync(join(FIXTURES, 'kruise-vertical-revision.yaml'), 'utf8')) as { data: { spec: { template: Tpl } } }).data.spec.template;

/** revisionGetter / qosRevisionGetter: the first `n` containers changed like the Go test's strings.Replace. */
function revision(n: number, change: { image?: boolean; resource?: boolean; qos?: boolean; other?: boolean }): Tpl {
  const t = structuredClone(base);
  for (const c of t.spec.containers.slice(0, n)) {
    if (change.image) c.image = 'nginx:stable-alpine23';
    if (change.resource) {
      c.resources!.requests!.cpu = '2';
      if (change.qos) c.resources!.requests!.memory = '4Gi';
    }
    if (change.other) c.imagePullPolicy = '222';
  }
  return t;
}

const VPA = { verticalScaling: true };
const rows: Array<[string, Tpl, { images?: Record<string, string>; resources?: Record<string, Record<string, Record<string, string>>> } | null]> = [
  ['only change resource', revision(1, { resource: true }), { resources: { nginx: { requests: { cpu: '2' } } } }],
  ['change image and resource', revision(1, { image: true, resource: true }), { images: { nginx: 'nginx:stable-alpine23' }, resources: { nginx: { requests: { cpu: '2' } } } }],
  ['change other and resource', revision(1, { resource: true, other: true }), null],
  ['change all', revision(1, { image: true, resource: true, other: true }), null],
  ['only change resource of two containers', revision(2, { resource: true }), { resources: { nginx: { requests: { cpu: '2' } }, nginx2: { requests: { cpu: '2' } } } }],
  [
    'change image and resource of two containers',
    revision(2, { image: true, resource: true }),
    { images: { nginx: 'nginx:stable-alpine23', nginx2: 'nginx:stable-alpine23' }, resources: { nginx: { requests: { cpu: '2' } }, nginx2: { requests: { cpu: '2' } } } },
  ],
  ['change other and resource of two containers', revision(2, { resource: true, other: true }), null],
  ['change all of two containers', revision(2, { image: true, resource: true, other: true }), null],
  ['change qos of two containers', revision(2, { resource: true, qos: true }), null],
  ['change qos of one containers(Burstable->Burstable)', revision(1, { resource: true, qos: true }), { resources: { nginx: { requests: { cpu: '2', memory: '4Gi' } } } }],
  [
    'change qos and image of one containers(Burstable->Burstable)',
    revision(1, { image: true, resource: true, qos: true }),
    { images: { nginx: 'nginx:stable-alpine23' }, resources: { nginx: { requests: { cpu: '2', memory: '4Gi' } } } },
  ],
  ['change qos and other fields of one containers', revision(1, { image: true, resource: true, qos: true, other: true }), null],
];

for (const [name, next, expected] of rows) {
  test(`TestDefaultCalculateInPlaceUpdateSpec "${name}" (InPlaceWorkloadVerticalScaling on)`, () => {
    const plan = inPlaceUpdatePlan(base, next, VPA);
    if (expected === null) return assert.equal(plan, undefined);
    assert.ok(plan);
    assert.deepEqual(plan.containerImages, expected.images ?? {});
    assert.deepEqual(plan.containerResources, expected.resources ?? {});
  });
}

test('defaultCalculateInPlaceUpdateSpec with InPlaceWorkloadVerticalScaling off: any resources op → nil (inplace_update_defaults.go, the gate check before containerResourcesPatchRexp)', () => {
  assert.equal(inPlaceUpdatePlan(base, revision(1, { resource: true })), undefined);
  assert.deepEqual(inPlaceUpdatePlan(base, revision(1, { image: true }))?.containerImages, { nginx: 'nginx:stable-alpine23' });
  const d = inPlaceUpdateDecision(base, revision(1, { resource: true }));
  assert.deepEqual(d.inPlace ? [] : d.reasons, ['spec.containers[0].resources']);
});

test('"change qos of two containers": the QoS class moves Burstable → Guaranteed (IsPodQoSChanged)', () => {
  assert.equal(podQosClass(base.spec), 'Burstable');
  assert.equal(podQosClass(revision(2, { resource: true, qos: true }).spec), 'Guaranteed');
  assert.equal(podQosClass({ containers: [{ name: 'a' }] }), 'BestEffort');
});

// --- inplace_update_vertical_test.go TestValidateResourcePatch ---
const oldContainers = [{ name: 'test-container' }, { name: 'test-container2' }];
const patchRows: Array<[string, TemplatePatchOp, { list: string; resource: string; quantity: string } | 'error']> = [
  ['valid patch for cpu limits', { op: '', path: '/spec/containers/0/resources/limits/cpu', value: '200m' }, { list: 'limits', resource: 'cpu', quantity: '200m' }],
  ['valid patch for memory requests', { op: '', path: '/spec/containers/0/resources/requests/memory', value: '1Gi' }, { list: 'requests', resource: 'memory', quantity: '1Gi' }],
  ['invalid patch for non-existent container', { op: '', path: '/spec/containers/2/resources/limits/cpu', value: '200m' }, 'error'],
  ['invalid patch for non-standard resource', { op: '', path: '/spec/containers/0/resources/limits/gpu', value: '1' }, 'error'],
  ['invalid patch for non-quantity value', { op: '', path: '/spec/containers/0/resources/limits/cpu', value: 'not-a-quantity' }, 'error'],
  ['add resource', { op: 'add', path: '/spec/containers/0/resources/limits/cpu', value: '10m' }, 'error'],
  ['remove resource', { op: 'remove', path: '/spec/containers/0/resources/limits/cpu' }, 'error'],
];
for (const [name, op, expected] of patchRows) {
  test(`TestValidateResourcePatch "${name}"`, () => {
    const v = validateResourcePatch(op, oldContainers);
    if (expected === 'error') return assert.equal(v.ok, false);
    assert.deepEqual(v, { ok: true, container: 'test-container', ...expected });
  });
}

test('a whole limits map added where there was none is an add op → recreate, even with the gate on', () => {
  const before = tpl([c1('foo', { resources: { requests: { cpu: '100m' } } })]);
  const after = tpl([c1('foo', { resources: { requests: { cpu: '100m' }, limits: { cpu: '200m' } } })]);
  const d = inPlaceUpdateDecision(before, after, VPA);
  assert.equal(d.inPlace, false);
});

test('resizePolicy (getTestPodWithResource, inplace_update_defaults_test.go): c1 cpu NotRequired, c2 memory RestartContainer', () => {
  const c1p: Container = { name: 'c1', resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] };
  const c2p: Container = { name: 'c2', resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] };
  assert.equal(resizeRestartsContainer(c1p, { requests: { cpu: '2' } }), false);
  assert.equal(resizeRestartsContainer(c2p, { requests: { cpu: '2' } }), false);
  assert.equal(resizeRestartsContainer(c2p, { limits: { memory: '4Gi' } }), true);
  const plan = inPlaceUpdatePlan(
    tpl([{ ...c2p, image: 'x', resources: { requests: { memory: '1Gi' }, limits: { memory: '2Gi' } } }]),
    tpl([{ ...c2p, image: 'x', resources: { requests: { memory: '1Gi' }, limits: { memory: '4Gi' } } }]),
    VPA,
  );
  assert.deepEqual(plan?.resizeRestartContainers, ['c2']);
});

// --- inplace_update_defaults_test.go TestDefaultCheckPodNeedsBeUnready ---
{
  const { podNeedsBeUnready } = await import('../../../src/kruise/rules/inplace-vertical');
  const gate = [{ conditionType: 'InPlaceUpdateReady' }];
  const spec = (resources: Record<string, Record<string, Record<string, string>>> = {}) => ({ containerImages: {}, containerResources: resources, envFromMetadataContainers: [] });
  const cpuRestart = { name: '11', resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }] };
  const cpuRestartMemNot = { name: '11', resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }, { resourceName: 'memory', restartPolicy: 'NotRequired' }] };
  const rows: Array<[string, { containers: Container[]; readinessGates?: unknown }, ReturnType<typeof spec>, boolean, boolean]> = [
    ['contains ReadinessGates, vpa disabled', { containers: [], readinessGates: gate }, spec(), false, true],
    ['contains no ReadinessGates1', { containers: [] }, spec(), false, false],
    ['contains ReadinessGates, vpa enabled and VerticalUpdateOnly', { containers: [], readinessGates: gate }, spec({ c2: { requests: { memory: '2Gi', cpu: '2' } } }), true, false],
    ['contains ReadinessGates, vpa enabled but not VerticalUpdateOnly', { containers: [], readinessGates: gate }, spec(), true, true],
    ['contains no ReadinessGates2', { containers: [] }, spec(), true, false],
    ['contains no ReadinessGates3', { containers: [] }, spec(), true, false],
    ['contains ReadinessGates, other restart container', { containers: [cpuRestart, { name: 'c2' }], readinessGates: gate }, spec({ c2: { requests: { memory: '2Gi', cpu: '2' } } }), true, false],
    ['contains ReadinessGates, resize cpu and cpu restart policy', { containers: [cpuRestart], readinessGates: gate }, spec({ '11': { requests: { cpu: '100m' } } }), true, true],
    ['contains ReadinessGates, resize mem and cpu restart policy (#1: cpu RestartContainer only)', { containers: [cpuRestart], readinessGates: gate }, spec({ '11': { requests: { memory: '100Mi' } } }), true, false],
    ['contains ReadinessGates, resize mem and cpu restart policy (#2: memory NotRequired too)', { containers: [cpuRestartMemNot], readinessGates: gate }, spec({ '11': { requests: { memory: '100Mi' } } }), true, false],
    ['contains ReadinessGates, vpa disabled and resize mem and cpu restart policy', { containers: [cpuRestartMemNot], readinessGates: gate }, spec({ '11': { requests: { memory: '100Mi' } } }), false, true],
  ];
  for (const [name, podSpec, s, vpa, expected] of rows) {
    test(`TestDefaultCheckPodNeedsBeUnready "${name}"`, () => {
      assert.equal(podNeedsBeUnready({ spec: podSpec }, s, vpa), expected);
    });
  }
}

// --- inplace_update_test.go TestCheckInPlaceUpdateCompleted (DefaultCheckInPlaceUpdateCompleted) ---
{
  const { inPlaceUpdateCompleted } = await import('../../../src/kruise/rules/cloneset-inplace');
  const state = '{"revision":"new-revision","lastContainerStatuses":{"c1":{"imageID":"img01"}}}';
  const pod = (annotations: Record<string, string> | undefined, statuses: unknown[] | undefined, containers: Container[] = []) =>
    ({ metadata: { name: 'p', labels: { 'controller-revision-hash': 'new-revision' }, ...(annotations ? { annotations } : {}) }, spec: { containers }, status: statuses ? { containerStatuses: statuses } : {} }) as never;
  test('TestCheckInPlaceUpdateCompleted s1: no in-place state → completed', () => {
    assert.equal(inPlaceUpdateCompleted(pod(undefined, undefined)), true);
  });
  test('TestCheckInPlaceUpdateCompleted s2: the imageID changed → completed (ours also wants the spec container running its image)', () => {
    // Kruise reads only status here; the sandbox's kubelet reports the new image before its imageID, so our
    // check (shared by every sandbox controller) also compares the spec's image: same verdict once both agree.
    assert.equal(inPlaceUpdateCompleted(pod({ 'apps.kruise.io/inplace-update-state': state }, [{ name: 'c1', imageID: 'img02', image: 'image02' }], [{ name: 'c1', image: 'image02' }])), true);
  });
  test('TestCheckInPlaceUpdateCompleted f2: imageID unchanged and the status image is not the spec one → not completed', () => {
    assert.equal(inPlaceUpdateCompleted(pod({ 'apps.kruise.io/inplace-update-state': state }, [{ name: 'c1', imageID: 'img01', image: 'image01' }], [{ name: 'c1', image: 'image02' }])), false);
  });
  test('TestCheckInPlaceUpdateCompleted f3: no container status → not completed', () => {
    assert.equal(inPlaceUpdateCompleted(pod({ 'apps.kruise.io/inplace-update-state': state }, undefined, [{ name: 'c1', image: 'image02' }])), false);
  });
}

// --- inplace_update_vertical_test.go TestIsContainerUpdateCompleted ---
{
  const { containerResizeCompleted } = await import('../../../src/kruise/rules/inplace-vertical');
  const rows: Array<[string, Container['resources'], Container['resources'] | null, boolean]> = [
    ['Test status ok', { limits: { cpu: '100m', memory: '128Mi' }, requests: { cpu: '50m', memory: '64Mi' } }, { limits: { cpu: '100m', memory: '128Mi' }, requests: { cpu: '50m', memory: '64Mi' } }, true],
    ['Test status not ok - cpu limit', { limits: { cpu: '100m' }, requests: { cpu: '50m' } }, { limits: { cpu: '200m' }, requests: { cpu: '50m' } }, false],
    ['Test status not ok - mem limit', { limits: { memory: '100Mi' }, requests: { memory: '50Mi' } }, { limits: { memory: '200Mi' }, requests: { memory: '50Mi' } }, false],
    ['Test status not ok - only mem limit', { limits: { memory: '100Mi' } }, { limits: { memory: '200Mi' } }, false],
    ['Test status not ok - only mem request', { requests: { memory: '100Mi' } }, { requests: { memory: '50Mi' } }, false],
    ['container and containerStatus are empty', {}, {}, true],
    ['container is empty', {}, { limits: { cpu: '200m' }, requests: { cpu: '50m' } }, false],
    ['containerStatus is nil', { limits: { cpu: '200m' }, requests: { cpu: '50m' } }, null, false],
    ['containerStatus is empty', { limits: { cpu: '200m' }, requests: { cpu: '50m' } }, {}, false],
  ];
  for (const [name, spec, status, expected] of rows) {
    test(`TestIsContainerUpdateCompleted "${name}"`, () => {
      assert.equal(containerResizeCompleted({ resources: spec }, status === null ? {} : { resources: status }), expected);
    });
  }
  test('"1" and "1000m" are the same quantity for the completion check', () => {
    assert.equal(containerResizeCompleted({ resources: { requests: { cpu: '1' } } }, { resources: { requests: { cpu: '1000m' } } }), true);
  });
}

// --- inplace_update_defaults_test.go TestDefaultPatchUpdateSpecToPod_Resource (the single-step rows; the
// sandbox applies every container at once, the launch-priority steps are --preview's restartOrder) ---
{
  const { applyInPlaceUpdate, readInPlaceUpdateState } = await import('../../../src/kruise/rules/cloneset-inplace');
  const { restartBatches } = await import('../../../src/kruise/preview/pod-action');
  const pod = parse(readFileSync(join(FIXTURES, 'kruise-pod-with-resource.yaml'), 'utf8'));
  const plan = (images: Record<string, string>, resources: Record<string, { requests: Record<string, string> }>) => ({ containerImages: images, labels: {}, annotations: {}, envFromMetadataContainers: [], containerResources: resources, resizeRestartContainers: [] });
  const now = new Date('2026-11-29T00:00:00Z');
  test('TestDefaultPatchUpdateSpecToPod_Resource "only change container 0 resource cpu"', () => {
    const next = applyInPlaceUpdate(pod, plan({}, { c1: { requests: { memory: '2Gi', cpu: '2' } } }), 'new-revision', now);
    assert.deepEqual(next.spec.containers[0]!.resources!.requests, { memory: '2Gi', cpu: '2' });
    assert.deepEqual(next.spec.containers[1]!.resources, pod.spec.containers[1].resources);
    const state = readInPlaceUpdateState(next)!;
    assert.deepEqual(state.lastContainerStatuses, {});
    assert.deepEqual(state.containerBatchesRecord?.map((b) => b.containers), [['c1']]);
  });
  test('TestDefaultPatchUpdateSpecToPod_Resource "change container 0 resource cpu and image"', () => {
    const next = applyInPlaceUpdate(pod, plan({ c1: 'c1-img-new' }, { c1: { requests: { memory: '2Gi', cpu: '2' } } }), 'new-revision', now);
    assert.equal(next.spec.containers[0]!.image, 'c1-img-new');
    assert.deepEqual(next.spec.containers[0]!.resources!.requests, { memory: '2Gi', cpu: '2' });
    const state = readInPlaceUpdateState(next)!;
    assert.deepEqual(state.lastContainerStatuses, { c1: { imageID: 'containerd://c1-img' } });
    assert.deepEqual(state.containerBatchesRecord?.map((b) => b.containers), [['c1']]);
  });
  test('TestDefaultPatchUpdateSpecToPod_Resource "change two containers resource cpu and image step1": c1 (p_20) goes before c2 (p_10)', () => {
    assert.deepEqual(restartBatches(pod, new Set(['c1', 'c2'])), [['c1'], ['c2']]);
  });
}
