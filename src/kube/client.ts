// The cluster access interface every command uses. Implemented in src/kube
// (connect.ts builds one from the kubeconfig and global flags).

/** A resolved resource: what goes into the URL, plus what discovery told us. */
export interface ResourceType {
  group: string; // "" for core
  version: string;
  resource: string; // plural, lowercase
  kind: string;
  namespaced: boolean;
  /** Present when discovery listed them. */
  shortNames?: string[];
  verbs?: string[];
  subresources?: string[];
}

export type { ObjectMeta, KubeObject } from '../lib/objects';
import type { ExecOutcome, ExecRequest, ExecStreams } from './exec';
export type { ExecOutcome, ExecRequest, ExecStreams, TerminalSize } from './exec';
import type { KubeObject } from '../lib/objects';

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

export type PatchType = 'json' | 'merge' | 'strategic';

export interface RequestOptions {
  /** Adds dryRun=All (server-side dry run). */
  dryRun?: boolean;
  fieldManager?: string;
  /** Target a subresource ("status", "scale"). */
  subresource?: string;
  signal?: AbortSignal;
}

export interface DeleteRequestOptions extends RequestOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size; list() follows `continue` until the end. */
  limit?: number;
  resourceVersion?: string;
  signal?: AbortSignal;
  /**
   * Applied to each item as soon as it is read (keep only what is needed of a long list; the page is
   * then decoded item by item); an item it maps to undefined is left out.
   */
  mapItem?: (item: KubeObject) => KubeObject | undefined;
  /** Cuts each page's request after this long (ms) instead of --request-timeout. */
  timeoutMs?: number;
}

/** How requests behave while a command waits (`rollout status`): RestClient.configureWaits. */
export interface WaitPolicy {
  /** When the whole command must end (ms since epoch, from --timeout); undefined: it waits as long as it takes. */
  deadline?: number;
}

export type { TableColumn, TableRow, KubeTable } from '../lib/table';
import type { KubeTable } from '../lib/table';

export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  object: T;
}

export interface ObserveOptions extends ListOptions {
  /** Observe one object by name (fieldSelector metadata.name=...). */
  name?: string;
  /** Called with the list (after the initial list and after every re-list on 410). */
  onSync?: (items: KubeObject[]) => void | Promise<void>;
  /** Called when a request failed and will be retried (the server could not be read), and with undefined once a request worked again. */
  onTrouble?: (err: unknown) => void;
}

/** core/v1 PodLogOptions as query parameters. */
export interface PodLogOptions {
  container?: string;
  previous?: boolean;
  tailLines?: number;
  limitBytes?: number;
  signal?: AbortSignal;
}

export interface Observation {
  /** Resolves when stopped (signal aborted or stop() called); rejects on a non-recoverable error. */
  done: Promise<void>;
  stop(): void;
}

export interface KubeClient {
  /** Namespace from -n, else the context's, else "default". */
  readonly namespace: string;
  /** Server URL (no credentials). */
  readonly server: string;
  /** User name for messages ("system:anonymous" when unknown). */
  readonly userName: string;

  /** Resolves a kubectl-style type ("cloneset", "clonesets.v1beta1.apps.kruise.io", "sts") through discovery. */
  resolve(type: string): Promise<ResourceType>;
  /** Whether a group/version/resource is served (discovery, cached). */
  isServed(group: string, resource: string): Promise<boolean>;
  /** The served resource of a discovered group (apps/rollouts/policy.kruise.io) at its preferred version; undefined when not served (cached discovery, no refresh). */
  discovered(group: string, resource: string): Promise<ResourceType | undefined>;

  get<T extends KubeObject = KubeObject>(rt: ResourceType, name: string, namespace?: string, opts?: RequestOptions): Promise<T>;
  list<T extends KubeObject = KubeObject>(rt: ResourceType, namespace: string | undefined, opts?: ListOptions): Promise<KubeList<T>>;
  /** A list as the server prints it (Accept: as=Table, kubectl's columns), following `continue` pages. */
  listTable(rt: ResourceType, namespace: string | undefined, opts?: Pick<ListOptions, 'labelSelector' | 'limit' | 'signal'>): Promise<KubeTable>;
  create<T extends KubeObject = KubeObject>(rt: ResourceType, obj: KubeObject, namespace?: string, opts?: RequestOptions): Promise<T>;
  update<T extends KubeObject = KubeObject>(rt: ResourceType, obj: KubeObject, namespace?: string, opts?: RequestOptions): Promise<T>;
  patch<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    name: string,
    type: PatchType,
    body: unknown,
    namespace?: string,
    opts?: RequestOptions,
  ): Promise<T>;
  /** `preconditions`: delete only that object (UID) in that state (resourceVersion); 409 otherwise. */
  delete(rt: ResourceType, name: string, namespace?: string, opts?: DeleteRequestOptions): Promise<void>;

  /**
   * List then watch from the list's resourceVersion; resumes after a dropped connection from the
   * last seen resourceVersion and re-lists on 410 Gone. Events are delivered in order.
   */
  observe<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    namespace: string | undefined,
    opts: ObserveOptions,
    onEvent: (ev: WatchEvent<T>) => void | Promise<void>,
  ): Observation;

  /**
   * Starts now the list the next observe() of this one object (by name, no selectors) would begin
   * with, so that it overlaps other reads instead of following them; that observe() takes it over
   * (watching from its resourceVersion, so nothing that changes meanwhile is missed). Optional:
   * clients without it just list when observing.
   */
  prefetchObserve?(rt: ResourceType, namespace: string | undefined, name: string): void;

  /**
   * A request to any API server path with the kubeconfig's credentials, answered as it comes (any status, the
   * body as text): `rollout verify`'s http checks through a service proxy. Optional.
   */
  send?(req: { method: 'GET' | 'POST'; path: string; body?: string; contentType?: string; signal?: AbortSignal; timeoutMs?: number }): Promise<{ status: number; body: string }>;

  /** GET of a raw path (e.g. "/version"); JSON-decoded. */
  raw<T = unknown>(path: string, opts?: RequestOptions): Promise<T>;

  /**
   * Loads what exec() needs (the WebSocket library) while the requests already started are in flight,
   * so that the exec following them starts at once. Optional.
   */
  prefetchExec?(): void;

  /** A container's log (pods/log) as text: the last `tailLines`, at most `limitBytes`; optional. */
  podLog?(namespace: string, pod: string, opts: PodLogOptions): Promise<string>;

  /** Runs a command in a container (pods/exec over WebSocket); resolves with the command's exit code once it ends. */
  exec(req: ExecRequest, io: ExecStreams): Promise<ExecOutcome>;

  /**
   * While a command waits: a list or watch that gets no answer is cut (--request-timeout, else
   * WAIT_REQUEST_TIMEOUT_MS, never past the deadline) and retried, transient errors never end a watch
   * (the deadline does), and one-shot reads retry longer. Optional.
   */
  configureWaits?(policy: WaitPolicy): void;
  /** While waiting: the last transient failure of a read still being retried (undefined once one worked). */
  waitTrouble?(): unknown;

  /** Releases sockets so the process can exit. */
  close(): void;
}
