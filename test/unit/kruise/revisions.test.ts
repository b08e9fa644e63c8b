import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject, Pod } from '../../../src/kruise/types';
import {
  currentRevisionNumber,
  historyRows,
  labelSelectorString,
  revisionSourceFor,
  undoPatch,
  undoTarget,
  workloadRevisions,
} from '../../../src/kruise/revisions';
import { templateDiff } from '../../../src/kruise/revision-diff';
import { REPO_ROOT } from '../../helpers/cli';

function load(file: string): KubeObject[] {
  const text = readFileSync(join(REPO_ROOT, 'test/fixtures/rollout', file), 'utf8');
  return parseAllDocuments(text).map((d) => d.toJS() as KubeObject);
}

const web = load('cloneset-v1alpha1-partition.yaml')[0]!;
const webHistory = load('cloneset-web-revisions.yaml');
const crs = webHistory.filter((o) => o.kind === 'ControllerRevision');
const webPods = webHistory.filter((o) => o.kind === 'Pod') as Pod[];
const cloneSetSource = revisionSourceFor('CloneSet');
const webTemplate = (web.spec as { template: Record<string, unknown> }).template;

test('revisions: only those controlled by the workload, sorted by number, without $patch', () => {
  const revs = workloadRevisions(web, cloneSetSource, crs);
  assert.deepEqual(
    revs.map((r) => [r.revision, r.name]),
    [
      [1, 'web-5c9d6f7b8'],
      [2, 'web-6a1b2c3d4'],
      [3, 'web-7d4f8b9c5'],
    ],
  );
  assert.equal('$patch' in revs[0]!.template, false);
  assert.equal(revs[0]!.changeCause, 'first release');
});

test('current revision: named by status.updateRevision, by hash alone, else by template, else newest', () => {
  const revs = workloadRevisions(web, cloneSetSource, crs);
  assert.equal(currentRevisionNumber(revs, webTemplate, 'web-6a1b2c3d4'), 2);
  assert.equal(currentRevisionNumber(revs, webTemplate, '6a1b2c3d4'), 2);
  assert.equal(currentRevisionNumber(revs, revs[0]!.template), 1);
  assert.equal(currentRevisionNumber(revs, { other: true }), 3);
});

test('undo: default target is the highest revision below the current one; the whole template is replaced', () => {
  const revs = workloadRevisions(web, cloneSetSource, crs);
  const d = undoTarget({ label: 'cloneset "web"', revisions: revs, currentTemplate: webTemplate, updateRevision: 'web-7d4f8b9c5' });
  assert.equal(d.kind, 'rollback');
  assert.equal(d.kind === 'rollback' && d.target.revision, 2);
  const patch = undoPatch(web, d.kind === 'rollback' ? d.target.template : {});
  // Guarded by the generation (spec changes), not the resourceVersion (every status write changes it).
  assert.deepEqual(patch[0], { op: 'test', path: '/metadata/generation', value: 2 });
  assert.equal(patch[1]!.op, 'replace');
  assert.equal(patch[1]!.path, '/spec/template');
  assert.deepEqual((patch[1]!.value as { metadata: unknown }).metadata, { labels: { app: 'web' }, annotations: { 'sidecar.example.com/inject': 'true' } });
});

test('undo patch without metadata.generation tests the current template instead of the resourceVersion', () => {
  const noGeneration = { ...web, metadata: { ...web.metadata, generation: undefined } };
  const patch = undoPatch(noGeneration, {}, '/spec/template');
  assert.deepEqual(patch[0], { op: 'test', path: '/spec/template', value: webTemplate });
  assert.ok(!patch.some((op) => op.path === '/metadata/resourceVersion'));
});

test('undo: --to-revision picks that revision; a missing one is named in the error; identical template is skipped', () => {
  const revs = workloadRevisions(web, cloneSetSource, crs);
  const to1 = undoTarget({ label: 'cloneset "web"', revisions: revs, currentTemplate: webTemplate, toRevision: 1 });
  assert.equal(to1.kind === 'rollback' && to1.target.name, 'web-5c9d6f7b8');
  const missing = undoTarget({ label: 'cloneset "web"', revisions: revs, currentTemplate: webTemplate, toRevision: 7 });
  assert.deepEqual(missing, { kind: 'error', message: 'unable to find specified revision 7 in history of cloneset "web"' });
  const same = undoTarget({ label: 'cloneset "web"', revisions: revs, currentTemplate: webTemplate, toRevision: 3 });
  assert.equal(same.kind, 'skip');
  const only = undoTarget({ label: 'cloneset "web"', revisions: revs.slice(0, 1), currentTemplate: revs[0]!.template });
  assert.equal(only.kind, 'error');
});

test('history rows: change cause, images, pods matched by full revision name or short hash', () => {
  const revs = workloadRevisions(web, cloneSetSource, crs);
  const rows = historyRows(revs, webPods, cloneSetSource);
  assert.deepEqual(
    rows.map((r) => [r.revision, r.changeCause, r.images.join(','), r.pods]),
    [
      [1, 'first release', 'nginx:1.25', 1],
      [2, '<none>', 'nginx:1.26', 0],
      [3, '<none>', 'nginx:1.27', 1],
    ],
  );
});

test('diff: unified diff of two templates shows the changed image and the removed annotation', () => {
  const revs = workloadRevisions(web, cloneSetSource, crs);
  const out = templateDiff(revs[1]!, revs[2]!);
  assert.match(out, /^--- revision 2/m);
  assert.match(out, /^\+\+\+ revision 3/m);
  assert.match(out, /^-\s+- image: nginx:1\.26$/m);
  assert.match(out, /^\+\s+- image: nginx:1\.27$/m);
  assert.match(out, /^-\s+sidecar\.example\.com\/inject: "true"$/m);
});

test('Deployment: history from ReplicaSets, pod-template-hash removed from the restored template', () => {
  const deploy = load('deployment-api.yaml')[0]!;
  const rss = load('deployment-api-replicasets.yaml');
  const source = revisionSourceFor('Deployment');
  assert.equal(source.resource, 'replicasets');
  assert.equal(source.undoRefusedWhenPaused, true);
  const revs = workloadRevisions(deploy, source, rss);
  assert.deepEqual(
    revs.map((r) => r.revision),
    [1, 3],
  );
  const tpl = (deploy.spec as { template: unknown }).template;
  const d = undoTarget({ label: 'deployment "api"', revisions: revs, currentTemplate: tpl });
  assert.equal(d.kind, 'rollback');
  if (d.kind === 'rollback') {
    assert.equal(d.target.revision, 1);
    assert.deepEqual((d.target.template.metadata as { labels: unknown }).labels, { app: 'api' });
  }
  // The current template equals revision 3's once pod-template-hash is ignored.
  assert.equal(undoTarget({ label: 'x', revisions: revs, currentTemplate: tpl, toRevision: 3 }).kind, 'skip');
  const pods = [{ metadata: { name: 'api-1', labels: { app: 'api', 'pod-template-hash': '85b9c7d6f' } }, spec: { containers: [] } }] as Pod[];
  assert.deepEqual(
    historyRows(revs, pods, source).map((r) => r.pods),
    [0, 1],
  );
});

test('label selectors render like kubectl', () => {
  assert.equal(labelSelectorString({ matchLabels: { app: 'web', tier: 'fe' } }), 'app=web,tier=fe');
  assert.equal(
    labelSelectorString({ matchExpressions: [{ key: 'env', operator: 'In', values: ['a', 'b'] }, { key: 'x', operator: 'Exists' }, { key: 'y', operator: 'DoesNotExist' }] }),
    'env in (a,b),x,!y',
  );
  assert.equal(labelSelectorString(undefined), '');
});
