// A strict subset of OpenAPI v3 structural-schema validation, enough to check the objects
// the CLI builds against the real Kruise CRDs (../shared/kruise-crds). Unknown fields are
// reported (a real server would prune them silently, which is worse: the flag would be lost).
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const CRDS_ROOT = '/work/shared/kruise-crds';

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

export function crdSchema(release: string, plural: string, version: string): Schema | undefined {
  const file = join(CRDS_ROOT, release, `apps.kruise.io_${plural}.yaml`);
  if (!existsSync(file)) return undefined;
  const crd = parse(readFileSync(file, 'utf8')) as { spec: { versions: Array<{ name: string; served: boolean; schema: { openAPIV3Schema: Schema } }> } };
  return crd.spec.versions.find((v) => v.name === version && v.served)?.schema.openAPIV3Schema;
}

/** Served versions of a kind in a release, newest (storage) last as listed. */
export function servedVersions(release: string, plural: string): string[] {
  const file = join(CRDS_ROOT, release, `apps.kruise.io_${plural}.yaml`);
  if (!existsSync(file)) return [];
  const crd = parse(readFileSync(file, 'utf8')) as { spec: { versions: Array<{ name: string; served: boolean }> } };
  return crd.spec.versions.filter((v) => v.served).map((v) => v.name);
}

export function validate(schema: Schema, value: unknown, path = ''): string[] {
  const errs: string[] = [];
  if (schema['x-kubernetes-int-or-string']) {
    if (typeof value !== 'number' && typeof value !== 'string') errs.push(`${path}: must be int or string`);
    return errs;
  }
  switch (schema.type) {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path}: must be an object`];
      const obj = value as Record<string, unknown>;
      for (const r of schema.required ?? []) if (obj[r] === undefined) errs.push(`${path}.${r}: Required value`);
      for (const [k, v] of Object.entries(obj)) {
        const sub = schema.properties?.[k];
        // ObjectMeta is validated by the API server itself, not by the CRD schema.
        if (path === '' && k === 'metadata') continue;
        if (sub) errs.push(...validate(sub, v, `${path}.${k}`));
        else if (typeof schema.additionalProperties === 'object') errs.push(...validate(schema.additionalProperties, v, `${path}.${k}`));
        else if (!schema['x-kubernetes-preserve-unknown-fields'] && !(path === '' && (k === 'apiVersion' || k === 'kind' || k === 'metadata'))) errs.push(`${path}.${k}: unknown field`);
      }
      return errs;
    }
    case 'array':
      if (!Array.isArray(value)) return [`${path}: must be an array`];
      value.forEach((v, i) => schema.items && errs.push(...validate(schema.items, v, `${path}[${i}]`)));
      return errs;
    case 'string':
      if (typeof value !== 'string') return [`${path}: must be a string`];
      break;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return [`${path}: must be an integer`];
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return [`${path}: must be a boolean`];
      break;
    case 'number':
      if (typeof value !== 'number') return [`${path}: must be a number`];
      break;
  }
  if (schema.enum && !schema.enum.includes(value)) errs.push(`${path}: Unsupported value ${JSON.stringify(value)}`);
  if (schema.minimum !== undefined && typeof value === 'number' && value < schema.minimum) errs.push(`${path}: must be >= ${schema.minimum}`);
  if (schema.maximum !== undefined && typeof value === 'number' && value > schema.maximum) errs.push(`${path}: must be <= ${schema.maximum}`);
  return errs;
}
