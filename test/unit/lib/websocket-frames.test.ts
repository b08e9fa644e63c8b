// RFC 6455 framing (src/lib/websocket-frames.ts): the three length encodings at their edges,
// masking, fragments joined, control frames between fragments, and what a peer must refuse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptKey, CLOSE, closePayload, encodeFrame, FrameParser, OPCODE, WebSocketProtocolError } from '../../../src/lib/websocket-frames';

test('RFC 6455 section 1.3 example: the accept key of "dGhlIHNhbXBsZSBub25jZQ=="', () => {
  assert.equal(acceptKey('dGhlIHNhbXBsZSBub25jZQ=='), 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
});

test('lengths 0, 125, 126, 65535, 65536 round-trip masked (client to server) and unmasked (server to client)', () => {
  for (const len of [0, 125, 126, 65535, 65536]) {
    const payload = Buffer.alloc(len, 7);
    for (const masked of [true, false]) {
      const frame = encodeFrame(OPCODE.binary, payload, masked);
      assert.equal(frame.length, len + 2 + (len < 126 ? 0 : len < 65536 ? 2 : 8) + (masked ? 4 : 0));
      if (masked && len > 0) assert.notDeepEqual(frame.subarray(frame.length - len), payload, 'the payload is masked on the wire');
      // Byte by byte: a parser must wait for the whole frame.
      const parser = new FrameParser(masked, 1 << 20);
      const events = [];
      for (let i = 0; i < frame.length; i += 997) events.push(...parser.push(frame.subarray(i, i + 997)));
      assert.deepEqual(events, [{ type: 'message', binary: true, data: payload }], `len ${len} masked ${masked}`);
    }
  }
});

test('fragments are joined, a ping between them is delivered at once; close carries its code and reason', () => {
  const parser = new FrameParser(false, 1 << 20);
  const wire = Buffer.concat([
    encodeFrame(OPCODE.text, Buffer.from('ab'), false, false),
    encodeFrame(OPCODE.ping, Buffer.from('x'), false),
    encodeFrame(OPCODE.continuation, Buffer.from('cd'), false, false),
    encodeFrame(OPCODE.continuation, Buffer.from('e'), false, true),
    encodeFrame(OPCODE.close, closePayload(CLOSE.normal, 'bye'), false),
  ]);
  assert.deepEqual(parser.push(wire), [
    { type: 'ping', data: Buffer.from('x') },
    { type: 'message', binary: false, data: Buffer.from('abcde') },
    { type: 'close', code: 1000, reason: 'bye' },
  ]);
  assert.deepEqual(new FrameParser(false, 10).push(encodeFrame(OPCODE.close, Buffer.alloc(0), false)), [{ type: 'close', code: CLOSE.noStatus, reason: '' }]);
});

test('refused: an unmasked client frame, a masked server frame, reserved bits, a long or fragmented control frame, a stray continuation, an oversized message', () => {
  const refuses = (fromClient: boolean, wire: Buffer, message: RegExp, code: number = CLOSE.protocolError, limit = 1 << 20) =>
    assert.throws(() => new FrameParser(fromClient, limit).push(wire), (e: unknown) => e instanceof WebSocketProtocolError && e.closeCode === code && message.test(e.message));
  refuses(true, encodeFrame(OPCODE.binary, Buffer.from('a'), false), /client frame was not masked/);
  refuses(false, encodeFrame(OPCODE.binary, Buffer.from('a'), true), /server frame was masked/);
  const rsv = encodeFrame(OPCODE.binary, Buffer.from('a'), false);
  rsv[0]! |= 0x40;
  refuses(false, rsv, /reserved bits/);
  refuses(false, encodeFrame(OPCODE.ping, Buffer.alloc(126), false), /control frame/);
  refuses(false, encodeFrame(OPCODE.ping, Buffer.alloc(1), false, false), /control frame/);
  refuses(false, encodeFrame(OPCODE.continuation, Buffer.from('a'), false), /continuation frame without a message/);
  refuses(false, Buffer.concat([encodeFrame(OPCODE.binary, Buffer.from('a'), false, false), encodeFrame(OPCODE.binary, Buffer.from('b'), false)]), /new message began/);
  refuses(false, encodeFrame(OPCODE.binary, Buffer.alloc(11), false), /over the limit of 10/, CLOSE.tooBig, 10);
  refuses(false, Buffer.concat([encodeFrame(OPCODE.binary, Buffer.alloc(6), false, false), encodeFrame(OPCODE.continuation, Buffer.alloc(6), false)]), /message over the limit of 10/, CLOSE.tooBig, 10);
  refuses(false, encodeFrame(0x3, Buffer.from('a'), false), /unknown data opcode 3/);
});
