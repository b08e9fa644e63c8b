// The sandbox's UnitedDeployment controller, imitating Kruise's (pkg/controller/uniteddeployment):
// a ControllerRevision per UD template, one workload per subset (CloneSet, Advanced StatefulSet,
// StatefulSet or Deployment) named `<ud>-<subset>-<random>`, scaled to the allocator's replicas and
// partitioned by updateStrategy.manualUpdate.partitions, subsets no longer in the topology deleted,
// and the status Kruise writes. The rules are in src/kruise/rules/uniteddeployment.ts.
import { convertKruiseObject } from '../../kruise/conversion';
import { isControlledBy } from '../../kruise/rules/revisions';
import { jsonEqual } from '../../lib/json-equal';
import {
  allocateSubsetReplicas,
  applySubsetTemplate,
  nextPartitions,
  SUBSET_NAME_LABEL,
  SUBSET_PATCH_ANNOTATION,
  subsetsOf,
  subsetTemplateOf,
  UD_REVISION_LABEL,
  unitedDeploymentStatus,
  unitedDeploymentStatusV1beta1,
  type SubsetObservation,
} from '../../kruise/rules/uniteddeployment';
import { formatLabelSelector, labelSelectorMatches, type LabelSelector } from '../../kruise/selectors';
import type { KubeObject, Pod } from '../../kruise/types';
import { adapterFor } from '../../kruise/workloads';
import { applyStrategicMergePatch } from '../server/patch/strategic-merge';
import type { ControllerWithAdmission, GroupResource, SimulationSettings, Store } from '../store-api';
import { Informer } from './informer';
import { CONTROLLER_REVISIONS, PODS, isPodActive, isPodReady, keyOf, splitKey } from './pods';
import { WorkQueue } from './queue';
import { pruneRevisions, syncRevisions } from './revisions';

export const UNITED_DEPLOYMENTS: GroupResource = { group: 'apps.kruise.io', resource: 'uniteddeployments' };

const SUBSET_RESOURCES: GroupResource[] = [
  { group: 'apps.kruise.io', resource: 'clonesets' },
  { group: 'apps.kruise.io', resource: 'statefulsets' },
  { group: 'apps', resource: 'statefulsets' },
  { group: 'apps', resource: 'deployments' },
];

type Obj = Record<string, unknown>;

export function createUnitedDeploymentController(): ControllerWithAdmission {
  let store: Store | undefined;
  let settings: SimulationSettings | undefined;
  let queue: WorkQueue | undefined;
  const uds = new Informer(UNITED_DEPLOYMENTS);
  const pods = new Informer<Pod>(PODS);
  const revisions = new Informer(CONTROLLER_REVISIONS);
  const workloads = SUBSET_RESOURCES.map((gr) => new Informer(gr));
  const enqueueOwner = (obj: KubeObject) => {
    for (const ref of obj.metadata.ownerReferences ?? []) {
      if (ref.controller && ref.kind === 'UnitedDeployment') queue?.add(`${obj.metadata.namespace}/${ref.name}`);
    }
  };
  // pods are owned by the subset workloads (or their ReplicaSets): the UDs whose selector matches them
  const enqueueForPod = (pod: KubeObject) => {
    if (!pod.metadata.labels?.[SUBSET_NAME_LABEL]) return;
    for (const ud of uds.all()) {
      if (ud.metadata.namespace !== pod.metadata.namespace) continue;
      if (labelSelectorMatches((ud.spec as Obj | undefined)?.selector as LabelSelector | undefined, pod.metadata.labels)) queue?.add(keyOf(ud));
    }
  };
  return {
    name: 'uniteddeployment-controller',
    start(s, st) {
      store = s;
      settings = st;
      queue = new WorkQueue('uniteddeployment', (key) => {
        const { namespace, name } = splitKey(key);
        const ud = store?.get(UNITED_DEPLOYMENTS, namespace, name);
        if (store && settings && ud && !ud.metadata.deletionTimestamp) syncUnitedDeployment(store, settings, ud, { pods, revisions, workloads });
      }).gatedBy(st.kruiseManager);
      uds.on((_t, obj) => queue?.add(keyOf(obj)));
      pods.on((_t, obj) => enqueueForPod(obj));
      revisions.on((t, obj) => {
        if (t === 'DELETED') enqueueOwner(obj);
      });
      for (const w of workloads) w.on((_t, obj) => enqueueOwner(obj));
      revisions.start(s);
      pods.start(s);
      for (const w of workloads) w.start(s);
      uds.start(s);
    },
    stop() {
      queue?.stop();
      uds.stop();
      pods.stop();
      revisions.stop();
      for (const w of workloads) w.stop();
    },
  };
}

interface Caches {
  pods: Informer<Pod>;
  revisions: Informer;
  workloads: Informer[];
}

function syncUnitedDeployment(store: Store, settings: SimulationSettings, ud: KubeObject, caches: Caches): void {
  const found = subsetTemplateOf(ud);
  if (!found) return;
  const { info } = found;
  const gr = SUBSET_RESOURCES.find((r) => r.resource === info.resource && r.group === info.apiVersion.split('/').slice(0, -1).join('/')) ?? SUBSET_RESOURCES[0]!;
  const status = (ud.status ?? {}) as Obj;
  const template = ((ud.spec as Obj | undefined)?.template ?? {}) as Record<string, unknown>;
  const revs = syncRevisions(store, caches.revisions, ud, template, typeof status.collisionCount === 'number' ? status.collisionCount : 0, status.currentRevision as string | undefined);
  const expected = revs.updateRevision.metadata.name ?? '';
  const subsetDefs = subsetsOf(ud);

  // existing subset workloads by subset name (duplicates and subsets gone from the topology deleted)
  const informer = caches.workloads[SUBSET_RESOURCES.indexOf(gr)]!;
  const existing = new Map<string, KubeObject>();
  for (const w of informer.ownedBy(ud.metadata.uid)) {
    if (!isControlledBy(w, ud) || w.metadata.deletionTimestamp) continue;
    const name = w.metadata.labels?.[SUBSET_NAME_LABEL];
    if (!name || existing.has(name) || !subsetDefs.some((d) => d.name === name)) {
      remove(store, gr, w);
      continue;
    }
    existing.set(name, w);
  }

  let nextReplicas: Map<string, number>;
  try {
    nextReplicas = allocateSubsetReplicas(ud, new Map([...existing].map(([n, w]) => [n, numberAt(w.spec, 'replicas') ?? 0])));
  } catch {
    return; // Kruise records an event and leaves everything as it is
  }
  const partitions = nextPartitions(ud, nextReplicas);
  const storage = store.storageVersion(gr) ?? info.apiVersion;
  const patchTemplate = (t: Obj, p: Obj) => applyStrategicMergePatch(t, p) as Obj;

  for (const def of subsetDefs) {
    const replicas = nextReplicas.get(def.name) ?? 0;
    const partition = partitions.get(def.name) ?? 0;
    const current = existing.get(def.name);
    if (!current) {
      const desired = applySubsetTemplate(ud, def, expected, replicas, partition, undefined, patchTemplate);
      existing.set(def.name, store.create(gr, toStorage(desired, storage)));
      continue;
    }
    const adapter = adapterFor(current);
    const currentPartition = adapter?.partition(current);
    const unchanged =
      current.metadata.labels?.[UD_REVISION_LABEL] === expected &&
      numberAt(current.spec, 'replicas') === replicas &&
      (info.kind === 'Deployment' || Number(currentPartition ?? 0) === partition) &&
      (current.metadata.annotations?.[SUBSET_PATCH_ANNOTATION] ?? '') === (def.patch ? JSON.stringify(def.patch) : '');
    if (unchanged) continue;
    const asTemplateVersion = current.apiVersion === info.apiVersion ? current : convertKruiseObject(current, info.apiVersion);
    const desired = applySubsetTemplate(ud, def, expected, replicas, partition, asTemplateVersion, patchTemplate);
    if (!jsonEqual(desired, asTemplateVersion)) existing.set(def.name, store.update(gr, toStorage(desired, storage)));
  }

  const observations: SubsetObservation[] = [];
  for (const def of subsetDefs) {
    const w = existing.get(def.name);
    if (!w) continue;
    const selector = (w.spec as Obj | undefined)?.selector as LabelSelector | undefined;
    const subsetPods = caches.pods.all();
    let updated = 0;
    let updatedReady = 0;
    for (const pod of subsetPods) {
      if (pod.metadata.namespace !== ud.metadata.namespace || !labelSelectorMatches(selector, pod.metadata.labels)) continue;
      if (pod.metadata.labels?.[UD_REVISION_LABEL] !== expected || !isPodActive(pod)) continue;
      updated++;
      if (isPodReady(pod)) updatedReady++;
    }
    const ws = (w.status ?? {}) as Obj;
    observations.push({
      name: def.name,
      replicas: typeof ws.replicas === 'number' ? ws.replicas : 0,
      readyReplicas: typeof ws.readyReplicas === 'number' ? ws.readyReplicas : 0,
      updatedReplicas: updated,
      updatedReadyReplicas: updatedReady,
    });
  }

  const next = unitedDeploymentStatus({
    generation: ud.metadata.generation ?? 0,
    previousCurrentRevision: status.currentRevision as string | undefined,
    currentRevision: revs.currentRevision.metadata.name ?? '',
    updatedRevision: expected,
    subsets: observations,
    nextReplicas,
    nextPartitions: partitions,
    withSubsetStatuses: settings.kruise === 'v1.9' || settings.kruise === 'master',
  });
  const shaped: Obj = (ud.apiVersion ?? '').endsWith('/v1beta1') ? unitedDeploymentStatusV1beta1(next) : { ...next };
  const full: Obj = { ...shaped, labelSelector: formatLabelSelector((ud.spec as Obj | undefined)?.selector as LabelSelector | undefined) };
  if (revs.collisionCount) full.collisionCount = revs.collisionCount;
  full.conditions = updatedCondition(status.conditions, revs.currentRevision.metadata.name ?? '', expected);
  const inUse = new Set([next.currentRevision, expected]);
  pruneRevisions(store, revs.revisions, inUse, numberAt(ud.spec, 'revisionHistoryLimit') ?? 10);
  if (!jsonEqual(full, status)) store.updateStatus(UNITED_DEPLOYMENTS, { ...ud, status: full });
}

/** setUpdatedCondition: Updated True/False, its transition time kept while the status stays. */
function updatedCondition(old: unknown, current: string, expected: string): Obj[] {
  const list = Array.isArray(old) ? (old as Obj[]) : [];
  const value = current === expected ? 'True' : 'False';
  const prev = list.find((c) => c.type === 'Updated');
  if (prev && prev.status === value) return list;
  const cond: Obj = {
    type: 'Updated',
    status: value,
    lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    reason: value === 'True' ? 'UnitedDeploymentRevisionUpdated' : 'UnitedDeploymentRevisionUpdating',
    message: value === 'True' ? `updated to revision ${expected}` : `updating to revision ${expected}`,
  };
  return [...list.filter((c) => c.type !== 'Updated'), cond];
}

function toStorage(obj: KubeObject, storage: string): KubeObject {
  return obj.apiVersion === storage ? obj : convertKruiseObject(obj, storage);
}

function remove(store: Store, gr: GroupResource, obj: KubeObject): void {
  try {
    store.delete(gr, obj.metadata.namespace, obj.metadata.name ?? '');
  } catch {
    // already gone
  }
}

function numberAt(o: unknown, key: string): number | undefined {
  const v = (o as Obj | undefined)?.[key];
  return typeof v === 'number' ? v : undefined;
}
