import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { Discovery } from '../../../src/kube/discovery';
import { RestClient } from '../../../src/kube/rest-client';
import { streamLines } from '../../../src/kube/watch';
import type { ResourceType, WatchEvent } from '../../../src/kube/client';
import { sendJson, startFakeApi, status, testTransport, type Recorded } from './fake-api';
import { waitUntil } from '../../helpers/sandbox';

const api = await startFakeApi();
after(() => api.close());

const CS: ResourceType = { group: 'apps.kruise.io', version: 'v1alpha1', resource: 'clonesets', kind: 'CloneSet', namespaced: true };
const cs = (name: string, rv: string, replicas = 1) => ({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name, namespace: 'prod', resourceVersion: rv }, spec: { replicas } });

function client() {
  const { transport } = testTransport(api.url);
  return new RestClient({ transport, discovery: new Discovery(async () => ({}), api.url, undefined), namespace: 'prod', userName: 'admin' });
}

function event(res: ServerResponse, type: string, object: unknown): void {
  res.write(`${JSON.stringify({ type, object })}\n`);
}

test('list, watch from its resourceVersion, resume after a drop, re-list on 410 (event and HTTP)', async () => {
  const lists: Recorded[] = [];
  const watches: Recorded[] = [];
  let listRv = 10;
  api.handle((req, res) => {
    if (req.query.get('watch') !== 'true') {
      lists.push(req);
      return sendJson(res, 200, { kind: 'CloneSetList', apiVersion: 'apps.kruise.io/v1alpha1', metadata: { resourceVersion: String(listRv) }, items: [cs('web', String(listRv))] });
    }
    watches.push(req);
    const n = watches.length;
    if (n === 4) return sendJson(res, 410, status(410, 'Expired', 'too old resource version: 20 (30)'));
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    if (n === 1) {
      // An event split across two chunks, a bookmark, then the connection drops.
      const line = JSON.stringify({ type: 'MODIFIED', object: cs('web', '11', 2) });
      res.write(line.slice(0, 20));
      setTimeout(() => {
        res.write(`${line.slice(20)}\n`);
        event(res, 'BOOKMARK', { kind: 'CloneSet', apiVersion: 'apps.kruise.io/v1alpha1', metadata: { resourceVersion: '12' } });
        setTimeout(() => res.socket?.destroy(), 20);
      }, 20);
    } else if (n === 2) {
      event(res, 'MODIFIED', cs('web', '13', 3));
      listRv = 20;
      event(res, 'ERROR', status(410, 'Expired', 'too old resource version: 13 (15)'));
      res.end();
    } else if (n === 3) {
      event(res, 'DELETED', cs('web', '21', 3));
      listRv = 30;
      res.end(); // server-side timeout: resume from 21, which answers 410 (n === 4)
    } else {
      event(res, 'ADDED', cs('api', '31'));
      // keep open until stopped
    }
  });
  const events: Array<WatchEvent> = [];
  const syncs: string[][] = [];
  const obs = client().observe(CS, 'prod', { name: 'web', onSync: (items) => void syncs.push(items.map((i) => `${i.metadata.name}@${i.metadata.resourceVersion}`)) }, (ev) => {
    events.push(ev);
  });
  await waitUntil('four events', () => events.length === 4, 5000, 5);
  obs.stop();
  await obs.done;
  assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`), ['MODIFIED web@11', 'MODIFIED web@13', 'DELETED web@21', 'ADDED api@31']);
  assert.deepEqual(syncs, [['web@10'], ['web@20'], ['web@30']]);
  assert.deepEqual(watches.map((w) => w.query.get('resourceVersion')), ['10', '12', '20', '21', '30']);
  for (const w of watches) {
    assert.equal(w.query.get('allowWatchBookmarks'), 'true');
    assert.equal(w.query.get('fieldSelector'), 'metadata.name=web');
  }
  assert.equal(lists.length, 3);
  assert.equal(lists[0]!.query.get('limit'), '500');
});

test('events are delivered one at a time, in order, even with a slow handler', async () => {
  api.handle((req, res) => {
    if (req.query.get('watch') !== 'true') return sendJson(res, 200, { metadata: { resourceVersion: '1' }, items: [] });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    for (let i = 2; i < 12; i++) event(res, 'ADDED', cs(`p${i}`, String(i)));
  });
  const seen: string[] = [];
  let active = 0;
  const obs = client().observe(CS, 'prod', {}, async (ev) => {
    active++;
    assert.equal(active, 1, 'no concurrent delivery');
    await new Promise((r) => setTimeout(r, 2));
    seen.push(ev.object.metadata.name!);
    active--;
  });
  await waitUntil('ten events', () => seen.length === 10, 5000, 5);
  obs.stop();
  await obs.done;
  assert.deepEqual(seen, ['p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9', 'p10', 'p11']);
});

test('an abort signal cancels; a 403 on the list rejects done', async () => {
  api.handle((req, res) => {
    if (req.query.get('watch') !== 'true') return sendJson(res, 200, { metadata: { resourceVersion: '1' }, items: [] });
    res.writeHead(200, { 'Content-Type': 'application/json' });
  });
  const ac = new AbortController();
  const obs = client().observe(CS, 'prod', { signal: ac.signal }, () => undefined);
  setTimeout(() => ac.abort(), 50);
  await obs.done;

  api.handle((_req, res) => sendJson(res, 403, status(403, 'Forbidden', 'clonesets.apps.kruise.io is forbidden: User "viewer" cannot list resource "clonesets" in API group "apps.kruise.io" in the namespace "prod"')));
  const denied = client().observe(CS, 'prod', {}, () => undefined);
  await assert.rejects(denied.done, /^Error: viewer cannot list clonesets.apps.kruise.io in namespace prod$|viewer cannot list clonesets.apps.kruise.io in namespace prod/);
});

test('an error thrown by the handler stops the observation and rejects done', async () => {
  api.handle((req, res) => {
    if (req.query.get('watch') !== 'true') return sendJson(res, 200, { metadata: { resourceVersion: '1' }, items: [] });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    event(res, 'ADDED', cs('x', '2'));
  });
  const obs = client().observe(CS, 'prod', {}, () => {
    throw new Error('handler failed');
  });
  await assert.rejects(obs.done, /handler failed/);
});

test('streamLines splits newline-delimited JSON across arbitrary chunks and multibyte characters', async () => {
  const text = '{"a":"é"}\n{"b":2}\n\n{"c":3}';
  const bytes = Buffer.from(text);
  const chunks = [bytes.subarray(0, 7), bytes.subarray(7, 8), bytes.subarray(8, 15), bytes.subarray(15)];
  async function* gen() {
    for (const c of chunks) yield c;
  }
  const out: string[] = [];
  for await (const l of streamLines(gen())) out.push(l);
  assert.deepEqual(out, ['{"a":"é"}', '{"b":2}', '{"c":3}']);
});
