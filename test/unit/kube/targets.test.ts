import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTargets, resolveTargets, validateSelector, type TargetInput } from '../../../src/kube/targets';
import { CliError } from '../../../src/cli/exit';
import type { KubeClient, KubeList, ResourceType } from '../../../src/kube/client';
import { lookupType } from '../../../src/kube/aliases';

function usage(input: TargetInput, re: RegExp): void {
  assert.throws(
    () => parseTargets(input),
    (e: unknown) => {
      assert.ok(e instanceof CliError, String(e));
      assert.equal(e.exitCode, 2);
      assert.match(e.message, re);
      assert.ok(!e.message.includes('\n'));
      return true;
    },
    JSON.stringify(input).slice(0, 200),
  );
}

test('TYPE/NAME, several TYPE/NAME, TYPE NAME1 NAME2', () => {
  assert.deepEqual(parseTargets({ args: ['cloneset/web'] }), [{ kind: 'named', type: 'cloneset', name: 'web' }]);
  assert.deepEqual(parseTargets({ args: ['clone/web', 'deploy/api'] }), [
    { kind: 'named', type: 'clone', name: 'web' },
    { kind: 'named', type: 'deploy', name: 'api' },
  ]);
  assert.deepEqual(parseTargets({ args: ['cloneset', 'a', 'b.c'] }), [
    { kind: 'named', type: 'cloneset', name: 'a' },
    { kind: 'named', type: 'cloneset', name: 'b.c' },
  ]);
  assert.deepEqual(parseTargets({ args: ['clonesets.v1beta1.apps.kruise.io/web'] }), [{ kind: 'named', type: 'clonesets.v1beta1.apps.kruise.io', name: 'web' }]);
});

test('-l and --all need exactly one TYPE', () => {
  assert.deepEqual(parseTargets({ args: ['cloneset'], selector: 'app=web,tier in (a, b),!canary' }), [{ kind: 'selector', type: 'cloneset', selector: 'app=web,tier in (a, b),!canary' }]);
  assert.deepEqual(parseTargets({ args: ['asts'], all: true }), [{ kind: 'all', type: 'asts' }]);
  usage({ args: [], all: true }, /--all needs exactly one TYPE/);
  usage({ args: ['cloneset/web'], selector: 'a=b' }, /-l needs exactly one TYPE/);
  usage({ args: ['cloneset'], selector: 'a=b', all: true }, /either -l SELECTOR or --all/);
  usage({ args: ['cloneset'], selector: 'a==b==c' }, /invalid label selector/);
  usage({ args: ['cloneset'], selector: 'a in (b' }, /unbalanced/);
  usage({ args: ['cloneset'], selector: '' }, /empty label selector/);
});

test("kubectl's TYPE1,TYPE2 form: every type with the selector, --all or every name", () => {
  assert.deepEqual(parseTargets({ args: ['deploy,cloneset'], selector: 'app=web' }), [
    { kind: 'selector', type: 'deploy', selector: 'app=web' },
    { kind: 'selector', type: 'cloneset', selector: 'app=web' },
  ]);
  assert.deepEqual(parseTargets({ args: ['deploy,asts'], all: true }), [
    { kind: 'all', type: 'deploy' },
    { kind: 'all', type: 'asts' },
  ]);
  assert.deepEqual(parseTargets({ args: ['deploy,cloneset', 'web'] }), [
    { kind: 'named', type: 'deploy', name: 'web' },
    { kind: 'named', type: 'cloneset', name: 'web' },
  ]);
  usage({ args: ['deploy,', 'web'] }, /the type is empty/);
  usage({ args: ['deploy,clone set'], all: true }, /invalid resource type/);
});

test('malformed references and names are usage errors before any request', () => {
  usage({ args: [] }, /you must specify the type of resource and a name/);
  // No --all hint: the rollout verbs refuse --all (only set takes it, with targets of its own).
  usage({ args: ['cloneset'] }, /^a name is required for "cloneset": give cloneset\/NAME, "cloneset NAME" or cloneset -l SELECTOR$/);
  // A lone word no kind is spelt like is a name given without its type: kubectl's answer, before any request.
  usage({ args: ['web'] }, /^the server doesn't have a resource type "web"$/);
  usage({ args: ['cloneset,web'] }, /^the server doesn't have a resource type "web"$/);
  usage({ args: ['/web'] }, /the type is empty/);
  usage({ args: ['cloneset/'] }, /the name is empty/);
  usage({ args: ['cloneset/web/extra'] }, /exactly one "\/"/);
  usage({ args: ['cloneset/../etc'] }, /exactly one "\/"/);
  usage({ args: ['cloneset/..'] }, /invalid name ".."/);
  usage({ args: ['cloneset/a%2Fb'] }, /must not contain "\/" or "%"/);
  usage({ args: ['cloneset/Web'] }, /invalid name "Web": must consist of lower case/);
  usage({ args: ['cloneset/' + 'a'.repeat(300)] }, /no more than 253 characters/);
  usage({ args: ['cloneset', 'web', 'deploy/api'] }, /looks like TYPE\/NAME/);
  usage({ args: ['cloneset/web', 'api'] }, /has no type/);
  usage({ args: ['clone set/web'] }, /invalid resource type/);
  usage({ args: ['cloneset', 'web_1'] }, /invalid name "web_1"/);
});

const dir = mkdtempSync(join(tmpdir(), 'kk-targets-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

test('-f: multi-document YAML, JSON, Lists and stdin', () => {
  const yamlFile = file(
    'two.yaml',
    `apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata:
  name: web
  namespace: prod
spec:
  replicas: 3
---
# a comment-only document is skipped
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
`,
  );
  const specs = parseTargets({ args: [], filenames: [yamlFile] });
  assert.deepEqual(specs.map((s) => (s.kind === 'object' ? `${s.object.kind}/${s.object.metadata.name}` : '')), ['CloneSet/web', 'Deployment/api']);
  const json = file('list.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }] }));
  assert.equal(parseTargets({ args: [], filenames: [json] }).length, 1);
  const stdin = parseTargets({ args: [], filenames: ['-'], readFile: () => 'apiVersion: v1\nkind: Pod\nmetadata: {name: from-stdin}\n' });
  assert.equal(stdin[0]!.kind === 'object' && stdin[0]!.source, 'stdin');
});

test('-f problems are exit 2 naming the file (and line)', () => {
  const bad = file('bad.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: [unclosed\n');
  usage({ args: [], filenames: [bad] }, /^error parsing .*bad\.yaml line \d+: /);
  usage({ args: [], filenames: [file('empty.yaml', '---\n# nothing\n')] }, /^no objects passed in .*empty\.yaml$/);
  usage({ args: [], filenames: [file('nokind.yaml', 'apiVersion: v1\nmetadata: {name: x}\n')] }, /nokind\.yaml \(document 1\): kind is missing/);
  usage({ args: [], filenames: [file('noname.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {}\n')] }, /metadata.name is missing/);
  usage({ args: [], filenames: [file('badname.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {name: Bad}\n')] }, /invalid Pod name "Bad"/);
  usage({ args: [], filenames: [file('scalar.yaml', 'just a string\n')] }, /expected a Kubernetes object/);
  usage({ args: [], filenames: [join(dir, 'missing.yaml')] }, /the path ".*missing.yaml" does not exist/);
  usage({ args: ['cloneset/web'], filenames: [bad] }, /either -f FILE or TYPE\/NAME/);
});

test('selectors: accepted forms', () => {
  for (const ok of ['app=web', 'app==web', 'app!=web', 'app', '!app', 'env in (prod,dev)', 'env notin (x)', 'app.kubernetes.io/name=web,tier=fe', 'a=']) validateSelector(ok);
});

/** A fake client: resolves types through the pure alias table, lists from a fixed set. */
function fakeClient(): KubeClient & { listed: string[] } {
  const listed: string[] = [];
  const c = {
    namespace: 'prod',
    server: 'https://x',
    userName: 'u',
    listed,
    async resolve(type: string): Promise<ResourceType> {
      const ref = lookupType(type);
      if (!ref) throw new CliError(`the server doesn't have a resource type "${type}"`);
      return { group: ref.known.group, version: ref.pinnedVersion ?? ref.known.nativeVersion ?? 'v1alpha1', resource: ref.known.resource, kind: ref.known.kind, namespaced: ref.known.namespaced };
    },
    async list(rt: ResourceType, ns: string | undefined, opts?: { labelSelector?: string }): Promise<KubeList> {
      listed.push(`${rt.resource} ${ns} ${opts?.labelSelector ?? ''}`);
      return { metadata: {}, items: [{ metadata: { name: 'a', namespace: 'prod' } }, { metadata: { name: 'b', namespace: 'prod' } }] };
    },
  };
  return c as unknown as KubeClient & { listed: string[] };
}

test('resolveTargets: named, selector (lists), objects (namespace checks), allowed kinds', async () => {
  const c = fakeClient();
  const named = await resolveTargets(c, parseTargets({ args: ['clone/web', 'node/n1'] }));
  assert.deepEqual(named.map((t) => `${t.rt.resource}/${t.name}@${t.namespace}`), ['clonesets/web@prod', 'nodes/n1@undefined']);
  const sel = await resolveTargets(c, parseTargets({ args: ['asts'], selector: 'app=x' }));
  assert.deepEqual(sel.map((t) => t.name), ['a', 'b']);
  assert.deepEqual(c.listed, ['statefulsets prod app=x']);
  const objFile = file('obj.yaml', 'apiVersion: apps.kruise.io/v1beta1\nkind: StatefulSet\nmetadata: {name: db, namespace: data}\n');
  const objs = await resolveTargets(c, parseTargets({ args: [], filenames: [objFile] }));
  assert.deepEqual([objs[0]!.rt.group, objs[0]!.rt.version, objs[0]!.rt.resource, objs[0]!.namespace], ['apps.kruise.io', 'v1beta1', 'statefulsets', 'data']);
  await assert.rejects(resolveTargets(c, parseTargets({ args: [], filenames: [objFile] }), { explicitNamespace: 'prod' }), (e: unknown) => e instanceof CliError && e.exitCode === 2 && /is "data", not "prod"/.test(e.message));
  await assert.rejects(
    resolveTargets(c, parseTargets({ args: ['pod/x'] }), { allow: (rt) => (rt.resource === 'pods' ? 'pods cannot be rolled out' : undefined) }),
    (e: unknown) => e instanceof CliError && e.exitCode === 2 && e.message === 'pods cannot be rolled out',
  );
  await assert.rejects(resolveTargets(c, parseTargets({ args: ['foo/x'] })), /the server doesn't have a resource type "foo"/);
});
