// Events (core/v1, which events.k8s.io/v1 serves too) written the way kube's components write them.
// `core` is client-go's tools/record, the kubelet's: a repeat of the same event (same object,
// field path, type, reason and message) increments `count` and moves `lastTimestamp` instead of
// creating an object, and once 10 messages differ under one reason within 10 minutes every further
// one goes to a single "(combined from similar events): ..." event (events_cache.go). `series` is
// tools/events, the scheduler's: `eventTime`, and a repeat grows `series.count`.
// Unlike a real cluster, which keeps events for an hour (the API server's --event-ttl), the
// sandbox deletes an object's events with the object (forget), so a crash-looping pod or a
// 5,000-pod CloneSet holds a bounded number of them. Kept small: a 5,000-pod CloneSet records
// 25,000 events, so the recorder keeps a short list per object, shares repeated strings, and
// hands each event to the store without copies (createOwned).
import type { KubeObject } from '../../kruise/types';
import type { GroupResource, Store } from '../store-api';
import { kubeTime } from './pods';

export const EVENTS: GroupResource = { group: '', resource: 'events' };

export interface EventSpec {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** The part of the object the event is about, e.g. `spec.containers{app}`. */
  fieldPath?: string;
  /** events.k8s.io's action (the scheduler's `Binding`). */
  action?: string;
}

export interface RecorderOptions {
  style: 'core' | 'series';
  /** source.component / reportingComponent: `kubelet`, `default-scheduler`. */
  component: string;
  /** reportingInstance of series events (core events report their source host). */
  instance?: string;
  /** Epoch milliseconds with a fraction (event names and eventTime carry sub-millisecond parts). */
  now?: () => number;
}

/** client-go's defaultAggregateMaxEvents and defaultAggregateIntervalInSeconds. */
const AGGREGATE_MAX_MESSAGES = 10;
const AGGREGATE_INTERVAL_MS = 600_000;

/** One event object the recorder wrote about an object, and what a repeat of it must match. */
interface Recorded {
  name: string;
  /** The event as stored (the store never changes it in place): a repeat writes from it without reading it back. */
  stored: KubeObject;
  type: string;
  reason: string;
  fieldPath: string;
  /** The message (core), or the object's resourceVersion and the action (series: its isomorphism key). */
  match: string;
  count: number;
  lastMs: number;
  combined: boolean;
}

interface ObjectEvents {
  namespace: string;
  recorded: Recorded[];
}

const preciseNow = (): number => performance.timeOrigin + performance.now();

/** Shared by every recorder, so two components never name an event about one object alike. */
let lastNanos = 0n;

/** One copy of each repeated text (messages, field paths) for every event and record that holds it. */
const texts = new Map<string, string>();
function intern(s: string): string {
  const known = texts.get(s);
  if (known !== undefined) return known;
  if (texts.size >= 4096) texts.clear();
  texts.set(s, s);
  return s;
}

/** metav1.MicroTime: RFC 3339 with six fractional digits. */
export function microTime(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.floor((ms - whole) * 1000);
  return new Date(whole).toISOString().replace(/Z$/, `${String(micros).padStart(3, '0')}Z`);
}

export class EventRecorder {
  private readonly objects = new Map<string, ObjectEvents>();
  private readonly now: () => number;
  private readonly sources = new Map<string, object>();
  /** The last reference built: an object's consecutive events share it. */
  private lastRef: { obj: KubeObject; fieldPath: string; ref: Record<string, string> } | undefined;

  constructor(
    private readonly store: Store,
    private readonly opts: RecorderOptions,
  ) {
    this.now = opts.now ?? preciseNow;
  }

  /** Records `spec` about `obj` (reported from node `host` for core events). */
  record(obj: KubeObject, spec: EventSpec, host = ''): void {
    const uid = obj.metadata.uid ?? '';
    let state = this.objects.get(uid);
    if (!state) this.objects.set(uid, (state = { namespace: obj.metadata.namespace ?? 'default', recorded: [] }));
    const now = this.now();
    const fieldPath = intern(spec.fieldPath ?? '');
    if (this.opts.style === 'series') return this.recordSeries(obj, state, spec, fieldPath, now);
    const message = intern(spec.message);
    let exact: Recorded | undefined;
    let combined: Recorded | undefined;
    let recent = 0;
    for (const e of state.recorded) {
      if (e.type !== spec.type || e.reason !== spec.reason) continue;
      if (e.combined) combined = e;
      else {
        if (e.match === message && e.fieldPath === fieldPath) exact = e;
        if (now - e.lastMs <= AGGREGATE_INTERVAL_MS) recent++;
      }
    }
    // EventAggregatorByReasonFunc (the field path is not part of its key): 10 recent messages and more are combined.
    const distinct = recent + (exact ? 0 : 1);
    if (distinct < AGGREGATE_MAX_MESSAGES) {
      if (exact && this.repeat(state, exact, now, { count: exact.count + 1, lastTimestamp: kubeTime(now) })) return;
      return this.createCore(obj, state, { ...spec, message }, fieldPath, message, host, now, false);
    }
    const text = intern(`(combined from similar events): ${spec.message}`);
    if (combined && this.repeat(state, combined, now, { count: combined.count + 1, lastTimestamp: kubeTime(now), message: text })) return;
    this.createCore(obj, state, { ...spec, message: text }, fieldPath, '', host, now, true);
  }

  /** Deletes every event recorded about the object (it is gone). */
  forget(uid: string | undefined): void {
    const state = uid === undefined ? undefined : this.objects.get(uid);
    if (!state) return;
    this.objects.delete(uid!);
    for (const { name } of state.recorded) {
      try {
        this.store.delete(EVENTS, state.namespace, name);
      } catch {
        /* already gone (its namespace was deleted) */
      }
    }
  }

  private createCore(obj: KubeObject, state: ObjectEvents, spec: EventSpec, fieldPath: string, match: string, host: string, now: number, combined: boolean): void {
    const time = kubeTime(now);
    let source = this.sources.get(host);
    if (!source) this.sources.set(host, (source = host ? { component: this.opts.component, host } : { component: this.opts.component }));
    this.create(obj, state, { type: spec.type, reason: spec.reason, fieldPath, match, combined }, now, (name) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: state.namespace },
      involvedObject: this.reference(obj, fieldPath),
      reason: spec.reason,
      message: spec.message,
      source,
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
      type: spec.type,
      eventTime: null,
      reportingComponent: this.opts.component,
      reportingInstance: host,
    }));
  }

  /** tools/events: isomorphic events (same object at the same resourceVersion, type, action, reason) form a series. */
  private recordSeries(obj: KubeObject, state: ObjectEvents, spec: EventSpec, fieldPath: string, now: number): void {
    const match = `${obj.metadata.resourceVersion ?? ''}\0${spec.action ?? ''}`;
    const seen = state.recorded.find((e) => e.match === match && e.type === spec.type && e.reason === spec.reason && e.fieldPath === fieldPath);
    if (seen && this.repeat(state, seen, now, { series: { count: seen.count + 1, lastObservedTime: microTime(now) } })) return;
    this.create(obj, state, { type: spec.type, reason: spec.reason, fieldPath, match, combined: false }, now, (name) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: state.namespace },
      involvedObject: this.reference(obj, fieldPath),
      reason: spec.reason,
      message: intern(spec.message),
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      type: spec.type,
      eventTime: microTime(now),
      action: spec.action,
      reportingComponent: this.opts.component,
      reportingInstance: this.opts.instance ?? this.opts.component,
    }));
  }

  private create(obj: KubeObject, state: ObjectEvents, record: Omit<Recorded, 'name' | 'stored' | 'count' | 'lastMs'>, now: number, build: (name: string) => Record<string, unknown>): void {
    const name = this.eventName(obj, now);
    const stored = this.write(() => this.store.createOwned(EVENTS, build(name) as unknown as KubeObject));
    // A literal, not a spread: a spread copy takes a few hundred bytes more, and there are thousands.
    if (stored) state.recorded.push({ name, stored, type: record.type, reason: record.reason, fieldPath: record.fieldPath, match: record.match, count: 1, lastMs: now, combined: record.combined });
  }

  /**
   * A repeat: the stored event gets `changes`. False when a client deleted it meanwhile (the record
   * goes, and the caller writes the event afresh, as client-go creates one when its patch finds none).
   */
  private repeat(state: ObjectEvents, e: Recorded, now: number, changes: Record<string, unknown>): boolean {
    // A client may have changed the event since (a conflict on its resourceVersion): then from what is stored now.
    let updated = this.write(() => this.store.update(EVENTS, { ...e.stored, ...changes } as KubeObject));
    if (!updated) {
      const current = this.store.get(EVENTS, state.namespace, e.name);
      if (!current) {
        state.recorded.splice(state.recorded.indexOf(e), 1);
        return false;
      }
      updated = this.write(() => this.store.update(EVENTS, { ...current, ...changes } as KubeObject));
    }
    if (updated) {
      e.stored = updated;
      e.count += 1;
      e.lastMs = now;
    }
    return true;
  }

  private reference(obj: KubeObject, fieldPath: string): Record<string, string> {
    const last = this.lastRef;
    if (last && last.obj === obj && last.fieldPath === fieldPath) return last.ref;
    const ref: Record<string, string> = {
      kind: obj.kind ?? '',
      namespace: obj.metadata.namespace ?? '',
      name: obj.metadata.name ?? '',
      uid: obj.metadata.uid ?? '',
      apiVersion: obj.apiVersion ?? '',
      resourceVersion: obj.metadata.resourceVersion ?? '',
    };
    if (fieldPath) ref.fieldPath = fieldPath;
    this.lastRef = { obj, fieldPath, ref };
    return ref;
  }

  /** Events are best effort, as for kube's recorders: a refused write (the namespace is going) is dropped. */
  private write(fn: () => KubeObject): KubeObject | undefined {
    try {
      return fn();
    } catch {
      return undefined;
    }
  }

  /** `<object name>.<unix nanoseconds in hex>` (client-go util.GenerateEventName), never the same twice. */
  private eventName(obj: KubeObject, now: number): string {
    let nanos = BigInt(Math.floor(now * 1000)) * 1000n;
    if (nanos <= lastNanos) nanos = lastNanos + 1n;
    lastNanos = nanos;
    return `${obj.metadata.name}.${nanos.toString(16)}`;
  }
}
