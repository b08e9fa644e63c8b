// Strategic merge patch for built-in kinds. Real servers take merge keys from the Go
// struct tags; the sandbox keys them by field name, which is unambiguous for the kinds
// it serves (containers by name, ports by containerPort, ...). Directives: `$patch`
// (replace/delete/merge), `$retainKeys`, `$deleteFromPrimitiveList/<field>`; `$setElementOrder` is accepted and ignored.
import { ApiError } from '../errors';
import { jsonEqual } from '../../../lib/json-equal';

type Obj = Record<string, unknown>;

/** Lists merged by a key field; lists not named here (tolerations, args...) are replaced. */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  conditions: 'type',
  imagePullSecrets: 'name',
  ownerReferences: 'uid',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  resourceClaims: 'name',
  readinessGates: 'conditionType',
  addresses: 'type',
  containerStatuses: 'name',
  initContainerStatuses: 'name',
  podIPs: 'ip',
  volumeClaimTemplates: 'name',
};

/** Lists of scalars with set semantics. */
const MERGED_PRIMITIVE_LISTS = new Set(['finalizers']);

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function mergeKeyFor(field: string, items: unknown[]): string | undefined {
  if (field === 'ports') {
    const first = items.find(isObj);
    if (!first) return undefined;
    return 'containerPort' in first ? 'containerPort' : 'port';
  }
  return MERGE_KEYS[field];
}

export function applyStrategicMergePatch(original: unknown, patch: unknown): unknown {
  if (!isObj(patch)) throw ApiError.badRequest('the body of the request was not a JSON object');
  return mergeMap(isObj(original) ? original : {}, patch);
}

function mergeMap(original: Obj, patch: Obj): Obj | undefined {
  const directive = patch.$patch;
  if (directive === 'delete') return undefined;
  if (directive === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return stripDirectives(rest) as Obj;
  }
  if (directive !== undefined && directive !== 'merge') {
    throw ApiError.badRequest(`unknown patch type: ${String(directive)} found in map: ${JSON.stringify(patch)}`);
  }
  const out: Obj = { ...original };
  const retain = patch.$retainKeys;
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith('$setElementOrder/')) continue;
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const cur = out[field];
      if (Array.isArray(cur) && Array.isArray(value)) {
        const kept = cur.filter((x) => !value.some((v) => jsonEqual(v, x)));
        if (kept.length) out[field] = kept;
        else delete out[field];
      }
      continue;
    }
    if (value === null) {
      delete out[key];
      continue;
    }
    const cur = out[key];
    if (isObj(value)) {
      const merged = mergeMap(isObj(cur) ? cur : {}, value);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    } else if (Array.isArray(value)) {
      out[key] = mergeList(key, Array.isArray(cur) ? cur : undefined, value);
    } else {
      out[key] = value;
    }
  }
  if (Array.isArray(retain)) {
    for (const k of Object.keys(out)) if (!retain.includes(k)) delete out[k];
  }
  return out;
}

function mergeList(field: string, original: unknown[] | undefined, patch: unknown[]): unknown[] {
  // A `{$patch: replace}` element replaces the whole list with the other elements.
  if (patch.some((x) => isObj(x) && x.$patch === 'replace')) {
    return patch.filter((x) => !(isObj(x) && x.$patch === 'replace')).map(stripDirectives);
  }
  if (MERGED_PRIMITIVE_LISTS.has(field)) {
    const out = [...(original ?? [])];
    for (const v of patch) if (!out.some((x) => jsonEqual(x, v))) out.push(v);
    return out;
  }
  const key = mergeKeyFor(field, patch.length ? patch : (original ?? []));
  if (!key || !patch.every(isObj)) return patch.map(stripDirectives);
  const out: unknown[] = [...(original ?? [])];
  for (const item of patch as Obj[]) {
    const idx = out.findIndex((x) => isObj(x) && jsonEqual(x[key], item[key]));
    if (item.$patch === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
      continue;
    }
    if (idx >= 0) out[idx] = mergeMap(out[idx] as Obj, item) ?? out[idx];
    else out.push(stripDirectives(item));
  }
  return out;
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    if (k.startsWith('$')) continue;
    out[k] = stripDirectives(x);
  }
  return out;
}
