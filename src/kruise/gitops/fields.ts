// Field ownership as the API server records it in metadata.managedFields (FieldsV1): which
// fields a write touches, and who owns a field. Pure: the sandbox records ownership with these
// functions and the commands read it with them, so both agree on every path.
import type { KubeObject } from '../types';

/** One FieldsV1 path: `f:spec`, `f:containers`, `k:{"name":"app"}`, `f:image` ... */
export type FieldPath = readonly string[];

/** A FieldsV1 set: nested objects keyed by path element; `{}` is a leaf (the field itself). */
export interface FieldsV1 {
  [element: string]: FieldsV1;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update' | string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: FieldsV1;
  subresource?: string;
}

/**
 * Lists whose items are merged by key (the pod spec's patchMergeKeys, which server-side apply
 * uses as list-map keys); every other list is atomic: owned and replaced as a whole.
 */
const LIST_KEYS: Record<string, readonly string[]> = {
  containers: ['name'],
  initContainers: ['name'],
  ephemeralContainers: ['name'],
  env: ['name'],
  volumes: ['name'],
  volumeMounts: ['mountPath'],
  volumeDevices: ['devicePath'],
  ports: ['containerPort', 'protocol'],
  imagePullSecrets: ['name'],
  hostAliases: ['ip'],
  conditions: ['type'],
};

/** Top-level metadata fields whose ownership is recorded (the rest is the server's). */
const TRACKED_METADATA = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences']);

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `k:{"containerPort":80,"protocol":"TCP"}`: the item's keys in name order, as structured-merge-diff writes them. */
function itemKey(list: string, item: unknown): string | undefined {
  const keys = LIST_KEYS[list];
  if (!keys || !isObj(item)) return undefined;
  const present: Record<string, unknown> = {};
  for (const k of [...keys].sort()) {
    if (item[k] === undefined) {
      if (k === 'protocol') present[k] = 'TCP';
      else return undefined;
    } else present[k] = item[k];
  }
  return `k:${JSON.stringify(present)}`;
}

function keyedItems(list: string, value: unknown[]): Map<string, unknown> | undefined {
  const out = new Map<string, unknown>();
  for (const item of value) {
    const k = itemKey(list, item);
    if (k === undefined) return undefined;
    out.set(k, item);
  }
  return out;
}

/** Whether the top-level field `name` of an object is recorded in managedFields. */
function trackedTop(name: string): boolean {
  return name !== 'apiVersion' && name !== 'kind' && name !== 'status';
}

/** Every field `value` sets below `prefix`, as leaf paths (keyed list items also as `.`). */
function leaves(value: unknown, prefix: string[], field: string, out: string[][]): void {
  if (isObj(value)) {
    const keys = Object.keys(value);
    if (keys.length === 0) {
      out.push(prefix);
      return;
    }
    for (const k of keys) leaves(value[k], [...prefix, `f:${k}`], k, out);
    return;
  }
  if (Array.isArray(value)) {
    const items = keyedItems(field, value);
    if (!items || value.length === 0) {
      out.push(prefix);
      return;
    }
    for (const [k, item] of items) {
      out.push([...prefix, k, '.']);
      leaves(item, [...prefix, k], '', out);
    }
    return;
  }
  out.push(prefix);
}

function topLevel(obj: KubeObject, visit: (name: string, value: unknown, prefix: string[]) => void): void {
  const o = obj as unknown as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!trackedTop(k)) continue;
    if (k === 'metadata') {
      const meta = isObj(o.metadata) ? o.metadata : {};
      for (const m of Object.keys(meta)) if (TRACKED_METADATA.has(m)) visit(m, meta[m], ['f:metadata', `f:${m}`]);
      continue;
    }
    visit(k, o[k], [`f:${k}`]);
  }
}

/** The fields an object (an applied configuration) sets, as the paths of its leaves. */
export function fieldPathsOf(obj: KubeObject): string[][] {
  const out: string[][] = [];
  topLevel(obj, (name, value, prefix) => leaves(value, prefix, name, out));
  return out;
}

function diffInto(before: unknown, after: unknown, prefix: string[], field: string, out: string[][]): void {
  if (isObj(before) && isObj(after)) {
    for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
      diffInto(before[k], after[k], [...prefix, `f:${k}`], k, out);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const b = keyedItems(field, before);
    const a = keyedItems(field, after);
    if (b && a && (b.size > 0 || a.size > 0)) {
      for (const k of new Set([...b.keys(), ...a.keys()])) {
        if (!b.has(k) || !a.has(k)) out.push([...prefix, k]);
        else diffInto(b.get(k), a.get(k), [...prefix, k], '', out);
      }
      return;
    }
  }
  if (before === undefined && after === undefined) return;
  if (JSON.stringify(before) === JSON.stringify(after)) return;
  if (before === undefined) {
    // A new subtree: each of its fields.
    leaves(after, prefix, field, out);
    return;
  }
  out.push(prefix);
}

/** The fields a write changes between `before` and `after` (added, changed or removed), most specific paths. */
export function changedFieldPaths(before: KubeObject, after: KubeObject): string[][] {
  const out: string[][] = [];
  const b = before as unknown as Record<string, unknown>;
  const a = after as unknown as Record<string, unknown>;
  for (const k of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (!trackedTop(k)) continue;
    if (k === 'metadata') {
      const bm = isObj(b.metadata) ? b.metadata : {};
      const am = isObj(a.metadata) ? a.metadata : {};
      for (const m of new Set([...Object.keys(bm), ...Object.keys(am)])) {
        if (TRACKED_METADATA.has(m)) diffInto(bm[m], am[m], ['f:metadata', `f:${m}`], m, out);
      }
      continue;
    }
    diffInto(b[k], a[k], [`f:${k}`], k, out);
  }
  return out;
}

/** A FieldsV1 set holding exactly these paths. */
export function fieldSet(paths: readonly FieldPath[]): FieldsV1 {
  const set: FieldsV1 = {};
  for (const p of paths) addPath(set, p);
  return set;
}

function addPath(set: FieldsV1, path: FieldPath): void {
  let node = set;
  for (const el of path) node = node[el] ??= {};
}

/** `set` with `paths` added. */
export function withPaths(set: FieldsV1 | undefined, paths: readonly FieldPath[]): FieldsV1 {
  const out = structuredClone(set ?? {});
  for (const p of paths) addPath(out, p);
  return out;
}

/** `set` without `paths` (a removed path takes everything under it; emptied parents go too). */
export function withoutPaths(set: FieldsV1 | undefined, paths: readonly FieldPath[]): FieldsV1 {
  const out = structuredClone(set ?? {});
  for (const p of paths) removePath(out, p, 0);
  return out;
}

function removePath(node: FieldsV1, path: FieldPath, i: number): void {
  const el = path[i]!;
  const child = node[el];
  if (!child) return;
  if (i === path.length - 1) {
    delete node[el];
    return;
  }
  // A leaf above the path owns it whole (an atomic field): it stays with its manager.
  if (Object.keys(child).length === 0) return;
  removePath(child, path, i + 1);
  if (Object.keys(child).length === 0) delete node[el];
}

/**
 * Whether `set` owns `path`: the path itself, a field below it (a write of a whole subtree
 * overwrites them), or an atomic ancestor (a leaf above it, e.g. `f:args` for `args[0]`).
 */
export function ownsPath(set: FieldsV1 | undefined, path: FieldPath): boolean {
  let node: FieldsV1 | undefined = set;
  for (const el of path) {
    if (!node) return false;
    const next: FieldsV1 | undefined = node[el];
    if (!next) return false;
    if (Object.keys(next).length === 0) return true;
    node = next;
  }
  // Below the path: owned when any field other than a list item's own `.` marker is.
  return node !== undefined && Object.keys(node).some((k) => k !== '.');
}

/** `spec.template.spec.containers[app].image`: a path as people read it. */
export function formatFieldPath(path: FieldPath): string {
  let out = '';
  for (const el of path) {
    if (el === '.') continue;
    if (el.startsWith('f:')) out += `${out ? '.' : ''}${el.slice(2)}`;
    else if (el.startsWith('k:')) {
      let key: Record<string, unknown> = {};
      try {
        key = JSON.parse(el.slice(2)) as Record<string, unknown>;
      } catch {
        /* shown raw below */
      }
      const values = Object.values(key);
      out += `[${values.length === 1 ? String(values[0]) : values.map(String).join(',') || el.slice(2)}]`;
    } else if (el.startsWith('v:')) out += `[${el.slice(2)}]`;
    else if (el.startsWith('i:')) out += `[${el.slice(2)}]`;
    else out += `.${el}`;
  }
  return out;
}
