// Structural schema handling of custom resources, in the API server's order: prune fields
// the schema does not declare, apply defaults, then validate with kube-style causes
// (field path + "Invalid value"/"Required value"/"Unsupported value" messages).
import type { StatusCause } from './errors';
import type { JsonSchema } from './resource-types';

type Obj = Record<string, unknown>;

export interface SchemaResult {
  /** The object after pruning and defaulting (a new object; the input is not changed). */
  object: Obj;
  /** Paths of the fields pruned because the schema does not declare them (e.g. ".spec.foo"). */
  unknownFields: string[];
  causes: StatusCause[];
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function quote(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  return JSON.stringify(v);
}

/** Prune + default (mutates `value`, a private copy). Returns the value to keep (undefined = drop). */
function pruneAndDefault(value: unknown, schema: JsonSchema | undefined, path: string, unknown: string[], root: boolean): unknown {
  if (!schema) return value;
  if (value === null) return value;
  if (isObj(value)) {
    const props = schema.properties;
    const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
    const embedded = schema['x-kubernetes-embedded-resource'] === true;
    const additional = schema.additionalProperties;
    for (const key of Object.keys(value)) {
      if (root && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
      if (embedded && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
      const child = props?.[key] ?? (isObj(additional) ? (additional as JsonSchema) : undefined);
      if (child) {
        const kept = pruneAndDefault(value[key], child, join(path, key), unknown, false);
        if (kept === undefined) delete value[key];
        else value[key] = kept;
      } else if (!preserve && additional !== true && (props !== undefined || additional !== undefined || schema.type === 'object')) {
        unknown.push(join(path, key));
        delete value[key];
      }
    }
    if (props) {
      for (const [key, child] of Object.entries(props)) {
        if (value[key] === undefined && child.default !== undefined) {
          value[key] = pruneAndDefault(structuredClone(child.default), child, join(path, key), [], false);
        } else if (value[key] === null && child.default !== undefined && !child.nullable) {
          value[key] = structuredClone(child.default);
        }
      }
    }
    return value;
  }
  if (Array.isArray(value)) {
    if (schema.items) {
      for (let i = 0; i < value.length; i++) value[i] = pruneAndDefault(value[i], schema.items, `${path}[${i}]`, unknown, false);
    }
    return value;
  }
  return value;
}

function checkType(value: unknown, schema: JsonSchema): boolean {
  if (schema['x-kubernetes-int-or-string']) return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
  switch (schema.type) {
    case 'object':
      return isObj(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}

const patternCache = new Map<string, RegExp | null>();
function compilePattern(p: string): RegExp | null {
  if (!patternCache.has(p)) {
    try {
      patternCache.set(p, new RegExp(p, 'u'));
    } catch {
      patternCache.set(p, null);
    }
  }
  return patternCache.get(p)!;
}

function validate(value: unknown, schema: JsonSchema | undefined, path: string, causes: StatusCause[], root: boolean): void {
  if (!schema) return;
  const field = path;
  if (value === null) {
    if (!schema.nullable && schema.type && !root) {
      causes.push({ reason: 'FieldValueTypeInvalid', field, message: `Invalid value: "null": ${field} in body must be of type ${schema.type}: "null"` });
    }
    return;
  }
  if (!checkType(value, schema)) {
    const expected = schema['x-kubernetes-int-or-string'] ? 'integer,string' : schema.type;
    causes.push({ reason: 'FieldValueTypeInvalid', field, message: `Invalid value: "${typeName(value)}": ${field} in body must be of type ${expected}: "${typeName(value)}"` });
    return;
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    causes.push({ reason: 'FieldValueNotSupported', field, message: `Unsupported value: ${quote(value)}: supported values: ${schema.enum.map(quote).join(', ')}` });
  }
  if (typeof value === 'number') {
    if (schema.format === 'int32' && (value > 2147483647 || value < -2147483648)) {
      causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${field} in body must be of type int32: ${value}` });
    }
    if (schema.minimum !== undefined && (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)) {
      causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${field} in body should be greater than ${schema.exclusiveMinimum ? '' : 'or equal to '}${schema.minimum}` });
    }
    if (schema.maximum !== undefined && (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)) {
      causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${field} in body should be less than ${schema.exclusiveMaximum ? '' : 'or equal to '}${schema.maximum}` });
    }
    if (schema.multipleOf && value % schema.multipleOf !== 0) {
      causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${field} in body should be a multiple of ${schema.multipleOf}` });
    }
  }
  if (typeof value === 'string') {
    const len = [...value].length;
    if (schema.maxLength !== undefined && len > schema.maxLength) {
      causes.push({ reason: 'FieldValueTooLong', field, message: `Too long: may not be more than ${schema.maxLength} bytes` });
    }
    if (schema.minLength !== undefined && len < schema.minLength) {
      causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${quote(value)}: ${field} in body should be at least ${schema.minLength} chars long` });
    }
    if (schema.pattern) {
      const re = compilePattern(schema.pattern);
      if (re && !re.test(value)) causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${quote(value)}: ${field} in body should match '${schema.pattern}'` });
    }
  }
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      causes.push({ reason: 'FieldValueTooMany', field, message: `Too many: ${value.length}: must have at most ${schema.maxItems} items` });
    }
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${value.length}: ${field} in body should have at least ${schema.minItems} items` });
    }
    if (schema.uniqueItems) {
      const seen = new Set(value.map((v) => JSON.stringify(v)));
      if (seen.size !== value.length) causes.push({ reason: 'FieldValueDuplicate', field, message: `Duplicate value: ${field} in body shouldn't contain duplicates` });
    }
    const listType = schema['x-kubernetes-list-type'];
    if (listType === 'set' || listType === 'map') {
      // Items of a set, and items of a map with equal keys, must be unique.
      const keys = schema['x-kubernetes-list-map-keys'] ?? [];
      const seen = new Set<string>();
      value.forEach((v, i) => {
        const k = listType === 'map' && isObj(v) ? JSON.stringify(keys.map((key) => v[key])) : JSON.stringify(v);
        if (seen.has(k)) {
          const shown = listType === 'map' && isObj(v) ? `map[string]interface {}{${keys.map((key) => `"${key}":${quote(v[key])}`).join(', ')}}` : quote(v);
          causes.push({ reason: 'FieldValueDuplicate', field: `${path}[${i}]`, message: `Duplicate value: ${shown}` });
        }
        seen.add(k);
      });
    }
    if (schema.items) value.forEach((v, i) => validate(v, schema.items, `${path}[${i}]`, causes, false));
  }
  if (isObj(value)) {
    for (const req of schema.required ?? []) {
      if (root && (req === 'apiVersion' || req === 'kind' || req === 'metadata')) continue;
      if (value[req] === undefined) causes.push({ reason: 'FieldValueRequired', field: join(path, req), message: 'Required value' });
    }
    if (schema.maxProperties !== undefined && Object.keys(value).length > schema.maxProperties) {
      causes.push({ reason: 'FieldValueTooMany', field, message: `Too many: ${Object.keys(value).length}: must have at most ${schema.maxProperties} items` });
    }
    for (const [key, v] of Object.entries(value)) {
      if (root && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
      const child = schema.properties?.[key] ?? (isObj(schema.additionalProperties) ? (schema.additionalProperties as JsonSchema) : undefined);
      if (child) validate(v, child, schema.properties?.[key] ? join(path, key) : `${path}[${key}]`, causes, false);
    }
  }
  // anyOf/oneOf in Kruise schemas only constrain int-or-string or required combinations: check types loosely.
  if (schema.anyOf && !schema['x-kubernetes-int-or-string']) {
    const ok = schema.anyOf.some((s) => {
      const sub: StatusCause[] = [];
      validate(value, { ...s, properties: undefined, items: undefined }, path, sub, false);
      return sub.length === 0;
    });
    if (!ok) causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${quote(value)}: ${field} in body must validate at least one schema (anyOf)` });
  }
}

/** A copy of `value` with the fields `schema` does not know removed and its defaults filled in (no validation). */
export function pruneToSchema(value: unknown, schema: JsonSchema): unknown {
  return pruneAndDefault(structuredClone(value), schema, '', [], false);
}

/** A whole custom resource pruned and defaulted by `schema` (apiVersion, kind and metadata kept as they are). */
export function pruneObjectToSchema<T extends object>(obj: T, schema: JsonSchema): T {
  return pruneAndDefault(structuredClone(obj), schema, '', [], true) as T;
}

/** Prunes, defaults and validates a custom resource (in the version it was sent in). */
export function applyStructuralSchema(obj: Obj, schema: JsonSchema | undefined): SchemaResult {
  const copy = structuredClone(obj);
  const unknownFields: string[] = [];
  const causes: StatusCause[] = [];
  if (!schema) return { object: copy, unknownFields, causes };
  pruneAndDefault(copy, schema, '', unknownFields, true);
  validate(copy, schema, '', causes, true);
  return { object: copy, unknownFields, causes };
}
