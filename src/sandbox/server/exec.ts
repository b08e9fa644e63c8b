// pods/exec: the API server's checks (registry/core/pod/strategy.go streamLocation: the pod, a
// valid container, a node) before the upgrade, then the kubelet's side over WebSocket
// (v5.channel.k8s.io / v4.channel.k8s.io, as kube-apiserver 1.32 answers kubectl): an empty message
// on the first output channel, the process's output on channels 1 and 2, its Status on channel 3,
// then a normal close. The process is the sandbox's simulated command set (../exec/shell.ts). SPDY,
// which kubectl falls back to only when the WebSocket upgrade fails, is refused with a clear Status.
// The WebSocket is ws (loaded on the first exec), given the socket once our checks have passed.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomBytes } from 'node:crypto';
import type { WebSocket, WebSocketServer } from 'ws';
import { CHANNEL, channelMessage, CLOSE, EXEC_PROTOCOLS, EXIT_CODE_CAUSE, NON_ZERO_EXIT_REASON, type ExecProtocol } from '../../lib/remotecommand';
import type { ContainerStatus, Pod } from '../../kruise/types';
import { containerEnv, podHostname } from '../exec/container-env';
import { ExecNotFound, InputQueue, Interrupted, runInContainer, SANDBOX_COMMANDS, type ContainerProcess } from '../exec/shell';
import { ApiError } from './errors';
import type { FaultInjector } from './faults';
import { bearerUser, type AuthConfig } from './http';
import { authorizeRequest, forbiddenMessage } from './authz';
import { parseResourcePath, type AuditRecord } from './request';
import type { MemoryStore } from './store';

export interface ExecServerOptions {
  store: MemoryStore;
  faults: FaultInjector;
  auth?: AuthConfig;
  audit: (r: AuditRecord) => void;
}

const PODS = { group: '', resource: 'pods' };
/** Most bytes one client message may have (kubectl sends stdin in chunks of 32 KiB at most). */
const MAX_CLIENT_MESSAGE = 4 * 1024 * 1024;
/** How long to wait for the client's close frame after ours. */
const CLOSE_GRACE_MS = 2000;

interface ExecOptions {
  command: string[];
  container: string;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

function bool(url: URL, name: string): boolean {
  const v = url.searchParams.get(name);
  if (v === null || v === '' || v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1') return true;
  throw ApiError.badRequest(`invalid value "${v}" for ${name}: expected true or false`);
}

type PodContainer = { name: string; env?: unknown; envFrom?: unknown; resources?: unknown };

function containersOf(pod: Pod): { regular: PodContainer[]; init: PodContainer[]; ephemeral: PodContainer[] } {
  return {
    regular: pod.spec.containers,
    init: pod.spec.initContainers ?? [],
    ephemeral: Array.isArray(pod.spec.ephemeralContainers) ? (pod.spec.ephemeralContainers as PodContainer[]) : [],
  };
}

/** streamLocation's validateContainer: the named container, or the only one. */
function chooseContainer(pod: Pod, requested: string | null): PodContainer {
  const name = pod.metadata.name ?? '';
  const { regular, init, ephemeral } = containersOf(pod);
  if (!requested) {
    if (regular.length === 1) return regular[0]!;
    if (regular.length === 0) throw ApiError.badRequest(`a container name must be specified for pod ${name}`);
    let message = `a container name must be specified for pod ${name}, choose one of: [${regular.map((c) => c.name).join(' ')}]`;
    if (init.length) message += ` or one of the init containers: [${init.map((c) => c.name).join(' ')}]`;
    throw ApiError.badRequest(message);
  }
  const found = [...regular, ...init, ...ephemeral].find((c) => c.name === requested);
  if (!found) throw ApiError.badRequest(`container ${requested} is not valid for pod ${name}`);
  return found;
}

/** The kubelet finds a running container of that name (else: container not found). */
function isRunning(pod: Pod, container: string): boolean {
  const status = (pod.status ?? {}) as { phase?: string; containerStatuses?: ContainerStatus[]; initContainerStatuses?: ContainerStatus[]; ephemeralContainerStatuses?: ContainerStatus[] };
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return false;
  const statuses = [...(status.containerStatuses ?? []), ...(status.initContainerStatuses ?? []), ...(status.ephemeralContainerStatuses ?? [])];
  return !!statuses.find((s) => s.name === container)?.state?.running;
}

function statusJson(status: Record<string, unknown>): Buffer {
  return Buffer.from(JSON.stringify({ metadata: {}, ...status }));
}

/** The kubelet's Status for how the process ended (remotecommand/exec.go ServeExec). */
function exitStatus(argv: string[], code: number): Buffer {
  if (code === 0) return statusJson({ status: 'Success' });
  return statusJson({
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${argv.join(' ')}], exit code ${code}`,
    reason: NON_ZERO_EXIT_REASON,
    details: { causes: [{ reason: EXIT_CODE_CAUSE, message: String(code) }] },
  });
}

function internalStatus(message: string): Buffer {
  return statusJson({ status: 'Failure', message: `Internal error occurred: ${message}`, reason: 'InternalError', details: { causes: [{ message }] }, code: 500 });
}

/**
 * The TTY's line discipline: echo, erase, Ctrl-C (interrupt), Ctrl-D (end of input), and lines
 * handed to the process as Enter is pressed.
 */
class LineDiscipline {
  private line = '';

  constructor(
    private readonly queue: InputQueue,
    private readonly echo: (text: string) => void,
    private readonly interrupt: () => void,
  ) {}

  input(text: string): void {
    for (const c of text) {
      if (c === '\r' || c === '\n') {
        this.echo('\n');
        this.queue.push(`${this.line}\n`);
        this.line = '';
      } else if (c === '\x7f' || c === '\b') {
        if (this.line) {
          this.line = this.line.slice(0, -1);
          this.echo('\b \b');
        }
      } else if (c === '\x03') {
        this.echo('^C\n');
        this.line = '';
        this.interrupt();
      } else if (c === '\x04') {
        if (this.line === '') this.queue.end();
        else {
          this.queue.push(this.line);
          this.line = '';
        }
      } else if (c === '\x15') {
        this.echo('\b \b'.repeat(this.line.length));
        this.line = '';
      } else if (c >= ' ' || c === '\t') {
        this.line += c;
        this.echo(c);
      }
    }
  }
}

function httpError(socket: Duplex, err: ApiError): void {
  const body = JSON.stringify(err.toStatus());
  const text = `${err.code} ${{ 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 500: 'Internal Server Error' }[err.code] ?? 'Error'}`;
  socket.end(`HTTP/1.1 ${text}\r\nContent-Type: application/json\r\nCache-Control: no-cache, private\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

export interface UpgradeHandler {
  (req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Ends every exec still streaming (going away): an upgraded socket would hold the server's close open. */
  closeAll(): void;
}

/** The first of the client's offers (its order) that we speak: v5, else v4. */
function chooseProtocol(offered: Iterable<string>): ExecProtocol | undefined {
  for (const o of offered) if ((EXEC_PROTOCOLS as readonly string[]).includes(o)) return o as ExecProtocol;
  return undefined;
}

export function createUpgradeHandler(opts: ExecServerOptions): UpgradeHandler {
  /** Sockets between the upgrade request and the WebSocket (checks, latency): each refused one is answered by its own request. */
  const pending = new Map<Duplex, (err: ApiError) => void>();
  let wss: Promise<WebSocketServer> | undefined;
  const webSockets = (): Promise<WebSocketServer> =>
    (wss ??= import('ws').then(({ WebSocketServer }) => {
      const server = new WebSocketServer({
        noServer: true,
        maxPayload: MAX_CLIENT_MESSAGE,
        handleProtocols: (offered) => chooseProtocol(offered) ?? false,
        closeTimeout: CLOSE_GRACE_MS,
      } as ConstructorParameters<typeof WebSocketServer>[0]);
      // What ws itself refuses (the method, a missing key, the version): a Status, audited, as every refusal.
      server.on('wsClientError', (err, socket) => {
        const refuse = pending.get(socket);
        if (refuse) refuse(/method/i.test(err.message) ? ApiError.methodNotAllowed('a WebSocket upgrade is a GET request') : ApiError.badRequest(`invalid WebSocket upgrade: ${err.message}`));
        else socket.destroy();
      });
      return server;
    }));

  const handler = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const started = performance.now();
    const time = new Date().toISOString();
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const method = (req.method ?? 'GET').toUpperCase();
    let user = 'system:admin';
    const verb = method === 'POST' ? 'create' : 'get';
    const audit = (code: number): void =>
      opts.audit({ time, user, verb, method, path: url.pathname, query: url.search.replace(/^\?/, ''), contentType: req.headers['content-type'] ?? '', code, durationMs: Math.round((performance.now() - started) * 100) / 100 });
    socket.on('error', () => undefined);
    const refuse = (err: ApiError): void => {
      pending.delete(socket);
      audit(err.code);
      httpError(socket, err);
    };
    pending.set(socket, refuse);
    socket.once('close', () => pending.delete(socket));
    void (async () => {
      const p = parseResourcePath(url.pathname);
      if (opts.auth) {
        const who = bearerUser(opts.auth, req.headers.authorization);
        if (!who) {
          user = 'system:anonymous';
          throw ApiError.unauthorized();
        }
        user = who;
      }
      if (!p || p.group !== '' || p.resource !== 'pods' || !p.name || !p.namespace || !p.subresource) {
        throw ApiError.badRequest(`the sandbox answers an upgrade (${req.headers.upgrade ?? 'none'}) only for pods/exec, not for ${url.pathname}`);
      }
      if (p.subresource !== 'exec') throw ApiError.badRequest(`pods/${p.subresource} is not simulated by the sandbox (pods/exec is)`);
      if (method !== 'GET' && method !== 'POST') throw ApiError.methodNotAllowed();
      // kube authorizes a WebSocket GET of pods/exec as create too (AuthorizePodWebsocketUpgradeCreatePermission).
      if (opts.auth?.readOnlyUsers.has(user)) {
        throw ApiError.forbidden('', 'pods', p.name, `User "${user}" cannot create resource "pods/exec" in API group "" in the namespace "${p.namespace}"`);
      }
      if (opts.auth?.rbacUsers?.has(user)) {
        const attrs = { resourceRequest: true as const, verb: 'create', group: '', resource: 'pods', subresource: 'exec', name: p.name, namespace: p.namespace };
        const decision = authorizeRequest(opts.auth, opts.store, user, attrs);
        if (!decision.allowed) throw ApiError.forbidden('', 'pods', p.name, forbiddenMessage(user, attrs, decision.reason));
      }
      if (opts.faults.latencyMs > 0) await new Promise((res) => setTimeout(res, opts.faults.latencyMs));
      const injected = opts.faults.errorFor(method === 'POST' ? 'create' : 'get');
      if (injected) throw injected;

      const pod = opts.store.getRef(PODS, p.namespace, p.name) as Pod | undefined;
      if (!pod) throw ApiError.notFound('', 'pods', p.name);
      const options: ExecOptions = {
        command: url.searchParams.getAll('command'),
        container: '',
        stdin: bool(url, 'stdin'),
        stdout: bool(url, 'stdout'),
        stderr: bool(url, 'stderr'),
        tty: bool(url, 'tty'),
      };
      if (!options.stdin && !options.stdout && !options.stderr) throw ApiError.badRequest('you must specify at least 1 of stdin, stdout, stderr');
      if (options.command.length === 0) throw ApiError.badRequest('you must specify at least one command for the container');
      const container = chooseContainer(pod, url.searchParams.get('container'));
      options.container = container.name;
      if (!pod.spec.nodeName) throw ApiError.badRequest(`pod ${p.name} does not have a host assigned`);
      // The kubelet bypasses stderr under a TTY: the terminal carries both.
      if (options.tty) options.stderr = false;

      const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
      if (!upgrade.split(/\s*,\s*/).includes('websocket')) {
        throw ApiError.badRequest(
          `the sandbox streams exec over WebSocket only (${EXEC_PROTOCOLS.join(', ')}), not ${req.headers.upgrade ?? 'a plain request'}: use kubectl >= 1.30 or kubectl kruise exec`,
        );
      }
      const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      if (!chooseProtocol(offered)) throw ApiError.badRequest(`requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${EXEC_PROTOCOLS.join(' ')}]`);

      (await webSockets()).handleUpgrade(req, socket, head, (ws) => {
        pending.delete(socket);
        audit(101);
        session(ws, pod, container, options, opts.store);
      });
    })().catch((err: unknown) => {
      if (err instanceof ApiError) return refuse(err);
      process.stderr.write(`sandbox: internal error on exec ${url.pathname}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      refuse(ApiError.internal(err instanceof Error ? err.message : String(err)));
    });
  };
  return Object.assign(handler, {
    closeAll: () => {
      for (const socket of pending.keys()) socket.destroy();
      void wss?.then((server) => {
        for (const ws of server.clients) {
          ws.close(CLOSE.goingAway, 'the sandbox is stopping');
          setTimeout(() => ws.terminate(), 200).unref(); // time for the client to read why
        }
      });
    },
  });
}

/** One exec over its WebSocket: the process, its output as messages, its Status, the close. */
function session(ws: WebSocket, pod: Pod, container: PodContainer, options: ExecOptions, store: MemoryStore): void {
  const protocol = ws.protocol;
  const queue = new InputQueue();
  let foreground = new AbortController();
  let closed = false;
  let size: { rows: number; cols: number } | undefined;

  const send = (data: Buffer): void => {
    if (ws.readyState === ws.OPEN) ws.send(data, { binary: true });
  };
  const drop = (): void => {
    if (closed) return;
    closed = true;
    foreground.abort();
    queue.end();
  };
  // A TTY turns "\n" into "\r\n" (onlcr) and carries stderr too.
  const toTerminal = (text: string): string => text.replace(/\r?\n/g, '\r\n');
  const out = (text: string): void => {
    if (options.tty) send(channelMessage(CHANNEL.stdout, Buffer.from(toTerminal(text))));
    else if (options.stdout) send(channelMessage(CHANNEL.stdout, Buffer.from(text)));
  };
  const err = (text: string): void => {
    if (options.tty) out(text);
    else if (options.stderr) send(channelMessage(CHANNEL.stderr, Buffer.from(text)));
  };
  const discipline = options.tty
    ? new LineDiscipline(queue, out, () => {
        foreground.abort();
        if (!closed) foreground = new AbortController();
      })
    : undefined;
  if (!options.stdin) queue.end();

  ws.on('message', (data: Buffer) => {
    if (data.length === 0) return;
    const channel = data[0]!;
    const payload = data.subarray(1);
    if (channel === CHANNEL.stdin && options.stdin) {
      const text = payload.toString('utf8');
      if (discipline) discipline.input(text);
      else queue.push(text);
    } else if (channel === CHANNEL.resize) {
      try {
        const s = JSON.parse(payload.toString('utf8')) as { Width?: number; Height?: number };
        size = { rows: Number(s.Height) || 0, cols: Number(s.Width) || 0 };
      } catch {
        /* a malformed size is ignored, as the kubelet logs and drops it */
      }
    } else if (channel === CHANNEL.close && protocol === 'v5.channel.k8s.io' && payload[0] === CHANNEL.stdin) {
      queue.end();
    }
  });
  // ws answers pings and the client's close itself, and closes with 1002/1009 on a broken frame ('error', then 'close').
  ws.on('error', drop);
  ws.on('close', drop);

  // "Send an empty message to the lowest writable channel to notify the client the connection is established."
  send(channelMessage(options.stdout || options.tty ? CHANNEL.stdout : options.stderr ? CHANNEL.stderr : CHANNEL.error));

  const finish = (status: Buffer): void => {
    send(channelMessage(CHANNEL.error, status));
    if (ws.readyState === ws.OPEN) ws.close(CLOSE.normal); // ws waits CLOSE_GRACE_MS for the client's answer
    queue.end();
  };

  if (!isRunning(pod, container.name)) {
    finish(internalStatus(`unable to upgrade connection: container not found ("${container.name}")`));
    return;
  }
  const proc: ContainerProcess = {
    env: containerEnv(pod, container, { get: (gr, ns, name) => store.getRef(gr, ns, name) }, options.tty),
    hostname: podHostname(pod),
    stdin: queue,
    io: { out, err },
    signal: () => foreground.signal,
    terminal: options.tty ? () => size : undefined,
  };
  runInContainer(options.command, proc).then(
    (code) => finish(exitStatus(options.command, code)),
    (e: unknown) => {
      if (e instanceof Interrupted) {
        if (closed) return ws.terminate();
        return finish(exitStatus(options.command, 130));
      }
      if (e instanceof ExecNotFound) {
        const id = randomBytes(32).toString('hex');
        return finish(
          internalStatus(
            `error executing command in container: failed to exec in container: failed to start exec "${id}": OCI runtime exec failed: exec failed: unable to start container process: ${e.message}: unknown (the sandbox's containers run: ${SANDBOX_COMMANDS.join(', ')})`,
          ),
        );
      }
      finish(internalStatus(`error executing command in container: ${e instanceof Error ? e.message : String(e)}`));
    },
  );
}
