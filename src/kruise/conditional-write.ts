// Writes conditional on what a decision read (race-safety is a property of writes): a JSON patch whose
// `test` ops check the fields the decision was made on before its changes apply, so a write decided on a
// state that is gone is refused by the server (422, kube/conflict.ts isStaleWrite) instead of acting on a
// state nobody saw. The fields a decision rests on are also kept (`observed`): after such a refusal the
// command re-reads and writes again only while they still hold (kube/conflict.ts decideAndWrite). Pure.
import type { JsonPatchOp } from './containers';
import type { KubeObject } from './types';
import { at, pointerOf } from './workloads/access';
import { jsonEqual } from '../lib/json-equal';

/** A field as a decision read it: the path of keys and its value (undefined: absent). */
export interface ObservedField {
  path: readonly string[];
  value: unknown;
}

export interface ConditionalWrite {
  /** JSON patch: a `test` of every guard, then the changes. */
  patch: JsonPatchOp[];
  /** The fields the decision rests on, as read. */
  observed: ObservedField[];
}

export function observeFields(obj: KubeObject, paths: ReadonlyArray<readonly string[]>): ObservedField[] {
  return paths.map((path) => ({ path, value: at(obj, ...path) }));
}

/**
 * The write of `changes` conditional on `obj` as read: `test` ops on the `rests` fields (the state the
 * decision was made on) or, when `guards` are given, on those instead (a spec write tests
 * metadata.generation, which the controller's status writes leave alone). A field that is absent cannot be
 * tested in a JSON patch (kube-apiserver's json-patch lets `test` of a missing path pass for null): the
 * resourceVersion read stands in for it, which refuses any change in between.
 */
export function conditionalWrite(
  obj: KubeObject,
  o: { rests: ReadonlyArray<readonly string[]>; guards?: ReadonlyArray<readonly string[]>; changes: JsonPatchOp[] },
): ConditionalWrite {
  const observed = observeFields(obj, o.rests);
  const guarded = o.guards ? observeFields(obj, o.guards) : observed;
  const tests: JsonPatchOp[] = guarded.filter((f) => f.value !== undefined).map((f) => ({ op: 'test', path: pointerOf(f.path), value: f.value }));
  const rv = obj.metadata.resourceVersion;
  if (guarded.some((f) => f.value === undefined) && rv) tests.unshift({ op: 'test', path: '/metadata/resourceVersion', value: rv });
  return { patch: [...tests, ...o.changes], observed };
}

/** The observed fields that `fresh` no longer has as read (their fresh values); empty when the decision still holds. */
export function changedFields(observed: readonly ObservedField[], fresh: KubeObject): ObservedField[] {
  return observed.flatMap((f) => {
    const now = at(fresh, ...f.path);
    return jsonEqual(now, f.value) ? [] : [{ path: f.path, value: now }];
  });
}

/**
 * A merge patch (RFC 7386) as the JSON patch ops that make the same change on `obj` as read, and the paths
 * of the values those ops replace or remove (the fields the change rests on: conditionalWrite's `rests`).
 * A null removes a field that is there and is dropped otherwise; a value equal to the one read, or false/0
 * where the field is absent (kube's omitted defaults), is no change; an object merges into an object and
 * is added whole (its nulls dropped) where there is none.
 */
export function mergePatchOps(obj: unknown, merge: Record<string, unknown>): { changes: JsonPatchOp[]; rests: string[][] } {
  const changes: JsonPatchOp[] = [];
  const rests: string[][] = [];
  const walk = (cur: unknown, patch: Record<string, unknown>, path: string[]): void => {
    for (const [key, value] of Object.entries(patch)) {
      const p = [...path, key];
      const now = isPlainObject(cur) ? cur[key] : undefined;
      if (value === null) {
        if (now !== undefined) {
          changes.push({ op: 'remove', path: pointerOf(p) });
          rests.push(p);
        }
      } else if (isPlainObject(value) && isPlainObject(now)) {
        walk(now, value, p);
      } else if (now === undefined) {
        const added = isPlainObject(value) ? withoutNulls(value) : value;
        if (added !== false && added !== 0 && !(isPlainObject(added) && Object.keys(added).length === 0)) changes.push({ op: 'add', path: pointerOf(p), value: added });
      } else if (!jsonEqual(now, value)) {
        changes.push({ op: 'replace', path: pointerOf(p), value: isPlainObject(value) ? withoutNulls(value) : value });
        rests.push(p);
      }
    }
  };
  walk(obj, merge, []);
  return { changes, rests };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function withoutNulls(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = isPlainObject(x) ? withoutNulls(x) : x;
  return out;
}
