// Read-modify-write with optimistic concurrency: on 409 Conflict, run the whole
// step again (it must re-read the object), a bounded number of times, so no
// update is lost and none is applied twice.
import { failure } from '../cli/exit';
import { isConflict } from './errors';
import { backoffDelay } from './retry';

export interface ConflictRetryOptions {
  /** Total attempts (default 5). */
  attempts?: number;
  signal?: AbortSignal;
  /** Test seam. */
  sleep?: (ms: number) => Promise<void>;
}

export async function retryOnConflict<T>(step: (attempt: number) => Promise<T>, opts: ConflictRetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? 5;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await step(attempt);
    } catch (err) {
      if (!isConflict(err)) throw err;
      if (attempt >= attempts) throw failure(`${err.message} (still conflicting after ${attempts} attempts)`);
      if (opts.signal?.aborted) throw err;
      await sleep(backoffDelay(attempt) / 4);
    }
  }
}
