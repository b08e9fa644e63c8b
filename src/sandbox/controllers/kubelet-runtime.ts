// What the kubelet records while it runs a pod's containers: each container instance's log lines
// (container-logs.ts) and the kubelet's Events, with kube v1.32's reasons and texts
// (pkg/kubelet/images/image_manager.go, kuberuntime/kuberuntime_container.go and _manager.go):
// Pulling, Pulled, Created, Started, Killing, BackOff, Failed, InspectFailed.
// It reads the container statuses the kubelet is about to write, and those other controllers wrote
// (a ContainerRecreateRequest restarts a container by writing a new containerID): a containerID it
// has not seen is an instance that started, and the one it replaces was stopped.
import { createHash } from 'node:crypto';
import type { Container, ContainerStatus, Pod } from '../../kruise/types';
import { imageTag } from '../../kruise/rules/imagepull';
import type { ContainerLogs } from './container-logs';
import { READY_LINE, STOPPING_LINE, exitLines, startLines } from './container-log-lines';
import type { EventRecorder, EventSpec } from './event-recorder';

export interface RuntimeRecorder {
  /** A container's status as the kubelet is about to write it (`prev`: as stored). */
  container(pod: Pod, spec: Container, prev: ContainerStatus | undefined, next: ContainerStatus, init?: boolean): void;
  /** The pod is being deleted: its running containers are told to stop. */
  stopping(pod: Pod): void;
  /** The pod is gone, and its logs and events with it. */
  gone(pod: Pod): void;
}

interface Terminated {
  exitCode?: number;
  containerID?: string;
}

/** Go's time.Duration.String() of whole milliseconds: 850ms, 1.5s, 2s. */
function goMillis(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${ms / 1000}s`;
}

const pulls = new Map<string, string>();

/** The Pulled message of a pull: its duration and image size depend on the image only, so repeats aggregate. */
function pulledMessage(image: string): string {
  let message = pulls.get(image);
  if (message !== undefined) return message;
  const h = createHash('sha256').update(image).digest();
  const ms = goMillis(200 + (h.readUInt16BE(0) % 1800));
  message = `Successfully pulled image "${image}" in ${ms} (${ms} including waiting). Image size: ${2_000_000 + (h.readUInt32BE(2) % 118_000_000)} bytes.`;
  if (pulls.size >= 1024) pulls.clear();
  pulls.set(image, message);
  return message;
}

/** The API's default pull policy for a container that has none: Always for `latest` or no tag. */
function pullPolicyOf(spec: Container, image: string): string {
  if (typeof spec.imagePullPolicy === 'string') return spec.imagePullPolicy;
  return imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
}

export function createRuntimeRecorder(logs: ContainerLogs, events: EventRecorder): RuntimeRecorder {
  /** Images each node has pulled (`node\0image`): IfNotPresent pulls once per node. */
  const images = new Set<string>();
  /** Pods whose containers were told to stop (their deletion is graceful). */
  const stopped = new Set<string>();

  function pullEvents(pod: Pod, spec: Container, image: string, fieldPath: string): EventSpec[] {
    const node = pod.spec.nodeName ?? '';
    const policy = pullPolicyOf(spec, image);
    if (policy === 'Never' || (policy === 'IfNotPresent' && images.has(`${node}\0${image}`))) {
      return [{ type: 'Normal', reason: 'Pulled', message: `Container image "${image}" already present on machine`, fieldPath }];
    }
    if (images.size >= 10_000) images.clear();
    images.add(`${node}\0${image}`);
    return [
      { type: 'Normal', reason: 'Pulling', message: `Pulling image "${image}"`, fieldPath },
      { type: 'Normal', reason: 'Pulled', message: pulledMessage(image), fieldPath },
    ];
  }

  /** The events of a container entering a waiting reason (or waiting again after another restart). */
  function waitingEvents(pod: Pod, name: string, image: string, reason: string, message: string, fieldPath: string): EventSpec[] {
    switch (reason) {
      case 'CrashLoopBackOff':
        return [{ type: 'Warning', reason: 'BackOff', message: `Back-off restarting failed container ${name} in pod ${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`, fieldPath }];
      case 'ErrImagePull':
        return [
          { type: 'Normal', reason: 'Pulling', message: `Pulling image "${image}"`, fieldPath },
          { type: 'Warning', reason: 'Failed', message: `Failed to pull image "${image}": ${message}`, fieldPath },
          { type: 'Warning', reason: 'Failed', message: 'Error: ErrImagePull', fieldPath },
        ];
      case 'ImagePullBackOff':
        return [
          { type: 'Normal', reason: 'BackOff', message: `Back-off pulling image "${image}"`, fieldPath },
          { type: 'Warning', reason: 'Failed', message: 'Error: ImagePullBackOff', fieldPath },
        ];
      case 'InvalidImageName':
        return [
          { type: 'Warning', reason: 'InspectFailed', message, fieldPath },
          { type: 'Warning', reason: 'Failed', message: 'Error: InvalidImageName', fieldPath },
        ];
      default:
        return [];
    }
  }

  return {
    container(pod, spec, prev, next, init = false) {
      const uid = pod.metadata.uid ?? '';
      const node = pod.spec.nodeName ?? '';
      const name = spec.name;
      const image = next.image;
      const fieldPath = `spec.${init ? 'initContainers' : 'containers'}{${name}}`;
      const record = (list: EventSpec[]): void => list.forEach((e) => events.record(pod, e, node));
      const last = next.lastState?.terminated as Terminated | undefined;
      const id = next.containerID;
      const cur = logs.current(uid, name);
      if (id && id !== cur?.containerID && (next.state?.running || next.state?.terminated)) {
        if (cur && !cur.ended) {
          // Replaced while it ran: the kubelet stopped it (an in-place update, a restart request).
          if (prev && prev.image !== image) record([{ type: 'Normal', reason: 'Killing', message: `Container ${name} definition changed, will be restarted`, fieldPath }]);
          logs.end(uid, name, cur.containerID, exitLines(prev?.image ?? image, last?.containerID === cur.containerID ? (last.exitCode ?? 0) : 137, 'killed'));
        }
        record(pullEvents(pod, spec, image, fieldPath));
        record([
          { type: 'Normal', reason: 'Created', message: `Created container ${name}`, fieldPath },
          { type: 'Normal', reason: 'Started', message: `Started container ${name}`, fieldPath },
        ]);
        logs.start(uid, name, id, startLines(spec, image, next.restartCount));
      }
      const inst = logs.current(uid, name);
      if (inst && !inst.ended) {
        const term = next.state?.terminated as Terminated | undefined;
        const ended = term && (term.containerID ?? id) === inst.containerID ? term : !next.state?.running && last?.containerID === inst.containerID ? last : undefined;
        if (ended) logs.end(uid, name, inst.containerID, exitLines(image, ended.exitCode ?? 0, imageTag(image) === 'crashloop' ? 'crashloop' : 'exited'));
        else if (next.ready && logs.markReady(uid, name, inst.containerID)) logs.append(uid, name, inst.containerID, [READY_LINE]);
      }
      const waiting = next.state?.waiting;
      const prevWaiting = prev?.state?.waiting?.reason;
      if (waiting?.reason && (waiting.reason !== prevWaiting || next.restartCount !== prev?.restartCount)) {
        record(waitingEvents(pod, name, image, waiting.reason, waiting.message ?? '', fieldPath));
      }
    },

    stopping(pod) {
      const uid = pod.metadata.uid ?? '';
      if (stopped.has(uid)) return;
      stopped.add(uid);
      for (const { container, containerID } of logs.running(uid)) {
        logs.append(uid, container, containerID, [STOPPING_LINE]);
        const init = pod.spec.initContainers?.some((c) => c.name === container) ?? false;
        events.record(pod, { type: 'Normal', reason: 'Killing', message: `Stopping container ${container}`, fieldPath: `spec.${init ? 'initContainers' : 'containers'}{${container}}` }, pod.spec.nodeName ?? '');
      }
    },

    gone(pod) {
      const uid = pod.metadata.uid ?? '';
      const graceful = stopped.delete(uid);
      // Only a follower still reads these: the logs go with the pod.
      for (const { container, containerID } of logs.running(uid)) logs.end(uid, container, containerID, graceful ? ['[sandbox] exit code 0'] : exitLines('', 0, 'killed'));
      logs.dropPod(uid);
      events.forget(uid);
    },
  };
}
