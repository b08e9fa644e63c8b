// Int-or-percent values as OpenKruise reads them (kruise-semantics §2.1, §2.3).
//
// Two parsers exist in Kruise and they disagree on some inputs, which is why both live here:
// - `scaleIntOrPercent` / `scaledValueFromIntOrPercent`: Kruise's own parser (since v1.4, used by the
//   webhook and the partition arithmetic). Integers as is; strings must end in `%`; the number may be
//   a decimal ("99.99%"); ceil/floor of v·total/100 in double precision.
// - `legacyScaledValue`: the older upstream parser the controllers still use for maxUnavailable /
//   maxSurge (and on some paths the partition): strips every `%`, reads an integer, treats any string
//   as a percentage. "12.5%" fails there and the controller silently uses 0; "5" means 5%.
// - `parserDisagreement`: a one-line warning when the two read a value differently.
//
// Errors are values (`IntOrPercentResult`) or, with the throwing variant, `IntOrPercentError`.
// Pure: no I/O, no CLI imports.

export type IntOrString = number | string;

/** An int-or-percent value after parsing: an absolute integer or a percentage (maybe decimal). */
export type ParsedIntOrPercent =
  | { kind: 'int'; value: number }
  | { kind: 'percent'; percent: number; text: string };

/** Why an int-or-percent value could not be read. `value` is the offending input. */
export class IntOrPercentError extends Error {
  constructor(
    readonly value: unknown,
    readonly reason: string,
  ) {
    super(`invalid value ${JSON.stringify(value)}: ${reason}`);
    this.name = 'IntOrPercentError';
  }
}

export type IntOrPercentResult<T> = { ok: true; value: T } | { ok: false; error: IntOrPercentError };

/** A value scaled against a total, with what the rounding did (for explanations). */
export interface ScaledValue {
  /** The integer result. */
  value: number;
  /** The unrounded value (v·total/100 for percentages, the integer itself otherwise). */
  exact: number;
  parsed: ParsedIntOrPercent;
  /** 'none' for integers and for percentages that scale to a whole number. */
  rounding: 'up' | 'down' | 'none';
}

// Go's strconv.ParseFloat accepts an optional sign, decimals and exponents; hex floats,
// Inf and NaN are left out on purpose (no sane manifest uses them and they would scale to nonsense).
const DECIMAL_PERCENT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?%$/;
// Go's strconv.Atoi: optional sign, decimal digits only.
const GO_ATOI = /^[+-]?\d+$/;

/** Parses with Kruise's parser (see module comment). Non-integer numbers and non-percent strings are errors. */
export function parseIntOrPercent(value: unknown): IntOrPercentResult<ParsedIntOrPercent> {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return fail(value, 'not an integer');
    return { ok: true, value: { kind: 'int', value } };
  }
  if (typeof value !== 'string') return fail(value, 'neither an integer nor a percentage');
  if (!value.endsWith('%')) return fail(value, 'not a percentage (a string must end in "%")');
  if (!DECIMAL_PERCENT.test(value)) return fail(value, 'not a percentage (expected a number before "%")');
  const percent = Number(value.slice(0, -1));
  if (!Number.isFinite(percent)) return fail(value, 'not a percentage');
  return { ok: true, value: { kind: 'percent', percent, text: value } };
}

/** Kruise's scaled value of an int-or-percent against `total`, rounding up or down. */
export function scaleIntOrPercent(value: unknown, total: number, roundUp: boolean): IntOrPercentResult<ScaledValue> {
  const parsed = parseIntOrPercent(value);
  if (!parsed.ok) return parsed;
  return { ok: true, value: scaleParsed(parsed.value, total, roundUp) };
}

/** Throwing variant of `scaleIntOrPercent`: returns the integer or throws `IntOrPercentError`. */
export function scaledValueFromIntOrPercent(value: unknown, total: number, roundUp: boolean): number {
  const r = scaleIntOrPercent(value, total, roundUp);
  if (!r.ok) throw r.error;
  return r.value.value;
}

/** Scales an already parsed value. Same operation order as Go (v * total / 100) so floats match. */
export function scaleParsed(parsed: ParsedIntOrPercent, total: number, roundUp: boolean): ScaledValue {
  if (parsed.kind === 'int') return { value: parsed.value, exact: parsed.value, parsed, rounding: 'none' };
  const exact = (parsed.percent * total) / 100;
  const value = roundUp ? Math.ceil(exact) : Math.floor(exact);
  return { value, exact, parsed, rounding: value === exact ? 'none' : roundUp ? 'up' : 'down' };
}

/** What the controllers' older parser makes of a value; `error` is set when it fails (then value is 0). */
export interface LegacyScaledValue {
  value: number;
  /** Whether the value was read as a percentage (true for every string, "5" included). */
  isPercent: boolean;
  error?: string;
}

/** The older upstream parser: strips every "%", reads an integer, and the controller ignores errors (→ 0). */
export function legacyScaledValue(value: unknown, total: number, roundUp: boolean): LegacyScaledValue {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return { value: 0, isPercent: false, error: 'not an integer' };
    return { value, isPercent: false };
  }
  if (typeof value !== 'string') return { value: 0, isPercent: false, error: 'neither int nor percentage' };
  const digits = value.split('%').join('');
  if (!GO_ATOI.test(digits)) return { value: 0, isPercent: true, error: `"${digits}" is not an integer` };
  const percent = Number(digits);
  const exact = (percent * total) / 100;
  return { value: roundUp ? Math.ceil(exact) : Math.floor(exact), isPercent: true };
}

/**
 * A warning when Kruise's parser and the controllers' legacy parser read `value` differently
 * (e.g. "12.5%" → 0 on the legacy path, "5" → 5% there but an error for the webhook's parser).
 * `field` names the field in the message ("maxUnavailable"). Undefined when they agree.
 */
export function parserDisagreement(field: string, value: unknown, total: number, roundUp: boolean): string | undefined {
  if (value === undefined || value === null || typeof value === 'number') return undefined;
  const legacy = legacyScaledValue(value, total, roundUp);
  const kruise = scaleIntOrPercent(value, total, roundUp);
  const shown = JSON.stringify(value);
  if (!kruise.ok) {
    if (legacy.error) return undefined; // both reject it: an error, not a disagreement
    return `${field} ${shown} has no "%": Kruise's webhook parser rejects it, but the controller's legacy parser reads it as ${shown}% (= ${legacy.value} of ${total}); write "${value}%" or the integer ${value}`;
  }
  if (legacy.error) {
    return `${field} ${shown} is read as 0 by the controller's legacy parser (it only understands whole percentages), but as ${kruise.value.value} of ${total} by Kruise's parser; use a whole percentage or an integer`;
  }
  if (legacy.value !== kruise.value.value) {
    return `${field} ${shown} is read as ${legacy.value} by the controller's legacy parser but as ${kruise.value.value} by Kruise's parser`;
  }
  return undefined;
}

/** Compact decimal for explanations: 7.2, 0.0999, 998.9001 (no float noise like 7.200000000000001). */
export function formatDecimal(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return String(Number(n.toPrecision(12)));
}

function fail(value: unknown, reason: string): { ok: false; error: IntOrPercentError } {
  return { ok: false, error: new IntOrPercentError(value, reason) };
}
