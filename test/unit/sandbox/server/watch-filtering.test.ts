// Filtered watches decide ADDED/MODIFIED/DELETED from the old and the new object, like kube's
// cacheWatcher.convertToWatchEvent (apiserver pkg/storage/cacher/cache_watcher.go): the two
// cases of TestCacheWatcherHandlesFiltering (pkg/storage/cacher/cache_watcher_test.go), with
// "spec.nodeName=host" as the filter.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../../src/kruise/types';
import { filteredEvent, type WatchEventType } from '../../../../src/sandbox/server/watch-hub';

const pod = (rv: number, nodeName: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', resourceVersion: String(rv) }, spec: { nodeName } } as KubeObject);
const onHost = (o: KubeObject): boolean => (o.spec as { nodeName?: string } | undefined)?.nodeName === 'host';

function run(events: Array<[WatchEventType, KubeObject, KubeObject | undefined]>): string[] {
  const out: string[] = [];
  for (const [type, obj, prev] of events) {
    const e = filteredEvent(type, obj, prev, onHost);
    if (e) out.push(`${e.type} rv=${e.object.metadata.resourceVersion} node=${(e.object.spec as { nodeName: string }).nodeName}`);
  }
  return out;
}

describe('TestCacheWatcherHandlesFiltering (apiserver pkg/storage/cacher/cache_watcher_test.go)', () => {
  it('row "properly handle starting with the filter, then being deleted, then re-added"', () => {
    const p1 = pod(1, 'host');
    const p2 = pod(2, '');
    const p3 = pod(3, 'host');
    assert.deepEqual(run([['ADDED', p1, undefined], ['MODIFIED', p2, p1], ['MODIFIED', p3, p2]]), [
      'ADDED rv=1 node=host',
      // Leaving the selector: DELETED with the previous object at the event's resourceVersion.
      'DELETED rv=2 node=host',
      'ADDED rv=3 node=host',
    ]);
  });
  it('row "properly handle ignoring changes prior to the filter, then getting added, then deleted"', () => {
    const p = [pod(1, ''), pod(2, ''), pod(3, 'host'), pod(4, 'host'), pod(5, ''), pod(6, '')];
    assert.deepEqual(
      run([['ADDED', p[0]!, undefined], ['MODIFIED', p[1]!, p[0]], ['MODIFIED', p[2]!, p[1]], ['MODIFIED', p[3]!, p[2]], ['MODIFIED', p[4]!, p[3]], ['MODIFIED', p[5]!, p[4]]]),
      ['ADDED rv=3 node=host', 'MODIFIED rv=4 node=host', 'DELETED rv=5 node=host'],
    );
  });
  it('a deletion is sent only when the deleted object passed the filter (convertToWatchEvent: curObjPasses is false for Deleted)', () => {
    assert.deepEqual(run([['DELETED', pod(7, 'host'), pod(6, 'host')], ['DELETED', pod(9, ''), pod(8, '')]]), ['DELETED rv=7 node=host']);
  });
});
