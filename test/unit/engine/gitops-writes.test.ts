// The write guard every mutating command's client goes through (lazy.ts wraps ctx.kube()):
// attribution to --field-manager and the GitOps check against the object as it was read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { CliError } from '../../../src/cli/exit';
import { guardWrites, patchedObject, type WritePolicy } from '../../../src/engine/gitops-writes';
import type { KubeClient, KubeObject, ResourceType } from '../../../src/kube/client';

const CS: ResourceType = { group: 'apps.kruise.io', version: 'v1alpha1', resource: 'clonesets', kind: 'CloneSet', namespaced: true };
const fluxOwned = (): KubeObject => parse(readFileSync(resolve(import.meta.dirname, '../../fixtures/gitops/cloneset-flux-owned.yaml'), 'utf8')) as KubeObject;
const IMAGE_OP = [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.27' }];

function fakeClient(): { client: KubeClient; sent: Array<{ verb: string; opts: unknown }> } {
  const sent: Array<{ verb: string; opts: unknown }> = [];
  const obj = fluxOwned();
  const client = {
    namespace: 'default',
    get: async () => structuredClone(obj),
    list: async () => ({ metadata: {}, items: [structuredClone(obj)] }),
    patch: async (_rt: unknown, _name: unknown, _type: unknown, _body: unknown, _ns: unknown, opts: unknown) => {
      sent.push({ verb: 'patch', opts });
      return structuredClone(obj);
    },
    create: async (_rt: unknown, o: KubeObject, _ns: unknown, opts: unknown) => {
      sent.push({ verb: 'create', opts });
      return o;
    },
    close: () => undefined,
  } as unknown as KubeClient;
  return { client, sent };
}

function policy(gitops: WritePolicy['gitops'], lines: string[] = []): WritePolicy {
  return { fieldManager: 'kubectl-set', gitops, warn: (l) => void lines.push(l) };
}

test('warn: one warning per field and manager (not again on a retry), the patch sent with the field manager', async () => {
  const { client, sent } = fakeClient();
  const lines: string[] = [];
  const guarded = guardWrites(client, policy('warn', lines));
  await guarded.get(CS, 'web');
  await guarded.patch(CS, 'web', 'json', IMAGE_OP);
  await guarded.patch(CS, 'web', 'json', IMAGE_OP);
  assert.deepEqual(lines, ['Warning: spec.template.spec.containers[app].image is managed by kustomize-controller; Flux will set it back at the next reconcile']);
  assert.deepEqual(sent.map((s) => (s.opts as { fieldManager: string }).fieldManager), ['kubectl-set', 'kubectl-set']);
});

test('refuse: a CliError (exit 1) before anything is sent; a field nobody reverts goes through', async () => {
  const { client, sent } = fakeClient();
  const guarded = guardWrites(client, policy('refuse'));
  await guarded.list(CS, 'default');
  await assert.rejects(guarded.patch(CS, 'web', 'json', IMAGE_OP), (e: unknown) => e instanceof CliError && e.exitCode === 1 && /refusing to change cloneset\/web/.test(e.message));
  assert.deepEqual(sent, []);
  await guarded.patch(CS, 'web', 'merge', { spec: { replicas: 6 } });
  assert.equal(sent.length, 1, 'replicas belong to kubectl-scale, an Update manager');
});

test('ignore, an object never read, a status write and a create: no check; creates get the field manager too', async () => {
  const { client, sent } = fakeClient();
  const lines: string[] = [];
  const ignoring = guardWrites(client, policy('ignore', lines));
  await ignoring.get(CS, 'web');
  await ignoring.patch(CS, 'web', 'json', IMAGE_OP);
  const unread = guardWrites(client, policy('refuse', lines));
  await unread.patch(CS, 'web', 'json', IMAGE_OP);
  await unread.get(CS, 'web');
  await unread.patch(CS, 'web', 'merge', { status: { replicas: 1 } }, undefined, { subresource: 'status' });
  await unread.create(CS, { metadata: { name: 'crr' } });
  assert.deepEqual(lines, []);
  assert.deepEqual(sent.map((s) => s.verb), ['patch', 'patch', 'patch', 'create']);
  assert.equal((sent[3]!.opts as { fieldManager: string }).fieldManager, 'kubectl-set');
});

test('patchedObject: JSON and merge patches applied locally; a patch whose test fails is the server\'s to judge', () => {
  const obj = fluxOwned();
  assert.equal((patchedObject(obj, 'merge', { spec: { replicas: 1 } })!.spec as { replicas: number }).replicas, 1);
  assert.equal(patchedObject(obj, 'json', [{ op: 'test', path: '/spec/replicas', value: 99 }]), undefined);
});
