// schemaLacksField (src/engine/crd-fields.ts): a field is "missing" only where the schema would
// prune it. The sandbox's built-in definitions keep any spec field, so nothing is missing there
// (before, every newer field was reported missing against them: `restart --force` was refused on
// a default sandbox and `migrate` left progressDeadlineSeconds out).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { schemaLacksField } from '../../../src/engine/crd-fields';
import { PERMISSIVE_SCHEMA } from '../../../src/sandbox/crds/builtin-crds';
import { crdSchema } from '../kruise/builders/crd-schema';

test('a permissive schema (spec keeps unknown fields) lacks nothing', () => {
  assert.equal(schemaLacksField({ openAPIV3Schema: PERMISSIVE_SCHEMA }, 'progressDeadlineSeconds'), false);
  assert.equal(schemaLacksField({ openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, 'anything'), false);
});

test('the real CloneSet schemas: progressDeadlineSeconds from v1.9.0 on', { skip: !crdSchema('v1.3.0', 'clonesets', 'v1alpha1') }, () => {
  assert.equal(schemaLacksField({ openAPIV3Schema: crdSchema('v1.3.0', 'clonesets', 'v1alpha1') }, 'progressDeadlineSeconds'), true);
  assert.equal(schemaLacksField({ openAPIV3Schema: crdSchema('v1.8.4', 'clonesets', 'v1alpha1') }, 'progressDeadlineSeconds'), true);
  assert.equal(schemaLacksField({ openAPIV3Schema: crdSchema('v1.9.0', 'clonesets', 'v1alpha1') }, 'progressDeadlineSeconds'), false);
  assert.equal(schemaLacksField({ openAPIV3Schema: crdSchema('master', 'clonesets', 'v1beta1') }, 'progressDeadlineSeconds'), false);
});

test('no schema: unknown, so not reported missing', () => {
  assert.equal(schemaLacksField(undefined, 'x'), false);
});
