// The Rollout `rollout verify` steers and its workload, as the last watch events had them (list then watch,
// resumed after drops: KubeClient.observe), and a promise for the next change: the command's loop decides on
// the latest pair and waits for a change when there is nothing to do. No polling.
import { failure } from '../../cli/exit';
import type { KubeClient, KubeObject, Observation, ResourceType } from '../../kube/client';

export class RolloutWatch {
  rollout: KubeObject | undefined;
  /** undefined: not listed yet (or an unknown kind); null: listed and missing. */
  workload: KubeObject | null | undefined;
  private observations: Observation[] = [];
  private waiters: Array<() => void> = [];
  private failed: unknown;
  private synced = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly rolloutRt: ResourceType,
    private readonly name: string,
    private readonly workloadRt: ResourceType | undefined,
    private readonly workloadName: string | undefined,
    private readonly signal: AbortSignal,
  ) {}

  start(): Promise<void> {
    const want = this.workloadRt && this.workloadName ? 2 : 1;
    const synced = () => {
      this.synced++;
    };
    let rolloutSynced = false;
    this.observations.push(
      this.client.observe(this.rolloutRt, this.namespace, {
        name: this.name,
        signal: this.signal,
        onSync: (items) => {
          const obj = items.find((i) => i.metadata.name === this.name);
          if (!obj) return this.fail(failure(`rollouts.rollouts.kruise.io "${this.name}" ${rolloutSynced ? 'was deleted' : 'not found'} in namespace "${this.namespace}"`));
          this.rollout = obj;
          if (!rolloutSynced) synced();
          rolloutSynced = true;
          this.changed();
        },
      }, (ev) => {
        if (ev.object.metadata.name !== this.name || ev.type === 'BOOKMARK') return;
        if (ev.type === 'DELETED') return this.fail(failure(`rollouts.rollouts.kruise.io "${this.name}" was deleted`));
        this.rollout = ev.object;
        this.changed();
      }),
    );
    if (this.workloadRt && this.workloadName) {
      const name = this.workloadName;
      let first = true;
      this.observations.push(
        this.client.observe(this.workloadRt, this.namespace, {
          name,
          signal: this.signal,
          onSync: (items) => {
            this.workload = items.find((i) => i.metadata.name === name) ?? null;
            if (first) synced();
            first = false;
            this.changed();
          },
        }, (ev) => {
          if (ev.object.metadata.name !== name || ev.type === 'BOOKMARK') return;
          this.workload = ev.type === 'DELETED' ? null : ev.object;
          this.changed();
        }),
      );
    }
    for (const o of this.observations) o.done.catch((err: unknown) => this.fail(err));
    return (async () => {
      while (this.synced < want && this.failed === undefined) await this.nextChange();
      this.check();
    })();
  }

  private fail(err: unknown): void {
    this.failed ??= err;
    this.changed();
  }

  private check(): void {
    if (this.failed !== undefined) throw this.failed;
  }

  private changed(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Resolves at the next change (or failure) of either object. */
  nextChange(): Promise<void> {
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Waits for the next change; throws what broke the watch (the Rollout deleted, a watch that cannot go on). */
  async waitChange(signal: AbortSignal): Promise<void> {
    this.check();
    await new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
    this.check();
  }

  /** Calls `f` at every change until stopped. */
  onEveryChange(f: () => void): () => void {
    let on = true;
    const loop = () => {
      if (!on) return;
      this.waiters.push(() => {
        f();
        loop();
      });
    };
    loop();
    return () => (on = false);
  }

  stop(): void {
    for (const o of this.observations) o.stop();
  }
}
