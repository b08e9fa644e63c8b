// Nodes, scheduler and kubelet on the in-memory store: scheduling rules, pod lifecycle,
// image conventions, in-place restarts and readiness gates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type MemoryStore, startOnStore, waitFor } from '../../../helpers/memory-store';
import { createNodesController } from '../../../../src/sandbox/controllers/nodes';
import { createScheduler } from '../../../../src/sandbox/controllers/scheduler';
import { createKubelet, imageBehaviour, restartContainerStatus } from '../../../../src/sandbox/controllers/kubelet';
import { NODES, PODS, isPodReady, podCondition } from '../../../../src/sandbox/controllers/pods';
import type { Controller, SimulationSettings } from '../../../../src/sandbox/store-api';
import type { Pod } from '../../../../src/kruise/types';

function startRuntime(settings: Partial<SimulationSettings> = {}) {
  const s: SimulationSettings = { readyDelayMs: 30, kruise: 'v1.9', nodes: 3, crashBackoff: 'fast', ...settings };
  const controllers: Controller[] = [createNodesController(), createScheduler(), createKubelet()];
  return startOnStore(controllers, s);
}

function pod(name: string, image: string, extra: Partial<Pod['spec']> = {}): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'x' } }, spec: { containers: [{ name: 'main', image }], ...extra } };
}

const getPod = (store: MemoryStore, name: string) => store.get(PODS, 'default', name) as Pod | undefined;

test('nodes: node-1..N with hostname, os and zone labels in turn, Ready', () => {
  const rt = startRuntime({ nodes: 4 });
  try {
    const nodes = rt.store.list(NODES);
    assert.deepEqual(nodes.map((n) => n.metadata.name).sort(), ['node-1', 'node-2', 'node-3', 'node-4']);
    const n4 = rt.store.get(NODES, undefined, 'node-4')!;
    assert.equal(n4.metadata.labels!['kubernetes.io/hostname'], 'node-4');
    assert.equal(n4.metadata.labels!['kubernetes.io/os'], 'linux');
    assert.equal(n4.metadata.labels!['topology.kubernetes.io/zone'], 'zone-a');
    assert.equal(rt.store.get(NODES, undefined, 'node-2')!.metadata.labels!['topology.kubernetes.io/zone'], 'zone-b');
    const status = n4.status as { conditions: Array<{ type: string; status: string }>; nodeInfo: { kubeletVersion: string } };
    assert.equal(status.conditions.find((c) => c.type === 'Ready')?.status, 'True');
    assert.match(status.nodeInfo.kubeletVersion, /^v1\./);
  } finally {
    rt.stop();
  }
});

test('a pod is scheduled, starts and becomes Ready after the ready delay', async () => {
  const rt = startRuntime({ readyDelayMs: 80 });
  try {
    // Every committed state of the pod, with the time it was written.
    const history: Array<{ at: number; pod: Pod }> = [];
    rt.store.subscribe((ev) => {
      if (ev.gr.resource === 'pods') history.push({ at: Date.now(), pod: ev.object as Pod });
    });
    const created = Date.now();
    rt.store.create(PODS, pod('web', 'nginx:1.25'));
    const ready = await waitFor('ready', () => {
      const p = getPod(rt.store, 'web');
      return p && isPodReady(p) ? p : undefined;
    });
    const firstRunning = history.find((h) => h.pod.status?.phase === 'Running')!;
    assert.ok(firstRunning.pod.spec.nodeName?.startsWith('node-'));
    assert.equal(isPodReady(firstRunning.pod), false, 'running but not ready before the delay');
    const firstReady = history.find((h) => isPodReady(h.pod))!;
    assert.ok(firstReady.at - created >= 80, `ready after ${firstReady.at - created}ms`);
    const cs = ready.status!.containerStatuses![0];
    assert.equal(cs.image, 'nginx:1.25');
    assert.match(cs.containerID!, /^containerd:\/\/[0-9a-f]{64}$/);
    assert.match(cs.imageID!, /^docker\.io\/library\/nginx@sha256:/);
    assert.equal(cs.restartCount, 0);
    assert.ok(cs.state?.running?.startedAt);
    assert.ok(ready.status!.podIP && ready.status!.hostIP);
    for (const t of ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled']) assert.equal(podCondition(ready, t)?.status, 'True', t);
  } finally {
    rt.stop();
  }
});

test('scheduler honours nodeSelector, required affinity (In/NotIn/Gt, matchFields) and preferred weights', async () => {
  const rt = startRuntime({ nodes: 3, readyDelayMs: 10 });
  try {
    rt.store.create(PODS, pod('sel', 'nginx', { nodeSelector: { 'topology.kubernetes.io/zone': 'zone-c' } }));
    rt.store.create(
      PODS,
      pod('fields', 'nginx', {
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-2'] }] }] } } },
      }),
    );
    rt.store.create(
      PODS,
      pod('notin', 'nginx', {
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['node-1', 'node-2'] }] }] } } },
      }),
    );
    rt.store.create(
      PODS,
      pod('pref', 'nginx', {
        affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-b'] }] } }] } },
      }),
    );
    rt.store.create(PODS, pod('nowhere', 'nginx', { nodeSelector: { disk: 'ssd' } }));
    await waitFor('bound', () => ['sel', 'fields', 'notin', 'pref'].every((n) => getPod(rt.store, n)?.spec.nodeName));
    assert.equal(getPod(rt.store, 'sel')!.spec.nodeName, 'node-3');
    assert.equal(getPod(rt.store, 'fields')!.spec.nodeName, 'node-2');
    assert.equal(getPod(rt.store, 'notin')!.spec.nodeName, 'node-3');
    assert.equal(getPod(rt.store, 'pref')!.spec.nodeName, 'node-2');
    const stuck = await waitFor('unschedulable', () => {
      const p = getPod(rt.store, 'nowhere');
      return podCondition(p!, 'PodScheduled')?.reason === 'Unschedulable' ? p : undefined;
    });
    assert.equal(stuck.status!.phase, 'Pending');
    assert.equal(stuck.spec.nodeName, undefined);
  } finally {
    rt.stop();
  }
});

test('scheduler spreads pods over nodes (fewest pods first)', async () => {
  const rt = startRuntime({ nodes: 3, readyDelayMs: 10 });
  try {
    for (let i = 0; i < 9; i++) rt.store.create(PODS, pod(`p${i}`, 'nginx'));
    await waitFor('bound', () => rt.store.list(PODS).every((p) => (p as Pod).spec.nodeName));
    const perNode = new Map<string, number>();
    for (const p of rt.store.list(PODS)) perNode.set((p as Pod).spec.nodeName!, (perNode.get((p as Pod).spec.nodeName!) ?? 0) + 1);
    assert.deepEqual([...perNode.values()], [3, 3, 3]);
  } finally {
    rt.stop();
  }
});

test('image conventions: fail-pull, crashloop, invalid reference, slow', async () => {
  assert.equal(imageBehaviour('nginx:fail-pull'), 'fail-pull');
  assert.equal(imageBehaviour('registry.example.com:5000/team/app:crashloop'), 'crashloop');
  assert.equal(imageBehaviour('NGINX:1.25'), 'invalid');
  assert.equal(imageBehaviour('nginx:slow'), 'slow');
  const rt = startRuntime({ readyDelayMs: 30 });
  try {
    let slowReadyAt = 0;
    rt.store.subscribe((ev) => {
      if (ev.object.metadata.name === 'slow' && !slowReadyAt && isPodReady(ev.object as Pod)) slowReadyAt = Date.now();
    });
    const slowCreatedAt = Date.now();
    rt.store.create(PODS, pod('pull', 'nginx:fail-pull'));
    rt.store.create(PODS, pod('crash', 'busybox:crashloop'));
    rt.store.create(PODS, pod('bad', 'Nginx:Latest'));
    rt.store.create(PODS, pod('slow', 'nginx:slow'));
    rt.store.create(PODS, pod('fast', 'nginx:1.25'));
    await waitFor('slow ready', () => isPodReady(getPod(rt.store, 'slow')!));
    assert.ok(slowReadyAt - slowCreatedAt >= 150, `slow took ${slowReadyAt - slowCreatedAt}ms, at least 5x30ms`);
    const pulled = await waitFor('ImagePullBackOff', () => {
      const p = getPod(rt.store, 'pull');
      return p?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff' ? p : undefined;
    });
    assert.equal(pulled.status!.phase, 'Pending');
    const crashed = await waitFor('restartCount 2', () => {
      const p = getPod(rt.store, 'crash');
      return (p?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 2 ? p : undefined;
    });
    assert.equal(crashed.status!.phase, 'Running');
    assert.equal(isPodReady(crashed), false);
    const bad = getPod(rt.store, 'bad')!;
    assert.equal(bad.status!.containerStatuses![0].state!.waiting!.reason, 'InvalidImageName');
    // A crashing container never reports ready along the way.
    assert.equal(isPodReady(getPod(rt.store, 'crash')!), false);
  } finally {
    rt.stop();
  }
});

test('in-place image change restarts only that container: same pod, restartCount+1, new containerID, ready again later', async () => {
  const rt = startRuntime({ readyDelayMs: 60 });
  try {
    const p = pod('inplace', 'nginx:1.25');
    p.spec.containers.push({ name: 'side', image: 'busybox:1.36' });
    rt.store.create(PODS, p);
    const ready = await waitFor('ready', () => {
      const x = getPod(rt.store, 'inplace');
      return x && isPodReady(x) ? x : undefined;
    });
    const before = ready.status!.containerStatuses!;
    const changed = structuredClone(ready);
    changed.spec.containers[0].image = 'nginx:1.26';
    rt.store.update(PODS, changed);
    const restarted = await waitFor('restarted', () => {
      const x = getPod(rt.store, 'inplace');
      return x?.status?.containerStatuses?.[0]?.image === 'nginx:1.26' ? x : undefined;
    });
    assert.equal(restarted.metadata.uid, ready.metadata.uid);
    const [main, side] = restarted.status!.containerStatuses!;
    assert.equal(main.restartCount, 1);
    assert.notEqual(main.containerID, before[0].containerID);
    assert.equal(main.ready, false);
    assert.equal(isPodReady(restarted), false);
    assert.equal(side.restartCount, 0);
    assert.equal(side.containerID, before[1].containerID);
    await waitFor('ready again', () => isPodReady(getPod(rt.store, 'inplace')!));
  } finally {
    rt.stop();
  }
});

test('readiness gates hold PodReady until the gate condition is True; restartContainerStatus is picked up', async () => {
  const rt = startRuntime({ readyDelayMs: 20 });
  try {
    rt.store.create(PODS, pod('gated', 'nginx:1.25', { readinessGates: [{ conditionType: 'InPlaceUpdateReady' }] }));
    await waitFor('containers ready', () => podCondition(getPod(rt.store, 'gated')!, 'ContainersReady')?.status === 'True');
    let p = getPod(rt.store, 'gated')!;
    assert.equal(isPodReady(p), false);
    assert.equal(podCondition(p, 'Ready')?.reason, 'ReadinessGatesNotReady');
    p.status!.conditions!.push({ type: 'InPlaceUpdateReady', status: 'True', lastTransitionTime: new Date().toISOString() });
    rt.store.updateStatus(PODS, p);
    await waitFor('ready', () => isPodReady(getPod(rt.store, 'gated')!));
    p = getPod(rt.store, 'gated')!;
    const oldId = p.status!.containerStatuses![0].containerID;
    rt.store.updateStatus(PODS, { ...p, status: restartContainerStatus(p, 'main') });
    p = getPod(rt.store, 'gated')!;
    assert.equal(p.status!.containerStatuses![0].restartCount, 1);
    assert.notEqual(p.status!.containerStatuses![0].containerID, oldId);
    assert.equal(isPodReady(p), false);
    await waitFor('ready after restart', () => isPodReady(getPod(rt.store, 'gated')!));
  } finally {
    rt.stop();
  }
});

test('a pod marked for deletion waits for its finalizers, then is removed', async () => {
  const rt = startRuntime({ readyDelayMs: 10 });
  try {
    const p = pod('fin', 'nginx');
    p.metadata.finalizers = ['example.com/hold'];
    rt.store.create(PODS, p);
    await waitFor('ready', () => isPodReady(getPod(rt.store, 'fin')!));
    rt.store.delete(PODS, 'default', 'fin');
    await new Promise((r) => setTimeout(r, 100));
    const held = getPod(rt.store, 'fin')!;
    assert.ok(held.metadata.deletionTimestamp);
    held.metadata.finalizers = [];
    rt.store.update(PODS, held);
    await waitFor('gone', () => getPod(rt.store, 'fin') === undefined);
  } finally {
    rt.stop();
  }
});

test('1,000 pods are scheduled and become ready within a few seconds', async () => {
  const rt = startRuntime({ readyDelayMs: 100 });
  try {
    const t0 = Date.now();
    for (let i = 0; i < 1000; i++) rt.store.create(PODS, pod(`bulk-${i}`, 'nginx:1.25'));
    await waitFor('all ready', () => rt.store.list(PODS).every((p) => isPodReady(p as Pod)), 10000, 50);
    assert.ok(Date.now() - t0 < 8000, `took ${Date.now() - t0}ms`);
  } finally {
    rt.stop();
  }
});
