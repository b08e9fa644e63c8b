// JSON-level helpers for the per-kind conversions. Kruise converts typed Go structs field by field;
// here a field whose JSON name is the same in both versions passes through untouched, and only what
// upstream's functions rename, move, derive or drop is edited. Go's omitempty is kept: a derived
// value that is false, 0, "" or empty is not written.
import type { KubeObject } from '../types';
import { isObj, type Obj } from '../workloads/access';

export type { Obj };
export { isObj };

/** Both directions of one kind (v1beta1 is the hub of every Kruise kind). Each works on a copy it may edit. */
export interface KindConversion {
  toV1beta1(obj: KubeObject): KubeObject;
  toV1alpha1(obj: KubeObject): KubeObject;
}

/** Thrown when an object cannot be represented in the target version (Kruise's ConvertTo/ConvertFrom error). */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

/** The object at `key`, or undefined. */
export function objOf(parent: unknown, key: string): Obj | undefined {
  if (!isObj(parent)) return undefined;
  const v = parent[key];
  return isObj(v) ? v : undefined;
}

/** Sets `key` to `value`, or removes it when `value` is undefined (a nil pointer or omitted zero). */
export function put(target: Obj, key: string, value: unknown): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}

/** Moves `from` to `to` when present (a field renamed between versions). */
export function rename(target: Obj | undefined, from: string, to: string): void {
  if (!target || !(from in target)) return;
  const v = target[from];
  delete target[from];
  target[to] = v;
}

/** Go's omitempty: false, 0, "", null, empty arrays and objects are not written. */
export function nonZero(v: unknown): unknown {
  if (v === false || v === 0 || v === '' || v === null || v === undefined) return undefined;
  if (Array.isArray(v) && v.length === 0) return undefined;
  if (isObj(v) && Object.keys(v).length === 0) return undefined;
  return v;
}

/** Writes a metadata map entry, creating the map when needed. */
export function setMapEntry(meta: KubeObject['metadata'], map: 'labels' | 'annotations', key: string, value: string): void {
  meta[map] = { ...(meta[map] ?? {}), [key]: value };
}

/** Removes a metadata map entry, and the map once empty (omitempty). */
export function deleteMapEntry(meta: KubeObject['metadata'], map: 'labels' | 'annotations', key: string): void {
  const m = meta[map];
  if (!m || !(key in m)) return;
  delete m[key];
  if (Object.keys(m).length === 0) delete meta[map];
}

/** Go's strconv.ParseInt(s, 10, 32): an int32 in decimal, optional sign; undefined otherwise. */
export function parseInt32(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = Number(s);
  return n >= -2147483648 && n <= 2147483647 ? n : undefined;
}

/** Go's RFC 3339 layout as time.Parse reads it (seconds required, optional fraction, Z or ±hh:mm). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The time as metav1.Time writes it (UTC, whole seconds), or undefined when not RFC 3339. */
export function rfc3339Utc(s: string): string | undefined {
  if (!RFC3339.test(s)) return undefined;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? undefined : new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
