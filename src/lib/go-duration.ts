// Go's time.ParseDuration, one implementation for every place that reads a Go duration: the CLI's
// duration flags (kubectl's pflag DurationVar), the sandbox's query parameters (timeout=) and
// AdvancedCronJob's `@every` schedules (robfig/cron's ParseStandard).

const UNIT_NS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };
/** int64 nanoseconds: about 292 years. */
const MAX_NS = 9.223372036854775807e18;

/** strconv.Quote for the plain strings these messages carry. */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

/**
 * "0", or a signed sequence of decimal numbers each with a unit (ns, us, µs, ms, s, m, h), e.g.
 * "1h30m", "1.5s", "-2m". Returns milliseconds; throws a plain Error with Go's text
 * (`time: invalid duration "x"`, `time: missing unit in duration "1"`,
 * `time: unknown unit "d" in duration "1d"`) for the caller to wrap.
 */
export function parseGoDuration(orig: string): number {
  let s = orig;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new Error(`time: invalid duration ${goQuote(orig)}`);
  let totalNs = 0;
  while (s !== '') {
    const num = /^([0-9]*)(\.([0-9]*))?/.exec(s)!;
    const intPart = num[1] ?? '';
    const fracPart = num[3] ?? '';
    if (intPart === '' && fracPart === '') throw new Error(`time: invalid duration ${goQuote(orig)}`);
    s = s.slice(num[0].length);
    const unit = /^[^0-9.]*/.exec(s)![0];
    if (unit === '') throw new Error(`time: missing unit in duration ${goQuote(orig)}`);
    const scale = UNIT_NS[unit];
    if (scale === undefined) throw new Error(`time: unknown unit ${goQuote(unit)} in duration ${goQuote(orig)}`);
    s = s.slice(unit.length);
    totalNs += Number(`${intPart || '0'}.${fracPart || '0'}`) * scale;
    if (totalNs > MAX_NS) throw new Error(`time: invalid duration ${goQuote(orig)}`);
  }
  return (neg ? -totalNs : totalNs) / 1e6;
}

/**
 * Go's time.Duration String() for whole milliseconds: "0s", "100ms", "10s", "1m20s", "5m0s",
 * "1h0m0s", "1.5s" (what the kubelet prints in "back-off 1m20s restarting failed container").
 */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(Math.round(ms));
  if (rest < 1000) return `${sign}${rest}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const whole = Math.floor(rest / 1000);
  const frac = rest % 1000;
  const s = frac === 0 ? `${whole}` : `${whole}.${String(frac).padStart(3, '0').replace(/0+$/, '')}`;
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}
