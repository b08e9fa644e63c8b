// The sandbox driven by an official Kubernetes client that is not our code: the Python client
// (Debian's python3-kubernetes, run with /usr/bin/python3; .ci/run installs it). Each scenario of
// test/python-client/scenarios.py prints what the client saw as JSON; the assertions are here.
// The client sends booleans as "True"/"False" and integers as Python renders them, and
// raises ApiException with kube's status for server-side errors.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';

const PYTHON = '/usr/bin/python3';
const SCRIPT = join(REPO_ROOT, 'test', 'python-client', 'scenarios.py');
const CRDS = resolve(REPO_ROOT, '..', 'shared', 'kruise-crds', 'v1.9.0');

type ApiErr = { status: number; reason: string; message: string; causes: Array<{ reason: string; message: string; field: string }> | null } | null;

function scenario<T>(sb: Sandbox, name: string): Promise<T> {
  return new Promise((res, rej) => {
    execFile(PYTHON, [SCRIPT, name], { env: { ...sb.env, KUBECONFIG: sb.kubeconfig }, timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) return rej(new Error(`python scenario ${name} failed: ${stderr || err.message}`));
      try {
        res(JSON.parse(stdout.trim().split('\n').pop()!) as T);
      } catch {
        rej(new Error(`python scenario ${name} printed no JSON: ${stdout}${stderr}`));
      }
    });
  });
}

describe('the official Python client against the sandbox', () => {
  let sb: Sandbox;
  before(async () => {
    assert.ok(existsSync(PYTHON), `${PYTHON} is missing`);
    sb = await startSandbox({ readyDelay: '100ms', crds: CRDS });
  });
  after(async () => {
    if (sb) assert.equal(await sb.stop(), 0);
  });

  it('CoreV1Api: create/get/list/patch/replace/delete ConfigMaps, label selectors, pagination, and 404/409/422/400 as ApiException', async () => {
    const r = await scenario<Record<string, any>>(sb, 'core-crud');
    assert.deepEqual(r.duplicate as ApiErr, { status: 409, reason: 'AlreadyExists', message: 'configmaps "py-a" already exists', causes: null });
    assert.deepEqual(r.missing as ApiErr, { status: 404, reason: 'NotFound', message: 'configmaps "py-missing" not found', causes: null });
    assert.deepEqual(r.listed, ['py-a', 'py-b']);
    assert.deepEqual(r.listed_set_based, ['py-other']);
    assert.deepEqual(r.pages, [['py-a'], ['py-b'], null], 'limit=1 then _continue pages through both');
    assert.deepEqual(r.bad_limit as ApiErr, { status: 400, reason: 'BadRequest', message: 'strconv.ParseInt: parsing "ten": invalid syntax', causes: null });
    assert.deepEqual(r.patched, { data: { k: 'patched' }, labels: { suite: 'py-crud', tier: 'x' } });
    assert.equal(r.stale_update.status, 409);
    assert.equal(r.stale_update.reason, 'Conflict');
    assert.deepEqual(r.replaced, { k: 'replaced' });
    assert.equal(r.too_many_annotations.status, 422);
    assert.equal(r.too_many_annotations.message, 'ConfigMap "py-big" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes');
    assert.equal(r.dry_run_create, 'py-dry');
    assert.equal(r.dry_run_stored.status, 404, 'dry_run="All" stored nothing');
    assert.equal(r.after_delete.status, 404);
    assert.equal(r.delete_missing.status, 404);
  });

  it('watch.Watch().stream: initial ADDED events, then from a resource_version with a label selector (entering, modified, leaving, deleted)', async () => {
    const r = await scenario<Record<string, any>>(sb, 'watch-core');
    assert.deepEqual(r.initial, [['ADDED', 'w-initial']]);
    assert.deepEqual(r.from_rv, [
      ['ADDED', 'w-1', 'v', true],
      ['MODIFIED', 'w-1', 'v2', true],
      ['DELETED', 'w-initial', 'v', true],
      ['DELETED', 'w-1', 'v2', true],
    ]);
    assert.equal(r.watch_resource_version, true, 'the client tracked the resourceVersion of the events');
  });

  it('CustomObjectsApi on CloneSets: create, 409/422/404, a pod watch until ready, merge patch, 415 for strategic merge, a CloneSet watch, scale, delete', async () => {
    const r = await scenario<Record<string, any>>(sb, 'cloneset');
    assert.deepEqual(r.created, { kind: 'CloneSet', uid: true });
    assert.equal(r.duplicate.status, 409);
    assert.equal(r.duplicate.message, 'clonesets.apps.kruise.io "py-web" already exists');
    assert.equal(r.invalid?.status, 422, 'replicas: "two" is refused by the CRD schema');
    assert.equal(r.invalid.reason, 'Invalid');
    assert.match(r.invalid.message, /^CloneSet\.apps\.kruise\.io "py-bad" is invalid: spec\.replicas: Invalid value: "string": spec\.replicas in body must be of type integer: "string"/);
    assert.equal(r.missing.status, 404);
    assert.deepEqual(r.listed, ['py-web']);
    assert.equal(r.ready_pods, 2, 'the label-selected pod watch saw both pods ready');
    assert.equal(r.merge_patched_replicas, 3);
    assert.equal(r.strategic_patch.status, 415);
    assert.equal(r.strategic_patch.reason, 'UnsupportedMediaType');
    assert.deepEqual(r.watched, [['MODIFIED', 3]]);
    assert.deepEqual(r.scale, { kind: 'Scale', spec: 3 });
    assert.equal(r.after_delete.status, 404, 'the Foreground delete completed');
  });
});
