// metadata.managedFields as the sandbox's API records them (src/kruise/gitops/record.ts through the
// resource handler): managers from ?fieldManager= or the User-Agent, Update vs Apply, controllers' writes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index';
import { rawApi } from './raw-api';

let sb: RunningSandbox;
const call = rawApi(() => sb.url);
const CS = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets';
const cloneset = (name: string) => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name },
  spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } },
});
const managers = (obj: any): string[][] => (obj.metadata.managedFields ?? []).map((e: any) => [e.manager, e.operation, e.fieldsType]);

before(async () => {
  sb = await startSandbox({ port: 0, nodes: 1, kruise: 'master', tls: false, readyDelayMs: 10, noControllers: true });
});
after(async () => {
  await sb.stop();
});

describe('managedFields', () => {
  it('create: the User-Agent\'s first word is the manager when no fieldManager is given; every field set is its', async () => {
    const res = await call('POST', CS, cloneset('ua'), { 'User-Agent': 'helm/v3.16.1 (linux)' });
    assert.equal(res.status, 201);
    assert.deepEqual(managers(res.body), [['helm', 'Update', 'FieldsV1']]);
    const fields = res.body.metadata.managedFields[0].fieldsV1;
    assert.deepEqual(fields['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"c"}'], { '.': {}, 'f:image': {}, 'f:name': {} });
    assert.equal(fields['f:metadata'], undefined, 'name and namespace are not tracked');
  });

  it('merge patch with ?fieldManager=: only the changed field moves to it; a PUT by the same manager merges into its entry', async () => {
    await call('POST', `${CS}?fieldManager=ci`, cloneset('mp'));
    const patched = await call('PATCH', `${CS}/mp?fieldManager=kubectl-scale`, { spec: { replicas: 3 } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(patched.status, 200);
    assert.deepEqual(managers(patched.body), [['ci', 'Update', 'FieldsV1'], ['kubectl-scale', 'Update', 'FieldsV1']]);
    assert.deepEqual(patched.body.metadata.managedFields[1].fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.equal(patched.body.metadata.managedFields[0].fieldsV1['f:spec']['f:replicas'], undefined);
    const obj = patched.body;
    obj.spec.minReadySeconds = 5;
    const put = await call('PUT', `${CS}/mp?fieldManager=kubectl-scale`, obj);
    assert.equal(put.status, 200);
    assert.deepEqual(put.body.metadata.managedFields[1].fieldsV1, { 'f:spec': { 'f:minReadySeconds': {}, 'f:replicas': {} } });
  });

  it('apply: an Apply entry; a conflicting apply without force is 409 naming the field, with force it takes it', async () => {
    const apply = (force: boolean) =>
      call('PATCH', `${CS}/ap?fieldManager=flux${force ? '&force=true' : ''}`, JSON.stringify({ ...cloneset('ap'), spec: { ...cloneset('ap').spec, replicas: 4 } }), { 'Content-Type': 'application/apply-patch+yaml' });
    const created = await apply(false);
    assert.equal(created.status, 201);
    assert.deepEqual(managers(created.body), [['flux', 'Apply', 'FieldsV1']]);
    await call('PATCH', `${CS}/ap?fieldManager=kubectl-scale`, { spec: { replicas: 1 } }, { 'Content-Type': 'application/merge-patch+json' });
    const conflict = await apply(false);
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.message, 'Apply failed with 1 conflict: conflict with "kubectl-scale" using apps.kruise.io/v1alpha1: .spec.replicas');
    assert.deepEqual(conflict.body.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-scale" using apps.kruise.io/v1alpha1', field: '.spec.replicas' }]);
    const forced = await apply(true);
    assert.equal(forced.status, 200);
    assert.equal(forced.body.spec.replicas, 4);
    assert.deepEqual(managers(forced.body), [['flux', 'Apply', 'FieldsV1']], 'kubectl-scale owned nothing else');
  });

  it('a status write keeps the ownership recorded for the spec', async () => {
    const created = await call('POST', `${CS}?fieldManager=ci`, cloneset('st'));
    const obj = created.body;
    obj.status = { replicas: 2, observedGeneration: 1 };
    const res = await call('PUT', `${CS}/st/status`, obj);
    assert.equal(res.status, 200);
    assert.deepEqual(managers(res.body), [['ci', 'Update', 'FieldsV1']]);
  });
});
