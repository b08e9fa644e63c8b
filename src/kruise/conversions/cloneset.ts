// CloneSet v1alpha1 ↔ v1beta1 as Kruise converts it (apis/apps/v1alpha1/cloneset_conversion.go,
// ConvertTo / ConvertFrom; kruise-semantics §3.2):
// - v1alpha1 `updateStrategy.type` is the pod update policy; v1beta1 has `type` RollingUpdate|OnDelete
//   and the rolling fields, with `podUpdatePolicy`, under `rollingUpdate`. OnDelete drops them on the way
//   to v1beta1, but a v1beta1 OnDelete keeps whatever `rollingUpdate` holds on the way back.
// - `scaleStrategy.disablePVCReuse` ↔ `enablePVCReuse`, inverted, so an unset one becomes `true` on the
//   other side; the exclude-preparing-delete label sets `excludePreparingDelete` (the label stays; the
//   field is not turned back into a label).
// - the image pre-download annotations ↔ `rollingUpdate.inPlaceUpdateStrategy.imagePreDownload*`.
import type { KubeObject } from '../types';
import { isObj, nonZero, objOf, parseInt32, put, setMapEntry, type KindConversion, type Obj } from './fields';

/** Label (v1alpha1) read into scaleStrategy.excludePreparingDelete (v1beta1). */
export const EXCLUDE_PREPARING_DELETE_LABEL = 'apps.kruise.io/cloneset-scaling-exclude-preparing-delete';

/** Annotations (v1alpha1) of the v1beta1 inPlaceUpdateStrategy fields (apis/apps/v1beta1 ImagePreDownload*Key). */
export const IMAGE_PREDOWNLOAD_ANNOTATIONS = {
  imagePreDownloadParallelism: 'apps.kruise.io/image-predownload-parallelism',
  imagePreDownloadTimeoutSeconds: 'apps.kruise.io/image-predownload-timeout-seconds',
  imagePreDownloadMinUpdatedReadyPods: 'apps.kruise.io/image-predownload-min-updated-ready-pods',
} as const;

/** Fields a v1alpha1 updateStrategy shares with a v1beta1 rollingUpdate (inPlaceUpdateStrategy is handled apart). */
const ROLLING_FIELDS = ['partition', 'maxUnavailable', 'maxSurge', 'paused', 'priorityStrategy', 'scatterStrategy'] as const;
/** Pointers in Go: written whenever set, 0 and {} included. The others (paused, scatterStrategy) are omitted when empty. */
const POINTER_FIELDS = new Set<string>(['partition', 'maxUnavailable', 'maxSurge', 'priorityStrategy']);

/** Copies the shared rolling fields with Go's omitempty of each field's type. */
function copyRolling(from: Obj, to: Obj): void {
  for (const f of ROLLING_FIELDS) put(to, f, POINTER_FIELDS.has(f) ? (from[f] ?? undefined) : nonZero(from[f]));
}

const POLICIES = new Set(['ReCreate', 'InPlaceIfPossible', 'InPlaceOnly']);

/** intstr.Parse: a decimal integer becomes an int, anything else stays a string. */
function intstrParse(s: string): number | string {
  const n = parseInt32(s);
  return n === undefined ? s : n;
}

/** convertInPlaceUpdateStrategyToV1beta1: gracePeriodSeconds from the spec, the rest from the annotations. */
function inPlaceToV1beta1(src: unknown, annotations: Record<string, string> | undefined): Obj | undefined {
  const a = annotations ?? {};
  const hasAnnotations = Object.values(IMAGE_PREDOWNLOAD_ANNOTATIONS).some((k) => (a[k] ?? '') !== '');
  if (!isObj(src) && !hasAnnotations) return undefined;
  const out: Obj = {};
  if (isObj(src)) put(out, 'gracePeriodSeconds', nonZero(src.gracePeriodSeconds));
  const parallelism = a[IMAGE_PREDOWNLOAD_ANNOTATIONS.imagePreDownloadParallelism];
  if (parallelism) out.imagePreDownloadParallelism = intstrParse(parallelism);
  // A value ParseInt refuses is left out, as Kruise leaves it.
  for (const key of ['imagePreDownloadTimeoutSeconds', 'imagePreDownloadMinUpdatedReadyPods'] as const) {
    const text = a[IMAGE_PREDOWNLOAD_ANNOTATIONS[key]];
    const n = text ? parseInt32(text) : undefined;
    if (n !== undefined) out[key] = n;
  }
  return out;
}

/** convertInPlaceUpdateStrategyFromV1beta1: gracePeriodSeconds stays, the pre-download fields go to annotations. */
function inPlaceToV1alpha1(src: unknown, obj: KubeObject): Obj | undefined {
  if (!isObj(src)) return undefined;
  const pre = Object.keys(IMAGE_PREDOWNLOAD_ANNOTATIONS) as Array<keyof typeof IMAGE_PREDOWNLOAD_ANNOTATIONS>;
  if (!nonZero(src.gracePeriodSeconds) && !pre.some((k) => src[k] !== undefined && src[k] !== null)) return undefined;
  for (const k of pre) {
    const v = src[k];
    if (typeof v === 'number' || typeof v === 'string') setMapEntry(obj.metadata, 'annotations', IMAGE_PREDOWNLOAD_ANNOTATIONS[k], String(v));
  }
  const out: Obj = {};
  put(out, 'gracePeriodSeconds', nonZero(src.gracePeriodSeconds));
  return out;
}

function toV1beta1(obj: KubeObject): KubeObject {
  const spec: Obj = isObj(obj.spec) ? obj.spec : (obj.spec = {});
  const scale = objOf(spec, 'scaleStrategy') ?? {};
  const nextScale: Obj = {};
  put(nextScale, 'podsToDelete', nonZero(scale.podsToDelete));
  put(nextScale, 'maxUnavailable', scale.maxUnavailable ?? undefined);
  put(nextScale, 'enablePVCReuse', nonZero(scale.disablePVCReuse !== true));
  put(nextScale, 'excludePreparingDelete', nonZero(obj.metadata.labels?.[EXCLUDE_PREPARING_DELETE_LABEL] === 'true'));
  spec.scaleStrategy = nextScale;

  const old = objOf(spec, 'updateStrategy') ?? {};
  const type = typeof old.type === 'string' ? old.type : '';
  if (type === 'OnDelete') {
    spec.updateStrategy = { type: 'OnDelete' };
    return obj;
  }
  const rollingUpdate: Obj = {};
  copyRolling(old, rollingUpdate);
  rollingUpdate.podUpdatePolicy = POLICIES.has(type) ? type : 'ReCreate';
  put(rollingUpdate, 'inPlaceUpdateStrategy', inPlaceToV1beta1(old.inPlaceUpdateStrategy, obj.metadata.annotations));
  spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate };
  return obj;
}

function toV1alpha1(obj: KubeObject): KubeObject {
  const spec: Obj = isObj(obj.spec) ? obj.spec : (obj.spec = {});
  const scale = objOf(spec, 'scaleStrategy') ?? {};
  const nextScale: Obj = {};
  put(nextScale, 'podsToDelete', nonZero(scale.podsToDelete));
  put(nextScale, 'maxUnavailable', scale.maxUnavailable ?? undefined);
  put(nextScale, 'disablePVCReuse', nonZero(scale.enablePVCReuse !== true));
  spec.scaleStrategy = nextScale;

  const strategy = objOf(spec, 'updateStrategy') ?? {};
  const rolling = objOf(strategy, 'rollingUpdate');
  const policy = rolling && typeof rolling.podUpdatePolicy === 'string' && POLICIES.has(rolling.podUpdatePolicy) ? rolling.podUpdatePolicy : 'ReCreate';
  const out: Obj = { type: strategy.type === 'OnDelete' ? 'OnDelete' : policy };
  if (rolling) {
    copyRolling(rolling, out);
    put(out, 'inPlaceUpdateStrategy', inPlaceToV1alpha1(rolling.inPlaceUpdateStrategy, obj));
  }
  spec.updateStrategy = out;
  return obj;
}

export const cloneSetConversion: KindConversion = { toV1beta1, toV1alpha1 };
