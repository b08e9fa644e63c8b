// Read-modify-write with optimistic concurrency, for every command that writes what it read
// (rollout pause/resume/undo/restart, set): when the server says the object changed under us,
// run the whole step again (it must re-read and decide afresh), a bounded number of times, so
// no concurrent change is overwritten or lost and ours is applied once. A write that acts on a state
// it read (rollout approve, jump, undo --fast, pause/resume of a release) goes through decideAndWrite:
// after a conflict it goes again only while that state still holds, else exit 1 saying where it is.
//
// "Changed under us" is either answer a real API server gives:
// - 409 Conflict (a stale resourceVersion), but not 409 AlreadyExists;
// - 422 for a JSON patch that no longer applies: a `test` op failed (our guard on the
//   resourceVersion or on a container's name), or a path it tests is gone. The apiserver
//   (k8s.io/apiserver patch.go, jsonpatch Apply error → NewGenericServerResponse(422, …, false))
//   drops json-patch's own text ("testing value /x failed: test failed") and sends only
//   {"reason":"Invalid","message":"the server rejected our request due to an error in our
//   request","details":{}}, with no causes. The sandbox (src/sandbox/server/patch/json-patch.ts)
//   appends json-patch's text to that message. A validation failure is also a 422 Invalid,
//   but names the object and lists causes; it is never retried.
import { failure } from '../cli/exit';
import { KubeApiError, isConflict } from './errors';
import { backoffDelay } from './retry';

/** Attempts in all (the first included) unless a caller asks for another bound. */
export const CONFLICT_ATTEMPTS = 4;

/** What the apiserver says, and only this, when a JSON patch does not apply to the stored object. */
const JSON_PATCH_NOT_APPLIED = 'the server rejected our request due to an error in our request';
/** json-patch's words for a failed `test` op (the value differs, or the tested path is missing). */
const FAILED_TEST_OP = /\btesting value \S* ?failed\b|\btest failed\b|\btest operation does not apply\b/i;

/** A 422 answering a JSON patch whose `test` op failed (or that no longer applies): see the header. */
export function isFailedPatchTest(err: unknown): err is KubeApiError {
  if (!(err instanceof KubeApiError) || err.status !== 422) return false;
  // The server's own words (our message may add the object's name in front).
  const text = err.kubeStatus?.message ?? err.message;
  if (FAILED_TEST_OP.test(text)) return true;
  const status = err.kubeStatus;
  return text.trim() === JSON_PATCH_NOT_APPLIED && !status?.details?.causes?.length;
}

/** The object changed between our read and our write: re-reading and deciding again may succeed. */
export function isStaleWrite(err: unknown): err is KubeApiError {
  return isConflict(err) || isFailedPatchTest(err);
}

export interface ConflictRetryOptions {
  /** Total attempts, the first included (default CONFLICT_ATTEMPTS). */
  attempts?: number;
  /**
   * The error thrown when every attempt met a changed object, from the last server answer.
   * Default: that answer's message, saying how many attempts were made (exit 1).
   */
  exhausted?: (last: KubeApiError, attempts: number) => Error;
  signal?: AbortSignal;
  /** Test seam. */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Runs `step(attempt)` (attempt 1, 2, …) until it returns, retrying only on isStaleWrite after a
 * short jittered pause. Any other error is thrown as it is, at once.
 */
export async function retryOnConflict<T>(step: (attempt: number) => Promise<T>, opts: ConflictRetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, opts.attempts ?? CONFLICT_ATTEMPTS);
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await step(attempt);
    } catch (err) {
      if (!isStaleWrite(err)) throw err;
      if (attempt >= attempts) throw opts.exhausted ? opts.exhausted(err, attempts) : failure(`${err.message} (still conflicting after ${attempts} attempts)`);
      if (opts.signal?.aborted) throw err;
      // Whoever wrote in between is likely still writing: a short pause makes the next read current.
      await sleep(backoffDelay(attempt) / 4);
    }
  }
}

/**
 * A write that acts on a state it read, made once: read, decide, write (a write conditional on what the
 * decision read, kruise/conditional-write.ts). When the server refuses it because the object changed
 * (isStaleWrite), read again: while the state the first decision was made on still holds (`moved` says
 * nothing: only unrelated fields changed), decide and write again; once it is gone, stop with `moved`'s words
 * (exit 1), never acting on a state nobody saw — two approvals at once promote one step, not two.
 */
export async function decideAndWrite<O, D, R>(o: {
  read: () => Promise<O>;
  /** The decision on a fresh read; throws when there is nothing to write. */
  decide: (obj: O) => D;
  /** Why `fresh` is no longer the state `first` was decided on, in the user's terms; undefined while it is. */
  moved: (first: D, fresh: O) => string | undefined;
  write: (decision: D, obj: O) => Promise<R>;
  retry?: ConflictRetryOptions;
}): Promise<R> {
  let first: D | undefined;
  return retryOnConflict(async () => {
    const obj = await o.read();
    if (first !== undefined) {
      const moved = o.moved(first, obj);
      if (moved) throw failure(moved);
    }
    const decision = o.decide(obj);
    first ??= decision;
    return o.write(decision, obj);
  }, o.retry);
}
