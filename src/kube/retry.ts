// When to retry a request and how long to wait: a pure function, unit-tested.
// Idempotent requests (GET, list, watch establishment) retry on 429, 5xx gateway
// errors and connection failures; any verb retries on 429 (the server did not
// process it) and on a refused connection (nothing was sent).

export const MAX_ATTEMPTS = 5;
const BASE_DELAY_MS = 200;
const REFUSED_MAX_ATTEMPTS = 3;
const MAX_DELAY_MS = 5_000;
/** A Retry-After beyond this is not worth waiting for in a CLI. */
const MAX_RETRY_AFTER_MS = 30_000;

const RETRIABLE_STATUS_IDEMPOTENT = new Set([429, 500, 502, 503, 504]);
/** Errors where the request may or may not have reached the server. */
const RETRIABLE_ERRORS_IDEMPOTENT = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_SOCKET', 'ECONNREFUSED']);
/** Errors where nothing reached the server, so even a write is safe to resend. */
const RETRIABLE_ERRORS_ANY = new Set(['ECONNREFUSED']);

export interface RetryInput {
  method: string;
  /** GET/list/watch establishment: safe to repeat. */
  idempotent: boolean;
  /** 1 for the first attempt that just failed. */
  attempt: number;
  status?: number;
  errorCode?: string;
  /**
   * The server answered this process before. A refused connection to one that never did is final at
   * once, as in kubectl (client-go's rest/request.go retries a GET only on a reset or an EOF): it is
   * down or the address is wrong. One that answered before is restarting, and is worth a few tries.
   */
  contacted?: boolean;
  /** Raw Retry-After header value. */
  retryAfter?: string;
  maxAttempts?: number;
  now?: number;
}

export interface RetryDecision {
  retry: boolean;
  delayMs: number;
  reason?: string;
}

/** Parses Retry-After (delta seconds or an HTTP date) into milliseconds. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const t = Date.parse(v);
  if (Number.isNaN(t)) return undefined;
  return Math.max(0, t - now);
}

/** Exponential backoff with jitter: base·2^(attempt-1), capped, scaled by a random factor in [0.5, 1). */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const exp = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp * (0.5 + random() / 2));
}

export function retryDecision(input: RetryInput, random: () => number = Math.random): RetryDecision {
  const max = input.maxAttempts ?? MAX_ATTEMPTS;
  if (input.attempt >= max) return { retry: false, delayMs: 0, reason: 'attempts exhausted' };
  let retriable = false;
  let reason = '';
  if (input.status !== undefined) {
    if (input.status === 429) {
      retriable = true;
      reason = 'throttled (429)';
    } else if (input.idempotent && RETRIABLE_STATUS_IDEMPOTENT.has(input.status)) {
      retriable = true;
      reason = `server error ${input.status}`;
    }
  } else if (input.errorCode !== undefined) {
    // A refused connection is usually a server that is down, not a blip: give up sooner.
    if (input.errorCode === 'ECONNREFUSED' && (input.contacted === false || input.attempt >= REFUSED_MAX_ATTEMPTS)) return { retry: false, delayMs: 0, reason: 'connection refused' };
    if (RETRIABLE_ERRORS_ANY.has(input.errorCode) || (input.idempotent && RETRIABLE_ERRORS_IDEMPOTENT.has(input.errorCode))) {
      retriable = true;
      reason = input.errorCode;
    }
  }
  if (!retriable) return { retry: false, delayMs: 0 };
  const after = input.status === 429 || input.status === 503 ? parseRetryAfter(input.retryAfter, input.now) : undefined;
  if (after !== undefined) {
    if (after > MAX_RETRY_AFTER_MS) return { retry: false, delayMs: 0, reason: `Retry-After ${Math.round(after / 1000)}s is too long` };
    // A little jitter on top so that many clients do not return in lockstep.
    return { retry: true, delayMs: after + Math.round(random() * 100), reason };
  }
  return { retry: true, delayMs: backoffDelay(input.attempt, random), reason };
}
