import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Container, KubeObject } from '../../../src/kruise/types';
import {
  allContainers,
  applyJsonPatch,
  envFromSource,
  formatEnvList,
  isValidEnvName,
  parseEnvArgs,
  parseResourceList,
  planEnvChange,
  planResourcesChange,
} from '../../../src/kruise/containers';
import { parseQuantity } from '../../../src/kruise/quantity';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'set');
function fixture(name: string): KubeObject {
  return parse(readFileSync(join(FIXTURES, name), 'utf8')) as KubeObject;
}
function container(obj: KubeObject, name: string): Container {
  const ref = allContainers(obj).find((c) => c.name === name);
  assert.ok(ref, `container ${name}`);
  return ref.container;
}
function edits(...args: string[]) {
  const r = parseEnvArgs(args);
  assert.ok(r.ok, JSON.stringify(r));
  return r.edits;
}

test('env names follow the API server rule', () => {
  for (const good of ['A', 'LOG_LEVEL', '_x', 'a.b', 'my-var']) assert.ok(isValidEnvName(good), good);
  for (const bad of ['', '1ABC', 'A B', 'A=B', 'ä', '..x']) assert.ok(!isValidEnvName(bad), bad);
  assert.equal(parseEnvArgs(['1X=2']).ok, false);
  assert.equal(parseEnvArgs(['NOEQUALS']).ok, false);
  assert.equal(parseEnvArgs(['A=1', 'A-']).ok, false);
  assert.deepEqual(edits('URL=a=b', 'OLD-'), { set: [{ name: 'URL', value: 'a=b' }], remove: ['OLD'] });
});

test('env: replace guarded by the entry name, remove, append; other containers untouched', () => {
  const cs = fixture('cloneset-web-inplaceonly.yaml');
  const plan = planEnvChange(cs, 'app', edits('LOG_LEVEL=debug', 'NEW=1', 'FEATURE_X-'));
  assert.ok(plan.ok);
  const p = '/spec/template/spec/containers/0';
  assert.deepEqual(plan.ops, [
    { op: 'test', path: `${p}/name`, value: 'app' },
    { op: 'test', path: `${p}/env/0/name`, value: 'LOG_LEVEL' },
    { op: 'test', path: `${p}/env/2/name`, value: 'FEATURE_X' },
    { op: 'replace', path: `${p}/env/0`, value: { name: 'LOG_LEVEL', value: 'debug' } },
    { op: 'remove', path: `${p}/env/2` },
    { op: 'add', path: `${p}/env/-`, value: { name: 'NEW', value: '1' } },
  ]);
  const out = applyJsonPatch(cs, plan.ops);
  assert.deepEqual(
    container(out, 'app').env?.map((e) => e.name),
    ['LOG_LEVEL', 'POD_IP', 'NEW'],
  );
  assert.equal(container(out, 'log-agent').env, undefined);
  assert.equal(container(out, 'init-config').env, undefined);
});

test('env: a container without env gets the whole list in one add; unchanged values send nothing', () => {
  const cs = fixture('cloneset-web-inplaceonly.yaml');
  const plan = planEnvChange(cs, 'log-agent', edits('A=1', 'B=2'));
  assert.ok(plan.ok);
  assert.deepEqual(plan.ops[1], { op: 'add', path: '/spec/template/spec/containers/1/env', value: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] });
  const same = planEnvChange(cs, 'app', edits('LOG_LEVEL=info', 'ABSENT-'));
  assert.ok(same.ok);
  assert.deepEqual(same.ops, []);
});

test('env: * reaches every container; unknown container fails', () => {
  const cs = fixture('cloneset-web-inplaceonly.yaml');
  const plan = planEnvChange(cs, '*', edits('TZ=UTC'));
  assert.ok(plan.ok);
  assert.deepEqual(plan.changes.map((c) => c.container), ['init-config', 'app', 'log-agent']);
  assert.deepEqual(planEnvChange(cs, 'nope', edits('TZ=UTC')), { ok: false, missingContainers: ['nope'] });
});

test('env --from builds key references like kubectl', () => {
  assert.deepEqual(envFromSource('configmap', 'settings', ['log.level', 'db-host'], 'APP_'), [
    { name: 'APP_DB_HOST', valueFrom: { configMapKeyRef: { name: 'settings', key: 'db-host' } } },
    { name: 'APP_LOG_LEVEL', valueFrom: { configMapKeyRef: { name: 'settings', key: 'log.level' } } },
  ]);
  assert.deepEqual(envFromSource('secret', 's', ['token']), [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'token' } } }]);
});

test('env --list prints KEY=value lines and references per container', () => {
  const text = formatEnvList('clonesets/web', fixture('cloneset-web-inplaceonly.yaml'), 'app');
  assert.equal(text, '# clonesets/web, container app\nLOG_LEVEL=info\n# POD_IP from field path status.podIP\nFEATURE_X=on\n');
});

test('quantities: parse and reject', () => {
  assert.equal(parseQuantity('500m'), 0.5);
  assert.equal(parseQuantity('1Gi'), 2 ** 30);
  assert.equal(parseQuantity('2'), 2);
  assert.equal(parseQuantity('1e3'), 1000);
  for (const bad of ['', 'abc', '1GB', '1 Gi', '--1', 'm']) assert.equal(parseQuantity(bad), undefined, bad);
  assert.deepEqual(parseResourceList('cpu=200m,memory=512Mi,nvidia.com/gpu=1', '--limits'), {
    ok: true,
    list: { cpu: '200m', memory: '512Mi', 'nvidia.com/gpu': '1' },
  });
  for (const bad of ['cpu', 'cpu=lots', '=1', 'cpu=-1', '']) assert.equal(parseResourceList(bad, '--limits').ok, false, bad);
});

test('resources: per-quantity adds, only what changed; absent maps created whole', () => {
  const cs = fixture('cloneset-web-inplaceonly.yaml');
  const p = '/spec/template/spec/containers/0';
  const plan = planResourcesChange(cs, 'app', { limits: { cpu: '1', memory: '256Mi', 'nvidia.com/gpu': '1' }, requests: { cpu: '0.1' } });
  assert.ok(plan.ok);
  // memory is unchanged and requests.cpu 0.1 equals 100m: neither is sent.
  assert.deepEqual(plan.ops, [
    { op: 'test', path: `${p}/name`, value: 'app' },
    { op: 'add', path: `${p}/resources/limits/cpu`, value: '1' },
    { op: 'add', path: `${p}/resources/limits/nvidia.com~1gpu`, value: '1' },
  ]);
  const agent = planResourcesChange(cs, 'log-agent', { requests: { cpu: '50m' } });
  assert.ok(agent.ok);
  assert.deepEqual(agent.ops[1], { op: 'add', path: '/spec/template/spec/containers/1/resources', value: { requests: { cpu: '50m' } } });
  const out = applyJsonPatch(cs, plan.ops);
  assert.deepEqual(container(out, 'app').resources?.limits, { cpu: '1', memory: '256Mi', 'nvidia.com/gpu': '1' });
});

test('resources: a request above its limit is reported before sending', () => {
  const plan = planResourcesChange(fixture('cloneset-web-inplaceonly.yaml'), 'app', { requests: { memory: '1Gi' } });
  assert.ok(plan.ok);
  assert.deepEqual(plan.violations, ['container "app": memory request 1Gi is above its limit 256Mi']);
});
