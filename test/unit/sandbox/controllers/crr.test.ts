// ContainerRecreateRequest webhook + controller on the in-memory store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { type MemoryStore, startOnStore, waitFor } from '../../../helpers/memory-store';
import { createNodesController } from '../../../../src/sandbox/controllers/nodes';
import { createScheduler } from '../../../../src/sandbox/controllers/scheduler';
import { createKubelet } from '../../../../src/sandbox/controllers/kubelet';
import { CRRS, createCrrController } from '../../../../src/sandbox/controllers/crr';
import { PODS, isPodReady } from '../../../../src/sandbox/controllers/pods';
import { ApiError } from '../../../../src/sandbox/server/errors';
import type { Controller, SimulationSettings } from '../../../../src/sandbox/store-api';
import type { KubeObject, Pod } from '../../../../src/kruise/types';
import type { CrrStatus } from '../../../../src/kruise/rules/crr';

const fixture = <T = KubeObject>(name: string) => parse(readFileSync(new URL(`../../../fixtures/sandbox-controllers/${name}`, import.meta.url), 'utf8')) as T;

async function start(readyDelayMs = 20, podPatch?: (p: Pod) => void, kruise: SimulationSettings['kruise'] = 'v1.9') {
  const s: SimulationSettings = { readyDelayMs, kruise, nodes: 2, crashBackoff: 'fast' };
  const cs: Controller[] = [createNodesController(), createScheduler(), createKubelet(), createCrrController()];
  const { store, stop } = startOnStore(cs, s);
  const pod = fixture<Pod>('pod-web-0.yaml');
  podPatch?.(pod);
  store.create(PODS, pod);
  await waitFor('pod started', () => (store.get(PODS, 'default', 'web-0') as Pod).status?.containerStatuses?.every((c) => c.containerID));
  return { store, stop };
}

/** The store runs the CRR webhook (the controller's admission hook) before storing, like the API server. */
function createCrr(store: MemoryStore, crr: KubeObject): KubeObject {
  return store.create(CRRS, crr);
}

const crrStatus = (store: MemoryStore, name: string) => (store.get(CRRS, 'default', name)?.status ?? {}) as CrrStatus;
const containerStatus = (store: MemoryStore, name: string) => (store.get(PODS, 'default', 'web-0') as Pod).status!.containerStatuses!.find((c) => c.name === name)!;

test('a CRR restarts exactly the named container (restartCount+1) and completes; labels set, active label removed', async () => {
  const rt = await start();
  try {
    await waitFor('pod ready', () => isPodReady(rt.store.get(PODS, 'default', 'web-0') as Pod));
    const before = containerStatus(rt.store, 'app');
    const created = createCrr(rt.store, fixture('crr-web.yaml'));
    const pod = rt.store.get(PODS, 'default', 'web-0') as Pod;
    assert.equal(created.metadata.labels!['crr.apps.kruise.io/pod-uid'], pod.metadata.uid);
    assert.equal(created.metadata.labels!['crr.apps.kruise.io/node-name'], pod.spec.nodeName);
    assert.equal(created.metadata.labels!['crr.apps.kruise.io/active'], 'true');
    const spec = created.spec as { containers: Array<{ statusContext: { containerID: string; restartCount: number }; ports?: unknown[]; preStop?: unknown }> };
    assert.equal(spec.containers[0].statusContext.containerID, before.containerID);
    // crr_mutating_handler.go injectPodIntoContainerRecreateRequest: the exec preStop hook is
    // copied; ports only accompany an httpGet hook.
    assert.deepEqual(spec.containers[0].preStop, { exec: { command: ['/bin/sh', '-c', 'sleep 2'] } });
    assert.equal(spec.containers[0].ports, undefined);

    const st = await waitFor('completed', () => {
      const s = crrStatus(rt.store, 'web-restart-app');
      return s.phase === 'Completed' ? s : undefined;
    });
    assert.deepEqual(st.containerRecreateStates, [{ name: 'app', phase: 'Succeeded', isKilled: true }]);
    assert.ok(st.completionTime);
    assert.equal(st.message, undefined);
    const after = containerStatus(rt.store, 'app');
    assert.equal(after.restartCount, before.restartCount + 1);
    assert.notEqual(after.containerID, before.containerID);
    assert.equal(containerStatus(rt.store, 'log-agent').restartCount, 0);
    // the controller drops the active label in its own write after the status turned Completed
    await waitFor('active label removed', () => rt.store.get(CRRS, 'default', 'web-restart-app')!.metadata.labels!['crr.apps.kruise.io/active'] === undefined);
    await waitFor('ready again', () => isPodReady(rt.store.get(PODS, 'default', 'web-0') as Pod));
  } finally {
    rt.stop();
  }
});

test('the webhook rejects unknown containers, duplicates, a short deadline, a missing pod, and spec updates (422)', async () => {
  const rt = await start();
  try {
    const base = fixture('crr-web.yaml');
    const bad = (mut: (c: KubeObject) => void, field: RegExp) => {
      const c = structuredClone(base);
      mut(c);
      assert.throws(
        () => createCrr(rt.store, c),
        (e: unknown) => e instanceof ApiError && e.code === 422 && field.test(e.message),
      );
    };
    bad((c) => ((c.spec as { containers: unknown[] }).containers = [{ name: 'nope' }]), /spec\.containers\[0\]\.name/);
    bad((c) => ((c.spec as { containers: unknown[] }).containers = [{ name: 'app' }, { name: 'app' }]), /Duplicate/);
    bad((c) => ((c.spec as Record<string, unknown>).activeDeadlineSeconds = 2), /spec\.activeDeadlineSeconds/);
    bad((c) => ((c.spec as Record<string, unknown>).podName = 'ghost'), /spec\.podName/);
    bad((c) => delete (c.spec as Record<string, unknown>).podName, /spec\.podName/);
    // crr_mutating_handler.go: "preStop, ports, statusContext in container are ready-only fields".
    bad((c) => ((c.spec as { containers: unknown[] }).containers = [{ name: 'app', statusContext: { containerID: 'containerd://x', restartCount: 0 } }]), /ready-only fields/);
    const created = createCrr(rt.store, base);
    const changed = structuredClone(created);
    (changed.spec as Record<string, unknown>).activeDeadlineSeconds = 600;
    // Without a resourceVersion, so the controller's own status writes cannot turn this into a 409.
    delete changed.metadata.resourceVersion;
    assert.throws(() => rt.store.update(CRRS, changed), (e: unknown) => e instanceof ApiError && e.code === 422 && /immutable/.test(e.message));
  } finally {
    rt.stop();
  }
});

test('a second CRR of the same pod waits in Pending while the first is Recreating; orderedRecreate goes one container at a time', async () => {
  const rt = await start(30);
  try {
    const first = fixture('crr-web.yaml');
    first.metadata.name = 'first';
    (first.spec as { containers: unknown[]; strategy: Record<string, unknown> }).containers = [{ name: 'app' }, { name: 'log-agent' }];
    (first.spec as { strategy: Record<string, unknown> }).strategy = { orderedRecreate: true, minStartedSeconds: 1 };
    createCrr(rt.store, first);
    const second = fixture('crr-web.yaml');
    second.metadata.name = 'second';
    createCrr(rt.store, second);
    const seen = new Set<string>();
    rt.store.subscribe((ev) => {
      if (ev.gr.resource !== 'containerrecreaterequests' || ev.object.metadata.name !== 'first') return;
      const states = (ev.object.status as CrrStatus | undefined)?.containerRecreateStates ?? [];
      seen.add(states.map((s) => `${s.name}:${s.phase}`).join(','));
    });
    await waitFor('first recreating', () => crrStatus(rt.store, 'first').phase === 'Recreating');
    assert.equal(crrStatus(rt.store, 'second').phase, 'Pending');
    await waitFor('first completed', () => crrStatus(rt.store, 'first').phase === 'Completed', 6000);
    assert.ok(seen.has('app:Succeeded,log-agent:Recreating'), `ordered: ${[...seen].join(' | ')}`);
    assert.ok(![...seen].some((x) => x === 'app:Recreating,log-agent:Recreating'));
    await waitFor('second completed', () => crrStatus(rt.store, 'second').phase === 'Completed', 4000);
    // Kruise judges "already recreated" against the statusContext taken at creation
    // (crr_daemon_util.go getCurrentCRRContainersRecreateStates: a new containerID counts), so
    // the queued request sees `app` restarted by the first one and succeeds without a kill.
    assert.deepEqual(crrStatus(rt.store, 'second').containerRecreateStates, [{ name: 'app', phase: 'Succeeded' }]);
    assert.equal(containerStatus(rt.store, 'app').restartCount, 1);
    assert.equal(containerStatus(rt.store, 'log-agent').restartCount, 1);
  } finally {
    rt.stop();
  }
});

test('a crashlooping container stays Recreating until activeDeadlineSeconds, then Completed with "recreating has exceeded the activeDeadlineSeconds" (pkg/controller/containerrecreaterequest/crr_controller.go Reconcile; crr_daemon_util.go getCurrentCRRContainersRecreateStates); pod deletion → "pod has gone"; TTL deletes', async () => {
  const rt = await start(20, (p) => {
    p.spec.containers[0].image = 'registry.example.com/shop/web:crashloop';
  });
  try {
    const c = fixture('crr-web.yaml');
    (c.spec as { containers: unknown[] }).containers = [{ name: 'app' }, { name: 'log-agent' }];
    (c.spec as Record<string, unknown>).ttlSecondsAfterFinished = 1;
    (c.spec as Record<string, unknown>).activeDeadlineSeconds = 3;
    (c.spec as { strategy: Record<string, unknown> }).strategy = { failurePolicy: 'Fail', orderedRecreate: true };
    const created = createCrr(rt.store, c);
    await waitFor('recreating', () => crrStatus(rt.store, 'web-restart-app').containerRecreateStates?.[0]?.phase === 'Recreating');
    const st = await waitFor(
      'completed',
      () => {
        const s = crrStatus(rt.store, 'web-restart-app');
        return s.phase === 'Completed' ? s : undefined;
      },
      6000,
    );
    const createdMs = Date.parse(created.metadata.creationTimestamp!);
    assert.ok(Date.parse(st.completionTime!) >= createdMs + 3000, `completed at the deadline, not before: ${st.completionTime} vs ${created.metadata.creationTimestamp}`);
    assert.equal(st.message, 'recreating has exceeded the activeDeadlineSeconds');
    // Kruise never marks a crashing container Failed: its state stays as the deadline found it,
    // and orderedRecreate never got to the second container.
    assert.equal(st.containerRecreateStates![0].phase, 'Recreating');
    assert.equal(st.containerRecreateStates![1].phase, 'Pending');
    assert.equal(containerStatus(rt.store, 'log-agent').restartCount, 0);
    await waitFor('ttl deleted', () => rt.store.get(CRRS, 'default', 'web-restart-app') === undefined, 4000);

    const gone = fixture('crr-web.yaml');
    gone.metadata.name = 'gone';
    (gone.spec as { containers: unknown[]; strategy: Record<string, unknown> }).containers = [{ name: 'log-agent' }];
    (gone.spec as { strategy: Record<string, unknown> }).strategy = { minStartedSeconds: 5 };
    createCrr(rt.store, gone);
    await waitFor('recreating', () => crrStatus(rt.store, 'gone').phase === 'Recreating');
    rt.store.delete(PODS, 'default', 'web-0');
    const g = await waitFor('pod has gone', () => {
      const s = crrStatus(rt.store, 'gone');
      return s.phase === 'Completed' ? s : undefined;
    });
    assert.equal(g.message, 'pod has gone');
  } finally {
    rt.stop();
  }
});

for (const kruise of ['v1.9', 'master'] as const) {
test(`unreadyGracePeriodSeconds (${kruise}): the pod is held not-ready through its KruisePodReady gate for the grace period before the kill, then released, the time and the synced statuses kept ${kruise === 'master' ? 'in status (v1beta1: PreRecreateGrace, containerStatusSnapshot)' : 'in annotations (v1alpha1)'} (pkg/controller/containerrecreaterequest/crr_controller.go acquirePodNotReady/waitRecreateGracePeriod, releasePodNotReady, syncContainerStatuses; crr_daemon_controller.go sync)`, async () => {
  const rt = await start(20, (p) => {
    p.spec.readinessGates = [{ conditionType: 'KruisePodReady' }];
  }, kruise);
  try {
    const pod0 = rt.store.get(PODS, 'default', 'web-0') as Pod;
    const conds = [...(pod0.status!.conditions ?? []), { type: 'KruisePodReady', status: 'True', lastTransitionTime: pod0.metadata.creationTimestamp }];
    rt.store.updateStatus(PODS, { ...pod0, status: { ...pod0.status, conditions: conds } } as KubeObject);
    await waitFor('pod ready', () => isPodReady(rt.store.get(PODS, 'default', 'web-0') as Pod));
    const before = containerStatus(rt.store, 'app').restartCount;
    const c = fixture('crr-web.yaml');
    (c.spec as { strategy: Record<string, unknown> }).strategy = { unreadyGracePeriodSeconds: 2 };
    createCrr(rt.store, c);
    const held = await waitFor('pod held not-ready', () => {
      const pod = rt.store.get(PODS, 'default', 'web-0') as Pod;
      const gate = pod.status?.conditions?.find((x) => x.type === 'KruisePodReady');
      return gate?.status === 'False' ? { pod, gate } : undefined;
    });
    assert.equal(held.gate.message, '[{"userAgent":"ContainerRecreateRequest","key":"default/web-restart-app"}]');
    assert.equal(isPodReady(held.pod), false);
    const crr = rt.store.get(CRRS, 'default', 'web-restart-app')!;
    assert.deepEqual(crr.metadata.finalizers, ['crr.apps.kruise.io/unready-acquired']);
    const grace = (crr.status as CrrStatus | undefined)?.conditions?.find((x) => x.type === 'PreRecreateGrace');
    const acquired = Date.parse(kruise === 'master' ? grace!.lastTransitionTime! : crr.metadata.annotations!['crr.apps.kruise.io/unready-acquired']!);
    assert.ok(!Number.isNaN(acquired));
    if (kruise === 'master') {
      assert.equal(crr.apiVersion, 'apps.kruise.io/v1beta1');
      assert.deepEqual({ ...grace, lastTransitionTime: 'T' }, { type: 'PreRecreateGrace', status: 'True', lastTransitionTime: 'T', reason: 'PreRecreateGrace', message: 'Pod has been forced to not-ready for unreadyGracePeriodSeconds drain' });
      assert.equal(crr.metadata.annotations?.['crr.apps.kruise.io/unready-acquired'], undefined, 'master writes no annotation');
    } else assert.equal(grace, undefined);
    assert.equal(containerStatus(rt.store, 'app').restartCount, before, 'not killed during the grace period');
    const killedAt = await waitFor('killed', () => (containerStatus(rt.store, 'app').restartCount > before ? Date.now() : undefined), 5000);
    assert.ok(killedAt >= acquired + 2000, `killed ${killedAt - acquired}ms after the pod was made not-ready`);
    await waitFor('completed', () => crrStatus(rt.store, 'web-restart-app').phase === 'Completed', 5000);
    await waitFor('released', () => {
      const pod = rt.store.get(PODS, 'default', 'web-0') as Pod;
      const gate = pod.status?.conditions?.find((x) => x.type === 'KruisePodReady');
      return gate?.status === 'True' && gate.message === '[]' && (rt.store.get(CRRS, 'default', 'web-restart-app')!.metadata.finalizers ?? []).length === 0;
    });
    await waitFor('ready again', () => isPodReady(rt.store.get(PODS, 'default', 'web-0') as Pod));
    const done = rt.store.get(CRRS, 'default', 'web-restart-app')!;
    const synced = kruise === 'master' ? (done.status as CrrStatus).containerStatusSnapshot : JSON.parse(done.metadata.annotations!['crr.apps.kruise.io/sync-container-statuses']!);
    assert.deepEqual(synced.map((x: { name: string; ready: boolean; restartCount: number }) => [x.name, x.ready, x.restartCount]), [['app', true, before + 1]]);
    if (kruise === 'master') assert.equal(done.metadata.annotations?.['crr.apps.kruise.io/sync-container-statuses'], undefined);
  } finally {
    rt.stop();
  }
});
}

test('minStartedSeconds: the recreated container succeeds only after running that long (pkg/daemon/containerrecreate/crr_daemon_util.go getCurrentCRRContainersRecreateStates)', async () => {
  const rt = await start(20);
  try {
    await waitFor('pod ready', () => isPodReady(rt.store.get(PODS, 'default', 'web-0') as Pod));
    const c = fixture('crr-web.yaml');
    (c.spec as { strategy: Record<string, unknown> }).strategy = { minStartedSeconds: 2 };
    createCrr(rt.store, c);
    await waitFor('ready after the kill', () => containerStatus(rt.store, 'app').restartCount === 1 && containerStatus(rt.store, 'app').ready);
    const startedAt = Date.parse(containerStatus(rt.store, 'app').state!.running!.startedAt!);
    assert.notEqual(crrStatus(rt.store, 'web-restart-app').phase, 'Completed');
    await waitFor('completed', () => crrStatus(rt.store, 'web-restart-app').phase === 'Completed', 6000);
    assert.ok(Date.now() > startedAt + 2000);
    assert.deepEqual(crrStatus(rt.store, 'web-restart-app').containerRecreateStates, [{ name: 'app', phase: 'Succeeded', isKilled: true }]);
  } finally {
    rt.stop();
  }
});
