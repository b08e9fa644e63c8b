// Cron schedules as AdvancedCronJob reads them: a port of robfig/cron v3.0.1 (the version in Kruise's
// go.mod), parser.go / spec.go / constantdelay.go, plus Go's time.ParseDuration for `@every`.
// - `parseCron(spec, options)` / `parseStandard(spec)`: cron.NewParser(...).Parse / cron.ParseStandard
//   (5 fields, descriptors, optional `TZ=` / `CRON_TZ=` prefix), errors worded as robfig's.
// - `CronSchedule.next(fromMs, inputZone?)`: Schedule.Next; undefined where Go returns the zero time.
//   A schedule without a time zone runs in the zone of the time it is given (`inputZone`, UTC when
//   absent: kruise-manager's container clock is UTC).
// - time.ParseDuration: src/lib/go-duration.ts (milliseconds).
// - `timeZoneProblem(name)`: time.LoadLocation's error for a zone name, or undefined.
// Time zones come from the runtime's IANA database (Intl), so no table is shipped here.
import { goQuote, parseGoDuration } from '../../lib/go-duration';

/** robfig's ParseOption flags. */
export const CronField = {
  Second: 1 << 0,
  SecondOptional: 1 << 1,
  Minute: 1 << 2,
  Hour: 1 << 3,
  Dom: 1 << 4,
  Month: 1 << 5,
  Dow: 1 << 6,
  DowOptional: 1 << 7,
  Descriptor: 1 << 8,
} as const;

/** cron.ParseStandard's parser: Minute | Hour | Dom | Month | Dow | Descriptor. */
export const STANDARD_OPTIONS = CronField.Minute | CronField.Hour | CronField.Dom | CronField.Month | CronField.Dow | CronField.Descriptor;

export interface CronSchedule {
  /** The next activation strictly after `fromMs` (whole seconds), or undefined (Go's zero time: none within five years). */
  next(fromMs: number, inputZone?: string): number | undefined;
}

/** One field of a spec: the values it allows, and whether it was written with `*` or `?` (the star bit). */
interface FieldBits {
  values: Set<number>;
  star: boolean;
}

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const SECONDS: Bounds = { min: 0, max: 59 };
const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = { min: 1, max: 12, names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } };
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

const PLACES = [CronField.Second, CronField.Minute, CronField.Hour, CronField.Dom, CronField.Month, CronField.Dow];
const DEFAULTS = ['0', '0', '0', '*', '*', '*'];

export class CronParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CronParseError';
  }
}

/** cron.ParseStandard(spec). Throws CronParseError with robfig's message. */
export function parseStandard(spec: string): CronSchedule {
  return parseCron(spec, STANDARD_OPTIONS);
}

/** Parser.Parse of a parser built with these options. */
export function parseCron(spec: string, options: number): CronSchedule {
  if (spec.length === 0) throw new CronParseError('empty spec string');
  let zone: string | undefined;
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const i = spec.indexOf(' ');
    const eq = spec.indexOf('=');
    // Go slices spec[eq+1:i] with i = -1 when there is no space: a runtime panic, which Kruise's
    // webhook recovers into this message (validateCronSchedule).
    if (i < 0) throw new CronParseError('invalid cron schedule: runtime error: slice bounds out of range [:-1]');
    const name = spec.slice(eq + 1, i);
    const problem = timeZoneProblem(name);
    if (problem) throw new CronParseError(`provided bad location ${name}: ${problem}`);
    zone = name === '' ? 'UTC' : name;
    spec = spec.slice(i).trim();
  }
  if (spec.startsWith('@')) {
    if ((options & CronField.Descriptor) === 0) throw new CronParseError(`parser does not accept descriptors: ${spec}`);
    return parseDescriptor(spec, zone);
  }
  const fields = normalizeFields(spec.split(/\s+/).filter((f) => f !== ''), options);
  return new SpecSchedule(
    getField(fields[0]!, SECONDS),
    getField(fields[1]!, MINUTES),
    getField(fields[2]!, HOURS),
    getField(fields[3]!, DOM),
    getField(fields[4]!, MONTHS),
    getField(fields[5]!, DOW),
    zone,
  );
}

function normalizeFields(fields: string[], options: number): string[] {
  let optionals = 0;
  if (options & CronField.SecondOptional) {
    options |= CronField.Second;
    optionals++;
  }
  if (options & CronField.DowOptional) {
    options |= CronField.Dow;
    optionals++;
  }
  if (optionals > 1) throw new CronParseError('multiple optionals may not be configured');
  const max = PLACES.filter((p) => (options & p) !== 0).length;
  const min = max - optionals;
  const count = fields.length;
  if (count < min || count > max) {
    // Go prints a []string with %s as [a b c].
    if (min === max) throw new CronParseError(`expected exactly ${min} fields, found ${count}: [${fields.join(' ')}]`);
    throw new CronParseError(`expected ${min} to ${max} fields, found ${count}: [${fields.join(' ')}]`);
  }
  if (min < max && count === min) {
    if (options & CronField.DowOptional) fields = [...fields, DEFAULTS[5]!];
    else if (options & CronField.SecondOptional) fields = [DEFAULTS[0]!, ...fields];
    else throw new CronParseError('unknown optional field');
  }
  const expanded = [...DEFAULTS];
  let n = 0;
  PLACES.forEach((place, i) => {
    if (options & place) expanded[i] = fields[n++]!;
  });
  return expanded;
}

function getField(field: string, r: Bounds): FieldBits {
  const out: FieldBits = { values: new Set(), star: false };
  for (const expr of field.split(',').filter((e) => e !== '')) {
    const bits = getRange(expr, r);
    for (const v of bits.values) out.values.add(v);
    if (bits.star) out.star = true;
  }
  return out;
}

/** number | number "-" number [ "/" number ], or * / ? for the whole range. */
function getRange(expr: string, r: Bounds): FieldBits {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
    star = true;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, r.names);
    else throw new CronParseError(`too many hyphens: ${expr}`);
  }
  let step: number;
  if (rangeAndStep.length === 1) step = 1;
  else if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    // "N/step" means "N-max/step".
    if (singleDigit) end = r.max;
    if (step > 1) star = false;
  } else throw new CronParseError(`too many slashes: ${expr}`);
  if (start < r.min) throw new CronParseError(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new CronParseError(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new CronParseError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronParseError(`step of range should be a positive number: ${expr}`);
  const values = new Set<number>();
  for (let i = start; i <= end; i += step) values.add(i);
  return { values, star };
}

function parseIntOrName(expr: string, names: Record<string, number> | undefined): number {
  const named = names?.[expr.toLowerCase()];
  if (named !== undefined) return named;
  return mustParseInt(expr);
}

/** strconv.Atoi, then "negative number not allowed". */
function mustParseInt(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr)) throw new CronParseError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${goQuote(expr)}: invalid syntax`);
  const num = Number(expr);
  if (!Number.isSafeInteger(num) || Math.abs(num) > 2 ** 63 - 1) throw new CronParseError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${goQuote(expr)}: value out of range`);
  if (num < 0) throw new CronParseError(`negative number (${num}) not allowed: ${expr}`);
  return num;
}

function all(r: Bounds): FieldBits {
  const values = new Set<number>();
  for (let i = r.min; i <= r.max; i++) values.add(i);
  return { values, star: true };
}

function only(v: number): FieldBits {
  return { values: new Set([v]), star: false };
}

function parseDescriptor(descriptor: string, zone: string | undefined): CronSchedule {
  switch (descriptor) {
    case '@yearly':
    case '@annually':
      return new SpecSchedule(only(0), only(0), only(0), only(1), only(1), all(DOW), zone);
    case '@monthly':
      return new SpecSchedule(only(0), only(0), only(0), only(1), all(MONTHS), all(DOW), zone);
    case '@weekly':
      return new SpecSchedule(only(0), only(0), only(0), all(DOM), all(MONTHS), only(0), zone);
    case '@daily':
    case '@midnight':
      return new SpecSchedule(only(0), only(0), only(0), all(DOM), all(MONTHS), all(DOW), zone);
    case '@hourly':
      return new SpecSchedule(only(0), only(0), all(HOURS), all(DOM), all(MONTHS), all(DOW), zone);
  }
  const every = '@every ';
  if (descriptor.startsWith(every)) {
    let ms: number;
    try {
      ms = parseGoDuration(descriptor.slice(every.length));
    } catch (err) {
      throw new CronParseError(`failed to parse duration ${descriptor}: ${(err as Error).message}`);
    }
    return new ConstantDelaySchedule(ms);
  }
  throw new CronParseError(`unrecognized descriptor: ${descriptor}`);
}

/** cron.Every: at least one second, sub-second parts truncated; Next rounds to the second. */
class ConstantDelaySchedule implements CronSchedule {
  readonly delayMs: number;
  constructor(durationMs: number) {
    this.delayMs = durationMs < 1000 ? 1000 : durationMs - (durationMs % 1000);
  }

  next(fromMs: number): number {
    return fromMs - mod(fromMs, 1000) + this.delayMs;
  }
}

class SpecSchedule implements CronSchedule {
  constructor(
    private readonly second: FieldBits,
    private readonly minute: FieldBits,
    private readonly hour: FieldBits,
    private readonly dom: FieldBits,
    private readonly month: FieldBits,
    private readonly dow: FieldBits,
    /** Undefined: time.Local, i.e. the zone of the time given to next(). */
    private readonly zone: string | undefined,
  ) {}

  next(fromMs: number, inputZone?: string): number | undefined {
    const z = zoneNamed(this.zone ?? inputZone ?? 'UTC');
    // Start at the earliest possible time (the upcoming second).
    let t = fromMs - mod(fromMs, 1000) + 1000;
    let added = false;
    const yearLimit = z.wall(t).year + 5;
    wrap: for (;;) {
      if (z.wall(t).year > yearLimit) return undefined;
      // Find the first applicable month; if it is this month, do nothing.
      while (!this.month.values.has(z.wall(t).month)) {
        if (!added) {
          added = true;
          const w = z.wall(t);
          t = z.date(w.year, w.month, 1, 0, 0, 0);
        }
        const w = z.wall(t);
        t = z.date(w.year, w.month + 1, w.day, w.hour, w.minute, w.second);
        if (z.wall(t).month === 1) continue wrap;
      }
      // A day in that month. DST may turn midnight into 1am (or 11pm): put the hour back to 0.
      while (!this.dayMatches(z.wall(t))) {
        if (!added) {
          added = true;
          const w = z.wall(t);
          t = z.date(w.year, w.month, w.day, 0, 0, 0);
        }
        const w = z.wall(t);
        t = z.date(w.year, w.month, w.day + 1, w.hour, w.minute, w.second);
        const h = z.wall(t).hour;
        if (h !== 0) t = h > 12 ? t + (24 - h) * HOUR_MS : t - h * HOUR_MS;
        if (z.wall(t).day === 1) continue wrap;
      }
      while (!this.hour.values.has(z.wall(t).hour)) {
        if (!added) {
          added = true;
          const w = z.wall(t);
          t = z.date(w.year, w.month, w.day, w.hour, 0, 0);
        }
        t += HOUR_MS;
        if (z.wall(t).hour === 0) continue wrap;
      }
      while (!this.minute.values.has(z.wall(t).minute)) {
        if (!added) {
          added = true;
          t -= mod(t, MINUTE_MS);
        }
        t += MINUTE_MS;
        if (z.wall(t).minute === 0) continue wrap;
      }
      while (!this.second.values.has(z.wall(t).second)) {
        if (!added) {
          added = true;
          t -= mod(t, 1000);
        }
        t += 1000;
        if (z.wall(t).second === 0) continue wrap;
      }
      return t;
    }
  }

  /** Both restricted: either matches; one written with a star: both must match. */
  private dayMatches(w: WallTime): boolean {
    const domMatch = this.dom.values.has(w.day);
    const dowMatch = this.dow.values.has(w.weekday);
    if (this.dom.star || this.dow.star) return domMatch && dowMatch;
    return domMatch || dowMatch;
  }
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

function mod(a: number, b: number): number {
  return ((a % b) + b) % b;
}

// ───────────── time zones ─────────────

interface WallTime {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday */
  weekday: number;
}

interface Zone {
  wall(ms: number): WallTime;
  /** Go's time.Date in this zone: out-of-range fields normalised, a wall time in a DST gap or overlap resolved as Go does. */
  date(year: number, month: number, day: number, hour: number, minute: number, second: number): number;
}

const UTC: Zone = {
  wall(ms) {
    const d = new Date(ms);
    return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(), weekday: d.getUTCDay() };
  },
  date(year, month, day, hour, minute, second) {
    return Date.UTC(year, month - 1, day, hour, minute, second);
  },
};

const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
const zones = new Map<string, Zone>();

function zoneNamed(name: string): Zone {
  if (name === 'UTC' || name === '') return UTC;
  let z = zones.get(name);
  if (z) return z;
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: name,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    weekday: 'short',
  });
  const wall = (ms: number): WallTime => {
    const parts: Record<string, string> = {};
    for (const p of format.formatToParts(new Date(ms))) parts[p.type] = p.value;
    return {
      year: Number(parts.year),
      month: Number(parts.month),
      day: Number(parts.day),
      hour: Number(parts.hour),
      minute: Number(parts.minute),
      second: Number(parts.second),
      weekday: WEEKDAYS[parts.weekday ?? ''] ?? 0,
    };
  };
  /** Offset from UTC (ms) in effect at instant `ms`. */
  const offset = (ms: number): number => {
    const w = wall(ms);
    return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - (ms - mod(ms, 1000));
  };
  z = {
    wall,
    date(year, month, day, hour, minute, second) {
      // time.Date: look the offset up as if the wall time were UTC, then again at the result when
      // that lands in another zone period (a DST transition between the two).
      const unix = Date.UTC(year, month - 1, day, hour, minute, second);
      const first = offset(unix);
      const utc = unix - first;
      const second_ = offset(utc);
      return second_ === first ? utc : unix - second_;
    },
  };
  zones.set(name, z);
  return z;
}

/** time.LoadLocation's error for `name` (undefined when Go would load it). */
export function timeZoneProblem(name: string): string | undefined {
  if (name === '' || name === 'UTC' || name === 'Local') return undefined;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    // Go reads zoneinfo files by name: a case-only difference is a missing file.
    if (resolved !== name && resolved.toLowerCase() === name.toLowerCase()) return `unknown time zone ${name}`;
    return undefined;
  } catch {
    return `unknown time zone ${name}`;
  }
}
