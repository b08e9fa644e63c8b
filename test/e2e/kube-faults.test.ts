// The kube layer against a faulty sandbox: reads retried through 500s and 429s
// (Retry-After honoured), watches that drop and expire still deliver the final state.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { connectWith } from '../../src/kube/connect';
import { defaultGlobals } from '../../src/cli/globals';
import type { KubeObject } from '../../src/kube/client';
import type { RestClient } from '../../src/kube/rest-client';

let flaky: Sandbox;
let dropping: Sandbox;
before(async () => {
  [flaky, dropping] = await Promise.all([
    startSandbox({ faults: { errorRate: { get: { rate: 0.25, code: 500 }, list: { rate: 0.25, code: 429, retryAfterSeconds: 1 } }, seed: 7 } }),
    startSandbox({ faults: { dropWatchAfterEvents: 2, expireResourceVersionsAfter: 3, latencyMs: 20 } }),
  ]);
});
after(async () => {
  await Promise.all([flaky?.stop(), dropping?.stop()]);
});

async function client(sb: Sandbox): Promise<RestClient> {
  return connectWith({ globals: { ...defaultGlobals(), kubeconfig: sb.kubeconfig, cacheDir: `${sb.dir}/cache-direct` }, env: { HOME: sb.dir }, log: () => undefined });
}

const cloneset = (name: string) => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name, namespace: 'default' },
  spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx:1' }] } } },
});

test('reads succeed through injected 500s and 429s with Retry-After', async () => {
  const c = await client(flaky);
  try {
    const nodes = await c.resolve('nodes');
    for (let i = 0; i < 12; i++) {
      assert.equal((await c.get(nodes, 'node-1')).metadata.name, 'node-1');
    }
    const started = Date.now();
    for (let i = 0; i < 4; i++) assert.equal((await c.list(nodes, undefined)).items.length, 3);
    const codes = flaky.audit().map((e) => e.code);
    assert.ok(codes.includes(500), 'some 500s were injected');
    const throttled = flaky.audit().filter((e) => e.code === 429).length;
    if (throttled > 0) assert.ok(Date.now() - started >= 900 * Math.min(throttled, 1), 'Retry-After waited');
  } finally {
    c.close();
  }
});

test('a watch that drops every 2 events and expires resourceVersions still ends at the final state', async () => {
  const c = await client(dropping);
  const created = await dropping.api('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets', cloneset('w'));
  assert.equal(created.status, 201, created.text);
  const rt = await c.resolve('cloneset');
  let replicas = -1;
  let syncs = 0;
  const see = (o: KubeObject): void => {
    replicas = (o as { spec?: { replicas?: number } }).spec?.replicas ?? replicas;
  };
  const obs = c.observe(rt, 'default', { name: 'w', onSync: (items) => {
    syncs++;
    items.forEach(see);
  } }, (ev) => {
    if (ev.type !== 'DELETED') see(ev.object);
  });
  try {
    await waitUntil('initial list', () => syncs >= 1);
    for (let n = 1; n <= 8; n++) {
      const r = await dropping.api('PATCH', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/w', { spec: { replicas: n } }, { contentType: 'application/merge-patch+json' });
      assert.equal(r.status, 200, r.text);
    }
    await waitUntil('final replicas seen', () => replicas === 8, 15_000);
    const watches = dropping.audit().filter((e) => e.verb === 'watch');
    assert.ok(watches.length >= 2, `the watch was resumed (${watches.length} watch requests)`);
    const lists = dropping.audit().filter((e) => e.verb === 'list' && e.path.endsWith('/clonesets'));
    assert.ok(lists.length <= watches.length + 1, 'no polling: lists only at start and after 410');
  } finally {
    obs.stop();
    await obs.done;
    c.close();
  }
});
