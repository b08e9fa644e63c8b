// The InPlaceUpdateEnvFromMetadata default per imitated release, shared by CloneSet, ASTS and ADS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { envFromMetadataByDefault } from '../../../../src/kruise/rules/cloneset-inplace';

test('InPlaceUpdateEnvFromMetadata default (pkg/features/kruise_features.go at v1.3.0: Alpha false; v1.8.0, v1.8.4, v1.9.0: Beta true)', () => {
  assert.equal(envFromMetadataByDefault('v1.3'), false);
  assert.equal(envFromMetadataByDefault('v1.8'), true);
  assert.equal(envFromMetadataByDefault('v1.9'), true);
  assert.equal(envFromMetadataByDefault('master'), true);
});
