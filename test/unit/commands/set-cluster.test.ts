// The cluster path of `set` against a scripted KubeClient: request counts, the all-or-nothing
// check across objects, and the rebuild of a patch whose `test` guards failed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parse } from 'yaml';
import type { CommandContext } from '../../../src/cli/context';
import { defaultGlobals } from '../../../src/cli/globals';
import type { KubeClient, KubeObject, ResourceType } from '../../../src/kube/client';
import { KubeApiError } from '../../../src/kube/errors';
import { applyJsonPatch, planImageChange, planEnvChange, type JsonPatchOp } from '../../../src/kruise/containers';
import { runClusterEdit, PATCH_ATTEMPTS } from '../../../src/commands/set/cluster';
import type { EditRequest } from '../../../src/commands/set/edit';
import { parseSelection } from '../../../src/commands/set/targets';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'set');
const fixture = (name: string): KubeObject => parse(readFileSync(join(FIXTURES, name), 'utf8')) as KubeObject;

const CLONESETS: ResourceType = { group: 'apps.kruise.io', version: 'v1alpha1', resource: 'clonesets', kind: 'CloneSet', namespaced: true };

interface Call {
  verb: string;
  name?: string;
  body?: unknown;
  dryRun?: boolean;
}

/** A KubeClient over an in-memory map; `beforePatch` may mutate the stored object or throw. */
function fakeClient(objects: KubeObject[], beforePatch?: (name: string, attempt: number) => void): { client: KubeClient; calls: Call[]; store: Map<string, KubeObject> } {
  const store = new Map(objects.map((o) => [o.metadata.name!, structuredClone(o)]));
  const calls: Call[] = [];
  let patches = 0;
  const client = {
    namespace: 'default',
    server: 'http://fake',
    userName: 'tester',
    async resolve(type: string) {
      calls.push({ verb: 'resolve', name: type });
      return CLONESETS;
    },
    async get(_rt: ResourceType, name: string) {
      calls.push({ verb: 'get', name });
      const o = store.get(name);
      if (!o) throw new KubeApiError(`clonesets.apps.kruise.io "${name}" not found`, 404, 'NotFound', undefined);
      return structuredClone(o);
    },
    async patch(_rt: ResourceType, name: string, type: string, body: unknown, _ns?: string, opts?: { dryRun?: boolean }) {
      assert.equal(type, 'json');
      calls.push({ verb: 'patch', name, body, dryRun: opts?.dryRun });
      beforePatch?.(name, ++patches);
      const current = store.get(name)!;
      let next: KubeObject;
      try {
        next = applyJsonPatch(current, body as JsonPatchOp[]);
      } catch {
        // kube-apiserver's whole answer to a JSON patch that does not apply (no causes, no detail).
        throw new KubeApiError('the server rejected our request due to an error in our request', 422, 'Invalid', undefined);
      }
      if (!opts?.dryRun) store.set(name, next);
      return structuredClone(next);
    },
    close() {},
  } as unknown as KubeClient;
  return { client, calls, store };
}

function fakeContext(client: KubeClient): { ctx: CommandContext; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        append(String(chunk));
        cb();
      },
    });
  const ctx: CommandContext = {
    globals: defaultGlobals(),
    term: { stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)), decorate: false, env: {} },
    programName: 'kubectl-kruise',
    signal: new AbortController().signal,
    setInterruptSummary: () => {},
    kube: async () => client,
  };
  return { ctx, out: () => out, err: () => err };
}

function imageRequest(pairs: Array<{ container: string; image: string }>, dryRun: EditRequest['dryRun'] = 'none'): EditRequest {
  return {
    command: 'set image',
    updatedVerb: 'image updated',
    unchangedVerb: 'image unchanged',
    plan: (obj) => planImageChange(obj, pairs),
    dryRun,
    output: { kind: 'default' },
    fieldManager: 'kubectl-kruise',
  };
}

function named(obj: KubeObject, name: string): KubeObject {
  const copy = structuredClone(obj);
  copy.metadata.name = name;
  return copy;
}

test('set image: one read and one JSON patch per object', async () => {
  const { client, calls } = fakeClient([fixture('cloneset-web-inplaceonly.yaml')]);
  const { ctx, out } = fakeContext(client);
  const code = await runClusterEdit(ctx, parseSelection('set image', ['cloneset/web'], {}), imageRequest([{ container: 'app', image: 'nginx:1.27' }]));
  assert.equal(code, 0);
  assert.equal(out(), 'cloneset.apps.kruise.io/web image updated\n');
  assert.deepEqual(
    calls.filter((c) => c.verb !== 'resolve').map((c) => c.verb),
    ['get', 'patch'],
  );
});

test('an unknown container in the second object stops before the first write', async () => {
  const good = fixture('cloneset-web-inplaceonly.yaml');
  const other = named(fixture('cloneset-web-v1beta1.yaml'), 'other');
  other.apiVersion = 'apps.kruise.io/v1alpha1';
  (other as unknown as { spec: { template: { spec: { containers: Array<{ name: string }> } } } }).spec.template.spec.containers[0]!.name = 'main';
  const { client, calls } = fakeClient([good, other]);
  const { ctx } = fakeContext(client);
  await assert.rejects(
    runClusterEdit(ctx, parseSelection('set image', ['cloneset/web', 'cloneset/other'], {}), imageRequest([{ container: 'app', image: 'nginx:1.27' }])),
    /unable to find container named "app" in cloneset.apps.kruise.io\/other/,
  );
  assert.equal(calls.filter((c) => c.verb === 'patch').length, 0);
});

test('a failed test guard (containers reordered meanwhile) is retried on a fresh read and hits the right container', async () => {
  const cs = fixture('cloneset-web-inplaceonly.yaml');
  const fake = fakeClient([cs], (name, attempt) => {
    if (attempt !== 1) return;
    // Someone reorders the containers between our read and our write.
    const obj = fake.store.get(name) as KubeObject & { spec: { template: { spec: { containers: unknown[] } } } };
    obj.spec.template.spec.containers.reverse();
  });
  const { ctx, out } = fakeContext(fake.client);
  const code = await runClusterEdit(ctx, parseSelection('set image', ['cloneset/web'], {}), imageRequest([{ container: 'app', image: 'nginx:1.27' }]));
  assert.equal(code, 0);
  assert.equal(out(), 'cloneset.apps.kruise.io/web image updated\n');
  assert.deepEqual(
    fake.calls.filter((c) => c.verb !== 'resolve').map((c) => c.verb),
    ['get', 'patch', 'get', 'patch'],
  );
  const final = fake.store.get('web') as KubeObject & { spec: { template: { spec: { containers: Array<{ name: string; image: string }> } } } };
  assert.deepEqual(
    final.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`),
    ['log-agent=fluent/fluent-bit:2.2', 'app=nginx:1.27'],
  );
});

test('conflicts are retried a bounded number of times, then fail with exit 1', async () => {
  const fake = fakeClient([fixture('cloneset-web-inplaceonly.yaml')], () => {
    throw new KubeApiError('Operation cannot be fulfilled on clonesets.apps.kruise.io "web": the object has been modified', 409, 'Conflict', undefined);
  });
  const { ctx } = fakeContext(fake.client);
  await assert.rejects(
    runClusterEdit(ctx, parseSelection('set image', ['cloneset/web'], {}), imageRequest([{ container: 'app', image: 'nginx:1.27' }])),
    (e: Error & { exitCode?: number }) => /kept changing/.test(e.message) && e.exitCode === 1,
  );
  assert.equal(fake.calls.filter((c) => c.verb === 'patch').length, PATCH_ATTEMPTS);
});

test('--dry-run=client sends no write; --dry-run=server sends dryRun; unchanged sends nothing', async () => {
  for (const [dryRun, expectPatch, line] of [
    ['client', 0, 'cloneset.apps.kruise.io/web image updated (dry run)\n'],
    ['server', 1, 'cloneset.apps.kruise.io/web image updated (server dry run)\n'],
  ] as const) {
    const fake = fakeClient([fixture('cloneset-web-inplaceonly.yaml')]);
    const { ctx, out } = fakeContext(fake.client);
    await runClusterEdit(ctx, parseSelection('set image', ['cloneset/web'], {}), imageRequest([{ container: 'app', image: 'nginx:1.27' }], dryRun));
    const patches = fake.calls.filter((c) => c.verb === 'patch');
    assert.equal(patches.length, expectPatch, dryRun);
    if (expectPatch) assert.equal(patches[0]!.dryRun, true);
    assert.equal(out(), line);
  }
  const fake = fakeClient([fixture('cloneset-web-inplaceonly.yaml')]);
  const { ctx, out } = fakeContext(fake.client);
  await runClusterEdit(ctx, parseSelection('set image', ['cloneset/web'], {}), imageRequest([{ container: 'app', image: 'nginx:1.25' }]));
  assert.equal(fake.calls.filter((c) => c.verb === 'patch').length, 0);
  assert.equal(out(), 'cloneset.apps.kruise.io/web image unchanged\n');
});

test('set env on an InPlaceOnly CloneSet is refused before sending', async () => {
  const fake = fakeClient([fixture('cloneset-web-inplaceonly.yaml')]);
  const { ctx } = fakeContext(fake.client);
  const req: EditRequest = { ...imageRequest([]), command: 'set env', plan: (obj) => planEnvChange(obj, 'app', { set: [{ name: 'A', value: '1' }], remove: [] }) };
  await assert.rejects(runClusterEdit(ctx, parseSelection('set env', ['cloneset/web'], {}), req), /InPlaceOnly.*only allowed to update images/);
  assert.equal(fake.calls.filter((c) => c.verb === 'patch').length, 0);
});
