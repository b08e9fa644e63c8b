// Label/field selectors of the query string, and structural schema pruning, defaulting and validation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../../src/sandbox/server/errors';
import { applyStructuralSchema } from '../../../../src/sandbox/server/schema';
import { fieldMatcher, labelMatcher } from '../../../../src/sandbox/server/selectors';
import type { JsonSchema } from '../../../../src/sandbox/server/resource-types';

describe('label selectors', () => {
  const labels = { app: 'web', tier: 'front', version: '3' };
  const cases: Array<[string, boolean]> = [
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app=web,tier=back', false],
    ['tier in (front, back)', true],
    ['tier notin (front)', false],
    ['missing notin (x)', true],
    ['app', true],
    ['!app', false],
    ['!missing', true],
    ['version>2', true],
    ['version<3', false],
    ['app in (web),!missing,tier', true],
    ['', true],
  ];
  for (const [sel, want] of cases) {
    it(`"${sel}" → ${want}`, () => assert.equal(labelMatcher(sel)(labels), want));
  }
  it('rejects garbage with a 400', () => {
    assert.throws(() => labelMatcher('app=(web'), (e: unknown) => e instanceof ApiError && e.code === 400);
  });
});

describe('field selectors', () => {
  const pod = { metadata: { name: 'p', namespace: 'ns' }, spec: { nodeName: 'node-1' }, status: { phase: 'Running' } };
  it('supports metadata.name, metadata.namespace, spec.nodeName, status.phase with = and !=', () => {
    assert.equal(fieldMatcher('metadata.name=p,spec.nodeName=node-1')(pod), true);
    assert.equal(fieldMatcher('status.phase!=Running')(pod), false);
    assert.equal(fieldMatcher('metadata.namespace==other')(pod), false);
    assert.equal(fieldMatcher('spec.nodeName=')({ metadata: { name: 'q' } }), true);
  });
  it('rejects unsupported fields like kube', () => {
    assert.throws(() => fieldMatcher('spec.replicas=1'), (e: unknown) => e instanceof ApiError && /field label not supported: spec.replicas/.test(e.message));
  });
});

describe('structural schema', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        required: ['selector'],
        properties: {
          replicas: { type: 'integer', format: 'int32', minimum: 0, default: 1 },
          selector: { type: 'object', properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } } },
          partition: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          mode: { type: 'string', enum: ['A', 'B'], default: 'A' },
          name: { type: 'string', maxLength: 5, pattern: '^[a-z]+$' },
          items: { type: 'array', maxItems: 2, items: { type: 'object', properties: { n: { type: 'integer' } } } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
  };

  it('prunes undeclared fields, keeps preserved ones and applies defaults', () => {
    const r = applyStructuralSchema({ apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { selector: {}, extra: 1, free: { anything: { goes: true } }, items: [{ n: 1, junk: 2 }] } }, schema);
    assert.deepEqual(r.unknownFields.sort(), ['spec.extra', 'spec.items[0].junk']);
    assert.deepEqual(r.causes, []);
    const spec = r.object.spec as Record<string, unknown>;
    assert.equal(spec.replicas, 1);
    assert.equal(spec.mode, 'A');
    assert.deepEqual(spec.free, { anything: { goes: true } });
    assert.deepEqual(spec.items, [{ n: 1 }]);
  });

  it('reports kube-style causes with field paths', () => {
    const r = applyStructuralSchema({ spec: { replicas: -1, partition: 1.5, mode: 'C', name: 'TooLong', items: [{}, {}, { n: 'x' }], selector: { matchLabels: { a: 1 } } } }, schema);
    const byField = Object.fromEntries(r.causes.map((c) => [c.field, c.message]));
    assert.equal(byField['spec.replicas'], 'Invalid value: -1: spec.replicas in body should be greater than or equal to 0');
    assert.equal(byField['spec.partition'], 'Invalid value: "number": spec.partition in body must be of type integer,string: "number"');
    assert.equal(byField['spec.mode'], 'Unsupported value: "C": supported values: "A", "B"');
    assert.match(byField['spec.name']!, /Too long: may not be more than 5 bytes|should match/);
    assert.equal(byField['spec.items'], 'Too many: 3: must have at most 2 items');
    assert.equal(byField['spec.items[2].n'], 'Invalid value: "string": spec.items[2].n in body must be of type integer: "string"');
    assert.equal(byField['spec.selector.matchLabels[a]'], 'Invalid value: "integer": spec.selector.matchLabels[a] in body must be of type string: "integer"');
    const lists: JsonSchema = {
      type: 'object',
      properties: {
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
      },
    };
    const dup = applyStructuralSchema({ tags: ['a', 'b', 'a'], ports: [{ name: 'http', port: 80 }, { name: 'http', port: 81 }] }, lists);
    assert.deepEqual(dup.causes.map((c) => [c.field, c.message]), [
      ['tags[2]', 'Duplicate value: "a"'],
      ['ports[1]', 'Duplicate value: map[string]interface {}{"name":"http"}'],
    ]);
    const missing = applyStructuralSchema({ spec: {} }, schema);
    assert.deepEqual(missing.causes.map((c) => [c.field, c.message]), [['spec.selector', 'Required value']]);
  });
});
