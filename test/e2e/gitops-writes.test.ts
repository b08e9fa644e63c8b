// Writes that know about GitOps: a field Flux (kustomize-controller) or Argo CD (argocd-controller)
// owns through server-side apply warns, is refused (exit 1, nothing written) or is written anyway;
// every write is attributed to --field-manager in metadata.managedFields (the sandbox records them).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { kubectl, runCli } from '../helpers/cli';
import { startSandbox, type AuditEntry, type Sandbox } from '../helpers/sandbox';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/gitops');
const CS = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web';
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const WARNING = 'Warning: spec.template.spec.containers[app].image is managed by kustomize-controller; Flux will set it back at the next reconcile';

let sb: Sandbox;

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string; writes: AuditEntry[] }> {
  sb.clearAudit();
  const r = await runCli(args, { kubeconfig: sb.kubeconfig });
  return { ...r, writes: sb.audit().filter((e) => WRITE_VERBS.has(e.verb)) };
}

/** Server-side apply as the GitOps controller does it (taking the fields back, as its reconcile does). */
async function applyAs(manager: string, file: string): Promise<void> {
  const r = await kubectl(['apply', '--server-side', '--force-conflicts', `--field-manager=${manager}`, '-f', resolve(FIXTURES, file)], sb.kubeconfig);
  assert.equal(r.code, 0, r.stderr);
}

async function cloneSet(): Promise<any> {
  return (await sb.api('GET', CS)).body;
}

function image(cs: any): string {
  return cs.spec.template.spec.containers.find((c: any) => c.name === 'app').image;
}

/** The managers owning the app container's image: [manager, operation]. */
function imageOwners(cs: any): string[][] {
  return (cs.metadata.managedFields ?? [])
    .filter((e: any) => e.fieldsV1?.['f:spec']?.['f:template']?.['f:spec']?.['f:containers']?.['k:{"name":"app"}']?.['f:image'])
    .map((e: any) => [e.manager, e.operation]);
}

before(async () => {
  sb = await startSandbox();
  await applyAs('kustomize-controller', 'cloneset-web-flux.yaml');
});

after(async () => {
  await sb?.stop();
});

test('server-side apply by kustomize-controller: the sandbox records its fields (Apply), the app image among them', async () => {
  assert.deepEqual(imageOwners(await cloneSet()), [['kustomize-controller', 'Apply']]);
});

test('--gitops=refuse: exit 1 naming the field, the manager and what Flux does; nothing written', async () => {
  const r = await run(['set', 'image', 'cloneset/web', 'app=nginx:1.27', '--gitops=refuse']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^error: refusing to change cloneset\/web: spec\.template\.spec\.containers\[app\]\.image is managed by kustomize-controller; Flux will set it back at the next reconcile$/m);
  assert.deepEqual(r.writes, [], 'audit: no write');
  assert.equal(image(await cloneSet()), 'nginx:1.25');
});

test('default (--gitops=warn): the warning on stderr, the write made and recorded for kubectl-set (kubectl\'s manager for set)', async () => {
  const r = await run(['set', 'image', 'cloneset/web', 'app=nginx:1.27']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'cloneset.apps.kruise.io/web image updated\n');
  assert.equal(r.stderr, `${WARNING}\n`);
  assert.equal(r.writes.length, 1);
  assert.match(r.writes[0]!.query, /fieldManager=kubectl-set/);
  const cs = await cloneSet();
  assert.equal(image(cs), 'nginx:1.27');
  assert.deepEqual(imageOwners(cs), [['kubectl-set', 'Update']], 'the image moved to our manager, as on a real API server');
});

test('the sandbox answers a plain server-side apply over our change with kube\'s 409 conflict, as Flux without force would meet it', async () => {
  const r = await kubectl(['apply', '--server-side', '--field-manager=kustomize-controller', '-f', resolve(FIXTURES, 'cloneset-web-flux.yaml')], sb.kubeconfig);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Apply failed with 1 conflict: conflict with "kubectl-set" using apps\.kruise\.io\/v1alpha1: \.spec\.template\.spec\.containers\[name="app"\]\.image/);
  assert.equal(image(await cloneSet()), 'nginx:1.27', 'nothing applied');
});

test('--field-manager shows in managedFields; --gitops=ignore writes without a word', async () => {
  await applyAs('kustomize-controller', 'cloneset-web-flux.yaml'); // Flux reconciles: the image is its again
  assert.equal(image(await cloneSet()), 'nginx:1.25');
  const r = await run(['set', 'image', 'cloneset/web', 'app=nginx:1.28', '--gitops=ignore', '--field-manager=ci-bot']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  const cs = await cloneSet();
  assert.equal(image(cs), 'nginx:1.28');
  assert.deepEqual(imageOwners(cs), [['ci-bot', 'Update']]);
  const sidecar = cs.metadata.managedFields.find((e: any) => e.manager === 'kustomize-controller').fieldsV1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"sidecar"}'];
  assert.ok(sidecar?.['f:image'], 'fields we did not write stay Flux\'s');
});

test('--dry-run=client warns too (nothing is sent); --dry-run=server with --gitops=refuse sends nothing', async () => {
  await applyAs('kustomize-controller', 'cloneset-web-flux.yaml');
  const client = await run(['set', 'image', 'cloneset/web', 'app=nginx:1.29', '--dry-run=client']);
  assert.equal(client.code, 0, client.stderr);
  assert.equal(client.stderr, `${WARNING}\n`);
  assert.deepEqual(client.writes, []);
  const server = await run(['set', 'image', 'cloneset/web', 'app=nginx:1.29', '--dry-run=server', '--gitops=refuse']);
  assert.equal(server.code, 1);
  assert.deepEqual(server.writes, []);
});

test('rollout pause of a CloneSet Argo CD keeps unpaused: warns naming argocd-controller; refuse writes nothing; kubectl-rollout recorded', async () => {
  await applyAs('argocd-controller', 'cloneset-web-argocd-paused.yaml');
  const refused = await run(['rollout', 'pause', 'cloneset/web', '--gitops=refuse']);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /spec\.updateStrategy\.paused is managed by argocd-controller; Argo CD will set it back at the next sync/);
  assert.deepEqual(refused.writes, []);
  const r = await run(['rollout', 'pause', 'cloneset/web']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, 'Warning: spec.updateStrategy.paused is managed by argocd-controller; Argo CD will set it back at the next sync (at once with self-heal)\n');
  const cs = await cloneSet();
  assert.equal(cs.spec.updateStrategy.paused, true);
  const owner = cs.metadata.managedFields.find((e: any) => e.fieldsV1?.['f:spec']?.['f:updateStrategy']?.['f:paused']);
  assert.deepEqual([owner.manager, owner.operation], ['kubectl-rollout', 'Update']);
  const resumed = await run(['rollout', 'resume', 'cloneset/web', '--gitops=refuse']);
  assert.equal(resumed.code, 0, 'our own field now: nothing to refuse');
});

test('rollout undo back to an image Flux does not apply: refused with --gitops=refuse (no write), recorded for kubectl-rollout otherwise', async () => {
  await applyAs('kustomize-controller', 'cloneset-web-flux.yaml');
  const refused = await run(['rollout', 'undo', 'cloneset/web', '--gitops=refuse']);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /spec\.template\.spec\.containers\[app\]\.image is managed by kustomize-controller/);
  assert.deepEqual(refused.writes, []);
  const r = await run(['rollout', 'undo', 'cloneset/web']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^Warning: spec\.template\.spec\.containers\[app\]\.image is managed by kustomize-controller; Flux will set it back at the next reconcile$/m);
  const cs = await cloneSet();
  assert.notEqual(image(cs), 'nginx:1.25');
  assert.deepEqual(imageOwners(cs), [['kubectl-rollout', 'Update']]);
});

test('--gitops takes warn, refuse or ignore (exit 2 before any request)', async () => {
  const r = await run(['set', 'image', 'cloneset/web', 'app=nginx:1.30', '--gitops=maybe']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--gitops must be one of warn, refuse, ignore/);
  assert.deepEqual(r.writes, []);
});
