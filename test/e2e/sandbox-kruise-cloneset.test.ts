// The sandbox's CloneSet controller driven by real kubectl, on `--kruise v1.9` (v1alpha1 storage)
// and `--kruise master` (v1beta1 storage, v1alpha1 still served): pods become Ready, an image
// patch with partition 90% updates exactly one pod in place, partition 0 finishes the rollout.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { kubectl, REPO_ROOT, runCli } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const FIXTURE = join(REPO_ROOT, 'test/fixtures/kruise-controllers/cloneset-v1alpha1.yaml');
const HOOKED = join(REPO_ROOT, 'test/fixtures/kruise-controllers/cloneset-prenormal-deadline.yaml');

async function kubectlOk(sb: Sandbox, args: string[]): Promise<string> {
  const r = await kubectl(args, sb.kubeconfig);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function getJson(sb: Sandbox, args: string[]): Promise<any> {
  return JSON.parse(await kubectlOk(sb, ['get', ...args, '-o', 'json']));
}

for (const release of ['v1.9', 'master'] as const) {
  describe(`CloneSet on --kruise ${release}`, () => {
    let sb: Sandbox;
    before(async () => {
      sb = await startSandbox({ kruise: release, readyDelay: '100ms' });
    });
    after(async () => {
      await sb?.stop();
    });

    test('apply → Ready; image + partition 90% → exactly 1 pod updated in place; partition 0 → all', async () => {
      await kubectlOk(sb, ['apply', '-f', FIXTURE]);
      const first = await waitUntil('8 ready', async () => {
        const cs = await getJson(sb, ['clonesets', 'web']);
        return cs.status?.readyReplicas === 8 && cs.status.updatedReadyReplicas === 8 ? cs : undefined;
      });
      assert.equal(first.status.expectedUpdatedReplicas, 8);
      assert.equal(first.status.currentRevision, first.status.updateRevision);
      const pods = await getJson(sb, ['pods', '-l', 'app=web']);
      assert.equal(pods.items.length, 8);
      const uids = new Map(pods.items.map((p: any) => [p.metadata.name, p.metadata.uid]));

      // v1alpha1 shape through the v1alpha1 endpoint on both releases (converted on master)
      await kubectlOk(sb, [
        'patch', 'clonesets.v1alpha1.apps.kruise.io', 'web', '--type', 'json', '-p',
        JSON.stringify([
          { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.26' },
          { op: 'replace', path: '/spec/updateStrategy/partition', value: '90%' },
        ]),
      ]);
      const part = await waitUntil('1 updated and ready', async () => {
        const cs = await getJson(sb, ['clonesets', 'web']);
        const s = cs.status;
        return s.observedGeneration === cs.metadata.generation && s.updatedReadyReplicas === 1 && s.readyReplicas === 8 ? cs : undefined;
      });
      assert.equal(part.status.expectedUpdatedReplicas, 1);
      assert.equal(part.status.updatedReplicas, 1);
      assert.equal(part.status.currentRevision, first.status.updateRevision);
      assert.notEqual(part.status.updateRevision, first.status.updateRevision);
      const after1 = (await getJson(sb, ['pods', '-l', 'app=web'])).items;
      const updated = after1.filter((p: any) => p.spec.containers[0].image === 'nginx:1.26');
      assert.equal(updated.length, 1);
      assert.equal(updated[0].metadata.uid, uids.get(updated[0].metadata.name), 'updated in place: same pod');
      assert.equal(updated[0].status.containerStatuses[0].restartCount, 1);
      assert.equal(updated[0].metadata.labels['controller-revision-hash'], part.status.updateRevision);

      await kubectlOk(sb, ['patch', 'clonesets.v1alpha1.apps.kruise.io', 'web', '--type', 'merge', '-p', '{"spec":{"updateStrategy":{"partition":0}}}']);
      const done = await waitUntil('all updated', async () => {
        const cs = await getJson(sb, ['clonesets', 'web']);
        const s = cs.status;
        return s.observedGeneration === cs.metadata.generation && s.updatedReadyReplicas === 8 && s.currentRevision === s.updateRevision ? cs : undefined;
      });
      assert.equal(done.status.expectedUpdatedReplicas, 8);
      const revs = await getJson(sb, ['controllerrevisions']);
      assert.deepEqual(revs.items.map((r: any) => r.revision).sort(), [1, 2]);
    });

    test('the webhook rejects an InPlaceOnly CloneSet with maxSurge (422 with the field path)', async () => {
      const r = await kubectl(
        ['patch', 'clonesets.v1alpha1.apps.kruise.io', 'web', '--type', 'merge', '-p', '{"spec":{"updateStrategy":{"type":"InPlaceOnly","maxSurge":1}}}'],
        sb.kubeconfig,
      );
      assert.equal(r.code, 1);
      assert.match(r.stderr, /spec\.updateStrategy\.(rollingUpdate\.)?maxSurge: Invalid value: 1: can not use maxSurge with strategy type InPlaceOnly/);
    });

    test('Kruise e2e "creates with lifecycle preNormal finalizer" (test/e2e/apps/v1alpha1/cloneset.go): ProgressDeadlineExceeded, `rollout status` exits 1, the hook released → CloneSetAvailable', async () => {
      await kubectlOk(sb, ['apply', '-f', HOOKED]);
      const stuck = await waitUntil('deadline exceeded', async () => {
        const cs = await getJson(sb, ['clonesets', 'hooked']);
        const c = (cs.status?.conditions ?? []).find((x: any) => x.type === 'Progressing');
        return c?.reason === 'ProgressDeadlineExceeded' ? { cs, c } : undefined;
      }, 20_000);
      assert.equal(stuck.c.status, 'False');
      assert.equal(stuck.c.message, `CloneSet revision ${stuck.cs.status.updateRevision} has timed out progressing`);
      assert.equal(stuck.cs.status.readyReplicas, 1, 'the pod is ready, only not available');
      const r = await runCli(['rollout', 'status', 'cloneset/hooked', '--timeout=20s'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /^error: .*"hooked".*progress deadline.*timed out progressing/m);

      const pods = await getJson(sb, ['pods', '-l', 'app=hooked']);
      assert.equal(pods.items[0].metadata.labels['lifecycle.apps.kruise.io/state'], 'PreparingNormal');
      await kubectlOk(sb, ['patch', 'pod', pods.items[0].metadata.name, '--type', 'merge', '-p', '{"metadata":{"finalizers":["finalizers.sigs.k8s.io/test"]}}']);
      const ok = await waitUntil('available', async () => {
        const cs = await getJson(sb, ['clonesets', 'hooked']);
        const c = (cs.status?.conditions ?? []).find((x: any) => x.type === 'Progressing');
        return c?.reason === 'CloneSetAvailable' ? c : undefined;
      }, 20_000);
      assert.equal(ok.status, 'True');
      await kubectlOk(sb, ['patch', 'pod', pods.items[0].metadata.name, '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}']);
      await kubectlOk(sb, ['delete', 'clonesets', 'hooked']);
    });

    if (release === 'master') {
      test('v1beta1 shape: rollingUpdate.paused stops the update, unpausing finishes it', async () => {
        const cs0 = await getJson(sb, ['clonesets.v1beta1.apps.kruise.io', 'web']);
        assert.equal(cs0.apiVersion, 'apps.kruise.io/v1beta1');
        assert.equal(cs0.spec.updateStrategy.type, 'RollingUpdate');
        await kubectlOk(sb, [
          'patch', 'clonesets.v1beta1.apps.kruise.io', 'web', '--type', 'merge', '-p',
          JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } }, updateStrategy: { rollingUpdate: { paused: true } } } }),
        ]);
        await waitUntil('observed', async () => {
          const cs = await getJson(sb, ['clonesets.v1beta1.apps.kruise.io', 'web']);
          return cs.status.observedGeneration === cs.metadata.generation ? cs : undefined;
        });
        await new Promise((r) => setTimeout(r, 300));
        const paused = await getJson(sb, ['clonesets.v1beta1.apps.kruise.io', 'web']);
        assert.equal(paused.status.updatedReplicas, 0, 'paused: nothing updated');
        await kubectlOk(sb, ['patch', 'clonesets.v1beta1.apps.kruise.io', 'web', '--type', 'merge', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"paused":false}}}}']);
        await waitUntil('all updated', async () => {
          const cs = await getJson(sb, ['clonesets.v1beta1.apps.kruise.io', 'web']);
          return cs.status.updatedReadyReplicas === 8 && cs.status.currentRevision === cs.status.updateRevision ? cs : undefined;
        });
      });
    }
  });
}
