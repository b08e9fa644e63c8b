// RFC 6455 framing, shared by the exec client (src/kube/exec.ts) and the sandbox's exec server
// (src/sandbox/server/exec.ts): frames out, and a parser that turns bytes into whole messages
// (fragments joined) and control frames. No I/O here.
import { createHash, randomBytes } from 'node:crypto';

export const OPCODE = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

/** Close codes used here (RFC 6455 section 7.4.1). */
export const CLOSE = { normal: 1000, goingAway: 1001, protocolError: 1002, noStatus: 1005, tooBig: 1009, internalError: 1011 } as const;

/** Sec-WebSocket-Accept for a Sec-WebSocket-Key (section 4.2.2). */
export function acceptKey(key: string): string {
  return createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
}

/** A fresh Sec-WebSocket-Key: 16 random bytes, base64. */
export function newWebSocketKey(): string {
  return randomBytes(16).toString('base64');
}

/** One frame. Clients mask what they send (`masked`); servers never do. */
export function encodeFrame(opcode: number, payload: Uint8Array, masked: boolean, fin = true): Buffer {
  const len = payload.length;
  const extra = len < 126 ? 0 : len < 65536 ? 2 : 8;
  const head = Buffer.alloc(2 + extra + (masked ? 4 : 0));
  head[0] = (fin ? 0x80 : 0) | opcode;
  if (extra === 0) head[1] = len;
  else if (extra === 2) {
    head[1] = 126;
    head.writeUInt16BE(len, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(len), 2);
  }
  if (!masked) return Buffer.concat([head, payload]);
  head[1]! |= 0x80;
  const mask = randomBytes(4);
  mask.copy(head, 2 + extra);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i]! ^= mask[i & 3]!;
  return Buffer.concat([head, body]);
}

/** A close frame's payload: the code, then a reason of at most 123 bytes. */
export function closePayload(code: number, reason = ''): Buffer {
  const text = Buffer.from(reason).subarray(0, 123);
  const out = Buffer.alloc(2 + text.length);
  out.writeUInt16BE(code, 0);
  text.copy(out, 2);
  return out;
}

export type WebSocketEvent =
  | { type: 'message'; binary: boolean; data: Buffer }
  | { type: 'close'; code: number; reason: string }
  | { type: 'ping'; data: Buffer }
  | { type: 'pong'; data: Buffer };

/** A peer broke the protocol; `closeCode` is what to answer with before dropping the connection. */
export class WebSocketProtocolError extends Error {
  constructor(
    message: string,
    readonly closeCode: number = CLOSE.protocolError,
  ) {
    super(message);
    this.name = 'WebSocketProtocolError';
  }
}

/**
 * Bytes in, events out. `fromClient`: the frames come from a client, so they must be masked
 * (a server must not mask). A message longer than `maxMessageBytes` is refused (1009).
 */
export class FrameParser {
  private buffer: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private fragmentBytes = 0;
  private fragmentBinary = false;

  constructor(
    private readonly fromClient: boolean,
    private readonly maxMessageBytes: number,
  ) {}

  push(chunk: Buffer): WebSocketEvent[] {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const events: WebSocketEvent[] = [];
    for (;;) {
      const frame = this.nextFrame();
      if (!frame) break;
      const event = this.handle(frame);
      if (event) events.push(event);
    }
    return events;
  }

  private nextFrame(): { fin: boolean; opcode: number; payload: Buffer } | undefined {
    const b = this.buffer;
    if (b.length < 2) return undefined;
    const fin = (b[0]! & 0x80) !== 0;
    if ((b[0]! & 0x70) !== 0) throw new WebSocketProtocolError('reserved bits set in a frame (no extension was negotiated)');
    const opcode = b[0]! & 0x0f;
    const masked = (b[1]! & 0x80) !== 0;
    if (masked !== this.fromClient) throw new WebSocketProtocolError(this.fromClient ? 'a client frame was not masked' : 'a server frame was masked');
    let len = b[1]! & 0x7f;
    let offset = 2;
    if (len === 126) {
      if (b.length < 4) return undefined;
      len = b.readUInt16BE(2);
      offset = 4;
    } else if (len === 127) {
      if (b.length < 10) return undefined;
      const big = b.readBigUInt64BE(2);
      if (big > BigInt(this.maxMessageBytes)) throw new WebSocketProtocolError(`a frame of ${big} bytes is over the limit of ${this.maxMessageBytes}`, CLOSE.tooBig);
      len = Number(big);
      offset = 10;
    }
    if (len > this.maxMessageBytes) throw new WebSocketProtocolError(`a frame of ${len} bytes is over the limit of ${this.maxMessageBytes}`, CLOSE.tooBig);
    const maskAt = offset;
    if (masked) offset += 4;
    if (b.length < offset + len) return undefined;
    const payload = Buffer.from(b.subarray(offset, offset + len));
    if (masked) for (let i = 0; i < payload.length; i++) payload[i]! ^= b[maskAt + (i & 3)]!;
    this.buffer = b.subarray(offset + len);
    return { fin, opcode, payload };
  }

  private handle(frame: { fin: boolean; opcode: number; payload: Buffer }): WebSocketEvent | undefined {
    const { fin, opcode, payload } = frame;
    if (opcode >= 0x8) {
      if (!fin || payload.length > 125) throw new WebSocketProtocolError('a control frame was fragmented or longer than 125 bytes');
      if (opcode === OPCODE.close) {
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : CLOSE.noStatus;
        return { type: 'close', code, reason: payload.subarray(2).toString('utf8') };
      }
      if (opcode === OPCODE.ping) return { type: 'ping', data: payload };
      if (opcode === OPCODE.pong) return { type: 'pong', data: payload };
      throw new WebSocketProtocolError(`unknown control opcode ${opcode}`);
    }
    if (opcode === OPCODE.continuation) {
      if (this.fragments.length === 0) throw new WebSocketProtocolError('a continuation frame without a message to continue');
    } else if (opcode === OPCODE.text || opcode === OPCODE.binary) {
      if (this.fragments.length > 0) throw new WebSocketProtocolError('a new message began before the previous one ended');
      this.fragmentBinary = opcode === OPCODE.binary;
    } else throw new WebSocketProtocolError(`unknown data opcode ${opcode}`);
    this.fragmentBytes += payload.length;
    if (this.fragmentBytes > this.maxMessageBytes) throw new WebSocketProtocolError(`a message over the limit of ${this.maxMessageBytes} bytes`, CLOSE.tooBig);
    this.fragments.push(payload);
    if (!fin) return undefined;
    const data = this.fragments.length === 1 ? this.fragments[0]! : Buffer.concat(this.fragments);
    this.fragments = [];
    this.fragmentBytes = 0;
    return { type: 'message', binary: this.fragmentBinary, data };
  }
}
