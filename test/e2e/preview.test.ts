// `--preview` (issue #29 item 2) agrees, pod by pod, with what the sandbox then does: one sandbox with
// kruise-manager's InPlaceWorkloadVerticalScaling gate on. Each case previews a change (-o json), checks
// that the preview wrote nothing (audit log), makes the change, and reads the pods back through the API:
// same uid for in place / resize / kept, restartCount for restarts, a new uid for a recreate (waiting on
// watches of the pods, never on our own `rollout status`).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { kubectl, REPO_ROOT, runCli } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'preview');
const GATE_ON = '--feature-gates=InPlaceWorkloadVerticalScaling=true';
const WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

let sb: Sandbox;

interface PodView {
  name: string;
  uid: string;
  node: string;
  images: Record<string, string>;
  restarts: Record<string, number>;
  ready: boolean;
  resources: Record<string, any>;
  annotations: Record<string, string>;
}

function view(p: any): PodView {
  return {
    name: p.metadata.name,
    uid: p.metadata.uid,
    node: p.spec.nodeName,
    images: Object.fromEntries(p.spec.containers.map((c: any) => [c.name, c.image])),
    restarts: Object.fromEntries((p.status?.containerStatuses ?? []).map((c: any) => [c.name, c.restartCount])),
    ready: (p.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'),
    resources: Object.fromEntries(p.spec.containers.map((c: any) => [c.name, c.resources ?? {}])),
    annotations: p.metadata.annotations ?? {},
  };
}

/** The live (not terminating) pods of `app`, read through the API. */
async function pods(app: string): Promise<Map<string, PodView>> {
  const list = (await sb.api('GET', `/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`)).body;
  return new Map((list.items as any[]).filter((p) => !p.metadata.deletionTimestamp).map((p) => [p.metadata.name, view(p)]));
}

/** Runs a preview with -o json; asserts it sent no write. */
async function preview(args: string[], expectCode = 0): Promise<any> {
  sb.clearAudit();
  const r = await runCli([...args, '--preview', '-o', 'json'], { kubeconfig: sb.kubeconfig });
  assert.equal(r.code, expectCode, r.stderr);
  const writes = sb.audit().filter((e) => WRITES.has(e.verb));
  assert.deepEqual(writes, [], 'a preview sends no write request');
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.kind, 'Preview');
  return doc.items[0];
}

async function run(args: string[]): Promise<void> {
  const r = await runCli(args, { kubeconfig: sb.kubeconfig });
  assert.equal(r.code, 0, r.stderr);
}

/**
 * Waits, on a watch of the pods of `app` (its first events list what exists), until `count` live pods are
 * ready and satisfy `done`; fails after 20 s with what it saw last.
 */
async function settle(app: string, count: number, done: (p: PodView) => boolean): Promise<Map<string, PodView>> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), 20_000);
  const live = new Map<string, any>();
  const current = () => new Map([...live.values()].filter((p) => !p.metadata.deletionTimestamp).map((p) => [p.metadata.name, view(p)]));
  const settled = (m: Map<string, PodView>) => m.size === count && [...m.values()].every((p) => p.ready && done(p));
  try {
    // identity: a gzip-encoded watch would arrive in blocks, not event by event
    const res = await fetch(`${sb.url}/api/v1/namespaces/default/pods?labelSelector=app%3D${app}&watch=1`, { signal: ctl.signal, headers: { accept: 'application/json', 'accept-encoding': 'identity' } });
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) throw new Error('watch ended');
      buf += dec.decode(value, { stream: true });
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (!line) continue;
        const ev = JSON.parse(line) as { type: string; object: any };
        if (ev.type === 'DELETED') live.delete(ev.object.metadata.uid);
        else live.set(ev.object.metadata.uid, ev.object);
      }
      const now = current();
      if (settled(now)) return now;
    }
  } catch (err) {
    if (ctl.signal.aborted) assert.fail(`${app}: ${count} pods not settled in 20s; last seen ${JSON.stringify([...current().values()])}`);
    throw err;
  } finally {
    clearTimeout(timer);
    ctl.abort();
  }
}

const actionsOf = (item: any): Record<string, string> => Object.fromEntries(item.pods.map((p: any) => [p.name, p.action]));

before(async () => {
  sb = await startSandbox({ readyDelay: '100ms', extraArgs: [GATE_ON] });
  for (const f of ['cloneset-web', 'cloneset-inplace-only', 'asts-db', 'ads-agent', 'deployment-shop']) {
    const r = await kubectl(['apply', '-f', join(FIXTURES, `${f}.yaml`)], sb.kubeconfig);
    assert.equal(r.code, 0, r.stderr);
  }
  await Promise.all([
    settle('web', 4, () => true),
    settle('strict', 2, () => true),
    settle('db', 4, () => true),
    settle('agent', 3, () => true),
    settle('shop', 4, () => true),
  ]);
});

after(async () => {
  await sb?.stop();
});

describe('CloneSet web (InPlaceIfPossible, 4 pods, maxUnavailable 2)', () => {
  it('image change: every pod updated in place, two batches of two; the pods keep their uids, app restarts once', async () => {
    const was = await pods('web');
    const item = await preview(['set', 'image', 'cloneset/web', 'app=nginx:1.27']);
    assert.deepEqual(new Set(Object.values(actionsOf(item))), new Set(['update-in-place']));
    assert.deepEqual(item.batches.map((b: any) => b.pods.length), [2, 2]);
    for (const p of item.pods) assert.deepEqual(p.restartOrder, [['app']]);
    await run(['set', 'image', 'cloneset/web', 'app=nginx:1.27']);
    const now = await settle('web', 4, (p) => p.images.app === 'nginx:1.27' && p.restarts.app === (was.get(p.name)?.restarts.app ?? -9) + 1);
    for (const [name, p] of now) {
      assert.equal(p.uid, was.get(name)?.uid, `${name} updated in place`);
      assert.equal(p.restarts.sidecar, was.get(name)?.restarts.sidecar, `${name}: sidecar untouched`);
    }
  });

  it('env from an annotation: rollout undo to the revision with the old annotation restarts only app, in place', async () => {
    const patch = await kubectl(['patch', 'cloneset', 'web', '--type=merge', '-p', '{"spec":{"template":{"metadata":{"annotations":{"example.com/config-version":"2"}}}}}'], sb.kubeconfig);
    assert.equal(patch.code, 0, patch.stderr);
    await settle('web', 4, (p) => p.annotations['example.com/config-version'] === '2');
    const was = await settle('web', 4, (p) => !p.annotations['apps.kruise.io/inplace-update-grace']);
    const item = await preview(['rollout', 'undo', 'cloneset/web']);
    for (const p of item.pods) {
      assert.equal(p.action, 'restart-in-place', JSON.stringify(p));
      assert.deepEqual(p.restartOrder, [['app']]);
      assert.equal(p.images, undefined);
    }
    await run(['rollout', 'undo', 'cloneset/web']);
    const now = await settle('web', 4, (p) => p.annotations['example.com/config-version'] === '1' && p.restarts.app === (was.get(p.name)?.restarts.app ?? -9) + 1);
    for (const [name, p] of now) {
      assert.equal(p.uid, was.get(name)?.uid);
      assert.equal(p.restarts.sidecar, was.get(name)?.restarts.sidecar);
    }
  });

  it('cpu request with the gate on: resized in place (resizePolicy NotRequired: no restart); gate unknown says so', async () => {
    const unknown = await preview(['set', 'resources', 'cloneset/web', '-c', 'app', '--requests=cpu=200m']);
    assert.equal(unknown.featureGates.InPlaceWorkloadVerticalScaling, 'unknown');
    for (const p of unknown.pods) assert.deepEqual([p.action, p.ifGateOn?.action], ['recreate', 'resize-in-place']);
    const was = await pods('web');
    const item = await preview(['set', 'resources', 'cloneset/web', '-c', 'app', '--requests=cpu=200m', GATE_ON]);
    for (const p of item.pods) {
      assert.equal(p.action, 'resize-in-place');
      assert.deepEqual(p.resize, { app: { requests: { cpu: '200m' } } });
      assert.equal(p.restartOrder, undefined);
      assert.equal(p.staysReady, true);
    }
    await run(['set', 'resources', 'cloneset/web', '-c', 'app', '--requests=cpu=200m']);
    const now = await settle('web', 4, (p) => p.resources.app.requests?.cpu === '200m');
    for (const [name, p] of now) {
      assert.equal(p.uid, was.get(name)?.uid, `${name} resized in place`);
      assert.deepEqual(p.restarts, was.get(name)?.restarts);
    }
  });

  it('memory limit with the gate on: resized in place, and app restarted (its resizePolicy: memory RestartContainer)', async () => {
    const was = await pods('web');
    const item = await preview(['set', 'resources', 'cloneset/web', '-c', 'app', '--limits=memory=512Mi', GATE_ON]);
    for (const p of item.pods) {
      assert.deepEqual([p.action, p.restartOrder, p.staysReady], ['resize-in-place', [['app']], undefined]);
      assert.deepEqual(p.resize, { app: { limits: { memory: '512Mi' } } });
    }
    await run(['set', 'resources', 'cloneset/web', '-c', 'app', '--limits=memory=512Mi']);
    const now = await settle('web', 4, (p) => p.resources.app.limits?.memory === '512Mi' && p.restarts.app === (was.get(p.name)?.restarts.app ?? -9) + 1);
    for (const [name, p] of now) {
      assert.equal(p.uid, was.get(name)?.uid);
      assert.equal(p.restarts.sidecar, was.get(name)?.restarts.sidecar);
    }
  });

  it('a limits map added to sidecar (an add, not a resize): recreated, new uids', async () => {
    const was = await pods('web');
    const item = await preview(['set', 'resources', 'cloneset/web', '-c', 'sidecar', '--limits=cpu=100m', GATE_ON]);
    for (const p of item.pods) assert.equal(p.action, 'recreate');
    await run(['set', 'resources', 'cloneset/web', '-c', 'sidecar', '--limits=cpu=100m']);
    const now = await settle('web', 4, (p) => p.resources.sidecar.limits?.cpu === '100m');
    for (const p of now.values()) assert.ok(![...was.values()].some((w) => w.uid === p.uid), `${p.name} is a new pod`);
  });
});

it('InPlaceOnly CloneSet, env change: Kruise refuses it (webhook), the preview says refused and exits 1; the pods stay', async () => {
  const was = await pods('strict');
  const item = await preview(['set', 'env', 'cloneset/strict', '-c', 'app', 'MODE=fast'], 1);
  assert.deepEqual(new Set(Object.values(actionsOf(item))), new Set(['refused']));
  assert.deepEqual(item.batches, []);
  const r = await runCli(['set', 'env', 'cloneset/strict', '-c', 'app', 'MODE=fast'], { kubeconfig: sb.kubeconfig });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /InPlaceOnly/);
  // even past the CLI, the sandbox's webhook refuses it as Kruise's does
  const direct = await kubectl(['patch', 'clonesets.apps.kruise.io', 'strict', '--type=json', '-p', '[{"op":"add","path":"/spec/template/spec/containers/0/env","value":[{"name":"MODE","value":"fast"}]}]'], sb.kubeconfig);
  assert.notEqual(direct.code, 0);
  assert.match(direct.stderr, /only allowed to update images/);
  const now = await pods('strict');
  assert.deepEqual([...now.values()].map((p) => p.uid).sort(), [...was.values()].map((p) => p.uid).sort());
});

it('rollout restart of an in-place CloneSet: every container restarted in place through ContainerRecreateRequests, one pod per batch', async () => {
  const was = await pods('strict');
  const item = await preview(['rollout', 'restart', 'cloneset/strict']);
  assert.deepEqual(item.batches.map((b: any) => b.pods.length), [1, 1]);
  for (const p of item.pods) assert.deepEqual([p.action, p.restartOrder], ['restart-in-place', [['app']]]);
  await run(['rollout', 'restart', 'cloneset/strict']);
  const now = await settle('strict', 2, (p) => p.restarts.app === (was.get(p.name)?.restarts.app ?? -9) + 1);
  for (const [name, p] of now) assert.equal(p.uid, was.get(name)?.uid);
});

it('rollout restart of a Deployment: every pod recreated, maxSurge 1 + maxUnavailable 1 at a time', async () => {
  const was = await pods('shop');
  const item = await preview(['rollout', 'restart', 'deployment/shop']);
  assert.deepEqual(new Set(Object.values(actionsOf(item))), new Set(['recreate']));
  assert.deepEqual(item.batches.map((b: any) => [b.pods.length, b.surge]), [[2, 1], [2, 1]]);
  await run(['rollout', 'restart', 'deployment/shop']);
  const now = await settle('shop', 4, (p) => ![...was.values()].some((w) => w.uid === p.uid));
  assert.equal(now.size, 4);
});

it('Advanced StatefulSet, reserveOrdinals [1] and partition 2: db-4 then db-3 in place, db-0 and db-2 kept', async () => {
  const was = await pods('db');
  const item = await preview(['set', 'image', 'asts/db', 'main=redis:7.4']);
  assert.deepEqual(actionsOf(item), { 'db-0': 'kept', 'db-2': 'kept', 'db-3': 'update-in-place', 'db-4': 'update-in-place' });
  assert.deepEqual(item.batches.map((b: any) => b.pods), [['db-4'], ['db-3']]);
  await run(['set', 'image', 'asts/db', 'main=redis:7.4']);
  const now = await settle('db', 4, (p) => (['db-3', 'db-4'].includes(p.name) ? p.images.main === 'redis:7.4' : true));
  for (const [name, p] of now) {
    assert.equal(p.uid, was.get(name)?.uid, `${name} keeps its uid`);
    assert.equal(p.images.main, item.pods.find((x: any) => x.name === name).action === 'kept' ? 'redis:7.2' : 'redis:7.4');
  }
});

it('Advanced DaemonSet, Standard with node partition 1: node-3 then node-2 recreated, node-1 kept', async () => {
  const was = await pods('agent');
  const item = await preview(['set', 'image', 'ads/agent', 'fluentd=fluentd:v1.17']);
  const byNode = Object.fromEntries(item.pods.map((p: any) => [p.node, p.action]));
  assert.deepEqual(byNode, { 'node-1': 'kept', 'node-2': 'recreate', 'node-3': 'recreate' });
  assert.deepEqual(
    item.batches.map((b: any) => b.pods.map((n: string) => item.pods.find((p: any) => p.name === n).node)),
    [['node-3'], ['node-2']],
  );
  await run(['set', 'image', 'ads/agent', 'fluentd=fluentd:v1.17']);
  const now = await settle('agent', 3, (p) => p.node === 'node-1' || p.images.fluentd === 'fluentd:v1.17');
  const wasByNode = new Map([...was.values()].map((p) => [p.node, p]));
  for (const p of now.values()) {
    if (p.node === 'node-1') assert.deepEqual([p.uid, p.images.fluentd], [wasByNode.get('node-1')?.uid, 'fluentd:v1.16']);
    else assert.notEqual(p.uid, wasByNode.get(p.node)?.uid, `${p.node}: a new pod`);
  }
});

it('gates read from kruise-manager\'s Deployment when it can be read (kruise-system/kruise-controller-manager, AllAlpha=true)', async () => {
  const ns = await kubectl(['create', 'namespace', 'kruise-system'], sb.kubeconfig);
  assert.equal(ns.code, 0, ns.stderr);
  const dep = await kubectl(['apply', '-f', join(FIXTURES, 'kruise-controller-manager.yaml')], sb.kubeconfig);
  assert.equal(dep.code, 0, dep.stderr);
  const item = await preview(['set', 'resources', 'cloneset/web', '-c', 'app', '--requests=cpu=300m']);
  assert.equal(item.featureGates.InPlaceWorkloadVerticalScaling, 'on');
  assert.equal(item.featureGatesFrom, 'deployment kruise-system/kruise-controller-manager');
  for (const p of item.pods) assert.equal(p.action, 'resize-in-place');
  // what the user says wins over what the Deployment says
  const off = await preview(['set', 'resources', 'cloneset/web', '-c', 'app', '--requests=cpu=300m', '--feature-gates=InPlaceWorkloadVerticalScaling=false']);
  for (const p of off.pods) assert.equal(p.action, 'recreate');
});

it('-f FILE --local: offline, one row per replica, no cluster needed', async () => {
  const r = await runCli(['set', 'image', '-f', join(FIXTURES, 'cloneset-web.yaml'), '--local', 'app=nginx:1.27', '--preview', '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const item = JSON.parse(r.stdout).items[0];
  assert.equal(item.offline, true);
  assert.equal(item.pods.length, 4);
  assert.deepEqual(new Set(item.pods.map((p: any) => p.action)), new Set(['update-in-place']));
  assert.deepEqual(item.batches.map((b: any) => b.pods.length), [2, 2]);
  const table = await runCli(['set', 'resources', '-f', join(FIXTURES, 'cloneset-web.yaml'), '--local', '-c', 'app', '--requests=cpu=300m', '--preview']);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /recreate \(resize-in-place if InPlaceWorkloadVerticalScaling is on\)/);
  assert.match(table.stdout, /Nothing was written \(preview\)\.\n$/);
});

it('bad input: one-line error, exit 2, nothing written', async () => {
  for (const args of [
    ['set', 'image', 'cloneset/web', 'app=nginx:1.28', '--preview', '-o', 'yaml'],
    ['set', 'image', 'cloneset/web', 'app=nginx:1.28', '--preview', '--feature-gates=NoSuchGate=true'],
    ['set', 'image', 'cloneset/web', 'app=nginx:1.28', '--preview', '--dry-run=server'],
    ['rollout', 'undo', 'cloneset/web', '--preview', '--fast'],
  ]) {
    sb.clearAudit();
    const r = await runCli(args, { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr.split('\n')[0]!, /^error: /);
    assert.equal(r.stdout, '');
    assert.deepEqual(sb.audit().filter((e) => WRITES.has(e.verb)), []);
  }
});
