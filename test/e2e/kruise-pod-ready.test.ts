// The KruisePodReady readiness gate on the sandbox: Kruise's pod webhook injects it into pods of
// Kruise workloads (pkg/webhook/pod/mutating/pod_readiness.go), the podreadiness controller sets it
// True, and a CRR with unreadyGracePeriodSeconds flips it False so the pod is NotReady before its
// container is killed. Read back through the API.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { kubectl, runCli, REPO_ROOT } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

interface PodView {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { readinessGates?: Array<{ conditionType: string }> };
  status?: { phase?: string; conditions?: Array<{ type: string; status?: string }>; containerStatuses?: Array<{ name: string; restartCount: number }> };
}

let sb: Sandbox;

async function apiPods(): Promise<PodView[]> {
  const r = await sb.api('GET', `/api/v1/namespaces/default/pods?labelSelector=${encodeURIComponent('app=api')}`);
  return (r.body.items as PodView[]).filter((p) => !p.metadata.deletionTimestamp);
}
const cond = (p: PodView, type: string) => p.status?.conditions?.find((c) => c.type === type)?.status;
const restarts = (p: PodView) => p.status?.containerStatuses?.find((c) => c.name === 'nginx')?.restartCount;

before(async () => {
  sb = await startSandbox({ readyDelay: 200 });
  const r = await kubectl(['apply', '-f', join(REPO_ROOT, 'test', 'fixtures', 'sandbox-controllers', 'cloneset-api-one.yaml')], sb.kubeconfig);
  assert.equal(r.code, 0, r.stderr);
});

after(async () => {
  await sb?.stop();
});

test('CloneSet pods carry the KruisePodReady gate, set True (pod_readiness.go injectPodReadinessGate, pkg/controller/podreadiness Reconcile)', async () => {
  const [pod] = await waitUntil('api pod ready', async () => {
    const list = await apiPods();
    return list.length === 1 && cond(list[0], 'Ready') === 'True' ? list : undefined;
  });
  assert.ok(pod.spec.readinessGates?.some((g) => g.conditionType === 'KruisePodReady'), 'gate injected');
  assert.equal(cond(pod, 'KruisePodReady'), 'True');
});

test('restart --unready-grace-period=2s makes the pod NotReady (Ready False) before its container restarts (crr_daemon_controller.go unreadyGracePeriodSeconds)', async () => {
  const [before0] = await waitUntil('api pod ready', async () => {
    const list = await apiPods();
    return list.length === 1 && cond(list[0], 'Ready') === 'True' ? list : undefined;
  });
  const restartsBefore = restarts(before0) ?? 0;
  const cli = runCli(['restart', 'cloneset/api', '--unready-grace-period=2s'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
  const notReady = await waitUntil('pod NotReady while its container has not restarted yet', async () => {
    const [p] = await apiPods();
    return p && cond(p, 'Ready') === 'False' && restarts(p) === restartsBefore ? p : undefined;
  });
  assert.equal(cond(notReady, 'KruisePodReady'), 'False', 'held through the KruisePodReady gate');
  const r = await cli;
  assert.equal(r.code, 0, r.stderr);
  const after0 = await waitUntil('container restarted and pod Ready again', async () => {
    const [p] = await apiPods();
    return p && restarts(p) === restartsBefore + 1 && cond(p, 'Ready') === 'True' ? p : undefined;
  });
  assert.equal(cond(after0, 'KruisePodReady'), 'True', 'gate released after the restart');
});
