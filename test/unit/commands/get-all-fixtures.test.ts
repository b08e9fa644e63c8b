// test/fixtures/get-all (one object of every kind `get all` lists) validated against the real CRDs of the
// releases that serve each object's version: Kruise v1.3.0, v1.9.0 and master (../shared/kruise-crds),
// Kruise Rollout v0.6.2 (../shared/kruise-rollout-crds). Unknown fields count as errors (a server would prune them).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../../src/kruise/types';
import { CRDS_ROOT, validate } from '../kruise/builders/crd-schema';
import { rolloutSchemaErrors } from '../kruise/rollout/helpers';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'get-all');
const RELEASES = ['v1.3.0', 'v1.9.0', 'master'];
type Schema = Parameters<typeof validate>[0];

const objects = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => parseAllDocuments(readFileSync(join(FIXTURES, f), 'utf8')).map((d) => ({ file: f, obj: d.toJSON() as KubeObject })));

/** The CRD of a Kruise kind (apps or policy group) in a release, or undefined when that release lacks it. */
function kruiseSchema(release: string, group: string, kind: string, version: string): Schema | undefined {
  const dir = join(CRDS_ROOT, release);
  const file = readdirSync(dir).find((f) => f.startsWith(`${group}_`) && (parse(readFileSync(join(dir, f), 'utf8')) as { spec: { names: { kind: string } } }).spec.names.kind === kind);
  if (!file) return undefined;
  const crd = parse(readFileSync(join(dir, file), 'utf8')) as { spec: { versions: Array<{ name: string; served: boolean; schema: { openAPIV3Schema: Schema } }> } };
  return crd.spec.versions.find((v) => v.name === version && v.served)?.schema.openAPIV3Schema;
}

describe('test/fixtures/get-all against the real CRDs', { skip: !existsSync(CRDS_ROOT) && 'no ../shared/kruise-crds' }, () => {
  it('holds one object of each of the 13 kinds get all lists', () => {
    const kinds = new Set(objects.map(({ obj }) => `${obj.apiVersion!.split('/')[0]}/${obj.kind}`));
    for (const k of ['CloneSet', 'StatefulSet', 'DaemonSet', 'SidecarSet', 'UnitedDeployment', 'BroadcastJob', 'AdvancedCronJob', 'ImagePullJob', 'ContainerRecreateRequest', 'PersistentPodState', 'WorkloadSpread']) assert.ok(kinds.has(`apps.kruise.io/${k}`), k);
    assert.ok(kinds.has('policy.kruise.io/PodUnavailableBudget'));
    assert.ok(kinds.has('rollouts.kruise.io/Rollout'));
  });

  for (const { file, obj } of objects) {
    const [group, version] = obj.apiVersion!.split('/') as [string, string];
    if (!group.endsWith('kruise.io')) continue;
    it(`${file}: ${obj.kind}/${obj.metadata.name} (${obj.apiVersion})`, () => {
      if (group === 'rollouts.kruise.io') {
        assert.deepEqual(rolloutSchemaErrors('v0.6.2', obj), []);
        return;
      }
      let checked = 0;
      for (const release of RELEASES) {
        const schema = kruiseSchema(release, group, obj.kind!, version);
        if (!schema) continue;
        assert.deepEqual(validate(schema, obj), [], release);
        checked++;
      }
      assert.ok(checked >= 2, `${obj.kind} ${version} is served by v1.9.0 and at least one other release`);
    });
  }
});
