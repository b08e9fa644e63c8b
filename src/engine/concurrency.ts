// Bounded concurrency for bursts of requests (e.g. creating 100 CRRs of one batch):
// enough in flight to be quick, few enough not to trip the server's rate limits.

export const DEFAULT_REQUEST_CONCURRENCY = 16;

/** Runs `fn` over `items` with at most `limit` in flight; results in input order. Stops starting new work once `signal` aborts. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>, signal?: AbortSignal): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed: unknown;
  const worker = async (): Promise<void> => {
    while (next < items.length && failed === undefined && !signal?.aborted) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!, i);
      } catch (err) {
        failed ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  if (failed !== undefined) throw failed;
  return results;
}
