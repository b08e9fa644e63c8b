// The --preview view model (src/kruise/preview) on fixtures of real situations: per-pod decisions,
// container launch priority, the CloneSet planner replayed for batches (priority, maxSurge),
// native kinds, offline placeholders and the budget headroom hook.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { decidePodAction, restartBatches } from '../../../src/kruise/preview/pod-action';
import { previewWorkloadChange } from '../../../src/kruise/preview/workload-preview';
import type { KubeObject, Pod } from '../../../src/kruise/types';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'preview');
const load = (name: string): any => parse(readFileSync(join(FIXTURES, name), 'utf8'));
const NOW = new Date('2026-11-29T00:00:00Z');
const GATES = { verticalScaling: 'unknown' as const, envFromMetadata: true };

function withImages(obj: any, images: Record<string, string>): KubeObject {
  const next = structuredClone(obj);
  for (const c of next.spec.template.spec.containers) if (images[c.name]) c.image = images[c.name];
  return next;
}

test('decidePodAction: ReCreate recreates, InPlaceOnly refuses what cannot be in place, an unchanged template is unchanged', () => {
  const from = { spec: { containers: [{ name: 'a', image: 'x:1' }] } };
  const env = { spec: { containers: [{ name: 'a', image: 'x:1', env: [{ name: 'E', value: '1' }] }] } };
  const img = { spec: { containers: [{ name: 'a', image: 'x:2' }] } };
  assert.equal(decidePodAction({ from, to: img, policy: 'ReCreate', envFromMetadata: true, verticalScaling: 'on' }).action, 'recreate');
  assert.equal(decidePodAction({ from, to: env, policy: 'InPlaceOnly', envFromMetadata: true, verticalScaling: 'on' }).action, 'refused');
  assert.equal(decidePodAction({ from, to: env, policy: 'InPlaceIfPossible', envFromMetadata: true, verticalScaling: 'on' }).action, 'recreate');
  assert.equal(decidePodAction({ from, to: from, policy: 'InPlaceIfPossible', envFromMetadata: true, verticalScaling: 'on' }).action, 'unchanged');
  assert.deepEqual(decidePodAction({ from, to: img, policy: 'InPlaceIfPossible', envFromMetadata: true, verticalScaling: 'off' }), { action: 'update-in-place', images: { a: 'x:2' }, restartOrder: [['a']] });
});

test('decidePodAction: a cpu change with the gate unknown is recreate, resize-in-place if the gate is on', () => {
  const tpl = (cpu: string) => ({ spec: { containers: [{ name: 'a', image: 'x', resources: { requests: { cpu } } }] } });
  const d = decidePodAction({ from: tpl('100m'), to: tpl('200m'), policy: 'InPlaceIfPossible', envFromMetadata: true, verticalScaling: 'unknown' });
  assert.equal(d.action, 'recreate');
  assert.deepEqual(d.ifGateOn, { gate: 'InPlaceWorkloadVerticalScaling', action: 'resize-in-place' });
});

test('restartBatches: container launch priority (Ordered annotation, KRUISE_CONTAINER_PRIORITY, barrier p_N)', () => {
  const ordered = { metadata: { annotations: { 'apps.kruise.io/container-launch-priority': 'Ordered' } }, spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } };
  assert.deepEqual(restartBatches(ordered, new Set(['c', 'a'])), [['a'], ['c']]);
  const env = {
    spec: {
      containers: [
        { name: 'app', env: [{ name: 'KRUISE_CONTAINER_PRIORITY', value: '1' }] },
        { name: 'log', env: [{ name: 'KRUISE_CONTAINER_BARRIER', valueFrom: { configMapKeyRef: { key: 'p_10' } } }] },
        { name: 'x' },
        { name: 'y' },
      ],
    },
  };
  assert.deepEqual(restartBatches(env, new Set(['app', 'log', 'x', 'y'])), [['log'], ['app'], ['x', 'y']]);
});

test('CloneSet with weight priority and maxSurge 1: canary first, launch-priority restarts, the last old pod replaced by the surge pod (kruise#2369)', () => {
  const [cs, ...pods] = load('cloneset-priority.yaml').items as [KubeObject, ...Pod[]];
  const after = withImages(cs, { proxy: 'envoy:v1.31', api: 'api:1.1' });
  const v = previewWorkloadChange({ command: 'set image', before: cs, after, pods, revisions: [{ name: 'api-5d4f8b7c9', hash: '5d4f8b7c9', template: (cs.spec as any).template }], gates: GATES, now: NOW });
  assert.deepEqual(v.batches, [
    { index: 1, pods: ['api-bbbbb', 'api-aaaaa'], surge: 1 },
    { index: 2, pods: ['api-ccccc'], surge: 0 },
  ]);
  const byName = Object.fromEntries(v.pods.map((p) => [p.name, p]));
  assert.equal(byName['api-bbbbb']!.action, 'update-in-place');
  assert.deepEqual(byName['api-bbbbb']!.restartOrder, [['proxy'], ['api']]);
  assert.equal(byName['api-ccccc']!.action, 'recreate');
  assert.match(byName['api-ccccc']!.reasons![0]!, /surge/);
  assert.equal('budgetHeadroom' in v.batches[0]!, false, 'no budget module: no headroom');
});

test('budget headroom hook: each batch gets the headroom the budget module reports', () => {
  const [cs, ...pods] = load('cloneset-priority.yaml').items as [KubeObject, ...Pod[]];
  const after = withImages(cs, { api: 'api:1.1' });
  const seen: string[][] = [];
  const v = previewWorkloadChange({
    command: 'set image', before: cs, after, pods, gates: GATES, now: NOW,
    budget: { headroom: (ps) => (seen.push(ps.map((p) => p.name)), { headroom: 1, budget: 'podunavailablebudget/api' }) },
  });
  assert.equal(seen.length, v.batches.length);
  for (const b of v.batches) assert.deepEqual([b.budgetHeadroom, b.budgetName], [1, 'podunavailablebudget/api']);
});

test('CloneSet partition 50% of 4 offline: two placeholders updated, two kept', () => {
  const cs = load('cloneset-web.yaml');
  cs.spec.updateStrategy.partition = '50%';
  const v = previewWorkloadChange({ command: 'set image', before: cs, after: withImages(cs, { app: 'nginx:1.27' }), gates: GATES, now: NOW });
  assert.equal(v.offline, true);
  assert.equal(v.partition, 2);
  assert.deepEqual(v.pods.map((p) => p.action).sort(), ['kept', 'kept', 'update-in-place', 'update-in-place']);
});

test('Deployment: every pod recreated, maxSurge + maxUnavailable at a time; OnDelete keeps them all', () => {
  const d = load('deployment-shop.yaml');
  const v = previewWorkloadChange({ command: 'set image', before: d, after: withImages(d, { shop: 'shop:3.2' }), gates: GATES, now: NOW });
  assert.deepEqual(new Set(v.pods.map((p) => p.action)), new Set(['recreate']));
  assert.deepEqual(v.batches.map((b) => [b.pods.length, b.surge]), [[2, 1], [2, 1]]);
  assert.deepEqual(v.featureGates, {});
  const ds = load('ads-agent.yaml');
  ds.spec.updateStrategy = { type: 'OnDelete' };
  const od = previewWorkloadChange({ command: 'set image', before: ds, after: withImages(ds, { fluentd: 'fluentd:v1.17' }), gates: GATES, now: NOW });
  assert.deepEqual(new Set(od.pods.map((p) => p.action)), new Set(['kept']));
  assert.deepEqual(od.batches, []);
});

test('no template change: noChange, every pod unchanged', () => {
  const cs = load('cloneset-web.yaml');
  const v = previewWorkloadChange({ command: 'rollout undo', before: cs, after: cs, gates: GATES, now: NOW });
  assert.equal(v.noChange, true);
  assert.deepEqual(v.batches, []);
});

test('Advanced StatefulSet InPlaceOnly: its webhook allows only images in template.spec, so a resize is refused even with the gate on', () => {
  const db = load('asts-db.yaml');
  db.spec.updateStrategy.rollingUpdate.podUpdatePolicy = 'InPlaceOnly';
  db.spec.template.spec.containers[0].resources = { requests: { cpu: '100m' } };
  const after = structuredClone(db);
  after.spec.template.spec.containers[0].resources.requests.cpu = '200m';
  const v = previewWorkloadChange({ command: 'set resources', before: db, after, gates: { verticalScaling: 'on', envFromMetadata: true }, now: NOW });
  assert.deepEqual(new Set(v.pods.map((p) => p.action)), new Set(['refused']));
  assert.match(v.pods[0]!.reasons![0]!, /replace \/containers\/0\/resources\/requests\/cpu/);
});

test('kruise-manager gates from its Deployment args: AllAlpha/AllBeta unless a gate is named, default off/on', async () => {
  const { managerGates } = await import('../../../src/kruise/preview/manager-gates');
  const dep = load('kruise-controller-manager.yaml');
  assert.deepEqual(managerGates(dep), { verticalScaling: true, envFromMetadata: true });
  const args: string[] = dep.spec.template.spec.containers[0].args;
  args[args.length - 1] = '--feature-gates=AllAlpha=true,InPlaceWorkloadVerticalScaling=false,InPlaceUpdateEnvFromMetadata=false';
  assert.deepEqual(managerGates(dep), { verticalScaling: false, envFromMetadata: false });
  args.pop();
  assert.deepEqual(managerGates(dep), { verticalScaling: false, envFromMetadata: true });
});

test('CloneSet InPlaceOnly: a cpu change is refused even with the gate on (ValidateCloneSetUpdate, pkg/controller/cloneset/core/cloneset_core.go: image replaces only)', async () => {
  const { validateCloneSet } = await import('../../../src/kruise/rules/cloneset-webhook');
  const strict = load('cloneset-inplace-only.yaml');
  strict.spec.template.spec.containers[0].resources = { requests: { cpu: '100m' } };
  const after = structuredClone(strict);
  after.spec.template.spec.containers[0].resources.requests.cpu = '200m';
  const v = previewWorkloadChange({ command: 'set resources', before: strict, after, gates: { verticalScaling: 'on', envFromMetadata: true }, now: NOW });
  assert.deepEqual(new Set(v.pods.map((p) => p.action)), new Set(['refused']));
  assert.match(JSON.stringify(validateCloneSet(after, strict)), /only allowed to update images/);
  assert.deepEqual(validateCloneSet(withImages(strict, { app: 'nginx:1.27' }), strict), []);
});

test('CloneSet v1beta1 (master shape: rollingUpdate.podUpdatePolicy): the same decisions and batches as v1alpha1', () => {
  const alpha = load('cloneset-web.yaml');
  const beta = structuredClone(alpha);
  beta.apiVersion = 'apps.kruise.io/v1beta1';
  beta.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible', maxUnavailable: 2 } };
  const run = (obj: any) => previewWorkloadChange({ command: 'set image', before: obj, after: withImages(obj, { app: 'nginx:1.27' }), gates: GATES, now: NOW });
  const a = run(alpha);
  const b = run(beta);
  assert.equal(b.policy, 'InPlaceIfPossible');
  assert.deepEqual(b.pods.map((p) => p.action), a.pods.map((p) => p.action));
  assert.deepEqual(b.batches, a.batches);
});

test('Advanced DaemonSet rollingUpdate.selector: only the matching node is updated (filterDaemonPodsNodeToUpdate)', () => {
  const ads = load('ads-agent.yaml');
  delete ads.spec.updateStrategy.rollingUpdate.partition;
  ads.spec.updateStrategy.rollingUpdate.selector = { matchLabels: { pool: 'canary' } };
  const items = load('ads-agent-nodes.yaml').items as KubeObject[];
  const nodes = items.filter((o) => o.kind === 'Node');
  const pods = items.filter((o) => o.kind === 'Pod') as Pod[];
  const v = previewWorkloadChange({ command: 'set image', before: ads, after: withImages(ads, { fluentd: 'fluentd:v1.17' }), pods, nodes, gates: GATES, now: NOW });
  assert.deepEqual(Object.fromEntries(v.pods.map((p) => [p.node, p.action])), { 'node-1': 'kept', 'node-2': 'recreate', 'node-3': 'kept' });
  assert.deepEqual(v.batches.map((b) => b.pods.length), [1]);
});
