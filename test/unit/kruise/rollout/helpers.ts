// Fixture loading and validation against the real Kruise Rollout CRDs (../shared/kruise-rollout-crds,
// read at test time), reusing the structural validator of test/unit/kruise/builders/crd-schema.ts.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, parse } from 'yaml';
import type { KubeObject } from '../../../../src/kruise/types';
import { validate } from '../builders/crd-schema';

export const ROLLOUT_CRDS_ROOT = '/work/shared/kruise-rollout-crds';
export const haveRolloutCrds = existsSync(ROLLOUT_CRDS_ROOT);
export const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'rollout-kruise');

/** Every object of a fixture file, in order. */
export function loadFixture(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(join(FIXTURES, file), 'utf8')).map((d) => d.toJSON() as KubeObject);
}

export function loadKind(file: string, kind: string): KubeObject {
  const obj = loadFixture(file).find((o) => o.kind === kind);
  if (!obj) throw new Error(`${file}: no ${kind}`);
  return obj;
}

type Schema = Parameters<typeof validate>[0];

export function rolloutCrdSchema(release: string, plural: string, version: string): Schema {
  const crd = parse(readFileSync(join(ROLLOUT_CRDS_ROOT, release, `rollouts.kruise.io_${plural}.yaml`), 'utf8')) as {
    spec: { versions: Array<{ name: string; served: boolean; schema: { openAPIV3Schema: Schema } }> };
  };
  const v = crd.spec.versions.find((x) => x.name === version && x.served);
  if (!v) throw new Error(`${release}: ${plural} ${version} not served`);
  return v.schema.openAPIV3Schema;
}

/** Schema errors of `obj` against the release's CRD for its own version. */
export function rolloutSchemaErrors(release: string, obj: KubeObject): string[] {
  const plural = obj.kind === 'BatchRelease' ? 'batchreleases' : 'rollouts';
  const version = (obj.apiVersion ?? '').split('/')[1] ?? '';
  return validate(rolloutCrdSchema(release, plural, version), obj);
}

/** RFC 7386 JSON merge patch, as the API server applies a merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const base: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete base[k];
    else base[k] = mergePatch(base[k], v);
  }
  return base;
}
