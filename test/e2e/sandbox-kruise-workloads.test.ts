// Advanced StatefulSet, Advanced DaemonSet and PersistentPodState in the sandbox (--kruise v1.9),
// driven by real kubectl: ordinals with reserveOrdinals, partitioned in-place updates, one daemon
// pod per node with partition, and PPS generated from annotations injecting into recreated pods.
// Also: a CloneSet of 1,000 replicas becomes ready within a few seconds.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { kubectl, REPO_ROOT } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const FIX = (n: string) => join(REPO_ROOT, 'test/fixtures/kruise-controllers', n);
let sb: Sandbox;

before(async () => {
  sb = await startSandbox({ kruise: 'v1.9', readyDelay: '100ms' });
});
after(async () => {
  await sb?.stop();
});

async function ok(args: string[]): Promise<string> {
  const r = await kubectl(args, sb.kubeconfig);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const getJson = async (args: string[]) => JSON.parse(await ok(['get', ...args, '-o', 'json']));

test('Advanced StatefulSet: reserveOrdinals skipped, partition 1 keeps the lowest ordinal, in place', async () => {
  await ok(['apply', '-f', FIX('asts-v1beta1.yaml')]);
  await waitUntil('4 ready', async () => {
    const s = (await getJson(['statefulsets.apps.kruise.io', 'db'])).status;
    return s?.readyReplicas === 4 ? s : undefined;
  });
  const names = (await getJson(['pods', '-l', 'app=db'])).items.map((p: any) => p.metadata.name).sort();
  assert.deepEqual(names, ['db-0', 'db-2', 'db-5', 'db-6']);
  await ok(['patch', 'statefulsets.apps.kruise.io', 'db', '--type', 'merge', '-p', JSON.stringify({
    spec: { template: { spec: { containers: [{ name: 'main', image: 'redis:7.4' }] } }, updateStrategy: { rollingUpdate: { partition: 1 } } },
  })]);
  const st = await waitUntil('3 updated', async () => {
    const o = await getJson(['statefulsets.apps.kruise.io', 'db']);
    const s = o.status;
    return s.observedGeneration === o.metadata.generation && s.updatedReadyReplicas === 3 && s.readyReplicas === 4 ? s : undefined;
  });
  assert.notEqual(st.currentRevision, st.updateRevision);
  const pods = (await getJson(['pods', '-l', 'app=db'])).items;
  const img = Object.fromEntries(pods.map((p: any) => [p.metadata.name, p.spec.containers[0].image]));
  assert.deepEqual(img, { 'db-0': 'redis:7.2', 'db-2': 'redis:7.4', 'db-5': 'redis:7.4', 'db-6': 'redis:7.4' });
});

test('Advanced DaemonSet: one pod per node, partition 1 updates node-3 and node-2 only', async () => {
  await ok(['apply', '-f', FIX('ads-v1alpha1.yaml')]);
  const s0 = await waitUntil('3 ready', async () => {
    const s = (await getJson(['daemonsets.apps.kruise.io', 'agent'])).status;
    return s?.numberReady === 3 ? s : undefined;
  });
  assert.equal(s0.desiredNumberScheduled, 3);
  await ok(['patch', 'daemonsets.apps.kruise.io', 'agent', '--type', 'json', '-p', JSON.stringify([
    { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'fluentd:v1.17' },
    { op: 'replace', path: '/spec/updateStrategy/rollingUpdate/partition', value: 1 },
  ])]);
  await waitUntil('2 updated', async () => {
    const o = await getJson(['daemonsets.apps.kruise.io', 'agent']);
    const s = o.status;
    return s.observedGeneration === o.metadata.generation && s.updatedNumberScheduled === 2 && s.numberReady === 3 ? s : undefined;
  });
  const pods = (await getJson(['pods', '-l', 'app=agent'])).items;
  const byNode = Object.fromEntries(pods.map((p: any) => [p.spec.nodeName, p.spec.containers[0].image]));
  assert.deepEqual(byNode, { 'node-1': 'fluentd:v1.16', 'node-2': 'fluentd:v1.17', 'node-3': 'fluentd:v1.17' });
});

test('PersistentPodState: generated from annotations, state recorded, injected into the recreated pod', async () => {
  await ok(['apply', '-f', FIX('asts-pps-annotated.yaml')]);
  const pps = await waitUntil('states recorded', async () => {
    const r = await kubectl(['get', 'persistentpodstates', 'echoserver', '-o', 'json'], sb.kubeconfig);
    if (r.code !== 0) return undefined;
    const o = JSON.parse(r.stdout);
    return Object.keys(o.status?.podStates ?? {}).length === 2 ? o : undefined;
  });
  const node = pps.status.podStates['echoserver-1'].nodeName;
  await ok(['delete', 'pod', 'echoserver-1']);
  const pod = await waitUntil('recreated and injected', async () => {
    const r = await kubectl(['get', 'pod', 'echoserver-1', '-o', 'json'], sb.kubeconfig);
    if (r.code !== 0) return undefined;
    const p = JSON.parse(r.stdout);
    return p.metadata.annotations?.['kruise.io/injected-persistent-pod-state'] === 'echoserver' && p.spec.nodeName ? p : undefined;
  });
  assert.equal(pod.spec.nodeName, node, 'back on its recorded node');
  assert.equal(pod.spec.nodeSelector['topology.kubernetes.io/zone'], pps.status.podStates['echoserver-1'].nodeTopologyLabels['topology.kubernetes.io/zone']);
});

test('a CloneSet of 1,000 replicas becomes fully ready within a few seconds', async () => {
  const manifest = {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: 'big', namespace: 'default' },
    spec: {
      replicas: 1000,
      selector: { matchLabels: { app: 'big' } },
      template: { metadata: { labels: { app: 'big' } }, spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] } },
    },
  };
  const started = Date.now();
  const r = await sb.api('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets', manifest);
  assert.equal(r.status, 201, r.text);
  await waitUntil('1000 ready', async () => {
    const o = (await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/big')).body;
    return o.status?.readyReplicas === 1000 && o.status.availableReplicas === 1000 ? o : undefined;
  }, 30_000, 100);
  const ms = Date.now() - started;
  console.log(`1000 CloneSet replicas ready in ${ms} ms`);
  assert.ok(ms < 15_000, `took ${ms} ms`);
});
