// Kruise SidecarSet rules, part 2: in-place sidecar upgrades and status. Facts from Kruise v1.9.0:
// pkg/control/sidecarcontrol/{sidecarset_control.go,util.go,util_hotupgrade.go},
// pkg/controller/sidecarset/{sidecarset_strategy.go,sidecarset_processor.go,sidecarset_hotupgrade.go}.
import { scaleIntOrPercent } from '../intstr';
import { labelSelectorMatches } from '../selectors';
import type { Container, Pod } from '../types';
import { compareUpdatePriority, podUpdatePriority } from './cloneset-plan';
import { scatterSort, type ScatterTerm } from './scatter-sort';
import {
  hotUpgradeContainers,
  hotUpgradeNames,
  hotUpgradeWorkInfo,
  isHotUpgrade,
  patchPodMetadata,
  podSidecarSetHash,
  podSidecarSetHashWithoutImage,
  readHashAnnotation,
  sidecarNamesInPod,
  SIDECARSET_HASH_ANNOTATION,
  SIDECARSET_INPLACE_STATE_ANNOTATION,
  SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION,
  versionAltAnnotation,
  versionAnnotation,
  type SidecarSetView,
} from './sidecarset';

/** IsPodSidecarUpdated: the pod's recorded hash for this SidecarSet is the SidecarSet's. */
export function isPodSidecarUpdated(ss: SidecarSetView, pod: Pod): boolean {
  return podSidecarSetHash(pod, ss.name) === ss.hash;
}

const isDigest = (image: string | undefined): boolean => !!image && /@sha256:[0-9a-f]{64}$/.test(image);
const digestOf = (ref: string | undefined): string => /@(sha256:[0-9a-f]{64})$/.exec(ref ?? '')?.[1] ?? '';

interface InPlaceState {
  revision?: string;
  updateTimestamp?: string;
  lastContainerStatuses?: Record<string, { imageID?: string }>;
}

function inPlaceStates(pod: Pod): Record<string, InPlaceState> | undefined {
  const text = pod.metadata.annotations?.[SIDECARSET_INPLACE_STATE_ANNOTATION];
  if (text === undefined) return {};
  try {
    return JSON.parse(text) as Record<string, InPlaceState>;
  } catch {
    return undefined;
  }
}

/**
 * IsPodStateConsistent: every sidecar's status agrees with its spec: by digest when all sidecar images
 * are digests, else (IsSidecarContainerUpdateCompleted) no sidecar whose spec image differs from its
 * status image still shows the imageID recorded before the in-place update.
 */
export function isPodStateConsistent(pod: Pod, ss: SidecarSetView, only?: Set<string>): boolean {
  const statuses = pod.status?.containerStatuses ?? [];
  if (pod.spec.containers.length !== statuses.length) return false;
  const names = only && only.size > 0 ? only : sidecarNamesInPod(ss);
  const imageIDs = new Map(statuses.map((s) => [s.name, s.imageID ?? '']));
  let allDigest = true;
  for (const c of pod.spec.containers) {
    if (!names.has(c.name)) continue;
    if (!isDigest(c.image)) {
      allDigest = false;
      break;
    }
    const id = imageIDs.get(c.name);
    if (id === undefined || digestOf(c.image) !== digestOf(id)) return false;
  }
  if (allDigest) return true;
  const states = inPlaceStates(pod);
  if (!states) return false;
  const last: Record<string, { imageID?: string }> = { ...(states[ss.name]?.lastContainerStatuses ?? {}) };
  const specImages = new Map(pod.spec.containers.map((c) => [c.name, c.image]));
  for (const cs of statuses) {
    if (!names.has(cs.name)) continue;
    const old = last[cs.name];
    if (old && old.imageID === cs.imageID && specImages.get(cs.name) !== cs.image) return false;
  }
  return true;
}

/** IsPodReady: empty hot-upgrade containers run the empty image, and the pod is Running and Ready. */
export function isSidecarPodReady(pod: Pod, ss: SidecarSetView): boolean {
  for (const sc of ss.containers) {
    if (!isHotUpgrade(sc)) continue;
    const empty = sc.upgradeStrategy?.hotUpgradeEmptyImage;
    const { other } = hotUpgradeContainers(sc.name, pod);
    const c = pod.spec.containers.find((x) => x.name === other);
    if (empty && c && c.image !== empty) return false;
  }
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  return pod.status?.phase === 'Running' && ready?.status === 'True';
}

/** IsSidecarSetUpgradable → canUpgrade (only images changed) and consistent (no sidecar mid-upgrade). */
export function sidecarSetUpgradable(ss: SidecarSetView, pod: Pod): { canUpgrade: boolean; consistent: boolean } {
  if (podSidecarSetHashWithoutImage(pod, ss.name) !== ss.hashWithoutImage) return { canUpgrade: false, consistent: false };
  const ready = new Map((pod.status?.containerStatuses ?? []).map((s) => [s.name, s.ready]));
  for (const name of [...sidecarNamesInPod(ss)].sort()) {
    if (ready.get(name) && !isPodStateConsistent(pod, ss, new Set([name]))) return { canUpgrade: true, consistent: false };
  }
  return { canUpgrade: true, consistent: true };
}

// ───────────────────────────── order (kubecontroller.ActivePods) ─────────────────────────────

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
const timeOf = (t: string | undefined): number => (t ? Date.parse(t) : NaN);

/**
 * ActivePods.Less: unassigned < assigned, Pending < Unknown < Running, not ready < ready, ready for less
 * time < more, more restarts < fewer, newer < older (empty creation time first).
 */
export function activePodsLess(a: Pod, b: Pod): number {
  const assigned = (p: Pod) => (p.spec.nodeName ? 1 : 0);
  if (assigned(a) !== assigned(b)) return assigned(a) - assigned(b);
  const phase = (p: Pod) => PHASE_RANK[p.status?.phase ?? ''] ?? 1;
  if (phase(a) !== phase(b)) return phase(a) - phase(b);
  const readyCond = (p: Pod) => p.status?.conditions?.find((c) => c.type === 'Ready');
  const isReady = (p: Pod) => (readyCond(p)?.status === 'True' ? 1 : 0);
  if (isReady(a) !== isReady(b)) return isReady(a) - isReady(b);
  if (isReady(a) && isReady(b)) {
    const ta = timeOf(readyCond(a)?.lastTransitionTime);
    const tb = timeOf(readyCond(b)?.lastTransitionTime);
    if (ta !== tb && !(Number.isNaN(ta) && Number.isNaN(tb))) {
      if (Number.isNaN(ta)) return -1;
      if (Number.isNaN(tb)) return 1;
      return tb - ta; // ready later (less time) first
    }
  }
  const restarts = (p: Pod) => Math.max(0, ...(p.status?.containerStatuses ?? []).map((s) => s.restartCount ?? 0));
  if (restarts(a) !== restarts(b)) return restarts(b) - restarts(a);
  const ca = timeOf(a.metadata.creationTimestamp);
  const cb = timeOf(b.metadata.creationTimestamp);
  if (ca !== cb && !(Number.isNaN(ca) && Number.isNaN(cb))) {
    if (Number.isNaN(ca)) return -1;
    if (Number.isNaN(cb)) return 1;
    return cb - ca;
  }
  return 0;
}

/** parseUpdateScatterTerms: `key=*` becomes one term per value found on the pods. */
export function scatterTerms(terms: ScatterTerm[], pods: Pod[]): ScatterTerm[] {
  const out: ScatterTerm[] = [];
  const add = (t: ScatterTerm) => {
    if (!out.some((o) => o.key === t.key && o.value === t.value)) out.push(t);
  };
  for (const t of terms) {
    if (t.value !== '*') add(t);
    else for (const p of pods) if (p.metadata.labels && t.key in p.metadata.labels) add({ key: t.key, value: p.metadata.labels[t.key] });
  }
  return out;
}

/** SortUpdateIndexes: ActivePods order, then priorityStrategy (stable), then scatterStrategy. */
export function sortUpdateIndexes(ss: SidecarSetView, pods: Pod[], indexes: number[]): number[] {
  let out = indexes.slice().sort((i, j) => activePodsLess(pods[i], pods[j]));
  const prio = ss.updateStrategy.priorityStrategy;
  if (prio) {
    const rank = new Map(out.map((i) => [i, podUpdatePriority(prio, pods[i].metadata.labels ?? {})]));
    out.sort((i, j) => compareUpdatePriority(rank.get(i), rank.get(j)));
  }
  const scatter = ss.updateStrategy.scatterStrategy;
  if (scatter?.length) out = scatterSort(scatterTerms(scatter, pods), pods.map((p) => p.metadata.labels ?? {}), out);
  return out;
}

/** util.CalculatePartitionReplicas: rounds up, and a percentage below 100% updates at least one of >1 pods. */
export function partitionPods(partition: number | string | undefined, total: number): number {
  if (partition === undefined || partition === null) return 0;
  const r = scaleIntOrPercent(partition, total, true);
  let kept = r.ok ? r.value.value : 0;
  if (total > 1 && kept === total && typeof partition === 'string' && partition !== '100%') kept = total - 1;
  return Math.max(0, Math.min(kept, total));
}

/** maxUnavailable scaled on the matched pods, rounding up (default 1). */
export function maxUnavailablePods(value: number | string | undefined, total: number): number {
  if (value === undefined || value === null) return 1;
  const r = scaleIntOrPercent(value, total, true);
  return r.ok ? r.value.value : 1;
}

/** GetValueFromIntOrPercent(value, total, false) as the releases before kruise#1834 read it; `absent` when unset. */
function roundedDown(value: number | string | undefined, total: number, absent: number): number {
  if (value === undefined || value === null) return absent;
  const r = scaleIntOrPercent(value, total, false);
  return r.ok ? r.value.value : 0;
}

export interface UpgradePlan {
  /** Pods to upgrade now, in order. */
  upgrade: Pod[];
  /** Pods whose SidecarSet changed more than images (SidecarSetUpgradable=False). */
  notUpgradable: Pod[];
  /** Pods left at the old revision by the partition (the last ones of the sorted waiting list). */
  partitioned: number;
  maxUnavailable: number;
}

/**
 * How kruise-manager scales the partition and maxUnavailable against the matched pods
 * (sidecarset_strategy.go calculateUpgradeCount): up to v1.7.4 both with GetValueFromIntOrPercent(..., false),
 * rounding down, so a percentage of a few pods is 0 and the upgrade never moves (kruise#1812); from v1.7.5 and
 * v1.8.0 on (kruise#1834) maxUnavailable rounds up and the partition is util.CalculatePartitionReplicas.
 */
export interface UpgradeRounding {
  /** The releases before kruise#1834 (of the sandbox's, v1.3). */
  roundDown?: boolean;
}

/** A release's rounding (UpgradeRounding). */
export function sidecarSetRounding(release: 'v1.3' | 'v1.8' | 'v1.9' | 'master'): UpgradeRounding {
  return { roundDown: release === 'v1.3' };
}

/** GetNextUpgradePods + calculateUpgradeCount. `pods` are the matched pods (getMatchingPods). */
export function nextUpgradePods(ss: SidecarSetView, pods: Pod[], rounding: UpgradeRounding = {}): UpgradePlan {
  const strategy = ss.updateStrategy;
  const selected = (p: Pod) => !strategy.selector || labelSelectorMatches(strategy.selector, p.metadata.labels);
  let waiting: number[] = [];
  const notUpgradable: Pod[] = [];
  pods.forEach((pod, i) => {
    if (isPodSidecarUpdated(ss, pod) || !selected(pod)) return;
    const { canUpgrade, consistent } = sidecarSetUpgradable(ss, pod);
    if (canUpgrade && consistent) waiting.push(i);
    else if (!canUpgrade) notUpgradable.push(pod);
  });
  waiting = sortUpdateIndexes(ss, pods, waiting);
  const total = pods.length;
  const partition = rounding.roundDown ? roundedDown(strategy.partition, total, 0) : partitionPods(strategy.partition, total);
  const maxUnavailable = rounding.roundDown ? roundedDown(strategy.maxUnavailable, total, 1) : maxUnavailablePods(strategy.maxUnavailable, total);
  const base = { notUpgradable, partitioned: Math.min(partition, waiting.length), maxUnavailable };
  if (waiting.length - partition <= 0) return { upgrade: [], ...base };
  const candidates = waiting.slice(0, waiting.length - partition);
  let unavailable = pods.filter((p) => isPodSidecarUpdated(ss, p) && (!isPodStateConsistent(p, ss) || !isSidecarPodReady(p, ss))).length;
  const upgrade: Pod[] = [];
  for (const i of candidates) {
    if (!isSidecarPodReady(pods[i], ss)) {
      upgrade.push(pods[i]); // a pod not ready anyway costs no availability
      continue;
    }
    if (unavailable >= maxUnavailable) break;
    unavailable++;
    upgrade.push(pods[i]);
  }
  return { upgrade, ...base };
}

export interface SidecarSetStatus {
  observedGeneration: number;
  matchedPods: number;
  updatedPods: number;
  readyPods: number;
  updatedReadyPods: number;
  latestRevision?: string;
  collisionCount?: number;
}

/** calculateStatus: ready = state consistent and ready; updated = hash matches. */
export function sidecarSetStatus(ss: SidecarSetView, pods: Pod[], latestRevision?: string, collisionCount?: number): SidecarSetStatus {
  let updatedPods = 0;
  let readyPods = 0;
  let updatedReadyPods = 0;
  for (const p of pods) {
    const updated = isPodSidecarUpdated(ss, p);
    if (updated) updatedPods++;
    if (isPodStateConsistent(p, ss) && isSidecarPodReady(p, ss)) {
      readyPods++;
      if (updated) updatedReadyPods++;
    }
  }
  return {
    observedGeneration: ss.generation,
    matchedPods: pods.length,
    updatedPods,
    readyPods,
    updatedReadyPods,
    ...(latestRevision ? { latestRevision } : {}),
    ...(collisionCount !== undefined ? { collisionCount } : {}),
  };
}

/**
 * updatePodSidecarContainer + UpdatePodSidecarSetHash + UpdatePodAnnotationsInUpgrade: the pod with each
 * sidecar's image set in place (a hot pair upgrades its idle container and makes it the working one), the
 * hash annotation current, patchPodMetadata applied, and the imageIDs before the update recorded in the in-place state annotation.
 */
export function upgradePodSidecars(ss: SidecarSetView, pod: Pod, now: Date): Pod {
  const out = structuredClone(pod);
  const ann = { ...(out.metadata.annotations ?? {}) };
  const changed: string[] = [];
  const find = (name: string): Container | undefined => out.spec.containers.find((c) => c.name === name);
  for (const sc of ss.containers) {
    let target: string;
    let oldImage: string | undefined;
    if (isHotUpgrade(sc)) {
      const { toUpgrade, other } = hotContainerToUpgrade(sc.name, sc.upgradeStrategy?.hotUpgradeEmptyImage, out, ss);
      target = toUpgrade;
      oldImage = find(other)?.image;
      if (sc.image === oldImage) continue;
      const c = find(target);
      if (!c) continue;
      c.image = sc.image;
      const work = hotUpgradeWorkInfo(out);
      work[sc.name] = target;
      ann[SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION] = JSON.stringify(work);
      ann[versionAltAnnotation(target)] = ann[versionAnnotation(other)] ?? '';
      ann[versionAnnotation(target)] = ss.resourceVersion;
      ann[versionAltAnnotation(other)] = ss.resourceVersion;
    } else {
      target = sc.name;
      const c = find(target);
      oldImage = c?.image;
      if (!c || sc.image === oldImage) continue;
      c.image = sc.image;
    }
    changed.push(target);
  }
  const hashes = readHashAnnotation(out, SIDECARSET_HASH_ANNOTATION);
  const ts = now.toISOString().replace(/\.\d+Z$/, 'Z');
  hashes[ss.name] = {
    updateTimestamp: ts,
    hash: ss.hash,
    sidecarSetName: ss.name,
    sidecarList: ss.containers.map((c) => c.name).sort(),
    ...(ss.latestRevision ? { controllerRevision: ss.latestRevision } : {}),
  };
  ann[SIDECARSET_HASH_ANNOTATION] = JSON.stringify(hashes);
  let states: Record<string, InPlaceState> = {};
  try {
    states = JSON.parse(ann[SIDECARSET_INPLACE_STATE_ANNOTATION] ?? '{}') as Record<string, InPlaceState>;
  } catch {
    states = {};
  }
  const state = states[ss.name] ?? { revision: ss.hash, updateTimestamp: ts };
  state.lastContainerStatuses ??= {};
  const ids = new Map((pod.status?.containerStatuses ?? []).map((s) => [s.name, s.imageID ?? '']));
  for (const name of changed) state.lastContainerStatuses[name] = { imageID: ids.get(name) ?? '' };
  states[ss.name] = state;
  ann[SIDECARSET_INPLACE_STATE_ANNOTATION] = JSON.stringify(states);
  patchPodMetadata(ann, ss.patchPodMetadata); // updatePodSidecarAndHash patches the pod metadata too
  out.metadata = { ...out.metadata, annotations: ann };
  return out;
}

/** findContainerToHotUpgrade: the container running the empty image, else the not-ready one, else the idle one. */
function hotContainerToUpgrade(sidecar: string, emptyImage: string | undefined, pod: Pod, ss: SidecarSetView): { toUpgrade: string; other: string } {
  const [n1, n2] = hotUpgradeNames(sidecar);
  const image = (n: string) => pod.spec.containers.find((c) => c.name === n)?.image;
  if (image(n1) === emptyImage) return { toUpgrade: n1, other: n2 };
  if (image(n2) === emptyImage) return { toUpgrade: n2, other: n1 };
  const ready = (n: string) => !!pod.status?.containerStatuses?.find((s) => s.name === n)?.ready && isPodStateConsistent(pod, ss, new Set([n]));
  if (ready(n1) && !ready(n2)) return { toUpgrade: n2, other: n1 };
  if (!ready(n1) && ready(n2)) return { toUpgrade: n1, other: n2 };
  const { working, other } = hotUpgradeContainers(sidecar, pod);
  return { toUpgrade: other, other: working };
}

/**
 * sidecarset_hotupgrade.go flipHotUpgradingContainers: once a pod runs the new working container (updated,
 * consistent, ready) while the idle one of a pair still runs an old image, that idle container is reset to
 * hotUpgradeEmptyImage. Returns the pod to write, or undefined when nothing needs the reset.
 */
export function resetIdleHotUpgradeContainers(ss: SidecarSetView, pod: Pod): Pod | undefined {
  const hot = ss.containers.filter(isHotUpgrade);
  if (hot.length === 0 || !isPodSidecarUpdated(ss, pod)) return undefined;
  const names = sidecarNamesInPod(ss);
  for (const sc of hot) names.delete(hotUpgradeContainers(sc.name, pod).other);
  if (!isPodStateConsistent(pod, ss, names)) return undefined;
  const ready = new Map((pod.status?.containerStatuses ?? []).map((s) => [s.name, s.ready]));
  if (![...names].every((n) => ready.get(n))) return undefined;
  const out = structuredClone(pod);
  let changed = false;
  for (const sc of hot) {
    const empty = sc.upgradeStrategy?.hotUpgradeEmptyImage;
    const c = out.spec.containers.find((x) => x.name === hotUpgradeContainers(sc.name, pod).other);
    if (empty && c && c.image !== empty) {
      c.image = empty;
      changed = true;
    }
  }
  return changed ? out : undefined;
}

export const SIDECARSET_UPGRADABLE_CONDITION = 'SidecarSetUpgradable';
type PodCondition = NonNullable<NonNullable<Pod['status']>['conditions']>[number];

/**
 * updatePodSidecarSetUpgradableCondition: the pod's SidecarSetUpgradable condition with this SidecarSet's
 * verdict in its JSON message ({"log":true,...}); True (AllSidecarsetUpgradable) only when every SidecarSet
 * named there can upgrade, else False (UpdateImmutableField). Undefined when the condition would not change.
 */
export function upgradableCondition(pod: Pod, sidecarSet: string, upgradable: boolean, now: Date): PodCondition | undefined {
  const old = pod.status?.conditions?.find((c) => c.type === SIDECARSET_UPGRADABLE_CONDITION);
  let kv: Record<string, unknown> = {};
  try {
    if (old?.message) kv = JSON.parse(old.message) as Record<string, unknown>;
  } catch {
    return undefined; // Kruise gives up on a message it cannot parse
  }
  kv[sidecarSet] = upgradable;
  const all = Object.values(kv).every((v) => v !== false);
  const message = JSON.stringify(Object.fromEntries(Object.entries(kv).sort(([a], [b]) => (a < b ? -1 : 1))));
  const next: PodCondition = {
    type: SIDECARSET_UPGRADABLE_CONDITION,
    status: all ? 'True' : 'False',
    reason: all ? 'AllSidecarsetUpgradable' : 'UpdateImmutableField',
    message,
    lastTransitionTime: old && old.status === (all ? 'True' : 'False') ? old.lastTransitionTime : now.toISOString().replace(/\.\d+Z$/, 'Z'),
  };
  if (old && old.status === next.status && old.reason === next.reason && old.message === next.message) return undefined;
  return next;
}
