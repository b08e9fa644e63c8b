import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatLabelSelector, labelSelectorMatches, labelSelectorString } from '../../../src/kruise/selectors';

const labels = { app: 'web', tier: 'fe', env: 'prod' };

test('labelSelectorMatches: matchLabels and the four LabelSelector operators', () => {
  assert.equal(labelSelectorMatches({ matchLabels: { app: 'web' } }, labels), true);
  assert.equal(labelSelectorMatches({ matchLabels: { app: 'api' } }, labels), false);
  assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'qa'] }] }, labels), true);
  assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'env', operator: 'In', values: ['qa'] }] }, labels), false);
  assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, labels), false);
  assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, labels), false);
  assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, labels), true);
  assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, labels), true);
  assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, labels), false);
  assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, labels), false);
  assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, labels), true);
});

test('labelSelectorMatches: a missing selector picks nothing, an empty one everything', () => {
  assert.equal(labelSelectorMatches(undefined, labels), false);
  assert.equal(labelSelectorMatches({}, labels), true);
  assert.equal(labelSelectorMatches({}, undefined), true);
  assert.equal(labelSelectorMatches({ matchLabels: { app: 'web' } }, undefined), false);
});

test('labelSelectorMatches: a label inherited from Object.prototype is not a label', () => {
  assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'toString', operator: 'Exists' }] }, {}), false);
});

test('labelSelectorString keeps the written order; formatLabelSelector sorts keys and values bytewise', () => {
  const sel = {
    matchLabels: { tier: 'fe', App: 'web' },
    matchExpressions: [
      { key: 'env', operator: 'In', values: ['qa', 'prod'] },
      { key: 'x', operator: 'Exists' },
      { key: 'y', operator: 'DoesNotExist' },
      { key: 'z', operator: 'NotIn', values: ['b', 'a'] },
    ],
  };
  assert.equal(labelSelectorString(sel), 'tier=fe,App=web,env in (qa,prod),x,!y,z notin (b,a)');
  assert.equal(formatLabelSelector(sel), 'App=web,tier=fe,env in (prod,qa),x,!y,z notin (a,b)');
  assert.equal(labelSelectorString(undefined), '');
  assert.equal(formatLabelSelector(undefined), '');
  // The spec object is not reordered in place.
  assert.deepEqual(sel.matchExpressions[0]!.values, ['qa', 'prod']);
});
