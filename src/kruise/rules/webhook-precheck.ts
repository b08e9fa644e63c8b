// The CLI's own pre-check before a write: would Kruise's validating webhook reject the object
// as it will be after our change? The same rule functions the sandbox's webhook runs
// (cloneset-webhook.ts, asts.ts, ads.ts), on both objects defaulted like Kruise's mutating
// webhook does. Only errors the change introduces count: an object the cluster already holds
// (perhaps accepted by another Kruise release) is never blocked for what it already was.
import type { KubeObject } from '../types';
import { advancedDaemonSetDefaults, validateAdvancedDaemonSet } from './ads';
import { advancedStatefulSetDefaults, validateAdvancedStatefulSet } from './asts';
import { cloneSetDefaults, fieldErrorMessage, validateCloneSet, type FieldError, type PodLookup } from './cloneset-webhook';

function kruiseValidate(obj: KubeObject, old?: KubeObject, pods?: PodLookup): FieldError[] | undefined {
  if (!obj.apiVersion?.startsWith('apps.kruise.io/')) return undefined;
  switch (obj.kind) {
    case 'CloneSet':
      return validateCloneSet(cloneSetDefaults(obj), old && cloneSetDefaults(old), pods);
    case 'StatefulSet':
      return validateAdvancedStatefulSet(advancedStatefulSetDefaults(obj), old && advancedStatefulSetDefaults(old));
    case 'DaemonSet':
      return validateAdvancedDaemonSet(advancedDaemonSetDefaults(obj), 'v1.9');
    default:
      return undefined;
  }
}

const key = (e: FieldError) => `${e.field}: ${fieldErrorMessage(e)}`;

/**
 * The webhook's errors for `before` → `after` that `before` alone does not already have. With `pods`,
 * a CloneSet's new podsToDelete names are looked up as its webhook does (validateScaleStrategy).
 */
export function webhookRejections(before: KubeObject, after: KubeObject, pods?: PodLookup): FieldError[] {
  const errors = kruiseValidate(after, before, pods);
  if (!errors || errors.length === 0) return [];
  const existing = new Set((kruiseValidate(before) ?? []).map(key));
  return errors.filter((e) => !existing.has(key(e)));
}

/** What Kruise's webhook says about the object on its own (as a create would see it), e.g. for warnings. */
export function webhookErrors(obj: KubeObject): FieldError[] {
  return kruiseValidate(obj) ?? [];
}

/** One warning line per webhook error: the object as written would not be admitted. */
export function webhookWarnings(obj: KubeObject): string[] {
  return webhookErrors(obj).map((e) => `Kruise's webhook rejects this object: ${key(e)}`);
}

/** `spec.x: Invalid value: ...` for the first error (and how many more), as the API server words it. */
export function describeRejections(errors: readonly FieldError[]): string {
  const first = key(errors[0]);
  return errors.length > 1 ? `${first} (and ${errors.length - 1} more)` : first;
}
