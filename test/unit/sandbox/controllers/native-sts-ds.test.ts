// Native StatefulSet and DaemonSet controllers on the in-memory store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { startOnStore, waitFor } from '../../../helpers/memory-store';
import { createNodesController } from '../../../../src/sandbox/controllers/nodes';
import { createScheduler } from '../../../../src/sandbox/controllers/scheduler';
import { createKubelet } from '../../../../src/sandbox/controllers/kubelet';
import { createGarbageCollector } from '../../../../src/sandbox/controllers/gc';
import { createStatefulSetController, STATEFULSETS } from '../../../../src/sandbox/controllers/statefulset';
import { createDaemonSetController, DAEMONSETS } from '../../../../src/sandbox/controllers/daemonset';
import { CONTROLLER_REVISIONS, PODS, isPodReady } from '../../../../src/sandbox/controllers/pods';
import type { Controller, SimulationSettings } from '../../../../src/sandbox/store-api';
import type { KubeObject, Pod } from '../../../../src/kruise/types';

const fixture = (name: string) => parse(readFileSync(new URL(`../../../fixtures/sandbox-controllers/${name}`, import.meta.url), 'utf8')) as KubeObject;

function start(readyDelayMs = 20, nodes = 3) {
  const s: SimulationSettings = { readyDelayMs, kruise: 'v1.9', nodes };
  const cs: Controller[] = [createNodesController(), createScheduler(), createKubelet(), createGarbageCollector(), createStatefulSetController(), createDaemonSetController()];
  return startOnStore(cs, s);
}

type Status = Record<string, number | string | undefined>;
const image = (p: Pod) => p.spec.containers[0].image;

test('StatefulSet OrderedReady creates db-0, db-1, db-2 one at a time, with revision labels and status', async () => {
  const rt = start(30);
  try {
    const order: string[] = [];
    rt.store.subscribe((ev) => {
      if (ev.type === 'ADDED' && ev.gr.resource === 'pods') {
        // Every predecessor must be ready when the next pod is created.
        const name = ev.object.metadata.name!;
        const ord = Number(name.split('-')[1]);
        for (let i = 0; i < ord; i++) assert.ok(isPodReady(rt.store.get(PODS, 'default', `db-${i}`) as Pod), `db-${i} ready before ${name}`);
        order.push(name);
      }
    });
    rt.store.create(STATEFULSETS, fixture('statefulset-db.yaml'));
    await waitFor('3 ready', () => (rt.store.get(STATEFULSETS, 'default', 'db')?.status as Status | undefined)?.readyReplicas === 3);
    assert.deepEqual(order, ['db-0', 'db-1', 'db-2']);
    const st = rt.store.get(STATEFULSETS, 'default', 'db')!.status as Status;
    const revs = rt.store.list(CONTROLLER_REVISIONS);
    assert.equal(revs.length, 1);
    assert.equal(st.currentRevision, revs[0].metadata.name);
    assert.equal(st.updateRevision, revs[0].metadata.name);
    assert.equal((revs[0] as { revision?: number }).revision, 1);
    assert.equal(st.currentReplicas, 3);
    const p1 = rt.store.get(PODS, 'default', 'db-1') as Pod;
    assert.equal(p1.metadata.labels!['controller-revision-hash'], revs[0].metadata.name);
    assert.equal(p1.metadata.labels!['statefulset.kubernetes.io/pod-name'], 'db-1');
  } finally {
    rt.stop();
  }
});

test('StatefulSet RollingUpdate with partition 1 updates db-2 then db-1 (highest first) and keeps db-0; partition 0 completes', async () => {
  const rt = start(20);
  try {
    rt.store.create(STATEFULSETS, fixture('statefulset-db.yaml'));
    await waitFor('3 ready', () => (rt.store.get(STATEFULSETS, 'default', 'db')?.status as Status | undefined)?.readyReplicas === 3);
    const recreated: string[] = [];
    rt.store.subscribe((ev) => {
      if (ev.type === 'ADDED' && ev.gr.resource === 'pods') recreated.push(ev.object.metadata.name!);
    });
    const sts = rt.store.get(STATEFULSETS, 'default', 'db')!;
    const spec = sts.spec as { template: { spec: { containers: Array<{ image: string }> } }; updateStrategy: { rollingUpdate: { partition: number } } };
    spec.template.spec.containers[0].image = 'postgres:16.2';
    spec.updateStrategy.rollingUpdate.partition = 1;
    rt.store.update(STATEFULSETS, sts);
    await waitFor('partitioned', () => {
      const st = rt.store.get(STATEFULSETS, 'default', 'db')!.status as Status;
      return st.updatedReplicas === 2 && st.readyReplicas === 3 ? st : undefined;
    });
    assert.deepEqual(recreated, ['db-2', 'db-1']);
    assert.equal(image(rt.store.get(PODS, 'default', 'db-0') as Pod), 'postgres:16.1');
    let st = rt.store.get(STATEFULSETS, 'default', 'db')!.status as Status;
    assert.notEqual(st.currentRevision, st.updateRevision);
    const again = rt.store.get(STATEFULSETS, 'default', 'db')!;
    (again.spec as typeof spec).updateStrategy.rollingUpdate.partition = 0;
    rt.store.update(STATEFULSETS, again);
    st = await waitFor('complete', () => {
      const x = rt.store.get(STATEFULSETS, 'default', 'db')!.status as Status;
      return x.currentRevision === x.updateRevision && x.updatedReplicas === 3 && x.readyReplicas === 3 ? x : undefined;
    });
    assert.equal(image(rt.store.get(PODS, 'default', 'db-0') as Pod), 'postgres:16.2');
    assert.equal(rt.store.list(CONTROLLER_REVISIONS).length, 2);
  } finally {
    rt.stop();
  }
});

test('StatefulSet Parallel scale down removes the highest ordinals; claims from volumeClaimTemplates are created Bound and kept', async () => {
  const rt = start(10);
  try {
    const f = fixture('statefulset-db.yaml');
    (f.spec as Record<string, unknown>).volumeClaimTemplates = [
      { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } } },
    ];
    (f.spec as Record<string, unknown>).podManagementPolicy = 'Parallel';
    (f.spec as Record<string, unknown>).replicas = 5;
    rt.store.create(STATEFULSETS, f);
    await waitFor('5 ready', () => (rt.store.get(STATEFULSETS, 'default', 'db')?.status as Status | undefined)?.readyReplicas === 5);
    const sts = rt.store.get(STATEFULSETS, 'default', 'db')!;
    (sts.spec as Record<string, unknown>).replicas = 2;
    rt.store.update(STATEFULSETS, sts);
    await waitFor('2 left', () => rt.store.list(PODS).length === 2);
    assert.deepEqual(rt.store.list(PODS).map((p) => p.metadata.name).sort(), ['db-0', 'db-1']);
    const claims = rt.store.list({ group: '', resource: 'persistentvolumeclaims' });
    assert.deepEqual(claims.map((c) => c.metadata.name).sort(), ['data-db-0', 'data-db-1', 'data-db-2', 'data-db-3', 'data-db-4']);
    assert.equal((claims[0].status as { phase: string }).phase, 'Bound');
    const db1 = rt.store.get(PODS, 'default', 'db-1') as Pod;
    assert.deepEqual((db1.spec.volumes as unknown[]).at(-1), { name: 'data', persistentVolumeClaim: { claimName: 'data-db-1' } });
  } finally {
    rt.stop();
  }
});

test('DaemonSet runs one pod per node, honours nodeSelector, rolls out with maxUnavailable 1', async () => {
  const rt = start(20, 4);
  try {
    rt.store.create(DAEMONSETS, fixture('daemonset-agent.yaml'));
    const done = (want: number, img: string) => () => {
      const ds = rt.store.get(DAEMONSETS, 'kube-system', 'agent')!;
      const st = (ds.status ?? {}) as Status;
      const pods = rt.store.list(PODS) as Pod[];
      return (
        st.observedGeneration === ds.metadata.generation &&
        st.desiredNumberScheduled === want &&
        st.updatedNumberScheduled === want &&
        st.numberAvailable === want &&
        pods.length === want &&
        pods.every((p) => image(p) === img && isPodReady(p))
      );
    };
    await waitFor('4 daemons', done(4, 'fluent/fluent-bit:3.0.4'));
    assert.deepEqual((rt.store.list(PODS) as Pod[]).map((p) => p.spec.nodeName).sort(), ['node-1', 'node-2', 'node-3', 'node-4']);

    let maxUnavailable = 0;
    rt.store.subscribe(() => {
      const ready = (rt.store.list(PODS) as Pod[]).filter(isPodReady).length;
      maxUnavailable = Math.max(maxUnavailable, 4 - ready);
    });
    const ds = rt.store.get(DAEMONSETS, 'kube-system', 'agent')!;
    (ds.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0].image = 'fluent/fluent-bit:3.1.0';
    rt.store.update(DAEMONSETS, ds);
    await waitFor('rolled', done(4, 'fluent/fluent-bit:3.1.0'));
    assert.equal(maxUnavailable, 1);
    assert.equal(rt.store.list(CONTROLLER_REVISIONS).length, 2);
    // kube's DaemonSet controller labels its revisions as its pods: controller-revision-hash (snapshot(),
    // DefaultDaemonSetUniqueLabelKey), which Kruise Rollout master reads (controller_finder.go getNativeDaemonSet)
    const newest = (rt.store.list(CONTROLLER_REVISIONS) as Array<KubeObject & { revision: number }>).sort((a, b) => b.revision - a.revision)[0]!;
    assert.deepEqual(new Set((rt.store.list(PODS) as Pod[]).map((p) => p.metadata.labels?.['controller-revision-hash'])), new Set([newest.metadata.labels?.['controller-revision-hash']]));
    assert.equal(newest.metadata.labels?.['controller.kubernetes.io/hash'], undefined);

    // Restrict to zone-a (node-1, node-4): the others lose their pod.
    const sel = rt.store.get(DAEMONSETS, 'kube-system', 'agent')!;
    (sel.spec as { template: { spec: Record<string, unknown> } }).template.spec.nodeSelector = { 'topology.kubernetes.io/zone': 'zone-a' };
    rt.store.update(DAEMONSETS, sel);
    await waitFor('zone-a only', done(2, 'fluent/fluent-bit:3.1.0'));
    assert.deepEqual((rt.store.list(PODS) as Pod[]).map((p) => p.spec.nodeName).sort(), ['node-1', 'node-4']);
  } finally {
    rt.stop();
  }
});

test('DaemonSet with maxSurge starts the new pod before removing the old one', async () => {
  const rt = start(20, 2);
  try {
    const f = fixture('daemonset-agent.yaml');
    (f.spec as { updateStrategy: unknown }).updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } };
    rt.store.create(DAEMONSETS, f);
    await waitFor('2 daemons', () => ((rt.store.get(DAEMONSETS, 'kube-system', 'agent')!.status ?? {}) as Status).numberAvailable === 2);
    let minReady = 2;
    rt.store.subscribe(() => {
      minReady = Math.min(minReady, (rt.store.list(PODS) as Pod[]).filter(isPodReady).length);
    });
    const ds = rt.store.get(DAEMONSETS, 'kube-system', 'agent')!;
    (ds.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0].image = 'fluent/fluent-bit:3.1.0';
    rt.store.update(DAEMONSETS, ds);
    await waitFor('surged', () => {
      const pods = rt.store.list(PODS) as Pod[];
      return pods.length === 2 && pods.every((p) => image(p) === 'fluent/fluent-bit:3.1.0' && isPodReady(p));
    });
    assert.equal(minReady, 2, 'never fewer than 2 ready pods');
  } finally {
    rt.stop();
  }
});
