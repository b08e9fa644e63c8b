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
