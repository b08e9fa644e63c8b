// The API server answers query parameters and oversized objects as kube-apiserver v1.32 does
// (in-process, no controllers): bools in any letter case, Go integer and duration syntax with
// kube's 400s, the 3 MiB body limit (413), the 256 KiB annotation budget (422) and etcd's
// 1.5 MiB request limit (500 "etcdserver: request is too large").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index';
import { rawApi } from './raw-api';

let sb: RunningSandbox;

const call = rawApi(() => sb.url);

const CM = '/api/v1/namespaces/default/configmaps';
const CS = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets';
const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { suite: 'params' }, ...extra }, data: { k: 'v' } });
const cloneset = (name: string, annotations?: Record<string, string>) => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } },
});
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { type: string; object: any });

before(async () => {
  sb = await startSandbox({ port: 0, nodes: 1, kruise: 'v1.9', tls: false, readyDelayMs: 10, noControllers: true });
  for (const n of ['p1', 'p2', 'p3']) assert.equal((await call('POST', CM, cm(n))).status, 201);
});
after(async () => {
  await sb.stop();
});

describe('boolean query parameters (apimachinery pkg/runtime/conversion.go Convert_Slice_string_To_bool)', () => {
  it('watch=True (as the Python client sends it) opens a watch, not a list', async () => {
    const res = await call('GET', `${CM}?labelSelector=suite%3Dparams&watch=True&timeoutSeconds=1`);
    assert.equal(res.status, 200);
    const events = lines(res.text);
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED p1', 'ADDED p2', 'ADDED p3']);
  });
  it('watch=FALSE and watch=0 list', async () => {
    for (const v of ['FALSE', '0', 'false']) {
      const res = await call('GET', `${CM}?labelSelector=suite%3Dparams&watch=${v}`);
      assert.equal(res.body.kind, 'ConfigMapList', `watch=${v}`);
    }
  });
  it('allowWatchBookmarks=True with sendInitialEvents=True ends the initial events with a bookmark', async () => {
    const res = await call('GET', `${CM}?labelSelector=suite%3Dparams&watch=1&allowWatchBookmarks=True&sendInitialEvents=True&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`);
    const events = lines(res.text);
    const bookmark = events.find((e) => e.type === 'BOOKMARK');
    assert.ok(bookmark, res.text);
    assert.equal(bookmark.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
  });
});

describe('integer and duration query parameters (strconv.ParseInt, time.ParseDuration)', () => {
  it('limit=+2 pages (ParseInt accepts a sign)', async () => {
    const res = await call('GET', `${CM}?labelSelector=suite%3Dparams&limit=%2B2`);
    assert.equal(res.status, 200);
    assert.equal(res.body.items.length, 2);
    assert.ok(res.body.metadata.continue);
  });
  for (const [query, message] of [
    ['limit=abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
    ['limit=1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    ['watch=true&timeoutSeconds=soon', 'strconv.ParseInt: parsing "soon": invalid syntax'],
    ['timeout=5', 'invalid timeout specified in the request URL - time: missing unit in duration "5"'],
  ] as const) {
    it(`${query} is a 400 BadRequest "${message}" (handlers/get.go ListResource: NewBadRequest(err.Error()))`, async () => {
      const res = await call('GET', `${CM}?${query}`);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.reason, 'BadRequest');
      assert.equal(res.body.message, message);
    });
  }
  it('gracePeriodSeconds=x on delete is a 400 and deletes nothing', async () => {
    const res = await call('DELETE', `${CM}/p3?gracePeriodSeconds=x`);
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'strconv.ParseInt: parsing "x": invalid syntax');
    assert.equal((await call('GET', `${CM}/p3`)).status, 200);
  });
});

describe('size limits', () => {
  it('a body over 3 MiB is a 413 "Request entity too large: limit is 3145728" (apiserver handlers/rest.go limitedReadBody)', async () => {
    const res = await call('POST', CM, cm('huge-body', {}), {});
    assert.equal(res.status, 201);
    const big = JSON.stringify({ ...cm('too-big'), data: { k: 'x'.repeat(3 * 1024 * 1024) } });
    const refused = await call('POST', CM, big);
    assert.equal(refused.status, 413);
    assert.equal(refused.body.reason, 'RequestEntityTooLarge');
    assert.equal(refused.body.message, 'Request entity too large: limit is 3145728');
    assert.equal((await call('GET', `${CM}/too-big`)).status, 404);
  });

  it('TestValidateAnnotations totalSizeErrorCases row {"a": 256 KiB of "b"} is a 422 on a ConfigMap (apimachinery pkg/api/validation/objectmeta_test.go)', async () => {
    const res = await call('POST', CM, cm('annotated', { annotations: { a: 'b'.repeat(256 * 1024) } }));
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.reason, 'Invalid');
    assert.equal(res.body.message, 'ConfigMap "annotated" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes');
    assert.deepEqual(res.body.details.causes, [{ reason: 'FieldValueTooLong', message: 'Too long: may not be more than 262144 bytes', field: 'metadata.annotations' }]);
    assert.equal((await call('GET', `${CM}/annotated`)).status, 404);
  });

  it('TestValidateAnnotations successCases row {"a": 256 KiB - 1} is accepted, and the totalSizeErrorCases row of two halves is refused on a CloneSet patch', async () => {
    assert.equal((await call('POST', CS, cloneset('edge', { a: 'b'.repeat(256 * 1024 - 1) }))).status, 201);
    assert.equal((await call('POST', CS, cloneset('halves'))).status, 201);
    const half = 128 * 1024;
    const res = await call('PATCH', `${CS}/halves`, { metadata: { annotations: { a: 'b'.repeat(half), c: 'd'.repeat(half) } } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.message, 'CloneSet.apps.kruise.io "halves" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes');
    const stored = await call('GET', `${CS}/halves`);
    assert.equal(stored.body.metadata.annotations, undefined);
  });

  it('an object over etcd\'s 1.5 MiB is a 500 "etcdserver: request is too large" (apiserver handlers/rest.go isTooLargeError, passed on by ErrorToAPIStatus)', async () => {
    const res = await call('POST', CM, { ...cm('etcd-big'), data: { k: 'x'.repeat(2 * 1024 * 1024) } });
    assert.equal(res.status, 500, res.text);
    assert.equal(res.body.message, 'etcdserver: request is too large');
    assert.equal(res.body.reason, undefined);
    assert.equal((await call('GET', `${CM}/etcd-big`)).status, 404);
  });

  it('a JSON patch of more than 10000 operations is a 413 (apiserver handlers/patch.go maxJSONPatchOperations)', async () => {
    const ops = Array.from({ length: 10001 }, (_, i) => ({ op: 'add', path: `/metadata/labels/l${i}`, value: 'x' }));
    const res = await call('PATCH', `${CM}/p1`, ops, { 'Content-Type': 'application/json-patch+json' });
    assert.equal(res.status, 413);
    assert.equal(res.body.message, 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
  });
});
