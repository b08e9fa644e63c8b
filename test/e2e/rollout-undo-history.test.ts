// `rollout undo` and `rollout history` against the sandbox: the whole template is restored
// (keys added later disappear), --to-revision, --dry-run=client sends no write, history table,
// one revision's template, diff; also Advanced StatefulSet and Advanced DaemonSet.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';
import { applyFixture, getObject, kubectlOk, PATHS, summary, waitSettled, writes } from './rollout-helpers';

let sb: Sandbox;
const cli = (args: string[]) => runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });

async function patchTemplate(resource: string, name: string, template: unknown): Promise<void> {
  await kubectlOk(sb, ['patch', resource, name, '--type', 'merge', '-p', JSON.stringify({ spec: { template } })]);
}

before(async () => {
  sb = await startSandbox({ kruise: 'v1.9', readyDelay: '50ms' });
  // Three revisions of web: nginx:1.25; nginx:1.26; nginx:1.27 plus a new annotation and env var.
  await applyFixture(sb, 'cloneset-web.yaml');
  await waitSettled(sb, PATHS.cloneset());
  await patchTemplate('clonesets.apps.kruise.io', 'web', { spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] } });
  await waitSettled(sb, PATHS.cloneset());
  await patchTemplate('clonesets.apps.kruise.io', 'web', {
    metadata: { annotations: { 'example.com/added-later': 'yes' } },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27', env: [{ name: 'FEATURE', value: 'on' }] }] },
  });
  await waitSettled(sb, PATHS.cloneset());
});

after(async () => {
  await sb?.stop();
});

test('history lists REVISION, CHANGE-CAUSE, IMAGES and PODS', async () => {
  const r = await cli(['rollout', 'history', 'cloneset/web']);
  assert.equal(r.code, 0, summary(r));
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines[0], 'cloneset.apps.kruise.io/web');
  assert.match(lines[1]!, /^REVISION\s+CHANGE-CAUSE\s+IMAGES\s+PODS$/);
  assert.match(lines[2]!, /^1\s+<none>\s+nginx:1\.25\s+0$/);
  assert.match(lines[3]!, /^2\s+<none>\s+nginx:1\.26\s+0$/);
  assert.match(lines[4]!, /^3\s+<none>\s+nginx:1\.27\s+8$/);
  const json = await cli(['rollout', 'history', 'cloneset/web', '-o', 'json']);
  assert.equal(json.code, 0, summary(json));
  const view = JSON.parse(json.stdout);
  assert.deepEqual(
    view.revisions.map((x: any) => [x.revision, x.images[0], x.pods]),
    [
      [1, 'nginx:1.25', 0],
      [2, 'nginx:1.26', 0],
      [3, 'nginx:1.27', 8],
    ],
  );
});

test('history --revision prints that template; --diff prints a unified diff', async () => {
  const one = await cli(['rollout', 'history', 'cloneset/web', '--revision=2']);
  assert.equal(one.code, 0, summary(one));
  assert.match(one.stdout, /with revision #2/);
  assert.match(one.stdout, /image: nginx:1\.26/);
  const diff = await cli(['rollout', 'history', 'cloneset/web', '--diff=2,3']);
  assert.equal(diff.code, 0, summary(diff));
  assert.match(diff.stdout, /^--- revision 2/m);
  assert.match(diff.stdout, /^\+\s+example\.com\/added-later: yes$/m);
  assert.match(diff.stdout, /^-\s+- image: nginx:1\.26$/m);
  const missing = await cli(['rollout', 'history', 'cloneset/web', '--revision=9']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^error: .*revision 9/m);
});

test('undo --dry-run=client sends no write and changes nothing', async () => {
  const before = await getObject(sb, PATHS.cloneset());
  sb.clearAudit();
  const r = await cli(['rollout', 'undo', 'cloneset/web', '--dry-run=client']);
  assert.equal(r.code, 0, summary(r));
  assert.equal(r.stdout, 'cloneset.apps.kruise.io/web rolled back (dry run)\n');
  assert.deepEqual(writes(sb.audit()), []);
  const now = await getObject(sb, PATHS.cloneset());
  assert.equal(now.metadata.resourceVersion, before.metadata.resourceVersion);
});

// What Kruise's webhook writes into each container of a template it stores (SetDefaultPodSpec,
// apis/apps/defaults/pod.go): the revisions hold it, so an undo brings it back with the template.
const KRUISE_CONTAINER_DEFAULTS = { imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' };

test('undo restores the previous template exactly: keys added in the newer template are gone', async () => {
  sb.clearAudit();
  const r = await cli(['rollout', 'undo', 'cloneset/web']);
  assert.equal(r.code, 0, summary(r));
  assert.equal(r.stdout, 'cloneset.apps.kruise.io/web rolled back\n');
  const w = writes(sb.audit());
  assert.equal(w.length, 1);
  assert.equal(w[0]!.contentType, 'application/json-patch+json');
  const cs = await getObject(sb, PATHS.cloneset());
  assert.deepEqual(cs.spec.template.spec.containers, [{ name: 'app', image: 'nginx:1.26', ...KRUISE_CONTAINER_DEFAULTS }]);
  assert.equal(cs.spec.template.metadata.annotations?.['example.com/added-later'], undefined);
  await waitSettled(sb, PATHS.cloneset());
});

test('undo --to-revision picks that revision; a missing revision is named; the same template is skipped', async () => {
  const r = await cli(['rollout', 'undo', 'cloneset/web', '--to-revision=1']);
  assert.equal(r.code, 0, summary(r));
  const cs = await getObject(sb, PATHS.cloneset());
  assert.deepEqual(cs.spec.template.spec.containers, [{ name: 'app', image: 'nginx:1.25', ports: [{ containerPort: 80, protocol: 'TCP' }], ...KRUISE_CONTAINER_DEFAULTS }]);
  await waitSettled(sb, PATHS.cloneset());
  const missing = await cli(['rollout', 'undo', 'cloneset/web', '--to-revision=7']);
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, 'error: unable to find specified revision 7 in history of cloneset "web"\n');
  // Re-applying revision 1 made it the newest revision number.
  const history = JSON.parse((await cli(['rollout', 'history', 'cloneset/web', '-o', 'json'])).stdout);
  const newest = history.revisions[history.revisions.length - 1];
  assert.equal(newest.images[0], 'nginx:1.25');
  sb.clearAudit();
  const same = await cli(['rollout', 'undo', 'cloneset/web', `--to-revision=${newest.revision}`]);
  assert.equal(same.code, 0, summary(same));
  assert.match(same.stdout, /skipped rollback \(current template already matches revision \d+\)/);
  assert.deepEqual(writes(sb.audit()), []);
});

test('undo --dry-run=server -o json prints the object without changing it', async () => {
  const before = await getObject(sb, PATHS.cloneset());
  // Rollbacks renumber the revision they restore: find the one holding nginx:1.27 now.
  const history = JSON.parse((await cli(['rollout', 'history', 'cloneset/web', '-o', 'json'])).stdout);
  const target = history.revisions.find((x: any) => x.images[0] === 'nginx:1.27');
  const r = await cli(['rollout', 'undo', 'cloneset/web', `--to-revision=${target.revision}`, '--dry-run=server', '-o', 'json']);
  assert.equal(r.code, 0, summary(r));
  const printed = JSON.parse(r.stdout);
  assert.equal(printed.spec.template.spec.containers[0].image, 'nginx:1.27');
  assert.equal(printed.spec.template.metadata.annotations['example.com/added-later'], 'yes');
  const now = await getObject(sb, PATHS.cloneset());
  assert.equal(now.spec.template.spec.containers[0].image, before.spec.template.spec.containers[0].image);
});

test('Advanced StatefulSet: status, history and undo', async () => {
  await applyFixture(sb, 'asts-db.yaml');
  const s1 = await cli(['rollout', 'status', 'asts/db', '--timeout=20s']);
  assert.equal(s1.code, 0, summary(s1));
  assert.match(s1.stdout, /advanced statefulset "db" successfully rolled out/);
  await patchTemplate('statefulsets.apps.kruise.io', 'db', { metadata: { labels: { app: 'db', tier: 'data' } }, spec: { containers: [{ name: 'mysql', image: 'mysql:8.4' }] } });
  const s2 = await cli(['rollout', 'status', 'statefulsets.apps.kruise.io/db', '--timeout=20s', '-o', 'json']);
  assert.equal(s2.code, 0, summary(s2));
  assert.equal(JSON.parse(s2.stdout.trim().split('\n').pop()!).state, 'Complete');
  const h = await cli(['rollout', 'history', 'asts/db']);
  assert.equal(h.code, 0, summary(h));
  assert.match(h.stdout, /^1\s+<none>\s+mysql:8\.0\s+0$/m);
  assert.match(h.stdout, /^2\s+<none>\s+mysql:8\.4\s+3$/m);
  const u = await cli(['rollout', 'undo', 'asts/db']);
  assert.equal(u.code, 0, summary(u));
  assert.equal(u.stdout, 'statefulset.apps.kruise.io/db rolled back\n');
  const db = await getObject(sb, PATHS.asts());
  assert.equal(db.spec.template.spec.containers[0].image, 'mysql:8.0');
  assert.deepEqual(db.spec.template.metadata.labels, { app: 'db' });
  const s3 = await cli(['rollout', 'status', 'asts/db', '--timeout=20s']);
  assert.equal(s3.code, 0, summary(s3));
});

test('Advanced DaemonSet: status, history and undo', async () => {
  await applyFixture(sb, 'ads-agent.yaml');
  const s1 = await cli(['rollout', 'status', 'ads/agent', '--timeout=20s']);
  assert.equal(s1.code, 0, summary(s1));
  assert.match(s1.stdout, /advanced daemonset "agent" successfully rolled out/);
  await patchTemplate('daemonsets.apps.kruise.io', 'agent', { spec: { containers: [{ name: 'agent', image: 'fluent/fluent-bit:3.2' }] } });
  const s2 = await cli(['rollout', 'status', 'ads/agent', '--timeout=20s', '-o', 'json']);
  assert.equal(s2.code, 0, summary(s2));
  const last = JSON.parse(s2.stdout.trim().split('\n').pop()!);
  assert.equal(last.state, 'Complete');
  assert.equal(last.replicas, 3);
  const h = await cli(['rollout', 'history', 'ads/agent']);
  assert.equal(h.code, 0, summary(h));
  assert.match(h.stdout, /^2\s+<none>\s+fluent\/fluent-bit:3\.2\s+3$/m);
  const u = await cli(['rollout', 'undo', 'ads/agent']);
  assert.equal(u.code, 0, summary(u));
  const agent = await getObject(sb, PATHS.ads());
  assert.equal(agent.spec.template.spec.containers[0].image, 'fluent/fluent-bit:3.1');
  const s3 = await cli(['rollout', 'status', 'ads/agent', '--timeout=20s']);
  assert.equal(s3.code, 0, summary(s3));
});

test('TYPE -l SELECTOR and several objects: history of each, undo of each (like kubectl)', async () => {
  const deployment = (name: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { tier: 'front' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] } },
    },
  });
  for (const name of ['front-a', 'front-b']) {
    const created = await sb.api('POST', '/apis/apps/v1/namespaces/default/deployments', deployment(name));
    assert.equal(created.status, 201, created.text);
    await waitSettled(sb, PATHS.deployment(name));
    await patchTemplate('deployments.apps', name, { spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] } });
    await waitSettled(sb, PATHS.deployment(name));
  }

  const table = await cli(['rollout', 'history', 'deployment', '-l', 'tier=front']);
  assert.equal(table.code, 0, summary(table));
  assert.match(table.stdout, /^deployment\.apps\/front-a\nREVISION\s+CHANGE-CAUSE\s+IMAGES\s+PODS\n1\s+<none>\s+nginx:1\.25\s+0\n2\s+<none>\s+nginx:1\.26\s+1\n\ndeployment\.apps\/front-b\n/);
  const json = await cli(['rollout', 'history', 'deployment/front-a', 'deployment/front-b', '-o', 'json']);
  assert.equal(json.code, 0, summary(json));
  const list = JSON.parse(json.stdout);
  assert.equal(list.kind, 'List');
  assert.deepEqual(list.items.map((v: any) => v.name), ['front-a', 'front-b']);

  sb.clearAudit();
  const dry = await cli(['rollout', 'undo', 'deployment', '-l', 'tier=front', '--dry-run=server', '-o', 'name']);
  assert.equal(dry.code, 0, summary(dry));
  assert.equal(dry.stdout, 'deployment.apps/front-a\ndeployment.apps/front-b\n');
  const dryWrites = writes(sb.audit());
  assert.equal(dryWrites.length, 2, JSON.stringify(dryWrites));
  assert.ok(dryWrites.every((e) => /dryRun=All/.test(e.query ?? '')), JSON.stringify(dryWrites));

  const undo = await cli(['rollout', 'undo', 'deployment', '-l', 'tier=front']);
  assert.equal(undo.code, 0, summary(undo));
  assert.equal(undo.stdout, 'deployment.apps/front-a rolled back\ndeployment.apps/front-b rolled back\n');
  for (const name of ['front-a', 'front-b']) {
    assert.equal((await getObject(sb, PATHS.deployment(name))).spec.template.spec.containers[0].image, 'nginx:1.25');
  }

  const none = await cli(['rollout', 'undo', 'deployment', '-l', 'tier=none']);
  // kubectl rollout undo -l matching nothing exits 0; we also print kubectl's line of get/pause.
  assert.equal(none.code, 0, summary(none));
  assert.equal(none.stderr, 'No resources found in default namespace.\n');
  const history = await cli(['rollout', 'history', 'deployment', '-l', 'tier=none']);
  assert.equal(history.code, 0, summary(history));
  assert.equal(history.stdout, '');
  assert.equal(history.stderr, 'No resources found in default namespace.\n');
  const historyJson = await cli(['rollout', 'history', 'deployment', '-l', 'tier=none', '-o', 'json']);
  assert.equal(historyJson.code, 0, summary(historyJson));
  assert.deepEqual(JSON.parse(historyJson.stdout).items, []);
});

test('rollout history -o name prints the revision objects as kubectl does (it printed the workload); -o jsonpath (no trailing newline, like kubectl)', async () => {
  const jp = await cli(['rollout', 'history', 'cloneset/web', '-o', 'jsonpath={.revisions[*].revision}']);
  assert.equal(jp.code, 0, summary(jp));
  assert.match(jp.stdout, /^\d+( \d+)+$/);
  const latest = jp.stdout.split(' ').pop()!;
  // The ControllerRevisions the CloneSet controls, oldest first, read back through the API.
  const names = JSON.parse((await cli(['rollout', 'history', 'cloneset/web', '-o', 'json'])).stdout).revisions.map((r: { name: string }) => `controllerrevision.apps/${r.name}\n`);
  const name = await cli(['rollout', 'history', 'cloneset/web', '-o', 'name']);
  assert.equal(name.code, 0, summary(name));
  assert.equal(name.stdout, names.join(''));
  assert.equal(names.length, jp.stdout.split(' ').length);
  const revisions = (await sb.api('GET', '/apis/apps/v1/namespaces/default/controllerrevisions')).body.items.map((r: { metadata: { name: string } }) => `controllerrevision.apps/${r.metadata.name}\n`);
  for (const n of names) assert.ok(revisions.includes(n), n);
  const oneName = await cli(['rollout', 'history', 'cloneset/web', `--revision=${latest}`, '-o', 'name']);
  assert.equal(oneName.stdout, names.at(-1));
  const one = await cli(['rollout', 'history', 'cloneset/web', `--revision=${latest}`, '-o', 'jsonpath={.spec.containers[0].image}']);
  assert.equal(one.code, 0, summary(one));
  const cs = await getObject(sb, PATHS.cloneset());
  assert.equal(one.stdout, cs.spec.template.spec.containers[0].image);
});
