import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { KubeObject } from '../../../src/kruise/types';
import {
  allContainers,
  applyJsonPatch,
  inPlacePolicy,
  inPlaceVerdict,
  parseImageAssignments,
  planImageChange,
  podSpecPath,
  type JsonPatchOp,
} from '../../../src/kruise/containers';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'set');
function fixture(name: string): KubeObject {
  return parse(readFileSync(join(FIXTURES, name), 'utf8')) as KubeObject;
}

function imageOf(obj: KubeObject, name: string): string | undefined {
  return allContainers(obj).find((c) => c.name === name)?.container.image;
}

test('pod spec is found for every supported kind', () => {
  assert.deepEqual(podSpecPath(fixture('cloneset-web-inplaceonly.yaml')), ['spec', 'template', 'spec']);
  assert.deepEqual(podSpecPath(fixture('asts-db.yaml')), ['spec', 'template', 'spec']);
  assert.deepEqual(podSpecPath(fixture('ads-agent.yaml')), ['spec', 'template', 'spec']);
  assert.deepEqual(podSpecPath(fixture('deployment-api.yaml')), ['spec', 'template', 'spec']);
  assert.deepEqual(podSpecPath(fixture('cronjob-report.yaml')), ['spec', 'jobTemplate', 'spec', 'template', 'spec']);
  assert.deepEqual(podSpecPath(fixture('sidecarset-logging.yaml')), ['spec']);
  assert.deepEqual(podSpecPath(fixture('pod-debug.yaml')), ['spec']);
  assert.equal(podSpecPath({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }), undefined);
});

test('the image patch tests the container name, then replaces only the image', () => {
  const cs = fixture('cloneset-web-inplaceonly.yaml');
  const plan = planImageChange(cs, [{ container: 'app', image: 'nginx:1.27' }]);
  assert.ok(plan.ok);
  assert.deepEqual(plan.ops, [
    { op: 'test', path: '/spec/template/spec/containers/0/name', value: 'app' },
    { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.27' },
  ]);
  assert.deepEqual(plan.changes, [{ list: 'containers', container: 'app', field: 'image' }]);
});

test('every write of an image patch is an image path, whatever the selection', () => {
  for (const [file, pairs] of [
    ['cloneset-web-inplaceonly.yaml', [{ container: '*', image: 'nginx:1.27' }]],
    ['cloneset-web-inplaceonly.yaml', [{ container: 'init-config', image: 'busybox:1.37' }, { container: 'log-agent', image: 'fluent/fluent-bit:3.0' }]],
    ['cronjob-report.yaml', [{ container: 'report', image: 'python:3.13-slim' }]],
    ['sidecarset-logging.yaml', [{ container: '*', image: 'busybox:1.37' }]],
  ] as const) {
    const plan = planImageChange(fixture(file), pairs);
    assert.ok(plan.ok, file);
    assert.ok(plan.ops.length > 0, file);
    for (const op of plan.ops) {
      if (op.op === 'test') assert.match(op.path, /\/(initContainers|containers)\/\d+\/name$/, `${file}: ${op.path}`);
      else {
        assert.equal(op.op, 'replace', file);
        assert.match(op.path, /\/(initContainers|containers)\/\d+\/image$/, `${file}: ${op.path}`);
      }
    }
    // All guards come before the first write.
    const firstWrite = plan.ops.findIndex((o) => o.op !== 'test');
    assert.ok(plan.ops.slice(firstWrite).every((o) => o.op !== 'test'), file);
  }
});

test('* covers init containers and containers; an explicit name wins over *', () => {
  const cs = fixture('cloneset-web-inplaceonly.yaml');
  const plan = planImageChange(cs, [
    { container: '*', image: 'busybox:1.37' },
    { container: 'app', image: 'nginx:1.27' },
  ]);
  assert.ok(plan.ok);
  const out = applyJsonPatch(cs, plan.ops);
  assert.equal(imageOf(out, 'init-config'), 'busybox:1.37');
  assert.equal(imageOf(out, 'app'), 'nginx:1.27');
  assert.equal(imageOf(out, 'log-agent'), 'busybox:1.37');
  // The input object is not modified.
  assert.equal(imageOf(cs, 'app'), 'nginx:1.25');
});

test('init container images are patched at their own index', () => {
  const plan = planImageChange(fixture('cloneset-web-inplaceonly.yaml'), [{ container: 'init-config', image: 'busybox:1.37' }]);
  assert.ok(plan.ok);
  assert.deepEqual(plan.ops, [
    { op: 'test', path: '/spec/template/spec/initContainers/0/name', value: 'init-config' },
    { op: 'replace', path: '/spec/template/spec/initContainers/0/image', value: 'busybox:1.37' },
  ]);
  assert.deepEqual(plan.changes, [{ list: 'initContainers', container: 'init-config', field: 'image' }]);
});

test('an unknown container fails the whole plan, even next to a valid one', () => {
  const plan = planImageChange(fixture('cloneset-web-inplaceonly.yaml'), [
    { container: 'app', image: 'nginx:1.27' },
    { container: 'nope', image: 'nginx:1.27' },
  ]);
  assert.deepEqual(plan, { ok: false, missingContainers: ['nope'] });
});

test('an unchanged image plans no ops', () => {
  const plan = planImageChange(fixture('cloneset-web-inplaceonly.yaml'), [{ container: 'app', image: 'nginx:1.25' }]);
  assert.ok(plan.ok);
  assert.deepEqual(plan.ops, []);
  assert.deepEqual(plan.changes, []);
});

test('CONTAINER=IMAGE parsing rejects a missing =, empty sides and duplicates', () => {
  assert.deepEqual(parseImageAssignments(['app=nginx:1.27', 'side=a/b@sha256:' + 'a'.repeat(64)]), {
    ok: true,
    pairs: [
      { container: 'app', image: 'nginx:1.27' },
      { container: 'side', image: 'a/b@sha256:' + 'a'.repeat(64) },
    ],
  });
  for (const bad of [['app'], ['=nginx'], ['app='], ['app=a', 'app=b'], []]) {
    const r = parseImageAssignments(bad);
    assert.equal(r.ok, false, JSON.stringify(bad));
  }
});

test('a test op on a reordered container makes the patch fail instead of touching the wrong one', () => {
  const cs = fixture('cloneset-web-inplaceonly.yaml');
  const plan = planImageChange(cs, [{ container: 'app', image: 'nginx:1.27' }]);
  assert.ok(plan.ok);
  const reordered = structuredClone(cs) as KubeObject & { spec: { template: { spec: { containers: unknown[] } } } };
  reordered.spec.template.spec.containers.reverse();
  assert.throws(() => applyJsonPatch(reordered, plan.ops), /testing value at "\/spec\/template\/spec\/containers\/0\/name" failed/);
});

test('applyJsonPatch: add/replace/remove on arrays and objects', () => {
  const obj: KubeObject = { metadata: { name: 'x' }, spec: { list: [1, 2, 3], m: { a: 'b' } } };
  const ops: JsonPatchOp[] = [
    { op: 'remove', path: '/spec/list/1' },
    { op: 'add', path: '/spec/list/-', value: 4 },
    { op: 'replace', path: '/spec/m/a', value: 'c' },
    { op: 'add', path: '/spec/m/k~1v', value: 'slash' },
  ];
  assert.deepEqual(applyJsonPatch(obj, ops).spec, { list: [1, 3, 4], m: { a: 'c', 'k/v': 'slash' } });
  assert.throws(() => applyJsonPatch(obj, [{ op: 'replace', path: '/spec/missing/x', value: 1 }]));
});

test('update policies are read from both CloneSet shapes, ASTS and ADS', () => {
  assert.equal(inPlacePolicy(fixture('cloneset-web-inplaceonly.yaml')), 'InPlaceOnly');
  assert.equal(inPlacePolicy(fixture('cloneset-web-v1beta1.yaml')), 'InPlaceIfPossible');
  assert.equal(inPlacePolicy(fixture('asts-db.yaml')), 'InPlaceIfPossible');
  assert.equal(inPlacePolicy(fixture('ads-agent.yaml')), 'InPlaceIfPossible');
  assert.equal(inPlacePolicy(fixture('deployment-api.yaml')), undefined);
  assert.equal(inPlacePolicy(fixture('sidecarset-logging.yaml')), undefined);
  const recreate = fixture('cloneset-web-v1beta1.yaml') as KubeObject & { spec: { updateStrategy: unknown } };
  recreate.spec.updateStrategy = { type: 'RollingUpdate' };
  assert.equal(inPlacePolicy(recreate), 'ReCreate');
});

test('in-place verdict: app images are fine, init images are not, InPlaceOnly rejects', () => {
  const only = fixture('cloneset-web-inplaceonly.yaml');
  assert.equal(inPlaceVerdict(only, [{ list: 'containers', container: 'app', field: 'image' }]), undefined);
  assert.deepEqual(inPlaceVerdict(only, [{ list: 'initContainers', container: 'init-config', field: 'image' }]), {
    policy: 'InPlaceOnly',
    what: 'init container image changes',
    rejected: true,
  });
  const possible = fixture('cloneset-web-v1beta1.yaml');
  assert.deepEqual(inPlaceVerdict(possible, [{ list: 'containers', container: 'app', field: 'env' }]), {
    policy: 'InPlaceIfPossible',
    what: 'env changes',
    rejected: false,
  });
  assert.equal(inPlaceVerdict(fixture('deployment-api.yaml'), [{ list: 'containers', container: 'api', field: 'env' }]), undefined);
});
