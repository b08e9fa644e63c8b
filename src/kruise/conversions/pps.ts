// PersistentPodState v1alpha1 ↔ v1beta1 (apis/apps/v1alpha1/persistent_pod_state_conversion.go,
// kruise-semantics §6): `nodeTopologyKeys` ↔ `keys` in the required term and in each preferred term's
// preference. Everything else is the same in both versions.
import type { KubeObject } from '../types';
import { isObj, objOf, rename, type KindConversion } from './fields';

function renameTopologyKeys(obj: KubeObject, from: string, to: string): KubeObject {
  const spec = objOf(obj, 'spec');
  if (!spec) return obj;
  rename(objOf(spec, 'requiredPersistentTopology'), from, to);
  if (Array.isArray(spec.preferredPersistentTopology)) {
    for (const term of spec.preferredPersistentTopology) if (isObj(term)) rename(objOf(term, 'preference'), from, to);
  }
  return obj;
}

export const persistentPodStateConversion: KindConversion = {
  toV1beta1: (obj) => renameTopologyKeys(obj, 'nodeTopologyKeys', 'keys'),
  toV1alpha1: (obj) => renameTopologyKeys(obj, 'keys', 'nodeTopologyKeys'),
};
