// The built-in Kruise definitions against the real CRDs of each release (../shared/kruise-crds, read at
// test time), for every kind both have: group, scope, names, served and storage versions and the status
// subresource, so that `--kruise master` without --crds serves and converts the same versions.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { builtinKruiseCrds, type KruiseRelease } from '../../../../src/sandbox/crds/builtin-crds';
import { readCrdFolder } from '../../../../src/sandbox/server/crd-lifecycle';
import type { KubeObject } from '../../../../src/kruise/types';

const REAL = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..', '..', '..', 'shared', 'kruise-crds');

interface Version {
  name: string;
  served: boolean;
  storage: boolean;
  subresources?: { status?: unknown };
}

function shape(crd: KubeObject): unknown {
  const spec = crd.spec as { group: string; scope: string; names: { kind: string; plural: string; shortNames?: string[] }; versions: Version[] };
  return {
    group: spec.group,
    scope: spec.scope,
    names: { kind: spec.names.kind, plural: spec.names.plural, shortNames: spec.names.shortNames },
    versions: spec.versions.map((v) => ({ name: v.name, served: v.served, storage: v.storage, status: v.subresources?.status !== undefined })),
  };
}

describe('built-in Kruise CRDs', () => {
  const cases: Array<[KruiseRelease, string]> = [['v1.3', 'v1.3.0'], ['v1.8', 'v1.8.4'], ['v1.9', 'v1.9.0'], ['master', 'master']];
  for (const [release, folder] of cases) {
    it(`--kruise ${release} serves the versions of ../shared/kruise-crds/${folder} for each kind it defines (v1beta1 of CloneSet, CRR, PPS, UnitedDeployment, WorkloadSpread, ResourceDistribution and PodUnavailableBudget on master)`, { skip: !existsSync(join(REAL, folder)) && 'no ../shared/kruise-crds' }, async () => {
      const real = new Map((await readCrdFolder(join(REAL, folder))).map((c) => [c.metadata.name, shape(c)]));
      const builtin = builtinKruiseCrds(release);
      for (const crd of builtin) assert.deepEqual(shape(crd), real.get(crd.metadata.name), crd.metadata.name);
      if (release === 'master') {
        const names = builtin.map((c) => c.metadata.name);
        for (const n of ['workloadspreads.apps.kruise.io', 'resourcedistributions.apps.kruise.io', 'podunavailablebudgets.policy.kruise.io']) assert.ok(names.includes(n), n);
      }
    });
  }
});
