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
  const known = ['latencyMs', 'errorRate', 'dropWatchAfterEvents', 'expireResourceVersionsAfter', 'conflictEveryNthUpdate', 'seed'];
  for (const k of Object.keys(spec)) if (!known.includes(k)) throw new Error(`unknown key "${k}" in the faults file (known: ${known.join(', ')})`);
  for (const k of ['latencyMs', 'dropWatchAfterEvents', 'expireResourceVersionsAfter', 'conflictEveryNthUpdate', 'seed']) {
    const v = spec[k];
    if (v !== undefined && (typeof v !== 'number' || v < 0 || !Number.isFinite(v))) throw new Error(`${k} in the faults file must be a non-negative number`);
  }
  if (spec.errorRate !== undefined) {
    if (typeof spec.errorRate !== 'object' || spec.errorRate === null) throw new Error('errorRate in the faults file must map verbs to {rate, code, retryAfterSeconds}');
    for (const [verb, v] of Object.entries(spec.errorRate as Record<string, unknown>)) {
      if (![...READ, ...WRITE, 'read', 'write', 'all', '*'].includes(verb)) throw new Error(`errorRate: unknown verb "${verb}"`);
      const rate = typeof v === 'number' ? v : (v as ErrorRateSpec | null)?.rate;
      if (typeof rate !== 'number' || rate < 0 || rate > 1) throw new Error(`errorRate.${verb}.rate must be between 0 and 1`);
    }
  }
  return spec as FaultSpec;
}

export class FaultInjector {
  private readonly random: () => number;
  private updates = 0;

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
    if (!r || r.rate <= 0) return undefined;
    if (this.random() >= r.rate) return undefined;
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
