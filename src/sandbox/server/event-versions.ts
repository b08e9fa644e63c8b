// events.k8s.io/v1 Events are core/v1 Events served under other field names, as kube-apiserver
// stores both in one place (pkg/apis/events/v1/conversion.go): involvedObject ↔ regarding,
// message ↔ note, reportingComponent ↔ reportingController, source/firstTimestamp/lastTimestamp/
// count ↔ their deprecated* names; the other fields (eventTime, series, action, related, type,
// reason, reportingInstance) keep theirs. Field selectors name the events.k8s.io fields.
import type { KubeObject } from '../../kruise/types';

type Obj = Record<string, unknown>;

/** core/v1 name → events.k8s.io/v1 name, for the fields that differ. */
const RENAMED: ReadonlyArray<[string, string]> = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['reportingComponent', 'reportingController'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
];

function rename(obj: KubeObject, apiVersion: string, pairs: ReadonlyArray<[string, string]>): KubeObject {
  const out: Obj = { ...obj, apiVersion };
  for (const [from, to] of pairs) {
    if (!(from in out)) continue;
    out[to] = out[from];
    delete out[from];
  }
  return out as KubeObject;
}

export function coreEventToEventsV1(obj: KubeObject): KubeObject {
  return rename(obj, 'events.k8s.io/v1', RENAMED);
}

export function eventsV1ToCoreEvent(obj: KubeObject): KubeObject {
  return rename(
    obj,
    'v1',
    RENAMED.map(([core, v1]) => [v1, core]),
  );
}

/** The events.k8s.io field labels of a field selector in core's terms (regarding.name → involvedObject.name). */
export function eventsV1FieldSelector(selector: string | undefined): string | undefined {
  return selector?.replace(/(^|,)\s*regarding\./g, '$1involvedObject.').replace(/(^|,)\s*reportingController\b/g, '$1reportingComponent');
}
