// Size limits kube enforces on stored objects: the 256 KiB annotation budget of ObjectMeta
// validation (apimachinery pkg/api/validation/objectmeta.go ValidateAnnotationsSize) and
// etcd's default 1.5 MiB request limit (--max-request-bytes), which kube-apiserver passes
// on as a 500 with etcd's own text (no Status of its own: responsewriters ErrorToAPIStatus).
import type { KubeObject } from '../../kruise/types';
import { ApiError, type StatusCause } from './errors';

/** TotalAnnotationSizeLimitB. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;
/** etcd's default --max-request-bytes. */
export const ETCD_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;

/** Total bytes of keys and values (Go's len counts UTF-8 bytes). */
export function annotationsSize(annotations: Record<string, string> | undefined): number {
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) total += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  return total;
}

/** The field error of ValidateAnnotations for a too large set, as kube v1.32 words it (field.TooLong). */
export function annotationsSizeCause(annotations: Record<string, string> | undefined): StatusCause | undefined {
  if (annotationsSize(annotations) <= TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) return undefined;
  return { reason: 'FieldValueTooLong', message: `Too long: may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT_BYTES} bytes`, field: 'metadata.annotations' };
}

/** Throws what kube-apiserver answers when etcd refuses an object for its size. */
export function checkStoredSize(obj: KubeObject): void {
  if (Buffer.byteLength(JSON.stringify(obj)) > ETCD_MAX_REQUEST_BYTES) {
    throw new ApiError(500, '', 'etcdserver: request is too large');
  }
}
