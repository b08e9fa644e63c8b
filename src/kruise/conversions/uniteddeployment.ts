// UnitedDeployment v1alpha1 ↔ v1beta1 as Kruise master converts it
// (apis/apps/v1alpha1/uniteddeployment_conversion.go). The spec is the same in both versions; the status
// moves per-subset maps into `subsetStatuses`:
// - v1alpha1 `subsetReplicas` and `updateStatus.currentPartitions` ↔ `subsetStatuses[].replicas` and
//   `.partition` (a subset missing from subsetStatuses is appended; Go appends in map order, here by name);
// - `updateStatus.updatedRevision` ↔ `updatedRevision`.
// Back in v1alpha1, `updateStatus` exists once there is an updatedRevision or a subset status, and the
// maps hold the named subsets only (none: no map).
import type { KubeObject } from '../types';
import { isObj, type KindConversion, type Obj } from './fields';

function numMap(v: unknown): Array<[string, number]> {
  if (!isObj(v)) return [];
  return Object.entries(v)
    .filter((e): e is [string, number] => typeof e[1] === 'number')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Go's omitempty on the int32 fields of a v1beta1 subset status. */
function setCount(status: Obj, key: string, value: number): void {
  if (value === 0) delete status[key];
  else status[key] = value;
}

function toV1beta1(obj: KubeObject): KubeObject {
  if (!isObj(obj.status)) return obj;
  const { subsetReplicas, updateStatus, ...rest } = obj.status;
  const status: Obj = rest;
  const update = isObj(updateStatus) ? updateStatus : undefined;
  if (typeof update?.updatedRevision === 'string' && update.updatedRevision !== '') status.updatedRevision = update.updatedRevision;
  const subsets: Obj[] = Array.isArray(status.subsetStatuses) ? status.subsetStatuses.filter(isObj).map((s) => ({ ...s })) : [];
  const ensure = (name: string): Obj => {
    let s = subsets.find((x) => x.name === name);
    if (!s) subsets.push((s = { name }));
    return s;
  };
  for (const [name, replicas] of numMap(subsetReplicas)) setCount(ensure(name), 'replicas', replicas);
  for (const [name, partition] of numMap(update?.currentPartitions)) setCount(ensure(name), 'partition', partition);
  if (subsets.length > 0) status.subsetStatuses = subsets;
  obj.status = status;
  return obj;
}

function toV1alpha1(obj: KubeObject): KubeObject {
  if (!isObj(obj.status)) return obj;
  const { updatedRevision, ...rest } = obj.status;
  const status: Obj = rest;
  const subsets = Array.isArray(status.subsetStatuses) ? status.subsetStatuses.filter(isObj) : [];
  const named = subsets.filter((s) => typeof s.name === 'string' && s.name !== '');
  const revision = typeof updatedRevision === 'string' ? updatedRevision : '';
  if (revision !== '' || subsets.length > 0) {
    const update: Obj = {};
    if (revision !== '') update.updatedRevision = revision;
    if (named.length > 0) update.currentPartitions = Object.fromEntries(named.map((s) => [s.name as string, typeof s.partition === 'number' ? s.partition : 0]));
    status.updateStatus = update;
  }
  if (named.length > 0) status.subsetReplicas = Object.fromEntries(named.map((s) => [s.name as string, typeof s.replicas === 'number' ? s.replicas : 0]));
  obj.status = status;
  return obj;
}

export const unitedDeploymentConversion: KindConversion = { toV1beta1, toV1alpha1 };
