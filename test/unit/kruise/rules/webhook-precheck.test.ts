// The CLI's write pre-check: the webhook rules on the object as our change leaves it, blaming
// only what the change introduces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describeRejections, webhookRejections, webhookWarnings } from '../../../../src/kruise/rules/webhook-precheck';
import type { KubeObject } from '../../../../src/kruise/types';

type Obj = KubeObject & { spec: Record<string, any> };
const load = (p: string): Obj => parse(readFileSync(join(import.meta.dirname, '../../../fixtures', p), 'utf8')) as Obj;

test('validateCloneSetUpdate (pkg/webhook/cloneset/validating/validation.go): an InPlaceOnly CloneSet refuses a template change beyond images', () => {
  const before = load('webhooks/cloneset-table-base.yaml');
  before.spec.updateStrategy.type = 'InPlaceOnly';
  const image = structuredClone(before);
  image.spec.template.spec.containers[0].image = 'image:2';
  assert.deepEqual(webhookRejections(before, image), []);
  const env = structuredClone(before);
  env.spec.template.spec.containers[0].env = [{ name: 'A', value: '1' }];
  const errs = webhookRejections(before, env);
  assert.equal(errs.length, 1);
  assert.match(describeRejections(errs), /^spec\.template: Forbidden: only allowed to update images in template for InPlaceOnly type/);
});

test('an error the object already had is not blamed on the change (ASTS InPlaceIfPossible without the readiness gate, validatePodUpdatePolicy)', () => {
  const before = load('webhooks/asts-table-base.yaml');
  before.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible' } };
  const after = structuredClone(before);
  after.spec.template.spec.containers[0].image = 'image:2';
  assert.equal(webhookWarnings(before).length, 1, 'the object alone is refused');
  assert.deepEqual(webhookRejections(before, after), [], 'but an image change does not add to it');
  const selector = structuredClone(before);
  selector.spec.selector = { matchLabels: { a: 'c' } };
  selector.spec.template.metadata.labels = { a: 'c' };
  assert.match(describeRejections(webhookRejections(before, selector)), /^spec: Forbidden: updates to statefulset spec/);
});

test('kinds without a Kruise webhook here pass untouched', () => {
  const dep = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { replicas: -1 } } as KubeObject;
  assert.deepEqual(webhookRejections(dep, dep), []);
  assert.deepEqual(webhookWarnings(dep), []);
});
