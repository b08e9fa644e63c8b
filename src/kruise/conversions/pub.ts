// PodUnavailableBudget (policy.kruise.io) v1alpha1 ↔ v1beta1 as Kruise master converts it
// (apis/policy/v1alpha1/podunavailablebudget_conversion.go): v1beta1 types what v1alpha1 keeps in
// annotations.
// - `kruise.io/pub-protect-operations` ("DELETE,EVICT") ↔ `spec.protectOperations`; an unknown
//   operation is an error (the object cannot be converted), blanks are skipped;
// - `pub.kruise.io/protect-total-replicas` ↔ `spec.protectTotalReplicas`; a non-integer is an error.
// Back in v1alpha1 the annotations are rewritten from the fields (removed when a field is unset), and
// `spec.ignoredPodSelector`, which has no v1alpha1 form, is dropped (Kruise's ConvertFrom does not keep
// it: the pod annotation `pub.kruise.io/no-protect` it replaces belongs to pods, not to the budget).
import type { KubeObject } from '../types';
import { ConversionError, deleteMapEntry, isObj, parseInt32, setMapEntry, type KindConversion } from './fields';

export const PUB_PROTECT_OPERATIONS_ANNOTATION = 'kruise.io/pub-protect-operations';
export const PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION = 'pub.kruise.io/protect-total-replicas';
const OPERATIONS = new Set(['DELETE', 'UPDATE', 'EVICT', 'RESIZE']);

/** parsePubProtectOperations: "DELETE, EVICT" → ["DELETE", "EVICT"]; throws on an unknown operation. */
export function parseProtectOperations(value: string | undefined): string[] {
  if (!value) return [];
  const out: string[] = [];
  for (const item of value.split(',')) {
    const op = item.trim();
    if (op === '') continue;
    if (!OPERATIONS.has(op)) throw new ConversionError(`invalid ${PUB_PROTECT_OPERATIONS_ANNOTATION} value "${op}"`);
    out.push(op);
  }
  return out;
}

/** joinPubProtectOperations: the typed list back to "DELETE,EVICT" (empty entries skipped). */
export function joinProtectOperations(ops: readonly unknown[]): string {
  return ops.filter((o): o is string => typeof o === 'string' && o !== '').join(',');
}

/** The spec fields both versions share (Kruise copies exactly these). */
const SHARED_SPEC = ['selector', 'targetRef', 'maxUnavailable', 'minAvailable'] as const;

function sharedSpec(spec: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isObj(spec)) return out;
  for (const k of SHARED_SPEC) if (spec[k] !== undefined && spec[k] !== null) out[k] = spec[k];
  return out;
}

function toV1beta1(obj: KubeObject): KubeObject {
  const spec = sharedSpec(obj.spec);
  const annotations = obj.metadata.annotations ?? {};
  const ops = parseProtectOperations(annotations[PUB_PROTECT_OPERATIONS_ANNOTATION]);
  if (ops.length > 0) spec.protectOperations = ops;
  const total = annotations[PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION];
  if (total) {
    const n = parseInt32(total);
    if (n === undefined) throw new ConversionError(`failed to parse ${PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION}: strconv.ParseInt: parsing ${JSON.stringify(total)}: invalid syntax`);
    spec.protectTotalReplicas = n;
  }
  obj.spec = spec;
  return obj;
}

function toV1alpha1(obj: KubeObject): KubeObject {
  const src = isObj(obj.spec) ? obj.spec : {};
  if (Array.isArray(src.protectOperations) && src.protectOperations.length > 0) setMapEntry(obj.metadata, 'annotations', PUB_PROTECT_OPERATIONS_ANNOTATION, joinProtectOperations(src.protectOperations));
  else deleteMapEntry(obj.metadata, 'annotations', PUB_PROTECT_OPERATIONS_ANNOTATION);
  if (typeof src.protectTotalReplicas === 'number') setMapEntry(obj.metadata, 'annotations', PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION, String(src.protectTotalReplicas));
  else deleteMapEntry(obj.metadata, 'annotations', PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION);
  obj.spec = sharedSpec(src);
  return obj;
}

export const pubConversion: KindConversion = { toV1beta1, toV1alpha1 };
