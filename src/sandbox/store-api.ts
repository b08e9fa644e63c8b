// The sandbox's in-memory storage as seen by the simulated controllers. The API
// server (server/) implements it; controllers (controllers/) only use this.
import type { KubeObject } from '../kruise/types';

/** Storage key of a kind: objects are stored once, in their storage version. */
export interface GroupResource {
  group: string; // "" for core
  resource: string; // plural
}

export interface StoreEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  gr: GroupResource;
  object: KubeObject; // storage version
}

export interface StoreListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface Store {
  get(gr: GroupResource, namespace: string | undefined, name: string): KubeObject | undefined;
  list(gr: GroupResource, opts?: StoreListOptions): KubeObject[];
  /** Sets uid, creationTimestamp, resourceVersion, generation; honours generateName. Throws ApiError. */
  create(gr: GroupResource, obj: KubeObject): KubeObject;
  /**
   * create() of an object the caller hands over: stored as it is (its metadata is filled in place) and
   * returned, neither to be changed again. For objects written by the thousand (Events).
   */
  createOwned(gr: GroupResource, obj: KubeObject): KubeObject;
  /** Optimistic concurrency on metadata.resourceVersion when set. Spec changes bump generation. */
  update(gr: GroupResource, obj: KubeObject): KubeObject;
  /** Writes only .status (the status subresource). */
  updateStatus(gr: GroupResource, obj: KubeObject): KubeObject;
  /** Marks for deletion (finalizers) or removes; owner GC happens in the background. */
  delete(gr: GroupResource, namespace: string | undefined, name: string): void;
  /** Synchronous notification after every committed change. Returns an unsubscribe function. */
  subscribe(listener: (ev: StoreEvent) => void): () => void;
  /** Storage apiVersion of a group/resource, e.g. "apps.kruise.io/v1beta1" (CloneSet on master). */
  storageVersion(gr: GroupResource): string | undefined;
}

/** --crash-backoff: the kubelet's, the compressed one of tests, or an initial wait (ms). */
export type CrashBackoffSetting = 'kubelet' | 'fast' | { initialMs: number };

/** Knobs of the simulation shared by all controllers. */
export interface SimulationSettings {
  /** Pod becomes Ready this long after creation or after an in-place change (ms). */
  readyDelayMs: number;
  /**
   * How long a crashing container waits before its next restart (--crash-backoff): `kubelet` (absent)
   * 10 s doubling to 5 min; `fast` the ready delay (at least 100 ms) doubling to 8 times that, for tests;
   * or an initial wait of the caller's, doubling to 30 times it. src/sandbox/controllers/kubelet-backoff.ts.
   */
  crashBackoff?: CrashBackoffSetting;
  /** Which Kruise release is imitated. */
  kruise: 'v1.3' | 'v1.8' | 'v1.9' | 'master';
  nodes: number;
  /** kruise-manager's --feature-gates (src/sandbox/feature-gates.ts); absent gates take their default. */
  featureGates?: Readonly<Record<string, boolean>>;
  /** Which Kruise Rollout release is imitated (--kruise-rollout, or read from a --crds folder's Rollout CRD). */
  kruiseRollout?: 'v0.4' | 'v0.6' | 'master';
  /** Shut while kruise-manager is down (controllers/kruise-manager.ts): the Kruise controllers' queues wait on it. */
  kruiseManager?: QueueGate;
}

/** Whether the process a controller runs in is running: a gated work queue's keys wait while it is not. */
export interface QueueGate {
  open(): boolean;
  /** Calls `wake` once the gate opens again. */
  whenOpen(wake: () => void): void;
}

export interface Controller {
  name: string;
  start(store: Store, settings: SimulationSettings): void;
  stop(): void;
}

/**
 * A webhook-like hook run by the API server before an object is stored (mutating first, then
 * validating). Throw `ApiError` (src/sandbox/server/errors.ts) to reject with a kube Status.
 * `obj` is in the storage version.
 */
export interface AdmissionHook {
  gr: GroupResource;
  operations: Array<'CREATE' | 'UPDATE' | 'DELETE'>;
  admit(op: 'CREATE' | 'UPDATE' | 'DELETE', obj: KubeObject, old: KubeObject | undefined, store: Store, request?: AdmissionRequest): KubeObject | void;
}

/** What a webhook knows of the request besides the object (kube's AdmissionRequest). */
export interface AdmissionRequest {
  /** The API version the client wrote in (req.Kind.Version); undefined for a controller's own write. */
  version?: string;
  /** The object as the client wrote it, in that version (before conversion to the storage version). */
  object?: KubeObject;
  /** "status" for a write of the status subresource (which webhooks registered for the main resource do not see). */
  subresource?: 'status';
  /** A dry-run request: a webhook with side effects (Kruise's PUB spends budget) must not act. */
  dryRun?: boolean;
}

/** policy/evictions: the pods/eviction subresource's CREATE as webhooks registered for it see it (old = the pod). */
export const EVICTIONS: GroupResource = { group: 'policy', resource: 'evictions' };

/** One line a container printed, stamped when the kubelet saw it (epoch ms + the nanoseconds within that ms). */
export interface LogLine {
  ms: number;
  ns: number;
  text: string;
}

/** Told of a followed container instance's new lines, then once of its end. */
export interface LogFollower {
  line(l: LogLine): void;
  end(): void;
}

/**
 * The node side of pods/log: kube-apiserver proxies a log request to the pod's kubelet, which reads
 * the log of one container instance (by containerID). The sandbox's kubelet controller provides it.
 */
export interface PodLogSource {
  /** The lines of that instance; undefined when the kubelet has not seen it (yet). */
  lines(podUid: string, container: string, containerID: string): readonly LogLine[] | undefined;
  /**
   * Streams the instance's new lines until it ends or its pod goes; an instance the kubelet has not
   * seen yet is waited for. Returns the unsubscribe function (a client that went away).
   */
  follow(podUid: string, container: string, containerID: string, follower: LogFollower): () => void;
}

/** What a controller module contributes besides its reconcile loop. */
export interface ControllerWithAdmission extends Controller {
  admission?: AdmissionHook[];
  /** The kubelet's container logs, which the API server serves as pods/log. */
  podLogs?: PodLogSource;
}
