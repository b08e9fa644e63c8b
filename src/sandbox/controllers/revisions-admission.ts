// What the Kruise admission hooks share: the 422 Invalid Status a real webhook denial produces from
// the field errors of a rule (src/kruise/rules/*-webhook.ts, pps.ts), and when template defaults go in.
import { fieldErrorMessage, fieldErrorReason, type FieldError } from '../../kruise/rules/cloneset-webhook';
import { jsonEqual } from '../../lib/json-equal';
import type { KubeObject } from '../../kruise/types';
import { featureEnabled, type FeatureGates } from '../feature-gates';
import { ApiError } from '../server/errors';
import type { GroupResource } from '../store-api';

/** Throws a 422 naming every offending field when `errors` is not empty. */
export function rejectInvalid(gr: GroupResource, kind: string, obj: KubeObject, errors: FieldError[]): void {
  if (errors.length === 0) return;
  const name = obj.metadata.name ?? obj.metadata.generateName ?? '';
  throw ApiError.invalid(
    gr.group,
    kind,
    name,
    errors.map((e) => ({ reason: fieldErrorReason(e), message: fieldErrorMessage(e), field: e.field })),
  );
}

/**
 * Whether Kruise's mutating webhooks inject template defaults into this write: unless the
 * TemplateNoDefaults gate is on, on create, and on an update whose spec.template differs from the old
 * object's (e.g. cloneset_create_update_handler.go, `!reflect.DeepEqual(obj.Spec.Template, oldObj.Spec.Template)`).
 */
export function injectsTemplateDefaults(op: 'CREATE' | 'UPDATE' | 'DELETE', obj: KubeObject, old: KubeObject | undefined, gates: FeatureGates | undefined): boolean {
  if (featureEnabled(gates, 'TemplateNoDefaults')) return false;
  const template = (o: KubeObject | undefined) => (o?.spec as { template?: unknown } | undefined)?.template;
  return op === 'CREATE' || !jsonEqual(template(old), template(obj));
}
