// The API server in-process (no controllers): discovery in both forms, OpenAPI v3, Tables,
// pagination, watches with selectors and bookmarks, subresources, dry runs and namespaces.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index';
import { rawApi } from './raw-api';

let sb: RunningSandbox;

const call = rawApi(() => sb.url);

const cloneset = (name: string, labels: Record<string, string> = { app: name }) => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name, labels },
  spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } },
});
const CS = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets';

before(async () => {
  sb = await startSandbox({ port: 0, nodes: 2, kruise: 'master', tls: false, readyDelayMs: 10, noControllers: true });
});
after(async () => {
  await sb.stop();
});

describe('discovery', () => {
  it('answers aggregated discovery (apidiscovery.k8s.io/v2) with the preferred version first', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    const res = await call('GET', '/apis', undefined, { Accept: accept });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    const kruise = res.body.items.find((g: any) => g.metadata.name === 'apps.kruise.io');
    assert.deepEqual(kruise.versions.map((v: any) => v.version), ['v1beta1', 'v1alpha1']);
    const cs = kruise.versions[0].resources.find((r: any) => r.resource === 'clonesets');
    assert.deepEqual(cs.responseKind, { group: 'apps.kruise.io', version: 'v1beta1', kind: 'CloneSet' });
    assert.equal(cs.scope, 'Namespaced');
    assert.deepEqual(cs.shortNames, ['clone']);
    assert.deepEqual(cs.subresources.map((s: any) => s.subresource).sort(), ['scale', 'status']);
    const core = await call('GET', '/api', undefined, { Accept: accept });
    assert.equal(core.body.items.length, 1);
    assert.ok(core.body.items[0].versions[0].resources.some((r: any) => r.resource === 'pods'));
  });

  it('answers legacy discovery documents', async () => {
    const groups = await call('GET', '/apis');
    const kruise = groups.body.groups.find((g: any) => g.name === 'apps.kruise.io');
    assert.equal(kruise.preferredVersion.version, 'v1beta1');
    const list = await call('GET', '/apis/apps/v1');
    const names = list.body.resources.map((r: any) => r.name);
    assert.ok(names.includes('deployments/scale') && names.includes('deployments/status'));
    const scale = list.body.resources.find((r: any) => r.name === 'deployments/scale');
    assert.equal(scale.group, 'autoscaling');
    assert.equal(scale.kind, 'Scale');
    assert.equal((await call('GET', '/apis/nope.example.com/v1')).status, 404);
    assert.deepEqual((await call('GET', '/api')).body.versions, ['v1']);
  });

  it('serves an OpenAPI v3 index whose documents declare fieldValidation on PATCH', async () => {
    const index = await call('GET', '/openapi/v3');
    const url = index.body.paths['apis/apps.kruise.io/v1alpha1'].serverRelativeURL as string;
    const doc = await call('GET', url);
    const patch = doc.body.paths['/apis/apps.kruise.io/v1alpha1/namespaces/{namespace}/clonesets/{name}'].patch;
    assert.ok(patch.parameters.some((p: any) => p.name === 'fieldValidation'));
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'apps.kruise.io', version: 'v1alpha1', kind: 'CloneSet' });
    assert.equal((await call('GET', '/openapi/v2')).status, 404);
  });
});

describe('objects', () => {
  it('creates, converts between served versions and stores in the storage version', async () => {
    const created = await call('POST', CS, cloneset('web'));
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.apiVersion, 'apps.kruise.io/v1alpha1');
    const stored = sb.store.getRef({ group: 'apps.kruise.io', resource: 'clonesets' }, 'default', 'web')!;
    assert.equal(stored.apiVersion, 'apps.kruise.io/v1beta1');
    const beta = await call('GET', '/apis/apps.kruise.io/v1beta1/namespaces/default/clonesets/web');
    assert.equal(beta.body.apiVersion, 'apps.kruise.io/v1beta1');
  });

  it('rejects a mismatched kind, apiVersion or namespace with 400 and a missing namespace with 404', async () => {
    assert.equal((await call('POST', CS, { ...cloneset('x'), kind: 'Deployment' })).status, 400);
    assert.equal((await call('POST', CS, { ...cloneset('x'), apiVersion: 'apps.kruise.io/v1beta1' })).status, 400);
    assert.equal((await call('POST', CS, { ...cloneset('x'), metadata: { name: 'x', namespace: 'other' } })).status, 400);
    const missing = await call('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/nope/clonesets', cloneset('x'));
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'namespaces "nope" not found');
  });

  it('returns Tables with the CRD printer columns and kube columns for pods', async () => {
    const table = await call('GET', CS, undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    assert.equal(table.body.kind, 'Table');
    assert.deepEqual(table.body.columnDefinitions.map((c: any) => c.name).slice(0, 8), ['Name', 'DESIRED', 'UPDATED', 'UPDATED_READY', 'UPDATED_AVAILABLE', 'READY', 'TOTAL', 'AGE']);
    const row = table.body.rows.find((r: any) => r.cells[0] === 'web');
    assert.equal(row.cells[1], 2);
    assert.equal(row.cells[2], null, 'missing status → empty cell');
    assert.equal(row.object.kind, 'PartialObjectMetadata');
    await call('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    const pods = await call('GET', '/api/v1/namespaces/default/pods', undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(pods.body.columnDefinitions.filter((c: any) => c.priority === 0).map((c: any) => c.name), ['Name', 'Ready', 'Status', 'Restarts', 'Age']);
    assert.deepEqual(pods.body.rows[0].cells.slice(0, 4), ['p1', '0/1', 'Pending', '0']);
  });

  it('paginates lists with limit and continue', async () => {
    for (let i = 0; i < 5; i++) await call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `page-${i}` } });
    const seen: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const res = await call('GET', `/api/v1/namespaces/default/configmaps?limit=2${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      seen.push(...res.body.items.map((o: any) => o.metadata.name));
      cont = res.body.metadata.continue;
      pages++;
    } while (cont);
    assert.deepEqual(seen, ['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
    assert.equal(pages, 3);
  });

  it('serves the scale subresource and writes spec.replicas through it', async () => {
    const scale = await call('GET', `${CS}/web/scale`);
    assert.equal(scale.body.kind, 'Scale');
    assert.equal(scale.body.spec.replicas, 2);
    const patched = await call('PATCH', `${CS}/web/scale`, { spec: { replicas: 5 } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((await call('GET', `${CS}/web`)).body.spec.replicas, 5);
  });

  it('writes status only through /status and spec only through the main resource', async () => {
    const cur = (await call('GET', `${CS}/web`)).body;
    const st = await call('PUT', `${CS}/web/status`, { ...cur, spec: { ...cur.spec, replicas: 9 }, status: { replicas: 5 } });
    assert.equal(st.status, 200, st.text);
    assert.equal(st.body.spec.replicas, 5);
    assert.deepEqual(st.body.status, { replicas: 5 });
    const main = await call('PATCH', `${CS}/web`, { status: { replicas: 0 } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.deepEqual(main.body.status, { replicas: 5 });
  });

  it('dry runs validate and answer without storing', async () => {
    const rv = sb.store.currentResourceVersion();
    assert.equal((await call('POST', `${CS}?dryRun=All`, cloneset('dry'))).status, 201);
    assert.equal((await call('PATCH', `${CS}/web?dryRun=All`, { spec: { replicas: 1 } }, { 'Content-Type': 'application/merge-patch+json' })).body.spec.replicas, 1);
    assert.equal((await call('DELETE', `${CS}/web?dryRun=All`)).status, 200);
    assert.equal(sb.store.currentResourceVersion(), rv);
    assert.equal((await call('GET', `${CS}/dry`)).status, 404);
    assert.equal((await call('POST', `${CS}?dryRun=Some`, cloneset('dry'))).status, 400);
  });

  it('a patch without resourceVersion applies to the object as stored once its body has arrived: a write meanwhile is kept, no 409', async () => {
    // A client's body can arrive in pieces while a controller writes the object (kube's
    // GuaranteedUpdate retries such a patch; it never answers 409). Bug: the sandbox read the
    // object before the body and answered 409 (main resource, /status, /scale).
    const G = { group: 'apps.kruise.io', resource: 'clonesets' };
    const cases: Array<{ path: string; body: unknown; check: (o: any) => void }> = [
      { path: `${CS}/web`, body: { metadata: { finalizers: ['example.com/hold'] } }, check: (o) => assert.deepEqual(o.metadata.finalizers, ['example.com/hold']) },
      { path: `${CS}/web/status`, body: { status: { replicas: 7 } }, check: (o) => assert.equal(o.status.replicas, 7) },
      { path: `${CS}/web/scale`, body: { spec: { replicas: 4 } }, check: (o) => assert.equal(o.spec.replicas, 4) },
    ];
    for (const [i, c] of cases.entries()) {
      const text = JSON.stringify(c.body);
      const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(sb.url + c.path, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json', 'Content-Length': Buffer.byteLength(text) } }, (res) => {
          let out = '';
          res.on('data', (d: Buffer) => (out += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: out }));
        });
        req.on('error', reject);
        req.write(text.slice(0, 5));
        setTimeout(() => {
          // a controller's write while the body is on its way
          const cur = sb.store.get(G, 'default', 'web')!;
          sb.store.update(G, { ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, [`meanwhile-${i}`]: 'yes' } } });
          req.end(text.slice(5));
        }, 50);
      });
      const res = await answer;
      assert.equal(res.status, 200, `${c.path}: ${res.text}`);
      const stored = (await call('GET', `${CS}/web`)).body;
      assert.equal(stored.metadata.labels[`meanwhile-${i}`], 'yes', `${c.path}: the write meanwhile is kept`);
      c.check(stored);
    }
  });

  it('refuses an update of a custom resource without resourceVersion', async () => {
    const cur = (await call('GET', `${CS}/web`)).body;
    delete cur.metadata.resourceVersion;
    const res = await call('PUT', `${CS}/web`, cur);
    assert.equal(res.status, 422);
  });
});

describe('watch', () => {
  async function collect(path: string, untilLines: number, action: () => Promise<unknown>, headers: Record<string, string> = {}): Promise<any[]> {
    const ctrl = new AbortController();
    const res = await fetch(sb.url + path, { signal: ctrl.signal, headers });
    const reader = res.body!.getReader();
    const lines: any[] = [];
    let buf = '';
    const acting = action();
    const deadline = Date.now() + 5000;
    while (lines.length < untilLines && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += new TextDecoder().decode(value);
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(buf.slice(0, i)));
        buf = buf.slice(i + 1);
      }
    }
    await acting;
    ctrl.abort();
    return lines;
  }

  it('starts with ADDED for existing objects and turns a label change out of the selector into DELETED', async () => {
    await call('POST', CS, cloneset('w1', { app: 'w1', tier: 'front' }));
    const events = await collect(`${CS}?watch=true&labelSelector=tier%3Dfront`, 3, async () => {
      await call('PATCH', `${CS}/w1`, { spec: { replicas: 3 } }, { 'Content-Type': 'application/merge-patch+json' });
      await call('PATCH', `${CS}/w1`, { metadata: { labels: { tier: 'back' } } }, { 'Content-Type': 'application/merge-patch+json' });
    });
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
    assert.ok(events.every((e) => e.object.metadata.name === 'w1'));
  });

  it('replays events after a resourceVersion and sends bookmarks when allowed', async () => {
    const rv = sb.store.currentResourceVersion();
    await call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-rv' } });
    const events = await collect(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`, 1, async () => undefined);
    assert.equal(events[0].type, 'ADDED');
    assert.equal(events[0].object.metadata.name, 'after-rv');
  });

  it('serves Table watches with headers on the first event only', async () => {
    const events = await collect(`${CS}?watch=true`, 2, async () => undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.equal(events[0].object.kind, 'Table');
    assert.ok(events[0].object.columnDefinitions);
    assert.equal(events[1].object.columnDefinitions, undefined);
  });
});

describe('CustomResourceDefinitions at runtime', () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 1 } } } } } } },
        { name: 'v1beta1', served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
      ],
    },
  };

  it('serves a CRD once created: Established, discoverable, with defaults and deprecation warnings', async () => {
    const created = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    assert.equal(created.status, 201, created.text);
    assert.ok(created.body.status.conditions.some((c: any) => c.type === 'Established' && c.status === 'True'));
    const list = await call('GET', '/apis/example.com/v1');
    assert.equal(list.body.resources[0].name, 'widgets');
    const w = await call('POST', '/apis/example.com/v1/namespaces/default/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} });
    assert.equal(w.status, 201, w.text);
    assert.equal(w.body.spec.size, 1, 'defaulted from the schema');
    const old = await call('GET', '/apis/example.com/v1beta1/namespaces/default/widgets/w');
    assert.equal(old.status, 200);
    assert.equal(old.headers.get('warning'), '299 - "example.com/v1beta1 Widget is deprecated"');
  });

  it('rejects a CRD whose name does not match its names and group', async () => {
    const bad = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { ...crd, metadata: { name: 'gadgets.example.com' } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /metadata\.name: Invalid value: "gadgets\.example\.com": must be spec\.names\.plural\+"\."\+spec\.group/);
  });

  it('deleting the CRD deletes its objects and stops serving it', async () => {
    const del = await call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com');
    assert.equal(del.status, 200);
    assert.equal((await call('GET', '/apis/example.com/v1/namespaces/default/widgets/w')).status, 404);
    assert.equal((await call('GET', '/apis/example.com/v1')).status, 404);
    assert.equal(sb.store.listRefs({ group: 'example.com', resource: 'widgets' }).length, 0);
  });
});
