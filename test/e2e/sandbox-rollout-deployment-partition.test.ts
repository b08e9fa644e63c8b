// The sandbox's Deployment controller honours Kruise Rollout's Advanced Deployment contract
// (openkruise/rollouts pkg/controller/deployment + batchrelease control/partitionstyle/deployment):
// once the Deployment is paused, Recreate, and carries the BatchRelease control info and the
// `rollouts.kruise.io/deployment-strategy` annotation, the new ReplicaSet grows only to the annotation's
// partition and the old one keeps the rest. Driven with real kubectl patches, exactly the writes
// BatchRelease's Initialize / UpgradeBatch / Finalize make; read back through the API.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl, REPO_ROOT } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'rollout-kruise', 'deployment-shop.yaml');
const STRATEGY = 'rollouts.kruise.io/deployment-strategy';
const EXTRA = 'rollouts.kruise.io/deployment-extra-status';
const CONTROL = 'batchrelease.rollouts.kruise.io/control-info';

interface RS {
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } };
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number };
}

describe('sandbox Deployment under Kruise Rollout partition control (Advanced Deployment)', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ readyDelay: '50ms' });
  });
  after(async () => {
    await sb.stop();
  });

  const replicaSets = async (): Promise<Map<string, RS>> => {
    const res = await sb.api('GET', '/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dshop');
    const out = new Map<string, RS>();
    for (const rs of res.body.items as RS[]) out.set(rs.spec.template.spec.containers[0]!.image, rs);
    return out;
  };
  const deployment = async () => (await sb.api('GET', '/apis/apps/v1/namespaces/default/deployments/shop')).body;
  const patchStrategy = (strategy: object) =>
    kubectl(['patch', 'deployment', 'shop', '--type=merge', '-p', JSON.stringify({ metadata: { annotations: { [STRATEGY]: JSON.stringify(strategy) } } })], sb.kubeconfig);
  /** Waits for new/old ReplicaSet sizes, all pods ready. */
  const settled = (newSize: number, oldSize: number) =>
    waitUntil(`nginx:1.27 ${newSize} ready, nginx:1.25 ${oldSize} ready`, async () => {
      const sets = await replicaSets();
      const n = sets.get('nginx:1.27');
      const o = sets.get('nginx:1.25');
      const ok = (rs: RS | undefined, size: number) => (rs ? rs.spec.replicas === size && (rs.status?.readyReplicas ?? 0) === size : size === 0);
      return ok(n, newSize) && ok(o, oldSize) && sets;
    }, 20_000);

  it('a Deployment of 10 becomes available on its own first', async () => {
    const applied = await kubectl(['apply', '-f', FIXTURE], sb.kubeconfig);
    assert.equal(applied.code, 0, applied.stderr);
    await waitUntil('10 available', async () => (await deployment()).status?.availableReplicas === 10, 20_000);
  });

  it('Initialize (paused, Recreate, control info, partition 0) with a new image: a new ReplicaSet with 0 pods, the old one keeps 10', async () => {
    const init = {
      metadata: {
        labels: { 'rollouts.kruise.io/controlled-by-advanced-deployment-controller': 'true' },
        annotations: {
          [CONTROL]: JSON.stringify({ apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'BatchRelease', name: 'shop', uid: 'b1', controller: true, blockOwnerDeletion: true }),
          [STRATEGY]: JSON.stringify({ rollingStyle: 'Partition', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' }, partition: 0 }),
        },
      },
      spec: { paused: true, strategy: { type: 'Recreate', rollingUpdate: null }, template: { spec: { containers: [{ name: 'shop', image: 'nginx:1.27' }] } } },
    };
    const res = await kubectl(['patch', 'deployment', 'shop', '--type=strategic', '-p', JSON.stringify(init)], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    // The controller has seen it once it wrote its extra status (ExpectedUpdatedReplicas 0 → "{}").
    await waitUntil('extra status written', async () => (await deployment()).metadata.annotations?.[EXTRA] === '{}', 20_000);
    const sets = await settled(0, 10);
    assert.equal(sets.get('nginx:1.27')?.spec.replicas, 0);
  });

  it('UpgradeBatch partition 2: 2 pods on the new ReplicaSet, 8 on the old, extra status says so', async () => {
    const res = await patchStrategy({ rollingStyle: 'Partition', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' }, partition: 2 });
    assert.equal(res.code, 0, res.stderr);
    await settled(2, 8);
    await waitUntil('extra status 2/2', async () => (await deployment()).metadata.annotations?.[EXTRA] === '{"updatedReadyReplicas":2,"expectedUpdatedReplicas":2}', 20_000);
    const d = await deployment();
    assert.equal(d.spec.paused, true);
    assert.equal(d.spec.strategy.type, 'Recreate');
  });

  it('partition "50%": 5 and 5; a strategy annotation saying paused holds the next partition', async () => {
    assert.equal((await patchStrategy({ rollingStyle: 'Partition', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' }, partition: '50%' })).code, 0);
    await settled(5, 5);
    assert.equal((await patchStrategy({ rollingStyle: 'Partition', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' }, partition: '100%', paused: true })).code, 0);
    await waitUntil('extra status with expected 10', async () => /"expectedUpdatedReplicas":10/.test((await deployment()).metadata.annotations?.[EXTRA] ?? ''), 20_000);
    const sets = await replicaSets();
    assert.equal(sets.get('nginx:1.27')?.spec.replicas, 5);
  });

  it('partition 100% then Finalize (resume, RollingUpdate, annotations gone): all 10 on the new ReplicaSet, kubectl rollout status succeeds', async () => {
    assert.equal((await patchStrategy({ rollingStyle: 'Partition', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' }, partition: '100%' })).code, 0);
    await settled(10, 0);
    const fin = {
      metadata: { annotations: { [STRATEGY]: null, [EXTRA]: null, [CONTROL]: null }, labels: { 'rollouts.kruise.io/controlled-by-advanced-deployment-controller': null } },
      spec: { paused: false, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } } },
    };
    assert.equal((await kubectl(['patch', 'deployment', 'shop', '--type=merge', '-p', JSON.stringify(fin)], sb.kubeconfig)).code, 0);
    const status = await kubectl(['rollout', 'status', 'deployment/shop', '--timeout=20s'], sb.kubeconfig);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /successfully rolled out/);
  });
});
