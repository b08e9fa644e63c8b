// Query parameters read the way kube-apiserver reads them (k8s.io/apimachinery
// pkg/runtime/conversion.go, Go's strconv.ParseInt and time.ParseDuration), so clients of
// other languages (the Python client sends `watch=True`) get kube's answers, 400s included.
import { ApiError } from './errors';

/** Go's strconv.Quote for the ASCII text clients send; close enough for messages. */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/**
 * Convert_Slice_string_To_bool: absent → undefined; "0" or "false" in any letter case → false;
 * anything else, the empty string included, → true. Only the first value counts.
 */
export function parseQueryBool(values: readonly string[]): boolean | undefined {
  if (values.length === 0) return undefined;
  const v = values[0]!;
  return !(v === '0' || v.toLowerCase() === 'false');
}

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/**
 * Convert_Slice_string_To_int64 (strconv.ParseInt(s, 10, 64)): an optional sign and decimal
 * digits, nothing else (no spaces, no underscores, no fractions). Absent → undefined.
 * The number is returned as a JS number (the sandbox's limits are far below 2^53).
 */
export function parseQueryInt64(values: readonly string[]): number | undefined {
  if (values.length === 0) return undefined;
  const s = values[0]!;
  if (!/^[+-]?[0-9]+$/.test(s)) throw ApiError.badRequest(`strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax`);
  const big = BigInt(s);
  if (big > INT64_MAX || big < INT64_MIN) throw ApiError.badRequest(`strconv.ParseInt: parsing ${goQuote(s)}: value out of range`);
  return Number(big);
}

const UNIT_NS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/**
 * Go's time.ParseDuration: "0", or a signed sequence of decimal numbers each with a unit
 * (ns, us, µs, ms, s, m, h), e.g. "1h30m", "1.5s", "-2m". Returns milliseconds; throws the
 * Go error text (`time: invalid duration "x"`, `time: missing unit in duration "1"`,
 * `time: unknown unit "d" in duration "1d"`) as a plain Error for the caller to wrap.
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
    const unitMatch = /^[^0-9.]*/.exec(s)![0];
    if (unitMatch === '') throw new Error(`time: missing unit in duration ${goQuote(orig)}`);
    const scale = UNIT_NS[unitMatch];
    if (scale === undefined) throw new Error(`time: unknown unit ${goQuote(unitMatch)} in duration ${goQuote(orig)}`);
    s = s.slice(unitMatch.length);
    totalNs += Number(`${intPart || '0'}.${fracPart || '0'}`) * scale;
    if (totalNs > 9.223372036854775807e18) throw new Error(`time: invalid duration ${goQuote(orig)}`);
  }
  return (neg ? -totalNs : totalNs) / 1e6;
}

/** Typed readers over one request's query string. */
export class QueryParams {
  constructor(private readonly params: URLSearchParams) {}

  bool(name: string): boolean | undefined {
    return parseQueryBool(this.params.getAll(name));
  }

  int64(name: string): number | undefined {
    return parseQueryInt64(this.params.getAll(name));
  }

  /**
   * The `timeout` of a short request (endpoints/filters/request_deadline.go parseTimeout):
   * a bad value is a 400 "invalid timeout specified in the request URL - <Go error>".
   */
  timeoutMs(): number | undefined {
    const v = this.params.get('timeout');
    if (v === null || v === '') return undefined;
    try {
      return parseGoDuration(v);
    } catch (err) {
      throw ApiError.badRequest(`invalid timeout specified in the request URL - ${(err as Error).message}`);
    }
  }
}

/** The typed fields of metav1.ListOptions, decoded together like the generated url.Values conversion. */
export interface ListQuery {
  watch: boolean;
  allowWatchBookmarks: boolean;
  timeoutSeconds?: number;
  limit: number;
  sendInitialEvents?: boolean;
}

/** autoConvert_url_Values_To_v1_ListOptions: any bad integer fails the whole request with 400. */
export function listQuery(q: QueryParams): ListQuery {
  return {
    watch: q.bool('watch') ?? false,
    allowWatchBookmarks: q.bool('allowWatchBookmarks') ?? false,
    timeoutSeconds: q.int64('timeoutSeconds'),
    limit: q.int64('limit') ?? 0,
    sendInitialEvents: q.bool('sendInitialEvents'),
  };
}
