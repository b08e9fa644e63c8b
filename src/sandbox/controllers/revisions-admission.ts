// Turns the field errors of a Kruise webhook rule (src/kruise/rules/*-webhook.ts, pps.ts) into
// the 422 Invalid Status a real webhook denial produces. Shared by the Kruise admission hooks.
import { fieldErrorMessage, fieldErrorReason, type FieldError } from '../../kruise/rules/cloneset-webhook';
import type { KubeObject } from '../../kruise/types';
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
