// SidecarSet v1alpha1 ↔ v1beta1 (apis/apps/v1alpha1/sidecarset_conversion.go):
// - `spec.namespace` becomes a namespaceSelector on kubernetes.io/metadata.name, which wins over a
//   namespaceSelector; v1beta1 has no `namespace`, so the selector stays a selector on the way back;
// - the custom-version label ↔ `spec.customVersion` (the label moves into the spec, and back).
import type { KubeObject } from '../types';
import { deleteMapEntry, objOf, setMapEntry, type KindConversion } from './fields';

export const SIDECARSET_CUSTOM_VERSION_LABEL = 'apps.kruise.io/sidecarset-custom-version';
const METADATA_NAME_LABEL = 'kubernetes.io/metadata.name';

function toV1beta1(obj: KubeObject): KubeObject {
  const spec = objOf(obj, 'spec');
  if (!spec) return obj;
  if (typeof spec.namespace === 'string' && spec.namespace !== '') spec.namespaceSelector = { matchLabels: { [METADATA_NAME_LABEL]: spec.namespace } };
  delete spec.namespace;
  const labels = obj.metadata.labels;
  if (labels && SIDECARSET_CUSTOM_VERSION_LABEL in labels) {
    const version = labels[SIDECARSET_CUSTOM_VERSION_LABEL];
    if (version) spec.customVersion = version;
    deleteMapEntry(obj.metadata, 'labels', SIDECARSET_CUSTOM_VERSION_LABEL);
  }
  return obj;
}

function toV1alpha1(obj: KubeObject): KubeObject {
  const spec = objOf(obj, 'spec');
  if (!spec) return obj;
  const custom = spec.customVersion;
  delete spec.customVersion;
  if (typeof custom === 'string' && custom !== '') setMapEntry(obj.metadata, 'labels', SIDECARSET_CUSTOM_VERSION_LABEL, custom);
  return obj;
}

export const sidecarSetConversion: KindConversion = { toV1beta1, toV1alpha1 };
