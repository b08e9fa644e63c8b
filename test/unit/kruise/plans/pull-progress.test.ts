// When a pre-download through Kruise is done (src/kruise/plans/pull-progress.ts). The ImageListPullJob
// and its ImagePullJobs arrive through two watches with no order between them; with --ttl=0s the list
// job reads complete and is deleted while its last child's final counts are still on their way (the
// e2e "--ttl=0s" test once exited 0 reporting redis:7.4 at 1 of 2 nodes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../../../src/kruise/types';
import { pullJobReport, pullProgress, type PullView } from '../../../../src/kruise/plans/pull-progress';
import { crdSchema, validate } from '../builders/crd-schema';

const FIXTURE = join(import.meta.dirname, '../../../fixtures/predownload/imagelistpulljob-ttl0.yaml');
const [list, nginx, redisBehind] = parseAllDocuments(readFileSync(FIXTURE, 'utf8')).map((d) => d.toJS() as KubeObject);
const created: KubeObject = { ...list!, status: undefined };
const redisFinal: KubeObject = { ...redisBehind!, status: { ...(redisBehind!.status as object), succeeded: 2, active: 0, completionTime: '2026-11-27T21:30:04Z' } };

const view = (jobs: KubeObject[], lists: KubeObject[], gone: string[] = []): PullView => ({
  pullJobs: new Map(jobs.map((j) => [j.metadata.name!, j])),
  goneJobs: new Set(gone),
  listJobs: new Map(lists.map((j) => [j.metadata.name!, j])),
});

test('the fixture is what Kruise v1.9.0 serves (CRD schemas of ImageListPullJob and ImagePullJob)', () => {
  for (const [obj, plural] of [[list!, 'imagelistpulljobs'], [nginx!, 'imagepulljobs'], [redisBehind!, 'imagepulljobs']] as const) {
    const schema = crdSchema('v1.9.0', plural, 'v1alpha1');
    if (!schema) continue;
    assert.deepEqual(validate(schema, obj), [], `${obj.kind}/${obj.metadata.name}`);
  }
});

test('a complete ImageListPullJob is not done while a child in view still reads 1 of 2 nodes', () => {
  const early = pullProgress([created], view([nginx!, redisBehind!], [list!]));
  assert.equal(early.done, false);
  assert.deepEqual(
    early.reports.map((r) => [r.images[0], r.succeeded, r.desired, r.done]),
    [
      ['nginx:1.29', 2, 2, true],
      ['redis:7.4', 1, 2, false],
    ],
  );
  const now = pullProgress([created], view([nginx!, redisFinal], [list!]));
  assert.equal(now.done, true);
  assert.deepEqual(
    now.reports.map((r) => [r.images[0], r.succeeded, r.desired]),
    [
      ['nginx:1.29', 2, 2],
      ['redis:7.4', 2, 2],
    ],
  );
});

test('children deleted with their list job are judged from their last state; one deleted unfinished has no more to come', () => {
  const deleted = pullProgress([created], view([nginx!, redisFinal], [list!], [nginx!.metadata.name!, redisFinal.metadata.name!]));
  assert.equal(deleted.done, true);
  const cutShort = pullProgress([created], view([nginx!, redisBehind!], [list!], [redisBehind!.metadata.name!]));
  assert.equal(cutShort.done, true);
  assert.equal(cutShort.reports[1]!.succeeded, 1, 'reported as it was last seen');
});

test('an image with no child in view yet keeps the list job waiting and is reported as such', () => {
  const r = pullProgress([created], view([nginx!], [list!]));
  assert.equal(r.done, false);
  assert.deepEqual(r.reports.map((x) => [x.name, x.images]), [
    ['imagepulljob/predownload-kcr62jrkcr-68cfff68b9', ['nginx:1.29']],
    ['imagelistpulljob/predownload-kcr62jrkcr', ['redis:7.4']],
  ]);
});

test('an incomplete list job is not done even when every child is (its status not yet updated)', () => {
  const { status, ...rest } = list!;
  void status;
  const r = pullProgress([created], view([nginx!, redisFinal], [{ ...rest, status: { desired: 2, completed: 1, succeeded: 1 } }]));
  assert.equal(r.done, false);
});

test('a child is done as Kruise counts it completed: Desired == Failed + Succeeded (imagelistpulljob_controller.go calculateStatus), or with a completionTime', () => {
  const job = (status: object): KubeObject => ({ ...nginx!, status });
  assert.equal(pullJobReport('x', job({ desired: 2, succeeded: 1, failed: 1 }), []).done, true);
  assert.equal(pullJobReport('x', job({ desired: 2, succeeded: 1, failed: 0 }), []).done, false);
  assert.equal(pullJobReport('x', job({ desired: 0 }), []).done, false, 'no node counted yet');
  assert.equal(pullJobReport('x', job({ desired: 0, completionTime: '2026-11-27T21:30:04Z' }), []).done, true);
  assert.deepEqual(pullJobReport('x', job({ desired: 2, failed: 2, failedNodes: ['node-2', 'node-1'] }), []).failedNodes, ['node-1', 'node-2']);
});

test('separate ImagePullJobs (no ImageListPullJob served) are each judged on their own', () => {
  const a = { ...nginx!, metadata: { name: 'a' } };
  const b = { ...redisBehind!, metadata: { name: 'b' } };
  assert.equal(pullProgress([a, b], view([a, b], [])).done, false);
  assert.equal(pullProgress([a, b], view([a, { ...redisFinal, metadata: { name: 'b' } }], [])).done, true);
});
