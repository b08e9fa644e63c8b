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

export interface WatchSettings {
  /** Close the stream after this many events (fault injection). */
  dropAfterEvents?: number;
  bookmarkIntervalMs: number;
}

export function serveWatch(
  store: MemoryStore,
  r: ApiRequest,
  type: ResourceType,
  version: ServedVersion,
  namespace: string | undefined,
  settings: WatchSettings,
  fixedName?: string,
): void {
  const gr = { group: type.group, resource: type.resource };
  const opts = listQuery(r.params);
  const byLabel = labelMatcher(r.query('labelSelector'));
  let fieldSel = r.query('fieldSelector');
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

  r.startStream(tableVersion ? 'application/json' : 'application/json');
  const res = r.res;
  res.socket?.setNoDelay(true);
  let sent = 0;
  let firstTable = true;
  let closed = false;
  let lastRv = store.currentResourceVersion();
  const seen = new Set<string>();
  const keyOf = (o: KubeObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

  const write = (evType: string, object: unknown): void => {
    if (closed) return;
    res.write(`${JSON.stringify({ type: evType, object })}\n`);
  };

  const finish = (): void => {
    if (closed) return;
    closed = true;
    unsubscribe();
    clearTimeout(timer);
    if (bookmarkTimer) clearInterval(bookmarkTimer);
    res.end();
  };

  const render = (o: KubeObject): unknown => {
    const converted = convertTo(type, o, version.name);
    if (!tableVersion) return converted;
    const t = buildTable(type, version, [converted], { includeObject, noHeaders: !firstTable, resourceVersion: o.metadata.resourceVersion, apiVersion: tableVersion });
    firstTable = false;
    return t;
  };

  const emit = (evType: 'ADDED' | 'MODIFIED' | 'DELETED', o: KubeObject): void => {
    if (closed) return;
    let outType: string = evType;
    if (filtered) {
      const k = keyOf(o);
      const m = matches(o);
      if (evType === 'DELETED') {
        if (!m && !seen.has(k)) return;
        seen.delete(k);
      } else if (m) {
        seen.add(k);
      } else if (seen.has(k)) {
        seen.delete(k);
        outType = 'DELETED';
      } else return;
    } else if (namespace && o.metadata.namespace !== namespace) return;
    lastRv = Number(o.metadata.resourceVersion ?? lastRv);
    write(outType, render(o));
    sent++;
    if (settings.dropAfterEvents && sent >= settings.dropAfterEvents) finish();
  };

  const unsubscribe = store.subscribeRaw((ev) => {
    if (ev.gr.group !== gr.group || ev.gr.resource !== gr.resource) return;
    emit(ev.type, ev.object);
  });
  const timer = setTimeout(finish, Math.max(1, timeoutSeconds) * 1000);
  const bookmarkTimer = bookmarks
    ? setInterval(() => {
        lastRv = Math.max(lastRv, store.currentResourceVersion());
        write('BOOKMARK', { kind: type.kind, apiVersion: `${type.group ? `${type.group}/` : ''}${version.name}`, metadata: { resourceVersion: String(lastRv) } });
      }, settings.bookmarkIntervalMs)
    : undefined;
  r.req.on('close', finish);
  res.on('close', finish);

  if (expired) {
    write('ERROR', expired.toStatus());
    finish();
    return;
  }
  for (const o of initial) emit('ADDED', o);
  for (const ev of backlog) emit(ev.type, ev.object);
  if (bookmarks && !closed && opts.sendInitialEvents === true) {
    write('BOOKMARK', { kind: type.kind, apiVersion: `${type.group ? `${type.group}/` : ''}${version.name}`, metadata: { resourceVersion: String(store.currentResourceVersion()), annotations: { 'k8s.io/initial-events-end': 'true' } } });
  }
}
