// StatefulSet controller (apps/v1): pods `<name>-<ordinal>` with stable names, OrderedReady
// (one at a time, each Running and Ready before the next; scale down from the highest) or
// Parallel; RollingUpdate with the partition as an ordinal (pods with ordinal >= partition are
// updated, highest first, one at a time) or OnDelete; ControllerRevisions `<sts>-<hash>`, the
// `controller-revision-hash` and `statefulset.kubernetes.io/pod-name` pod labels, and status as
// `kubectl rollout status statefulset/x` reads it.
import type { KubeObject, Pod, PodTemplate } from '../../kruise/types';
import { templateOfRevision, type ControllerRevision } from '../../kruise/rules/revisions';
import type { ControllerWithAdmission, GroupResource, Store } from '../store-api';
import { semanticForm } from './hash';
import { Informer } from './informer';
import { ownedRevisions, syncUpdateRevision } from './native-revisions';
import { pruneRevisions } from './revisions';
import {
  CONTROLLER_REVISIONS,
  PODS,
  controllerOf,
  isPodReady,
  keyOf,
  newPodFromTemplate,
  type LabelSelector,
} from './pods';
import { nativeController } from './native-wiring';
import type { WorkQueue } from './queue';
import { countAvailable, writeStatusIfChanged } from './workload-status';

export const STATEFULSETS: GroupResource = { group: 'apps', resource: 'statefulsets' };
export const PERSISTENT_VOLUME_CLAIMS: GroupResource = { group: '', resource: 'persistentvolumeclaims' };
export const REVISION_LABEL = 'controller-revision-hash';
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

interface StatefulSetSpec {
  replicas?: number;
  serviceName?: string;
  selector?: LabelSelector;
  template?: PodTemplate;
  podManagementPolicy?: 'OrderedReady' | 'Parallel';
  updateStrategy?: { type?: 'RollingUpdate' | 'OnDelete'; rollingUpdate?: { partition?: number } };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  ordinals?: { start?: number };
  volumeClaimTemplates?: Array<{ metadata?: { name?: string; labels?: Record<string, string> }; spec?: { accessModes?: string[]; resources?: { requests?: Record<string, string> } } & Record<string, unknown> }>;
}

interface StatefulSetStatus {
  currentRevision?: string;
  updateRevision?: string;
  collisionCount?: number;
}

/** The ordinal of a StatefulSet pod name `<sts>-<n>`, or -1. */
export function ordinalOf(stsName: string, podName: string): number {
  if (!podName.startsWith(`${stsName}-`)) return -1;
  const rest = podName.slice(stsName.length + 1);
  return /^\d+$/.test(rest) ? Number(rest) : -1;
}

/**
 * The claims of a StatefulSet pod (`<template>-<pod>`), created Bound when missing, and the
 * pod's volumes pointing at them, as the StatefulSet controller does. Claims are retained
 * (persistentVolumeClaimRetentionPolicy Retain, the default). Shared with Advanced StatefulSet.
 */
export function ensurePersistentVolumeClaims(store: Store, sts: KubeObject, pod: Pod): void {
  const spec = (sts.spec ?? {}) as StatefulSetSpec;
  const podName = pod.metadata.name ?? '';
  for (const vct of spec.volumeClaimTemplates ?? []) {
    const template = vct.metadata?.name ?? '';
    const claimName = `${template}-${podName}`;
    if (!store.get(PERSISTENT_VOLUME_CLAIMS, pod.metadata.namespace, claimName)) {
      const claim = store.create(PERSISTENT_VOLUME_CLAIMS, {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: claimName, namespace: pod.metadata.namespace, labels: { ...(spec.selector?.matchLabels ?? {}), ...(vct.metadata?.labels ?? {}) } },
        spec: { volumeMode: 'Filesystem', ...structuredClone(vct.spec ?? {}), volumeName: `pvc-${claimName}` },
      });
      store.updateStatus(PERSISTENT_VOLUME_CLAIMS, {
        ...claim,
        status: { phase: 'Bound', accessModes: vct.spec?.accessModes ?? ['ReadWriteOnce'], capacity: { storage: vct.spec?.resources?.requests?.storage ?? '1Gi' } },
      });
    }
    const volumes = ((pod.spec.volumes as Array<{ name: string }> | undefined) ?? []).filter((v) => v.name !== template);
    volumes.push({ name: template, persistentVolumeClaim: { claimName } } as { name: string });
    pod.spec.volumes = volumes;
  }
}

export function createStatefulSetController(): ControllerWithAdmission {
  let store: Store;
  const sets = new Informer(STATEFULSETS);
  const pods = new Informer<Pod>(PODS);
  const revisions = new Informer(CONTROLLER_REVISIONS);
  let queue: WorkQueue;

  function newPod(sts: KubeObject, spec: StatefulSetSpec, ordinal: number, rev: ControllerRevision): Pod {
    const name = `${sts.metadata.name}-${ordinal}`;
    const template = (templateOfRevision(rev) ?? spec.template) as PodTemplate;
    const pod = newPodFromTemplate(template, sts, {
      name,
      labels: { [REVISION_LABEL]: rev.metadata.name ?? '', [POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(ordinal) },
    });
    pod.spec.hostname = name;
    if (spec.serviceName) pod.spec.subdomain = spec.serviceName;
    ensurePersistentVolumeClaims(store, sts, pod);
    return pod;
  }

  function reconcile(key: string): void {
    const sts = sets.get(key);
    if (!sts || sts.metadata.deletionTimestamp || !(sts.spec as StatefulSetSpec | undefined)?.template) return;
    const spec = sts.spec as StatefulSetSpec;
    const name = sts.metadata.name ?? '';
    const replicas = spec.replicas ?? 1;
    const start = spec.ordinals?.start ?? 0;
    const parallel = spec.podManagementPolicy === 'Parallel';
    const rolling = (spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
    const partition = rolling ? spec.updateStrategy?.rollingUpdate?.partition ?? 0 : 0;
    const oldStatus = (sts.status ?? {}) as StatefulSetStatus;

    const { update, all } = syncUpdateRevision(store, revisions, sts, semanticForm(spec.template!), oldStatus.collisionCount ?? 0);
    const updateName = update.metadata.name ?? '';
    const currentName = oldStatus.currentRevision && all.some((r) => r.metadata.name === oldStatus.currentRevision) ? oldStatus.currentRevision : updateName;
    const current = all.find((r) => r.metadata.name === currentName) ?? update;

    const owned = pods.ownedBy(sts.metadata.uid).filter((p) => controllerOf(p)?.uid === sts.metadata.uid);
    const byOrdinal = new Map<number, Pod>();
    for (const p of owned) {
      const o = ordinalOf(name, p.metadata.name ?? '');
      if (o >= 0) byOrdinal.set(o, p);
    }
    const inRange = (o: number) => o >= start && o < start + replicas;

    // Create missing pods (and replace failed ones); OrderedReady waits for each predecessor.
    let blocked = false;
    for (let o = start; o < start + replicas && !blocked; o++) {
      const p = byOrdinal.get(o);
      if (!p) {
        const rev = rolling && o < partition ? current : update;
        store.create(PODS, newPod(sts, spec, o, rev));
        if (!parallel) blocked = true;
        continue;
      }
      if (p.status?.phase === 'Failed' || p.status?.phase === 'Succeeded') {
        if (!p.metadata.deletionTimestamp) store.delete(PODS, p.metadata.namespace, p.metadata.name ?? '');
        if (!parallel) blocked = true;
        continue;
      }
      if (!parallel && (p.metadata.deletionTimestamp || !isPodReady(p))) blocked = true;
    }

    // Scale down: condemned ordinals, highest first; OrderedReady one at a time once all others are ready.
    const condemned = [...byOrdinal.entries()].filter(([o]) => !inRange(o)).sort((a, b) => b[0] - a[0]);
    if (condemned.length > 0 && !blocked) {
      for (const [, p] of parallel ? condemned : condemned.slice(0, 1)) {
        if (!p.metadata.deletionTimestamp) store.delete(PODS, p.metadata.namespace, p.metadata.name ?? '');
      }
      if (!parallel) blocked = true;
    }

    // Rolling update: highest ordinal first, down to the partition, one pod at a time.
    if (rolling && !blocked) {
      const live = [...byOrdinal.entries()].filter(([o]) => inRange(o)).sort((a, b) => b[0] - a[0]);
      const allHealthy = live.length === replicas && live.every(([, p]) => isPodReady(p) && !p.metadata.deletionTimestamp);
      if (allHealthy) {
        const target = live.find(([o, p]) => o >= partition && p.metadata.labels?.[REVISION_LABEL] !== updateName);
        if (target) store.delete(PODS, target[1].metadata.namespace, target[1].metadata.name ?? '');
      }
    }

    writeStatus(sts, spec, currentName, updateName, rolling);
    const inUse = new Set<string>([currentName, updateName]);
    for (const p of pods.ownedBy(sts.metadata.uid)) if (p.metadata.labels?.[REVISION_LABEL]) inUse.add(p.metadata.labels[REVISION_LABEL]);
    pruneRevisions(store, ownedRevisions(revisions, sts), inUse, spec.revisionHistoryLimit ?? 10);
  }

  function writeStatus(sts: KubeObject, spec: StatefulSetSpec, currentName: string, updateName: string, rolling: boolean): void {
    const now = Date.now();
    const minReady = spec.minReadySeconds ?? 0;
    const live = pods.ownedBy(sts.metadata.uid).filter((p) => controllerOf(p)?.uid === sts.metadata.uid && !p.metadata.deletionTimestamp);
    const replicas = spec.replicas ?? 1;
    const { available, recheckMs } = countAvailable(live, minReady, now);
    const status: Record<string, unknown> = {
      observedGeneration: sts.metadata.generation,
      replicas: live.length,
      readyReplicas: live.filter(isPodReady).length,
      availableReplicas: available,
      currentReplicas: live.filter((p) => p.metadata.labels?.[REVISION_LABEL] === currentName).length,
      updatedReplicas: live.filter((p) => p.metadata.labels?.[REVISION_LABEL] === updateName).length,
      currentRevision: currentName,
      updateRevision: updateName,
      collisionCount: ((sts.status ?? {}) as StatefulSetStatus).collisionCount ?? 0,
    };
    // completeRollingUpdate: everything updated and ready → the update revision becomes current.
    if (rolling && status.updatedReplicas === replicas && status.readyReplicas === replicas && status.replicas === replicas) {
      status.currentRevision = updateName;
      status.currentReplicas = status.updatedReplicas;
    }
    writeStatusIfChanged(store, STATEFULSETS, sts, status, ['readyReplicas', 'currentReplicas', 'updatedReplicas']);
    if (recheckMs > 0) queue.addAfter(keyOf(sts), recheckMs + 5);
  }

  return nativeController({
    name: 'statefulset',
    workloads: sets,
    owned: [revisions, pods],
    owner: { kind: 'StatefulSet', apiVersion: 'apps/v1' },
    attach: (s, q) => {
      store = s;
      queue = q;
    },
    reconcile,
  });
}
