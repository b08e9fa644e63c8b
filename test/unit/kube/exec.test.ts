// The exec client (src/kube/exec.ts) against a scripted WebSocket server (ws): the Status decoding rows
// of client-go tools/remotecommand/v4_test.go TestV4ErrorDecoder, v5 then v4 negotiation (the stdin
// close signal only on v5), terminal sizes, fragments and pings, and every way the upgrade can fail.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, type Duplex } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { CliError } from '../../../src/cli/exit';
import { KubeApiError } from '../../../src/kube/errors';
import { decodeExecStatus, execInPod, type ExecRequest, type ExecStreams } from '../../../src/kube/exec';
import { isAbortError } from '../../../src/kube/http';
import { makeRedactor } from '../../../src/kube/redact';
import { CHANNEL, channelMessage } from '../../../src/lib/remotecommand';
import { startFakeApi, testTransport } from './fake-api';

const api = await startFakeApi();
after(() => api.close());

interface Peer {
  req: IncomingMessage;
  ws: WebSocket;
  /** Client messages so far (channel byte first), and the payloads of the pongs it answered with. */
  messages: Buffer[];
  pongs: Buffer[];
  send(channel: number, data?: string | Buffer): void;
  close(code?: number, reason?: string): void;
  next(pred: (m: Buffer) => boolean): Promise<Buffer>;
}

type Script = (peer: Peer) => void | Promise<void>;

/**
 * The next upgrade is answered with `protocol` (null: none; `accept` replaces the Sec-WebSocket-Accept
 * header), or `respond` writes its own answer, and scripted.
 */
function serveNext(script: Script, opts: { protocol?: string | null; accept?: string; respond?: (req: IncomingMessage, socket: Duplex) => void; maxPayload?: number } = {}): void {
  api.server.removeAllListeners('upgrade');
  api.server.once('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    if (opts.respond) return opts.respond(req, socket);
    const protocol = opts.protocol === undefined ? 'v5.channel.k8s.io' : opts.protocol;
    const wss = new WebSocketServer({ noServer: true, handleProtocols: () => protocol ?? false, ...(opts.maxPayload ? { maxPayload: opts.maxPayload } : {}) });
    if (opts.accept) {
      wss.on('headers', (headers) => {
        const i = headers.findIndex((h) => h.startsWith('Sec-WebSocket-Accept:'));
        headers[i] = `Sec-WebSocket-Accept: ${opts.accept}`;
      });
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', () => undefined);
      const waiters: Array<{ pred: (m: Buffer) => boolean; resolve: (m: Buffer) => void }> = [];
      const peer: Peer = {
        req,
        ws,
        messages: [],
        pongs: [],
        send: (channel, data = '') => ws.send(channelMessage(channel, Buffer.from(data)), { binary: true }),
        close: (code = 1000, reason) => ws.close(code, reason),
        next: (pred) =>
          new Promise((resolve) => {
            const hit = peer.messages.find(pred);
            if (hit) return resolve(hit);
            waiters.push({ pred, resolve });
          }),
      };
      ws.on('pong', (data: Buffer) => peer.pongs.push(data));
      ws.on('message', (data: Buffer) => {
        peer.messages.push(data);
        for (const w of waiters.splice(0)) {
          if (w.pred(data)) w.resolve(data);
          else waiters.push(w);
        }
      });
      void script(peer);
    });
  });
}

const REQ: ExecRequest = { namespace: 'default', pod: 'web-0', container: 'mesh-2', command: ['sh', '-c', 'echo a b'], stdin: false, stdout: true, stderr: true, tty: false };
const SUCCESS = '{"metadata":{},"status":"Success"}';
const exitStatus = (code: number) => JSON.stringify({ metadata: {}, status: 'Failure', message: `command terminated with non-zero exit code: error executing command [sh], exit code ${code}`, reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: String(code) }] } });

function collect(extra: Partial<ExecStreams> = {}): { io: ExecStreams; out: () => string; err: () => string } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  return { io: { stdout: (c) => out.push(Buffer.from(c)), stderr: (c) => err.push(Buffer.from(c)), ...extra }, out: () => Buffer.concat(out).toString(), err: () => Buffer.concat(err).toString() };
}

test('client-go v4_test.go TestV4ErrorDecoder rows: the Status on the error channel decides the exit', () => {
  const rows: Array<[string, { exitCode: number; message?: string } | RegExp]> = [
    ['{}', /^error stream protocol error: unknown error$/],
    ['{', /^error stream protocol error: .* in "\{"$/], // Go words the JSON error "unexpected end of JSON input"
    ['{"status": "Success" }', { exitCode: 0 }],
    ['{"status": "Failure", "message": "foobar" }', /^foobar$/],
    ['{"status": "Failure", "message": "foobar", "reason": "NonZeroExitCode", "details": {"causes": [{"reason": "foo"}] } }', /^error stream protocol error: no ExitCode cause given$/],
    ['{"status": "Failure", "message": "foobar", "reason": "NonZeroExitCode", "details": {"causes": [{"reason": "ExitCode"}] } }', /^error stream protocol error: invalid exit code value ""$/],
    ['{"status": "Failure", "message": "foobar", "reason": "NonZeroExitCode", "details": {"causes": [{"reason": "ExitCode", "message": "42"}] } }', { exitCode: 42, message: 'command terminated with exit code 42' }],
  ];
  for (const [message, want] of rows) {
    if (want instanceof RegExp) assert.throws(() => decodeExecStatus(message), (e: unknown) => e instanceof CliError && want.test(e.message), message);
    else assert.deepEqual(decodeExecStatus(message), want, message);
  }
  // Beyond the table: no Status at all (a normal close) is success, as client-go's watchErrorStream reads it.
  assert.deepEqual(decodeExecStatus(''), { exitCode: 0 });
});

test('v5: one GET upgrade with the credentials and both protocols; stdout and stderr apart; stdin then the close signal; the exit code from the Status', async () => {
  serveNext(async (peer) => {
    peer.send(CHANNEL.stdout); // "connection established"
    const input = await peer.next((m) => m[0] === CHANNEL.stdin);
    await peer.next((m) => m[0] === CHANNEL.close);
    peer.send(CHANNEL.stdout, `got:${input.subarray(1).toString()}`);
    peer.send(CHANNEL.stderr, 'warn\n');
    peer.send(CHANNEL.error, exitStatus(3));
    peer.close();
  });
  const { transport } = testTransport(api.url, { credentials: () => ({ authorization: 'Bearer tok-123456' }), headers: { 'Impersonate-User': 'jane' } });
  const stdin = new PassThrough();
  const c = collect({ stdin });
  const run = execInPod(transport, { ...REQ, stdin: true }, c.io);
  stdin.end('hello');
  const outcome = await run;
  assert.deepEqual(outcome, { exitCode: 3, message: 'command terminated with exit code 3', protocol: 'v5.channel.k8s.io' });
  assert.equal(c.out(), 'got:hello');
  assert.equal(c.err(), 'warn\n');
});

test('the upgrade request: GET, path, repeated command, container, headers kubectl sends', async () => {
  let seen: IncomingMessage | undefined;
  serveNext((peer) => {
    seen = peer.req;
    peer.send(CHANNEL.error, SUCCESS);
    peer.close();
  });
  const { transport } = testTransport(api.url, { credentials: () => ({ authorization: 'Bearer tok-123456' }), headers: { 'Impersonate-User': 'jane' } });
  assert.equal((await execInPod(transport, REQ, collect().io)).exitCode, 0);
  assert.equal(seen!.method, 'GET');
  assert.equal(seen!.url, '/api/v1/namespaces/default/pods/web-0/exec?command=sh&command=-c&command=echo%20a%20b&container=mesh-2&stdout=true&stderr=true');
  assert.equal(seen!.headers.authorization, 'Bearer tok-123456');
  assert.equal(seen!.headers['impersonate-user'], 'jane');
  assert.deepEqual(String(seen!.headers['sec-websocket-protocol']).split(/\s*,\s*/), ['v5.channel.k8s.io', 'v4.channel.k8s.io']);
  assert.equal(seen!.headers.upgrade, 'websocket');
  assert.equal(seen!.headers['sec-websocket-version'], '13');
});

test('v4 (an older server): stdin flows, but its end sends no close signal (v4 has none)', async () => {
  let peerRef: Peer | undefined;
  serveNext(async (peer) => {
    peerRef = peer;
    await peer.next((m) => m[0] === CHANNEL.stdin && m.subarray(1).toString() === 'x');
    setTimeout(() => {
      peer.send(CHANNEL.error, SUCCESS);
      peer.close();
    }, 100);
  }, { protocol: 'v4.channel.k8s.io' });
  const { transport } = testTransport(api.url);
  const stdin = new PassThrough();
  const run = execInPod(transport, { ...REQ, stdin: true }, collect({ stdin }).io);
  stdin.end('x');
  const outcome = await run;
  assert.deepEqual(outcome, { exitCode: 0, protocol: 'v4.channel.k8s.io' });
  assert.ok(!peerRef!.messages.some((m) => m[0] === CHANNEL.close), 'no [255, 0] on v4');
});

test('TTY: the terminal size first, then each change, as {"Width","Height"} on channel 4', async () => {
  let listener: (() => void) | undefined;
  let size = { width: 80, height: 24 };
  serveNext(async (peer) => {
    const first = await peer.next((m) => m[0] === CHANNEL.resize);
    assert.deepEqual(JSON.parse(first.subarray(1).toString()), { Width: 80, Height: 24 });
    size = { width: 120, height: 40 };
    listener!();
    await peer.next((m) => m[0] === CHANNEL.resize && m.subarray(1).toString().includes('120'));
    peer.send(CHANNEL.error, SUCCESS);
    peer.close();
  });
  const { transport } = testTransport(api.url);
  const c = collect({ terminalSize: { current: () => size, onChange: (l) => ((listener = l), () => (listener = undefined)) } });
  assert.equal((await execInPod(transport, { ...REQ, tty: true, stderr: false }, c.io)).exitCode, 0);
  assert.equal(listener, undefined, 'unsubscribed at the end');
});

test('a message in fragments is joined; a ping is answered with a pong; the connection message is ignored', async () => {
  let peerRef: Peer | undefined;
  serveNext(async (peer) => {
    peerRef = peer;
    peer.send(CHANNEL.stdout);
    peer.ws.send(Buffer.from([CHANNEL.stdout, ...Buffer.from('hel')]), { binary: true, fin: false });
    peer.ws.ping(Buffer.from('p1'));
    peer.ws.send(Buffer.from('lo'), { binary: true, fin: true });
    await new Promise<void>((r) => {
      const poll = setInterval(() => {
        if (peer.pongs.length > 0) {
          clearInterval(poll);
          r();
        }
      }, 5);
    });
    peer.send(CHANNEL.error, SUCCESS);
    peer.close();
  });
  const { transport } = testTransport(api.url);
  const c = collect();
  await execInPod(transport, REQ, c.io);
  assert.equal(c.out(), 'hello');
  assert.deepEqual(peerRef!.pongs, [Buffer.from('p1')]);
});

test('a refused upgrade is the Status message (KubeApiError, exit 1); a non-JSON refusal keeps the HTTP status', async () => {
  serveNext(() => undefined, {
    respond: (_req, socket) => {
      const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'container nope is not valid for pod web-0', reason: 'BadRequest', code: 400 });
      socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    },
  });
  const { transport } = testTransport(api.url);
  await assert.rejects(execInPod(transport, REQ, collect().io), (e: unknown) => e instanceof KubeApiError && e.status === 400 && e.exitCode === 1 && e.message === 'container nope is not valid for pod web-0');
  serveNext(() => undefined, { respond: (_req, socket) => socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 7\r\n\r\ngateway') });
  await assert.rejects(execInPod(transport, REQ, collect().io), /the server returned 502 Bad Gateway for create pods\/exec web-0/);
});

test('a server that does not agree on a protocol, or answers with a wrong accept key, is refused', async () => {
  const { transport } = testTransport(api.url);
  serveNext(() => undefined, { protocol: null });
  await assert.rejects(execInPod(transport, REQ, collect().io), /did not agree on an exec protocol \(offered v5\.channel\.k8s\.io, v4\.channel\.k8s\.io\)/);
  serveNext(() => undefined, { protocol: 'channel.k8s.io' });
  await assert.rejects(execInPod(transport, REQ, collect().io), /it chose channel\.k8s\.io/);
  serveNext(() => undefined, { accept: 'bm90IHRoZSBrZXk=' });
  await assert.rejects(execInPod(transport, REQ, collect().io), /wrong Sec-WebSocket-Accept/);
});

test('a connection lost before any Status is an error, not a silent success; a masked server frame or a message over the limit breaks the protocol', async () => {
  const { transport } = testTransport(api.url);
  serveNext((peer) => {
    peer.send(CHANNEL.stdout, 'partial');
    peer.ws.terminate();
  });
  await assert.rejects(execInPod(transport, REQ, collect().io), /the connection to the server was lost before the command finished/);
  // A Status already received still says how the command ended.
  serveNext((peer) => {
    peer.send(CHANNEL.error, exitStatus(5));
    setTimeout(() => peer.ws.terminate(), 50);
  });
  assert.equal((await execInPod(transport, REQ, collect().io)).exitCode, 5);
  serveNext((peer) => peer.ws.send(channelMessage(CHANNEL.stdout, Buffer.from('x')), { binary: true, mask: true }));
  await assert.rejects(execInPod(transport, REQ, collect().io), /the exec stream from the server broke the WebSocket protocol: Invalid WebSocket frame: MASK must be clear$/);
  serveNext((peer) => peer.send(CHANNEL.stdout, Buffer.alloc(16 * 1024 * 1024 + 1)));
  await assert.rejects(execInPod(transport, REQ, collect().io), /broke the WebSocket protocol: .*Max payload size exceeded/);
});

test('a server that closes with an error code before any Status: the code and reason are the error', async () => {
  const { transport } = testTransport(api.url);
  serveNext((peer) => peer.close(1011, 'kubelet went away'));
  await assert.rejects(execInPod(transport, REQ, collect().io), (e: unknown) => e instanceof CliError && e.message === 'the server closed the exec stream: 1011 kubelet went away');
});

test('--request-timeout bounds the handshake, not the stream; an abort ends either', async () => {
  // A server that never answers the upgrade.
  serveNext(() => undefined, { respond: () => undefined });
  const slow = testTransport(api.url, { requestTimeoutMs: 300 }).transport;
  const t = Date.now();
  await assert.rejects(execInPod(slow, REQ, collect().io), (e: unknown) => e instanceof CliError && /^the request to http:\/\/127\.0\.0\.1:\d+ timed out after 300ms \(--request-timeout\)$/.test(e.message));
  assert.ok(Date.now() - t < 5000);
  // Once open, a stream longer than the timeout runs to its end.
  serveNext((peer) => {
    setTimeout(() => {
      peer.send(CHANNEL.stdout, 'late');
      peer.send(CHANNEL.error, SUCCESS);
      peer.close();
    }, 600);
  });
  const c = collect();
  assert.equal((await execInPod(slow, REQ, c.io)).exitCode, 0);
  assert.equal(c.out(), 'late');
  // Aborted while streaming: the server sees 1001 (going away).
  let closed: number | undefined;
  serveNext((peer) => {
    peer.ws.on('close', (code) => (closed = code));
    peer.send(CHANNEL.stdout, 'running');
  });
  const controller = new AbortController();
  const run = execInPod(testTransport(api.url).transport, REQ, collect({ stdout: () => controller.abort(), signal: controller.signal }).io);
  await assert.rejects(run, (e: unknown) => isAbortError(e));
  await new Promise<void>((r) => {
    const poll = setInterval(() => closed !== undefined && (clearInterval(poll), r()), 5);
  });
  assert.equal(closed, 1001);
});

test('-v9 logs the upgrade (101) with the bearer token redacted', async () => {
  serveNext((peer) => {
    peer.send(CHANNEL.error, SUCCESS);
    peer.close();
  });
  const token = 'sekret-token-0123456789';
  const { transport, lines } = testTransport(api.url, { verbosity: 9, credentials: () => ({ authorization: `Bearer ${token}` }), redact: makeRedactor([token]) });
  await execInPod(transport, REQ, collect().io);
  assert.ok(lines.some((l) => /^GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/default\/pods\/web-0\/exec\?command=sh.* 101 Switching Protocols in \d+ milliseconds$/.test(l)), lines.join('\n'));
  assert.ok(lines.some((l) => l === 'Request Header: "Authorization: Bearer <redacted>"'), lines.join('\n'));
  assert.ok(!lines.some((l) => l.includes(token)));
});
