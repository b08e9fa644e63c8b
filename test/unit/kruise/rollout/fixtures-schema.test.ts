// Every Rollout fixture is a valid object of the Kruise Rollout release it imitates.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { haveRolloutCrds, loadFixture, rolloutSchemaErrors } from './helpers';

const files = readdirSync(join(import.meta.dirname, '..', '..', '..', 'fixtures', 'rollout-kruise')).filter((f) => f.endsWith('.yaml') && !f.includes('-bad-')); // *-bad-* fixtures are rejected on purpose (sandbox 422 tests)

describe('rollout-kruise fixtures against the real Kruise Rollout CRDs', { skip: !haveRolloutCrds && 'no ../shared/kruise-rollout-crds' }, () => {
  for (const file of files) {
    for (const obj of loadFixture(file).filter((o) => (o.apiVersion ?? '').startsWith('rollouts.kruise.io/'))) {
      const releases = obj.apiVersion === 'rollouts.kruise.io/v1alpha1' && file.startsWith('v1alpha1-') ? ['v0.4.4'] : ['v0.6.2', 'master'];
      for (const release of releases) {
        test(`${file}: ${obj.kind} ${obj.metadata.name} fits the ${release} CRD schema`, () => {
          assert.deepEqual(rolloutSchemaErrors(release, obj), []);
        });
      }
    }
  }
});
