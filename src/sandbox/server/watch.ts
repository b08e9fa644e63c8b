// Watch streams: newline-delimited JSON events over a chunked response, starting either
// with the current state (resourceVersion unset or "0") or after a given resourceVersion
// (410 Expired as an ERROR event when that is older than the retained window).
import type { KubeObject } from '../../kruise/types';
import { ApiError } from './errors';
import type { ApiRequest } from './request';
import type { ResourceType, ServedVersion } from './resource-types';
import { fieldMatcher, labelMatcher } from './selectors';
import { listQuery } from './query-params';
import type { MemoryStore, StoredEvent } from './store';
import { buildTable, wantsTable } from './tables';
import { convertTo } from './versions';
import { eventsV1FieldSelector } from './event-versions';
import { StreamQueue } from './stream-queue';
import { filteredEvent, watchHub, type SharedLines, type WatchEventType } from './watch-hub';

export interface WatchSettings {
  /** Close the stream after this many events (fault injection). */
  dropAfterEvents?: number;
  /** Live events of these resources (plural, or group/resource) delivered this many ms late (fault injection). */
  lagMs?: Record<string, number>;
  bookmarkIntervalMs: number;
  /** Bytes a stream may queue after its initial events before the grace period starts. */
  maxQueuedBytes: number;
  /** How long a stream's queue may stay over maxQueuedBytes, sending nothing, before it is dropped. */
  slowWatcherGraceMs: number;
}

/** Default queue bound: a few thousand pod events. */
export const DEFAULT_MAX_QUEUED_BYTES = 8 * 1024 * 1024;
export const DEFAULT_SLOW_WATCHER_GRACE_MS = 5000;

export function serveWatch(
  store: MemoryStore,
  r: ApiRequest,
  type: ResourceType,
  version: ServedVersion,
  namespace: string | undefined,
  settings: WatchSettings,
  fixedName?: string,
): void {
  const gr = type.storedAs ?? { group: type.group, resource: type.resource };
  const opts = listQuery(r.params);
  const byLabel = labelMatcher(r.query('labelSelector'));
  let fieldSel = type.storedAs ? eventsV1FieldSelector(r.query('fieldSelector')) : r.query('fieldSelector');
  if (fixedName) fieldSel = fieldSel ? `${fieldSel},metadata.name=${fixedName}` : `metadata.name=${fixedName}`;
  const byField = fieldMatcher(fieldSel);
  const filtered = Boolean(r.query('labelSelector') || fieldSel);
  const matches = (o: KubeObject): boolean => (!namespace || o.metadata.namespace === namespace) && byLabel(o.metadata.labels) && byField(o);
  const tableVersion = wantsTable(r.accept);
  const includeObject = (r.query('includeObject') as 'None' | 'Metadata' | 'Object' | undefined) ?? 'Metadata';
  const bookmarks = opts.allowWatchBookmarks;
  const timeoutSeconds = opts.timeoutSeconds ?? 1800;
  const rvParam = r.query('resourceVersion');

  // Validate before committing to a 200 stream.
  let backlog: StoredEvent[] = [];
  let initial: KubeObject[] = [];
  let expired: ApiError | undefined;
  if (rvParam === undefined || rvParam === '' || rvParam === '0') {
    initial = store.listRefs(gr, { namespace }).filter(matches);
  } else {
    const rv = Number(rvParam);
    if (!Number.isInteger(rv) || rv < 0) throw ApiError.badRequest(`invalid resource version: "${rvParam}"`);
    try {
      backlog = store.eventsSince(rv, gr);
    } catch (err) {
      if (err instanceof ApiError && err.code === 410) expired = err;
      else throw err;
    }
  }

  r.startStream('application/json');
  const res = r.res;
  res.socket?.setNoDelay(true);
  let sent = 0;
  let firstTable = true;
  let closed = false;
  let lastRv = store.currentResourceVersion();
  // Two kinds share a store (core and events.k8s.io Events): the group is part of what a line is.
  const versionKey = `${type.group}/${version.name}`;
  // Events wait in the stream's own queue (shared bytes, bounded; see stream-queue.ts).
  const queue = new StreamQueue(res, settings, () => overflow());
  const writeBytes = (bytes: Buffer | string): void => {
    if (!closed) queue.push(typeof bytes === 'string' ? Buffer.from(bytes) : bytes);
  };

  const finish = (): void => {
    if (closed) return;
    closed = true;
    unsubscribe();
    for (const t of lagging) clearTimeout(t);
    clearTimeout(timer);
    if (bookmarkTimer) clearInterval(bookmarkTimer);
    queue.flushAll();
    queue.close();
    res.end();
  };

  /** A client that does not keep up: drop it and what is queued for it, as kube-apiserver drops a slow watcher. */
  const overflow = (): void => {
    if (closed) return;
    queue.close();
    finish();
    res.destroy();
  };

  const line = (evType: string, o: KubeObject): string => {
    let object: KubeObject;
    try {
      object = convertTo(type, o, version.name);
    } catch (err) {
      // kube-apiserver ends the stream with an ERROR event when an object cannot be encoded.
      if (!(err instanceof ApiError)) throw err;
      setImmediate(finish);
      return `${JSON.stringify({ type: 'ERROR', object: err.toStatus() })}\n`;
    }
    if (!tableVersion) return `${JSON.stringify({ type: evType, object })}\n`;
    const t = buildTable(type, version, [object], { includeObject, noHeaders: !firstTable, resourceVersion: o.metadata.resourceVersion, apiVersion: tableVersion });
    firstTable = false;
    return `${JSON.stringify({ type: evType, object: t })}\n`;
  };

  const send = (evType: WatchEventType, o: KubeObject, prev: KubeObject | undefined, shared?: SharedLines): void => {
    if (closed) return;
    const out = filtered || namespace ? filteredEvent(evType, o, prev, matches) : { type: evType, object: o, leaving: false };
    if (!out) return;
    lastRv = Number(o.metadata.resourceVersion ?? lastRv);
    // Tables carry per-stream state (headers once); JSON lines are the same for every watcher.
    if (shared && !tableVersion) writeBytes(shared.get(`${versionKey}\0${out.type}\0${out.leaving ? 'leaving' : ''}`, () => line(out.type, out.object)));
    else writeBytes(line(out.type, out.object));
    sent++;
    if (settings.dropAfterEvents && sent >= settings.dropAfterEvents) finish();
  };

  const lag = settings.lagMs?.[`${gr.group}/${gr.resource}`] ?? settings.lagMs?.[gr.resource] ?? 0;
  const lagging = new Set<NodeJS.Timeout>();
  const unsubscribe = watchHub(store).add(gr.group, gr.resource, {
    deliver: (ev: StoredEvent, shared: SharedLines) => {
      if (lag <= 0) return send(ev.type, ev.object, ev.prev, shared);
      // equal delays fire in order: the stream stays ordered, only late
      const t = setTimeout(() => (lagging.delete(t), send(ev.type, ev.object, ev.prev)), lag);
      lagging.add(t);
    },
  });
  const timer = setTimeout(finish, Math.max(1, timeoutSeconds) * 1000);
  const bookmarkTimer = bookmarks
    ? setInterval(() => {
        lastRv = Math.max(lastRv, store.currentResourceVersion());
        writeBytes(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: type.kind, apiVersion: `${type.group ? `${type.group}/` : ''}${version.name}`, metadata: { resourceVersion: String(lastRv) } } })}\n`);
      }, settings.bookmarkIntervalMs)
    : undefined;
  r.req.on('close', finish);
  res.on('close', finish);

  if (expired) {
    writeBytes(`${JSON.stringify({ type: 'ERROR', object: expired.toStatus() })}\n`);
    finish();
    return;
  }
  for (const o of initial) send('ADDED', o, undefined);
  for (const ev of backlog) send(ev.type, ev.object, ev.prev);
  if (bookmarks && !closed && opts.sendInitialEvents === true) {
    writeBytes(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: type.kind, apiVersion: `${type.group ? `${type.group}/` : ''}${version.name}`, metadata: { resourceVersion: String(store.currentResourceVersion()), annotations: { 'k8s.io/initial-events-end': 'true' } } } })}\n`);
  }
  queue.startBounding();
}
