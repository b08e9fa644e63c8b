import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateJsonPath, compileJsonPath } from '../../../src/printers/jsonpath';
import { formatObjects, parseOutputFormat, mutationLine, parseDryRun } from '../../../src/printers/output';
import { CliError } from '../../../src/cli/exit';

const cloneset = {
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name: 'web', namespace: 'default', labels: { 'app.kubernetes.io/name': 'web' } },
  spec: {
    replicas: 8,
    template: { spec: { containers: [{ name: 'app', image: 'nginx:1.25' }, { name: 'sidecar', image: 'envoy:1.30' }] } },
  },
  status: { replicas: 8, updatedReplicas: 1, expectedUpdatedReplicas: 1 },
};
const list = { kind: 'List', items: [cloneset, { ...cloneset, metadata: { name: 'api' }, status: { replicas: 3 } }] };

test('simple fields and nested paths', () => {
  assert.equal(evaluateJsonPath('{.status.replicas}', cloneset), '8');
  assert.equal(evaluateJsonPath('{.metadata.name}/{.spec.replicas}', cloneset), 'web/8');
  assert.equal(evaluateJsonPath('.status.expectedUpdatedReplicas', cloneset), '1');
  assert.equal(evaluateJsonPath('{$.metadata.name}', cloneset), 'web');
});

test('wildcards print space-separated, ranges iterate', () => {
  assert.equal(evaluateJsonPath('{.spec.template.spec.containers[*].image}', cloneset), 'nginx:1.25 envoy:1.30');
  assert.equal(evaluateJsonPath('{range .items[*]}{.metadata.name}={.status.replicas}{"\\n"}{end}', list), 'web=8\napi=3\n');
});

test('filters, indexes, slices, quoted and escaped keys', () => {
  assert.equal(evaluateJsonPath('{.spec.template.spec.containers[?(@.name=="sidecar")].image}', cloneset), 'envoy:1.30');
  assert.equal(evaluateJsonPath('{.spec.template.spec.containers[-1].name}', cloneset), 'sidecar');
  assert.equal(evaluateJsonPath('{.spec.template.spec.containers[0:1].name}', cloneset), 'app');
  assert.equal(evaluateJsonPath("{.metadata.labels['app.kubernetes.io/name']}", cloneset), 'web');
  assert.equal(evaluateJsonPath('{.metadata.labels.app\\.kubernetes\\.io/name}', cloneset), 'web');
  assert.equal(evaluateJsonPath('{..image}', cloneset), 'nginx:1.25 envoy:1.30');
});

test('objects print as JSON, missing keys print nothing', () => {
  assert.equal(evaluateJsonPath('{.status}', cloneset), '{"replicas":8,"updatedReplicas":1,"expectedUpdatedReplicas":1}');
  assert.equal(evaluateJsonPath('{.status.nothing}', cloneset), '');
});

test('malformed templates are rejected', () => {
  assert.throws(() => compileJsonPath('{.status'));
  assert.throws(() => compileJsonPath('{range .items[*]}{.x}'));
  assert.throws(() => compileJsonPath('{end}'));
});

test('-o parsing: allowed formats, jsonpath templates, usage errors', () => {
  assert.deepEqual(parseOutputFormat('json', ['json', 'yaml']), { kind: 'json' });
  assert.deepEqual(parseOutputFormat('jsonpath={.a}', ['jsonpath']), { kind: 'jsonpath', template: '{.a}' });
  assert.deepEqual(parseOutputFormat(undefined, ['json']), { kind: 'default' });
  for (const bad of ['xml', 'jsonpath=', 'jsonpath={.a', 'wide']) {
    assert.throws(() => parseOutputFormat(bad, ['json', 'yaml', 'jsonpath']), (e: unknown) => e instanceof CliError && e.exitCode === 2, bad);
  }
});

test('objects print like kubectl: name form, List for several', () => {
  assert.equal(formatObjects([cloneset], { kind: 'name' }), 'cloneset.apps.kruise.io/web\n');
  assert.equal(JSON.parse(formatObjects([cloneset, cloneset], { kind: 'json' })).kind, 'List');
  assert.match(formatObjects([cloneset], { kind: 'yaml' }), /^apiVersion: apps.kruise.io\/v1alpha1\nkind: CloneSet\n/);
  // kubectl prints jsonpath output as the template makes it, without a trailing newline
  // (k8s.io/client-go/util/jsonpath: JSONPath.Execute writes only the template's text).
  assert.equal(formatObjects([cloneset], { kind: 'jsonpath', template: '{.metadata.name}' }), 'web');
  assert.equal(formatObjects([cloneset], { kind: 'jsonpath', template: '{.metadata.name}{"\\n"}' }), 'web\n');
  assert.equal(formatObjects([cloneset], { kind: 'jsonpath', template: '{.metadata.name}' }, { jsonpathNewline: true }), 'web\n');
});

test('mutation lines and dry-run suffixes', () => {
  assert.equal(mutationLine('CloneSet', 'apps.kruise.io', 'web', 'image updated', 'none'), 'cloneset.apps.kruise.io/web image updated');
  assert.equal(mutationLine('Deployment', 'apps', 'web', 'paused', 'client'), 'deployment.apps/web paused (dry run)');
  assert.equal(mutationLine('Pod', '', 'web-1', 'restarted', 'server'), 'pod/web-1 restarted (server dry run)');
  assert.equal(parseDryRun(true), 'client');
  assert.equal(parseDryRun('server'), 'server');
  assert.throws(() => parseDryRun('yes'));
});

test('YAML output quotes strings that YAML 1.1 readers (kubectl) would take as booleans or numbers', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'flags' }, data: { a: 'on', b: 'yes', c: 'y', d: '012', e: 'nginx:1.25' } };
  const out = formatObjects([cm], { kind: 'yaml' });
  assert.match(out, /a: "on"\n/);
  assert.match(out, /b: "yes"\n/);
  assert.match(out, /c: "y"\n/);
  assert.match(out, /d: "012"\n/);
  assert.match(out, /e: nginx:1.25\n/);
});
