// pods/log as kube-apiserver serves it (pkg/registry/core/pod/rest/log.go and pod.LogLocation),
// with the kubelet's side behind it (kubelet_pods.go validateContainerLogStatus, kuberuntime/logs):
// PodLogOptions from the query, validated like ValidatePodLogOptions (422 `PodLogOptions "x" is
// invalid`); the container's state decides which instance is read, or the kubelet's 400 text
// (`previous terminated container "app" in pod "x" not found`); the answer is text/plain, and with
// follow=true a chunked stream that lasts as long as the container instance and its pod.
import type { ContainerStatus, Pod } from '../../kruise/types';
import { goQuote } from '../../lib/go-duration';
import type { LogLine, PodLogSource } from '../store-api';
import { ApiError, type StatusCause } from './errors';
import type { ApiRequest } from './request';

export interface PodLogOptions {
  container?: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
  /** Epoch milliseconds. */
  sinceTime?: number;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** metav1.Time's query form: time.Parse(time.RFC3339, s). */
function parseSinceTime(value: string): number {
  const ms = RFC3339.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw ApiError.badRequest(`parsing time ${goQuote(value)} as "2006-01-02T15:04:05Z07:00": cannot parse ${goQuote(value)} as "2006"`);
  return ms;
}

/** The query parameters of pods/log (the `stream` and `insecureSkipTLSVerifyBackend` ones change nothing here). */
export function podLogOptions(r: ApiRequest): PodLogOptions {
  const since = r.query('sinceTime');
  return {
    container: r.query('container') || undefined,
    follow: r.params.bool('follow') ?? false,
    previous: r.params.bool('previous') ?? false,
    timestamps: r.params.bool('timestamps') ?? false,
    tailLines: r.params.int64('tailLines'),
    limitBytes: r.params.int64('limitBytes'),
    sinceSeconds: r.params.int64('sinceSeconds'),
    sinceTime: since ? parseSinceTime(since) : undefined,
  };
}

/** ValidatePodLogOptions (pkg/apis/core/validation). */
export function validatePodLogOptions(podName: string, o: PodLogOptions): void {
  const causes: StatusCause[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0) causes.push({ reason: 'FieldValueInvalid', field: 'tailLines', message: `Invalid value: ${o.tailLines}: must be greater than or equal to 0` });
  if (o.limitBytes !== undefined && o.limitBytes < 1) causes.push({ reason: 'FieldValueInvalid', field: 'limitBytes', message: `Invalid value: ${o.limitBytes}: must be greater than 0` });
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) causes.push({ reason: 'FieldValueForbidden', field: '', message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified' });
  else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) causes.push({ reason: 'FieldValueInvalid', field: 'sinceSeconds', message: `Invalid value: ${o.sinceSeconds}: must be greater than 0` });
  if (causes.length) throw ApiError.invalid('', 'PodLogOptions', podName, causes);
}

const names = (list: Array<{ name: string }> | undefined): string => (list ?? []).map((c) => c.name).join(' ');

/** The container to read (pod.LogLocation): the only one, or the one named, else a 400. */
export function logContainer(pod: Pod, container: string | undefined): string {
  const name = pod.metadata.name;
  if (!container) {
    const containers = pod.spec.containers ?? [];
    if (containers.length === 1) return containers[0]!.name;
    if (containers.length === 0) throw ApiError.badRequest(`a container name must be specified for pod ${name}`);
    let msg = `a container name must be specified for pod ${name}, choose one of: [${names(containers)}]`;
    if (pod.spec.initContainers?.length) msg += ` or one of the init containers: [${names(pod.spec.initContainers)}]`;
    throw ApiError.badRequest(msg);
  }
  const known = [...pod.spec.containers, ...(pod.spec.initContainers ?? []), ...((pod.spec.ephemeralContainers as Array<{ name: string }> | undefined) ?? [])];
  if (!known.some((c) => c.name === container)) throw ApiError.badRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

interface Terminated {
  containerID?: string;
}

/**
 * The containerID whose log is read (the kubelet's validateContainerLogStatus): the previous
 * instance with `previous`, else the running one, else the last one that exited; a container
 * waiting to start has no log yet.
 */
export function logInstance(pod: Pod, container: string, previous: boolean): string {
  const podName = pod.metadata.name ?? '';
  const cs: ContainerStatus | undefined = pod.status?.containerStatuses?.find((s) => s.name === container) ?? pod.status?.initContainerStatuses?.find((s) => s.name === container);
  // Bound but not yet seen by the kubelet: what it reports for a pod it is starting.
  if (!cs) throw ApiError.badRequest(`container "${container}" in pod "${podName}" is waiting to start: ContainerCreating`);
  const last = cs.lastState?.terminated as Terminated | undefined;
  const state = cs.state ?? {};
  const terminated = state.terminated as Terminated | undefined;
  if (previous) {
    if (!last?.containerID) throw ApiError.badRequest(`previous terminated container "${container}" in pod "${podName}" not found`);
    return last.containerID;
  }
  if (state.running) return cs.containerID ?? '';
  if (terminated) {
    const id = terminated.containerID || cs.containerID || last?.containerID;
    if (!id) throw ApiError.badRequest(`container "${container}" in pod "${podName}" is terminated`);
    return id;
  }
  if (last) {
    if (!last.containerID) throw ApiError.badRequest(`container "${container}" in pod "${podName}" is terminated`);
    return last.containerID;
  }
  const reason = state.waiting?.reason;
  if (reason === 'ErrImagePull') throw ApiError.badRequest(`container "${container}" in pod "${podName}" is waiting to start: image can't be pulled`);
  if (reason === 'ImagePullBackOff') throw ApiError.badRequest(`container "${container}" in pod "${podName}" is waiting to start: trying and failing to pull image`);
  if (reason !== undefined) throw ApiError.badRequest(`container "${container}" in pod "${podName}" is waiting to start: ${reason}`);
  throw ApiError.badRequest(`container "${container}" in pod "${podName}" is waiting to start - no logs yet`);
}

/** types.RFC3339NanoFixed, the kubelet's timestamp prefix: nine fractional digits, UTC. */
export function rfc3339NanoFixed(line: Pick<LogLine, 'ms' | 'ns'>): string {
  const iso = new Date(line.ms).toISOString();
  return `${iso.slice(0, 19)}.${iso.slice(20, 23)}${String(line.ns).padStart(6, '0')}Z`;
}

/** The oldest moment a line may carry (NewLogOptions: sinceSeconds before now, or a later sinceTime). */
export function sinceMs(o: PodLogOptions, nowMs: number): number | undefined {
  let since = o.sinceSeconds !== undefined ? nowMs - o.sinceSeconds * 1000 : undefined;
  if (o.sinceTime !== undefined && (since === undefined || o.sinceTime > since)) since = o.sinceTime;
  return since;
}

/** Writes lines as the kubelet's logWriter does: tail first, then since, timestamps, and a byte limit that may cut a line. */
export class LogWriter {
  private remaining: number;
  private readonly since: number | undefined;

  constructor(
    private readonly o: PodLogOptions,
    nowMs: number,
  ) {
    this.remaining = o.limitBytes ?? Number.POSITIVE_INFINITY;
    this.since = sinceMs(o, nowMs);
  }

  /** Nothing more may be written (the byte limit is reached). */
  get done(): boolean {
    return this.remaining <= 0;
  }

  /** The text of the instance's lines so far, after tailLines. */
  initial(lines: readonly LogLine[]): string {
    const tail = this.o.tailLines === undefined ? lines : this.o.tailLines === 0 ? [] : lines.slice(-this.o.tailLines);
    let out = '';
    for (const l of tail) out += this.line(l);
    return out;
  }

  line(l: LogLine): string {
    if (this.done || (this.since !== undefined && l.ms + l.ns / 1e6 < this.since)) return '';
    const text = `${this.o.timestamps ? `${rfc3339NanoFixed(l)} ` : ''}${l.text}\n`;
    const bytes = Buffer.byteLength(text);
    if (bytes <= this.remaining) {
      this.remaining -= bytes;
      return text;
    }
    // The last line is cut at the limit (at a character boundary), and nothing follows it.
    const cut = Buffer.from(text).subarray(0, this.remaining).toString('utf8').replace(/\uFFFD$/, '');
    this.remaining = 0;
    return cut;
  }
}

/** Answers GET pods/NAME/log for `pod`, reading the kubelet's logs from `source`. */
export function servePodLog(r: ApiRequest, pod: Pod, source: PodLogSource | undefined): void {
  const o = podLogOptions(r);
  validatePodLogOptions(pod.metadata.name ?? '', o);
  const container = logContainer(pod, o.container);
  // A pod not bound to a node has no kubelet to ask: kube answers with an empty log.
  if (!pod.spec.nodeName) return r.sendText(200, '', 'text/plain');
  const containerID = logInstance(pod, container, o.previous);
  const uid = pod.metadata.uid ?? '';
  const writer = new LogWriter(o, Date.now());
  const first = writer.initial(source?.lines(uid, container, containerID) ?? []);
  if (!o.follow || !source || writer.done) return r.sendText(200, first, 'text/plain');
  r.startStream('text/plain');
  const res = r.res;
  if (first) res.write(first);
  let closed = false;
  let unsubscribe = (): void => {};
  const finish = (): void => {
    if (closed) return;
    closed = true;
    unsubscribe();
    res.end();
  };
  unsubscribe = source.follow(uid, container, containerID, {
    line(l) {
      const text = writer.line(l);
      if (text) res.write(text);
      if (writer.done) finish();
    },
    end: finish,
  });
  // follow() may have ended at once (the instance was over): nothing to wait for then.
  if (closed) unsubscribe();
  r.req.on('close', finish);
  res.on('close', finish);
}
