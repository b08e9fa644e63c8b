// Conversion between the served versions of Kruise kinds, as Kruise's conversion
// webhook does it (kruise-semantics §3.2 CloneSet, §6 PersistentPodState). Used by the
// sandbox API server (multi-version CRDs) and by clients that read one shape and write another.
//
// - convertKruiseObject(obj, toApiVersion): the entry point (copy; never mutates `obj`).
// - cloneSetV1alpha1ToV1beta1 / cloneSetV1beta1ToV1alpha1: the CloneSet shape change.
// - persistentPodStateToV1beta1 / persistentPodStateToV1alpha1: nodeTopologyKeys ↔ keys.
// Every other kind only gets its apiVersion changed. Status is never touched.
import type { KubeObject } from './types';
import { splitApiVersion } from './api-version';
import { isObj, type Obj } from './workloads/access';

/** Label (v1alpha1) that became scaleStrategy.excludePreparingDelete (v1beta1). */
export const EXCLUDE_PREPARING_DELETE_LABEL = 'apps.kruise.io/cloneset-scaling-exclude-preparing-delete';

/** Fields of v1alpha1 spec.updateStrategy that move under v1beta1 spec.updateStrategy.rollingUpdate. */
const CLONESET_ROLLING_FIELDS = [
  'partition',
  'maxUnavailable',
  'maxSurge',
  'paused',
  'priorityStrategy',
  'scatterStrategy',
  'inPlaceUpdateStrategy',
] as const;

/** Thrown when asked to convert across groups or to a malformed apiVersion. */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}


/**
 * Returns a copy of `obj` converted to `toApiVersion` (e.g. "apps.kruise.io/v1beta1").
 * Kinds whose versions share a shape only get their apiVersion changed.
 */
export function convertKruiseObject(obj: KubeObject, toApiVersion: string): KubeObject {
  const from = splitApiVersion(obj.apiVersion);
  const to = splitApiVersion(toApiVersion);
  if (!to.version) throw new ConversionError(`invalid apiVersion "${toApiVersion}"`);
  if (obj.apiVersion && from.group !== to.group) {
    throw new ConversionError(`cannot convert ${obj.kind ?? 'object'} from ${obj.apiVersion} to ${toApiVersion}: different API groups`);
  }
  const copy = structuredClone(obj);
  copy.apiVersion = toApiVersion;
  if (from.version === to.version || to.group !== 'apps.kruise.io') return copy;
  if (obj.kind === 'CloneSet') {
    if (from.version === 'v1alpha1' && to.version === 'v1beta1') return cloneSetV1alpha1ToV1beta1(copy);
    if (from.version === 'v1beta1' && to.version === 'v1alpha1') return cloneSetV1beta1ToV1alpha1(copy);
  }
  if (obj.kind === 'SidecarSet') {
    if (from.version === 'v1alpha1' && to.version === 'v1beta1') return sidecarSetV1alpha1ToV1beta1(copy);
    if (from.version === 'v1beta1' && to.version === 'v1alpha1') return sidecarSetV1beta1ToV1alpha1(copy);
  }
  if (obj.kind === 'PersistentPodState') {
    if (to.version === 'v1beta1') return persistentPodStateToV1beta1(copy);
    if (to.version === 'v1alpha1') return persistentPodStateToV1alpha1(copy);
  }
  return copy;
}

/**
 * CloneSet v1alpha1 → v1beta1 (in place on a copy): type OnDelete stays OnDelete without rollingUpdate;
 * ReCreate/InPlaceIfPossible/InPlaceOnly/empty → RollingUpdate with podUpdatePolicy = the old type
 * (empty → ReCreate) and the rolling fields moved under rollingUpdate; disablePVCReuse → enablePVCReuse
 * inverted; the exclude-preparing-delete label → scaleStrategy.excludePreparingDelete.
 */
export function cloneSetV1alpha1ToV1beta1(obj: KubeObject): KubeObject {
  const spec = isObj(obj.spec) ? obj.spec : undefined;
  if (spec) {
    const old = isObj(spec.updateStrategy) ? spec.updateStrategy : {};
    const type = typeof old.type === 'string' ? old.type : '';
    if (type === 'OnDelete') {
      spec.updateStrategy = { type: 'OnDelete' };
    } else {
      const rollingUpdate: Obj = {};
      for (const f of CLONESET_ROLLING_FIELDS) if (old[f] !== undefined) rollingUpdate[f] = old[f];
      rollingUpdate.podUpdatePolicy = type || 'ReCreate';
      spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate };
    }
    if (isObj(spec.scaleStrategy) && 'disablePVCReuse' in spec.scaleStrategy) {
      const { disablePVCReuse, ...rest } = spec.scaleStrategy;
      spec.scaleStrategy = { ...rest, enablePVCReuse: !disablePVCReuse };
    }
  }
  const labels = obj.metadata.labels;
  if (labels && EXCLUDE_PREPARING_DELETE_LABEL in labels) {
    const exclude = labels[EXCLUDE_PREPARING_DELETE_LABEL] === 'true';
    delete labels[EXCLUDE_PREPARING_DELETE_LABEL];
    if (Object.keys(labels).length === 0) delete obj.metadata.labels;
    if (exclude) {
      const target = isObj(obj.spec) ? obj.spec : (obj.spec = {} as Obj);
      target.scaleStrategy = { ...(isObj(target.scaleStrategy) ? target.scaleStrategy : {}), excludePreparingDelete: true };
    }
  }
  return obj;
}

/** CloneSet v1beta1 → v1alpha1: the inverse of cloneSetV1alpha1ToV1beta1. */
export function cloneSetV1beta1ToV1alpha1(obj: KubeObject): KubeObject {
  const spec = isObj(obj.spec) ? obj.spec : undefined;
  if (!spec) return obj;
  const strategy = isObj(spec.updateStrategy) ? spec.updateStrategy : undefined;
  if (strategy) {
    if (strategy.type === 'OnDelete') {
      spec.updateStrategy = { type: 'OnDelete' };
    } else {
      const rolling = isObj(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
      const out: Obj = { type: typeof rolling.podUpdatePolicy === 'string' && rolling.podUpdatePolicy ? rolling.podUpdatePolicy : 'ReCreate' };
      for (const f of CLONESET_ROLLING_FIELDS) if (rolling[f] !== undefined) out[f] = rolling[f];
      spec.updateStrategy = out;
    }
  }
  if (isObj(spec.scaleStrategy)) {
    const { enablePVCReuse, excludePreparingDelete, ...rest } = spec.scaleStrategy;
    const scale: Obj = { ...rest };
    if (enablePVCReuse !== undefined) scale.disablePVCReuse = !enablePVCReuse;
    spec.scaleStrategy = scale;
    if (excludePreparingDelete === true) {
      obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [EXCLUDE_PREPARING_DELETE_LABEL]: 'true' };
    }
  }
  return obj;
}

function renameTopologyKeys(topology: unknown, from: string, to: string): void {
  if (!isObj(topology) || !(from in topology)) return;
  topology[to] = topology[from];
  delete topology[from];
}

function mapPreferred(spec: Obj, from: string, to: string): void {
  renameTopologyKeys(spec.requiredPersistentTopology, from, to);
  if (Array.isArray(spec.preferredPersistentTopology)) {
    for (const term of spec.preferredPersistentTopology) if (isObj(term)) renameTopologyKeys(term.preference, from, to);
  }
}

/** PersistentPodState v1alpha1 → v1beta1: nodeTopologyKeys → keys (required and each preferred term). */
export function persistentPodStateToV1beta1(obj: KubeObject): KubeObject {
  if (isObj(obj.spec)) mapPreferred(obj.spec, 'nodeTopologyKeys', 'keys');
  return obj;
}

/** PersistentPodState v1beta1 → v1alpha1: keys → nodeTopologyKeys. */
export function persistentPodStateToV1alpha1(obj: KubeObject): KubeObject {
  if (isObj(obj.spec)) mapPreferred(obj.spec, 'keys', 'nodeTopologyKeys');
  return obj;
}

const SIDECARSET_CUSTOM_VERSION_LABEL = 'apps.kruise.io/sidecarset-custom-version';

/**
 * SidecarSet v1alpha1 → v1beta1 (apis/apps/v1alpha1/sidecarset_conversion.go): spec.namespace becomes a
 * namespaceSelector on kubernetes.io/metadata.name (it wins over a namespaceSelector); the custom-version
 * label becomes spec.customVersion.
 */
export function sidecarSetV1alpha1ToV1beta1(obj: KubeObject): KubeObject {
  if (!isObj(obj.spec)) return obj;
  const spec = obj.spec;
  if (typeof spec.namespace === 'string' && spec.namespace !== '') {
    spec.namespaceSelector = { matchLabels: { 'kubernetes.io/metadata.name': spec.namespace } };
  }
  delete spec.namespace;
  const label = obj.metadata.labels?.[SIDECARSET_CUSTOM_VERSION_LABEL];
  if (label) spec.customVersion = label;
  return obj;
}

/** SidecarSet v1beta1 → v1alpha1: namespaceSelector kept as is; spec.customVersion back to the label. */
export function sidecarSetV1beta1ToV1alpha1(obj: KubeObject): KubeObject {
  if (!isObj(obj.spec)) return obj;
  const custom = obj.spec.customVersion;
  delete obj.spec.customVersion;
  if (typeof custom === 'string' && custom !== '') obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [SIDECARSET_CUSTOM_VERSION_LABEL]: custom };
  return obj;
}
