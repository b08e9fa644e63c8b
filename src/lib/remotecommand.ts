// Kubernetes' remote command protocol over WebSocket (k8s.io/apimachinery pkg/util/remotecommand,
// client-go tools/remotecommand/websocket.go): every binary message starts with its channel
// number. Shared by the exec client and the sandbox's kubelet.

/** Offered by kubectl >= 1.30 in this order; v5 adds the stream-close signal (stdin EOF). */
export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;
export type ExecProtocol = (typeof EXEC_PROTOCOLS)[number];

export const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

/** WebSocket close codes (RFC 6455 section 7.4.1): 1005 and 1006 are never sent, only reported. */
export const CLOSE = { normal: 1000, goingAway: 1001, noStatus: 1005, abnormal: 1006 } as const;

/** metav1.Status reason and cause type of a command that exited non-zero (remotecommand constants). */
export const NON_ZERO_EXIT_REASON = 'NonZeroExitCode';
export const EXIT_CODE_CAUSE = 'ExitCode';

/** A message on `channel`. */
export function channelMessage(channel: number, data: Uint8Array = new Uint8Array(0)): Buffer {
  const out = Buffer.alloc(1 + data.length);
  out[0] = channel;
  out.set(data, 1);
  return out;
}
