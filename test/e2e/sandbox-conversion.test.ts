// Kruise's own conversion test rows (test/fixtures/conversion, ported from apis/apps/v1alpha1/
// conversion_test.go and the per-kind conversion tests) replayed through the sandbox API with real
// kubectl, on `--kruise master` with the master CRDs (schemas on, v1beta1 the storage version of each
// kind): each row's object is created at its version, read at the other one (the row's expected
// object, as far as the server's own defaulting leaves it), written back as read and read again at
// the first version, which must not have changed. Conversions Kruise refuses answer kube's 500.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, REPO_ROOT } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';
import { conversionRows, type ConversionRow } from '../helpers/conversion-rows';
import type { KubeObject } from '../../src/kruise/types';

const MASTER_CRDS = join(REPO_ROOT, '..', 'shared', 'kruise-crds', 'master');
const haveCrds = existsSync(MASTER_CRDS);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const PLURALS: Record<string, string> = {
  CloneSet: 'clonesets',
  DaemonSet: 'daemonsets',
  SidecarSet: 'sidecarsets',
  WorkloadSpread: 'workloadspreads',
  ResourceDistribution: 'resourcedistributions',
  PersistentPodState: 'persistentpodstates',
  PodUnavailableBudget: 'podunavailablebudgets',
  UnitedDeployment: 'uniteddeployments',
};
const CLUSTER_SCOPED = new Set(['ResourceDistribution', 'SidecarSet']);

/**
 * The rows replayed through the API: those whose objects a Kruise server accepts (not the ones that
 * hold statuses, which a create drops, or spec fields only Kruise's webhook may set; podsToDelete is
 * left out, as the webhook wants those pods to exist). After a v1beta1 object is written back from its
 * v1alpha1 view, `lost` fields are gone and `gained` annotations stay in the hub, as in Kruise, whose
 * conversion copies ObjectMeta both ways.
 */
const ROUND_TRIPS: Array<{ kind: string; test: string; name: string; lost?: string[]; gained?: string[]; omit?: string[] }> = [
  { kind: 'CloneSet', test: 'TestCloneSet_ConvertTo', name: 'convert with all fields populated' },
  { kind: 'CloneSet', test: 'TestCloneSet_ConvertTo', name: 'convert with label-based excludePreparingDelete to spec field' },
  { kind: 'CloneSet', test: 'TestCloneSet_ConvertTo', name: 'convert with image pre-download annotations to spec fields' },
  { kind: 'CloneSet', test: 'TestCloneSet_ConvertFrom', name: 'convert from v1beta1 with all fields populated', lost: ['spec.scaleStrategy.excludePreparingDelete'] },
  {
    kind: 'CloneSet',
    test: 'TestCloneSet_ConvertFrom',
    name: 'convert from v1beta1 with image pre-download spec fields to annotations',
    gained: ['apps.kruise.io/image-predownload-parallelism', 'apps.kruise.io/image-predownload-timeout-seconds', 'apps.kruise.io/image-predownload-min-updated-ready-pods'],
  },
  { kind: 'DaemonSet', test: 'TestDaemonSet_ConvertTo', name: 'convert with progressive-create-pod annotation' },
  { kind: 'DaemonSet', test: 'TestDaemonSet_ConvertFrom', name: 'convert from v1beta1 with ScaleStrategy progressive true', gained: ['daemonset.kruise.io/progressive-create-pod'] },
  // The SidecarSet webhook refuses an injection revision that does not exist and a partition with a selector: left out.
  { kind: 'SidecarSet', test: 'TestSidecarSet_ConvertTo', name: 'convert with all fields populated - Namespace takes priority', omit: ['spec.injectionStrategy', 'spec.updateStrategy.selector'] },
  { kind: 'SidecarSet', test: 'TestSidecarSet_ConvertFrom', name: 'convert from v1beta1 with all fields populated', omit: ['spec.injectionStrategy', 'spec.updateStrategy.selector'] },
  { kind: 'WorkloadSpread', test: 'TestWorkloadSpread_ConvertTo', name: 'all fields populated with node selectors and conditions' },
  { kind: 'WorkloadSpread', test: 'TestWorkloadSpread_ConvertFrom', name: 'all fields populated - field renames reversed' },
  { kind: 'ResourceDistribution', test: 'TestResourceDistributionConvertToV1beta1', name: 'namespaceLabelSelector becomes namespaceSelector, failedNamespace failedNamespaces' },
  { kind: 'ResourceDistribution', test: 'TestResourceDistributionConvertFromV1beta1', name: 'namespaceSelector becomes namespaceLabelSelector, failedNamespaces failedNamespace, annotations kept' },
  { kind: 'PersistentPodState', test: 'TestPersistentPodState_ConvertTo', name: 'all fields with nodeTopologyKeys' },
  { kind: 'PersistentPodState', test: 'TestPersistentPodState_ConvertFrom', name: 'keys renamed back to nodeTopologyKeys, every other field as is' },
  { kind: 'PodUnavailableBudget', test: 'TestPodUnavailableBudgetConvertToV1beta1PromotesDeprecatedAnnotations', name: 'the protect-operations and protect-total-replicas annotations become typed spec fields' },
  {
    kind: 'PodUnavailableBudget',
    test: 'TestPodUnavailableBudgetConvertFromV1beta1BackfillsDeprecatedAnnotations',
    name: 'typed fields become the annotations again, other annotations kept, ignoredPodSelector dropped',
    lost: ['spec.ignoredPodSelector'],
    gained: ['kruise.io/pub-protect-operations', 'pub.kruise.io/protect-total-replicas'],
  },
  { kind: 'UnitedDeployment', test: 'TestUnitedDeploymentConversionRoundTrip', name: 'deployment template' },
];

/** Every leaf path of an object (arrays by index; keys may hold dots, as label keys do). */
function leafPaths(v: unknown, prefix: string[] = []): string[][] {
  if (Array.isArray(v)) return v.length === 0 ? [prefix] : v.flatMap((x, i) => leafPaths(x, [...prefix, String(i)]));
  if (isObj(v)) return Object.keys(v).length === 0 ? [prefix] : Object.entries(v).flatMap(([k, x]) => leafPaths(x, [...prefix, k]));
  return [prefix];
}

/** The value at a path: "spec.updateStrategy.partition", or an array of keys. */
function at(v: unknown, path: string | string[]): unknown {
  let cur = v;
  for (const key of typeof path === 'string' ? path.split('.') : path) {
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (isObj(cur)) cur = cur[key];
    else return undefined;
  }
  return cur;
}

function deletePath(v: unknown, keys: string[]): void {
  const parent = at(v, keys.slice(0, -1));
  if (isObj(parent)) delete parent[keys[keys.length - 1]!];
}

/** `expected` is in `actual`: every key with the same value, arrays element by element; the server may add defaults. */
function assertContains(actual: unknown, expected: unknown, path: string): void {
  if (isObj(expected)) {
    assert.ok(isObj(actual), `${path}: expected an object, got ${JSON.stringify(actual)}`);
    for (const [k, v] of Object.entries(expected)) assertContains(actual[k], v, `${path}.${k}`);
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual) && actual.length === expected.length, `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
    expected.forEach((e, i) => assertContains(actual[i], e, `${path}.${i}`));
  } else assert.deepEqual(actual, expected, path);
}

/** What a conversion may edit: the spec, the labels and the annotations. */
function userView(o: KubeObject): Obj {
  return { metadata: { labels: o.metadata.labels ?? {}, annotations: o.metadata.annotations ?? {} }, spec: o.spec };
}

/**
 * The view as Go's omitempty sees it (false, {} and [] are unset) less the given paths: the CRDs'
 * defaults (e.g. master's enablePVCReuse: false) then read the same as the fields' absence.
 */
function comparable(o: Obj, drop: string[], annotations: string[]): unknown {
  const copy = structuredClone(o);
  for (const p of drop) deletePath(copy, p.split('.'));
  for (const k of annotations) deletePath(copy, ['metadata', 'annotations', k]);
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (!isObj(v)) return v;
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) {
      const y = strip(x);
      if (y === false || y === undefined || (isObj(y) && Object.keys(y).length === 0) || (Array.isArray(y) && y.length === 0)) continue;
      out[k] = y;
    }
    return out;
  };
  return strip(copy);
}

describe('conversion through the API: Kruise master rows with real kubectl (master CRDs)', { skip: !haveCrds && 'no ../shared/kruise-crds/master', concurrency: 4 }, () => {
  let sb: Sandbox;
  const rows = conversionRows();

  before(async () => {
    // TemplateNoDefaults: Kruise's webhook leaves the templates as written, so the rows' templates stay the rows'.
    sb = await startSandbox({ kruise: 'master', crds: MASTER_CRDS, readyDelay: 50, extraArgs: ['--feature-gates', 'TemplateNoDefaults=true'] });
    for (let i = 0; i < ROUND_TRIPS.length; i++) {
      const r = await sb.api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `conv-${i}` } });
      assert.equal(r.status, 201, r.text);
    }
  });

  after(async () => {
    await sb?.stop();
  });

  async function get(kind: string, group: string, version: string, name: string, ns: string | undefined): Promise<KubeObject> {
    const r = await kubectl(['get', `${PLURALS[kind]}.${version}.${group}`, name, '-o', 'json', ...(ns ? ['-n', ns] : [])], sb.kubeconfig);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as KubeObject;
  }

  // Rows of different kinds run side by side; rows of one kind one after the other (two SidecarSets injecting the same sidecars conflict).
  const kindTurn = new Map<string, Promise<unknown>>();
  ROUND_TRIPS.forEach((pick, i) => {
    const row = rows.find((r) => r.kind === pick.kind && r.test === pick.test && r.name === pick.name) as ConversionRow;
    it(`${pick.kind}: ${pick.test} / ${pick.name}: create at ${row?.direction === 'to-v1alpha1' ? 'v1beta1' : 'v1alpha1'}, read at the other version, write back, read again`, async () => {
      const previous = kindTurn.get(pick.kind) ?? Promise.resolve();
      let done!: () => void;
      kindTurn.set(pick.kind, new Promise<void>((res) => (done = res)));
      await previous;
      try {
        await roundTrip(pick, row, i);
      } finally {
        done();
      }
    });
  });

  async function roundTrip(pick: (typeof ROUND_TRIPS)[number], row: ConversionRow, i: number): Promise<void> {
    assert.ok(row, 'the row is ported');
    const from = row.direction === 'to-v1alpha1' ? 'v1beta1' : 'v1alpha1';
    const to = from === 'v1alpha1' ? 'v1beta1' : 'v1alpha1';
    const source = structuredClone(row[from]!);
    const expected = structuredClone(row[to]!);
    const ns = CLUSTER_SCOPED.has(row.kind) ? undefined : `conv-${i}`;
    const name = `r${i}-${source.metadata.name ?? 'row'}`;
    for (const o of [source, expected]) {
      delete o.status;
      for (const p of pick.omit ?? []) deletePath(o, p.split('.'));
      o.metadata = { ...o.metadata, name, ...(ns ? { namespace: ns } : {}) };
      if (!ns) delete o.metadata.namespace;
      const spec = o.spec as { selector?: { matchLabels?: Record<string, string> }; template?: Obj; scaleStrategy?: Obj } | undefined;
      if (row.kind !== 'CloneSet' && row.kind !== 'DaemonSet') continue;
      // Kruise's webhook refuses a pod template without the selector's labels, and podsToDelete naming no pod (not what converts).
      if (spec?.template && spec.selector?.matchLabels && !at(spec.template, 'metadata.labels')) {
        spec.template.metadata = { ...(isObj(spec.template.metadata) ? spec.template.metadata : {}), labels: { ...spec.selector.matchLabels } };
      }
      delete spec?.scaleStrategy?.podsToDelete;
    }
    const created = await kubectl(['create', '-f', '-'], sb.kubeconfig, { input: JSON.stringify(source) });
    assert.equal(created.code, 0, created.stderr);
    const first = await get(row.kind, row.group, from, name, ns);

    // The other version's view: the row's expected object (spec, labels, annotations) and nothing the conversion moves away.
    // (the server's controllers and defaults may add to it: the sandbox's SidecarSet hashes, CRD defaults).
    const other = await get(row.kind, row.group, to, name, ns);
    assert.equal(other.apiVersion, `${row.group}/${to}`);
    assertContains(userView(other), userView(expected), row.kind);
    const moved = leafPaths(userView(source)).filter((p) => at(userView(expected), p) === undefined && at(userView(other), p) !== undefined);
    assert.deepEqual(moved.map((p) => p.join('.')), [], `fields of ${from} left in ${to}`);

    // Written back as read (kubectl replace keeps resourceVersion): the first version reads the same, but for Kruise's own losses and gains.
    const replaced = await kubectl(['replace', '-f', '-'], sb.kubeconfig, { input: JSON.stringify(other) });
    assert.equal(replaced.code, 0, replaced.stderr);
    const again = await get(row.kind, row.group, from, name, ns);
    assert.deepEqual(comparable(userView(again), pick.lost ?? [], pick.gained ?? []), comparable(userView(first), pick.lost ?? [], pick.gained ?? []));
    for (const p of pick.lost ?? []) {
      assert.notEqual(at(userView(first), p), undefined, `${p} was there before`);
      assert.equal(at(userView(again), p), undefined, `${p} is lost by the round trip, as in Kruise`);
    }
    for (const k of pick.gained ?? []) assert.equal(again.metadata.annotations?.[k], other.metadata.annotations?.[k], `${k} stays in the hub`);
    // Cluster-scoped rows share one space (two SidecarSets injecting the same sidecars conflict).
    if (!ns) assert.equal((await kubectl(['delete', `${PLURALS[row.kind]}.${row.group}`, name], sb.kubeconfig)).code, 0);
  }

  it('a conversion Kruise refuses is kube-apiserver\'s 500 for a failed conversion webhook, on write (PUB "DELETE,BOGUS") and on read (AdvancedCronJob with an ImageListPullJob template at v1alpha1)', async () => {
    const pub = rows.find((r) => r.kind === 'PodUnavailableBudget' && r.error && /DELETE,BOGUS/.test(r.name))!;
    const bad = await kubectl(['create', '-f', '-'], sb.kubeconfig, { input: JSON.stringify({ ...pub.v1alpha1, metadata: { ...pub.v1alpha1!.metadata, namespace: 'default' } }) });
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr.trim(), 'Error from server: error when creating "STDIN": conversion webhook for policy.kruise.io/v1alpha1, Kind=PodUnavailableBudget failed: invalid kruise.io/pub-protect-operations value "BOGUS"');
    const none = await kubectl(['get', 'podunavailablebudgets', '-n', 'default', '-o', 'name'], sb.kubeconfig);
    assert.equal(none.stdout, '', 'nothing stored');

    const acj = rows.find((r) => r.kind === 'AdvancedCronJob' && r.error)!;
    const created = await kubectl(['create', '-f', '-'], sb.kubeconfig, { input: JSON.stringify(acj.v1beta1) });
    assert.equal(created.code, 0, created.stderr);
    const asBeta = await kubectl(['get', 'advancedcronjobs.v1beta1.apps.kruise.io', 'pull-nightly', '-o', 'jsonpath={.spec.template.imageListPullJobTemplate.spec.images[0]}'], sb.kubeconfig);
    assert.equal(asBeta.stdout, 'nginx:1.25', asBeta.stderr);
    for (const args of [['get', 'advancedcronjobs.v1alpha1.apps.kruise.io', 'pull-nightly'], ['get', 'advancedcronjobs.v1alpha1.apps.kruise.io']]) {
      const r = await kubectl(args, sb.kubeconfig);
      assert.equal(r.code, 1, r.stdout);
      assert.equal(r.stderr.trim(), 'Error from server: conversion webhook for apps.kruise.io/v1beta1, Kind=AdvancedCronJob failed: imageListPullJobTemplate is not supported in v1alpha1');
    }
  });
});
