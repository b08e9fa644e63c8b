// `sandbox --crds DIR`: which Kruise Rollout release a folder of real CRDs (../shared/kruise-rollout-crds)
// makes the sandbox imitate.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkCrdFolders } from '../../../src/commands/sandbox-crds';

const ROOT = '/work/shared/kruise-rollout-crds';

test('the Rollout CRD of a folder decides: v1alpha1 only is v0.4; v1beta1 storage is v0.6, or master when controller-gen v0.14+ generated it (master regenerated them after v0.6.2)', { skip: !existsSync(ROOT) && 'no ../shared/kruise-rollout-crds' }, async () => {
  assert.equal((await checkCrdFolders([join(ROOT, 'v0.4.4')], undefined)).kruiseRollout, 'v0.4');
  assert.equal((await checkCrdFolders([join(ROOT, 'v0.6.2')], undefined)).kruiseRollout, 'v0.6');
  assert.equal((await checkCrdFolders([join(ROOT, 'master')], undefined)).kruiseRollout, 'master');
  // a release given with the folder still wins when their Rollout versions agree
  assert.equal((await checkCrdFolders([join(ROOT, 'master')], 'v0.6')).kruiseRollout, 'v0.6');
  assert.equal((await checkCrdFolders([join(ROOT, 'v0.6.2')], 'master')).kruiseRollout, 'master');
});
