// ContainerRecreateRequest v1alpha1 ↔ v1beta1 as Kruise master converts it
// (apis/apps/v1alpha1/containerrecreaterequest_conversion.go ConvertTo / ConvertFrom). The spec and the
// shared status fields are the same in both versions; v1beta1 keeps in status what v1alpha1 keeps in
// annotations:
// - `crr.apps.kruise.io/sync-container-statuses` (a JSON list) ↔ `status.containerStatusSnapshot`;
// - `crr.apps.kruise.io/unready-acquired` (an RFC 3339 time) ↔ condition `PreRecreateGrace` (True, its
//   lastTransitionTime). An annotation Kruise cannot parse is left out of the status, not an error.
// The annotations stay in metadata on the way to v1beta1; on the way back the status wins over them.
import type { KubeObject } from '../types';
import { CRR_PRE_RECREATE_GRACE_CONDITION, CRR_SYNC_CONTAINER_STATUSES_KEY, CRR_UNREADY_ACQUIRED_KEY, preRecreateGraceCondition, type CrrSyncContainerStatus } from '../rules/crr';
import { isObj, rfc3339Utc, setMapEntry, type KindConversion, type Obj } from './fields';

/** One entry of the snapshot, as Go's struct writes it (containerID omitted when empty). */
function snapshotEntry(v: unknown): CrrSyncContainerStatus {
  const o = isObj(v) ? v : {};
  const entry: CrrSyncContainerStatus = {
    name: typeof o.name === 'string' ? o.name : '',
    ready: o.ready === true,
    restartCount: typeof o.restartCount === 'number' ? o.restartCount : 0,
  };
  if (typeof o.containerID === 'string' && o.containerID !== '') entry.containerID = o.containerID;
  return entry;
}

/** The annotation's list as json.Unmarshal reads it into the typed slice; undefined when it is not a list of objects. */
function parseSnapshotAnnotation(raw: string | undefined): CrrSyncContainerStatus[] | undefined {
  if (!raw) return undefined;
  try {
    const list: unknown = JSON.parse(raw);
    if (list === null) return undefined;
    if (!Array.isArray(list) || !list.every((e) => isObj(e) || e === null)) return undefined;
    return list.map(snapshotEntry);
  } catch {
    return undefined;
  }
}

/** The annotation's text for a snapshot: json.Marshal of the typed slice (field order name, ready, restartCount, containerID). */
function snapshotAnnotation(list: readonly unknown[]): string {
  return JSON.stringify(list.map(snapshotEntry));
}

function toV1beta1(obj: KubeObject): KubeObject {
  const status: Obj = isObj(obj.status) ? obj.status : {};
  // v1alpha1 has neither field: whatever the object carries there is not v1alpha1's.
  delete status.containerStatusSnapshot;
  delete status.conditions;
  const annotations = obj.metadata.annotations ?? {};
  const snapshot = parseSnapshotAnnotation(annotations[CRR_SYNC_CONTAINER_STATUSES_KEY]);
  if (snapshot && snapshot.length > 0) status.containerStatusSnapshot = snapshot;
  const acquired = annotations[CRR_UNREADY_ACQUIRED_KEY];
  const at = acquired ? rfc3339Utc(acquired) : undefined;
  if (at) status.conditions = [preRecreateGraceCondition(at)];
  if (Object.keys(status).length > 0 || obj.status !== undefined) obj.status = status;
  return obj;
}

function toV1alpha1(obj: KubeObject): KubeObject {
  if (!isObj(obj.status)) return obj;
  const { containerStatusSnapshot, conditions, ...rest } = obj.status;
  obj.status = rest;
  if (Array.isArray(containerStatusSnapshot)) setMapEntry(obj.metadata, 'annotations', CRR_SYNC_CONTAINER_STATUSES_KEY, snapshotAnnotation(containerStatusSnapshot));
  const grace = Array.isArray(conditions) ? conditions.find((c) => isObj(c) && c.type === CRR_PRE_RECREATE_GRACE_CONDITION && c.status === 'True') : undefined;
  if (isObj(grace)) {
    // metav1.Time of the condition, written back in RFC 3339 UTC (a zero time: Go's zero date).
    const t = typeof grace.lastTransitionTime === 'string' ? rfc3339Utc(grace.lastTransitionTime) : undefined;
    setMapEntry(obj.metadata, 'annotations', CRR_UNREADY_ACQUIRED_KEY, t ?? '0001-01-01T00:00:00Z');
  }
  return obj;
}

export const crrConversion: KindConversion = { toV1beta1, toV1alpha1 };
