// A coalescing work queue: the store notifies synchronously (possibly from inside another
// controller's write), so controllers never reconcile inline. Keys are deduplicated, drained
// on a later tick, and delayed keys keep only their earliest deadline.

export type Reconcile = (key: string) => void;

export class WorkQueue {
  private pending = new Set<string>();
  private scheduled = false;
  private timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private stopped = false;

  constructor(
    private readonly name: string,
    private readonly reconcile: Reconcile,
    /** Called with errors thrown by reconcile; the key is retried after `retryMs`. */
    private readonly retryMs = 50,
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    this.pending.add(key);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
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
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    timer.unref?.();
    this.timers.set(key, { at, timer });
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    this.pending.clear();
  }

  private drain(): void {
    this.scheduled = false;
    if (this.stopped) return;
    const keys = [...this.pending];
    this.pending.clear();
    for (const key of keys) {
      if (this.stopped) return;
      try {
        this.reconcile(key);
      } catch (err) {
        // Conflicts and transient failures: retry later rather than spin.
        if (process.env.KRUISE_SANDBOX_DEBUG) console.error(`[${this.name}] ${key}: ${(err as Error).message}`);
        this.addAfter(key, this.retryMs);
      }
    }
  }
}
