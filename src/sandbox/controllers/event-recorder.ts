// Events (core/v1, which events.k8s.io/v1 serves too) written the way kube's components write them.
// `core` is client-go's tools/record, the kubelet's: a repeat of the same event (same object,
// field path, type, reason and message) increments `count` and moves `lastTimestamp` instead of
// creating an object, and once 10 messages differ under one reason within 10 minutes they are
// combined into one "(combined from similar events): ..." event (events_cache.go). `series` is
// tools/events, the scheduler's: `eventTime`, and a repeat grows `series.count`.
// Unlike a real cluster, which keeps events for an hour (the API server's --event-ttl), the
// sandbox deletes an object's events with the object (forget), so a crash-looping pod or a
// 5,000-pod CloneSet holds a bounded number of them.
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

interface Observation {
  name: string;
  count: number;
}

/** What the recorder wrote about one object, so that a repeat counts and the object's deletion takes them away. */
interface ObjectEvents {
  namespace: string;
  seen: Map<string, Observation>;
  /** Messages seen per (host, type, reason), for the aggregation of core events. */
  aggregates: Map<string, { messages: Set<string>; lastMs: number }>;
}

const preciseNow = (): number => performance.timeOrigin + performance.now();

/** Shared by every recorder, so two components never name an event about one object alike. */
let lastNanos = 0n;

/** metav1.MicroTime: RFC 3339 with six fractional digits. */
export function microTime(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.floor((ms - whole) * 1000);
  return new Date(whole).toISOString().replace(/Z$/, `${String(micros).padStart(3, '0')}Z`);
}

export class EventRecorder {
  private readonly objects = new Map<string, ObjectEvents>();
  private readonly now: () => number;

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
    if (!state) this.objects.set(uid, (state = { namespace: obj.metadata.namespace ?? 'default', seen: new Map(), aggregates: new Map() }));
    const now = this.now();
    if (this.opts.style === 'series') return this.recordSeries(obj, state, spec, now);
    let message = spec.message;
    let key = `${host}\0${spec.fieldPath ?? ''}\0${spec.type}\0${spec.reason}\0${message}`;
    // EventAggregatorByReasonFunc: the field path is not part of the aggregate key.
    const aggKey = `${host}\0${spec.type}\0${spec.reason}`;
    let agg = state.aggregates.get(aggKey);
    if (!agg || now - agg.lastMs > AGGREGATE_INTERVAL_MS) state.aggregates.set(aggKey, (agg = { messages: new Set(), lastMs: now }));
    agg.messages.add(spec.message);
    agg.lastMs = now;
    if (agg.messages.size >= AGGREGATE_MAX_MESSAGES) {
      agg.messages.delete(agg.messages.values().next().value!);
      message = `(combined from similar events): ${spec.message}`;
      key = `\0combined\0${aggKey}`;
    }
    const seen = state.seen.get(key);
    const stored = seen && this.store.get(EVENTS, state.namespace, seen.name);
    if (seen && stored) {
      seen.count += 1;
      this.write(() => this.store.update(EVENTS, { ...stored, count: seen.count, lastTimestamp: kubeTime(now), message } as KubeObject));
      return;
    }
    this.create(obj, state, key, now, (name) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: state.namespace },
      involvedObject: this.reference(obj, spec.fieldPath),
      reason: spec.reason,
      message,
      source: host ? { component: this.opts.component, host } : { component: this.opts.component },
      firstTimestamp: kubeTime(now),
      lastTimestamp: kubeTime(now),
      count: 1,
      type: spec.type,
      eventTime: null,
      reportingComponent: this.opts.component,
      reportingInstance: host,
    }));
  }

  /** Deletes every event recorded about the object (it is gone). */
  forget(uid: string | undefined): void {
    const state = uid === undefined ? undefined : this.objects.get(uid);
    if (!state) return;
    this.objects.delete(uid!);
    for (const { name } of state.seen.values()) {
      try {
        this.store.delete(EVENTS, state.namespace, name);
      } catch {
        /* already gone (its namespace was deleted) */
      }
    }
  }

  /** tools/events: isomorphic events (same object at the same resourceVersion, type, action, reason) form a series. */
  private recordSeries(obj: KubeObject, state: ObjectEvents, spec: EventSpec, now: number): void {
    const key = `${obj.metadata.resourceVersion ?? ''}\0${spec.fieldPath ?? ''}\0${spec.type}\0${spec.action ?? ''}\0${spec.reason}`;
    const seen = state.seen.get(key);
    const stored = seen && this.store.get(EVENTS, state.namespace, seen.name);
    if (seen && stored) {
      seen.count += 1;
      this.write(() => this.store.update(EVENTS, { ...stored, series: { count: seen.count, lastObservedTime: microTime(now) } } as KubeObject));
      return;
    }
    this.create(obj, state, key, now, (name) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: state.namespace },
      involvedObject: this.reference(obj, spec.fieldPath),
      reason: spec.reason,
      message: spec.message,
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

  private create(obj: KubeObject, state: ObjectEvents, key: string, now: number, build: (name: string) => Record<string, unknown>): void {
    const name = this.eventName(obj, now);
    if (this.write(() => this.store.create(EVENTS, build(name) as unknown as KubeObject))) state.seen.set(key, { name, count: 1 });
  }

  /** Events are best effort, as for kube's recorders: a refused write (the namespace is going) is dropped. */
  private write(fn: () => unknown): boolean {
    try {
      fn();
      return true;
    } catch {
      return false;
    }
  }

  private reference(obj: KubeObject, fieldPath: string | undefined): Record<string, string> {
    const ref: Record<string, string> = {
      kind: obj.kind ?? '',
      namespace: obj.metadata.namespace ?? '',
      name: obj.metadata.name ?? '',
      uid: obj.metadata.uid ?? '',
      apiVersion: obj.apiVersion ?? '',
      resourceVersion: obj.metadata.resourceVersion ?? '',
    };
    if (fieldPath) ref.fieldPath = fieldPath;
    return ref;
  }

  /** `<object name>.<unix nanoseconds in hex>` (client-go util.GenerateEventName), never the same twice. */
  private eventName(obj: KubeObject, now: number): string {
    let nanos = BigInt(Math.floor(now * 1000)) * 1000n;
    if (nanos <= lastNanos) nanos = lastNanos + 1n;
    lastNanos = nanos;
    return `${obj.metadata.name}.${nanos.toString(16)}`;
  }
}
