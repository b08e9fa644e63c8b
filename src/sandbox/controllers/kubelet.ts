// Kubelet simulation: takes every scheduled pod through its lifecycle. Containers start,
// become ready `readyDelayMs` later (5x for an image tagged `slow`), and follow the image
// conventions of the contract: `fail-pull` never pulls, `crashloop` keeps crashing, a
// malformed reference is InvalidImageName. A changed `spec.containers[i].image` (an in-place
// update) restarts that container only. Pod readiness folds in spec.readinessGates, which is
// how CloneSet's InPlaceUpdateReady gate holds a pod back. Pods marked for deletion without
// finalizers are removed after a short grace period.
// Pods that run to completion (restartPolicy Never or OnFailure: Jobs, BroadcastJobs) exit one more
// delay after they became ready, with code 0, or N for an image tagged `exit-N`; `crashloop` exits 1
// before it is ready. Never: the pod ends Succeeded (all exited 0) or Failed. OnFailure: a non-zero
// exit restarts the container, as for `crashloop` under Always: at once the first time, then after a
// back-off (CrashLoopBackOff) that doubles, as the kubelet's (kubelet-backoff.ts; --crash-backoff).
// restartPolicy Always pods never end.
//
// The state machine is driven by the pod's own status plus a private clock per container
// (keyed by containerID), so other controllers may restart a container just by writing a
// new status (see restartContainerStatus, used by ContainerRecreateRequest).
// Each status change is also what the containers log (container-logs.ts, served as pods/log) and
// the Events the kubelet records (kubelet-runtime.ts).
import { createHash, randomBytes } from 'node:crypto';
import type { ContainerStatus, KubeObject, Pod } from '../../kruise/types';
import { parseImageReference, imageTag } from '../../kruise/rules/imagepull';
import type { ControllerWithAdmission, SimulationSettings, Store } from '../store-api';
import { canonicalJson } from '../canonical-json';
import { ContainerLogs } from './container-logs';
import { EventRecorder } from './event-recorder';
import { Informer } from './informer';
import { createRuntimeRecorder, type RuntimeRecorder } from './kubelet-runtime';
import { crashBackoffPolicy, crashLoopMessage, nextBackoff, waitsAfterExit, type BackoffEntry } from './kubelet-backoff';
import { NODES, PODS, kubeTime, keyOf, setCondition, splitKey, type PodCondition } from './pods';
import { WorkQueue } from './queue';

export type ImageBehaviour = 'normal' | 'slow' | 'fail-pull' | 'crashloop' | 'invalid';

/** How the sandbox treats an image, from its tag (contract: image conventions). */
export function imageBehaviour(image: string | undefined): ImageBehaviour {
  if (!image || !parseImageReference(image).ok) return 'invalid';
  const tag = imageTag(image);
  if (tag === 'fail-pull') return 'fail-pull';
  if (tag === 'crashloop') return 'crashloop';
  if (tag === 'slow') return 'slow';
  return 'normal';
}

/** Exit code of a run-to-completion container (contract: image conventions): tag `exit-N` → N, `crashloop` → 1, else 0. */
export function imageExitCode(image: string | undefined): number {
  const tag = image && parseImageReference(image).ok ? imageTag(image) : undefined;
  if (tag === 'crashloop') return 1;
  const m = tag ? /^exit-(\d{1,3})$/.exec(tag) : null;
  return m ? Math.min(255, Number(m[1])) : 0;
}

/** Whether the pod's containers are meant to finish (restartPolicy Never or OnFailure). */
export function runsToCompletion(pod: Pod): boolean {
  const policy = pod.spec.restartPolicy;
  return policy === 'Never' || policy === 'OnFailure';
}

/** Time from container start to ready (and, for pulls, one pull attempt). */
export function imageDelayMs(image: string | undefined, settings: Pick<SimulationSettings, 'readyDelayMs'>): number {
  const base = Math.max(0, settings.readyDelayMs);
  return imageBehaviour(image) === 'slow' ? base * 5 : base;
}

export function newContainerID(): string {
  return `containerd://${randomBytes(32).toString('hex')}`;
}

/** A stable, realistic image digest reference for an image name. */
export function imageIDFor(image: string): string {
  const parsed = parseImageReference(image);
  const repo = parsed.ok ? `${parsed.ref.domain}/${parsed.ref.path}` : image;
  return `${repo}@sha256:${createHash('sha256').update(image).digest('hex')}`;
}

/** Pull failure text as containerd words it. */
function pullErrorMessage(image: string): string {
  const parsed = parseImageReference(image);
  const full = parsed.ok ? `${parsed.ref.domain}/${parsed.ref.path}:${parsed.ref.tag ?? 'latest'}` : image;
  return `failed to pull and unpack image "${full}": failed to resolve reference "${full}": ${full}: not found`;
}

/**
 * Pod status after the named container was killed and started again (CRR, in-place update):
 * restartCount+1, new containerID, not ready. The kubelet makes it ready after the delay.
 */
export function restartContainerStatus(pod: Pod, containerName: string, nowMs: number = Date.now()): NonNullable<Pod['status']> {
  const status = structuredClone(pod.status ?? {});
  const now = kubeTime(nowMs);
  const statuses = status.containerStatuses ?? [];
  const cs = statuses.find((s) => s.name === containerName);
  if (!cs) return status;
  cs.lastState = { terminated: { exitCode: 137, reason: 'Error', startedAt: cs.state?.running?.startedAt ?? now, finishedAt: now, containerID: cs.containerID } };
  cs.restartCount = (cs.restartCount ?? 0) + 1;
  cs.containerID = newContainerID();
  cs.state = { running: { startedAt: now } };
  cs.ready = false;
  cs.started = true;
  const conditions = (status.conditions ??= []);
  const unready = statuses.filter((s) => !s.ready).map((s) => s.name);
  setCondition(conditions, { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]` }, now);
  setCondition(conditions, { type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]` }, now);
  return status;
}

/** Grace period the sandbox gives a terminating pod without finalizers. */
const TERMINATION_GRACE_MS = 30;

export function createKubelet(): ControllerWithAdmission {
  let store: Store;
  let settings: SimulationSettings;
  const pods = new Informer<Pod>(PODS);
  const nodes = new Informer(NODES);
  // When each container's current state began (key: pod uid + container + state identity).
  const clocks = new Map<string, { state: string; since: number }>();
  const terminatingSince = new Map<string, number>();
  // The restart back-off of each container (pod uid → container name and image → entry), as the
  // kubelet's flowcontrol.Backoff keyed by getStableKey (pod, container, spec hash).
  const backoffs = new Map<string, Map<string, BackoffEntry>>();
  const podIPs = new Map<string, number>(); // next host number per node
  const logs = new ContainerLogs();
  let runtime: RuntimeRecorder;
  let queue: WorkQueue;

  function clock(pod: Pod, container: string, state: string, now: number): number {
    const k = `${pod.metadata.uid}/${container}`;
    const c = clocks.get(k);
    if (c && c.state === state) return c.since;
    clocks.set(k, { state, since: now });
    return now;
  }

  function allocatePodIP(nodeName: string): string {
    const index = Number.parseInt(nodeName.replace(/^\D+/, ''), 10) || 0;
    const n = podIPs.get(nodeName) ?? 0;
    podIPs.set(nodeName, n + 1);
    return `10.244.${(index + Math.floor(n / 254) * 16) % 256}.${(n % 254) + 1}`;
  }

  function hostIPOf(nodeName: string): string | undefined {
    const node = nodes.get(nodeName);
    const addresses = (node?.status as { addresses?: Array<{ type: string; address: string }> } | undefined)?.addresses ?? [];
    return addresses.find((a) => a.type === 'InternalIP')?.address;
  }

  function reconcile(key: string): void {
    const pod = pods.get(key);
    if (!pod) {
      terminatingSince.delete(key);
      return;
    }
    if (pod.metadata.deletionTimestamp) {
      runtime.stopping(pod);
      if ((pod.metadata.finalizers ?? []).length > 0) return; // waits for whoever owns the finalizer
      const since = terminatingSince.get(key) ?? Date.now();
      terminatingSince.set(key, since);
      const left = since + TERMINATION_GRACE_MS - Date.now();
      if (left > 0) {
        queue.addAfter(key, left);
        return;
      }
      const { namespace, name } = splitKey(key);
      store.delete(PODS, namespace, name);
      return;
    }
    const nodeName = pod.spec.nodeName;
    if (!nodeName || !nodes.get(nodeName)) return;
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return;

    const now = Date.now();
    const nowStr = kubeTime(now);
    const status = structuredClone(pod.status ?? {});
    const before = canonicalJson(status);
    let wakeAt = Infinity;
    const wake = (at: number) => {
      wakeAt = Math.min(wakeAt, at);
    };

    status.hostIP ??= hostIPOf(nodeName);
    if (status.hostIP) (status as Record<string, unknown>).hostIPs ??= [{ ip: status.hostIP }];
    if (!status.podIP) {
      status.podIP = allocatePodIP(nodeName);
      (status as Record<string, unknown>).podIPs = [{ ip: status.podIP }];
    }
    status.startTime ??= nowStr;
    (status as Record<string, unknown>).qosClass ??= 'BestEffort';

    if (pod.spec.initContainers?.length) {
      const old = status.initContainerStatuses ?? [];
      status.initContainerStatuses = pod.spec.initContainers.map((c) => {
        const prev = old.find((s) => s.name === c.name);
        if (prev && prev.image === c.image) return prev;
        const image = c.image ?? '';
        const next = {
          name: c.name,
          image,
          imageID: imageIDFor(image),
          containerID: newContainerID(),
          ready: true,
          restartCount: 0,
          started: false,
          state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: nowStr, finishedAt: nowStr } as Record<string, unknown> },
        } as ContainerStatus;
        runtime.container(pod, c, prev, next, true);
        return next;
      });
    }

    const oldStatuses = status.containerStatuses ?? [];
    // Logs and events are recorded before the status is written, so pods/log knows every instance the API shows.
    status.containerStatuses = pod.spec.containers.map((c) => {
      const image = c.image ?? '';
      const prev = oldStatuses.find((s) => s.name === c.name);
      const next = advanceContainer(pod, c.name, image, prev, now, wake);
      // a container resized in place (revisions-pods resizeContainers) keeps reporting its actual resources
      if (prev && 'resources' in prev && !('resources' in next)) (next as unknown as Record<string, unknown>).resources = structuredClone(c.resources ?? {});
      runtime.container(pod, c, prev, next);
      return next;
    });

    const statuses = status.containerStatuses;
    const everStarted = statuses.some((s) => s.state?.running || s.restartCount > 0 || s.state?.terminated);
    status.phase = everStarted ? 'Running' : 'Pending';

    const conditions = (status.conditions ??= []) as PodCondition[];
    // Exited for good: under Never any exit, under OnFailure exit 0 (a failed one is started again).
    const finished = (s: ContainerStatus): boolean => !!s.state?.terminated && (pod.spec.restartPolicy === 'Never' || s.state.terminated.exitCode === 0);
    if (runsToCompletion(pod) && statuses.length > 0 && statuses.every(finished)) {
      // Every container has exited for good: the pod is over, its sandbox torn down.
      status.phase = statuses.every((s) => s.state?.terminated?.exitCode === 0) ? 'Succeeded' : 'Failed';
      setCondition(conditions, { type: 'PodReadyToStartContainers', status: 'False' }, nowStr);
      setCondition(conditions, { type: 'Initialized', status: 'True' }, nowStr);
      setCondition(conditions, { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' }, nowStr);
      setCondition(conditions, { type: 'Ready', status: 'False', reason: 'PodCompleted' }, nowStr);
      setCondition(conditions, { type: 'PodScheduled', status: 'True' }, nowStr);
      conditions.sort((a, b) => CONDITION_ORDER.indexOf(a.type) - CONDITION_ORDER.indexOf(b.type));
      if (canonicalJson(status) !== before) store.updateStatus(PODS, { ...pod, status } as KubeObject);
      return;
    }
    const unready = statuses.filter((s) => !s.ready).map((s) => s.name);
    const containersReady = unready.length === 0;
    setCondition(conditions, { type: 'PodReadyToStartContainers', status: 'True' }, nowStr);
    setCondition(conditions, { type: 'Initialized', status: 'True' }, nowStr);
    setCondition(
      conditions,
      containersReady
        ? { type: 'ContainersReady', status: 'True' }
        : { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]` },
      nowStr,
    );
    let ready: { type: string; status: string; reason?: string; message?: string } = { type: 'Ready', status: 'True' };
    if (!containersReady) {
      ready = { type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]` };
    } else {
      for (const gate of (pod.spec.readinessGates as Array<{ conditionType: string }> | undefined) ?? []) {
        const cond = conditions.find((x) => x.type === gate.conditionType);
        if (!cond) {
          ready = { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: `corresponding condition of pod readiness gate "${gate.conditionType}" does not exist.` };
          break;
        }
        if (cond.status !== 'True') {
          ready = { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: `the status of pod readiness gate "${gate.conditionType}" is not "True", but ${cond.status}` };
          break;
        }
      }
    }
    setCondition(conditions, ready, nowStr);
    setCondition(conditions, { type: 'PodScheduled', status: 'True' }, nowStr);
    conditions.sort((a, b) => CONDITION_ORDER.indexOf(a.type) - CONDITION_ORDER.indexOf(b.type));

    if (canonicalJson(status) !== before) {
      store.updateStatus(PODS, { ...pod, status } as KubeObject);
    }
    if (wakeAt !== Infinity) queue.addAfter(key, Math.max(1, wakeAt - now));
  }

  /** One container's next status; calls `wake(at)` when it changes again by itself later. */
  function advanceContainer(
    pod: Pod,
    name: string,
    image: string,
    prev: ContainerStatus | undefined,
    now: number,
    wake: (at: number) => void,
  ): ContainerStatus {
    const behaviour = imageBehaviour(image);
    const delay = imageDelayMs(image, settings);
    const nowStr = kubeTime(now);
    const imageChanged = prev !== undefined && prev.image !== image;
    const policy = crashBackoffPolicy(settings.crashBackoff, delay);
    const backoffKey = `${name}\0${image}`;
    const backoffOf = (): BackoffEntry | undefined => backoffs.get(pod.metadata.uid ?? '')?.get(backoffKey);
    /**
     * The running process exits with `code` (restartPolicy Always or OnFailure). Not in back-off (the
     * first exit, or after 10 minutes of running fine): Terminated, started again at the next sync.
     * In back-off: CrashLoopBackOff until the back-off has passed since the exit.
     */
    const crash = (cs: ContainerStatus, code: number): ContainerStatus => {
      const exited = { exitCode: code, reason: 'Error', startedAt: cs.state?.running?.startedAt, finishedAt: nowStr, containerID: cs.containerID };
      cs.ready = false;
      cs.started = false;
      const entry = backoffOf();
      if (!waitsAfterExit(entry, now, policy)) {
        cs.state = { terminated: exited };
        wake(now + 1);
        return cs;
      }
      cs.lastState = { terminated: exited };
      cs.state = { waiting: { reason: 'CrashLoopBackOff', message: crashLoopMessage(entry!.backoffMs, name, pod.metadata) } };
      wake(clock(pod, name, `backoff:${cs.restartCount}`, now) + entry!.backoffMs);
      return cs;
    };
    /** A new container instance running (not ready yet), looked at again once its ready delay has passed. */
    const startInstance = (cs: ContainerStatus): ContainerStatus => {
      cs.containerID = newContainerID();
      cs.imageID = imageIDFor(image);
      cs.started = true;
      cs.ready = false;
      cs.state = { running: { startedAt: nowStr } };
      wake(clock(pod, name, cs.containerID, now) + delay);
      return cs;
    };
    /** Next() and a new instance (restartCount + 1) after an exit at `exitMs`: the kubelet's SyncPod starting it again. */
    const startAgain = (cs: ContainerStatus, exitMs: number): ContainerStatus => {
      const uid = pod.metadata.uid ?? '';
      if (!backoffs.has(uid)) backoffs.set(uid, new Map());
      backoffs.get(uid)!.set(backoffKey, nextBackoff(backoffOf(), exitMs, now, policy));
      if (cs.state?.terminated) cs.lastState = { terminated: cs.state.terminated };
      cs.restartCount += 1;
      return startInstance(cs);
    };
    /** CrashLoopBackOff: started again once the back-off has passed since the exit. */
    const backOff = (cs: ContainerStatus): ContainerStatus => {
      const since = clock(pod, name, `backoff:${cs.restartCount}`, now);
      const until = since + (backoffOf()?.backoffMs ?? 0);
      if (now >= until) return startAgain(cs, since);
      wake(until);
      return cs;
    };
    let cs: ContainerStatus;
    if (!prev || imageChanged) {
      // Start (or, after an in-place image change, restart) the container.
      cs = { name, image, imageID: '', ready: false, restartCount: prev ? prev.restartCount + (prev.containerID ? 1 : 0) : 0, started: false, state: {} };
      if (prev?.containerID) {
        cs.lastState = {
          terminated: { exitCode: 0, reason: 'Completed', startedAt: prev.state?.running?.startedAt ?? nowStr, finishedAt: nowStr, containerID: prev.containerID },
        };
      }
      if (behaviour === 'invalid') {
        cs.state = { waiting: { reason: 'InvalidImageName', message: `Failed to apply default image tag "${image}": couldn't parse image name "${image}": invalid reference format` } };
        return cs;
      }
      if (behaviour === 'fail-pull') {
        cs.state = { waiting: { reason: 'ErrImagePull', message: pullErrorMessage(image) } };
        wake(clock(pod, name, `pull:${image}`, now) + Math.max(delay, 1));
        return cs;
      }
      cs.imageID = imageIDFor(image);
      cs.containerID = newContainerID();
      cs.started = true;
      cs.state = { running: { startedAt: nowStr } };
      wake(clock(pod, name, cs.containerID, now) + delay);
      return cs;
    }

    cs = structuredClone(prev);
    const waiting = cs.state?.waiting?.reason;
    if (behaviour === 'invalid') return cs;
    if (behaviour === 'fail-pull') {
      if (waiting === 'ErrImagePull') {
        const since = clock(pod, name, `pull:${image}`, now);
        if (now >= since + delay) cs.state = { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` } };
        else wake(since + Math.max(delay, 1));
      }
      return cs;
    }
    if (behaviour === 'crashloop') {
      if (cs.state?.terminated) return pod.spec.restartPolicy === 'Never' ? cs : startAgain(cs, now); // Never: exited for good
      if (cs.state?.running) {
        const since = clock(pod, name, cs.containerID ?? '', now);
        if (now >= since + delay && pod.spec.restartPolicy === 'Never') return exitContainer(cs, 1, nowStr);
        if (now >= since + delay) crash(cs, 1);
        else wake(since + delay);
      } else if (waiting === 'CrashLoopBackOff') return backOff(cs);
      return cs;
    }
    // normal / slow: ready `delay` after this container instance started.
    if (cs.state?.running && !cs.ready) {
      const since = clock(pod, name, cs.containerID ?? '', now);
      if (now >= since + delay) cs.ready = true;
      else wake(since + delay);
    }
    if (cs.state?.running && cs.ready && runsToCompletion(pod)) {
      // A job's container finishes one more delay after it became ready.
      const since = clock(pod, name, cs.containerID ?? '', now);
      const endAt = since + 2 * delay;
      if (now < endAt) {
        wake(endAt);
        return cs;
      }
      const code = imageExitCode(image);
      if (code === 0 || pod.spec.restartPolicy === 'Never') return exitContainer(cs, code, nowStr);
      return crash(cs, code); // OnFailure: restarted after a back-off
    }
    if (cs.state?.terminated && runsToCompletion(pod)) {
      const code = (cs.state.terminated as { exitCode?: number }).exitCode ?? 0;
      return pod.spec.restartPolicy === 'Never' || code === 0 ? cs : startAgain(cs, now); // exit 0 (or Never): finished for good
    }
    if (waiting === 'CrashLoopBackOff' && runsToCompletion(pod)) return backOff(cs);
    // Restarted by someone who left it waiting/terminated: start it again.
    if (!cs.state?.running) return startInstance(cs);
    return cs;
  }

  return {
    name: 'kubelet',
    podLogs: logs,
    start(s: Store, simulation: SimulationSettings) {
      store = s;
      settings = simulation;
      runtime = createRuntimeRecorder(logs, new EventRecorder(store, { style: 'core', component: 'kubelet' }));
      queue = new WorkQueue('kubelet', reconcile);
      nodes.on((type, node) => {
        if (type !== 'DELETED') for (const p of pods.onNode(node.metadata.name ?? '')) queue.add(keyOf(p));
      });
      pods.on((type, pod) => {
        if (type === 'DELETED') {
          for (const c of pod.spec.containers) clocks.delete(`${pod.metadata.uid}/${c.name}`);
          backoffs.delete(pod.metadata.uid ?? '');
          terminatingSince.delete(keyOf(pod));
          runtime.gone(pod);
          return;
        }
        queue.add(keyOf(pod));
      });
      nodes.start(store);
      pods.start(store);
    },
    stop() {
      queue?.stop();
      pods.stop();
      nodes.stop();
    },
  };
}

const CONDITION_ORDER = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

/** The container exits with `code` and is not restarted (a finished job container). */
function exitContainer(cs: ContainerStatus, code: number, nowStr: string): ContainerStatus {
  const startedAt = cs.state?.running?.startedAt ?? nowStr;
  cs.state = { terminated: { exitCode: code, reason: code === 0 ? 'Completed' : 'Error', startedAt, finishedAt: nowStr, containerID: cs.containerID } as Record<string, unknown> };
  cs.ready = false;
  cs.started = false;
  return cs;
}

