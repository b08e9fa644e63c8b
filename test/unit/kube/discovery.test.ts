import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AGGREGATED_ACCEPT,
  Discovery,
  cacheFile,
  cacheRoot,
  fetchDiscovery,
  readCache,
  servedResource,
  writeCache,
  type DiscoveryData,
} from '../../../src/kube/discovery';
import { isServedBy, resolveType } from '../../../src/kube/resolve';
import { CliError } from '../../../src/cli/exit';

type Versions = Record<string, Array<{ resource: string; kind: string; shortNames?: string[]; scope?: string }>>;

/** An APIGroupDiscoveryList like a real server's (only what discovery reads plus noise). */
function aggregated(kruise: Versions | undefined): unknown {
  const items: unknown[] = [
    { metadata: { name: 'apps' }, versions: [{ version: 'v1', resources: [{ resource: 'deployments', responseKind: { group: '', version: '', kind: 'Deployment' }, scope: 'Namespaced' }] }] },
  ];
  if (kruise) {
    items.push({
      metadata: { name: 'apps.kruise.io' },
      versions: Object.entries(kruise).map(([version, resources]) => ({
        version,
        resources: resources.map((r) => ({
          resource: r.resource,
          responseKind: { group: '', version: '', kind: r.kind },
          scope: r.scope ?? 'Namespaced',
          shortNames: r.shortNames,
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
          subresources: [{ subresource: 'status' }],
        })),
        freshness: 'Current',
      })),
    });
  }
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}

// Kruise v1.9: CloneSet only v1alpha1; ASTS and ADS v1beta1 preferred.
const V19: Versions = {
  v1beta1: [
    { resource: 'statefulsets', kind: 'StatefulSet', shortNames: ['sts', 'asts'] },
    { resource: 'daemonsets', kind: 'DaemonSet', shortNames: ['daemon', 'ads'] },
    { resource: 'imagepulljobs', kind: 'ImagePullJob' },
  ],
  v1alpha1: [
    { resource: 'clonesets', kind: 'CloneSet', shortNames: ['clone'] },
    { resource: 'statefulsets', kind: 'StatefulSet', shortNames: ['sts', 'asts'] },
    { resource: 'daemonsets', kind: 'DaemonSet', shortNames: ['daemon', 'ads'] },
    { resource: 'containerrecreaterequests', kind: 'ContainerRecreateRequest', shortNames: ['crr'] },
    { resource: 'imagepulljobs', kind: 'ImagePullJob' },
    { resource: 'persistentpodstates', kind: 'PersistentPodState' },
    { resource: 'sidecarsets', kind: 'SidecarSet', scope: 'Cluster' },
  ],
};
// main branch: CloneSet v1beta1 too.
const MASTER: Versions = { ...V19, v1beta1: [...V19.v1beta1!, { resource: 'clonesets', kind: 'CloneSet', shortNames: ['clone'] }] };

function fetcher(doc: unknown, log: string[] = []) {
  return async (path: string, accept?: string) => {
    log.push(`${path}${accept === AGGREGATED_ACCEPT ? ' (aggregated)' : ''}`);
    if (path === '/apis') return doc;
    throw new Error(`unexpected ${path}`);
  };
}

test('aggregated discovery: one request; per-kind preferred version is the highest served', async () => {
  const log: string[] = [];
  const data = await fetchDiscovery(fetcher(aggregated(V19), log), 'https://x');
  assert.deepEqual(log, ['/apis (aggregated)']);
  assert.equal(servedResource(data, 'apps.kruise.io', 'clonesets')!.preferredVersion, 'v1alpha1');
  assert.equal(servedResource(data, 'apps.kruise.io', 'statefulsets')!.preferredVersion, 'v1beta1');
  assert.deepEqual(servedResource(data, 'apps.kruise.io', 'statefulsets')!.versions, ['v1beta1', 'v1alpha1']);
  assert.deepEqual(servedResource(data, 'apps.kruise.io', 'statefulsets')!.shortNames, ['sts', 'asts']);
  assert.equal(servedResource(data, 'apps.kruise.io', 'sidecarsets')!.namespaced, false);
  const master = await fetchDiscovery(fetcher(aggregated(MASTER)), 'https://x');
  assert.equal(servedResource(master, 'apps.kruise.io', 'clonesets')!.preferredVersion, 'v1beta1');
});

test('fallback: a plain APIGroupList, then one resource list per version', async () => {
  const log: string[] = [];
  const fetch = async (path: string) => {
    log.push(path);
    if (path === '/apis') {
      return {
        kind: 'APIGroupList',
        groups: [
          { name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { version: 'v1' } },
          { name: 'apps.kruise.io', versions: [{ version: 'v1beta1' }, { version: 'v1alpha1' }], preferredVersion: { version: 'v1beta1' } },
        ],
      };
    }
    if (path === '/apis/apps.kruise.io/v1beta1') {
      return { kind: 'APIResourceList', resources: [{ name: 'statefulsets', kind: 'StatefulSet', namespaced: true, shortNames: ['sts', 'asts'] }, { name: 'statefulsets/status', kind: 'StatefulSet', namespaced: true }] };
    }
    if (path === '/apis/apps.kruise.io/v1alpha1') {
      return { kind: 'APIResourceList', resources: [{ name: 'clonesets', kind: 'CloneSet', namespaced: true }, { name: 'statefulsets', kind: 'StatefulSet', namespaced: true }, { name: 'clonesets/scale', kind: 'Scale', namespaced: true }] };
    }
    throw new Error(path);
  };
  const data = await fetchDiscovery(fetch, 'https://x');
  assert.deepEqual(log.sort(), ['/apis', '/apis/apps.kruise.io/v1alpha1', '/apis/apps.kruise.io/v1beta1']);
  assert.equal(servedResource(data, 'apps.kruise.io', 'statefulsets')!.preferredVersion, 'v1beta1');
  assert.deepEqual(servedResource(data, 'apps.kruise.io', 'statefulsets')!.subresources, ['status']);
  assert.equal(servedResource(data, 'apps.kruise.io', 'clonesets')!.preferredVersion, 'v1alpha1');
  assert.deepEqual(servedResource(data, 'apps.kruise.io', 'clonesets')!.subresources, ['scale']);
});

test('resolution through discovery: served versions, pinning, unknown types', async () => {
  const d = new Discovery(fetcher(aggregated(V19)), 'https://x', undefined);
  const cs = await resolveType('clone', d);
  assert.deepEqual([cs.group, cs.version, cs.resource, cs.kind, cs.namespaced], ['apps.kruise.io', 'v1alpha1', 'clonesets', 'CloneSet', true]);
  assert.equal((await resolveType('asts', d)).version, 'v1beta1');
  assert.equal((await resolveType('statefulsets.v1alpha1.apps.kruise.io', d)).version, 'v1alpha1');
  const sts = await resolveType('sts', d);
  assert.deepEqual([sts.group, sts.version], ['apps', 'v1']);
  await assert.rejects(resolveType('clonesets.v1beta1.apps.kruise.io', d), (e: unknown) => {
    assert.ok(e instanceof CliError);
    assert.equal(e.exitCode, 1);
    assert.equal(e.message, 'the server does not serve clonesets.apps.kruise.io version v1beta1 (served: v1alpha1)');
    return true;
  });
  await assert.rejects(resolveType('foo', d), (e: unknown) => e instanceof CliError && e.exitCode === 2 && e.message === 'the server doesn\'t have a resource type "foo"');
  await assert.rejects(resolveType('imagelistpulljobs', d), /the server doesn't have a resource type "imagelistpulljobs"/);
  await assert.rejects(resolveType('deployments.v2.apps', d), /does not serve deployments.apps version v2/);
  const master = new Discovery(fetcher(aggregated(MASTER)), 'https://x', undefined);
  assert.equal((await resolveType('cloneset', master)).version, 'v1beta1');
  assert.equal((await resolveType('cloneset.v1alpha1.apps.kruise.io', master)).version, 'v1alpha1');
});

test('a cluster without Kruise: Kruise types are unknown with a hint; natives still resolve without discovery', async () => {
  const log: string[] = [];
  const d = new Discovery(fetcher(aggregated(undefined), log), 'https://x', undefined);
  assert.equal((await resolveType('deploy', d)).resource, 'deployments');
  assert.deepEqual(log, [], 'native kinds need no discovery request');
  await assert.rejects(resolveType('cloneset', d), (e: unknown) => e instanceof CliError && e.exitCode === 1 && /not installed/.test(e.hint ?? ''));
  assert.equal(await isServedBy('apps.kruise.io', 'clonesets', d), false);
  assert.equal(await isServedBy('apps', 'deployments', d), true);
});

test('disk cache: written atomically per server, honoured within the TTL, refreshed when a type is missing', async () => {
  const root = mkdtempSync(join(tmpdir(), 'kk-cache-'));
  const file = cacheFile(root, 'https://127.0.0.1:6443');
  assert.equal(file, join(root, 'kruise-discovery', '127.0.0.1_6443.json'));
  const log: string[] = [];
  const d1 = new Discovery(fetcher(aggregated(V19), log), 'https://127.0.0.1:6443', file);
  await resolveType('clone', d1);
  assert.ok(existsSync(file));
  assert.deepEqual(readdirSync(join(root, 'kruise-discovery')), ['127.0.0.1_6443.json'], 'no temp files left behind');
  // A second process: no request.
  const d2 = new Discovery(fetcher(aggregated(V19), log), 'https://127.0.0.1:6443', file);
  await resolveType('asts', d2);
  assert.equal(log.length, 1);
  // The cache predates a Kruise upgrade: a pinned version it lacks triggers one refresh.
  const d3 = new Discovery(fetcher(aggregated(MASTER), log), 'https://127.0.0.1:6443', file);
  assert.equal((await resolveType('clonesets.v1beta1.apps.kruise.io', d3)).version, 'v1beta1');
  assert.equal(log.length, 2);
  // Expired entries are ignored.
  const data = JSON.parse(readFileSync(file, 'utf8')) as DiscoveryData;
  assert.ok(readCache(file, 'https://127.0.0.1:6443', data.fetchedAt + 1000));
  assert.equal(readCache(file, 'https://127.0.0.1:6443', data.fetchedAt + 11 * 60 * 1000), undefined);
  assert.equal(readCache(file, 'https://other:1', data.fetchedAt), undefined);
});

test('an unwritable or missing cache folder never breaks resolution', async () => {
  const root = mkdtempSync(join(tmpdir(), 'kk-ro-'));
  mkdirSync(join(root, 'kruise-discovery'));
  chmodSync(join(root, 'kruise-discovery'), 0o500);
  chmodSync(root, 0o500);
  const d = new Discovery(fetcher(aggregated(V19)), 'https://x:1', cacheFile(root, 'https://x:1'));
  assert.equal((await resolveType('clone', d)).version, 'v1alpha1');
  const blocked = join(mkdtempSync(join(tmpdir(), 'kk-file-')), 'f');
  writeFileSync(blocked, 'not a dir');
  writeCache(join(blocked, 'sub', 'x.json'), { format: 1, fetchedAt: 0, server: 's', groups: {} });
  const garbage = join(mkdtempSync(join(tmpdir(), 'kk-garbage-')), 'g.json');
  writeFileSync(garbage, '{not json');
  assert.equal(readCache(garbage, 's'), undefined);
});

test('cache root: --cache-dir, else KUBECACHEDIR, else ~/.kube/cache', () => {
  assert.equal(cacheRoot('/flag', { KUBECACHEDIR: '/env', HOME: '/home/u' }), '/flag');
  assert.equal(cacheRoot(undefined, { KUBECACHEDIR: '/env', HOME: '/home/u' }), '/env');
  assert.equal(cacheRoot(undefined, { HOME: '/home/u' }), '/home/u/.kube/cache');
});

test('Kruise Rollout: rollouts.kruise.io discovered in the same request; v1beta1 preferred over v1alpha1; hint names Kruise Rollout when absent', async () => {
  const doc = aggregated(V19) as { items: unknown[] };
  doc.items.push({
    metadata: { name: 'rollouts.kruise.io' },
    versions: ['v1beta1', 'v1alpha1'].map((version) => ({
      version,
      resources: [{ resource: 'rollouts', responseKind: { kind: 'Rollout' }, scope: 'Namespaced', subresources: [{ subresource: 'status' }] }],
    })),
  });
  const log: string[] = [];
  const d = new Discovery(fetcher(doc, log), 'https://x', undefined);
  const ro = await resolveType('rollout', d);
  assert.deepEqual([ro.group, ro.version, ro.resource, ro.kind], ['rollouts.kruise.io', 'v1beta1', 'rollouts', 'Rollout']);
  assert.equal((await resolveType('rollouts.v1alpha1.rollouts.kruise.io', d)).version, 'v1alpha1');
  assert.equal((await resolveType('cloneset', d)).version, 'v1alpha1');
  assert.deepEqual(log, ['/apis (aggregated)']);
  const without = new Discovery(fetcher(aggregated(V19)), 'https://x', undefined);
  await assert.rejects(resolveType('rollout', without), (e: unknown) => e instanceof CliError && e.exitCode === 1 && e.hint === 'hint: Kruise Rollout (rollouts.kruise.io) is not installed on this cluster');
});
