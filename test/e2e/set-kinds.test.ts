// `set image` / `set env` across kinds on a sandbox imitating Kruise master (CloneSet
// served as v1beta1): CloneSet v1beta1, Advanced StatefulSet, Advanced DaemonSet,
// Deployment and SidecarSet, read back with real kubectl.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { kubectl, runCli } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/set');
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

let sb: Sandbox;

async function getJson(type: string, name: string): Promise<any> {
  const r = await kubectl(['get', type, name, '-o', 'json'], sb.kubeconfig);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

function containers(obj: any): any[] {
  const spec = obj.kind === 'SidecarSet' ? obj.spec : obj.spec.template.spec;
  return [...(spec.initContainers ?? []), ...spec.containers];
}

before(async () => {
  sb = await startSandbox({ kruise: 'master', readyDelay: 100 });
  for (const file of ['cloneset-web-v1beta1.yaml', 'asts-db.yaml', 'ads-agent.yaml', 'deployment-api.yaml', 'sidecarset-logging.yaml']) {
    const applied = await kubectl(['apply', '-f', join(FIXTURES, file)], sb.kubeconfig);
    assert.equal(applied.code, 0, `${file}: ${applied.stderr}`);
  }
});

after(async () => {
  await sb?.stop();
});

test('the CloneSet is served as v1beta1 and set image patches it in place', async () => {
  const cs = await getJson('clonesets.apps.kruise.io', 'web');
  assert.equal(cs.apiVersion, 'apps.kruise.io/v1beta1');
  const pods = await waitUntil('3 ready web pods', async () => {
    const r = await sb.api('GET', `/api/v1/namespaces/default/pods?labelSelector=app%3Dweb`);
    const items = (r.body.items as any[]).filter((p) => (p.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'));
    return items.length === 3 ? items : undefined;
  }, 30_000);

  sb.clearAudit();
  const r = await runCli(['set', 'image', 'cloneset/web', 'app=nginx:1.27'], { kubeconfig: sb.kubeconfig });
  const writes = sb.audit().filter((e) => WRITE_VERBS.has(e.verb));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'cloneset.apps.kruise.io/web image updated\n');
  assert.equal(writes.length, 1);
  assert.equal(writes[0]!.path, '/apis/apps.kruise.io/v1beta1/namespaces/default/clonesets/web');
  assert.match(writes[0]!.contentType ?? '', /^application\/json-patch\+json/);

  const after = await getJson('clonesets.apps.kruise.io', 'web');
  assert.deepEqual(containers(after).map((c) => `${c.name}=${c.image}`), ['app=nginx:1.27', 'log-agent=fluent/fluent-bit:2.2']);
  const uids = pods.map((p) => p.metadata.uid).sort();
  await waitUntil('pods updated in place', async () => {
    const r2 = await sb.api('GET', `/api/v1/namespaces/default/pods?labelSelector=app%3Dweb`);
    const items = (r2.body.items as any[]).filter((p) => !p.metadata.deletionTimestamp);
    const sameUids = JSON.stringify(items.map((p) => p.metadata.uid).sort()) === JSON.stringify(uids);
    return sameUids && items.every((p) => p.spec.containers.find((c: any) => c.name === 'app').image === 'nginx:1.27');
  }, 30_000);
});

test('set env on the v1beta1 CloneSet (InPlaceIfPossible) warns and changes only the named container', async () => {
  const r = await runCli(['set', 'env', 'cloneset/web', '-c', 'log-agent', 'FLUSH=5'], { kubeconfig: sb.kubeconfig });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /Warning: env changes cannot be applied in place; cloneset "web" \(InPlaceIfPossible\) will recreate its pods/);
  const cs = await getJson('clonesets.apps.kruise.io', 'web');
  const byName = Object.fromEntries(containers(cs).map((c) => [c.name, c.env]));
  assert.deepEqual(byName['log-agent'], [{ name: 'FLUSH', value: '5' }]);
  assert.equal(byName.app, undefined);
});

test('Advanced StatefulSet and Advanced DaemonSet: set image and set env', async () => {
  for (const [ref, type, container, image] of [
    ['asts/db', 'statefulsets.apps.kruise.io', 'db', 'redis:7.4'],
    ['ads/agent', 'daemonsets.apps.kruise.io', 'agent', 'prom/node-exporter:v1.8.2'],
  ] as const) {
    const img = await runCli(['set', 'image', ref, `${container}=${image}`], { kubeconfig: sb.kubeconfig });
    assert.equal(img.code, 0, `${ref}: ${img.stderr}`);
    assert.match(img.stdout, new RegExp(`^${type.split('.')[0]!.replace(/s$/, '')}\\.apps\\.kruise\\.io/${ref.split('/')[1]} image updated\\n$`));
    const env = await runCli(['set', 'env', ref, 'TZ=UTC'], { kubeconfig: sb.kubeconfig });
    assert.equal(env.code, 0, `${ref}: ${env.stderr}`);
    assert.match(env.stderr, /Warning: env changes cannot be applied in place; advanced (statefulset|daemonset)/);
    const obj = await getJson(type, ref.split('/')[1]!);
    const c = containers(obj).find((x) => x.name === container);
    assert.equal(c.image, image, ref);
    assert.deepEqual(c.env, [{ name: 'TZ', value: 'UTC' }], ref);
  }
});

test('Deployment and SidecarSet: set image, including * for every container', async () => {
  const dep = await runCli(['set', 'image', 'deployment/api', '*=ghcr.io/example/api:1.5.0'], { kubeconfig: sb.kubeconfig });
  assert.equal(dep.code, 0, dep.stderr);
  assert.equal(dep.stdout, 'deployment.apps/api image updated\n');
  assert.equal(containers(await getJson('deployment', 'api'))[0].image, 'ghcr.io/example/api:1.5.0');

  const sc = await runCli(['set', 'image', 'sidecarset/logging', '*=fluent/fluent-bit:3.0', '-o', 'name'], { kubeconfig: sb.kubeconfig });
  assert.equal(sc.code, 0, sc.stderr);
  assert.equal(sc.stdout, 'sidecarset.apps.kruise.io/logging\n');
  assert.deepEqual(
    containers(await getJson('sidecarsets.apps.kruise.io', 'logging')).map((c) => `${c.name}=${c.image}`),
    ['log-init=fluent/fluent-bit:3.0', 'log-shipper=fluent/fluent-bit:3.0'],
  );
});

test('-l selects every matching object of a type; -f reads the objects from a manifest', async () => {
  const bySelector = await runCli(['set', 'image', 'cloneset', '-l', 'app=web', 'log-agent=fluent/fluent-bit:3.1'], { kubeconfig: sb.kubeconfig });
  // The fixture's CloneSet has no labels of its own: the selector matches nothing, which kubectl's
  // `set image -l` treats as nothing to do (exit 0); we also say so, in kubectl's words.
  assert.equal(bySelector.code, 0, bySelector.stderr);
  assert.equal(bySelector.stdout, '');
  assert.equal(bySelector.stderr, 'No resources found in default namespace.\n');
  const all = await runCli(['set', 'image', 'cloneset', '--all', 'log-agent=fluent/fluent-bit:3.1'], { kubeconfig: sb.kubeconfig });
  assert.equal(all.code, 0, all.stderr);
  assert.equal(all.stdout, 'cloneset.apps.kruise.io/web image updated\n');
  // kubectl's TYPE1,TYPE2 form: every object of both types; the edit names a container of each.
  const twoTypes = await runCli(['set', 'image', 'cloneset,deployment', '--all', '*=nginx:1.27', '--dry-run=client', '-o', 'name'], { kubeconfig: sb.kubeconfig });
  assert.equal(twoTypes.code, 0, twoTypes.stderr);
  assert.equal(twoTypes.stdout, 'cloneset.apps.kruise.io/web\ndeployment.apps/api\n');
  const byFile = await runCli(['set', 'image', '-f', join(FIXTURES, 'deployment-api.yaml'), 'api=ghcr.io/example/api:1.6.0'], { kubeconfig: sb.kubeconfig });
  assert.equal(byFile.code, 0, byFile.stderr);
  assert.equal(containers(await getJson('deployment', 'api'))[0].image, 'ghcr.io/example/api:1.6.0');
});
