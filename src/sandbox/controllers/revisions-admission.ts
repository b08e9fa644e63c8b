// What the Kruise admission hooks share: the 422 Invalid Status a real webhook denial produces from
// the field errors of a rule (src/kruise/rules/*-webhook.ts, pps.ts), when template defaults go in, and
// the defaulting-then-validating webhook of the workloads with a pod template.
import { fieldErrorMessage, fieldErrorReason, type FieldError } from '../../kruise/rules/cloneset-webhook';
import { jsonEqual } from '../../lib/json-equal';
import type { KubeObject } from '../../kruise/types';
import { featureEnabled, type FeatureGates } from '../feature-gates';
import { ApiError } from '../server/errors';
import type { AdmissionHook, GroupResource, SimulationSettings, Store } from '../store-api';

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

export interface TemplateWorkloadWebhook {
  gr: GroupResource;
  kind: string;
  /** Kruise's SetDefaults* for the kind; `templateDefaults` as injectsTemplateDefaults decides. */
  defaults(obj: KubeObject, templateDefaults: boolean): KubeObject;
  /** The validating webhook's field errors; `old` on an update only. */
  validate(defaulted: KubeObject, old: KubeObject | undefined, store: Store): FieldError[];
  /** Whether an update that leaves spec alone still goes through the webhook (status writes never do). */
  webhookOnUnchangedSpec?(old: KubeObject, obj: KubeObject): boolean;
  /** The simulation's settings once its controller has started (until then, undefined: every gate off). */
  settings(): SimulationSettings | undefined;
}

/**
 * Kruise's mutating then validating webhook of a workload with a pod template (CloneSet, Advanced
 * StatefulSet and DaemonSet, BroadcastJob, AdvancedCronJob): defaults, then a 422 for the rule's errors.
 */
export function templateWorkloadWebhook(w: TemplateWorkloadWebhook): AdmissionHook {
  return {
    gr: w.gr,
    operations: ['CREATE', 'UPDATE'],
    admit(op, obj, old, store) {
      // status writes do not go through Kruise's webhook
      if (op === 'UPDATE' && old && jsonEqual(old.spec, obj.spec) && !w.webhookOnUnchangedSpec?.(old, obj)) return obj;
      const defaulted = w.defaults(obj, injectsTemplateDefaults(op, obj, old, w.settings()?.featureGates));
      rejectInvalid(w.gr, w.kind, defaulted, w.validate(defaulted, op === 'UPDATE' ? old : undefined, store));
      return defaulted;
    },
  };
}
