// The send queue of one watch stream. Events wait here as references to the shared bytes of
// their line (one copy whatever the number of watchers) and are handed to the socket only
// while its own buffer is small, so a burst of thousands of events costs an array push each,
// and dropping a stream frees its queue at once. A client whose queue stays over the bound,
// taking nothing, while the event loop was free to send, is dropped like kube-apiserver drops a
// watcher that cannot keep up (it closes the watch; the client re-lists).
import type { ServerResponse } from 'node:http';

/** What the socket may hold before the queue waits for 'drain'. */
const SOCKET_HIGH_WATER = 256 * 1024;

export interface QueueLimits {
  /** Bytes the queue may hold (beyond the initial events) before the grace period starts. */
  maxQueuedBytes: number;
  slowWatcherGraceMs: number;
}

export class StreamQueue {
  private items: Buffer[] = [];
  private head = 0;
  private queued = 0;
  /** Bytes handed to the socket so far: progress, whatever the client's speed. */
  private sent = 0;
  private limit = Number.POSITIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly limits: QueueLimits,
    private readonly onOverflow: () => void,
  ) {
    res.on('drain', () => this.pump());
  }

  /** Starts bounding the queue; what is queued now (the initial events) is allowed on top. */
  startBounding(): void {
    this.limit = this.queued + this.limits.maxQueuedBytes;
    this.watch();
  }

  push(bytes: Buffer): void {
    if (this.closed) return;
    this.items.push(bytes);
    this.queued += bytes.length;
    this.pump();
    this.watch();
  }

  get queuedBytes(): number {
    return this.queued;
  }

  /** Forgets what is queued (the stream is closing). */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.items = [];
    this.head = 0;
    this.queued = 0;
  }

  /** Writes everything still queued (a stream ending normally sends what it has). */
  flushAll(): void {
    while (this.head < this.items.length) this.writeNext();
  }

  private pump(): void {
    if (this.closed) return;
    while (this.head < this.items.length && this.res.writableLength < SOCKET_HIGH_WATER) this.writeNext();
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  private writeNext(): void {
    const b = this.items[this.head]!;
    this.items[this.head++] = EMPTY;
    this.queued -= b.length;
    this.sent += b.length;
    this.res.write(b);
  }

  private watch(): void {
    if (this.closed || this.queued <= this.limit) return;
    if (this.queued > this.limit + 15 * this.limits.maxQueuedBytes) {
      this.onOverflow();
      return;
    }
    if (!this.timer) this.arm();
  }

  private arm(): void {
    const sentAtArm = this.sent;
    const due = performance.now() + this.limits.slowWatcherGraceMs;
    // setImmediate: decide after the poll phase, once the socket had its chance to drain.
    this.timer = setTimeout(() => setImmediate(() => this.check(due, sentAtArm)), this.limits.slowWatcherGraceMs);
  }

  private check(due: number, sentAtArm: number): void {
    this.timer = undefined;
    if (this.closed || this.queued <= this.limit) return;
    // A late timer means the loop was busy (nothing could be sent): the period starts again.
    const late = performance.now() - due > this.limits.slowWatcherGraceMs / 2;
    if (late || this.sent > sentAtArm) this.arm();
    else this.onOverflow();
  }
}

const EMPTY = Buffer.alloc(0);
