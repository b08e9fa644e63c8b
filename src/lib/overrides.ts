// kubectl's --overrides / --override-type (k8s.io/kubectl pkg/cmd/util/override_options.go): an inline JSON
// patch applied to an object a command generated, before it is sent. Three kinds, as kubectl:
// - merge (default): RFC 7396 JSON merge patch (jsonpatch.MergePatch);
// - json: RFC 6902 JSON patch (jsonpatch.DecodePatch + Apply);
// - strategic: apimachinery's strategic merge patch, with the list merge keys the caller gives
//   (Go reads them from struct tags): keyed lists merge item by item, patch items first then the
//   items only the object had (strategicpatch.normalizeElementOrder), `$patch: replace|delete`.
// Pure; errors are OverrideError with kubectl-like messages. JSON and merge patches: ./json-patch.ts.
import { jsonPatch, JsonPatchError, mergePatch } from './json-patch';
import { jsonEqual } from './json-equal';

export type OverrideType = 'json' | 'merge' | 'strategic';
export const OVERRIDE_TYPES: readonly OverrideType[] = ['json', 'merge', 'strategic'];

/** How a list at a path (keys without indexes, e.g. ["spec", "ports"]) merges: by a key field, as a set of scalars, or replaced. */
export type ListMerge = { key: string } | 'set' | undefined;

export class OverrideError extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('$')) out[k] = stripDirectives(x);
  return out;
}

/** Strategic merge patch of maps; `listMerge` names how the list at a path merges. */
export function strategicMergePatch(original: unknown, patch: unknown, listMerge: (path: readonly string[]) => ListMerge): unknown {
  if (!isObj(patch)) throw new OverrideError('a strategic merge patch must be a JSON object');
  return mergeMap(isObj(original) ? original : {}, patch, [], listMerge) ?? {};
}

function mergeMap(original: Obj, patch: Obj, path: string[], listMerge: (path: readonly string[]) => ListMerge): Obj | undefined {
  const directive = patch.$patch;
  if (directive === 'delete') return undefined;
  if (directive === 'replace') return stripDirectives(patch) as Obj;
  if (directive !== undefined && directive !== 'merge') throw new OverrideError(`unknown patch type: ${String(directive)} in map at ${path.join('.') || '<root>'}`);
  const out: Obj = { ...original };
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key.startsWith('$setElementOrder/')) continue;
    if (key === '$retainKeys') continue;
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const cur = out[field];
      if (Array.isArray(cur) && Array.isArray(value)) out[field] = cur.filter((x) => !value.some((v) => jsonEqual(v, x)));
      continue;
    }
    if (value === null) {
      delete out[key];
      continue;
    }
    const cur = out[key];
    const childPath = [...path, key];
    if (isObj(value) && isObj(cur)) {
      const merged = mergeMap(cur, value, childPath, listMerge);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    } else if (Array.isArray(value) && Array.isArray(cur)) {
      out[key] = mergeList(cur, value, childPath, listMerge);
    } else {
      const stripped = stripDirectives(value);
      if (isObj(value) && value.$patch === 'delete') delete out[key];
      else out[key] = stripped;
    }
  }
  const retain = patch.$retainKeys;
  if (Array.isArray(retain)) for (const k of Object.keys(out)) if (!retain.includes(k)) delete out[k];
  return out;
}

function mergeList(original: unknown[], patch: unknown[], path: string[], listMerge: (path: readonly string[]) => ListMerge): unknown[] {
  const how = listMerge(path);
  if (how === undefined) return patch.map(stripDirectives);
  if (how === 'set') {
    const out = [...original];
    for (const v of patch) if (!out.some((x) => jsonEqual(x, v))) out.push(v);
    return out;
  }
  const key = how.key;
  if (patch.some((x) => isObj(x) && x.$patch === 'replace')) return patch.filter((x) => !(isObj(x) && x.$patch === 'replace')).map(stripDirectives);
  const merged: unknown[] = [...original];
  const fromPatch: unknown[] = [];
  for (const item of patch) {
    if (!isObj(item) || !(key in item)) throw new OverrideError(`map: ${JSON.stringify(item)} does not contain declared merge key: ${key}`);
    const idx = merged.findIndex((x) => isObj(x) && jsonEqual(x[key], item[key]));
    if (item.$patch === 'delete') {
      if (idx >= 0) merged.splice(idx, 1);
      continue;
    }
    if (idx >= 0) {
      merged[idx] = mergeMap(merged[idx] as Obj, item, path, listMerge) ?? merged[idx];
      fromPatch.push(merged[idx]);
    } else {
      const added = stripDirectives(item);
      merged.push(added);
      fromPatch.push(added);
    }
  }
  // normalizeElementOrder: the patch's items in patch order; each item only the object had goes
  // before the first patch item that comes after it in the object (mergeSortedSlice).
  const keyOf = (x: unknown): unknown => (isObj(x) ? x[key] : undefined);
  const serverIndex = (x: unknown): number => original.findIndex((o) => jsonEqual(keyOf(o), keyOf(x)));
  const serverOnly = merged.filter((x) => !fromPatch.includes(x));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < fromPatch.length) {
    if (j >= fromPatch.length) out.push(serverOnly[i++]);
    else if (i >= serverOnly.length) out.push(fromPatch[j++]);
    else {
      const li = serverIndex(serverOnly[i]);
      const ri = serverIndex(fromPatch[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(serverOnly[i++]);
      else out.push(fromPatch[j++]);
    }
  }
  return out;
}

/** Applies kubectl's --overrides text to `obj` (a JSON object); throws OverrideError. */
export function applyOverrides<T>(obj: T, overrides: string, type: OverrideType, listMerge: (path: readonly string[]) => ListMerge): T {
  let patch: unknown;
  try {
    patch = JSON.parse(overrides);
  } catch (e) {
    throw new OverrideError(`--overrides is not valid JSON: ${(e as Error).message}`);
  }
  const doc = structuredClone(obj) as unknown;
  switch (type) {
    case 'merge':
      return mergePatch(doc, patch) as T;
    case 'json':
      try {
        return jsonPatch(doc, patch) as T;
      } catch (err) {
        throw err instanceof JsonPatchError ? new OverrideError(err.message) : err;
      }
    case 'strategic':
      return strategicMergePatch(doc, patch, listMerge) as T;
  }
}
