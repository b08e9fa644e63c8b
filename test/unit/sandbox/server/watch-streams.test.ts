// Watch streams in-process: label-selected watches report objects entering and leaving the
// selector like kube's cacher (ADDED / DELETED, cache_watcher.go convertToWatchEvent), and a
// client that stops reading is dropped once its queue passes the bound instead of the server
// buffering every event for it (kube-apiserver closes such watchers; clients re-list).
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index';
import { rawApi } from './raw-api';

let sb: RunningSandbox;
const CM = '/api/v1/namespaces/default/configmaps';

const call = rawApi(() => sb.url);
const cm = (name: string, labels: Record<string, string>, data: Record<string, string> = { k: 'v' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data });

before(async () => {
  sb = await startSandbox({ port: 0, nodes: 1, kruise: 'v1.9', tls: false, readyDelayMs: 10, noControllers: true, slowWatcherGraceMs: 100 });
});
after(async () => {
  await sb.stop();
});

describe('label-selected watch from a resourceVersion (apiserver pkg/storage/cacher/cache_watcher.go convertToWatchEvent)', () => {
  it('an object entering the selector is ADDED, one leaving it is DELETED with its last matching content', async () => {
    assert.equal((await call('POST', CM, cm('inside', { team: 'a' }))).status, 201);
    assert.equal((await call('POST', CM, cm('outside', { team: 'b' }))).status, 201);
    const rv = (await call('GET', `${CM}?labelSelector=team%3Da`)).body.metadata.resourceVersion;
    await call('PATCH', `${CM}/outside`, { metadata: { labels: { team: 'a' } } }, { 'Content-Type': 'application/merge-patch+json' });
    const moved = await call('PATCH', `${CM}/inside`, { metadata: { labels: { team: 'c' } } }, { 'Content-Type': 'application/merge-patch+json' });
    const res = await call('GET', `${CM}?labelSelector=team%3Da&watch=1&resourceVersion=${rv}&timeoutSeconds=1`);
    const events = res.text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.labels.team]), [
      ['ADDED', 'outside', 'a'],
      ['DELETED', 'inside', 'a'],
    ]);
    assert.equal(events[1].object.metadata.resourceVersion, moved.body.metadata.resourceVersion);
  });
});

describe('a watch client that stops reading', () => {
  it('is dropped once its unread queue stays over the bound for the grace period; a reading watcher of the same events gets them all', async () => {
    const url = `${sb.url}${CM}?labelSelector=load%3Dyes&watch=true&timeoutSeconds=60`;
    const reader = { events: 0, ended: false };
    const stuck: { events: number; closed: boolean; resumed: boolean; res?: http.IncomingMessage } = { events: 0, closed: false, resumed: false };
    const reqs: http.ClientRequest[] = [];
    await new Promise<void>((ready) => {
      let open = 0;
      const opened = () => ++open === 2 && ready();
      reqs.push(http.get(url, (res) => {
        let tail = '';
        res.on('data', (d: Buffer) => {
          const parts = (tail + d.toString()).split('\n');
          tail = parts.pop()!;
          reader.events += parts.length;
        });
        res.on('end', () => (reader.ended = true));
        opened();
      }));
      reqs.push(http.get(url, (res) => {
        stuck.res = res;
        let tail = '';
        res.on('data', (d: Buffer) => {
          const parts = (tail + d.toString()).split('\n');
          tail = parts.pop()!;
          stuck.events += parts.length;
          if (!stuck.resumed) res.pause();
        });
        res.on('close', () => (stuck.closed = true));
        res.on('error', () => (stuck.closed = true));
        opened();
      }));
    });
    for (const r of reqs) r.on('error', () => {});
    // 48 events of ~600 KB: about 28 MiB, far more than socket buffers and the 8 MiB bound hold.
    const big = 'x'.repeat(600 * 1024);
    for (let i = 0; i < 48; i++) assert.equal((await call('POST', CM, cm(`load-${i}`, { load: 'yes' }, { big }))).status, 201);
    let deadline = Date.now() + 15_000;
    while (reader.events < 48 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(reader.events, 48, 'the reading watcher got every event');
    assert.equal(reader.ended, false, 'the reading watcher stays open');
    // Grace periods (100 ms here) pass with the stuck client's queue over the bound and nothing read; when it
    // reads again it finds its stream cut short, not 48 events queued for it.
    await new Promise((r) => setTimeout(r, 800));
    stuck.resumed = true;
    stuck.res!.resume();
    deadline = Date.now() + 15_000;
    while (!stuck.closed && stuck.events < 48 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(stuck.closed, `the stuck watcher's stream was closed by the server (it read ${stuck.events} events)`);
    assert.ok(stuck.events < 48, `the server dropped what it had queued (read ${stuck.events} of 48)`);
    for (const r of reqs) r.destroy();
  });
});
