// Advanced DaemonSet controller on the in-memory store: one pod per node, partition by
// descending node name, rollingUpdate.selector, in-place vs Standard, v1alpha1/v1beta1 status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../../../helpers/memory-store';
import { ADVANCED_DAEMONSETS, createAdvancedDaemonSetController } from '../../../../src/sandbox/controllers/ads';
import { PODS } from '../../../../src/sandbox/controllers/pods';
import type { KubeObject, Pod } from '../../../../src/kruise/types';
import { fixture, startSim, type Sim } from './cloneset-harness';

type Ds = KubeObject & { spec: Record<string, any>; status?: Record<string, any> };
const get = (sim: Sim) => sim.store.get(ADVANCED_DAEMONSETS, 'default', 'agent') as Ds;
const pods = (sim: Sim) => (sim.store.list(PODS, { namespace: 'default' }) as Pod[]).filter((p) => !p.metadata.deletionTimestamp);
const imageByNode = (sim: Sim) => Object.fromEntries(pods(sim).map((p) => [p.spec.nodeName, p.spec.containers[0].image]));
const settled = (sim: Sim, n: number) => () => {
  const s = get(sim).status;
  return s && s.observedGeneration === get(sim).metadata.generation && s.numberReady === n && s.desiredNumberScheduled === n ? s : undefined;
};

function run(opts: { beta?: boolean; nodes?: number; kruise?: 'v1.3' }, fn: (sim: Sim) => Promise<void>) {
  return async () => {
    const sim = startSim([createAdvancedDaemonSetController()], {
      settings: { nodes: opts.nodes ?? 3, kruise: opts.kruise ?? (opts.beta ? 'v1.9' : 'v1.8') },
    });
    try {
      await fn(sim);
    } finally {
      sim.stop();
    }
  };
}

test('one pod per node; partition 1 updates the two highest node names in place', run({}, async (sim) => {
  sim.store.create(ADVANCED_DAEMONSETS, fixture('ads-v1alpha1.yaml')[0]);
  const s = await waitFor('3 ready', settled(sim, 3), 5000);
  assert.deepEqual(Object.keys(imageByNode(sim)).sort(), ['node-1', 'node-2', 'node-3']);
  assert.match(s.daemonSetHash, /^[a-z0-9]+$/);
  assert.equal(s.updatedNumberScheduled, 3);
  const uids = new Map(pods(sim).map((p) => [p.spec.nodeName, p.metadata.uid]));
  const ds = get(sim);
  ds.spec.template.spec.containers[0].image = 'fluentd:v1.17';
  ds.spec.updateStrategy.rollingUpdate.partition = 1;
  sim.store.update(ADVANCED_DAEMONSETS, ds);
  const st = await waitFor('2 updated', () => {
    const x = get(sim).status!;
    return x.daemonSetHash !== s.daemonSetHash && x.updatedNumberScheduled === 2 && x.numberReady === 3 ? x : undefined;
  }, 5000);
  assert.equal(st.numberAvailable, 3);
  assert.deepEqual(imageByNode(sim), { 'node-1': 'fluentd:v1.16', 'node-2': 'fluentd:v1.17', 'node-3': 'fluentd:v1.17' });
  for (const p of pods(sim)) assert.equal(p.metadata.uid, uids.get(p.spec.nodeName), 'updated in place');
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(get(sim).status!.updatedNumberScheduled, 2, 'partition holds');
}));

test('rollingUpdate.selector: only matching nodes update (Standard recreates them); v1beta1 writes updateRevision', run({ beta: true }, async (sim) => {
  const ds = fixture('ads-v1alpha1.yaml')[0] as Ds;
  ds.spec.updateStrategy.rollingUpdate = { rollingUpdateType: 'Standard', maxUnavailable: '50%' };
  sim.store.create(ADVANCED_DAEMONSETS, ds);
  const s = await waitFor('3 ready', settled(sim, 3), 5000);
  assert.ok(s.updateRevision && !('daemonSetHash' in s));
  const uids = new Map(pods(sim).map((p) => [p.spec.nodeName, p.metadata.uid]));
  const cur = get(sim);
  cur.spec.template.spec.containers[0].image = 'fluentd:v1.17';
  cur.spec.updateStrategy.rollingUpdate.selector = { matchLabels: { 'topology.kubernetes.io/zone': 'zone-b' } };
  sim.store.update(ADVANCED_DAEMONSETS, cur);
  await waitFor('node-2 updated', () => {
    const x = get(sim).status!;
    return x.updateRevision !== s.updateRevision && x.updatedNumberScheduled === 1 && x.numberReady === 3 ? x : undefined;
  }, 5000);
  assert.equal(imageByNode(sim)['node-2'], 'fluentd:v1.17');
  assert.equal(imageByNode(sim)['node-1'], 'fluentd:v1.16');
  const n2 = pods(sim).find((p) => p.spec.nodeName === 'node-2')!;
  assert.notEqual(n2.metadata.uid, uids.get('node-2'), 'Standard recreates the pod');
}));

test('webhook: maxUnavailable and maxSurge both non-zero, partition over 100%, string partition before v1.9', () => {
  const sim = startSim([createAdvancedDaemonSetController()], { settings: { kruise: 'v1.8' } });
  try {
    const reject = (mut: (d: Ds) => void, re: RegExp) => {
      const d = fixture('ads-v1alpha1.yaml')[0] as Ds;
      mut(d);
      assert.throws(() => sim.store.create(ADVANCED_DAEMONSETS, d), (e: Error & { code?: number }) => e.code === 422 && re.test(e.message));
    };
    reject((d) => Object.assign(d.spec.updateStrategy.rollingUpdate, { maxUnavailable: 1, maxSurge: 1 }), /rollingUpdate\.maxSurge/);
    reject((d) => (d.spec.updateStrategy.rollingUpdate.maxUnavailable = '150%'), /maxUnavailable: Invalid value: "150%"/);
    reject((d) => (d.spec.updateStrategy.rollingUpdate.partition = '50%'), /partition: Invalid value: "50%": must be an integer/);
  } finally {
    sim.stop();
  }
});

for (const kruise of ['v1.8', 'v1.3'] as const) {
  const restarts = kruise === 'v1.3' ? 0 : 1;
  test(`InPlaceUpdateEnvFromMetadata on ${kruise} (${kruise === 'v1.3' ? 'Alpha, off' : 'Beta, on'} in pkg/features/kruise_features.go; pkg/util/inplaceupdate/inplace_update_defaults.go): a changed template label read by an env ${restarts ? 'restarts' : 'does not restart'} the container of an in-place updated daemon pod`, run({ nodes: 1, kruise: kruise === 'v1.3' ? 'v1.3' : undefined }, async (sim) => {
    const ds = fixture('ads-v1alpha1.yaml')[0] as Ds;
    ds.spec.template.metadata.labels.release = 'r1';
    ds.spec.template.spec.containers[0].env = [{ name: 'RELEASE', valueFrom: { fieldRef: { fieldPath: "metadata.labels['release']" } } }];
    sim.store.create(ADVANCED_DAEMONSETS, ds);
    await waitFor('1 ready', settled(sim, 1), 5000);
    const before = pods(sim)[0];
    const cur = get(sim);
    cur.spec.template.metadata.labels.release = 'r2';
    sim.store.update(ADVANCED_DAEMONSETS, cur);
    await waitFor('label updated in place', () => {
      const p = pods(sim)[0];
      return p?.metadata.labels?.release === 'r2' && settled(sim, 1)() && get(sim).status!.updatedNumberScheduled === 1 ? p : undefined;
    }, 5000);
    const pod = pods(sim)[0];
    assert.equal(pod.metadata.uid, before.metadata.uid, 'in place');
    assert.equal(pod.status!.containerStatuses![0].restartCount, restarts);
  }));
}
