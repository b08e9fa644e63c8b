// The real Kruise CRDs (read from ../shared/kruise-crds at test time) installed with
// kubectl apply and with --crds: schema validation with field paths, defaulting and
// pruning, multi-version serving with conversion, and the preferred version in discovery.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { kubectl, REPO_ROOT } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const CRDS = resolve(REPO_ROOT, '..', 'shared', 'kruise-crds');
const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'sandbox');
const haveCrds = existsSync(join(CRDS, 'v1.9.0'));

describe('real Kruise CRDs applied with kubectl', { skip: !haveCrds && 'no ../shared/kruise-crds' }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ readyDelay: '50ms' });
  });
  after(async () => {
    await sb.stop();
  });

  for (const release of ['v1.9.0', 'master']) {
    it(`kubectl apply -f kruise-crds/${release}/ succeeds and every CRD is Established`, async () => {
      const res = await kubectl(['apply', '-f', join(CRDS, release)], sb.kubeconfig, { timeoutMs: 60_000 });
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, /customresourcedefinition\.apiextensions\.k8s\.io\/clonesets\.apps\.kruise\.io (created|configured)/);
      const wait = await kubectl(['wait', '--for', 'condition=Established', 'crd/clonesets.apps.kruise.io', 'crd/uniteddeployments.apps.kruise.io', '--timeout', '10s'], sb.kubeconfig);
      assert.equal(wait.code, 0, wait.stderr);
    });
  }

  it('after the master CRDs, discovery prefers CloneSet v1beta1 and both versions serve one object', async () => {
    const res = await kubectl(['api-resources', '--api-group', 'apps.kruise.io'], sb.kubeconfig);
    assert.match(res.stdout, /clonesets\s+clone\s+apps\.kruise\.io\/v1beta1/);
    const applied = await kubectl(['apply', '-f', join(FIXTURES, 'cloneset-web.yaml')], sb.kubeconfig);
    assert.equal(applied.code, 0, applied.stderr);
    const beta = await sb.api('GET', '/apis/apps.kruise.io/v1beta1/namespaces/default/clonesets/web');
    assert.equal(beta.status, 200);
    assert.equal(beta.body.apiVersion, 'apps.kruise.io/v1beta1');
    assert.equal(beta.body.spec.updateStrategy.type, 'RollingUpdate');
    assert.equal(beta.body.spec.updateStrategy.rollingUpdate.podUpdatePolicy, 'InPlaceIfPossible');
    const alpha = await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web');
    assert.equal(alpha.body.spec.updateStrategy.type, 'InPlaceIfPossible');
    assert.equal(alpha.body.metadata.uid, beta.body.metadata.uid);
  });
});

describe('sandbox --crds v1.9.0: schema validation', { skip: !haveCrds && 'no ../shared/kruise-crds' }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ crds: join(CRDS, 'v1.9.0'), readyDelay: '50ms' });
  });
  after(async () => {
    await sb.stop();
  });

  it('rejects an invalid CloneSet with the field path (kubectl apply)', async () => {
    const res = await kubectl(['apply', '-f', join(FIXTURES, 'cloneset-invalid-replicas.yaml')], sb.kubeconfig);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /CloneSet "web-bad" is invalid: spec\.replicas: Invalid value: "string": spec\.replicas in body must be of type integer: "string"/);
    const get = await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web-bad');
    assert.equal(get.status, 404, 'nothing was stored');
  });

  it('answers 422 with kube-style causes for required and type violations', async () => {
    const res = await sb.api('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets', {
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'web2' },
      spec: { replicas: 2, minReadySeconds: 'soon', template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.reason, 'Invalid');
    const fields = res.body.details.causes.map((c: { field: string }) => c.field);
    assert.ok(fields.includes('spec.selector'), `spec.selector is required: ${JSON.stringify(res.body.details.causes)}`);
    assert.ok(fields.includes('spec.minReadySeconds'), JSON.stringify(res.body.details.causes));
    assert.match(res.body.message, /spec\.minReadySeconds: Invalid value: "string": spec\.minReadySeconds in body must be of type integer: "string"/);
    assert.match(res.body.message, /spec\.selector: Required value/);
    assert.match(res.body.message, /^CloneSet\.apps\.kruise\.io "web2" is invalid: \[/);
  });

  it('prunes unknown fields (Strict validation rejects them) and validates dry runs without storing', async () => {
    const body = {
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'web3' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'w3' } }, template: { metadata: { labels: { app: 'w3' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, notAField: true },
    };
    const strict = await sb.api('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets?fieldValidation=Strict', body);
    assert.equal(strict.status, 400);
    assert.match(strict.body.message, /strict decoding error: unknown field "spec\.notAField"/);
    const dry = await sb.api('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets?dryRun=All', body);
    assert.equal(dry.status, 201);
    assert.equal(dry.body.spec.notAField, undefined, 'pruned');
    assert.equal((await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web3')).status, 404, 'dry run stores nothing');
    const created = await sb.api('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets', body);
    assert.equal(created.status, 201);
    assert.equal(created.headers.warning, '299 - "unknown field \\"spec.notAField\\""');
  });

  it('kubectl create --dry-run=server goes through validation', async () => {
    const res = await kubectl(['create', '--dry-run=server', '-f', join(FIXTURES, 'cloneset-invalid-replicas.yaml')], sb.kubeconfig);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /spec\.replicas/);
  });
});

describe('sandbox --kruise v1.3 --crds v1.3.0: controller status fits the release schema', { skip: !existsSync(join(CRDS, 'v1.3.0')) && 'no ../shared/kruise-crds/v1.3.0' }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ kruise: 'v1.3', crds: join(CRDS, 'v1.3.0'), readyDelay: '50ms' });
  });
  after(async () => {
    await sb.stop();
  });

  it('a CloneSet and a ContainerRecreateRequest carry no status field v1.3 lacks, so patching them warns about nothing', async () => {
    const applied = await kubectl(['apply', '-f', join(FIXTURES, 'cloneset-web.yaml')], sb.kubeconfig);
    assert.equal(applied.code, 0, applied.stderr);
    const cs = await waitUntil('web ready', async () => {
      const r = await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web');
      return r.body?.status?.readyReplicas === 4 ? r.body : undefined;
    });
    // v1.3's CRD has no updatedAvailableReplicas (added in a later release): the server prunes it.
    assert.equal(cs.status.updatedAvailableReplicas, undefined, JSON.stringify(cs.status));
    assert.equal(cs.status.updatedReadyReplicas, 4);
    const pods = (await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items as Array<{ metadata: { name: string } }>;
    const crr = await kubectl(['create', '-f', '-'], sb.kubeconfig, {
      input: JSON.stringify({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'ContainerRecreateRequest', metadata: { name: 'probe', namespace: 'default' }, spec: { podName: pods[0]!.metadata.name, containers: [{ name: 'nginx' }] } }),
    });
    assert.equal(crr.code, 0, crr.stderr);
    await waitUntil('CRR completed', async () => ((await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/containerrecreaterequests/probe')).body?.status?.phase === 'Completed' ? true : undefined));
    for (const target of ['clonesets.apps.kruise.io/web', 'containerrecreaterequests.apps.kruise.io/probe']) {
      const annotated = await kubectl(['annotate', target, 'audit=1'], sb.kubeconfig);
      assert.equal(annotated.code, 0, annotated.stderr);
      assert.doesNotMatch(annotated.stderr, /Warning/, `${target}: ${annotated.stderr}`);
    }
  });
});
