// Advanced DaemonSet v1alpha1 ↔ v1beta1 (apis/apps/v1alpha1/daemonset_conversion.go):
// - the deprecated rolling update type `Surging` becomes `Standard` in v1beta1 (not back);
// - annotation `daemonset.kruise.io/progressive-create-pod: "true"` → `spec.scaleStrategy.partitionedScaling`,
//   and back (v1beta1's scaleStrategy has no other v1alpha1 form);
// - `status.daemonSetHash` ↔ `status.updateRevision`.
import type { KubeObject } from '../types';
import { isObj, objOf, rename, setMapEntry, type KindConversion } from './fields';

export const PROGRESSIVE_CREATE_POD_ANNOTATION = 'daemonset.kruise.io/progressive-create-pod';

function toV1beta1(obj: KubeObject): KubeObject {
  const spec = objOf(obj, 'spec');
  const rolling = objOf(objOf(spec, 'updateStrategy'), 'rollingUpdate');
  if (rolling?.rollingUpdateType === 'Surging') rolling.rollingUpdateType = 'Standard';
  if (spec) {
    delete spec.scaleStrategy;
    if (obj.metadata.annotations?.[PROGRESSIVE_CREATE_POD_ANNOTATION] === 'true') spec.scaleStrategy = { partitionedScaling: true };
  }
  rename(objOf(obj, 'status'), 'daemonSetHash', 'updateRevision');
  return obj;
}

function toV1alpha1(obj: KubeObject): KubeObject {
  const spec = objOf(obj, 'spec');
  if (spec) {
    const scale = spec.scaleStrategy;
    delete spec.scaleStrategy;
    if (isObj(scale) && scale.partitionedScaling === true) setMapEntry(obj.metadata, 'annotations', PROGRESSIVE_CREATE_POD_ANNOTATION, 'true');
  }
  rename(objOf(obj, 'status'), 'updateRevision', 'daemonSetHash');
  return obj;
}

export const daemonSetConversion: KindConversion = { toV1beta1, toV1alpha1 };
