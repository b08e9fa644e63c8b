// WorkloadSpread v1alpha1 ↔ v1beta1 as Kruise master converts it
// (apis/apps/v1alpha1/workloadspread_conversion.go):
// - subsets: `requiredNodeSelectorTerm` ↔ `requiredNodeSelector`, `preferredNodeSelectorTerms` ↔
//   `preferredNodeSelector`;
// - subset status conditions: v1alpha1's own condition type ↔ metav1.Condition, whose reason is required,
//   so an empty one becomes "Unknown"; metav1.Condition's observedGeneration has no v1alpha1 field.
// The rest of the spec and status is the same in both versions.
import type { KubeObject } from '../types';
import { isObj, nonZero, objOf, put, rename, type KindConversion, type Obj } from './fields';

const CONDITION_FIELDS = ['type', 'status', 'lastTransitionTime', 'reason', 'message'] as const;

function mapSubsetStatuses(list: unknown, condition: (c: Obj) => Obj): unknown {
  if (!Array.isArray(list)) return list;
  return list.map((s) => {
    if (!isObj(s) || !Array.isArray(s.conditions)) return s;
    return { ...s, conditions: s.conditions.map((c) => (isObj(c) ? condition(c) : c)) };
  });
}

function mapStatus(obj: KubeObject, condition: (c: Obj) => Obj): void {
  const status = objOf(obj, 'status');
  if (!status) return;
  if (status.subsetStatuses !== undefined) status.subsetStatuses = mapSubsetStatuses(status.subsetStatuses, condition);
  const versioned = objOf(status, 'versionedSubsetStatuses');
  if (versioned) for (const k of Object.keys(versioned)) versioned[k] = mapSubsetStatuses(versioned[k], condition);
}

function pickCondition(c: Obj): Obj {
  const out: Obj = {};
  for (const k of CONDITION_FIELDS) if (c[k] !== undefined) out[k] = c[k];
  return out;
}

function renameSubsets(obj: KubeObject, pairs: Array<[string, string]>): void {
  const subsets = objOf(obj, 'spec')?.subsets;
  if (!Array.isArray(subsets)) return;
  for (const s of subsets) if (isObj(s)) for (const [from, to] of pairs) rename(s, from, to);
}

function toV1beta1(obj: KubeObject): KubeObject {
  renameSubsets(obj, [['requiredNodeSelectorTerm', 'requiredNodeSelector'], ['preferredNodeSelectorTerms', 'preferredNodeSelector']]);
  mapStatus(obj, (c) => {
    const out = pickCondition(c);
    out.reason = typeof c.reason === 'string' && c.reason !== '' ? c.reason : 'Unknown';
    // metav1.Condition's message has no omitempty.
    out.message = typeof c.message === 'string' ? c.message : '';
    return out;
  });
  return obj;
}

function toV1alpha1(obj: KubeObject): KubeObject {
  renameSubsets(obj, [['requiredNodeSelector', 'requiredNodeSelectorTerm'], ['preferredNodeSelector', 'preferredNodeSelectorTerms']]);
  mapStatus(obj, (c) => {
    const out = pickCondition(c);
    put(out, 'reason', nonZero(c.reason));
    put(out, 'message', nonZero(c.message));
    return out;
  });
  return obj;
}

export const workloadSpreadConversion: KindConversion = { toV1beta1, toV1alpha1 };
