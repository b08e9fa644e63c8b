// Kruise SidecarSet rules, part 1: the SidecarSet as the controller and webhooks read it, which pods
// it matches, its revision hashes, and injection into a pod at creation. Facts from Kruise v1.9.0:
// pkg/control/sidecarcontrol/{util.go,hash.go,util_hotupgrade.go}, pkg/webhook/pod/mutating/
// {sidecarset.go,sidecarset_hotupgrade.go}, apis/apps/v1beta1/sidecarset_types.go (v1alpha1 read too).
import { createHash } from 'node:crypto';
import { labelSelectorMatches, type LabelSelector } from '../selectors';
import type { Container, KubeObject, Pod } from '../types';

export const SIDECARSET_HASH_ANNOTATION = 'kruise.io/sidecarset-hash';
export const SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION = 'kruise.io/sidecarset-hash-without-image';
export const SIDECARSET_LIST_ANNOTATION = 'kruise.io/sidecarset-injected-list';
export const SIDECARSET_INPLACE_STATE_ANNOTATION = 'kruise.io/sidecarset-inplace-update-state';
export const SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION = 'kruise.io/sidecarset-working-hotupgrade-container';
/** Label of a SidecarSet's ControllerRevisions (SidecarSetKindName). */
export const SIDECARSET_NAME_LABEL = 'kruise.io/sidecarset-name';
export const SIDECARSET_CUSTOM_VERSION_LABEL = 'apps.kruise.io/sidecarset-custom-version';
export const SIDECAR_INJECTED_ENV = 'IS_INJECTED';
/** kruise-manager's namespace, where SidecarSet ControllerRevisions live (webhookutil.GetNamespace). */
export const KRUISE_NAMESPACE = 'kruise-system';

export const versionAnnotation = (container: string): string => `version.sidecarset.kruise.io/${container}`;
export const versionAltAnnotation = (container: string): string => `versionalt.sidecarset.kruise.io/${container}`;

export interface SidecarContainer extends Container {
  podInjectPolicy?: 'BeforeAppContainer' | 'AfterAppContainer';
  upgradeStrategy?: { upgradeType?: 'ColdUpgrade' | 'HotUpgrade'; hotUpgradeEmptyImage?: string };
  shareVolumePolicy?: { type?: 'enabled' | 'disabled' };
  transferEnv?: Array<{ sourceContainerName?: string; envName?: string; envNames?: string[] }>;
}

export interface SidecarSetUpdateStrategy {
  type?: 'NotUpdate' | 'RollingUpdate';
  paused?: boolean;
  selector?: LabelSelector;
  partition?: number | string;
  maxUnavailable?: number | string;
  priorityStrategy?: { weightPriority?: Array<{ weight: number; matchSelector?: LabelSelector }>; orderPriority?: Array<{ orderedKey: string }> };
  scatterStrategy?: Array<{ key: string; value: string }>;
}

/** A SidecarSet of either version, as the rules use it. */
export interface SidecarSetView {
  name: string;
  generation: number;
  resourceVersion: string;
  /** annotations kruise.io/sidecarset-hash and -without-image (written by the SidecarSet webhook). */
  hash: string;
  hashWithoutImage: string;
  latestRevision: string;
  selector?: LabelSelector;
  /** v1alpha1 spec.namespace (v1beta1 turns it into a namespaceSelector on kubernetes.io/metadata.name). */
  namespace?: string;
  namespaceSelector?: LabelSelector;
  containers: SidecarContainer[];
  initContainers: SidecarContainer[];
  volumes: Array<{ name: string; [k: string]: unknown }>;
  imagePullSecrets: Array<{ name: string }>;
  updateStrategy: SidecarSetUpdateStrategy;
  injectionPaused: boolean;
  patchPodMetadata: Array<{ annotations?: Record<string, string>; patchPolicy?: 'Retain' | 'Overwrite' | 'MergePatchJson' }>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

export function readSidecarSet(obj: KubeObject): SidecarSetView {
  const spec = (isObj(obj.spec) ? obj.spec : {}) as Obj;
  const status = (isObj(obj.status) ? obj.status : {}) as Obj;
  const ann = obj.metadata.annotations ?? {};
  const injection = (isObj(spec.injectionStrategy) ? spec.injectionStrategy : {}) as Obj;
  return {
    name: obj.metadata.name ?? '',
    generation: obj.metadata.generation ?? 0,
    resourceVersion: obj.metadata.resourceVersion ?? '',
    hash: ann[SIDECARSET_HASH_ANNOTATION] ?? '',
    hashWithoutImage: ann[SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION] ?? '',
    latestRevision: typeof status.latestRevision === 'string' ? status.latestRevision : '',
    selector: isObj(spec.selector) ? (spec.selector as LabelSelector) : undefined,
    namespace: typeof spec.namespace === 'string' && spec.namespace ? spec.namespace : undefined,
    namespaceSelector: isObj(spec.namespaceSelector) ? (spec.namespaceSelector as LabelSelector) : undefined,
    containers: arr<SidecarContainer>(spec.containers),
    initContainers: arr<SidecarContainer>(spec.initContainers),
    volumes: arr(spec.volumes),
    imagePullSecrets: arr(spec.imagePullSecrets),
    updateStrategy: (isObj(spec.updateStrategy) ? spec.updateStrategy : {}) as SidecarSetUpdateStrategy,
    injectionPaused: injection.paused === true,
    patchPodMetadata: arr(spec.patchPodMetadata),
  };
}

// ───────────────────────────── hashes (hash.go) ─────────────────────────────

function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (isObj(v)) {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => v[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const safeEncode = (s: string): string => [...s].map((c) => SAFE_ALPHABET[c.charCodeAt(0) % SAFE_ALPHABET.length]).join('');

/** An init container with restartPolicy Always is a native sidecar (IsSidecarContainer). */
export const isNativeSidecar = (c: Container): boolean => c.restartPolicy === 'Always';

function encodeSidecarSet(spec: Obj): string {
  const m: Obj = { containers: arr(spec.containers) };
  const init = arr<Container>(spec.initContainers);
  if (init.some(isNativeSidecar)) m.initContainers = init;
  return stableJson(m);
}

/**
 * SidecarSetHash / SidecarSetHashWithoutImage: sha256 of the containers (and init containers when one is
 * a native sidecar), safe-encoded. Kruise encodes Go structs in field order; we sort keys, so values differ
 * from a real cluster's but change exactly when Kruise's do.
 */
export function sidecarSetHashes(spec: unknown): { hash: string; hashWithoutImage: string } {
  const s = (isObj(spec) ? spec : {}) as Obj;
  const noImage = structuredClone(s);
  for (const key of ['containers', 'initContainers']) for (const c of arr<Container>(noImage[key])) c.image = '';
  const h = (text: string) => safeEncode(createHash('sha256').update(text).digest('hex'));
  return { hash: h(encodeSidecarSet(s)), hashWithoutImage: h(encodeSidecarSet(noImage)) };
}

/** The SidecarSet webhook's SetHashSidecarSet: the object with both hash annotations current. */
export function withSidecarSetHashes(obj: KubeObject): KubeObject {
  const { hash, hashWithoutImage } = sidecarSetHashes(obj.spec);
  const ann = obj.metadata.annotations ?? {};
  if (ann[SIDECARSET_HASH_ANNOTATION] === hash && ann[SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION] === hashWithoutImage) return obj;
  return { ...obj, metadata: { ...obj.metadata, annotations: { ...ann, [SIDECARSET_HASH_ANNOTATION]: hash, [SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION]: hashWithoutImage } } };
}

// ───────────────────────────── matching (util.go) ─────────────────────────────

/** IsActivePod: not Succeeded/Failed and not being deleted. */
export function isActivePod(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

/**
 * PodMatchedSidecarSet: the namespace (spec.namespace, or namespaceSelector on the namespace's labels;
 * `namespaceLabels` returns undefined for a namespace that does not exist) and a non-empty selector that
 * matches the pod's labels.
 */
export function podMatchesSidecarSet(pod: Pod, ss: SidecarSetView, namespaceLabels: (ns: string) => Record<string, string> | undefined): boolean {
  const ns = pod.metadata.namespace || 'default';
  if (ss.namespace && ss.namespace !== ns) return false;
  if (ss.namespaceSelector) {
    const labels = namespaceLabels(ns);
    if (!labels || !labelSelectorMatches(ss.namespaceSelector, labels)) return false;
  }
  const sel = ss.selector;
  const empty = !sel || (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0);
  return !empty && labelSelectorMatches(sel, pod.metadata.labels);
}

// ───────────────────────────── pod annotations ─────────────────────────────

export interface SidecarSetUpgradeSpec {
  updateTimestamp?: string;
  hash: string;
  sidecarSetName?: string;
  sidecarList?: string[];
  controllerRevision?: string;
}

/** The per-SidecarSet map in a hash annotation; the old map[string]string form is read too. */
export function readHashAnnotation(pod: KubeObject, key: string): Record<string, SidecarSetUpgradeSpec> {
  const text = pod.metadata.annotations?.[key];
  if (!text) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!isObj(parsed)) return {};
    const out: Record<string, SidecarSetUpgradeSpec> = {};
    for (const [k, v] of Object.entries(parsed)) out[k] = typeof v === 'string' ? { hash: v } : (v as SidecarSetUpgradeSpec);
    return out;
  } catch {
    return {};
  }
}

export const podSidecarSetHash = (pod: KubeObject, name: string): string => readHashAnnotation(pod, SIDECARSET_HASH_ANNOTATION)[name]?.hash ?? '';
export const podSidecarSetHashWithoutImage = (pod: KubeObject, name: string): string =>
  readHashAnnotation(pod, SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION)[name]?.hash ?? '';
export const podSidecarSetControllerRevision = (pod: KubeObject, name: string): string =>
  readHashAnnotation(pod, SIDECARSET_HASH_ANNOTATION)[name]?.controllerRevision ?? '';

/** IsPodInjectedSidecarSet: the SidecarSet is named in kruise.io/sidecarset-injected-list. */
export function isPodInjected(pod: KubeObject, ss: SidecarSetView): boolean {
  const list = pod.metadata.annotations?.[SIDECARSET_LIST_ANNOTATION];
  return !!list && list.split(',').includes(ss.name);
}

/** GetPodHotUpgradeInfoInAnnotations: sidecar name → the working container of its pair. */
export function hotUpgradeWorkInfo(pod: KubeObject): Record<string, string> {
  try {
    const v = JSON.parse(pod.metadata.annotations?.[SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION] ?? '{}') as unknown;
    return isObj(v) ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

export const isHotUpgrade = (c: SidecarContainer): boolean => c.upgradeStrategy?.upgradeType === 'HotUpgrade';
export const hotUpgradeNames = (name: string): [string, string] => [`${name}-1`, `${name}-2`];

/** GetPodHotUpgradeContainers: the working and the other container of a pair. */
export function hotUpgradeContainers(sidecar: string, pod: KubeObject): { working: string; other: string } {
  const [n1, n2] = hotUpgradeNames(sidecar);
  return hotUpgradeWorkInfo(pod)[sidecar] === n1 ? { working: n1, other: n2 } : { working: n2, other: n1 };
}

/** GetSidecarContainersInPod: the names a SidecarSet's containers take in a pod (both of a hot pair). */
export function sidecarNamesInPod(ss: SidecarSetView): Set<string> {
  const names = new Set<string>();
  for (const c of ss.containers) {
    if (isHotUpgrade(c)) for (const n of hotUpgradeNames(c.name)) names.add(n);
    else names.add(c.name);
  }
  return names;
}

/** IsPodConsistentWithSidecarSet: every sidecar (or both of a hot pair and its annotation) is in the pod. */
export function isPodConsistentWithSidecarSet(pod: Pod, ss: SidecarSetView): boolean {
  const has = (n: string) => pod.spec.containers.some((c) => c.name === n);
  return ss.containers.every((c) => (isHotUpgrade(c) ? c.name in hotUpgradeWorkInfo(pod) && hotUpgradeNames(c.name).every(has) : has(c.name)));
}

// ───────────────────────────── injection (webhook, CREATE) ─────────────────────────────

const SIDECAR_ONLY_FIELDS = ['podInjectPolicy', 'upgradeStrategy', 'shareVolumePolicy', 'shareVolumeDevicePolicy', 'transferEnv', 'resourcesPolicy'];

/** The plain container of a SidecarContainer (its SidecarSet-only fields dropped). */
function plainContainer(c: SidecarContainer): Container {
  const out: Container = { ...(structuredClone(c) as Container) };
  for (const k of SIDECAR_ONLY_FIELDS) delete out[k];
  return out;
}

type EnvVar = NonNullable<Container['env']>[number];

/** util.MergeEnvVar: `extra` entries whose name is not already there, appended. */
function mergeEnv(env: EnvVar[], extra: EnvVar[]): EnvVar[] {
  const names = new Set(env.map((e) => e.name));
  return [...env, ...extra.filter((e) => !names.has(e.name))];
}

/** GetSidecarTransferEnvs (sourceContainerName + envName / envNames): env copied from an app container. */
function transferEnvs(sidecar: SidecarContainer, pod: Pod): EnvVar[] {
  const out: EnvVar[] = [];
  for (const t of sidecar.transferEnv ?? []) {
    const source = pod.spec.containers.find((c) => c.name === t.sourceContainerName);
    const names = t.envName ? [t.envName] : t.envNames ?? [];
    for (const n of names) {
      const e = source?.env?.find((x) => x.name === n);
      if (e) out.push(structuredClone(e));
    }
  }
  return out;
}

type Mount = { name: string; mountPath: string; [k: string]: unknown };

/** GetInjectedVolumeMountsAndEnvs with shareVolumePolicy enabled: the app containers' mounts not clashing by name or path. */
function sharedMounts(sidecar: SidecarContainer, pod: Pod): Mount[] {
  if (sidecar.shareVolumePolicy?.type !== 'enabled') return [];
  const own = arr<Mount>(sidecar.volumeMounts);
  const out: Mount[] = [];
  for (const c of pod.spec.containers) {
    for (const m of arr<Mount>(c.volumeMounts)) {
      if ([...own, ...out].some((x) => x.name === m.name || x.mountPath === m.mountPath)) continue;
      out.push(structuredClone(m));
    }
  }
  return out;
}

function buildSidecar(sidecar: SidecarContainer, pod: Pod): Container {
  const c = plainContainer(sidecar);
  const mounts = [...arr<Mount>(c.volumeMounts), ...sharedMounts(sidecar, pod)];
  if (mounts.length) c.volumeMounts = mounts;
  c.env = mergeEnv([...(c.env ?? []), { name: SIDECAR_INJECTED_ENV, value: 'true' }], transferEnvs(sidecar, pod));
  return c;
}

function versionEnv(name: string): EnvVar[] {
  return [
    { name: 'SIDECARSET_VERSION', valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${versionAnnotation(name)}']` } } },
    { name: 'SIDECARSET_VERSION_ALT', valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${versionAltAnnotation(name)}']` } } },
  ];
}

/**
 * The pod webhook's sidecarsetMutatingPod on CREATE for the matched, non-paused SidecarSets (in list
 * order): init containers (sorted by name, after the pod's own), containers (BeforeAppContainer first,
 * else after; a same-named container is replaced in place), the volumes the sidecars mount, image pull
 * secrets, hot-upgrade pairs (`-1` working, `-2` with the empty image), and the annotations: hash, hash
 * without image, injected list. Returns undefined when nothing is injected.
 */
export function injectSidecarSets(pod: Pod, matched: SidecarSetView[]): Pod | undefined {
  const sets = matched.filter((s) => !s.injectionPaused);
  if (sets.length === 0 || !isActivePod(pod)) return undefined;
  const out = structuredClone(pod);
  const ann = { ...(out.metadata.annotations ?? {}) };
  const hashes = readHashAnnotation(out, SIDECARSET_HASH_ANNOTATION);
  const hashesNoImage = readHashAnnotation(out, SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION);
  const work = hotUpgradeWorkInfo(out);
  const names = new Set((ann[SIDECARSET_LIST_ANNOTATION] ?? '').split(',').filter(Boolean));
  const before: Container[] = [];
  const after: Container[] = [];
  const inits: Container[] = [];
  const volumes: Array<{ name: string }> = [];
  const secrets: Array<{ name: string }> = [];
  for (const ss of sets) {
    names.add(ss.name);
    patchPodMetadata(ann, ss.patchPodMetadata);
    const byName = new Map(ss.volumes.map((v) => [v.name, v]));
    const useVolumes = (c: Container) => {
      for (const m of [...arr<{ name: string }>(c.volumeMounts), ...arr<{ name: string }>(c.volumeDevices)]) {
        const v = byName.get(m.name);
        if (v) volumes.push(structuredClone(v));
      }
    };
    const sidecarList = new Set<string>();
    for (const ic of ss.initContainers) {
      if (isNativeSidecar(ic)) sidecarList.add(ic.name);
      const c = buildSidecar(ic, out);
      useVolumes(c);
      inits.push(c);
    }
    secrets.push(...ss.imagePullSecrets);
    for (const sc of ss.containers) {
      sidecarList.add(sc.name);
      const c = buildSidecar(sc, out);
      useVolumes(c);
      const placed = sc.podInjectPolicy === 'BeforeAppContainer' ? before : after;
      if (isHotUpgrade(sc)) {
        const [n1, n2] = hotUpgradeNames(sc.name);
        const c1 = { ...c, name: n1, env: [...(c.env ?? []), ...versionEnv(n1)] };
        const c2 = { ...structuredClone(c), name: n2, image: sc.upgradeStrategy?.hotUpgradeEmptyImage, env: [...(c.env ?? []), ...versionEnv(n2)] };
        placed.push(c1, c2);
        Object.assign(ann, { [versionAnnotation(n1)]: '1', [versionAltAnnotation(n1)]: '0', [versionAnnotation(n2)]: '0', [versionAltAnnotation(n2)]: '1' });
        work[sc.name] = n1;
        ann[SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION] = JSON.stringify(work);
      } else placed.push(c);
    }
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const list = [...sidecarList].sort();
    hashes[ss.name] = { updateTimestamp: now, hash: ss.hash, sidecarSetName: ss.name, sidecarList: list, ...(ss.latestRevision ? { controllerRevision: ss.latestRevision } : {}) };
    hashesNoImage[ss.name] = { updateTimestamp: now, hash: ss.hashWithoutImage, sidecarSetName: ss.name, sidecarList: list };
  }
  inits.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  out.spec.initContainers = mergeContainers(out.spec.initContainers ?? [], [], inits);
  if (out.spec.initContainers.length === 0) delete out.spec.initContainers;
  out.spec.containers = mergeContainers(out.spec.containers, before, after);
  const podVolumes = arr<{ name: string }>(out.spec.volumes);
  for (const v of volumes) if (!podVolumes.some((p) => p.name === v.name)) podVolumes.push(v);
  if (podVolumes.length) out.spec.volumes = podVolumes;
  const podSecrets = arr<{ name: string }>(out.spec.imagePullSecrets);
  for (const s of secrets) if (!podSecrets.some((p) => p.name === s.name)) podSecrets.push(s);
  if (podSecrets.length) out.spec.imagePullSecrets = podSecrets;
  ann[SIDECARSET_HASH_ANNOTATION] = JSON.stringify(hashes);
  ann[SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION] = JSON.stringify(hashesNoImage);
  ann[SIDECARSET_LIST_ANNOTATION] = [...names].sort().join(',');
  out.metadata = { ...out.metadata, annotations: ann };
  return out;
}

/** mergeSidecarContainers: a same-named container is replaced where it is; others go before/after the app's. */
function mergeContainers(origins: Container[], before: Container[], after: Container[]): Container[] {
  const out = origins.slice();
  const place = (list: Container[]) =>
    list.filter((c) => {
      const i = out.findIndex((o) => o.name === c.name);
      if (i < 0) return true;
      out[i] = c;
      return false;
    });
  const b = place(before);
  const a = place(after);
  return [...b, ...out, ...a];
}

/** RFC 7386 merge of two JSON texts (jsonpatch.MergePatch). */
function mergeJson(origin: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return patch;
  const out: Obj = isObj(origin) ? { ...origin } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergeJson(out[k], v);
  }
  return out;
}

/** PatchPodMetadata: Retain (only absent keys), Overwrite, MergePatchJson (a JSON merge patch on the value). */
export function patchPodMetadata(annotations: Record<string, string>, patches: SidecarSetView['patchPodMetadata']): void {
  for (const p of patches) {
    for (const [k, v] of Object.entries(p.annotations ?? {})) {
      if (p.patchPolicy === 'Overwrite') annotations[k] = v;
      else if (p.patchPolicy === 'MergePatchJson') {
        const origin = annotations[k];
        annotations[k] = origin ? JSON.stringify(mergeJson(JSON.parse(origin) as unknown, JSON.parse(v) as unknown)) : v;
      } else if (!(k in annotations)) annotations[k] = v;
    }
  }
}

// ───────────────────────────── injectionStrategy.revision (webhook getSuitableRevisionSidecarSet) ─────────────────────────────

interface InjectRevision {
  revisionName?: string;
  customVersion?: string;
  policy?: 'Always' | 'Partial';
}

function injectRevisionOf(obj: KubeObject): InjectRevision | undefined {
  const spec = (isObj(obj.spec) ? obj.spec : {}) as Obj;
  const inj = isObj(spec.injectionStrategy) ? spec.injectionStrategy : undefined;
  const rev = inj && isObj(inj.revision) ? (inj.revision as InjectRevision) : undefined;
  return rev && (rev.revisionName || rev.customVersion) ? rev : undefined;
}

/**
 * getControllerRevision: the revision `injectionStrategy.revision` pins (by name, or the newest with the
 * custom-version label), among the SidecarSet's revisions; undefined when none is pinned or found.
 */
export function pinnedRevision(obj: KubeObject, revisions: KubeObject[]): KubeObject | undefined {
  const rev = injectRevisionOf(obj);
  if (!rev) return undefined;
  if (rev.revisionName) return revisions.find((r) => r.metadata.name === rev.revisionName);
  const withVersion = revisions
    .filter((r) => r.metadata.labels?.[SIDECARSET_CUSTOM_VERSION_LABEL] === rev.customVersion)
    .sort((a, b) => ((a as { revision?: number }).revision ?? 0) - ((b as { revision?: number }).revision ?? 0));
  return withVersion[withVersion.length - 1];
}

/** GetHistorySidecarSet: the SidecarSet with the revision's fields ($patch: replace) and hash annotations. */
export function sidecarSetAtRevision(obj: KubeObject, revision: KubeObject): KubeObject {
  const out = structuredClone(obj);
  const data = (revision as { data?: { spec?: Obj } }).data?.spec ?? {};
  const spec = (isObj(out.spec) ? out.spec : {}) as Obj;
  for (const k of ['volumes', 'containers', 'initContainers', 'imagePullSecrets', 'patchPodMetadata']) {
    if (data[k] === undefined || data[k] === null) delete spec[k];
    else spec[k] = structuredClone(data[k]);
  }
  out.spec = spec;
  const computed = sidecarSetHashes(spec);
  const ra = revision.metadata.annotations ?? {};
  out.metadata = {
    ...out.metadata,
    annotations: {
      ...(out.metadata.annotations ?? {}),
      [SIDECARSET_HASH_ANNOTATION]: ra[SIDECARSET_HASH_ANNOTATION] || computed.hash,
      [SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION]: ra[SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION] || computed.hashWithoutImage,
    },
  };
  return out;
}

/**
 * The SidecarSet to inject into a new pod: the pinned revision when updateStrategy is paused or the policy is
 * Always (default); with Partial, a pod outside updateStrategy.selector gets the pinned one, else a percentage
 * partition is the chance (`random()` in [0,1)) of the pinned one (an int partition: the latest).
 */
export function sidecarSetForInjection(obj: KubeObject, revisions: KubeObject[], pod: Pod, random: () => number): KubeObject {
  const rev = injectRevisionOf(obj);
  const pinned = rev ? pinnedRevision(obj, revisions) : undefined;
  if (!rev || !pinned) return obj;
  const specific = sidecarSetAtRevision(obj, pinned);
  const us = readSidecarSet(obj).updateStrategy;
  if (us.paused || rev.policy !== 'Partial') return specific;
  if (us.selector && !labelSelectorMatches(us.selector, pod.metadata.labels)) return specific;
  const p = us.partition;
  if (typeof p !== 'string') return obj;
  const pct = Number.parseFloat(p.replace('%', '')) / 100;
  return random() <= pct ? specific : obj;
}
