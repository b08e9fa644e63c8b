import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiGroupOf, joinApiVersion, splitApiVersion, withTypeMeta } from '../../../src/kruise/api-version';

test('splitApiVersion: named groups, the core group, and a missing apiVersion', () => {
  assert.deepEqual(splitApiVersion('apps.kruise.io/v1beta1'), { group: 'apps.kruise.io', version: 'v1beta1' });
  assert.deepEqual(splitApiVersion('apps/v1'), { group: 'apps', version: 'v1' });
  assert.deepEqual(splitApiVersion('v1'), { group: '', version: 'v1' });
  assert.deepEqual(splitApiVersion(''), { group: '', version: '' });
  assert.deepEqual(splitApiVersion(undefined), { group: '', version: '' });
});

test('apiGroupOf and joinApiVersion agree with splitApiVersion', () => {
  for (const av of ['apps.kruise.io/v1alpha1', 'apps/v1', 'policy/v1', 'v1']) {
    const { group, version } = splitApiVersion(av);
    assert.equal(apiGroupOf(av), group);
    assert.equal(joinApiVersion(group, version), av);
  }
  assert.equal(apiGroupOf(undefined), '');
});

test('withTypeMeta: an object read without apiVersion or kind gets its type\'s; a typed one is returned as it is', () => {
  const cloneSets = { group: 'apps.kruise.io', version: 'v1beta1', kind: 'CloneSet' };
  const bare = { metadata: { name: 'web' } };
  assert.deepEqual(withTypeMeta(bare, cloneSets), { apiVersion: 'apps.kruise.io/v1beta1', kind: 'CloneSet', metadata: { name: 'web' } });
  assert.deepEqual(withTypeMeta({ kind: 'Service', metadata: {} }, { group: '', version: 'v1', kind: 'Service' }), { apiVersion: 'v1', kind: 'Service', metadata: {} });
  const typed = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'web' } };
  assert.equal(withTypeMeta(typed, cloneSets), typed);
});
