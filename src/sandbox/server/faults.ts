// Injected faults for resilience tests (`--faults FILE`), deterministic through a seeded
// random generator so a test run can be repeated exactly.
import { ApiError } from './errors';
import type { Verb } from './request';

export interface ErrorRateSpec {
  rate: number;
  /** Status code of the injected error (default 500). */
  code?: number;
  /** Several codes: each injected error picks one (seeded), e.g. [500, 429]. */
  codes?: number[];
  retryAfterSeconds?: number;
  /** The first N requests of this verb (or group) fail, whatever the rate: a burst a client must ride out. */
  failFirst?: number;
}

export interface FaultSpec {
  /** Added to every resource request (not to discovery or health checks). */
  latencyMs?: number;
  /** Per verb (get, list, watch, create, update, patch, delete, deletecollection) or group: read, write, all. */
  errorRate?: Record<string, ErrorRateSpec | number>;
  /** Watch streams end after this many events. */
  dropWatchAfterEvents?: number;
  /** Only this many recent events are kept: watches from an older resourceVersion get 410 Gone. */
  expireResourceVersionsAfter?: number;
  /** Every Nth update/patch of an existing object fails with 409 Conflict. */
  conflictEveryNthUpdate?: number;
  /**
   * Watch events of these resources (plural name, or group/resource) reach every watcher this many
   * ms late, in order: a lagging watch cache, so one stream shows a write after another stream showed
   * a later one (lists and gets stay current).
   */
  watchLagMs?: Record<string, number>;
  /** Seed of the random generator (default 1). */
  seed?: number;
}

const READ: Verb[] = ['get', 'list', 'watch'];
const WRITE: Verb[] = ['create', 'update', 'patch', 'delete', 'deletecollection'];

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function validateFaultSpec(raw: unknown): FaultSpec {
  if (raw === null || raw === undefined) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error('the faults file must be a YAML mapping');
  const spec = raw as Record<string, unknown>;
  const known = ['latencyMs', 'errorRate', 'watchLagMs', 'dropWatchAfterEvents', 'expireResourceVersionsAfter', 'conflictEveryNthUpdate', 'seed'];
  for (const k of Object.keys(spec)) if (!known.includes(k)) throw new Error(`unknown key "${k}" in the faults file (known: ${known.join(', ')})`);
  if (spec.watchLagMs !== undefined) {
    if (typeof spec.watchLagMs !== 'object' || spec.watchLagMs === null || Array.isArray(spec.watchLagMs)) throw new Error('watchLagMs in the faults file must map resources to milliseconds');
    for (const [k, v] of Object.entries(spec.watchLagMs)) {
      if (typeof v !== 'number' || v < 0 || !Number.isFinite(v)) throw new Error(`watchLagMs.${k} in the faults file must be a non-negative number`);
    }
  }
  for (const k of ['latencyMs', 'dropWatchAfterEvents', 'expireResourceVersionsAfter', 'conflictEveryNthUpdate', 'seed']) {
    const v = spec[k];
    if (v !== undefined && (typeof v !== 'number' || v < 0 || !Number.isFinite(v))) throw new Error(`${k} in the faults file must be a non-negative number`);
  }
  if (spec.errorRate !== undefined) {
    if (typeof spec.errorRate !== 'object' || spec.errorRate === null) throw new Error('errorRate in the faults file must map verbs to {rate, code, retryAfterSeconds}');
    const table: Record<string, ErrorRateSpec | number> = {};
    for (const [verb, v] of errorRateEntries(spec.errorRate)) {
      if (![...READ, ...WRITE, 'read', 'write', 'all', '*'].includes(verb)) throw new Error(`errorRate: unknown verb "${verb}"`);
      table[verb] = typeof v === 'number' ? v : errorRateEntry(verb, v);
      const rate = typeof v === 'number' ? v : (table[verb] as ErrorRateSpec).rate;
      if (typeof rate !== 'number' || rate < 0 || rate > 1) throw new Error(`errorRate.${verb}.rate must be between 0 and 1`);
    }
    return { ...(spec as FaultSpec), errorRate: table };
  }
  return spec as FaultSpec;
}

/** `{verb: entry}`, or a list of entries each naming its `verb` (or `verbs`): [verb, entry] pairs. */
function errorRateEntries(raw: object): Array<[string, unknown]> {
  if (!Array.isArray(raw)) return Object.entries(raw as Record<string, unknown>);
  return raw.flatMap((item: unknown, i): Array<[string, unknown]> => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new Error(`errorRate[${i}] must be a mapping with a verb and a rate`);
    const { verb, verbs, ...entry } = item as Record<string, unknown>;
    const names = verbs ?? verb;
    const list = Array.isArray(names) ? names : [names];
    if (list.length === 0 || list.some((n) => typeof n !== 'string')) throw new Error(`errorRate[${i}] needs a verb (get, list, watch, create, update, patch, delete, deletecollection, read, write or all)`);
    return (list as string[]).map((n) => [n, entry]);
  });
}

// The names people write for the status code and Retry-After, all accepted; anything else is a typo
// that would silently inject the wrong fault, so it is refused.
const CODE_KEYS = ['code', 'status', 'statusCode'];
const RETRY_AFTER_KEYS = ['retryAfterSeconds', 'retryAfter', 'Retry-After'];

function errorRateEntry(verb: string, v: unknown): ErrorRateSpec {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`errorRate.${verb} must be a rate (0..1) or {rate, code, retryAfterSeconds}`);
  const raw = v as Record<string, unknown>;
  const known = ['rate', 'codes', 'failFirst', ...CODE_KEYS, ...RETRY_AFTER_KEYS];
  for (const k of Object.keys(raw)) if (!known.includes(k)) throw new Error(`errorRate.${verb}: unknown key "${k}" (known: rate, code, codes, retryAfterSeconds, failFirst)`);
  const entry: ErrorRateSpec = { rate: (raw.rate ?? (raw.failFirst !== undefined ? 0 : undefined)) as number };
  if (raw.failFirst !== undefined) {
    if (!Number.isInteger(raw.failFirst) || (raw.failFirst as number) < 0) throw new Error(`errorRate.${verb}.failFirst must be a whole number of requests`);
    entry.failFirst = raw.failFirst as number;
  }
  const code = CODE_KEYS.map((k) => raw[k]).find((x) => x !== undefined);
  if (code !== undefined) {
    if (!Number.isInteger(code) || (code as number) < 400 || (code as number) > 599) throw new Error(`errorRate.${verb}.code must be an HTTP error status (400-599)`);
    entry.code = code as number;
  }
  if (raw.codes !== undefined) {
    if (!Array.isArray(raw.codes) || raw.codes.length === 0 || raw.codes.some((c) => !Number.isInteger(c) || c < 400 || c > 599)) throw new Error(`errorRate.${verb}.codes must list HTTP error statuses (400-599)`);
    entry.codes = raw.codes as number[];
  }
  const retry = RETRY_AFTER_KEYS.map((k) => raw[k]).find((x) => x !== undefined);
  if (retry !== undefined) {
    if (typeof retry !== 'number' || !Number.isFinite(retry) || retry < 0) throw new Error(`errorRate.${verb}.retryAfterSeconds must be a non-negative number of seconds`);
    entry.retryAfterSeconds = retry;
  }
  return entry;
}

export class FaultInjector {
  private readonly random: () => number;
  private updates = 0;
  /** Requests failed so far by each entry's failFirst. */
  private readonly burst = new Map<ErrorRateSpec, number>();

  constructor(readonly spec: FaultSpec = {}) {
    this.random = mulberry32(spec.seed ?? 1);
  }

  get latencyMs(): number {
    return this.spec.latencyMs ?? 0;
  }

  private rateFor(verb: Verb): ErrorRateSpec | undefined {
    const table = this.spec.errorRate;
    if (!table) return undefined;
    const pick = table[verb] ?? (READ.includes(verb) ? table.read : table.write) ?? table.all ?? table['*'];
    if (pick === undefined) return undefined;
    return typeof pick === 'number' ? { rate: pick } : pick;
  }

  /** An error to answer this request with, or undefined. */
  errorFor(verb: Verb): ApiError | undefined {
    const r = this.rateFor(verb);
    if (!r) return undefined;
    const burst = this.burst.get(r) ?? 0;
    const inBurst = r.failFirst !== undefined && burst < r.failFirst;
    if (inBurst) this.burst.set(r, burst + 1);
    else if (r.rate <= 0 || this.random() >= r.rate) return undefined;
    const code = r.codes && r.codes.length ? r.codes[Math.floor(this.random() * r.codes.length)]! : (r.code ?? 500);
    return ApiError.fromCode(code, r.retryAfterSeconds);
  }

  /** Counts updates of existing objects; true when this one must conflict. */
  injectConflict(): boolean {
    const n = this.spec.conflictEveryNthUpdate;
    if (!n) return false;
    this.updates++;
    return this.updates % n === 0;
  }
}
