// The sandbox's runtime and native controllers through real kubectl (v1.32): Deployment
// rollout status / history / undo, get -w seeing pods become Ready, cascading delete,
// StatefulSet and DaemonSet rollout status, a ContainerRecreateRequest restarting one
// container, and an ImagePullJob's per-node progress. Results are read back through the API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { kubectl, REPO_ROOT, streamKubectl } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'sandbox-controllers');

describe('sandbox runtime and native controllers with real kubectl', () => {
  let sb: Sandbox;
  const k = (args: string[], input?: string) => kubectl(args, sb.kubeconfig, { input, timeoutMs: 40_000 });

  before(async () => {
    sb = await startSandbox({ readyDelay: '100ms', nodes: 3 });
  });
  after(async () => {
    assert.equal(await sb.stop(), 0, 'the sandbox exits 0 on SIGTERM');
  });

  it('applies a Deployment; get -w sees its pods Ready; rollout status succeeds', async () => {
    const watch = streamKubectl(['get', 'pods', '-l', 'app=web', '-w'], sb.kubeconfig);
    try {
      const applied = await k(['apply', '-f', join(FIXTURES, 'deployment-web.yaml')]);
      assert.equal(applied.code, 0, applied.stderr);
      const status = await k(['rollout', 'status', 'deployment/web', '--timeout', '30s']);
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, /deployment "web" successfully rolled out/);
      await watch.waitFor(/web-\S+-\S+\s+1\/1\s+Running\s+0/);
    } finally {
      await watch.stop();
    }
    const pods = (await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items as Array<{ status: { conditions: Array<{ type: string; status: string }> }; spec: { nodeName: string } }>;
    assert.equal(pods.length, 4);
    assert.ok(pods.every((p) => p.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True') && /^node-\d$/.test(p.spec.nodeName)));
  });

  it('set image rolls out revision 2; history lists both with change-cause; undo brings revision 3', async () => {
    const set = await k(['set', 'image', 'deployment/web', 'nginx=nginx:1.26']);
    assert.equal(set.code, 0, set.stderr);
    const annotate = await k(['annotate', 'deployment/web', 'kubernetes.io/change-cause=set image nginx:1.26', '--overwrite']);
    assert.equal(annotate.code, 0, annotate.stderr);
    const status = await k(['rollout', 'status', 'deployment/web', '--timeout', '30s']);
    assert.equal(status.code, 0, status.stderr);
    await waitUntil('revision-2 rs annotated', async () => {
      const history = await k(['rollout', 'history', 'deployment/web']);
      return /^2\s+set image nginx:1\.26$/m.test(history.stdout) ? history : undefined;
    });
    const history = await k(['rollout', 'history', 'deployment/web']);
    assert.match(history.stdout, /^1\s+kubectl apply --filename=web\.yaml$/m);
    const undo = await k(['rollout', 'undo', 'deployment/web']);
    assert.equal(undo.code, 0, undo.stderr);
    assert.match(undo.stdout, /rolled back/);
    const after = await k(['rollout', 'status', 'deployment/web', '--timeout', '30s']);
    assert.equal(after.code, 0, after.stderr);
    await waitUntil('revision 3', async () => {
      const d = (await sb.api('GET', '/apis/apps/v1/namespaces/default/deployments/web')).body;
      return d.metadata.annotations?.['deployment.kubernetes.io/revision'] === '3' && d.status.updatedReplicas === 4 && d.status.replicas === 4;
    });
    const pods = (await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items as Array<{ spec: { containers: Array<{ image: string }> } }>;
    assert.ok(pods.every((p) => p.spec.containers[0].image === 'nginx:1.25'));
    const revs = await k(['rollout', 'history', 'deployment/web']);
    assert.match(revs.stdout, /^2\s/m);
    assert.match(revs.stdout, /^3\s/m);
    assert.doesNotMatch(revs.stdout, /^1\s/m, 'revision 1 moved to 3');
  });

  it('a ContainerRecreateRequest restarts exactly the named container', async () => {
    const pods = (await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items as Array<{ metadata: { name: string }; status: { containerStatuses: Array<{ restartCount: number }> } }>;
    const target = pods[0].metadata.name;
    const crr = {
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'ContainerRecreateRequest',
      metadata: { name: 'restart-nginx', namespace: 'default' },
      spec: { podName: target, containers: [{ name: 'nginx' }], strategy: { failurePolicy: 'Fail' }, ttlSecondsAfterFinished: 600 },
    };
    const created = await k(['create', '-f', '-'], JSON.stringify(crr));
    assert.equal(created.code, 0, created.stderr);
    await waitUntil('CRR completed', async () => {
      const r = (await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/containerrecreaterequests/restart-nginx')).body;
      return r.status?.phase === 'Completed' ? r : undefined;
    });
    const table = await k(['get', 'crr', 'restart-nginx']);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, new RegExp(`restart-nginx\\s+Completed\\s+${target}\\s+node-\\d`));
    const pod = (await sb.api('GET', `/api/v1/namespaces/default/pods/${target}`)).body;
    assert.equal(pod.status.containerStatuses[0].restartCount, pods[0].status.containerStatuses[0].restartCount + 1);
    const bad = await k(['create', '-f', '-'], JSON.stringify({ ...crr, metadata: { name: 'bad', namespace: 'default' }, spec: { podName: target, containers: [{ name: 'nope' }] } }));
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /spec\.containers\[0\]\.name/);
  });

  it('an ImagePullJob pulls on each selected node and completes', async () => {
    const applied = await k(['apply', '-f', join(FIXTURES, 'imagepulljob-nginx.yaml')]);
    assert.equal(applied.code, 0, applied.stderr);
    const job = await waitUntil('job completed', async () => {
      const j = (await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/imagepulljobs/pull-nginx')).body;
      return j.status?.completionTime ? j : undefined;
    });
    assert.equal(job.status.desired, 3);
    assert.equal(job.status.succeeded, 3);
    assert.equal(job.status.message, 'job has completed');
    const bad = await k(['create', '-f', '-'], JSON.stringify({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'ImagePullJob', metadata: { name: 'bad-image', namespace: 'default' }, spec: { image: 'NGINX:1.25' } }));
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /spec\.image/);
  });

  it('StatefulSet and DaemonSet roll out under kubectl rollout status', async () => {
    for (const f of ['statefulset-db.yaml', 'daemonset-agent.yaml']) {
      const applied = await k(['apply', '-f', join(FIXTURES, f)]);
      assert.equal(applied.code, 0, applied.stderr);
    }
    const sts = await k(['rollout', 'status', 'statefulset/db', '--timeout', '30s']);
    assert.equal(sts.code, 0, sts.stderr);
    assert.match(sts.stdout, /partitioned roll out complete|statefulset rolling update complete 3 pods/);
    const ds = await k(['rollout', 'status', 'daemonset/agent', '-n', 'kube-system', '--timeout', '30s']);
    assert.equal(ds.code, 0, ds.stderr);
    assert.match(ds.stdout, /daemon set "agent" successfully rolled out/);
    const set = await k(['set', 'image', 'statefulset/db', 'postgres=postgres:16.2']);
    assert.equal(set.code, 0, set.stderr);
    const again = await k(['rollout', 'status', 'statefulset/db', '--timeout', '30s']);
    assert.equal(again.code, 0, again.stderr);
    const db0 = (await sb.api('GET', '/api/v1/namespaces/default/pods/db-0')).body;
    assert.equal(db0.spec.containers[0].image, 'postgres:16.2');
    const history = await k(['rollout', 'history', 'statefulset/db']);
    assert.equal(history.code, 0, history.stderr);
    assert.match(history.stdout, /^1\s/m);
    assert.match(history.stdout, /^2\s/m);
    const undo = await k(['rollout', 'undo', 'statefulset/db']);
    assert.equal(undo.code, 0, undo.stderr);
    const undone = await k(['rollout', 'status', 'statefulset/db', '--timeout', '30s']);
    assert.equal(undone.code, 0, undone.stderr);
    await waitUntil('db-0 back on 16.1, revision 3', async () => {
      const pod = (await sb.api('GET', '/api/v1/namespaces/default/pods/db-0')).body;
      const revs = (await sb.api('GET', '/apis/apps/v1/namespaces/default/controllerrevisions')).body.items as Array<{ metadata: { name: string }; revision: number }>;
      const st = (await sb.api('GET', '/apis/apps/v1/namespaces/default/statefulsets/db')).body.status;
      const current = revs.find((r) => r.metadata.name === st.updateRevision);
      return pod.spec.containers[0].image === 'postgres:16.1' && revs.filter((r) => r.metadata.name.startsWith('db-')).length === 2 && current?.revision === 3;
    });
  });

  it('deleting the Deployment cascades to its ReplicaSets and pods', async () => {
    const del = await k(['delete', 'deployment', 'web']);
    assert.equal(del.code, 0, del.stderr);
    await waitUntil('pods gone', async () => {
      const pods = (await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items as unknown[];
      const sets = (await sb.api('GET', '/apis/apps/v1/namespaces/default/replicasets')).body.items as unknown[];
      return pods.length === 0 && sets.length === 0;
    });
  });
});
