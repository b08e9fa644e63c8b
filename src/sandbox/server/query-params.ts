// Query parameters read the way kube-apiserver reads them (k8s.io/apimachinery
// pkg/runtime/conversion.go, Go's strconv.ParseInt and time.ParseDuration), so clients of
// other languages (the Python client sends `watch=True`) get kube's answers, 400s included.
import { ApiError } from './errors';
import { goQuote, parseGoDuration } from '../../lib/go-duration';

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
