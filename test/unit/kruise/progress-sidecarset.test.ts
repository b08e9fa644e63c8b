import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { KubeObject, Pod } from '../../../src/kruise/types';
import { evaluateSidecarSetRollout, sidecarSetPartitionPods } from '../../../src/kruise/progress-sidecarset';
import { podSidecarSetHash, readSidecarSet, sidecarSetMatchesPod, sidecarSetPausePatch, SIDECARSET_HASH_ANNOTATION } from '../../../src/kruise/workloads/sidecarset';
import { REPO_ROOT } from '../../helpers/cli';
import { crdSchema, servedVersions, validate } from './builders/crd-schema';

type Obj = KubeObject & { spec: Record<string, any>; status: Record<string, any> };

function load(): Obj {
  return parse(readFileSync(join(REPO_ROOT, 'test/fixtures/sidecarset/log.yaml'), 'utf8')) as Obj;
}
const SS = load();
const NEW = SS.metadata.annotations![SIDECARSET_HASH_ANNOTATION]!;
const NOW = Date.parse('2026-11-25T06:00:00Z');

/** A pod matched by "log": namespace/name, whether it carries the new hash, runs fluent-bit:3.1 and is ready. */
function pod(ns: string, name: string, o: { updated: boolean; running?: string; ready?: boolean; waiting?: string; labels?: Record<string, string> }): Pod {
  const image = o.running ?? (o.updated ? 'fluent-bit:3.1' : 'fluent-bit:2.2');
  return {
    metadata: {
      name,
      namespace: ns,
      labels: { logging: 'on', ...o.labels },
      annotations: {
        'kruise.io/sidecarset-injected-list': 'log',
        [SIDECARSET_HASH_ANNOTATION]: JSON.stringify({ log: { hash: o.updated ? NEW : 'old-hash', sidecarSetName: 'log', sidecarList: ['logger'], updateTimestamp: '2026-11-25T05:59:00Z' } }),
      },
    },
    spec: { containers: [{ name: 'logger', image: o.updated ? 'fluent-bit:3.1' : 'fluent-bit:2.2' }, { name: 'app', image: 'nginx' }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: '2026-11-25T05:59:00Z' }],
      containerStatuses: [
        { name: 'logger', ready: o.ready !== false, restartCount: o.updated ? 1 : 0, image, ...(o.waiting ? { state: { waiting: { reason: o.waiting } } } : {}) },
        { name: 'app', ready: true, restartCount: 0, image: 'nginx' },
      ],
    },
  };
}

function withStatus(status: Record<string, unknown>, edit?: (o: Obj) => void): Obj {
  const o = load();
  Object.assign(o.status, status);
  edit?.(o);
  return o;
}

const FIVE = (updatedReady: number, notReady = 0): Pod[] => {
  const names = ['default/web-a', 'default/web-b', 'default/web-c', 'team/api-a', 'team/api-b'];
  return names.map((n, i) => {
    const [ns, name] = n.split('/') as [string, string];
    const updated = i < updatedReady + notReady;
    return pod(ns, name, { updated, ready: !(updated && i >= updatedReady) });
  });
};

test('fixture and pause patch validate against every served SidecarSet version of v1.3.0, v1.9.0 and master', () => {
  for (const release of ['v1.3.0', 'v1.9.0', 'master']) {
    const versions = servedVersions(release, 'sidecarsets');
    assert.ok(versions.includes('v1alpha1'), release);
    for (const version of versions) {
      const schema = crdSchema(release, 'sidecarsets', version)!;
      const obj = { ...SS, apiVersion: `apps.kruise.io/${version}` };
      assert.deepEqual(validate(schema, obj), [], `${release} ${version}`);
      const patched = { ...obj, spec: { ...SS.spec, updateStrategy: { ...SS.spec.updateStrategy, ...(sidecarSetPausePatch(true) as any).spec.updateStrategy } } };
      assert.deepEqual(validate(schema, patched), [], `${release} ${version} pause patch`);
    }
  }
});

test('readSidecarSet reads the strategy, the status and the sidecars with their JSON pointers', () => {
  const v = readSidecarSet(SS);
  assert.equal(v.partition, 2);
  assert.equal(v.maxUnavailable, 1);
  assert.equal(v.matchedPods, 5);
  assert.equal(v.paused, false);
  assert.deepEqual(v.containers, [{ name: 'logger', init: false, pointer: '/spec/containers/0', image: 'fluent-bit:3.1' }]);
});

test('podSidecarSetHash reads the current {hash} form and the older map[string]string form (sidecarcontrol GetPodSidecarSetUpgradeSpecInAnnotations)', () => {
  const p = pod('default', 'x', { updated: true });
  assert.equal(podSidecarSetHash(p, 'log'), NEW);
  p.metadata.annotations![SIDECARSET_HASH_ANNOTATION] = JSON.stringify({ log: 'abc' });
  assert.equal(podSidecarSetHash(p, 'log'), 'abc');
  p.metadata.annotations![SIDECARSET_HASH_ANNOTATION] = 'not json';
  assert.equal(podSidecarSetHash(p, 'log'), undefined);
});

test('matched pods: selector, injected list, spec.namespace, active (getMatchingPods)', () => {
  const v = readSidecarSet(SS);
  assert.equal(sidecarSetMatchesPod(v, pod('default', 'a', { updated: false })), true);
  const notInjected = pod('default', 'b', { updated: false });
  notInjected.metadata.annotations!['kruise.io/sidecarset-injected-list'] = 'other';
  assert.equal(sidecarSetMatchesPod(v, notInjected), false);
  const otherLabels = pod('default', 'c', { updated: false });
  otherLabels.metadata.labels = { logging: 'off' };
  assert.equal(sidecarSetMatchesPod(v, otherLabels), false);
  const done = pod('default', 'd', { updated: false });
  done.status!.phase = 'Succeeded';
  assert.equal(sidecarSetMatchesPod(v, done), false);
  assert.equal(sidecarSetMatchesPod({ ...v, namespace: 'team' }, pod('default', 'e', { updated: false })), false);
});

// Rows of pkg/util/tools_test.go TestCalculatePartitionReplicas and
// pkg/controller/sidecarset/sidecarset_strategy_test.go TestGetNextUpgradePods (partition rows).
for (const [name, partition, matched, kept] of [
  ['tools_test TestCalculatePartitionReplicas: replicas=0, partition=99%, expected=0', '99%', 0, 0],
  ['tools_test TestCalculatePartitionReplicas: replicas=10, partition=nil, expected=0', undefined, 10, 0],
  ['tools_test TestCalculatePartitionReplicas: replicas=9, partition=99%, expected=8', '99%', 9, 8],
  ['tools_test TestCalculatePartitionReplicas: replicas=10, partition=90%, expected=9', '90%', 10, 9],
  ['tools_test TestCalculatePartitionReplicas: replicas=10, partition=1%, expected=1', '1%', 10, 1],
  ['TestGetNextUpgradePods: partition(int=180), pods(count=1000)', 180, 1000, 180],
  ['TestGetNextUpgradePods: partition(string=18%), pods(count=1000)', '18%', 1000, 180],
  ['TestGetNextUpgradePods: maxUnavailable(5) partition(99%), pods(count=5)', '99%', 5, 4],
  ['TestGetNextUpgradePods: maxUnavailable(5) partition(1%), pods(count=5)', '1%', 5, 1],
  ['partition 100% keeps every pod', '100%', 5, 5],
] as const) {
  test(`SidecarSet partition pods: ${name} → ${kept}`, () => {
    assert.equal(sidecarSetPartitionPods(partition, matched), kept);
  });
}

test('mid-upgrade (partition 2 of 5, one upgraded pod not ready): Progressing, names the pod', () => {
  const p = evaluateSidecarSetRollout(SS, FIVE(2, 1), NOW, { podsListed: true });
  assert.equal(p.state, 'Progressing');
  assert.equal(p.partition, 2);
  assert.equal(p.expectedUpdatedReplicas, 3);
  assert.equal(p.replicas, 5);
  assert.equal(p.message, 'Waiting for sidecarset "log" rollout to finish: 2 of 3 updated pods are ready (partition keeps 2 of 5); not ready after the upgrade: default/web-c...');
});

test('fewer pods updated than expected: names the pods still on the old sidecars', () => {
  const p = evaluateSidecarSetRollout(withStatus({ updatedPods: 1, updatedReadyPods: 1 }), FIVE(1), NOW, { podsListed: true });
  assert.equal(p.state, 'Progressing');
  assert.match(p.message, /1 of 3 matched pods updated \(partition keeps 2 of 5\); on the old sidecars: default\/web-b, default\/web-c, team\/api-a, team\/api-b\.\.\.$/);
});

test('3 of 5 upgraded and ready with partition 2: PartitionComplete, reports the partition', () => {
  const p = evaluateSidecarSetRollout(withStatus({ updatedReadyPods: 3, readyPods: 5 }), FIVE(3), NOW, { podsListed: true });
  assert.equal(p.state, 'PartitionComplete');
  assert.equal(p.partition, 2);
  assert.equal(p.message, 'sidecarset "log" partition rollout complete: 3 of 5 matched pods updated (2 kept on the old sidecars by the partition)');
});

test('status says done but a pod labelled with the new hash still runs the old image: not done', () => {
  const pods = FIVE(3);
  pods[2]!.status!.containerStatuses![0]!.image = 'fluent-bit:2.2';
  const p = evaluateSidecarSetRollout(withStatus({ updatedReadyPods: 3, readyPods: 5 }), pods, NOW, { podsListed: true });
  assert.equal(p.state, 'Progressing');
  assert.match(p.message, /not ready after the upgrade: default\/web-c/);
});

test('without the pods, the status alone decides (the first check of --watch=false)', () => {
  assert.equal(evaluateSidecarSetRollout(withStatus({ updatedReadyPods: 3 }), [], NOW).state, 'PartitionComplete');
  assert.equal(evaluateSidecarSetRollout(SS, [], NOW).state, 'Progressing');
});

test('partition 0, every pod upgraded and ready: Complete', () => {
  const o = withStatus({ updatedPods: 5, updatedReadyPods: 5, readyPods: 5 }, (x) => delete x.spec.updateStrategy.partition);
  const p = evaluateSidecarSetRollout(o, FIVE(5), NOW, { podsListed: true });
  assert.equal(p.state, 'Complete');
  assert.equal(p.message, 'sidecarset "log" successfully rolled out');
  assert.equal(p.partition, 0);
});

test('generation not observed yet: waits whatever the counts say', () => {
  const p = evaluateSidecarSetRollout(withStatus({ observedGeneration: 1, updatedReadyPods: 3 }), FIVE(3), NOW, { podsListed: true });
  assert.equal(p.state, 'Progressing');
  assert.equal(p.message, 'Waiting for sidecarset "log" spec update to be observed...');
});

test('paused midway: Paused with the counts and the partition', () => {
  const o = withStatus({ updatedPods: 1, updatedReadyPods: 1 }, (x) => (x.spec.updateStrategy.paused = true));
  const p = evaluateSidecarSetRollout(o, FIVE(1), NOW, { podsListed: true });
  assert.equal(p.state, 'Paused');
  assert.equal(p.message, 'sidecarset "log" rollout is paused: 1 of 5 matched pods updated (expected 3, partition keeps 2)');
});

test('an upgraded pod in ImagePullBackOff fails the rollout after the grace, naming pod and container', () => {
  const pods = FIVE(2);
  pods[2] = pod('default', 'web-c', { updated: true, ready: false, running: 'fluent-bit:2.2', waiting: 'ImagePullBackOff' });
  const early = evaluateSidecarSetRollout(SS, pods, Date.parse('2026-11-25T05:59:30Z'), { podsListed: true, failureGraceMs: 60_000 });
  assert.equal(early.state, 'Progressing');
  assert.equal(early.failing?.name, 'default/web-c');
  const late = evaluateSidecarSetRollout(SS, pods, NOW, { podsListed: true, failureGraceMs: 60_000 });
  assert.equal(late.state, 'Failed');
  assert.equal(late.message, 'sidecarset "log" rollout failed: pod "default/web-c" container "logger" is in ImagePullBackOff');
});

test('updateStrategy.selector: pods it leaves out keep their sidecars and are not waited for', () => {
  const o = withStatus({ updatedPods: 1, updatedReadyPods: 1 }, (x) => {
    delete x.spec.updateStrategy.partition;
    x.spec.updateStrategy.selector = { matchLabels: { canary: 'true' } };
  });
  const pods = FIVE(0);
  pods[0] = pod('default', 'web-a', { updated: true, labels: { canary: 'true' } });
  const p = evaluateSidecarSetRollout(o, pods, NOW, { podsListed: true });
  assert.equal(p.expectedUpdatedReplicas, 1);
  assert.equal(p.partition, 4);
  assert.equal(p.state, 'PartitionComplete');
});

test('namespaceSelector: pods of a namespace it no longer selects are not matched (getMatchingPods lists only selected namespaces)', () => {
  const o = withStatus({ matchedPods: 3, updatedPods: 3, updatedReadyPods: 3, readyPods: 3 }, (x) => {
    delete x.spec.updateStrategy.partition;
    x.spec.namespaceSelector = { matchLabels: { logging: 'yes' } };
  });
  const pods = FIVE(3); // web-a..c (default) updated; api-a, api-b (team) on the old sidecars
  const labels = new Map([['default', { logging: 'yes' }], ['team', { logging: 'no' }]]);
  assert.equal(evaluateSidecarSetRollout(o, pods, NOW, { podsListed: true, namespaceLabels: labels }).state, 'Complete');
  // Without the namespaces' labels the team pods would count: 5 seen where the status matched 3.
  assert.equal(evaluateSidecarSetRollout(o, pods, NOW, { podsListed: true }).state, 'Progressing');
});
