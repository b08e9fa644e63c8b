// explain partition TYPE/NAME against the sandbox: the live form agrees with the CloneSet
// controller's own status.expectedUpdatedReplicas over many random replicas/partitions.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

let sb: Sandbox;
before(async () => {
  sb = await startSandbox({ readyDelay: '20ms', nodes: 2 });
});
after(async () => {
  await sb?.stop();
});

const PATH = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets';

function cloneSet(name: string, replicas: number, partition: number | string): Record<string, unknown> {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] } },
      updateStrategy: { type: 'ReCreate', partition, maxUnavailable: '100%' },
    },
  };
}

// A deterministic pseudo-random sequence, so that a failure can be replayed.
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

test('live explain shows the object, current counts and the batch state', async () => {
  const created = await sb.api('POST', PATH, cloneSet('web', 8, '90%'));
  assert.equal(created.status, 201, created.text);
  await waitUntil('web ready', async () => {
    const r = await sb.api('GET', `${PATH}/web`);
    return r.body?.status?.readyReplicas === 8 && r.body.status.observedGeneration >= r.body.metadata.generation;
  });
  const r = await runCli(['explain', 'partition', 'cloneset/web'], { kubeconfig: sb.kubeconfig });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /CloneSet default\/web: 8 replicas, partition 90% → 7\.2 → rounded up to 8/);
  assert.match(r.stdout, /current batch: done/);
  const j = await runCli(['explain', 'partition', 'cloneset/web', '-o', 'json'], { kubeconfig: sb.kubeconfig });
  assert.equal(j.code, 0, j.stderr);
  const out = JSON.parse(j.stdout) as Record<string, unknown>;
  assert.equal(out.expectedUpdatedReplicas, 1);
  assert.equal(out.partitionReplicas, 7);
  const missing = await runCli(['explain', 'partition', 'cloneset/nope'], { kubeconfig: sb.kubeconfig });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^error: .*nope/);
});

test('property: live explain agrees with the controller on random replicas/partitions', async () => {
  const rand = lcg(20260522);
  const cases: Array<{ name: string; replicas: number; partition: number | string }> = [];
  for (let i = 0; i < 24; i++) {
    const replicas = Math.floor(rand() * 13); // 0..12
    const r = rand();
    const partition =
      r < 0.3 ? Math.floor(rand() * 15) : r < 0.8 ? `${Math.floor(rand() * 101)}%` : `${(Math.floor(rand() * 10000) / 100).toFixed(2)}%`;
    cases.push({ name: `p${i}`, replicas, partition });
  }
  cases.push({ name: 'dec-high', replicas: 12, partition: '99.99%' }, { name: 'dec-low', replicas: 12, partition: '0.01%' }, { name: 'zero', replicas: 0, partition: '50%' });
  for (const c of cases) {
    const created = await sb.api('POST', PATH, cloneSet(c.name, c.replicas, c.partition));
    assert.equal(created.status, 201, `${c.name}: ${created.text}`);
  }
  for (const c of cases) {
    const obj = await waitUntil(`${c.name} observed`, async () => {
      const r = await sb.api('GET', `${PATH}/${c.name}`);
      return r.body?.status && r.body.status.observedGeneration >= r.body.metadata.generation ? r.body : undefined;
    }, 20_000);
    const fromController = obj.status.expectedUpdatedReplicas ?? 0; // omitted when 0
    const j = await runCli(['explain', 'partition', `cloneset/${c.name}`, '-o', 'json'], { kubeconfig: sb.kubeconfig });
    assert.equal(j.code, 0, `${c.name}: ${j.stderr}`);
    const out = JSON.parse(j.stdout) as Record<string, number>;
    assert.equal(out.expectedUpdatedReplicas, fromController, `${c.name}: replicas ${obj.spec.replicas}, partition ${JSON.stringify(c.partition)}`);
  }
});
