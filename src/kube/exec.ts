// `pods/exec` over WebSocket, as kubectl >= 1.30 speaks it (client-go tools/remotecommand
// websocket.go): one GET upgrade offering v5.channel.k8s.io then v4.channel.k8s.io (the WebSocket
// itself is ws, opened by Transport.webSocket with the transport's settings), binary messages
// whose first byte is the channel (0 stdin, 1 stdout, 2 stderr, 3 the final Status, 4 terminal
// size), and with v5 a [255, 0] message when stdin ends. kubectl would fall back to SPDY when the
// upgrade itself fails; we do not speak SPDY: the server's answer is the error (every API server
// since 1.30 translates WebSocket for the kubelet, and kubelets spoke it long before).
import { CliError } from '../cli/exit';
import { CHANNEL, channelMessage, CLOSE, EXEC_PROTOCOLS, EXIT_CODE_CAUSE, NON_ZERO_EXIT_REASON } from '../lib/remotecommand';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { KubeStatus } from './errors';
import { AbortError, type Transport } from './http';

export interface ExecRequest {
  namespace: string;
  pod: string;
  container: string;
  command: string[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

export interface TerminalSize {
  width: number;
  height: number;
}

export interface ExecStreams {
  /** Read only when the request has stdin: chunks, then 'end'. */
  stdin?: NodeJS.ReadableStream;
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** With a TTY: the size now, and a subscription to its changes (returns the unsubscribe). */
  terminalSize?: { current(): TerminalSize | undefined; onChange(listener: () => void): () => void };
  signal?: AbortSignal;
}

export interface ExecOutcome {
  /** The remote command's exit code (0 when the Status said Success). */
  exitCode: number;
  /** kubectl's line for a non-zero exit: "command terminated with exit code N". */
  message?: string;
  protocol: string;
}

/** Most bytes one message from the server may have (the server sends its output in small pieces). */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** The query of a PodExecOptions, repeated `command` first as kubectl's parameter codec orders it. */
export function execQuery(r: ExecRequest): string {
  const parts = r.command.map((c) => `command=${encodeURIComponent(c)}`);
  parts.push(`container=${encodeURIComponent(r.container)}`);
  if (r.stdin) parts.push('stdin=true');
  if (r.stdout) parts.push('stdout=true');
  if (r.stderr) parts.push('stderr=true');
  if (r.tty) parts.push('tty=true');
  return parts.join('&');
}

/**
 * The exit of the remote command from the Status on the error channel (client-go's
 * errorDecoderV4): Success is 0; NonZeroExitCode carries the code in a cause of type ExitCode;
 * any other failure is an error with the Status' message (kubectl prints it, exit 1).
 */
export function decodeExecStatus(text: string): { exitCode: number; message?: string } {
  if (text === '') return { exitCode: 0 };
  let status: KubeStatus;
  try {
    status = JSON.parse(text) as KubeStatus;
  } catch (err) {
    throw new CliError(`error stream protocol error: ${err instanceof Error ? err.message : String(err)} in ${JSON.stringify(text.slice(0, 200))}`);
  }
  if (status.status === 'Success') return { exitCode: 0 };
  if (status.status !== 'Failure') throw new CliError('error stream protocol error: unknown error');
  if (status.reason === NON_ZERO_EXIT_REASON) {
    if (!status.details) throw new CliError('error stream protocol error: details must be set');
    const cause = status.details.causes?.find((c) => c.reason === EXIT_CODE_CAUSE || c.type === EXIT_CODE_CAUSE);
    if (!cause) throw new CliError(`error stream protocol error: no ${EXIT_CODE_CAUSE} cause given`);
    const text = cause.message ?? '';
    const code = Number(text);
    if (!/^\d+$/.test(text) || code > 255) throw new CliError(`error stream protocol error: invalid exit code value ${JSON.stringify(text)}`);
    return { exitCode: code, message: `command terminated with exit code ${code}` };
  }
  throw new CliError(status.message || 'the command failed in the container (no message)');
}

/** Runs one exec: resolves with the remote exit code once the server closes the stream. */
export async function execInPod(transport: Transport, r: ExecRequest, io: ExecStreams): Promise<ExecOutcome> {
  const path = `/api/v1/namespaces/${encodeURIComponent(r.namespace)}/pods/${encodeURIComponent(r.pod)}/exec`;
  const { ws, socket } = await transport.webSocket({
    path,
    rawQuery: execQuery(r),
    protocols: EXEC_PROTOCOLS,
    maxPayload: MAX_MESSAGE_BYTES,
    context: { verb: 'create', resource: 'pods', subresource: 'exec', name: r.pod, namespace: r.namespace, server: transport.server, path },
    signal: io.signal,
  });
  return stream(ws, socket, r, io);
}

function stream(ws: WebSocket, socket: Duplex, r: ExecRequest, io: ExecStreams): Promise<ExecOutcome> {
  const protocol = ws.protocol;
  const canCloseStdin = protocol === 'v5.channel.k8s.io';
  const statusChunks: Buffer[] = [];
  const cleanups: Array<() => void> = [];
  let done = false;
  /** Sends one message; `written` runs once it is handed to the socket (or can no longer be). */
  const send = (data: Buffer, written?: () => void): void => {
    if (ws.readyState !== ws.OPEN) return written?.();
    ws.send(data, { binary: true }, () => written?.());
  };

  return new Promise<ExecOutcome>((resolve, reject) => {
    const finish = (fn: () => void): void => {
      if (done) return;
      done = true;
      for (const c of cleanups) c();
      fn();
    };
    const outcome = (): void => {
      try {
        const status = decodeExecStatus(Buffer.concat(statusChunks).toString('utf8'));
        finish(() => resolve({ ...status, protocol }));
      } catch (err) {
        finish(() => reject(err));
      }
    };

    // ws answers pings and the server's close, joins fragments and enforces maxPayload.
    ws.on('message', (data: Buffer) => {
      if (done || data.length === 0) return;
      const channel = data[0]!;
      const payload = data.subarray(1);
      if (payload.length === 0) return; // the server's "connection established" message
      if (channel === CHANNEL.stdout) io.stdout(payload);
      else if (channel === CHANNEL.stderr) io.stderr(payload);
      else if (channel === CHANNEL.error) statusChunks.push(Buffer.from(payload));
    });
    // After the handshake ws reports only a broken protocol here (it closes with 1002 or 1009 itself).
    ws.on('error', (err) => finish(() => reject(new CliError(`the exec stream from the server broke the WebSocket protocol: ${err.message}`))));
    // The server's close frame answered (or the server ended first): a Status received is the outcome
    // now, without the round trip until the server drops the connection (client-go does not wait either).
    socket.once('finish', () => {
      if (!done && statusChunks.length > 0) outcome();
    });
    ws.on('close', (code: number, reason: Buffer) => {
      if (done) return;
      // 1006: no close frame, the connection was lost. A Status already received still says how the command ended.
      if (code === CLOSE.abnormal && statusChunks.length === 0) {
        finish(() => reject(new CliError('the connection to the server was lost before the command finished (no exit status was received)')));
        return;
      }
      if (code !== CLOSE.abnormal && code !== CLOSE.normal && code !== CLOSE.noStatus && statusChunks.length === 0) {
        const why = reason.toString('utf8');
        finish(() => reject(new CliError(`the server closed the exec stream: ${code}${why ? ` ${why}` : ''}`)));
        return;
      }
      outcome();
    });

    if (io.signal) {
      const onAbort = (): void => {
        ws.close(CLOSE.goingAway);
        ws.terminate();
        finish(() => reject(new AbortError()));
      };
      if (io.signal.aborted) return onAbort();
      io.signal.addEventListener('abort', onAbort, { once: true });
      cleanups.push(() => io.signal?.removeEventListener('abort', onAbort));
    }

    if (r.tty && io.terminalSize) {
      const ts = io.terminalSize;
      const sendSize = (): void => {
        const size = ts.current();
        if (size) send(channelMessage(CHANNEL.resize, Buffer.from(JSON.stringify({ Width: size.width, Height: size.height }))));
      };
      sendSize();
      cleanups.push(ts.onChange(sendSize));
    }

    ws.resume(); // Transport.webSocket hands it over paused: nothing is read before these listeners

    if (r.stdin && io.stdin) {
      const input = io.stdin;
      // One chunk in flight at a time: stdin waits while the connection is slower than it.
      const onInput = (chunk: Buffer | string): void => {
        input.pause();
        send(channelMessage(CHANNEL.stdin, typeof chunk === 'string' ? Buffer.from(chunk) : chunk), () => {
          if (!done) input.resume();
        });
      };
      const onEnd = (): void => {
        if (canCloseStdin) send(channelMessage(CHANNEL.close, Buffer.from([CHANNEL.stdin])));
      };
      input.on('data', onInput);
      input.once('end', onEnd);
      cleanups.push(() => {
        input.off('data', onInput);
        input.off('end', onEnd);
        input.pause();
      });
      input.resume();
    }
  });
}
