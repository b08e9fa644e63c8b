// ResourceDistribution (cluster-scoped) v1alpha1 ↔ v1beta1 as Kruise master converts it
// (apis/apps/v1alpha1/resourcedistribution_conversion.go): `spec.targets.namespaceLabelSelector` ↔
// `namespaceSelector`, and each condition's `failedNamespace` ↔ `failedNamespaces` (an empty list is
// not written). Everything else is the same in both versions.
import type { KubeObject } from '../types';
import { isObj, nonZero, objOf, put, rename, type KindConversion } from './fields';

function mapConditions(obj: KubeObject, from: string, to: string): void {
  const conditions = objOf(obj, 'status')?.conditions;
  if (!Array.isArray(conditions)) return;
  for (const c of conditions) {
    if (!isObj(c)) continue;
    const list = c[from];
    delete c[from];
    put(c, to, nonZero(list));
  }
}

function toV1beta1(obj: KubeObject): KubeObject {
  rename(objOf(objOf(obj, 'spec'), 'targets'), 'namespaceLabelSelector', 'namespaceSelector');
  mapConditions(obj, 'failedNamespace', 'failedNamespaces');
  return obj;
}

function toV1alpha1(obj: KubeObject): KubeObject {
  rename(objOf(objOf(obj, 'spec'), 'targets'), 'namespaceSelector', 'namespaceLabelSelector');
  mapConditions(obj, 'failedNamespaces', 'failedNamespace');
  return obj;
}

export const resourceDistributionConversion: KindConversion = { toV1beta1, toV1alpha1 };
