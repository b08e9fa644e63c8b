// The sandbox's SidecarSet controller and webhooks (Kruise v1.9 behaviour; rules in
// src/kruise/rules/sidecarset*.ts):
// - SidecarSet webhooks (CREATE/UPDATE): defaults, validation (422), then the kruise.io/sidecarset-hash
//   and -without-image annotations;
// - pod webhook (CREATE): injection of the matching, non-paused SidecarSets;
// - controller (sidecarset_processor.go UpdateSidecarSet): ControllerRevisions in kruise-system,
//   status, then in-place sidecar upgrades of the matched pods by the update strategy (the kubelet
//   restarts a container whose image changed: same pod UID, restartCount + 1), hot-upgrade resets.
import { jsonEqual } from '../../lib/json-equal';
import {
  injectSidecarSets,
  isActivePod,
  isPodConsistentWithSidecarSet,
  isPodInjected,
  KRUISE_NAMESPACE,
  podMatchesSidecarSet,
  podSidecarSetControllerRevision,
  readSidecarSet,
  sidecarSetForInjection,
  SIDECARSET_CUSTOM_VERSION_LABEL,
  SIDECARSET_NAME_LABEL,
  withSidecarSetHashes,
  type SidecarSetView,
} from '../../kruise/rules/sidecarset';
import { nextUpgradePods, resetIdleHotUpgradeContainers, sidecarSetRounding, sidecarSetStatus, upgradableCondition, upgradePodSidecars } from '../../kruise/rules/sidecarset-upgrade';
import type { KubeObject, Pod } from '../../kruise/types';
import type { ControllerWithAdmission, GroupResource, SimulationSettings, Store } from '../store-api';
import { sidecarSetDefaults, validateSidecarSet } from '../../kruise/rules/sidecarset-webhook';
import { rejectInvalid } from './revisions-admission';
import { ApiError } from '../server/errors';
import { revisionName, templateHash } from './hash';
import { Informer } from './informer';
import { CONTROLLER_REVISIONS, PODS, controllerRef } from './pods';
import { WorkQueue } from './queue';

export const SIDECARSETS: GroupResource = { group: 'apps.kruise.io', resource: 'sidecarsets' };
const NAMESPACES: GroupResource = { group: '', resource: 'namespaces' };

/** Namespace labels as the API server sets them (kubernetes.io/metadata.name is always there). */
function namespaceLabelsFrom(get: (name: string) => KubeObject | undefined): (ns: string) => Record<string, string> | undefined {
  return (ns) => {
    const obj = get(ns);
    return obj ? { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': ns } : undefined;
  };
}

/** The revision payload (copySidecarSetSpecRevision): the fields a revision restores. */
function revisionData(obj: KubeObject): Record<string, unknown> {
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const data: Record<string, unknown> = { $patch: 'replace' };
  for (const k of ['volumes', 'containers', 'initContainers', 'imagePullSecrets', 'patchPodMetadata']) if (spec[k] !== undefined) data[k] = spec[k];
  return { spec: data };
}

export function createSidecarSetController(): ControllerWithAdmission {
  let store: Store | undefined;
  let queue: WorkQueue | undefined;
  let release: SimulationSettings['kruise'] = 'v1.9';
  const sets = new Informer(SIDECARSETS);
  const pods = new Informer<Pod>(PODS);
  const namespaces = new Informer(NAMESPACES);
  const revisions = new Informer(CONTROLLER_REVISIONS);
  const nsLabels = namespaceLabelsFrom((n) => namespaces.get(n));

  const enqueueSetsOfPod = (pod: Pod) => {
    for (const s of sets.all()) if (isPodInjected(pod, readSidecarSet(s))) queue?.add(s.metadata.name ?? '');
  };

  function matchedPods(ss: SidecarSetView): Pod[] {
    return [...pods.all()].filter((p) => isActivePod(p) && podMatchesSidecarSet(p, ss, nsLabels) && isPodInjected(p, ss) && isPodConsistentWithSidecarSet(p, ss));
  }

  /** registerLatestRevision: reuse an equal revision (moved to the newest number) or create one. */
  function registerRevision(s: Store, obj: KubeObject, ss: SidecarSetView, matched: Pod[]): { name: string; collisionCount: number } {
    if (!s.get(NAMESPACES, undefined, KRUISE_NAMESPACE)) {
      try {
        s.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: KRUISE_NAMESPACE } });
      } catch {
        /* created meanwhile */
      }
    }
    const own = [...revisions.all()]
      .filter((r) => r.metadata.namespace === KRUISE_NAMESPACE && r.metadata.labels?.[SIDECARSET_NAME_LABEL] === ss.name)
      .sort((a, b) => revNumber(a) - revNumber(b));
    const data = revisionData(obj);
    const next = own.length ? revNumber(own[own.length - 1]) + 1 : 1;
    const status = (obj.status ?? {}) as { collisionCount?: number };
    let collisionCount = status.collisionCount ?? 0;
    const equal = own.filter((r) => jsonEqual((r as { data?: unknown }).data, data));
    let latest: KubeObject;
    if (equal.length && equal[equal.length - 1] === own[own.length - 1]) latest = own[own.length - 1];
    else if (equal.length) latest = s.update(CONTROLLER_REVISIONS, { ...equal[equal.length - 1], revision: next } as KubeObject);
    else {
      const labels: Record<string, string> = { ...(obj.metadata.labels ?? {}), [SIDECARSET_NAME_LABEL]: ss.name };
      const custom = (obj.spec as { customVersion?: string } | undefined)?.customVersion;
      if (custom) labels[SIDECARSET_CUSTOM_VERSION_LABEL] = custom;
      const annotations: Record<string, string> = { ...(obj.metadata.annotations ?? {}) };
      delete annotations['kubectl.kubernetes.io/last-applied-configuration'];
      for (;;) {
        const name = revisionName(ss.name, templateHash(data, collisionCount));
        const existing = s.get(CONTROLLER_REVISIONS, KRUISE_NAMESPACE, name);
        if (existing) {
          if (jsonEqual((existing as { data?: unknown }).data, data)) {
            latest = existing;
            break;
          }
          collisionCount++;
          continue;
        }
        latest = s.create(CONTROLLER_REVISIONS, {
          apiVersion: 'apps/v1',
          kind: 'ControllerRevision',
          metadata: { name, namespace: KRUISE_NAMESPACE, labels, annotations, ownerReferences: [controllerRef(obj)] },
          data,
          revision: next,
        } as KubeObject);
        break;
      }
    }
    truncateHistory(s, obj, ss, matched, [...revisions.all()].filter((r) => r.metadata.namespace === KRUISE_NAMESPACE && r.metadata.labels?.[SIDECARSET_NAME_LABEL] === ss.name), latest);
    return { name: latest.metadata.name ?? '', collisionCount };
  }

  function reconcile(name: string): void {
    if (!store) return;
    const obj = store.get(SIDECARSETS, undefined, name);
    if (!obj || obj.metadata.deletionTimestamp) return;
    let ss = readSidecarSet(obj);
    const matched = matchedPods(ss);
    const latest = registerRevision(store, obj, ss, matched);
    ss = { ...ss, latestRevision: latest.name };
    const status = sidecarSetStatus(ss, matched, latest.name, latest.collisionCount);
    if (!jsonEqual({ ...((obj.status ?? {}) as object) }, status)) store.updateStatus(SIDECARSETS, { ...obj, status: status as unknown as Record<string, unknown> });
    const strategy = ss.updateStrategy;
    if (strategy.type === 'NotUpdate' || strategy.paused) return;
    let flipped = false;
    for (const pod of matched) {
      const reset = resetIdleHotUpgradeContainers(ss, pod);
      if (reset) {
        writePod(store, reset);
        flipped = true;
      }
    }
    if (flipped || status.updatedPods >= status.matchedPods) return;
    const plan = nextUpgradePods(ss, matched, sidecarSetRounding(release));
    const now = new Date();
    for (const pod of plan.notUpgradable) markUpgradable(store, pod, ss.name, false, now);
    for (const pod of plan.upgrade) {
      const written = writePod(store, upgradePodSidecars(ss, pod, now));
      if (written) markUpgradable(store, written, ss.name, true, now);
    }
  }

  return {
    name: 'sidecarset-controller',
    start(s: Store, settings: SimulationSettings) {
      store = s;
      release = settings.kruise;
      queue = new WorkQueue('sidecarset', reconcile).gatedBy(settings.kruiseManager);
      sets.on((type, obj) => {
        if (type !== 'DELETED') queue?.add(obj.metadata.name ?? '');
      });
      pods.on((_t, pod) => enqueueSetsOfPod(pod));
      namespaces.on(() => {
        for (const x of sets.all()) queue?.add(x.metadata.name ?? '');
      });
      namespaces.start(s);
      revisions.start(s);
      pods.start(s);
      sets.start(s);
    },
    stop() {
      queue?.stop();
      for (const i of [sets, pods, namespaces, revisions]) i.stop();
    },
    admission: [
      {
        gr: SIDECARSETS,
        operations: ['CREATE', 'UPDATE'],
        admit(op, obj, old, st) {
          if (op === 'UPDATE' && old && jsonEqual(old.spec, obj.spec)) return obj;
          const defaulted = sidecarSetDefaults(obj, release);
          rejectInvalid(SIDECARSETS, 'SidecarSet', defaulted, validateSidecarSet(defaulted, op === 'UPDATE' ? old : undefined, st.list(SIDECARSETS), st.list(CONTROLLER_REVISIONS, { namespace: KRUISE_NAMESPACE }).filter((r) => r.metadata.labels?.[SIDECARSET_NAME_LABEL] === defaulted.metadata.name)));
          return withSidecarSetHashes(defaulted);
        },
      },
      {
        gr: PODS,
        operations: ['CREATE'],
        admit(_op, obj, _old, st) {
          const pod = obj as Pod;
          const labels = namespaceLabelsFrom((n) => st.get(NAMESPACES, undefined, n));
          const candidates = st.list(SIDECARSETS).filter((x) => !x.metadata.deletionTimestamp && podMatchesSidecarSet(pod, readSidecarSet(x), labels));
          if (candidates.length === 0) return obj;
          const revs = st.list(CONTROLLER_REVISIONS, { namespace: KRUISE_NAMESPACE });
          const matched = candidates.map((x) =>
            readSidecarSet(sidecarSetForInjection(x, revs.filter((r) => r.metadata.labels?.[SIDECARSET_NAME_LABEL] === x.metadata.name), pod, Math.random)),
          );
          return injectSidecarSets(pod, matched) ?? obj;
        },
      },
    ],
  };
}

function revNumber(r: KubeObject): number {
  return (r as { revision?: number }).revision ?? 0;
}

/** A pod write from the controller; a conflict or a pod gone meanwhile is retried by the next event. */
function writePod(store: Store, pod: Pod): Pod | undefined {
  try {
    return store.update(PODS, pod as KubeObject) as Pod;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return undefined;
  }
}

/** The pod's SidecarSetUpgradable condition (a status write), when it changes. */
function markUpgradable(store: Store, pod: Pod, name: string, upgradable: boolean, now: Date): void {
  const cond = upgradableCondition(pod, name, upgradable, now);
  if (!cond) return;
  const status = structuredClone(pod.status ?? {});
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== cond.type), cond];
  try {
    store.updateStatus(PODS, { ...pod, status } as KubeObject);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
  }
}

/** truncateHistory: keep revisionHistoryLimit (default 10, at least 1), never one a pod or the latest uses. */
function truncateHistory(store: Store, obj: KubeObject, ss: SidecarSetView, matched: Pod[], all: KubeObject[], latest: KubeObject): void {
  const limitIn = (obj.spec as { revisionHistoryLimit?: number } | undefined)?.revisionHistoryLimit;
  const limit = Math.max(1, limitIn ?? 10);
  if (all.length <= limit) return;
  const active = new Set(matched.map((p) => podSidecarSetControllerRevision(p, ss.name)).filter(Boolean));
  active.add(latest.metadata.name ?? '');
  let toDelete = all.length - limit;
  for (const r of all.sort((a, b) => revNumber(a) - revNumber(b))) {
    if (toDelete <= 0) break;
    if (active.has(r.metadata.name ?? '')) continue;
    store.delete(CONTROLLER_REVISIONS, r.metadata.namespace, r.metadata.name ?? '');
    toDelete--;
  }
}
