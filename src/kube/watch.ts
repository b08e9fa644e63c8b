// observe(): list, then watch from the list's resourceVersion. A dropped
// connection resumes from the last resourceVersion seen (with backoff); 410 Gone
// (HTTP or an ERROR event) re-lists and calls onSync. Events are delivered one at
// a time, in order. Never polls: the only requests are list and watch.
import { StringDecoder } from 'node:string_decoder';
import type { KubeList, KubeObject, ListOptions, Observation, ObserveOptions, ResourceType, WatchEvent } from './client';
import { CliError } from '../cli/exit';
import { KubeApiError, apiError, isGone, type KubeStatus } from './errors';
import { abortableSleep, isAbortError, type QueryValue, type ResponseStream } from './http';
import { backoffDelay } from './retry';

export interface WatchDeps {
  list(rt: ResourceType, namespace: string | undefined, opts: ListOptions): Promise<KubeList>;
  /** Opens GET ...?watch=true with the given query; resolves with the 2xx stream. */
  openWatch(rt: ResourceType, namespace: string | undefined, query: Record<string, QueryValue>, signal: AbortSignal): Promise<ResponseStream>;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Give up after this long without a working connection (ms). */
  maxOutageMs?: number;
  /** -v>=6 diagnostics. */
  log?: (line: string) => void;
}

const DEFAULT_MAX_OUTAGE_MS = 60_000;

/**
 * Longest watch event line read (characters). One event holds one object, and the apiserver stores
 * none above ~1.5 MiB; past this a line is a broken or hostile stream, not an event.
 */
export const MAX_WATCH_EVENT_CHARS = 16 * 1024 * 1024;

/** Splits a chunked stream into lines (watch events are newline-delimited JSON), none longer than `maxLine`. */
export async function* streamLines(stream: AsyncIterable<Uint8Array | string>, maxLine = MAX_WATCH_EVENT_CHARS, tooLong: () => Error = () => new CliError(`a line of the stream is longer than ${maxLine} characters`)): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let buf = '';
  for await (const chunk of stream) {
    buf += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let nl: number;
    while ((nl = buf.indexOf('\n')) !== -1) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) yield line;
    }
    if (buf.length > maxLine) throw tooLong();
  }
  buf += decoder.end();
  if (buf.trim()) yield buf.trim();
}

function joinSelectors(...parts: Array<string | undefined>): string | undefined {
  const present = parts.filter((p): p is string => Boolean(p));
  return present.length ? present.join(',') : undefined;
}

/** Errors after which resuming makes sense: connection trouble, 429, 5xx. */
export function recoverable(err: unknown): boolean {
  if (err instanceof KubeApiError) return err.status === 429 || err.status >= 500;
  if (err instanceof CliError) return /unreachable|was reset|timed out/.test(err.message);
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'EPIPE' || code === 'ECONNREFUSED' || err instanceof SyntaxError;
}

class ResyncNeeded extends Error {}

export function observe<T extends KubeObject = KubeObject>(
  deps: WatchDeps,
  rt: ResourceType,
  namespace: string | undefined,
  opts: ObserveOptions,
  onEvent: (ev: WatchEvent<T>) => void | Promise<void>,
): Observation {
  const ac = new AbortController();
  const stop = (): void => ac.abort();
  if (opts.signal?.aborted) stop();
  opts.signal?.addEventListener('abort', stop, { once: true });
  const sleep = deps.sleep ?? abortableSleep;
  const random = deps.random ?? Math.random;
  const maxOutage = deps.maxOutageMs ?? DEFAULT_MAX_OUTAGE_MS;
  const fieldSelector = joinSelectors(opts.fieldSelector, opts.name ? `metadata.name=${opts.name}` : undefined);
  const labelSelector = opts.labelSelector;
  const log = deps.log ?? (() => undefined);

  const run = async (): Promise<void> => {
    let rv: string | undefined;
    let needList = true;
    let failures = 0;
    let outageStart: number | undefined;
    while (!ac.signal.aborted) {
      try {
        if (needList) {
          const list = await deps.list(rt, namespace, { labelSelector, fieldSelector, limit: opts.limit, signal: ac.signal, mapItem: opts.mapItem });
          rv = list.metadata.resourceVersion;
          needList = false;
          opts.onTrouble?.(undefined);
          if (opts.onSync) await opts.onSync(list.items);
          if (ac.signal.aborted) break;
        }
        // Like client-go: a randomised server-side timeout spreads reconnects.
        const timeoutSeconds = 300 + Math.floor(random() * 300);
        const res = await deps.openWatch(
          rt,
          namespace,
          { watch: 'true', resourceVersion: rv, allowWatchBookmarks: 'true', labelSelector, fieldSelector, timeoutSeconds },
          ac.signal,
        );
        outageStart = undefined;
        opts.onTrouble?.(undefined);
        const onAbort = (): void => {
          res.destroy();
        };
        ac.signal.addEventListener('abort', onAbort, { once: true });
        let events = 0;
        try {
          const tooLong = (): Error =>
            new CliError(`a watch event of ${rt.resource}${rt.group ? `.${rt.group}` : ''}${namespace ? ` in namespace "${namespace}"` : ''} is larger than ${MAX_WATCH_EVENT_CHARS / 1048576} MiB (the limit for one event); stopped watching`);
          for await (const line of streamLines(res, MAX_WATCH_EVENT_CHARS, tooLong)) {
            const ev = JSON.parse(line) as { type: string; object: KubeObject & KubeStatus };
            if (ev.type === 'ERROR') {
              const status = ev.object as KubeStatus;
              if (status.code === 410) throw new ResyncNeeded();
              throw apiError(status.code ?? 500, status.reason ?? '', JSON.stringify(status), { verb: 'watch', group: rt.group, resource: rt.resource, namespace });
            }
            const objRv = ev.object?.metadata?.resourceVersion;
            if (objRv) rv = objRv;
            events++;
            failures = 0;
            if (ev.type === 'BOOKMARK') continue;
            if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED' && ev.type !== 'DELETED') continue;
            await onEvent({ type: ev.type, object: ev.object as unknown as T });
            if (ac.signal.aborted) break;
          }
        } finally {
          ac.signal.removeEventListener('abort', onAbort);
          res.destroy();
        }
        if (ac.signal.aborted) break;
        // The server closed the watch (timeoutSeconds) or the connection dropped: resume from rv.
        log(`watch of ${rt.resource} ended after ${events} events; resuming from resourceVersion ${rv ?? ''}`);
        if (events === 0) {
          failures++;
          await sleep(backoffDelay(failures, random), ac.signal);
        }
      } catch (err) {
        if (ac.signal.aborted || isAbortError(err)) break;
        if (err instanceof ResyncNeeded || isGone(err)) {
          log(`watch of ${rt.resource}: resourceVersion ${rv ?? ''} expired (410 Gone); re-listing`);
          needList = true;
          continue;
        }
        if (!recoverable(err)) throw err;
        opts.onTrouble?.(err);
        outageStart ??= Date.now();
        if (Date.now() - outageStart > maxOutage) throw err;
        failures++;
        log(`watch of ${rt.resource} interrupted (${(err as Error).message}); retrying`);
        await sleep(backoffDelay(Math.min(failures, 6), random), ac.signal).catch(() => undefined);
      }
    }
  };

  const done = run().finally(() => opts.signal?.removeEventListener('abort', stop));
  // Consumers may only await `done` later; avoid an unhandled rejection meanwhile.
  done.catch(() => undefined);
  return { done, stop };
}
