// InPlaceWorkloadVerticalScaling in the sandbox's kruise-manager gates: present in
// pkg/features/kruise_features.go from v1.8.0 (Alpha, Default false; also v1.9.0 and master), absent in v1.3.0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { featureEnabled, parseFeatureGates } from '../../../src/sandbox/feature-gates';
import { inPlaceOptions } from '../../../src/sandbox/controllers/revisions-pods';

test('InPlaceWorkloadVerticalScaling: off by default, settable on v1.8, v1.9 and master, unknown to v1.3', () => {
  assert.equal(featureEnabled(undefined, 'InPlaceWorkloadVerticalScaling'), false);
  for (const release of ['v1.8', 'v1.9', 'master']) {
    assert.equal(featureEnabled(parseFeatureGates('InPlaceWorkloadVerticalScaling=true', release), 'InPlaceWorkloadVerticalScaling'), true);
  }
  assert.throws(() => parseFeatureGates('InPlaceWorkloadVerticalScaling=true', 'v1.3'), /unrecognized feature gate: InPlaceWorkloadVerticalScaling/);
});

test('the sandbox controllers and --preview read the same in-place options', () => {
  assert.deepEqual(inPlaceOptions({ kruise: 'v1.9', featureGates: parseFeatureGates('InPlaceWorkloadVerticalScaling=true', 'v1.9') }), { envFromMetadata: true, verticalScaling: true });
  assert.deepEqual(inPlaceOptions({ kruise: 'v1.3', featureGates: undefined }), { envFromMetadata: false, verticalScaling: false });
});
