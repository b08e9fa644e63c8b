// Flag parsing shared by restart, predownload, create pps, scaledown, migrate, expose and set:
// every value is checked before any request, and a bad one is a usage error (exit 2) naming the flag.
import { usageError } from '../../cli/exit';
import { parseDuration } from '../../cli/globals';
import type { Via } from '../../engine/restart-types';

/** `--flag`, `--flag=true|false` (commander gives true or the string). */
export function boolFlag(value: unknown, flag: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw usageError(`invalid value "${String(value)}" for ${flag}: expected true or false`);
}

export function viaFlag(value: unknown): Via {
  const v = value === undefined ? 'auto' : String(value);
  if (v === 'auto' || v === 'kruise' || v === 'client') return v;
  throw usageError(`invalid value "${v}" for --via: expected auto, kruise or client`);
}

/** Duration flag → milliseconds (undefined when absent). */
export function durationFlag(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(String(value), flag);
  if (ms < 0) throw usageError(`invalid duration "${String(value)}" for ${flag}: must not be negative`);
  return ms;
}

/** Duration flag → whole seconds ≥ min (undefined when absent). */
export function secondsFlag(value: unknown, flag: string, min = 0): number | undefined {
  const ms = durationFlag(value, flag);
  if (ms === undefined) return undefined;
  if (ms % 1000 !== 0) throw usageError(`invalid duration "${String(value)}" for ${flag}: must be a whole number of seconds`);
  const s = ms / 1000;
  if (s < min) throw usageError(`invalid duration "${String(value)}" for ${flag}: must be at least ${min}s`);
  if (s > 2147483647) throw usageError(`invalid duration "${String(value)}" for ${flag}: too large`);
  return s;
}

/** Non-negative integer flag (undefined when absent). */
export function intFlag(value: unknown, flag: string, min = 0, max = 2147483647): number | undefined {
  if (value === undefined) return undefined;
  const v = String(value);
  if (!/^-?\d+$/.test(v)) throw usageError(`invalid value "${v}" for ${flag}: expected an integer`);
  const n = Number(v);
  if (n < min || n > max) throw usageError(`invalid value "${v}" for ${flag}: must be from ${min} to ${max}`);
  return n;
}

/** --field-manager: 1 to 128 characters, as the API server takes it (`fallback` when absent). */
export function fieldManagerFlag(value: string | undefined, fallback: string): string {
  const fieldManager = value ?? fallback;
  if (fieldManager.trim() === '' || fieldManager.length > 128) throw usageError('--field-manager must be 1 to 128 characters');
  return fieldManager;
}

/** Seconds with one decimal under a minute, else m/s ("2m05s"). */
export function formatDurationMs(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}
