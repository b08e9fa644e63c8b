// A coalescing work queue: the store notifies synchronously (possibly from inside another
// controller's write), so controllers never reconcile inline. Keys are deduplicated, drained
// on a later tick, and delayed keys keep only their earliest deadline.
//
// A drain works in time slices: after SLICE_MS of reconciles it yields to the event loop
// (setImmediate, i.e. after the poll phase), so API requests and watch writes interleave with a
// controller working through thousands of keys instead of waiting seconds behind it.
// An expensive key (a CloneSet of 5,000 pods) is not synced again before a cool-down of a few
// times what its last sync cost: the events of that cool-down are coalesced into one sync, so
// slicing the pods' queues does not turn into one full workload sync per slice.

import type { QueueGate } from '../store-api';

export type { QueueGate };
export type Reconcile = (key: string) => void;

/** How long one drain runs reconciles before it lets I/O in. */
export const SLICE_MS = 8;
/** A sync cheaper than this is never held back. */
const COSTLY_MS = 2;
/** After a costly sync, the key waits this many times its cost (it takes at most ~1/(1+N) of the loop). */
const COOL_DOWN_FACTOR = 3;

/** The longest delay setTimeout honours. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class WorkQueue {
  /** Keys for the next batch. */
  private pending = new Set<string>();
  /** The batch being drained: a key still in it is not added again (one sync sees the latest state). */
  private batch = new Set<string>();
  private scheduled = false;
  private timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private stopped = false;
  /** Keys whose last sync was costly: when they may run again. */
  private coolDown = new Map<string, number>();
  private gate: QueueGate | undefined;
  private waitingForGate = false;

  constructor(
    private readonly name: string,
    private readonly reconcile: Reconcile,
    /** Called with errors thrown by reconcile; the key is retried after `retryMs`. */
    private readonly retryMs = 50,
    private readonly sliceMs = SLICE_MS,
  ) {}

  add(key: string): void {
    if (this.stopped || this.batch.has(key)) return;
    const readyAt = this.coolDown.get(key);
    if (readyAt !== undefined) {
      const wait = readyAt - performance.now();
      if (wait > 0) {
        this.addAfter(key, Math.ceil(wait));
        return;
      }
      this.coolDown.delete(key);
    }
    this.pending.add(key);
    this.schedule();
  }

  /**
   * The rest of a sync that stopped at its time budget: runs on the next turn of the event loop,
   * without the cool-down (it is the same sync going on, not a new event).
   */
  addContinuation(key: string): void {
    if (this.stopped || this.batch.has(key)) return;
    this.pending.add(key);
    this.schedule();
  }

  /** Reconcile `key` after `ms` (keeps the earliest of several requests). */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = Date.now() + ms;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    // setTimeout turns a delay above 2^31-1 ms into 1 ms (a hot loop for a key requeued that far out,
    // e.g. blue-green's minReadySeconds of ~68 years): wait the longest it can instead, then look again.
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, Math.min(ms, MAX_TIMER_MS));
    timer.unref?.();
    this.timers.set(key, { at, timer });
  }

  /** No reconcile while `gate` is shut: keys (and timers) gather and are worked off once it opens. */
  gatedBy(gate: QueueGate | undefined): this {
    this.gate = gate;
    return this;
  }

  /** Keys waiting to be reconciled (this batch's rest and the next batch). */
  get length(): number {
    return this.batch.size + this.pending.size;
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    this.pending.clear();
    this.batch.clear();
    this.coolDown.clear();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    if (this.stopped) return;
    if (this.gate && !this.gate.open()) {
      if (!this.waitingForGate) {
        this.waitingForGate = true;
        this.gate.whenOpen(() => {
          this.waitingForGate = false;
          this.schedule();
        });
      }
      return;
    }
    // A new batch only once the last one is done: a key re-added by its own reconcile waits a
    // tick, as before slicing (a controller re-queueing itself cannot spin inside one slice).
    if (this.batch.size === 0) {
      this.batch = this.pending;
      this.pending = new Set();
    }
    const until = performance.now() + this.sliceMs;
    for (const key of this.batch) {
      if (this.stopped) return;
      this.batch.delete(key);
      const start = performance.now();
      try {
        this.reconcile(key);
      } catch (err) {
        // Conflicts and transient failures: retry later rather than spin.
        if (process.env.KRUISE_SANDBOX_DEBUG) console.error(`[${this.name}] ${key}: ${(err as Error).message}`);
        this.addAfter(key, this.retryMs);
      }
      const end = performance.now();
      if (end - start >= COSTLY_MS) this.coolDown.set(key, end + (end - start) * COOL_DOWN_FACTOR);
      if (end >= until) break;
    }
    if (this.batch.size > 0 || this.pending.size > 0) this.schedule();
  }
}
