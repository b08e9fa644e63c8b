// Real kubectl (v1.32) against the sandbox with its built-in v1.9 definitions: apply,
// printer columns, the three patch types, watches, optimistic concurrency, rollout status
// and cascading delete, read back through the API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { kubectl, REPO_ROOT, streamKubectl } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'sandbox');

describe('sandbox with real kubectl', () => {
  let sb: Sandbox;
  const k = (args: string[], input?: string) => kubectl(args, sb.kubeconfig, { input });

  before(async () => {
    sb = await startSandbox({ readyDelay: '100ms' });
  });
  after(async () => {
    assert.equal(await sb.stop(), 0, 'the sandbox exits 0 on SIGTERM');
  });

  it('serves nodes with zones and discovery of the Kruise kinds', async () => {
    const nodes = await k(['get', 'nodes', '-L', 'topology.kubernetes.io/zone']);
    assert.equal(nodes.code, 0, nodes.stderr);
    assert.match(nodes.stdout, /node-1\s+Ready.*zone-a/);
    assert.match(nodes.stdout, /node-3\s+Ready.*zone-c/);
    const res = await k(['api-resources', '--api-group', 'apps.kruise.io', '-o', 'wide']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /clonesets\s+clone\s+apps\.kruise\.io\/v1alpha1\s+true\s+CloneSet/);
    assert.match(res.stdout, /daemonsets\s+daemon,ads\s+apps\.kruise\.io\/v1beta1/);
  });

  it('applies a CloneSet and shows its printer columns once its pods are ready', async () => {
    const applied = await k(['apply', '-f', join(FIXTURES, 'cloneset-web.yaml')]);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /cloneset\.apps\.kruise\.io\/web created/);
    await waitUntil('CloneSet web ready', async () => {
      const cs = await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web');
      return cs.body.status?.readyReplicas === 4;
    });
    const table = await k(['get', 'clonesets']);
    assert.equal(table.code, 0, table.stderr);
    const [header, row] = table.stdout.trim().split('\n');
    assert.match(header!, /^NAME\s+DESIRED\s+UPDATED\s+UPDATED_READY\s+UPDATED_AVAILABLE\s+READY\s+TOTAL\s+AGE$/);
    assert.match(row!, /^web\s+4\s+4\s+4\s+4\s+4\s+4\s+\d+s$/);
    const wide = await k(['get', 'clone', 'web', '-o', 'wide']);
    assert.match(wide.stdout, /nginx,log-agent\s+nginx:1\.25\.3,fluent\/fluent-bit:2\.2\.0\s+app=web/);
  });

  it('re-applying an unchanged manifest changes nothing', async () => {
    const before = await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web');
    const applied = await k(['apply', '-f', join(FIXTURES, 'cloneset-web.yaml')]);
    assert.equal(applied.code, 0, applied.stderr);
    // As against a real Kruise: the stored containers carry the defaults Kruise's webhook injected
    // (imagePullPolicy, terminationMessagePath...), so kubectl's JSON merge patch for a custom resource
    // sends the manifest's containers list again ("configured"); the webhook defaults it back to what is
    // stored, and the spec, its generation and the pods stay as they were.
    assert.equal(applied.stdout, 'cloneset.apps.kruise.io/web configured\n');
    const afterApply = await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web');
    assert.equal(afterApply.body.metadata.generation, before.body.metadata.generation);
    assert.deepEqual(afterApply.body.spec, before.body.spec);
  });

  it('patches a CloneSet with merge and JSON patches, bumping generation only for spec changes', async () => {
    const path = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web';
    const gen0 = (await sb.api('GET', path)).body.metadata.generation as number;
    const merge = await k(['patch', 'cloneset', 'web', '--type', 'merge', '-p', '{"spec":{"updateStrategy":{"partition":3}}}']);
    assert.equal(merge.code, 0, merge.stderr);
    let cs = (await sb.api('GET', path)).body;
    assert.equal(cs.spec.updateStrategy.partition, 3);
    assert.equal(cs.spec.updateStrategy.type, 'InPlaceIfPossible', 'merge patch keeps sibling fields');
    assert.equal(cs.metadata.generation, gen0 + 1);

    const json = await k(['patch', 'cloneset', 'web', '--type', 'json', '-p', '[{"op":"test","path":"/spec/replicas","value":4},{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:1.25.4"}]']);
    assert.equal(json.code, 0, json.stderr);
    cs = (await sb.api('GET', path)).body;
    assert.equal(cs.spec.template.spec.containers[0].image, 'nginx:1.25.4');
    assert.equal(cs.spec.template.spec.containers[1].image, 'fluent/fluent-bit:2.2.0');

    const failedTest = await k(['patch', 'cloneset', 'web', '--type', 'json', '-p', '[{"op":"test","path":"/spec/replicas","value":99},{"op":"replace","path":"/spec/replicas","value":1}]']);
    assert.notEqual(failedTest.code, 0);
    // What kubectl prints against a real API server, which drops json-patch's own explanation.
    assert.equal(failedTest.stderr, 'The request is invalid: the server rejected our request due to an error in our request\n');
    assert.equal((await sb.api('GET', path)).body.spec.replicas, 4, 'a failed test op applies nothing');

    const labels = await k(['label', 'cloneset', 'web', 'tier=frontend']);
    assert.equal(labels.code, 0, labels.stderr);
    const gen = (await sb.api('GET', path)).body.metadata.generation;
    assert.equal(gen, gen0 + 2, 'a label change does not bump generation');
  });

  it('rejects a strategic merge patch on a CloneSet with 415, like a real server', async () => {
    const res = await k(['patch', 'cloneset', 'web', '-p', '{"spec":{"replicas":5}}']);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /strategic-merge-patch\+json is not supported/);
    const raw = await sb.api('PATCH', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web', { spec: { replicas: 5 } }, { contentType: 'application/strategic-merge-patch+json' });
    assert.equal(raw.status, 415);
    assert.equal(raw.body.kind, 'Status');
    assert.equal(raw.body.reason, 'UnsupportedMediaType');
  });

  it('applies a Deployment, patches it strategically and rolls it out', async () => {
    const applied = await k(['apply', '-f', join(FIXTURES, 'deployment-api.yaml')]);
    assert.equal(applied.code, 0, applied.stderr);
    const patched = await k(['patch', 'deployment', 'api', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"api","image":"ghcr.io/example/api:2.5.0","env":[{"name":"CACHE_TTL","value":"60"}]}]}}}}']);
    assert.equal(patched.code, 0, patched.stderr);
    const d = (await sb.api('GET', '/apis/apps/v1/namespaces/default/deployments/api')).body;
    const [api, sidecar] = d.spec.template.spec.containers;
    assert.equal(api.image, 'ghcr.io/example/api:2.5.0');
    assert.deepEqual(api.env, [
      { name: 'DB_HOST', value: 'postgres.default.svc' },
      { name: 'CACHE_TTL', value: '60' },
    ], 'env merged by name');
    assert.equal(api.volumeMounts[0].mountPath, '/etc/api');
    assert.equal(sidecar.image, 'envoyproxy/envoy:v1.29.1', 'containers merged by name');
    const status = await kubectl(['rollout', 'status', 'deployment/api', '--timeout', '30s'], sb.kubeconfig, { timeoutMs: 40_000 });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /successfully rolled out/);
  });

  it('streams pod changes to get -w', async () => {
    const watch = streamKubectl(['get', 'pods', '-l', 'app=web', '-w', '--output-watch-events'], sb.kubeconfig);
    try {
      await watch.waitFor(/web-\S+\s+2\/2\s+Running/);
      const scaled = await k(['scale', 'cloneset', 'web', '--replicas', '5']);
      assert.equal(scaled.code, 0, scaled.stderr);
      await watch.waitFor(/ADDED\s+web-\S+\s+0\/2/);
    } finally {
      await watch.stop();
    }
  });

  it('answers a stale update with 409 Conflict', async () => {
    const path = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web';
    const stale = (await sb.api('GET', path)).body;
    const bump = await k(['annotate', 'cloneset', 'web', 'example.com/touched=1']);
    assert.equal(bump.code, 0, bump.stderr);
    stale.spec.replicas = 2;
    const replaced = await k(['replace', '-f', '-'], JSON.stringify(stale));
    assert.notEqual(replaced.code, 0);
    assert.match(replaced.stderr, /the object has been modified; please apply your changes to the latest version and try again/);
    const raw = await sb.api('PUT', path, stale);
    assert.equal(raw.status, 409);
    assert.equal(raw.body.reason, 'Conflict');
    assert.equal((await sb.api('GET', path)).body.spec.replicas, 5);
  });

  it('deletes a scheduled pod gracefully: Terminating first, then gone', async () => {
    const pods = await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb&limit=1');
    const name = pods.body.items[0].metadata.name as string;
    const del = await sb.api('DELETE', `/api/v1/namespaces/default/pods/${name}`);
    assert.equal(del.status, 200);
    assert.ok(del.body.metadata.deletionTimestamp, 'marked for deletion');
    assert.equal(del.body.metadata.deletionGracePeriodSeconds, 30);
    await waitUntil(`pod ${name} gone`, async () => (await sb.api('GET', `/api/v1/namespaces/default/pods/${name}`)).status === 404);
    const forced = await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb&limit=1');
    const other = forced.body.items.find((p: { metadata: { deletionTimestamp?: string } }) => !p.metadata.deletionTimestamp).metadata.name as string;
    const now = await kubectl(['delete', 'pod', other, '--grace-period=0', '--force'], sb.kubeconfig);
    assert.equal(now.code, 0, now.stderr);
    assert.equal((await sb.api('GET', `/api/v1/namespaces/default/pods/${other}`)).status, 404, 'grace period 0 deletes at once');
  });

  it('deletes a Deployment and its ReplicaSets and pods in the background', async () => {
    const del = await k(['delete', 'deployment', 'api']);
    assert.equal(del.code, 0, del.stderr);
    await waitUntil('pods of api gone', async () => {
      const pods = await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dapi');
      const rs = await sb.api('GET', '/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dapi');
      return pods.body.items.length === 0 && rs.body.items.length === 0;
    });
  });

  it('understands the protobuf bodies of kubectl create (typed clients)', async () => {
    for (const args of [
      ['create', 'namespace', 'team-a'],
      ['create', 'deployment', 'hello', '--image', 'nginx:1.25', '--replicas', '0', '-n', 'team-a'],
      ['create', 'configmap', 'settings', '--from-literal', 'mode=fast', '-n', 'team-a'],
      ['create', 'secret', 'generic', 'creds', '--from-literal', 'pw=s3cr3t', '-n', 'team-a'],
      ['create', 'service', 'clusterip', 'hello', '--tcp', '80:8080', '-n', 'team-a'],
    ]) {
      const res = await k(args);
      assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
    }
    assert.ok(sb.audit().some((e) => e.verb === 'create' && e.contentType?.includes('protobuf')), 'kubectl did send protobuf');
    const d = (await sb.api('GET', '/apis/apps/v1/namespaces/team-a/deployments/hello')).body;
    assert.equal(d.spec.replicas, 0, 'an explicit 0 survives decoding');
    assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1.25');
    assert.deepEqual(d.spec.selector, { matchLabels: { app: 'hello' } });
    assert.equal(d.spec.template.metadata.name, undefined, 'zero values are omitted like JSON omitempty');
    const cm = (await sb.api('GET', '/api/v1/namespaces/team-a/configmaps/settings')).body;
    assert.deepEqual(cm.data, { mode: 'fast' });
    const secret = (await sb.api('GET', '/api/v1/namespaces/team-a/secrets/creds')).body;
    assert.equal(Buffer.from(secret.data.pw, 'base64').toString(), 's3cr3t');
    const svc = (await sb.api('GET', '/api/v1/namespaces/team-a/services/hello')).body;
    assert.deepEqual(svc.spec.ports, [{ name: '80-8080', port: 80, protocol: 'TCP', targetPort: 8080 }]);
    const del = await k(['delete', 'namespace', 'team-a']);
    assert.equal(del.code, 0, del.stderr);
    assert.equal((await sb.api('GET', '/api/v1/namespaces/team-a/configmaps/settings')).status, 404, 'namespace contents go with it');
  });

  it('records every request in the audit log', async () => {
    const entries = sb.audit();
    assert.ok(entries.length > 10);
    const patch = entries.find((e) => e.verb === 'patch' && e.path.endsWith('/clonesets/web') && e.contentType?.startsWith('application/merge-patch+json'));
    assert.ok(patch, 'the merge patch is audited');
    assert.equal(patch!.code, 200);
    assert.equal(patch!.method, 'PATCH');
    assert.ok(entries.some((e) => e.verb === 'watch'));
    assert.ok(entries.some((e) => e.code === 415));
    for (const e of entries) assert.equal(typeof e.durationMs, 'number');
    // The contract's fields are on every line, also for requests without a body (contentType "").
    const fields = ['time', 'user', 'verb', 'method', 'path', 'query', 'contentType', 'code', 'durationMs'];
    for (const e of entries) assert.deepEqual(fields.filter((f) => !(f in e)), [], JSON.stringify(e));
    const get = entries.find((e) => e.method === 'GET');
    assert.equal(get?.contentType, '');
  });
});
