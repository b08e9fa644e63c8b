// The built-in Kruise Rollout definitions against the real CRDs of each release they imitate
// (../shared/kruise-rollout-crds/{v0.4.4,v0.6.2,master}, read at test time): the same kinds, names,
// scope, served/storage versions, status subresource and printer columns.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { builtinRolloutCrds, parseRolloutRelease, type RolloutRelease } from '../../../../src/sandbox/crds/builtin-rollout-crds';
import { readCrdFolder } from '../../../../src/sandbox/server/crd-lifecycle';
import type { KubeObject } from '../../../../src/kruise/types';

const REAL = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..', '..', '..', 'shared', 'kruise-rollout-crds');

interface Version {
  name: string;
  served: boolean;
  storage: boolean;
  subresources?: Record<string, unknown>;
  additionalPrinterColumns?: Array<{ name: string; type: string; jsonPath: string }>;
}

/** What a user or kubectl sees of a CRD (not its schema). */
function shape(crd: KubeObject): unknown {
  const spec = crd.spec as { group: string; scope: string; names: Record<string, unknown>; versions: Version[] };
  return {
    name: crd.metadata.name,
    group: spec.group,
    scope: spec.scope,
    names: { kind: spec.names.kind, plural: spec.names.plural, singular: spec.names.singular, listKind: spec.names.listKind, shortNames: spec.names.shortNames },
    versions: spec.versions.map((v) => ({
      name: v.name,
      served: v.served,
      storage: v.storage,
      subresources: v.subresources,
      columns: (v.additionalPrinterColumns ?? []).map((c) => `${c.name} ${c.type} ${c.jsonPath}`),
    })),
  };
}

describe('built-in Kruise Rollout CRDs', () => {
  const cases: Array<[RolloutRelease, string]> = [['v0.4', 'v0.4.4'], ['v0.6', 'v0.6.2'], ['master', 'master']];
  for (const [release, folder] of cases) {
    it(`--kruise-rollout ${release} matches ../shared/kruise-rollout-crds/${folder} (names, versions, storage, status subresource, printer columns)`, { skip: !existsSync(join(REAL, folder)) && 'no ../shared/kruise-rollout-crds' }, async () => {
      const real = (await readCrdFolder(join(REAL, folder))).map(shape).sort((a, b) => String((a as { name: string }).name).localeCompare(String((b as { name: string }).name)));
      const builtin = builtinRolloutCrds(release).map(shape).sort((a, b) => String((a as { name: string }).name).localeCompare(String((b as { name: string }).name)));
      assert.deepEqual(builtin, real);
    });
  }

  it('parseRolloutRelease accepts releases and patch versions, rejects others', () => {
    assert.equal(parseRolloutRelease('v0.4'), 'v0.4');
    assert.equal(parseRolloutRelease('0.4.4'), 'v0.4');
    assert.equal(parseRolloutRelease('v0.6.2'), 'v0.6');
    assert.equal(parseRolloutRelease('main'), 'master');
    assert.equal(parseRolloutRelease('v0.5'), undefined);
    assert.equal(parseRolloutRelease('v1.6'), undefined);
  });
});
