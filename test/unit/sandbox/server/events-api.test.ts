// core/v1 and events.k8s.io/v1 Events are one store, as in kube-apiserver: what one API writes the
// other reads (and watches) under its own field names and field labels.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index';
import { coreEventToEventsV1, eventsV1FieldSelector, eventsV1ToCoreEvent } from '../../../../src/sandbox/server/event-versions';
import { rawApi } from './raw-api';

let sb: RunningSandbox;
const call = rawApi(() => sb.url);
const CORE = '/api/v1/namespaces/default/events';
const V1 = '/apis/events.k8s.io/v1/namespaces/default/events';

before(async () => {
  sb = await startSandbox({ port: 0, nodes: 1, kruise: 'v1.9', tls: false, readyDelayMs: 10, noControllers: true });
});
after(async () => {
  await sb.stop();
});

const coreEvent = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web-0.1', namespace: 'default' },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'u1', apiVersion: 'v1', fieldPath: 'spec.containers{app}' },
  reason: 'BackOff',
  message: 'Back-off restarting failed container app in pod web-0_default(u1)',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2026-05-01T10:00:00Z',
  lastTimestamp: '2026-05-01T10:00:09Z',
  count: 4,
  type: 'Warning',
  eventTime: null,
  reportingComponent: 'kubelet',
  reportingInstance: 'node-1',
};

it('the conversion renames the fields that differ, both ways', () => {
  const v1 = coreEventToEventsV1(coreEvent as never) as Record<string, unknown>;
  assert.equal(v1.apiVersion, 'events.k8s.io/v1');
  assert.deepEqual(v1.regarding, coreEvent.involvedObject);
  assert.equal(v1.note, coreEvent.message);
  assert.equal(v1.reportingController, 'kubelet');
  assert.equal(v1.deprecatedCount, 4);
  assert.equal(v1.deprecatedLastTimestamp, coreEvent.lastTimestamp);
  assert.deepEqual(v1.deprecatedSource, coreEvent.source);
  assert.equal('involvedObject' in v1 || 'message' in v1 || 'count' in v1, false);
  assert.deepEqual(eventsV1ToCoreEvent(v1 as never), coreEvent);
  assert.equal(eventsV1FieldSelector('regarding.name=web-0,reason=BackOff,reportingController=kubelet'), 'involvedObject.name=web-0,reason=BackOff,reportingComponent=kubelet');
});

it('an event written through core/v1 is read through events.k8s.io/v1 (field selectors, table), and back', async () => {
  assert.equal((await call('POST', CORE, coreEvent)).status, 201);
  const list = await call('GET', `${V1}?fieldSelector=regarding.name%3Dweb-0,reason%3DBackOff`);
  assert.equal(list.status, 200);
  assert.equal(list.body.apiVersion, 'events.k8s.io/v1');
  assert.equal(list.body.items.length, 1);
  assert.equal(list.body.items[0].note, coreEvent.message);
  assert.equal(list.body.items[0].deprecatedCount, 4);
  const table = await call('GET', `${V1}/web-0.1`, undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  assert.deepEqual(table.body.rows[0].cells.slice(1), ['Warning', 'BackOff', 'pod/web-0', coreEvent.message]);

  const created = await call('POST', V1, { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'web-0.2' }, eventTime: '2026-05-01T10:00:00.000000Z', reportingController: 'default-scheduler', reportingInstance: 'x', action: 'Binding', reason: 'Scheduled', type: 'Normal', note: 'Successfully assigned default/web-0 to node-1', regarding: { kind: 'Pod', namespace: 'default', name: 'web-0' } });
  assert.equal(created.status, 201);
  assert.equal(created.body.note, 'Successfully assigned default/web-0 to node-1');
  const core = await call('GET', `${CORE}/web-0.2`);
  assert.equal(core.body.apiVersion, 'v1');
  assert.equal(core.body.message, 'Successfully assigned default/web-0 to node-1');
  assert.equal(core.body.reportingComponent, 'default-scheduler');
  assert.equal(core.body.involvedObject.name, 'web-0');
  assert.equal((await call('GET', `${CORE}?fieldSelector=source%3Ddefault-scheduler`)).body.items.length, 1, '`source` falls back to the reporting controller');
});

it('a watch of events.k8s.io/v1 sees a core/v1 write in its own shape (lines cached per group)', async () => {
  const ac = new AbortController();
  const res = await fetch(`${sb.url}${V1}?watch=1&fieldSelector=regarding.name%3Dweb-1`, { signal: ac.signal });
  const coreWatch = await fetch(`${sb.url}${CORE}?watch=1&fieldSelector=involvedObject.name%3Dweb-1`, { signal: ac.signal });
  const readLine = async (r: Response): Promise<any> => {
    const reader = r.body!.getReader();
    let text = '';
    while (!text.includes('\n')) text += new TextDecoder().decode((await reader.read()).value);
    return JSON.parse(text.slice(0, text.indexOf('\n')));
  };
  const pending = [readLine(res), readLine(coreWatch)];
  await call('POST', CORE, { ...coreEvent, metadata: { name: 'web-1.1' }, involvedObject: { ...coreEvent.involvedObject, name: 'web-1' } });
  const [v1, core] = await Promise.all(pending);
  ac.abort();
  assert.equal(v1.type, 'ADDED');
  assert.equal(v1.object.apiVersion, 'events.k8s.io/v1');
  assert.equal(v1.object.regarding.name, 'web-1');
  assert.equal(core.object.apiVersion, 'v1');
  assert.equal(core.object.involvedObject.name, 'web-1');
});
