// Deployment + ReplicaSet + GC controllers on the in-memory store, from a fixture.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { type MemoryStore, startOnStore, waitFor } from '../../../helpers/memory-store';
import { createNodesController } from '../../../../src/sandbox/controllers/nodes';
import { createScheduler } from '../../../../src/sandbox/controllers/scheduler';
import { createKubelet } from '../../../../src/sandbox/controllers/kubelet';
import { createGarbageCollector, ORPHAN_FINALIZER } from '../../../../src/sandbox/controllers/gc';
import { createReplicaSetController, REPLICASETS } from '../../../../src/sandbox/controllers/replicaset';
import { createDeploymentController, DEPLOYMENTS, REVISION_ANNOTATION } from '../../../../src/sandbox/controllers/deployment';
import { PODS, isPodReady } from '../../../../src/sandbox/controllers/pods';
import type { Controller, SimulationSettings } from '../../../../src/sandbox/store-api';
import type { KubeObject, Pod } from '../../../../src/kruise/types';

const fixture = (name: string) => parse(readFileSync(new URL(`../../../fixtures/sandbox-controllers/${name}`, import.meta.url), 'utf8')) as KubeObject;

function start(readyDelayMs = 20) {
  const s: SimulationSettings = { readyDelayMs, kruise: 'v1.9', nodes: 3 };
  const cs: Controller[] = [createNodesController(), createScheduler(), createKubelet(), createGarbageCollector(), createReplicaSetController(), createDeploymentController()];
  return startOnStore(cs, s);
}

interface DStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  conditions?: Array<{ type: string; status: string; reason: string }>;
}
const dStatus = (store: MemoryStore) => (store.get(DEPLOYMENTS, 'default', 'web')?.status ?? {}) as DStatus;

/** kubectl's DeploymentStatusViewer verdict. */
function rolledOut(d: KubeObject | undefined): boolean {
  if (!d) return false;
  const st = (d.status ?? {}) as DStatus;
  const want = (d.spec as { replicas: number }).replicas;
  return (
    (d.metadata.generation ?? 0) <= (st.observedGeneration ?? 0) &&
    (st.updatedReplicas ?? 0) >= want &&
    (st.replicas ?? 0) <= (st.updatedReplicas ?? 0) &&
    (st.availableReplicas ?? 0) >= (st.updatedReplicas ?? 0)
  );
}

test('a Deployment creates a ReplicaSet <name>-<hash> with revision 1 and becomes available', async () => {
  const rt = start();
  try {
    rt.store.create(DEPLOYMENTS, fixture('deployment-web.yaml'));
    await waitFor('rolled out', () => rolledOut(rt.store.get(DEPLOYMENTS, 'default', 'web')));
    const sets = rt.store.list(REPLICASETS, { namespace: 'default' });
    assert.equal(sets.length, 1);
    const rs = sets[0];
    const hash = rs.metadata.labels!['pod-template-hash'];
    assert.match(rs.metadata.name!, new RegExp(`^web-${hash}$`));
    assert.equal(rs.metadata.annotations![REVISION_ANNOTATION], '1');
    assert.equal(rs.metadata.annotations!['kubernetes.io/change-cause'], 'kubectl apply --filename=web.yaml');
    const pods = rt.store.list(PODS, { namespace: 'default' }) as Pod[];
    assert.equal(pods.length, 4);
    assert.ok(pods.every((p) => p.metadata.labels!['pod-template-hash'] === hash && isPodReady(p)));
    const st = dStatus(rt.store);
    assert.equal(st.availableReplicas, 4);
    assert.equal(st.conditions?.find((c) => c.type === 'Available')?.status, 'True');
    assert.equal(st.conditions?.find((c) => c.type === 'Progressing')?.reason, 'NewReplicaSetAvailable');
    assert.equal(rt.store.get(DEPLOYMENTS, 'default', 'web')!.metadata.annotations![REVISION_ANNOTATION], '1');
  } finally {
    rt.stop();
  }
});

test('an image change rolls out within maxSurge/maxUnavailable, revision 2; undo to the first template reuses its ReplicaSet as revision 3', async () => {
  const rt = start(30);
  try {
    rt.store.create(DEPLOYMENTS, fixture('deployment-web.yaml'));
    await waitFor('rolled out', () => rolledOut(rt.store.get(DEPLOYMENTS, 'default', 'web')));
    const first = rt.store.list(REPLICASETS)[0].metadata.name!;
    const d = rt.store.get(DEPLOYMENTS, 'default', 'web')!;
    const spec = d.spec as { template: { spec: { containers: Array<{ image: string }> } } };
    spec.template.spec.containers[0].image = 'nginx:1.26';
    d.metadata.annotations!['kubernetes.io/change-cause'] = 'kubectl set image deployment/web nginx=nginx:1.26';
    rt.store.update(DEPLOYMENTS, d);
    // Never more than replicas + maxSurge (5) pods, never fewer than replicas - maxUnavailable (3) available.
    let maxPods = 0;
    let minAvailable = Infinity;
    const unsub = rt.store.subscribe(() => {
      maxPods = Math.max(maxPods, rt.store.list(PODS).length);
    });
    await waitFor(
      'second rollout',
      () => {
        const x = rt.store.get(DEPLOYMENTS, 'default', 'web')!;
        const st = x.status as DStatus;
        if ((x.status as DStatus).observedGeneration === x.metadata.generation) minAvailable = Math.min(minAvailable, st.availableReplicas ?? 0);
        return rolledOut(x) && (st.replicas ?? 0) === 4;
      },
      8000,
      2,
    );
    unsub();
    assert.ok(maxPods <= 5, `at most 5 pods at once, saw ${maxPods}`);
    assert.ok(minAvailable >= 3, `at least 3 available, saw ${minAvailable}`);
    const sets = rt.store.list(REPLICASETS);
    assert.equal(sets.length, 2);
    const second = sets.find((rs) => rs.metadata.name !== first)!;
    assert.equal(second.metadata.annotations![REVISION_ANNOTATION], '2');
    assert.equal(second.metadata.annotations!['kubernetes.io/change-cause'], 'kubectl set image deployment/web nginx=nginx:1.26');
    assert.equal((rt.store.get(REPLICASETS, 'default', first)!.spec as { replicas: number }).replicas, 0);
    assert.ok((rt.store.list(PODS) as Pod[]).every((p) => p.spec.containers[0].image === 'nginx:1.26'));

    // Undo: template back to revision 1's, the way kubectl sends it (Go zero values included).
    const back = rt.store.get(DEPLOYMENTS, 'default', 'web')!;
    (back.spec as typeof spec).template.spec.containers[0].image = 'nginx:1.25';
    const tpl = (back.spec as { template: { metadata: Record<string, unknown>; spec: { containers: Array<Record<string, unknown>> } } }).template;
    tpl.metadata.creationTimestamp = null;
    tpl.spec.containers[0].resources = {};
    rt.store.update(DEPLOYMENTS, back);
    await waitFor('undo rolled out', () => {
      const x = rt.store.get(DEPLOYMENTS, 'default', 'web')!;
      return rolledOut(x) && (x.status as DStatus).replicas === 4 && x.metadata.annotations![REVISION_ANNOTATION] === '3';
    });
    const reused = rt.store.get(REPLICASETS, 'default', first)!;
    assert.equal(reused.metadata.annotations![REVISION_ANNOTATION], '3');
    assert.equal(reused.metadata.annotations!['deployment.kubernetes.io/revision-history'], '1');
    assert.equal(rt.store.list(REPLICASETS).length, 2);
  } finally {
    rt.stop();
  }
});

test('Recreate scales the old ReplicaSet to zero before the new one starts', async () => {
  const rt = start(20);
  try {
    const d0 = fixture('deployment-web.yaml');
    (d0.spec as Record<string, unknown>).strategy = { type: 'Recreate' };
    rt.store.create(DEPLOYMENTS, d0);
    await waitFor('rolled out', () => rolledOut(rt.store.get(DEPLOYMENTS, 'default', 'web')));
    let mixed = false;
    const unsub = rt.store.subscribe(() => {
      const images = new Set((rt.store.list(PODS) as Pod[]).map((p) => p.spec.containers[0].image));
      if (images.size > 1) mixed = true;
    });
    const d = rt.store.get(DEPLOYMENTS, 'default', 'web')!;
    (d.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0].image = 'nginx:1.26';
    rt.store.update(DEPLOYMENTS, d);
    await waitFor('recreated', () => {
      const x = rt.store.get(DEPLOYMENTS, 'default', 'web')!;
      return rolledOut(x) && (rt.store.list(PODS) as Pod[]).every((p) => p.spec.containers[0].image === 'nginx:1.26') && rt.store.list(PODS).length === 4;
    });
    unsub();
    assert.equal(mixed, false, 'old and new pods never coexist');
  } finally {
    rt.stop();
  }
});

test('paused Deployment does not roll out a template change; progress deadline is reported', async () => {
  const rt = start(20);
  try {
    rt.store.create(DEPLOYMENTS, fixture('deployment-web.yaml'));
    await waitFor('rolled out', () => rolledOut(rt.store.get(DEPLOYMENTS, 'default', 'web')));
    const d = rt.store.get(DEPLOYMENTS, 'default', 'web')!;
    (d.spec as Record<string, unknown>).paused = true;
    (d.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0].image = 'nginx:1.26';
    rt.store.update(DEPLOYMENTS, d);
    await waitFor('paused', () => dStatus(rt.store).conditions?.find((c) => c.type === 'Progressing')?.reason === 'DeploymentPaused');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(rt.store.list(REPLICASETS).length, 1);
    // Resume with an image that never pulls and a 1s deadline.
    const r = rt.store.get(DEPLOYMENTS, 'default', 'web')!;
    (r.spec as Record<string, unknown>).paused = false;
    (r.spec as Record<string, unknown>).progressDeadlineSeconds = 1;
    (r.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0].image = 'nginx:fail-pull';
    rt.store.update(DEPLOYMENTS, r);
    await waitFor('deadline exceeded', () => dStatus(rt.store).conditions?.find((c) => c.type === 'Progressing')?.reason === 'ProgressDeadlineExceeded', 5000);
  } finally {
    rt.stop();
  }
});

test('GC: deleting a Deployment deletes its ReplicaSets and their pods; orphan finalizer keeps them', async () => {
  const rt = start(10);
  try {
    rt.store.create(DEPLOYMENTS, fixture('deployment-web.yaml'));
    await waitFor('rolled out', () => rolledOut(rt.store.get(DEPLOYMENTS, 'default', 'web')));
    rt.store.delete(DEPLOYMENTS, 'default', 'web');
    await waitFor('cascade', () => rt.store.list(REPLICASETS).length === 0 && rt.store.list(PODS).length === 0);

    rt.store.create(DEPLOYMENTS, fixture('deployment-web.yaml'));
    await waitFor('rolled out again', () => rolledOut(rt.store.get(DEPLOYMENTS, 'default', 'web')));
    const d = rt.store.get(DEPLOYMENTS, 'default', 'web')!;
    d.metadata.finalizers = [ORPHAN_FINALIZER];
    rt.store.update(DEPLOYMENTS, d);
    rt.store.delete(DEPLOYMENTS, 'default', 'web');
    await waitFor('deployment gone', () => rt.store.get(DEPLOYMENTS, 'default', 'web') === undefined);
    await new Promise((r) => setTimeout(r, 100));
    const sets = rt.store.list(REPLICASETS);
    assert.equal(sets.length, 1);
    assert.equal(sets[0].metadata.ownerReferences?.length ?? 0, 0);
    assert.equal(rt.store.list(PODS).length, 4);
    // Deleting the orphaned ReplicaSet still cascades to its pods.
    rt.store.delete(REPLICASETS, 'default', sets[0].metadata.name!);
    await waitFor('pods gone', () => rt.store.list(PODS).length === 0);
  } finally {
    rt.stop();
  }
});

test('GC: foregroundDeletion removes dependents first; a dependent with another live owner only loses the reference', async () => {
  const rt = start(10);
  try {
    const rsOf = (name: string, replicas: number): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name, namespace: 'default' },
      spec: { replicas, selector: { matchLabels: { rs: name } }, template: { metadata: { labels: { rs: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } },
    });
    rt.store.create(REPLICASETS, rsOf('a', 2));
    const b = rt.store.create(REPLICASETS, rsOf('b', 0));
    await waitFor('2 pods', () => rt.store.list(PODS).length === 2);
    // One pod of `a` is also owned (not as controller) by `b`.
    const shared = rt.store.list(PODS)[0] as Pod;
    shared.metadata.ownerReferences!.push({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'b', uid: b.metadata.uid!, controller: false });
    rt.store.update(PODS, shared);

    const fg = rt.store.get(REPLICASETS, 'default', 'a')!;
    fg.metadata.finalizers = ['foregroundDeletion'];
    rt.store.update(REPLICASETS, fg);
    rt.store.delete(REPLICASETS, 'default', 'a');
    assert.ok(rt.store.get(REPLICASETS, 'default', 'a')?.metadata.deletionTimestamp, 'owner waits for its dependents');
    await waitFor('owner gone', () => rt.store.get(REPLICASETS, 'default', 'a') === undefined);
    // The foreground pass deletes every dependent of `a`, shared or not (as kube does).
    await waitFor('dependents gone', () => rt.store.list(PODS).length === 0);

    // Background: a dependent with another live owner keeps living, minus the dangling reference.
    const c = rt.store.create(REPLICASETS, rsOf('c', 1));
    await waitFor('pod of c', () => (rt.store.list(PODS) as Pod[]).some((p) => p.metadata.ownerReferences?.[0]?.uid === c.metadata.uid));
    const pod = (rt.store.list(PODS) as Pod[]).find((p) => p.metadata.ownerReferences?.[0]?.uid === c.metadata.uid)!;
    pod.metadata.ownerReferences!.push({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'b', uid: b.metadata.uid!, controller: false });
    rt.store.update(PODS, pod);
    rt.store.delete(REPLICASETS, 'default', 'c');
    const kept = await waitFor('reference dropped', () => {
      const p = rt.store.get(PODS, 'default', pod.metadata.name!) as Pod | undefined;
      return p && p.metadata.ownerReferences?.length === 1 ? p : undefined;
    });
    assert.equal(kept.metadata.ownerReferences![0].uid, b.metadata.uid);
  } finally {
    rt.stop();
  }
});

test('the new ReplicaSet follows the Deployment\'s minReadySeconds (kubernetes pkg/controller/deployment/sync.go getNewReplicaSet: minReadySecondsNeedsUpdate)', async () => {
  const rt = start();
  try {
    rt.store.create(DEPLOYMENTS, fixture('deployment-web.yaml'));
    await waitFor('rolled out', () => rolledOut(rt.store.get(DEPLOYMENTS, 'default', 'web')));
    const d = rt.store.get(DEPLOYMENTS, 'default', 'web')!;
    rt.store.update(DEPLOYMENTS, { ...d, spec: { ...(d.spec as object), minReadySeconds: 7 } });
    await waitFor('ReplicaSet minReadySeconds 7', () => (rt.store.list(REPLICASETS, { namespace: 'default' })[0]?.spec as { minReadySeconds?: number }).minReadySeconds === 7);
  } finally {
    rt.stop();
  }
});
