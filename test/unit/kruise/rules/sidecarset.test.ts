// SidecarSet rules against Kruise v1.9.0's own test tables (rows ported, Go file and test named in
// each test), plus the injection facts of pkg/webhook/pod/mutating/sidecarset.go.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, Pod } from '../../../../src/kruise/types';
import {
  injectSidecarSets,
  podMatchesSidecarSet,
  readSidecarSet,
  sidecarSetForInjection,
  sidecarSetHashes,
  SIDECARSET_HASH_ANNOTATION,
  SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION,
  SIDECARSET_LIST_ANNOTATION,
  SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION,
  withSidecarSetHashes,
  type SidecarSetView,
} from '../../../../src/kruise/rules/sidecarset';
import {
  isPodSidecarUpdated,
  isPodStateConsistent,
  nextUpgradePods,
  partitionPods,
  scatterTerms,
  sidecarSetRounding,
  resetIdleHotUpgradeContainers,
  sidecarSetStatus,
  upgradableCondition,
  upgradePodSidecars,
} from '../../../../src/kruise/rules/sidecarset-upgrade';

const V1_ID = 'docker-pullable://test-image@sha256:f7988fb6c02e0ce69257d9bd9cf37ae20a60f1df7563c3a2a6abe24160306b8d';
const V2_ID = 'docker-pullable://test-image@sha256:f7988fb6c02e0ce69257d9bd9cf37ae20a60f1df7563c3a2a6abe24160306b8e';

/** sidecarset_strategy_test.go createFactorySidecarSet. */
function factorySidecarSet(hash = 'bbb', withoutImage = 'without-aaa', strategy: Record<string, unknown> = {}): SidecarSetView {
  return readSidecarSet({
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'SidecarSet',
    metadata: { name: 'test-sidecarset', annotations: { [SIDECARSET_HASH_ANNOTATION]: hash, [SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION]: withoutImage } },
    spec: { containers: [{ name: 'test-sidecar', image: 'test-image:v2' }], selector: { matchLabels: { app: 'sidecar' } }, updateStrategy: strategy },
  });
}

/** factoryPodsCommon + factoryPods: `upgraded` pods carry the new hash, the first `upgradedAndReady` also run v2. */
function factoryPods(count: number, upgraded: number, upgradedAndReady: number): Pod[] {
  const ss = factorySidecarSet();
  const pods: Pod[] = [];
  for (let i = 0; i < count; i++) {
    pods.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `pod-${i}`,
        labels: { app: 'sidecar' },
        creationTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        annotations: {
          [SIDECARSET_HASH_ANNOTATION]: '{"test-sidecarset":{"hash":"aaa","sidecarList":["test-sidecar"]}}',
          [SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION]: '{"test-sidecarset":{"hash":"without-aaa","sidecarList":["test-sidecar"]}}',
        },
      },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.15.1' }, { name: 'test-sidecar', image: 'test-image:v1' }] },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [
          { name: 'nginx', image: 'nginx:1.15.1', imageID: 'docker-pullable://nginx@sha256:a9286defaba7b3a519d585ba0e37d0b2cbee74ebfe590960b0b1d6a5e97d1e1d', ready: true, restartCount: 0 },
          { name: 'test-sidecar', image: 'test-image:v1', imageID: V1_ID, ready: true, restartCount: 0 },
        ],
      },
    });
  }
  for (let i = 0; i < upgraded; i++) pods[i] = upgradePodSidecars(ss, pods[i], new Date());
  for (let i = 0; i < upgradedAndReady; i++) {
    const cs = pods[i].status!.containerStatuses![1];
    cs.image = 'test-image:v2';
    cs.imageID = V2_ID;
  }
  return pods;
}

function shuffle<T>(xs: T[]): T[] {
  const out = xs.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const GET_NEXT_UPGRADE_PODS: Array<{ name: string; pods: () => Pod[]; ss: () => SidecarSetView; upgrade: number; notUpgradable: number }> = [
  { name: 'only maxUnavailable(int=10), and pods(count=100, upgraded=30, upgradedAndReady=26)', pods: () => factoryPods(100, 30, 26), ss: () => factorySidecarSet('bbb', 'without-aaa', { maxUnavailable: 10 }), upgrade: 6, notUpgradable: 0 },
  { name: 'only maxUnavailable(string=10%), and pods(count=1000, upgraded=300, upgradedAndReady=260)', pods: () => factoryPods(1000, 300, 260), ss: () => factorySidecarSet('bbb', 'without-aaa', { maxUnavailable: '10%' }), upgrade: 60, notUpgradable: 0 },
  { name: 'only maxUnavailable(string=5%), and pods(count=1000, upgraded=300, upgradedAndReady=250)', pods: () => factoryPods(1000, 300, 250), ss: () => factorySidecarSet('bbb', 'without-aaa', { maxUnavailable: '5%' }), upgrade: 0, notUpgradable: 0 },
  { name: 'only maxUnavailable(int=100), and pods(count=100, upgraded=30, upgradedAndReady=27)', pods: () => factoryPods(100, 30, 27), ss: () => factorySidecarSet('bbb', 'without-aaa', { maxUnavailable: 100 }), upgrade: 70, notUpgradable: 0 },
  { name: 'partition(int=180) maxUnavailable(int=100), and pods(count=1000, upgraded=800, upgradedAndReady=760)', pods: () => factoryPods(1000, 800, 760), ss: () => factorySidecarSet('bbb', 'without-aaa', { maxUnavailable: 100, partition: 180 }), upgrade: 20, notUpgradable: 0 },
  { name: 'partition(int=100) maxUnavailable(int=100), and pods(count=1000, upgraded=800, upgradedAndReady=760)', pods: () => factoryPods(1000, 800, 760), ss: () => factorySidecarSet('bbb', 'without-aaa', { maxUnavailable: 100, partition: 100 }), upgrade: 60, notUpgradable: 0 },
  { name: 'partition(string=18%) maxUnavailable(int=100), and pods(count=1000, upgraded=800, upgradedAndReady=760)', pods: () => factoryPods(1000, 800, 760), ss: () => factorySidecarSet('bbb', 'without-aaa', { maxUnavailable: 100, partition: '18%' }), upgrade: 20, notUpgradable: 0 },
  { name: 'partition(string=10%) maxUnavailable(int=100), and pods(count=1000, upgraded=800, upgradedAndReady=760)', pods: () => factoryPods(1000, 800, 760), ss: () => factorySidecarSet('bbb', 'without-aaa', { maxUnavailable: 100, partition: '10%' }), upgrade: 60, notUpgradable: 0 },
  {
    name: 'selector(app=test, count=30) maxUnavailable(int=100), and pods(count=1000, upgraded=0, upgradedAndReady=0)',
    pods: () => {
      const pods = factoryPods(1000, 0, 0);
      for (let i = 0; i < 30; i++) pods[i].metadata.labels!.app = 'test';
      return pods;
    },
    ss: () => factorySidecarSet('bbb', 'without-aaa', { maxUnavailable: 100, selector: { matchLabels: { app: 'test' } } }),
    upgrade: 30,
    notUpgradable: 0,
  },
  { name: 'not upgradable sidecarset, maxUnavailable(int=100), and pods(count=100, upgraded=0, upgradedAndReady=0)', pods: () => factoryPods(100, 0, 0), ss: () => factorySidecarSet('bbb', 'without-bbb', { maxUnavailable: 100 }), upgrade: 0, notUpgradable: 100 },
  { name: 'only maxUnavailable(5%), and pods(count=5, upgraded=0, upgradedAndReady=0)', pods: () => factoryPods(5, 0, 0), ss: () => factorySidecarSet('bbb', 'without-aaa', { maxUnavailable: '5%' }), upgrade: 1, notUpgradable: 0 },
  { name: 'maxUnavailable(5) partition(99%), and pods(count=5, upgraded=0, upgradedAndReady=0)', pods: () => factoryPods(5, 0, 0), ss: () => factorySidecarSet('bbb', 'without-aaa', { maxUnavailable: 5, partition: '99%' }), upgrade: 1, notUpgradable: 0 },
  { name: 'maxUnavailable(5) partition(1%), and pods(count=5, upgraded=0, upgradedAndReady=0)', pods: () => factoryPods(5, 0, 0), ss: () => factorySidecarSet('bbb', 'without-aaa', { maxUnavailable: 5, partition: '1%' }), upgrade: 4, notUpgradable: 0 },
];

for (const row of GET_NEXT_UPGRADE_PODS) {
  test(`sidecarset_strategy_test.go TestGetNextUpgradePods: ${row.name}`, () => {
    const plan = nextUpgradePods(row.ss(), shuffle(row.pods()));
    assert.equal(plan.upgrade.length, row.upgrade);
    assert.equal(plan.notUpgradable.length, row.notUpgradable);
  });
}

// Kruise v1.3.0 (up to v1.7.4) scaled partition and maxUnavailable rounding down (sidecarset_strategy.go
// calculateUpgradeCount, GetValueFromIntOrPercent(..., false)): v1.3.0's TestGetNextUpgradePods table is the
// first ten rows above, unchanged; the three rows kruise#1834 added (the last three) expect, before that fix,
// 5% of 5 pods = 0 (kruise#1812: nothing upgrades), 99% of 5 = 4 kept (1 upgrades), 1% of 5 = 0 kept (all 5).
const BEFORE_1834: Record<string, number> = {
  'only maxUnavailable(5%), and pods(count=5, upgraded=0, upgradedAndReady=0)': 0,
  'maxUnavailable(5) partition(99%), and pods(count=5, upgraded=0, upgradedAndReady=0)': 1,
  'maxUnavailable(5) partition(1%), and pods(count=5, upgraded=0, upgradedAndReady=0)': 5,
};
for (const row of GET_NEXT_UPGRADE_PODS) {
  const want = BEFORE_1834[row.name] ?? row.upgrade;
  test(`sidecarset_strategy_test.go TestGetNextUpgradePods at v1.3.0 (rounding down, sidecarSetRounding('v1.3')): ${row.name} → ${want}`, () => {
    const plan = nextUpgradePods(row.ss(), shuffle(row.pods()), sidecarSetRounding('v1.3'));
    assert.equal(plan.upgrade.length, want);
    assert.equal(plan.notUpgradable.length, row.notUpgradable);
  });
}

const SORT_NEXT_UPGRADE_PODS: Array<{ name: string; pods: () => Pod[]; strategy: Record<string, unknown>; want: string[] }> = [
  { name: 'sort by pod.CreationTimestamp, maxUnavailable(int=10) and pods(count=20, upgraded=10, upgradedAndReady=5)', pods: () => factoryPods(20, 10, 5), strategy: { maxUnavailable: 10 }, want: ['pod-19', 'pod-18', 'pod-17', 'pod-16', 'pod-15'] },
  {
    name: 'not ready priority, maxUnavailable(int=10) and pods(count=20, upgraded=10, upgradedAndReady=5)',
    pods: () => {
      const pods = factoryPods(20, 10, 5);
      for (const i of [10, 13]) pods[i].status!.conditions![0].status = 'False';
      return pods;
    },
    strategy: { maxUnavailable: 10 },
    want: ['pod-13', 'pod-10', 'pod-19', 'pod-18', 'pod-17', 'pod-16', 'pod-15'],
  },
  {
    name: 'with weight priority strategy, maxUnavailable(int=10) and pods(count=20, upgraded=10, upgradedAndReady=2)',
    pods: () => {
      const pods = factoryPods(20, 10, 2);
      pods[15].metadata.labels!['test-key'] = 'bar';
      pods[16].metadata.labels!['test-key'] = 'foo';
      return pods;
    },
    strategy: {
      maxUnavailable: 10,
      priorityStrategy: { weightPriority: [{ weight: 50, matchSelector: { matchLabels: { 'test-key': 'foo' } } }, { weight: 30, matchSelector: { matchLabels: { 'test-key': 'bar' } } }] },
    },
    want: ['pod-16', 'pod-15'],
  },
  {
    name: 'with order priority strategy, maxUnavailable(int=10) and pods(count=20, upgraded=10, upgradedAndReady=2)',
    pods: () => {
      const pods = factoryPods(20, 10, 2);
      for (const p of pods) p.metadata.labels!.key1 = '5';
      pods[17].metadata.labels!.key1 = '10';
      pods[18].metadata.labels!.key1 = '20';
      return pods;
    },
    strategy: { maxUnavailable: 10, priorityStrategy: { orderPriority: [{ orderedKey: 'key1' }] } },
    want: ['pod-18', 'pod-17'],
  },
];

for (const row of SORT_NEXT_UPGRADE_PODS) {
  test(`sidecarset_strategy_test.go TestSortNextUpgradePods: ${row.name}`, () => {
    const plan = nextUpgradePods(factorySidecarSet('bbb', 'without-aaa', row.strategy), shuffle(row.pods()));
    assert.deepEqual(plan.upgrade.map((p) => p.metadata.name), row.want);
  });
}

test('util.CalculatePartitionReplicas (tools_test.go): rounds up, a percentage below 100% leaves one pod to update', () => {
  assert.equal(partitionPods(undefined, 5), 0);
  assert.equal(partitionPods(2, 5), 2);
  assert.equal(partitionPods(9, 5), 5);
  assert.equal(partitionPods('99%', 5), 4);
  assert.equal(partitionPods('100%', 5), 5);
  assert.equal(partitionPods('1%', 5), 1);
  assert.equal(partitionPods('50%', 1), 1);
});

test('sidecarset_processor.go calculateStatus: matched, updated, ready (consistent + Ready), updated and ready', () => {
  const ss = factorySidecarSet();
  const pods = factoryPods(10, 6, 4);
  pods[9].status!.conditions![0].status = 'False';
  assert.deepEqual(sidecarSetStatus({ ...ss, generation: 3 }, pods, 'test-sidecarset-abc', 0), {
    observedGeneration: 3,
    matchedPods: 10,
    updatedPods: 6,
    readyPods: 7, // 4 updated + running v2, 3 of the 4 old ones (pod-9 not ready); pods 4,5 mid-upgrade
    updatedReadyPods: 4,
    latestRevision: 'test-sidecarset-abc',
    collisionCount: 0,
  });
  assert.equal(isPodSidecarUpdated(ss, pods[5]), true);
  assert.equal(isPodStateConsistent(pods[5], ss), false, 'image changed in spec, imageID still the recorded one');
});

// ───────────────────────────── hashes, matching, injection ─────────────────────────────

const LOG: KubeObject = {
  apiVersion: 'apps.kruise.io/v1beta1',
  kind: 'SidecarSet',
  metadata: { name: 'log', resourceVersion: '7', generation: 1 },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    containers: [
      { name: 'logger', image: 'fluent-bit:3.0', volumeMounts: [{ name: 'logs', mountPath: '/var/log/app' }], transferEnv: [{ sourceContainerName: 'main', envName: 'TZ' }] },
      { name: 'proxy', image: 'envoy:1.30', podInjectPolicy: 'BeforeAppContainer' },
    ],
    initContainers: [{ name: 'init-b', image: 'busybox:1' }, { name: 'init-a', image: 'busybox:1' }],
    volumes: [{ name: 'logs', emptyDir: {} }, { name: 'unused', emptyDir: {} }],
    imagePullSecrets: [{ name: 'regcred' }],
  },
};

const podOf = (labels: Record<string, string>, namespace = 'default'): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', namespace, labels },
  spec: { containers: [{ name: 'main', image: 'nginx:1.27', env: [{ name: 'TZ', value: 'UTC' }] }], initContainers: [{ name: 'setup', image: 'busybox:1' }] },
});

test('hash.go SidecarSetHash / SidecarSetHashWithoutImage: an image change moves only the first', () => {
  const a = sidecarSetHashes(LOG.spec);
  const spec2 = structuredClone(LOG.spec) as { containers: Array<{ image: string }> };
  spec2.containers[0].image = 'fluent-bit:3.1';
  const b = sidecarSetHashes(spec2);
  assert.notEqual(a.hash, b.hash);
  assert.equal(a.hashWithoutImage, b.hashWithoutImage);
  assert.match(a.hash, /^[bcdfghjklmnpqrstvwxz2456789]{64}$/);
  const spec3 = structuredClone(LOG.spec) as { containers: Array<Record<string, unknown>> };
  spec3.containers[0].command = ['fluent-bit', '-v'];
  assert.notEqual(sidecarSetHashes(spec3).hashWithoutImage, a.hashWithoutImage);
  const withHash = withSidecarSetHashes(LOG);
  assert.equal(withHash.metadata.annotations?.[SIDECARSET_HASH_ANNOTATION], a.hash);
});

test('util.go PodMatchedSidecarSet: selector, v1alpha1 namespace, namespaceSelector on the namespace labels, empty selector matches nothing', () => {
  const ss = readSidecarSet(LOG);
  const ns = (n: string): Record<string, string> | undefined => (n === 'prod' ? { env: 'prod', 'kubernetes.io/metadata.name': 'prod' } : n === 'default' ? { 'kubernetes.io/metadata.name': 'default' } : undefined);
  assert.equal(podMatchesSidecarSet(podOf({ app: 'web' }), ss, ns), true);
  assert.equal(podMatchesSidecarSet(podOf({ app: 'db' }), ss, ns), false);
  assert.equal(podMatchesSidecarSet(podOf({ app: 'web' }), { ...ss, namespace: 'prod' }, ns), false);
  assert.equal(podMatchesSidecarSet(podOf({ app: 'web' }, 'prod'), { ...ss, namespaceSelector: { matchLabels: { env: 'prod' } } }, ns), true);
  assert.equal(podMatchesSidecarSet(podOf({ app: 'web' }), { ...ss, namespaceSelector: { matchLabels: { env: 'prod' } } }, ns), false);
  assert.equal(podMatchesSidecarSet(podOf({ app: 'web' }), { ...ss, selector: {} }, ns), false);
});

test('webhook sidecarset.go: containers before/after the app, init containers sorted after the pod\'s, used volumes, secrets, IS_INJECTED, transferEnv, annotations', () => {
  const ss = readSidecarSet(withSidecarSetHashes(LOG));
  const out = injectSidecarSets(podOf({ app: 'web' }), [{ ...ss, latestRevision: 'log-abc' }])!;
  assert.deepEqual(out.spec.containers.map((c) => c.name), ['proxy', 'main', 'logger']);
  assert.deepEqual(out.spec.initContainers!.map((c) => c.name), ['setup', 'init-a', 'init-b']);
  const logger = out.spec.containers[2];
  assert.deepEqual(logger.env, [{ name: 'IS_INJECTED', value: 'true' }, { name: 'TZ', value: 'UTC' }]);
  assert.equal(logger.transferEnv, undefined, 'SidecarSet-only fields are not pod fields');
  assert.deepEqual(out.spec.volumes, [{ name: 'logs', emptyDir: {} }]);
  assert.deepEqual(out.spec.imagePullSecrets, [{ name: 'regcred' }]);
  const hashes = JSON.parse(out.metadata.annotations![SIDECARSET_HASH_ANNOTATION]);
  assert.equal(hashes.log.hash, ss.hash);
  assert.equal(hashes.log.controllerRevision, 'log-abc');
  assert.deepEqual(hashes.log.sidecarList, ['logger', 'proxy']);
  assert.equal(JSON.parse(out.metadata.annotations![SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION]).log.hash, ss.hashWithoutImage);
  assert.equal(out.metadata.annotations![SIDECARSET_LIST_ANNOTATION], 'log');
  assert.equal(injectSidecarSets(podOf({ app: 'web' }), [{ ...ss, injectionPaused: true }]), undefined, 'injectionStrategy.paused injects nothing');
});

test('hot upgrade (sidecarset_hotupgrade.go): -1 works, -2 runs the empty image; an upgrade goes to the idle one, then the old one is reset', () => {
  const hotSpec = {
    selector: { matchLabels: { app: 'web' } },
    containers: [{ name: 'mesh', image: 'mesh:v1', upgradeStrategy: { upgradeType: 'HotUpgrade', hotUpgradeEmptyImage: 'empty:1' } }],
  };
  const ss1 = readSidecarSet(withSidecarSetHashes({ apiVersion: 'apps.kruise.io/v1beta1', kind: 'SidecarSet', metadata: { name: 'mesh', resourceVersion: '1' }, spec: hotSpec }));
  const pod = injectSidecarSets(podOf({ app: 'web' }), [ss1])!;
  assert.deepEqual(pod.spec.containers.map((c) => `${c.name}=${c.image}`), ['main=nginx:1.27', 'mesh-1=mesh:v1', 'mesh-2=empty:1']);
  assert.deepEqual(JSON.parse(pod.metadata.annotations![SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION]), { mesh: 'mesh-1' });
  assert.equal(pod.metadata.annotations!['version.sidecarset.kruise.io/mesh-1'], '1');
  const running: Pod = {
    ...pod,
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: pod.spec.containers.map((c) => ({ name: c.name, image: c.image!, imageID: `${c.image}@sha256:${'1'.repeat(64)}`, ready: true, restartCount: 0 })),
    },
  };
  const spec2 = structuredClone(hotSpec);
  spec2.containers[0].image = 'mesh:v2';
  const ss2 = readSidecarSet(withSidecarSetHashes({ apiVersion: 'apps.kruise.io/v1beta1', kind: 'SidecarSet', metadata: { name: 'mesh', resourceVersion: '2' }, spec: spec2 }));
  assert.equal(nextUpgradePods(ss2, [running]).upgrade.length, 1);
  const upgraded = upgradePodSidecars(ss2, running, new Date());
  assert.deepEqual(upgraded.spec.containers.map((c) => `${c.name}=${c.image}`), ['main=nginx:1.27', 'mesh-1=mesh:v1', 'mesh-2=mesh:v2']);
  assert.deepEqual(JSON.parse(upgraded.metadata.annotations![SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION]), { mesh: 'mesh-2' });
  assert.equal(resetIdleHotUpgradeContainers(ss2, upgraded), undefined, 'mesh-2 has not restarted on v2 yet');
  const restarted: Pod = structuredClone(upgraded);
  const cs = restarted.status!.containerStatuses!.find((s) => s.name === 'mesh-2')!;
  cs.image = 'mesh:v2';
  cs.imageID = `mesh:v2@sha256:${'2'.repeat(64)}`;
  const reset = resetIdleHotUpgradeContainers(ss2, restarted)!;
  assert.deepEqual(reset.spec.containers.map((c) => `${c.name}=${c.image}`), ['main=nginx:1.27', 'mesh-1=empty:1', 'mesh-2=mesh:v2']);
});

test('util.go PatchPodMetadata (TestPatchPodMetadata): Retain keeps, Overwrite replaces, MergePatchJson merges the JSON value', () => {
  const ss = readSidecarSet(withSidecarSetHashes({
    ...LOG,
    spec: {
      ...(LOG.spec as object),
      patchPodMetadata: [
        { annotations: { 'oom-score': '{"log-agent": 1}' }, patchPolicy: 'MergePatchJson' },
        { annotations: { keep: 'new' }, patchPolicy: 'Retain' },
        { annotations: { over: 'new' }, patchPolicy: 'Overwrite' },
      ],
    },
  }));
  const pod = podOf({ app: 'web' });
  pod.metadata.annotations = { 'oom-score': '{"main": 2}', keep: 'old', over: 'old' };
  const out = injectSidecarSets(pod, [ss])!;
  assert.deepEqual(JSON.parse(out.metadata.annotations!['oom-score']), { main: 2, 'log-agent': 1 });
  assert.equal(out.metadata.annotations!.keep, 'old');
  assert.equal(out.metadata.annotations!.over, 'new');
});

test('sidecarset_processor.go updatePodSidecarSetUpgradableCondition: one verdict per SidecarSet in the message, True only when all are', () => {
  const pod = factoryPods(1, 0, 0)[0];
  const now = new Date('2026-01-01T00:00:00Z');
  const t = upgradableCondition(pod, 'log', true, now)!;
  assert.deepEqual(t, { type: 'SidecarSetUpgradable', status: 'True', reason: 'AllSidecarsetUpgradable', message: '{"log":true}', lastTransitionTime: '2026-01-01T00:00:00Z' });
  pod.status!.conditions!.push(t);
  assert.equal(upgradableCondition(pod, 'log', true, now), undefined, 'unchanged: no write');
  const f = upgradableCondition(pod, 'mesh', false, now)!;
  assert.deepEqual([f.status, f.reason, f.message], ['False', 'UpdateImmutableField', '{"log":true,"mesh":false}']);
});

test('webhook getSuitableRevisionSidecarSet: injectionStrategy.revision pins a revision (Always, paused, Partial by selector or percentage)', () => {
  const oldSpec = structuredClone(LOG.spec) as Record<string, any>;
  const newSpec = structuredClone(LOG.spec) as Record<string, any>;
  newSpec.containers[0].image = 'fluent-bit:3.1';
  const oldHashes = sidecarSetHashes(oldSpec);
  const rev: KubeObject = {
    apiVersion: 'apps/v1', kind: 'ControllerRevision',
    metadata: { name: 'log-old', namespace: 'kruise-system', labels: { 'kruise.io/sidecarset-name': 'log', 'apps.kruise.io/sidecarset-custom-version': 'v1' }, annotations: { [SIDECARSET_HASH_ANNOTATION]: oldHashes.hash, [SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION]: oldHashes.hashWithoutImage } },
    data: { spec: { $patch: 'replace', containers: oldSpec.containers, initContainers: oldSpec.initContainers, volumes: oldSpec.volumes, imagePullSecrets: oldSpec.imagePullSecrets } },
    revision: 1,
  } as KubeObject;
  const current = (revision: Record<string, unknown>, strategy: Record<string, unknown> = {}) =>
    withSidecarSetHashes({ ...LOG, spec: { ...newSpec, injectionStrategy: { revision }, updateStrategy: strategy } });
  const image = (obj: KubeObject, labels: Record<string, string> = { app: 'web' }, r = 0.5) => {
    const view = readSidecarSet(sidecarSetForInjection(obj, [rev], podOf(labels), () => r));
    return injectSidecarSets(podOf(labels), [view])!.spec.containers.find((c) => c.name === 'logger')!.image;
  };
  assert.equal(image(current({ revisionName: 'log-old' })), 'fluent-bit:3.0', 'Always (default) injects the pinned revision');
  assert.equal(image(current({ customVersion: 'v1' })), 'fluent-bit:3.0', 'found by custom version');
  assert.equal(image(current({ revisionName: 'gone' })), 'fluent-bit:3.1', 'no such revision: the latest');
  const injected = injectSidecarSets(podOf({ app: 'web' }), [readSidecarSet(sidecarSetForInjection(current({ revisionName: 'log-old' }), [rev], podOf({ app: 'web' }), () => 0))])!;
  assert.equal(JSON.parse(injected.metadata.annotations![SIDECARSET_HASH_ANNOTATION]).log.hash, oldHashes.hash, 'the pod records the old hash, so the controller upgrades it later');
  const partialSel = current({ revisionName: 'log-old', policy: 'Partial' }, { selector: { matchLabels: { canary: 'true' } } });
  assert.equal(image(partialSel, { app: 'web' }), 'fluent-bit:3.0', 'Partial: outside the update selector gets the pinned one');
  assert.equal(image(partialSel, { app: 'web', canary: 'true' }), 'fluent-bit:3.1', 'Partial: selected pods get the latest');
  const partialPct = current({ revisionName: 'log-old', policy: 'Partial' }, { partition: '30%' });
  assert.equal(image(partialPct, { app: 'web' }, 0.2), 'fluent-bit:3.0');
  assert.equal(image(partialPct, { app: 'web' }, 0.9), 'fluent-bit:3.1');
  assert.equal(image(current({ revisionName: 'log-old', policy: 'Partial' }, { partition: 30 })), 'fluent-bit:3.1', 'an int partition: the latest');
});

test('sidecarset_strategy_test.go TestParseUpdateScatterTerms: plain terms kept, key=* expanded to each value on the pods (once each)', () => {
  const plain = [{ key: 'key-1', value: 'value-1' }, { key: 'key-2', value: 'value-2' }, { key: 'key-3', value: 'value-3' }];
  assert.deepEqual(scatterTerms(plain, factoryPods(100, 0, 0)), plain);
  const pods = factoryPods(100, 0, 0);
  ['value-4-0', 'value-4-1', 'value-4-2', 'value-4', 'value-4', 'value-4'].forEach((v, i) => (pods[i].metadata.labels!['key-4'] = v));
  assert.deepEqual(scatterTerms([...plain, { key: 'key-4', value: '*' }], pods), [
    ...plain,
    { key: 'key-4', value: 'value-4-0' },
    { key: 'key-4', value: 'value-4-1' },
    { key: 'key-4', value: 'value-4-2' },
    { key: 'key-4', value: 'value-4' },
  ]);
});
