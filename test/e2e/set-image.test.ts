// `set image` / `set env` against the sandbox, judged the way a user would: through the
// API (pods, objects), real kubectl, and the sandbox audit log (what was sent).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { kubectl, runCli } from '../helpers/cli';
import { startSandbox, waitUntil, type AuditEntry, type Sandbox } from '../helpers/sandbox';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/set');
const CS_PATH = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets';
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

interface PodView {
  name: string;
  uid: string;
  image: string;
  restarts: number;
  ready: boolean;
}

let sb: Sandbox;

async function clonesetPods(app: string): Promise<PodView[]> {
  const r = await sb.api('GET', `/api/v1/namespaces/default/pods?labelSelector=${encodeURIComponent(`app=${app}`)}`);
  return (r.body.items as any[])
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p) => {
      const status = (p.status?.containerStatuses ?? []).find((c: any) => c.name === 'app');
      return {
        name: p.metadata.name,
        uid: p.metadata.uid,
        image: p.spec.containers.find((c: any) => c.name === 'app').image,
        restarts: status?.restartCount ?? 0,
        ready: (p.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

async function getCloneSet(name: string): Promise<any> {
  return (await sb.api('GET', `${CS_PATH}/${name}`)).body;
}

function containerOf(obj: any, name: string): any {
  const spec = obj.spec.template.spec;
  return [...(spec.initContainers ?? []), ...spec.containers].find((c: any) => c.name === name);
}

/** Runs the CLI and returns its result with the requests it made (audit lines of this run only). */
async function runAudited(args: string[]): Promise<{ code: number; stdout: string; stderr: string; requests: AuditEntry[]; writes: AuditEntry[] }> {
  sb.clearAudit();
  const r = await runCli(args, { kubeconfig: sb.kubeconfig });
  const requests = sb.audit();
  return { ...r, requests, writes: requests.filter((e) => WRITE_VERBS.has(e.verb)) };
}

before(async () => {
  sb = await startSandbox({ readyDelay: 100 });
  for (const file of ['cloneset-web-inplaceonly.yaml', 'deployment-api.yaml', 'two-workloads.yaml']) {
    const applied = await kubectl(['apply', '-f', join(FIXTURES, file)], sb.kubeconfig);
    assert.equal(applied.code, 0, applied.stderr);
  }
  await waitUntil('3 ready web pods', async () => {
    const pods = await clonesetPods('web');
    return pods.length === 3 && pods.every((p) => p.ready);
  }, 30_000);
  // Warm the discovery cache, so request counts below are those of the command itself.
  const warm = await runCli(['set', 'image', 'cloneset/web', 'app=nginx:1.25'], { kubeconfig: sb.kubeconfig });
  assert.equal(warm.code, 0, warm.stderr);
});

after(async () => {
  await sb?.stop();
});

test('an image that is already set sends nothing and says so', async () => {
  const r = await runAudited(['set', 'image', 'cloneset/web', 'app=nginx:1.25']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'cloneset.apps.kruise.io/web image unchanged\n');
  assert.deepEqual(r.writes, []);
});

test('InPlaceOnly CloneSet: one JSON patch of image paths, at most one read, pods updated in place', async () => {
  const before = await clonesetPods('web');
  const r = await runAudited(['set', 'image', 'cloneset/web', 'app=nginx:1.27']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'cloneset.apps.kruise.io/web image updated\n');
  assert.equal(r.stderr, '');
  assert.equal(r.writes.length, 1, JSON.stringify(r.requests));
  const write = r.writes[0]!;
  assert.equal(write.verb, 'patch');
  assert.equal(write.path, `${CS_PATH}/web`);
  assert.match(write.contentType ?? '', /^application\/json-patch\+json/);
  assert.equal(write.code, 200);
  assert.ok(r.requests.length <= 2, `budget: 1 write and at most 1 read, got ${r.requests.map((e) => `${e.verb} ${e.path}`).join(', ')}`);

  const cs = await getCloneSet('web');
  assert.equal(containerOf(cs, 'app').image, 'nginx:1.27');
  assert.equal(containerOf(cs, 'log-agent').image, 'fluent/fluent-bit:2.2', 'other containers untouched');
  assert.equal(containerOf(cs, 'init-config').image, 'busybox:1.36');
  // The kubelet turns Ready false asynchronously after the image changes (as on a real node), so
  // "new image and Ready" alone can be the moment before the restart: wait for the restart itself.
  const restarted = (p: PodView): boolean => p.restarts > (before.find((b) => b.uid === p.uid)?.restarts ?? Infinity);
  const after = await waitUntil('pods updated in place', async () => {
    const pods = await clonesetPods('web');
    return pods.length === 3 && pods.every((p) => p.image === 'nginx:1.27' && p.ready && restarted(p)) ? pods : undefined;
  }, 30_000);
  assert.deepEqual(after.map((p) => [p.name, p.uid]), before.map((p) => [p.name, p.uid]), 'same pods (names and UIDs)');
  for (const p of after) {
    const old = before.find((b) => b.uid === p.uid)!;
    assert.ok(p.restarts > old.restarts, `${p.name}: restartCount ${old.restarts} -> ${p.restarts}`);
  }
});

test('one valid and one unknown container: exit 1, nothing patched', async () => {
  const r = await runAudited(['set', 'image', 'cloneset/web', 'app=nginx:1.28', 'nope=busybox:1.37']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^error: unable to find container named "nope"/m);
  assert.equal(r.stderr.split('\n').filter((l) => l.startsWith('error: ')).length, 1);
  assert.deepEqual(r.writes, []);
  assert.equal(containerOf(await getCloneSet('web'), 'app').image, 'nginx:1.27');
});

test('several objects are checked before any is written', async () => {
  const r = await runAudited(['set', 'image', 'cloneset/front', 'cloneset/web', 'log-agent=fluent/fluent-bit:3.0']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /unable to find container named "log-agent" in cloneset\.apps\.kruise\.io\/front/);
  assert.deepEqual(r.writes, []);
});

test('--dry-run=client -o yaml prints the result and sends no write; --dry-run=server sends dryRun=All', async () => {
  const client = await runAudited(['set', 'image', 'cloneset/web', 'app=nginx:1.28', '--dry-run=client', '-o', 'yaml']);
  assert.equal(client.code, 0, client.stderr);
  assert.deepEqual(client.writes, []);
  const printed = parseYaml(client.stdout);
  assert.equal(printed.kind, 'CloneSet');
  assert.equal(containerOf(printed, 'app').image, 'nginx:1.28');

  const server = await runAudited(['set', 'image', 'cloneset/web', 'app=nginx:1.28', '--dry-run=server']);
  assert.equal(server.code, 0, server.stderr);
  assert.equal(server.stdout, 'cloneset.apps.kruise.io/web image updated (server dry run)\n');
  assert.equal(server.writes.length, 1);
  assert.match(server.writes[0]!.query, /dryRun=All/);

  const cs = await getCloneSet('web');
  assert.equal(containerOf(cs, 'app').image, 'nginx:1.27', 'neither dry run changed the object');
});

test('a malformed image reference exits 2 before any request', async () => {
  for (const image of ['NGINX:1.27', 'nginx:', 'nginx 1.27']) {
    const r = await runAudited(['set', 'image', 'cloneset/web', `app=${image}`]);
    assert.equal(r.code, 2, `${image}: ${r.stderr}`);
    assert.match(r.stderr, /^error: invalid image reference/);
    assert.deepEqual(r.requests, [], `${image}: no request at all`);
  }
});

test('set env: --dry-run=client writes nothing; InPlaceOnly refuses before sending', async () => {
  const dry = await runAudited(['set', 'env', 'deployment/api', 'LOG_LEVEL=debug', '--dry-run=client']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal(dry.stdout, 'deployment.apps/api env updated (dry run)\n');
  assert.deepEqual(dry.writes, []);

  const refused = await runAudited(['set', 'env', 'cloneset/web', '-c', 'app', 'LOG_LEVEL=debug']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^error: cloneset "web" uses InPlaceOnly.*only allowed to update images/m);
  assert.deepEqual(refused.writes, []);
});

test('set env: the variable lands on the named container only, as one JSON patch', async () => {
  const r = await runAudited(['set', 'env', 'cloneset/front', '-c', 'app', 'LOG_LEVEL=debug', 'GREETING=hello=world']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'cloneset.apps.kruise.io/front env updated\n');
  assert.match(r.stderr, /^Warning: env changes cannot be applied in place; cloneset "front" \(InPlaceIfPossible\) will recreate its pods$/m);
  assert.equal(r.writes.length, 1);
  assert.match(r.writes[0]!.contentType ?? '', /^application\/json-patch\+json/);

  const got = await kubectl(['get', 'cloneset', 'front', '-o', 'json'], sb.kubeconfig);
  assert.equal(got.code, 0, got.stderr);
  const cs = JSON.parse(got.stdout);
  assert.deepEqual(containerOf(cs, 'app').env, [
    { name: 'LOG_LEVEL', value: 'debug' },
    { name: 'GREETING', value: 'hello=world' },
  ]);

  // Removal and --list read back through the CLI itself.
  const removed = await runAudited(['set', 'env', 'cloneset/front', 'GREETING-']);
  assert.equal(removed.code, 0, removed.stderr);
  const list = await runCli(['set', 'env', 'cloneset/front', '--list'], { kubeconfig: sb.kubeconfig });
  assert.equal(list.code, 0, list.stderr);
  assert.equal(list.stdout, '# clonesets/front, container app\nLOG_LEVEL=debug\n');
});

test('set env on a Deployment; set resources validates and patches only quantities', async () => {
  const env = await runAudited(['set', 'env', 'deployment/api', 'MODE=staging', 'EXTRA=1']);
  assert.equal(env.code, 0, env.stderr);
  assert.equal(env.stderr, '', 'no in-place warning for a Deployment');
  const dep = (await sb.api('GET', '/apis/apps/v1/namespaces/default/deployments/api')).body;
  assert.deepEqual(dep.spec.template.spec.containers[0].env, [
    { name: 'MODE', value: 'staging' },
    { name: 'EXTRA', value: '1' },
  ]);

  const res = await runAudited(['set', 'resources', 'deployment/api', '--limits=cpu=500m,memory=256Mi', '--requests=cpu=100m']);
  assert.equal(res.code, 0, res.stderr);
  assert.equal(res.stdout, 'deployment.apps/api resource requirements updated\n');
  assert.equal(res.writes.length, 1);
  const dep2 = (await sb.api('GET', '/apis/apps/v1/namespaces/default/deployments/api')).body;
  assert.deepEqual(dep2.spec.template.spec.containers[0].resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m' } });

  const above = await runAudited(['set', 'resources', 'deployment/api', '--requests=memory=1Gi']);
  assert.equal(above.code, 1);
  assert.match(above.stderr, /memory request 1Gi is above its limit 256Mi/);
  assert.deepEqual(above.writes, []);
});

test('--local on an InPlaceOnly CloneSet warns instead of refusing: Kruise checks only updates (ValidateCloneSetUpdate, pkg/controller/cloneset/core/cloneset_core.go)', async () => {
  const nowhere = join(mkdtempSync(join(tmpdir(), 'kk-nowhere-')), 'no-such-kubeconfig');
  const r = await runCli(['set', 'image', '--local', '-f', join(FIXTURES, 'cloneset-web-inplaceonly.yaml'), 'init-config=busybox:1.37', '-o', 'json'], { kubeconfig: nowhere });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).spec.template.spec.initContainers[0].image, 'busybox:1.37');
  assert.equal(
    r.stderr,
    'Warning: cloneset "web" uses InPlaceOnly: its webhook would reject init container image changes ("only allowed to update images") when applied to an existing CloneSet; creating it is fine\n',
  );
});

test('--local -f -o yaml works with KUBECONFIG pointing to nothing', async () => {
  const nowhere = join(mkdtempSync(join(tmpdir(), 'kk-nowhere-')), 'no-such-kubeconfig');
  const r = await runCli(['set', 'image', '--local', '-f', join(FIXTURES, 'two-workloads.yaml'), 'app=nginx:1.27', '-o', 'yaml'], { kubeconfig: nowhere });
  assert.equal(r.code, 0, r.stderr);
  const list = parseYaml(r.stdout);
  assert.equal(list.kind, 'List');
  assert.deepEqual(
    list.items.map((o: any) => `${o.kind}/${o.metadata.name}=${o.spec.template.spec.containers[0].image}`),
    ['CloneSet/front=nginx:1.27', 'Deployment/back=nginx:1.27'],
  );
  // stdin and set env work offline too.
  const manifest = `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers: [{name: c, image: nginx:1.25}]\n`;
  const env = await runCli(['set', 'env', '--local', '-f', '-', 'A=1', '-o', 'json'], { kubeconfig: nowhere, input: manifest });
  assert.equal(env.code, 0, env.stderr);
  assert.deepEqual(JSON.parse(env.stdout).spec.template.spec.containers[0].env, [{ name: 'A', value: '1' }]);
});

test('set env --from references every key of a ConfigMap; set resources is refused on InPlaceOnly', async () => {
  const cm = await sb.api('POST', '/api/v1/namespaces/default/configmaps', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings' },
    data: { 'log.level': 'warn', 'db-host': 'db.internal' },
  });
  assert.equal(cm.status, 201, cm.text);
  const r = await runAudited(['set', 'env', 'cloneset/front', '-c', 'app', '--from=configmap/settings', '--prefix=APP_']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.writes.length, 1);
  const cs = await getCloneSet('front');
  const env = containerOf(cs, 'app').env.filter((e: any) => e.name.startsWith('APP_'));
  assert.deepEqual(env, [
    { name: 'APP_DB_HOST', valueFrom: { configMapKeyRef: { name: 'settings', key: 'db-host' } } },
    { name: 'APP_LOG_LEVEL', valueFrom: { configMapKeyRef: { name: 'settings', key: 'log.level' } } },
  ]);

  const refused = await runAudited(['set', 'resources', 'cloneset/web', '-c', 'app', '--limits=cpu=2']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /InPlaceOnly.*resource changes/);
  assert.deepEqual(refused.writes, []);
});
