// What `rollout status` reads from pods, pure:
// - `trimPod(pod)`: the few fields the rollout evaluator reads (a 5,000-pod watch keeps only these).
// - `podReadySince(pod)`, `podAvailableAt(pod, minReadySeconds)`: kube's IsPodAvailable arithmetic
//   (Ready for at least minReadySeconds), as the time the pod becomes available.
// - `templateImageMismatch(pod, template)`: a container of the template the pod does not run at the
//   template's image (spec or status), which means the pod is not really at the update revision.
import { SUBSET_NAME_LABEL, UD_REVISION_LABEL } from './rules/uniteddeployment';
import type { ContainerStatus, KubeObject, Pod } from './types';
import { POD_TEMPLATE_HASH_LABEL, REVISION_HASH_LABEL } from './rules/revisions';
import { INPLACE_UPDATE_STATE_ANNOTATION, readInPlaceUpdateState } from './rules/cloneset-inplace';

type TemplateLike = { spec?: { containers?: Array<{ name: string; image?: string }>; initContainers?: Array<{ name: string; image?: string }> } } | undefined;

/** A copy of the pod with only the fields the rollout evaluator reads (nothing empty is kept). */
export function trimPod(pod: Pod): Pod {
  const labels = pod.metadata.labels ?? {};
  const revision = labels[REVISION_HASH_LABEL];
  const templateHash = labels[POD_TEMPLATE_HASH_LABEL];
  const trimStatus = (cs: ContainerStatus): ContainerStatus => {
    const waiting = cs.state?.waiting;
    const out = { name: cs.name, image: cs.image } as ContainerStatus;
    if (cs.imageID) out.imageID = cs.imageID;
    if (waiting) out.state = { waiting: { reason: waiting.reason, message: waiting.message } };
    return out;
  };
  // Kruise's record of an in-place update: which image IDs the containers ran before it
  const inPlace = pod.metadata.annotations?.[INPLACE_UPDATE_STATE_ANNOTATION];
  // A container's status is read for its waiting state (failingContainer) and, after an in-place
  // update, for its image and imageID (templateImageMismatch): a running container of a pod never
  // updated in place is read for nothing.
  const trimStatuses = (list: ContainerStatus[] | undefined): ContainerStatus[] | undefined => {
    const kept = (list ?? []).filter((cs) => inPlace || cs.state?.waiting).map(trimStatus);
    return kept.length ? kept : undefined;
  };
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  const status: NonNullable<Pod['status']> = {};
  if (pod.status?.startTime) status.startTime = pod.status.startTime;
  if (ready) status.conditions = [{ type: 'Ready', status: ready.status, lastTransitionTime: ready.lastTransitionTime }];
  const containerStatuses = trimStatuses(pod.status?.containerStatuses);
  if (containerStatuses) status.containerStatuses = containerStatuses;
  const initContainerStatuses = trimStatuses(pod.status?.initContainerStatuses);
  if (initContainerStatuses) status.initContainerStatuses = initContainerStatuses;
  const metadata: Pod['metadata'] = { name: pod.metadata.name, uid: pod.metadata.uid, creationTimestamp: pod.metadata.creationTimestamp };
  if (revision !== undefined || templateHash !== undefined) {
    metadata.labels = {};
    if (revision !== undefined) metadata.labels[REVISION_HASH_LABEL] = revision;
    if (templateHash !== undefined) metadata.labels[POD_TEMPLATE_HASH_LABEL] = templateHash;
  }
  // UnitedDeployment pods: its revision and the subset (read by the UD adapter's per-subset progress)
  for (const key of [UD_REVISION_LABEL, SUBSET_NAME_LABEL]) {
    const value = labels[key];
    if (value !== undefined) (metadata.labels ??= {})[key] = value;
  }
  if (pod.metadata.deletionTimestamp) metadata.deletionTimestamp = pod.metadata.deletionTimestamp;
  if (inPlace) metadata.annotations = { [INPLACE_UPDATE_STATE_ANNOTATION]: inPlace };
  const spec = { containers: (pod.spec?.containers ?? []).map((c) => ({ name: c.name, image: c.image })) } as Pod['spec'];
  if (pod.spec?.initContainers?.length) spec.initContainers = pod.spec.initContainers.map((c) => ({ name: c.name, image: c.image }));
  return { metadata, spec, status } as Pod;
}

/**
 * What a watch shared by several gates keeps of a pod (src/kube/shared-watches.ts): every label (to
 * match each workload's selector) and the union of what any kind's verdict reads (trimPod, and
 * trimJobPod's phase, node, container ends and restarts); each gate then trims its own copy.
 */
export function trimWatchedPod(item: KubeObject): KubeObject {
  const pod = item as Pod;
  const m = pod.metadata;
  const metadata: Pod['metadata'] = { name: m.name, namespace: m.namespace, uid: m.uid, creationTimestamp: m.creationTimestamp };
  if (m.labels) metadata.labels = m.labels;
  if (m.deletionTimestamp) metadata.deletionTimestamp = m.deletionTimestamp;
  const inPlace = m.annotations?.[INPLACE_UPDATE_STATE_ANNOTATION];
  if (inPlace) metadata.annotations = { [INPLACE_UPDATE_STATE_ANNOTATION]: inPlace };
  const container = (c: { name: string; image?: string }) => ({ name: c.name, image: c.image });
  const spec = { containers: (pod.spec?.containers ?? []).map(container) } as Pod['spec'];
  if (pod.spec?.initContainers?.length) spec.initContainers = pod.spec.initContainers.map(container);
  if (pod.spec?.nodeName) spec.nodeName = pod.spec.nodeName;
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec, status: trimPodEnds(pod) } as KubeObject;
}

/** A container's state as job verdicts read it: waiting reason, or how it ended; ready and restarts. */
export function trimContainerEnd(cs: ContainerStatus): ContainerStatus {
  const out = { name: cs.name, image: cs.image, ready: cs.ready, restartCount: cs.restartCount } as ContainerStatus;
  if (cs.imageID) out.imageID = cs.imageID;
  if (cs.state?.waiting) out.state = { waiting: { reason: cs.state.waiting.reason, message: cs.state.waiting.message } };
  else if (cs.state?.terminated) out.state = { terminated: { exitCode: cs.state.terminated.exitCode, reason: cs.state.terminated.reason } };
  return out;
}

/** A pod's status as job verdicts read it: phase, start, Ready, and each container's end (init containers fail a pod too). */
export function trimPodEnds(pod: Pod): NonNullable<Pod['status']> {
  const status: NonNullable<Pod['status']> = {};
  if (pod.status?.phase) status.phase = pod.status.phase;
  if (pod.status?.startTime) status.startTime = pod.status.startTime;
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready) status.conditions = [{ type: 'Ready', status: ready.status, lastTransitionTime: ready.lastTransitionTime }];
  if (pod.status?.containerStatuses?.length) status.containerStatuses = pod.status.containerStatuses.map(trimContainerEnd);
  if (pod.status?.initContainerStatuses?.length) status.initContainerStatuses = pod.status.initContainerStatuses.map(trimContainerEnd);
  return status;
}

export function isReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** When the pod became ready (ms), or undefined when it is not ready. */
export function podReadySince(pod: Pod): number | undefined {
  const c = pod.status?.conditions?.find((x) => x.type === 'Ready' && x.status === 'True');
  if (!c) return undefined;
  const t = Date.parse(c.lastTransitionTime ?? '');
  return Number.isNaN(t) ? 0 : t;
}

/**
 * When the pod is (or becomes) available: ready for minReadySeconds (k8s podutil.IsPodAvailable;
 * Kruise's IsPodAvailable adds the lifecycle state, not visible to us). Undefined while not ready.
 * A whole-second server stamp may be up to 1 s early, so the last second is added to be sure.
 */
export function podAvailableAt(pod: Pod, minReadySeconds: number): number | undefined {
  const since = podReadySince(pod);
  if (since === undefined) return undefined;
  if (minReadySeconds <= 0) return 0;
  return since + minReadySeconds * 1000 + (since % 1000 === 0 ? 999 : 0);
}

/** docker.io/library/nginx:latest and nginx are the same image to the kubelet. */
export function normalizeImage(image: string): string {
  let s = image.trim();
  if (s.startsWith('docker.io/library/')) s = s.slice('docker.io/library/'.length);
  else if (s.startsWith('docker.io/')) s = s.slice('docker.io/'.length);
  else if (s.startsWith('index.docker.io/library/')) s = s.slice('index.docker.io/library/'.length);
  const lastSlash = s.lastIndexOf('/');
  if (!s.includes('@') && !s.slice(lastSlash + 1).includes(':')) s += ':latest';
  return s;
}

export interface ImageMismatch {
  container: string;
  want: string;
  /** The image the pod runs or asks for. */
  got: string;
}

/**
 * The first container of the template that the pod does not run at the template's image: its
 * spec differs, or an in-place update of it has not taken effect. The latter is Kruise's own
 * CheckInPlaceUpdateCompleted (pkg/util/inplaceupdate/inplace_update_defaults.go): the container's
 * imageID is still the one recorded before the update AND the reported image is not the spec's.
 * A reported image alone proves nothing: runtimes may name an image by another of its tags.
 */
export function templateImageMismatch(pod: Pod, template: TemplateLike): ImageMismatch | undefined {
  // Re-evaluated on every event for thousands of pods: remembered per pod object and template.
  const key = templateKey(template);
  const memo = verdicts.get(pod);
  if (memo && memo.key === key) return memo.mismatch;
  const mismatch = computeMismatch(pod, template);
  verdicts.set(pod, { key, mismatch });
  return mismatch;
}

const verdicts = new WeakMap<Pod, { key: string; mismatch: ImageMismatch | undefined }>();

function templateKey(template: TemplateLike): string {
  const all = [...(template?.spec?.containers ?? []), ...(template?.spec?.initContainers ?? [])];
  return all.map((c) => `${c.name}=${c.image ?? ''}`).join('\u0000');
}

function computeMismatch(pod: Pod, template: TemplateLike): ImageMismatch | undefined {
  const want = [...(template?.spec?.containers ?? []), ...(template?.spec?.initContainers ?? [])];
  if (want.length === 0) return undefined;
  const specImages = new Map([...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].map((c) => [c.name, c.image ?? '']));
  const statuses = new Map([...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])].map((c) => [c.name, c]));
  const before = readInPlaceUpdateState(pod)?.lastContainerStatuses ?? {};
  for (const c of want) {
    if (!c.image) continue;
    const inSpec = specImages.get(c.name);
    if (inSpec === undefined) continue; // a template container the pod lacks: not ours to judge
    if (inSpec !== c.image) return { container: c.name, want: c.image, got: inSpec };
    const st = statuses.get(c.name);
    const lastImageID = before[c.name]?.imageID;
    if (!st?.image || !lastImageID || st.imageID !== lastImageID) continue;
    if (normalizeImage(st.image) !== normalizeImage(c.image)) return { container: c.name, want: c.image, got: st.image };
  }
  return undefined;
}
