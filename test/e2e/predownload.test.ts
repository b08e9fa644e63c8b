// `predownload` against the sandbox: a workload's new image on exactly the nodes of its old
// pods, failures listed per node, several images, and the client engine's pull pods.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { kubectl, runCli, REPO_ROOT } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'ops');
let sb: Sandbox;

interface PodView {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { nodeName?: string; containers: Array<{ name: string; image: string }> };
  status?: { phase?: string; conditions?: Array<{ type: string; status: string }> };
}

async function webPods(): Promise<PodView[]> {
  const r = await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb');
  return (r.body.items as PodView[]).filter((p) => !p.metadata.deletionTimestamp);
}

before(async () => {
  sb = await startSandbox({ readyDelay: 200, nodes: 4 });
  // 3 pods on 4 nodes: the job must target the pods' nodes, not every node.
  const a = await kubectl(['apply', '-f', join(FIXTURES, 'cloneset-web.yaml')], sb.kubeconfig);
  assert.equal(a.code, 0, a.stderr);
  const s = await kubectl(['scale', 'cloneset/web', '--replicas=3'], sb.kubeconfig);
  assert.equal(s.code, 0, s.stderr);
  await waitUntil('3 ready web pods', async () => {
    const list = await webPods();
    return list.length === 3 && list.every((p) => p.status?.phase === 'Running');
  });
});

after(async () => {
  await sb?.stop();
});

test('predownload cloneset/web after a template image change: one ImagePullJob on the old pods\' nodes', async () => {
  const p = await kubectl(
    ['patch', 'cloneset/web', '--type=merge', '-p', '{"spec":{"updateStrategy":{"paused":true},"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27.0"},{"name":"log-agent","image":"fluent/fluent-bit:2.2"}]}}}}'],
    sb.kubeconfig,
  );
  assert.equal(p.code, 0, p.stderr);
  const old = await webPods();
  assert.ok(old.every((x) => x.spec.containers[0]!.image === 'nginx:1.25.3'), 'paused: pods still run the old image');
  const oldNodes = [...new Set(old.map((x) => x.spec.nodeName!))].sort();

  const r = await runCli(['predownload', 'cloneset/web'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, /succeeded, 0 failed/);
  const jobs = (await sb.api('GET', '/apis/apps.kruise.io/v1beta1/namespaces/default/imagepulljobs')).body.items as Array<{
    spec: { image: string; selector?: { names?: string[] }; podSelector?: { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values: string[] }> } };
    status: { desired: number; succeeded: number; failed: number };
  }>;
  assert.equal(jobs.length, 1);
  const job = jobs[0]!;
  assert.equal(job.spec.image, 'nginx:1.27.0');
  if (job.spec.selector) {
    assert.deepEqual([...job.spec.selector.names!].sort(), oldNodes);
  } else {
    // podSelector: the CloneSet's pods that are not at the update revision — the old ones.
    assert.deepEqual(job.spec.podSelector!.matchLabels, { app: 'web' });
    assert.ok(job.spec.podSelector!.matchExpressions!.some((e) => e.key === 'controller-revision-hash' && e.operator === 'NotIn'));
  }
  assert.equal(job.status.desired, oldNodes.length);
  assert.equal(job.status.succeeded, oldNodes.length);

  // Nothing left to pull once the pods run the template's images.
  const again = await runCli(['predownload', 'cloneset/web'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
  assert.equal(again.code, 0, again.stderr);
  assert.equal((await sb.api('GET', '/apis/apps.kruise.io/v1beta1/namespaces/default/imagepulljobs')).body.items.length, 1, 'the rerun follows the same job');
});

test('predownload cloneset/web --image: the given image on the nodes of its pods (warming before a switch), dry run first', async () => {
  const nodes = [...new Set((await webPods()).map((x) => x.spec.nodeName!))].sort();
  assert.ok(nodes.length >= 1 && nodes.length < 4, `pods on ${nodes.join(',')}: the job must not simply take every node`);
  sb.clearAudit();
  const dry = await runCli(['predownload', 'cloneset/web', '--image', 'nginx:1.28', '--dry-run=client', '-o', 'json'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal(sb.audit().filter((e) => !['get', 'list', 'watch'].includes(e.verb)).length, 0, 'a dry run writes nothing');
  assert.equal(dry.stderr, `pre-downloading nginx:1.28 on the ${nodes.length} ${nodes.length === 1 ? 'node' : 'nodes'} of the pods of cloneset/web: ${nodes.join(', ')}\n`);
  const job = JSON.parse(dry.stdout);
  assert.equal(job.kind, 'ImagePullJob');
  assert.equal(job.spec.image, 'nginx:1.28');
  assert.deepEqual([...job.spec.selector.names].sort(), nodes);

  const r = await runCli(['predownload', 'cloneset/web', '--image', 'nginx:1.28'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const jobs = (await sb.api('GET', '/apis/apps.kruise.io/v1beta1/namespaces/default/imagepulljobs')).body.items as Array<{ spec: { image: string; selector?: { names?: string[] } }; status: { succeeded: number } }>;
  const created = jobs.find((j) => j.spec.image === 'nginx:1.28')!;
  assert.deepEqual([...created.spec.selector!.names!].sort(), nodes);
  assert.equal(created.status.succeeded, nodes.length);

  // The nodes come from the workload: --nodes/--node-selector with TYPE/NAME are refused before sending.
  sb.clearAudit();
  const bad = await runCli(['predownload', 'cloneset/web', '--image', 'nginx:1.28', '--nodes', 'node-1'], { kubeconfig: sb.kubeconfig });
  assert.equal(bad.code, 2, bad.stderr);
  assert.equal(sb.audit().length, 0);
});

test('a fail-pull image exits 1 and lists the failed nodes', async () => {
  const r = await runCli(['predownload', '--image', 'registry.example.com/team/app:fail-pull', '--nodes', 'node-2,node-4', '--parallelism=2'], {
    kubeconfig: sb.kubeconfig,
    timeoutMs: 30_000,
  });
  assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, /^error: pre-download of registry\.example\.com\/team\/app:fail-pull failed on 2 nodes: node-2, node-4$/m);
  assert.match(r.stdout, /node-2,node-4/);
});

test('several images go into one ImageListPullJob; invalid input sends nothing', async () => {
  sb.clearAudit();
  for (const args of [
    ['predownload', '--image', 'Nginx:1'],
    ['predownload', '--image', 'nginx', '--nodes', 'node-1,,node-2'],
    ['predownload', '--image', 'nginx', '--parallelism=0'],
    ['predownload'],
  ]) {
    const bad = await runCli(args, { kubeconfig: sb.kubeconfig });
    assert.equal(bad.code, 2, args.join(' '));
    assert.match(bad.stderr, /^error: /);
  }
  assert.equal(sb.audit().length, 0, 'nothing sent for invalid input');
  const r = await runCli(['predownload', '--image', 'redis:7.2', '--image', 'busybox:1.36', '--node-selector', 'topology.kubernetes.io/zone=zone-a'], {
    kubeconfig: sb.kubeconfig,
    timeoutMs: 30_000,
  });
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const lists = (await sb.api('GET', '/apis/apps.kruise.io/v1beta1/namespaces/default/imagelistpulljobs')).body.items as Array<{ spec: { images: string[]; selector: unknown } }>;
  assert.equal(lists.length, 1);
  assert.deepEqual([...lists[0]!.spec.images].sort(), ['busybox:1.36', 'redis:7.2']);
  assert.deepEqual(lists[0]!.spec.selector, { matchLabels: { 'topology.kubernetes.io/zone': 'zone-a' } });
});

test('--via=client pulls with pods pinned to each node and removes them', async () => {
  const r = await runCli(['predownload', '--image', 'memcached:1.6', '--nodes', 'node-1,node-3', '--via=client', '--parallelism=2'], {
    kubeconfig: sb.kubeconfig,
    timeoutMs: 30_000,
  });
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const creates = sb.audit().filter((e) => e.verb === 'create' && e.path === '/api/v1/namespaces/default/pods');
  assert.equal(creates.length, 2);
  await waitUntil('pull pods removed', async () => {
    const left = (await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=kubectl-kruise%2Fpredownload%3Dtrue')).body.items as PodView[];
    return left.filter((x) => !x.metadata.deletionTimestamp).length === 0;
  });
  const fail = await runCli(['predownload', '--image', 'memcached:fail-pull', '--nodes', 'node-2', '--via=client'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
  assert.equal(fail.code, 1);
  assert.match(fail.stderr, /failed on 1 node: node-2/);
});

test('a missing node or a selector matching no node exits 1 and creates nothing (Kruise would call a 0-node job done)', async () => {
  sb.clearAudit();
  const missing = await runCli(['predownload', '--image', 'nginx:1.27', '--nodes', 'node-1,node-9'], { kubeconfig: sb.kubeconfig });
  assert.equal(missing.code, 1, missing.stderr);
  assert.equal(missing.stderr, 'error: node "node-9" not found; nothing was created\n');
  const none = await runCli(['predownload', '--image', 'nginx:1.27', '--node-selector', 'topology.kubernetes.io/zone=zone-x', '--via=client'], { kubeconfig: sb.kubeconfig });
  assert.equal(none.code, 1, none.stderr);
  assert.match(none.stderr, /^error: no node matches --node-selector topology\.kubernetes\.io\/zone=zone-x; nothing was created$/m);
  assert.deepEqual(sb.audit().filter((e) => !['get', 'list', 'watch'].includes(e.verb)), []);
});

test('--ttl=0s: jobs deleted by Kruise as they finish still count as done (exit 0, every node reported)', async () => {
  const r = await runCli(['predownload', '--image', 'nginx:1.29', '--image', 'redis:7.4', '--nodes', 'node-1,node-2', '--ttl=0s', '--timeout=20s'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /nginx:1\.29\s+2\s+2\s+0/);
  assert.match(r.stdout, /redis:7\.4\s+2\s+2\s+0/);
  assert.ok(r.stderr.split('\n').length < 40, `progress lines stay few: ${r.stderr.split('\n').length}`);
});

test('--wait=false creates the job and returns; --timeout shorter than the pulls exits 3', async () => {
  const nowait = await runCli(['predownload', '--image', 'memcached:1.6', '--nodes', 'node-1', '--wait=false'], { kubeconfig: sb.kubeconfig });
  assert.equal(nowait.code, 0, nowait.stderr);
  assert.match(nowait.stdout, /^imagepulljob\.apps\.kruise\.io\/predownload-\S+ created$/m);
  // A `slow` image takes 5 x 200ms per node: 4 nodes one at a time outlast a 2s wait.
  const slow = await runCli(['predownload', '--image', 'nginx:slow', '--timeout=2s'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
  assert.equal(slow.code, 3, `${slow.stdout}\n${slow.stderr}`);
  assert.match(slow.stderr, /^error: timed out waiting for the pre-download of nginx:slow$/m);
});

test('an ImagePullJob whose node never finishes reports that node (and the one never asked) failed at activeDeadlineSeconds (imagepulljob_controller.go calculateStatus)', async () => {
  const a = await kubectl(['apply', '-f', join(REPO_ROOT, 'test', 'fixtures', 'ops', 'imagepulljob-stuck.yaml')], sb.kubeconfig);
  assert.equal(a.code, 0, a.stderr);
  const st = await waitUntil('job past its deadline', async () => {
    const r = await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/imagepulljobs/pull-stuck');
    const s = (r.body as { status?: { completionTime?: string; startTime?: string; message?: string; failed?: number; succeeded?: number; active?: number; failedNodes?: string[] } }).status;
    return s?.completionTime ? s : undefined;
  });
  assert.ok(Date.parse(st.completionTime!) >= Date.parse(st.startTime!) + 2000, 'not before the deadline');
  assert.deepEqual([st.message, st.succeeded, st.failed, st.active, st.failedNodes], ['job exceeds activeDeadlineSeconds', 0, 2, 0, ['node-1', 'node-2']]);
  const k = await kubectl(['get', 'imagepulljob', 'pull-stuck', '-o', 'jsonpath={.status.failedNodes}'], sb.kubeconfig);
  assert.equal(k.code, 0, k.stderr);
  assert.match(k.stdout, /node-1.*node-2/);
});
