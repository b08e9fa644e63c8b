// A live view of a set of objects (list + watch through KubeClient.observe) and a wait
// for conditions over one or several such views: no polling loops; a dropped watch or a
// 410 re-list is handled by the client underneath.
import type { KubeClient, KubeObject, ResourceType } from '../kube/client';
import { CliError, ExitCode } from '../cli/exit';

export class WaitTimeout extends CliError {
  constructor(message: string) {
    super(message, ExitCode.TIMEOUT);
  }
}

export class WaitAborted extends CliError {
  constructor() {
    super('interrupted', ExitCode.INTERRUPTED);
  }
}

export interface LiveSet<T extends KubeObject> {
  readonly objects: Map<string, T>;
  /** The last state of objects deleted since the watch began (a CRR removed by its TTL right after completing). */
  readonly gone: Map<string, T>;
  /** Resolves once the first list arrived (or the observation failed). */
  readonly synced: Promise<void>;
  /** The observation's error, once it failed. */
  failure(): unknown;
  /** Called after every change; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
  stop(): void;
}

export function watchSet<T extends KubeObject>(
  client: KubeClient,
  rt: ResourceType,
  namespace: string | undefined,
  opts: { labelSelector?: string; fieldSelector?: string; signal?: AbortSignal },
): LiveSet<T> {
  const objects = new Map<string, T>();
  const gone = new Map<string, T>();
  const listeners = new Set<() => void>();
  let failed: unknown;
  const notify = (): void => {
    for (const l of [...listeners]) l();
  };
  let markSynced: () => void = () => undefined;
  const synced = new Promise<void>((res) => (markSynced = res));
  const observation = client.observe<T>(
    rt,
    namespace,
    {
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      signal: opts.signal,
      onSync: (items) => {
        // A re-list (after 410 Gone) may miss deletions: what disappeared keeps its last state in `gone`.
        const listed = new Set(items.map((o) => o.metadata.name ?? ''));
        for (const [name, o] of objects) if (!listed.has(name)) gone.set(name, o);
        objects.clear();
        for (const o of items) {
          objects.set(o.metadata.name ?? '', o as T);
          gone.delete(o.metadata.name ?? '');
        }
        markSynced();
        notify();
      },
    },
    (ev) => {
      if (ev.type === 'BOOKMARK') return;
      const name = ev.object.metadata.name ?? '';
      if (ev.type === 'DELETED') {
        objects.delete(name);
        gone.set(name, ev.object);
      } else {
        objects.set(name, ev.object);
        gone.delete(name);
      }
      notify();
    },
  );
  observation.done.catch((err) => {
    failed = err ?? new Error('watch failed');
    markSynced();
    notify();
  });
  return {
    objects,
    gone,
    synced,
    failure: () => failed,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop() {
      observation.stop();
    },
  };
}

/**
 * Resolves with `check()`'s value once truthy, re-checking after every change of any of
 * `sets`. Rejects with WaitTimeout (exit 3) at the deadline, WaitAborted on the signal, or
 * the first watch failure.
 */
export function waitUntil<R>(
  sets: ReadonlyArray<LiveSet<KubeObject>>,
  check: () => R | undefined | false,
  opts: { deadline?: number; signal?: AbortSignal; what: string },
): Promise<R> {
  return new Promise((resolve, reject) => {
    const unsubs: Array<() => void> = [];
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      for (const u of unsubs) u();
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = (): void => finish(() => reject(new WaitAborted()));
    // No verdict before every set has its first list: a check over a set not yet listed reads it
    // as empty (bug: a scale-down read "pod gone" when the workload's list came before the pods').
    let allSynced = false;
    const evaluate = (): void => {
      if (settled) return;
      const failed = sets.map((s) => s.failure()).find((f) => f !== undefined);
      if (failed !== undefined) return finish(() => reject(failed));
      if (!allSynced) return;
      let value: R | undefined | false;
      try {
        value = check();
      } catch (err) {
        return finish(() => reject(err));
      }
      if (value) finish(() => resolve(value as R));
    };
    if (opts.signal?.aborted) return reject(new WaitAborted());
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.deadline !== undefined) {
      timer = setTimeout(() => finish(() => reject(new WaitTimeout(`timed out waiting for ${opts.what}`))), Math.max(0, opts.deadline - Date.now()));
    }
    for (const s of sets) unsubs.push(s.onChange(evaluate));
    void Promise.all(sets.map((s) => s.synced)).then(() => {
      allSynced = true;
      evaluate();
    });
  });
}

/** waitUntil for callers that report how far they got: undefined (instead of WaitTimeout) once the deadline passed. */
export async function waitUntilDeadline<R>(
  sets: ReadonlyArray<LiveSet<KubeObject>>,
  check: () => R | undefined | false,
  opts: { deadline?: number; signal?: AbortSignal; what: string },
): Promise<R | undefined> {
  try {
    return await waitUntil(sets, check, opts);
  } catch (err) {
    if (err instanceof WaitTimeout) return undefined;
    throw err;
  }
}
