// ImagePullJob and ImageListPullJob: Kruise's webhook rules (image reference, selector vs
// podSelector, completionPolicy) and a simulation of its controller + node daemons: target
// nodes from selector.names / a node label selector / the nodes of pods matching podSelector
// (all nodes without a selector), at most `parallelism` pulls at once, each taking the ready
// delay (5x for a `slow` tag), `fail-pull` images failing every attempt until backoffLimit, then
// the node is in failedNodes. Status and messages as Kruise writes them; completionPolicy
// Always/Never, activeDeadlineSeconds, ttlSecondsAfterFinished. An ImageListPullJob owns one
// ImagePullJob per image and aggregates them. Rules: src/kruise/rules/imagepull.
import { labelSelectorMatches } from '../../kruise/selectors';
import type { KubeObject, Pod } from '../../kruise/types';
import {
  calculatePullJobStatus,
  imageListPullJobCounts,
  imagePullDefaults,
  validateImageListPullJobSpec,
  validateImagePullJobSpec,
  type ImageListPullJobSpec,
  type ImagePullJobSpec,
  type ImagePullJobStatus,
  type ImagePullProblem,
} from '../../kruise/rules/imagepull';
import { ApiError } from '../server/errors';
import type { AdmissionHook, ControllerWithAdmission, GroupResource, SimulationSettings, Store } from '../store-api';
import { canonicalJson } from '../canonical-json';
import { templateHash } from './hash';
import { Informer } from './informer';
import { imageBehaviour, imageDelayMs } from './kubelet';
import { NODES, PODS, controllerOf, controllerRef, isPodActive, keyOf, kubeTime, objectKey, parseKubeTime } from './pods';
import { WorkQueue } from './queue';

export const IMAGE_PULL_JOBS: GroupResource = { group: 'apps.kruise.io', resource: 'imagepulljobs' };
export const IMAGE_LIST_PULL_JOBS: GroupResource = { group: 'apps.kruise.io', resource: 'imagelistpulljobs' };

function reject(kind: string, obj: KubeObject, problems: ImagePullProblem[]): never {
  throw ApiError.invalid('apps.kruise.io', kind, obj.metadata.name ?? obj.metadata.generateName ?? '', problems.map((p) => ({ field: p.field, message: p.message, reason: 'FieldValueInvalid' })));
}

function immutablePullSecrets(kind: string, obj: KubeObject, old: KubeObject | undefined): void {
  const a = (obj.spec as { pullSecrets?: unknown } | undefined)?.pullSecrets;
  const b = (old?.spec as { pullSecrets?: unknown } | undefined)?.pullSecrets;
  if (old && canonicalJson(a ?? null) !== canonicalJson(b ?? null)) reject(kind, obj, [{ field: 'spec.pullSecrets', message: 'Forbidden: pullSecrets is immutable' }]);
}

export const imagePullJobAdmission: AdmissionHook = {
  gr: IMAGE_PULL_JOBS,
  operations: ['CREATE', 'UPDATE'],
  admit(op, obj, old) {
    const problems = validateImagePullJobSpec((obj.spec ?? {}) as ImagePullJobSpec);
    if (problems.length > 0) reject('ImagePullJob', obj, problems);
    if (op === 'UPDATE') immutablePullSecrets('ImagePullJob', obj, old);
    return obj;
  },
};

export const imageListPullJobAdmission: AdmissionHook = {
  gr: IMAGE_LIST_PULL_JOBS,
  operations: ['CREATE', 'UPDATE'],
  admit(op, obj, old) {
    const problems = validateImageListPullJobSpec((obj.spec ?? {}) as ImageListPullJobSpec);
    if (problems.length > 0) reject('ImageListPullJob', obj, problems);
    if (op === 'UPDATE') immutablePullSecrets('ImageListPullJob', obj, old);
    return obj;
  },
};

interface NodePull {
  phase: 'waiting' | 'pulling' | 'succeeded' | 'failed';
  attempts: number;
  until: number;
}

function isFinished(job: KubeObject): boolean {
  return Boolean((job.status as ImagePullJobStatus | undefined)?.completionTime);
}

export function createImagePullJobController(): ControllerWithAdmission {
  let store: Store;
  let settings: SimulationSettings;
  const jobs = new Informer(IMAGE_PULL_JOBS);
  const lists = new Informer(IMAGE_LIST_PULL_JOBS);
  const nodes = new Informer(NODES);
  const pods = new Informer<Pod>(PODS);
  const progress = new Map<string, Map<string, NodePull>>(); // job uid → node → pull
  // list uid → image → its child job's final state: a child removed by its TTL right after
  // finishing (the template's ttlSecondsAfterFinished applies to it too) stays done, not re-created.
  const finishedChildren = new Map<string, Map<string, { name: string; status: ImagePullJobStatus }>>();
  const pulled = new Map<string, Set<string>>(); // node → images present (IfNotPresent skips)
  let jobQueue: WorkQueue;
  let listQueue: WorkQueue;

  function targetNodes(job: KubeObject): string[] {
    const spec = (job.spec ?? {}) as ImagePullJobSpec;
    const all = [...nodes.all()];
    let names: string[];
    if (spec.selector?.names) {
      const wanted = new Set(spec.selector.names);
      names = all.map((n) => n.metadata.name ?? '').filter((n) => wanted.has(n));
    } else if (spec.selector) {
      names = all.filter((n) => labelSelectorMatches(spec.selector, n.metadata.labels)).map((n) => n.metadata.name ?? '');
    } else if (spec.podSelector) {
      const set = new Set<string>();
      for (const p of pods.all()) {
        if (p.metadata.namespace !== job.metadata.namespace || !p.spec.nodeName || !isPodActive(p)) continue;
        if (labelSelectorMatches(spec.podSelector, p.metadata.labels)) set.add(p.spec.nodeName);
      }
      names = [...set];
    } else names = all.map((n) => n.metadata.name ?? '');
    // The API server lists by key, so NodeImages come sorted by name (byte order).
    return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  function reconcileJob(key: string): void {
    const job = jobs.get(key);
    if (!job || job.metadata.deletionTimestamp) return;
    const spec = (job.spec ?? {}) as ImagePullJobSpec;
    const knobs = imagePullDefaults(spec);
    const old = (job.status ?? {}) as ImagePullJobStatus;
    const now = Date.now();
    if (isFinished(job)) {
      progress.delete(job.metadata.uid ?? '');
      if (knobs.ttlSecondsAfterFinished !== undefined) {
        const expiry = (parseKubeTime(old.completionTime) ?? now) + knobs.ttlSecondsAfterFinished * 1000;
        if (now >= expiry) store.delete(IMAGE_PULL_JOBS, job.metadata.namespace, job.metadata.name ?? '');
        else jobQueue.addAfter(key, expiry - now + 5);
      }
      return;
    }
    const uid = job.metadata.uid ?? '';
    let state = progress.get(uid);
    if (!state) progress.set(uid, (state = new Map()));
    const image = spec.image ?? '';
    const pullMs = Math.max(1, imageDelayMs(image, settings));
    // pullPolicy.timeoutSeconds: a pull that would take longer is cut off then and counts as a failed attempt.
    const tooSlow = pullMs > knobs.timeoutSeconds * 1000;
    const delay = Math.min(pullMs, Math.max(1, knobs.timeoutSeconds * 1000));
    const failing = imageBehaviour(image) === 'fail-pull' || imageBehaviour(image) === 'invalid' || tooSlow;

    for (const node of targetNodes(job)) if (!state.has(node)) state.set(node, { phase: 'waiting', attempts: 0, until: 0 });
    // Finish pulls whose time has come.
    for (const [node, pull] of state) {
      if (pull.phase !== 'pulling' || pull.until > now) continue;
      pull.attempts++;
      if (!failing) {
        pull.phase = 'succeeded';
        if (!pulled.has(node)) pulled.set(node, new Set());
        pulled.get(node)!.add(image);
      } else if (pull.attempts > knobs.backoffLimit) pull.phase = 'failed';
      else pull.until = now + delay; // back off and retry
    }
    const targets = new Set(targetNodes(job));
    const calculate = () =>
      calculatePullJobStatus({
        nodes: [...state.entries()].filter(([n]) => targets.has(n) || state.get(n)!.phase !== 'waiting').map(([name, p]) => ({ name, phase: p.phase === 'waiting' ? 'notSynced' : p.phase })),
        startTime: old.startTime,
        nowMs: now,
        completionType: knobs.completionType,
        activeDeadlineSeconds: knobs.activeDeadlineSeconds,
      });
    let { status, notSynced } = calculate();
    if (!status.completionTime) {
      // Ask the next nodes to pull, up to parallelism, in Kruise's order (names sorted).
      const room = knobs.parallelism - (status.active ?? 0);
      let started = 0;
      for (const node of notSynced.slice(0, Math.max(0, room))) {
        const pull = state.get(node)!;
        started++;
        if (spec.imagePullPolicy !== 'Always' && pulled.get(node)?.has(image)) {
          pull.phase = 'succeeded';
          continue;
        }
        pull.phase = 'pulling';
        pull.until = now + delay;
      }
      if (started > 0) ({ status, notSynced } = calculate());
    }
    const started = parseKubeTime(status.startTime) ?? now;
    if (canonicalJson(status) !== canonicalJson(old)) store.updateStatus(IMAGE_PULL_JOBS, { ...job, status } as KubeObject);
    if (status.completionTime) {
      jobQueue.add(key); // TTL bookkeeping
      return;
    }
    let next = Infinity;
    for (const p of state.values()) if (p.phase === 'pulling') next = Math.min(next, p.until);
    if (knobs.activeDeadlineSeconds !== undefined && knobs.completionType === 'Always') next = Math.min(next, started + knobs.activeDeadlineSeconds * 1000);
    if (next !== Infinity) jobQueue.addAfter(key, Math.max(1, next - now));
  }

  function reconcileList(key: string): void {
    const list = lists.get(key);
    if (!list || list.metadata.deletionTimestamp) return;
    const spec = (list.spec ?? {}) as ImageListPullJobSpec;
    const old = (list.status ?? {}) as Record<string, unknown>;
    const now = Date.now();
    if (old.completionTime) {
      const ttl = spec.completionPolicy?.ttlSecondsAfterFinished;
      if (ttl !== undefined) {
        const expiry = (parseKubeTime(old.completionTime as string) ?? now) + ttl * 1000;
        if (now >= expiry) store.delete(IMAGE_LIST_PULL_JOBS, list.metadata.namespace, list.metadata.name ?? '');
        else listQueue.addAfter(key, expiry - now + 5);
      }
      return;
    }
    const images = spec.images ?? [];
    const { images: _i, ...template } = spec;
    const owned = jobs.ownedBy(list.metadata.uid).filter((j) => controllerOf(j)?.uid === list.metadata.uid);
    const byImage = new Map(owned.map((j) => [(j.spec as ImagePullJobSpec).image ?? '', j]));
    const finished = finishedChildren.get(list.metadata.uid ?? '') ?? new Map<string, { name: string; status: ImagePullJobStatus }>();
    for (const image of images) {
      if (byImage.has(image) || finished.has(image)) continue;
      const job: KubeObject = {
        apiVersion: store.storageVersion(IMAGE_PULL_JOBS) ?? 'apps.kruise.io/v1alpha1',
        kind: 'ImagePullJob',
        metadata: { name: `${list.metadata.name}-${templateHash(image)}`, namespace: list.metadata.namespace, ownerReferences: [controllerRef(list)] },
        spec: { ...structuredClone(template), image },
      };
      byImage.set(image, store.create(IMAGE_PULL_JOBS, job));
    }
    for (const [image, job] of byImage) if (!images.includes(image)) store.delete(IMAGE_PULL_JOBS, job.metadata.namespace, job.metadata.name ?? '');

    const current = images
      .map((i) => byImage.get(i) ?? (finished.has(i) ? { metadata: { name: finished.get(i)!.name }, spec: { image: i }, status: finished.get(i)!.status } : undefined))
      .filter((j): j is KubeObject => j !== undefined)
      .map((j) => (j.metadata.uid ? (jobs.get(keyOf(j)) ?? j) : j));
    const status: Record<string, unknown> = { ...imageListPullJobCounts(current.map((j) => ({ name: j.metadata.name ?? '', image: (j.spec as ImagePullJobSpec).image ?? '', status: (j.status ?? {}) as ImagePullJobStatus }))) };
    status.desired = images.length;
    status.startTime = old.startTime ?? kubeTime(now);
    if ((status.failedImageStatuses as unknown[]).length === 0) delete status.failedImageStatuses;
    if ((spec.completionPolicy?.type ?? 'Always') === 'Always' && status.completed === images.length) status.completionTime = kubeTime(now);
    if (canonicalJson(status) !== canonicalJson(old)) store.updateStatus(IMAGE_LIST_PULL_JOBS, { ...list, status });
    if (status.completionTime) listQueue.add(key);
  }

  return {
    name: 'imagepulljob',
    admission: [imagePullJobAdmission, imageListPullJobAdmission],
    start(s: Store, simulation: SimulationSettings) {
      store = s;
      settings = simulation;
      jobQueue = new WorkQueue('imagepulljob', reconcileJob).gatedBy(simulation.kruiseManager);
      listQueue = new WorkQueue('imagelistpulljob', reconcileList).gatedBy(simulation.kruiseManager);
      jobs.on((type, job) => {
        if (type === 'DELETED') progress.delete(job.metadata.uid ?? '');
        else jobQueue.add(keyOf(job));
        const ref = controllerOf(job);
        if (type === 'DELETED' && ref?.kind === 'ImageListPullJob' && isFinished(job)) {
          const byImage = finishedChildren.get(ref.uid) ?? new Map<string, { name: string; status: ImagePullJobStatus }>();
          finishedChildren.set(ref.uid, byImage.set((job.spec as ImagePullJobSpec).image ?? '', { name: job.metadata.name ?? '', status: (job.status ?? {}) as ImagePullJobStatus }));
        }
        if (ref?.kind === 'ImageListPullJob') listQueue.add(objectKey(job.metadata.namespace, ref.name));
      });
      lists.on((type, list) => {
        if (type !== 'DELETED') listQueue.add(keyOf(list));
        else finishedChildren.delete(list.metadata.uid ?? '');
      });
      nodes.on(() => {
        for (const j of jobs.all()) if (!isFinished(j)) jobQueue.add(keyOf(j));
      });
      nodes.start(store);
      pods.start(store);
      jobs.start(store);
      lists.start(store);
    },
    stop() {
      jobQueue?.stop();
      listQueue?.stop();
      jobs.stop();
      lists.stop();
      nodes.stop();
      pods.stop();
    },
  };
}
