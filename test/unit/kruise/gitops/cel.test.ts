// The Flux health expressions (CEL) we generate, judged against our gate (the oracle) with a
// conformant CEL implementation (@bufbuild/cel, evaluated the way kustomize-controller does:
// test/helpers/cel.ts): every fixture, the exported example states and seeded random objects must
// get the Flux status our gate's verdict maps to (Healthy → Current, Degraded → Failed,
// Progressing/Suspended → InProgress). A difference is a failure, listed with the object. Every kind
// of HEALTH_KINDS is judged: the workloads and the Rollout against their gate verdicts, the six
// other kinds against their `gate` there (the rules their Lua is tested against), over the random
// objects lua-random.test.ts uses (test/helpers/random-objects.ts, the same seeds). A UnitedDeployment's
// allocation is also judged at its partitions, and where the CEL cannot know its pods kept old the
// difference from the gate is listed and asserted (cel/uniteddeployment.ts).
// Two places where Flux decides before our expressions (flux.ts) are shown, not hidden: an object
// without `status` (the expressions error; Flux keeps polling), and Flux's own generation check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { rolloutHealth, workloadHealth } from '../../../../src/kruise/gitops/health';
import { HEALTH_KINDS } from '../../../../src/kruise/gitops/argocd';
import { fluxHealthCheck } from '../../../../src/kruise/gitops/flux';
import { MAX_SUBSETS, UNITED_DEPLOYMENT_FLUX } from '../../../../src/kruise/gitops/cel/uniteddeployment';
import { unitedDeploymentAdapter } from '../../../../src/kruise/workloads/uniteddeployment';
import { ADVANCED_CRONJOB_FLUX, BROADCASTJOB_FLUX, CONTAINER_RECREATE_REQUEST_FLUX, IMAGEPULLJOB_FLUX, SIDECARSET_FLUX } from '../../../../src/kruise/gitops/cel/jobs';
import { ADVANCED_DAEMONSET_FLUX, ADVANCED_STATEFULSET_FLUX, CLONESET_FLUX } from '../../../../src/kruise/gitops/cel/kinds';
import { ROLLOUT_FLUX } from '../../../../src/kruise/gitops/cel/rollout';
import type { FluxExpressions } from '../../../../src/kruise/gitops/cel/prelude';
import { ADVANCED_DAEMONSET_STATES, ADVANCED_STATEFULSET_STATES, CLONESET_STATES, ROLLOUT_STATES, type HealthState } from '../../../../src/kruise/gitops/states';
import type { KubeObject } from '../../../../src/kruise/types';
import { evalBool, exprStatus, fluxStatus, fluxStatusOfHealth, type FluxStatus } from '../../../helpers/cel';
import { FIXTURES, fixtureObjects } from '../../../helpers/fixture-objects';
import { compact, COUNT, maker, randomKruiseObjects, randomRollouts, randomWorkloads } from '../../../helpers/random-objects';

const NOW = Date.parse('2026-11-29T00:00:00Z');

interface Kind {
  kind: string;
  group: string;
  exprs: FluxExpressions;
  oracle: (o: KubeObject, now: number) => string;
  states: readonly HealthState[];
  random: () => KubeObject[];
  minFixtures: number;
}

const KINDS: readonly Kind[] = [
  { kind: 'CloneSet', group: 'apps.kruise.io', exprs: CLONESET_FLUX, oracle: workloadHealth, states: CLONESET_STATES, random: () => randomWorkloads('CloneSet', 1), minFixtures: 40 },
  { kind: 'StatefulSet', group: 'apps.kruise.io', exprs: ADVANCED_STATEFULSET_FLUX, oracle: workloadHealth, states: ADVANCED_STATEFULSET_STATES, random: () => randomWorkloads('StatefulSet', 2), minFixtures: 15 },
  { kind: 'DaemonSet', group: 'apps.kruise.io', exprs: ADVANCED_DAEMONSET_FLUX, oracle: workloadHealth, states: ADVANCED_DAEMONSET_STATES, random: () => randomWorkloads('DaemonSet', 3), minFixtures: 10 },
  { kind: 'Rollout', group: 'rollouts.kruise.io', exprs: ROLLOUT_FLUX, oracle: rolloutHealth, states: ROLLOUT_STATES, random: () => randomRollouts(4), minFixtures: 30 },
  // The other kinds against their `gate` in HEALTH_KINDS, over the random objects lua-random.test.ts uses (same seeds).
  other('SidecarSet', SIDECARSET_FLUX, 5, 8),
  other('UnitedDeployment', UNITED_DEPLOYMENT_FLUX, 14, 6),
  other('BroadcastJob', BROADCASTJOB_FLUX, 6, 3),
  other('AdvancedCronJob', ADVANCED_CRONJOB_FLUX, 7, 3),
  other('ImagePullJob', IMAGEPULLJOB_FLUX, 8, 5),
  other('ContainerRecreateRequest', CONTAINER_RECREATE_REQUEST_FLUX, 9, 2),
];

test('every kind export writes for Argo CD has Flux expressions, and this test judges each', () => {
  const key = (k: { group: string; kind: string }): string => `${k.group}/${k.kind}`;
  assert.deepEqual(KINDS.map(key).sort(), HEALTH_KINDS.map(key).sort());
  for (const h of HEALTH_KINDS) assert.doesNotThrow(() => fluxHealthCheck(h), h.kind);
});

function other(kind: string, exprs: FluxExpressions, seed: number, minFixtures: number): Kind {
  const h = HEALTH_KINDS.find((x) => x.group === 'apps.kruise.io' && x.kind === kind)!;
  return { kind, group: h.group, exprs, oracle: h.gate, states: h.states, random: () => randomKruiseObjects(kind, seed), minFixtures };
}

function fixtures(k: Kind): Array<{ where: string; obj: KubeObject }> {
  const all = fixtureObjects(k.kind, k.group);
  return k.kind === 'Rollout' ? all.filter((c) => /^rollouts\.kruise\.io\/v1(alpha|beta)1$/.test(c.obj.apiVersion ?? '')) : all;
}

function differences(k: Kind, cases: ReadonlyArray<{ where: string; obj: KubeObject }>, judge: (obj: KubeObject) => FluxStatus) {
  return cases
    .map((c) => ({ where: c.where, gate: k.oracle(c.obj, NOW), want: fluxStatusOfHealth(k.oracle(c.obj, NOW)), got: judge(c.obj), obj: JSON.stringify(c.obj) }))
    .filter((d) => d.want !== d.got);
}

const hasStatus = (o: KubeObject): boolean => (o as { status?: unknown }).status !== undefined;

for (const k of KINDS) {
  test(`${k.kind}: every fixture with a status gets from the CEL the Flux status our gate maps to; one without a status errors (Flux keeps polling)`, () => {
    const cases = fixtures(k);
    assert.ok(cases.length >= k.minFixtures, `fixtures found: ${cases.length}`);
    const withStatus = cases.filter((c) => hasStatus(c.obj));
    assert.deepEqual(differences(k, withStatus, (o) => exprStatus(k.exprs, o)), []);
    // The approximation, shown: CEL cannot test for a missing top-level field, so a manifest that
    // no controller has seen yet errors, which Flux treats as not ready yet and polls again.
    const without = cases.filter((c) => !hasStatus(c.obj));
    assert.deepEqual(without.map((c) => [c.where, exprStatus(k.exprs, c.obj)]), without.map((c) => [c.where, 'Error']));
  });

  test(`${k.kind}: ${COUNT} random objects, the CEL and the gate agree; Flux's generation check differs only for an observedGeneration ahead of generation`, () => {
    // Without a status the expressions error (Flux keeps polling; shown with the fixtures): judged on the others.
    const objects = k.random().map((obj, i) => ({ where: `#${i}`, obj })).filter((c) => hasStatus(c.obj));
    assert.ok(objects.length >= COUNT * 0.9, `objects with a status: ${objects.length}`);
    assert.deepEqual(differences(k, objects, (o) => exprStatus(k.exprs, o)).slice(0, 3), []);
    // The generator reaches two or three of them per kind (no Advanced DaemonSet with a deadline condition).
    const got = new Set(objects.map((c) => exprStatus(k.exprs, c.obj)));
    assert.ok(got.size >= 2 && !got.has('Error'), `the objects reach several Flux statuses: ${[...got].join(', ')}`);
    // With Flux's pre-check (observedGeneration ≠ generation → InProgress) in front.
    const ahead = (o: KubeObject): boolean => Number((o.status as { observedGeneration?: number } | undefined)?.observedGeneration) > Number(o.metadata?.generation);
    const flux = differences(k, objects, (o) => fluxStatus(k.exprs, o));
    assert.deepEqual(flux.filter((d) => !ahead(JSON.parse(d.obj) as KubeObject)).slice(0, 3), []);
    for (const d of flux) assert.equal(d.got, 'InProgress', d.obj);
  });

  test(`${k.kind}: the example states export writes get their status from the CEL`, () => {
    assert.deepEqual(
      k.states.map((s) => [s.name, exprStatus(k.exprs, s.object)]),
      k.states.map((s) => [s.name, fluxStatusOfHealth(s.status)]),
    );
  });
}

test('Argo CD\'s defects (updated-but-unavailable CloneSet, v1beta1 paths, blue-green status, cancelled): the CEL gets them right too', () => {
  const files: Array<[string, FluxStatus]> = [
    ['cloneset-updated-not-available.yaml', 'InProgress'],
    ['cloneset-v1beta1-partition-done.yaml', 'Current'],
    ['cloneset-v1beta1-paused.yaml', 'InProgress'],
    ['cloneset-old-kruise-done.yaml', 'Current'],
    ['rollout-canary-timed-pause.yaml', 'InProgress'],
    ['rollout-bluegreen-approval.yaml', 'InProgress'],
    ['rollout-cancelled.yaml', 'Failed'],
  ];
  for (const [file, want] of files) {
    const obj = parse(readFileSync(join(FIXTURES, 'gitops/argocd', file), 'utf8')) as KubeObject;
    const exprs = obj.kind === 'Rollout' ? ROLLOUT_FLUX : CLONESET_FLUX;
    assert.deepEqual([file, fluxStatus(exprs, obj)], [file, want]);
  }
});

test('the comparison can fail: a current expression that calls Progressing current disagrees with the gate', () => {
  const wrong = { ...CLONESET_FLUX, inProgress: `(${CLONESET_FLUX.inProgress}) && false`, current: CLONESET_FLUX.current.replace(/== 'Healthy'$/, "in ['Healthy', 'Progressing']") };
  assert.notEqual(wrong.current, CLONESET_FLUX.current);
  const k = KINDS[0]!;
  const objects = k.random().slice(0, 200).map((obj, i) => ({ where: `#${i}`, obj }));
  assert.ok(differences(k, objects, (o) => exprStatus(wrong, o)).length > 0);
});

test('every expression is a boolean that cel-go will take: under its 100,000 code point limit, shallow nesting, no error on a bare object', () => {
  const bare = (k: Kind) => ({ apiVersion: `${k.group}/v1beta1`, kind: k.kind, metadata: { name: 'x' }, spec: {}, status: {} });
  for (const k of KINDS) {
    for (const [name, expr] of Object.entries(k.exprs)) {
      assert.ok(expr.length < 100_000, `${k.kind}.${name}: ${expr.length} code points`);
      let depth = 0;
      let max = 0;
      for (const ch of expr) {
        if ('([{'.includes(ch)) max = Math.max(max, ++depth);
        else if (')]}'.includes(ch)) depth--;
      }
      // cel-go's parser stops at a recursion depth of 250; a bracket level costs it a few.
      assert.ok(max <= 40, `${k.kind}.${name}: nesting ${max}`);
      assert.equal(typeof evalBool(expr, bare(k)), 'boolean', `${k.kind}.${name}: ${String(evalBool(expr, bare(k)))}`);
    }
  }
});

test('partitions as Kruise reads them (CloneSet: decimal percentages rounded up, signs, exponents; Advanced DaemonSet: whole percentages rounded down; unreadable values), CEL and gate alike', () => {
  const partitions: unknown[] = ['+.5%', '1.%', '1e1%', '1E+1%', '-5%', '0%', '.5%', '12.5%', '99.99%', '100%', '150%', '5', '%', '.%', '50 %', 'x%', 3, 0, -2, 2.5, true];
  const differ: unknown[] = [];
  let count = 0;
  for (const partition of partitions) {
    for (const replicas of [1, 4, 5, 10]) {
      for (const updated of [0, 1, 3, 5, 9, 10]) {
        const counts = { observedGeneration: 1, updateRevision: 'w-b', currentRevision: 'w-a' };
        const objects: Array<[FluxExpressions, KubeObject]> = [
          [CLONESET_FLUX, { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'w', generation: 1 }, spec: { replicas, updateStrategy: { partition } }, status: { ...counts, replicas, readyReplicas: replicas, availableReplicas: replicas, updatedReplicas: updated, updatedReadyReplicas: updated, updatedAvailableReplicas: updated } }],
          [CLONESET_FLUX, { apiVersion: 'apps.kruise.io/v1beta1', kind: 'CloneSet', metadata: { name: 'w', generation: 1 }, spec: { replicas, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition } } }, status: { ...counts, replicas, readyReplicas: replicas, availableReplicas: replicas, updatedReplicas: updated } }],
          [ADVANCED_DAEMONSET_FLUX, { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'DaemonSet', metadata: { name: 'w', generation: 1 }, spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition } } }, status: { observedGeneration: 1, desiredNumberScheduled: replicas, currentNumberScheduled: replicas, numberReady: replicas, numberAvailable: replicas, updatedNumberScheduled: updated } }],
        ];
        for (const [exprs, obj] of objects) {
          count++;
          const want = fluxStatusOfHealth(workloadHealth(obj, NOW));
          const got = exprStatus(exprs, obj);
          if (want !== got) differ.push({ want, got, obj });
        }
      }
    }
  }
  assert.ok(count > 1000);
  assert.deepEqual(differ.slice(0, 3), []);
});

/** A UnitedDeployment whose status is exactly at the pods our gate keeps old (or one pod short of it), every count ready. */
function udAtPartition(spec: Record<string, unknown>, status: Record<string, unknown>, short: boolean, apiVersion = 'apps.kruise.io/v1alpha1'): KubeObject {
  const obj: KubeObject = { apiVersion, kind: 'UnitedDeployment', metadata: { name: 'ud', generation: 1 }, spec, status };
  const desired = typeof spec.replicas === 'number' ? spec.replicas : 0;
  const updated = desired - (unitedDeploymentAdapter.partitionReplicas(obj) ?? 0) - (short ? 1 : 0);
  obj.status = { ...status, observedGeneration: 1, replicas: desired, readyReplicas: desired, updatedReplicas: updated, updatedReadyReplicas: updated, currentRevision: 'ud-a', updateStatus: { updatedRevision: 'ud-b' } };
  return obj;
}

test('UnitedDeployment: Kruise\'s allocation decides the pods kept old (specified counts and percentages, the rest shared with the remainder in name order, min/max in order), CEL and gate alike', () => {
  const { int, pick, maybe } = maker(21);
  const cases: Array<{ where: string; obj: KubeObject }> = [];
  for (let i = 0; i < 500; i++) {
    const names = pick([['a', 'b', 'c'], ['c', 'a', 'b'], ['b', 'c'], ['d', 'b', 'a', 'c'], ['zone-2', 'zone-10', 'zone-1']]);
    const minMax = int(3) === 0;
    const subsets = names.map((name) =>
      minMax
        ? compact({ name, minReplicas: maybe(pick<unknown>([int(3), `${pick([10, 34, 50])}%`]), 0.6), maxReplicas: maybe(pick<unknown>([1 + int(4), `${pick([50, 100])}%`]), 0.5) })
        : compact({ name, replicas: maybe(pick<unknown>([int(3), `${pick([0, 20, 34, 50])}%`]), 0.4) }),
    );
    // Partitions above some subsets' replicas, so that the allocation's cap decides.
    const partitions = Object.fromEntries(names.map((n) => [n, 1 + int(3)]));
    const spec = { replicas: 2 + int(9), topology: { subsets }, template: { [pick(['cloneSetTemplate', 'advancedStatefulSetTemplate'])]: { spec: {} } }, updateStrategy: { manualUpdate: { partitions } } };
    cases.push({ where: `#${i}`, obj: udAtPartition(spec, {}, int(4) === 0) });
  }
  const k = KINDS.find((x) => x.kind === 'UnitedDeployment')!;
  assert.deepEqual(differences(k, cases, (o) => exprStatus(k.exprs, o)).slice(0, 3), []);
  // Most are done at their partitions: the kept pods are what decide.
  const done = cases.filter((c) => k.oracle(c.obj, NOW) === 'Healthy' && (c.obj.status as { updatedReplicas: number }).updatedReplicas < (c.obj.spec as { replicas: number }).replicas);
  assert.ok(done.length >= 250, `done at a partition: ${done.length}`);
});

test(`UnitedDeployment: where the CEL cannot know the pods kept old (more than ${MAX_SUBSETS} subsets; an allocation over repeated names or a nameless subset) it counts none: never Current where the gate is not, InProgress where the gate is done at a partition`, () => {
  const many = Array.from({ length: MAX_SUBSETS + 1 }, (_, i) => `z${i}`);
  const cases: Array<{ where: string; obj: KubeObject }> = [];
  for (const short of [false, true]) {
    for (const partition of [0, 1, 2]) {
      const parts = (names: string[]) => ({ manualUpdate: { partitions: Object.fromEntries(names.map((n) => [n, partition])) } });
      const big = { replicas: 34, topology: { subsets: many.map((name) => ({ name })) }, template: { cloneSetTemplate: { spec: {} } }, updateStrategy: parts(many) };
      cases.push({ where: `${many.length} subsets, partition ${partition}${short ? ', one short' : ''}`, obj: udAtPartition(big, { subsetReplicas: Object.fromEntries(many.map((n) => [n, 2])) }, short) });
      const dup = { replicas: 6, topology: { subsets: [{ name: 'a' }, { name: 'a', replicas: 1 }, { name: 'b' }] }, template: { cloneSetTemplate: { spec: {} } }, updateStrategy: parts(['a', 'b']) };
      cases.push({ where: `repeated names, partition ${partition}${short ? ', one short' : ''}`, obj: udAtPartition(dup, {}, short) });
      const nameless = { replicas: 6, topology: { subsets: [{ name: 'a' }, {}, { name: 'b' }] }, template: { cloneSetTemplate: { spec: {} } }, updateStrategy: parts(['a', 'b']) };
      cases.push({ where: `a subset without a name, partition ${partition}${short ? ', one short' : ''}`, obj: udAtPartition(nameless, {}, short) });
    }
  }
  const k = KINDS.find((x) => x.kind === 'UnitedDeployment')!;
  const rows = cases.map((c) => ({ where: c.where, gate: fluxStatusOfHealth(k.oracle(c.obj, NOW)), cel: exprStatus(k.exprs, c.obj) }));
  for (const r of rows) {
    if (r.gate === r.cel) continue;
    assert.deepEqual([r.where, r.gate, r.cel], [r.where, 'Current', 'InProgress'], 'the only difference: done at a partition, not recognised');
  }
  // The difference is real (shown, not hidden): at partitions 1 and 2, not short, the gate says done.
  assert.deepEqual(rows.filter((r) => r.gate !== r.cel).map((r) => r.where), [
    `${many.length} subsets, partition 1`, 'repeated names, partition 1', 'a subset without a name, partition 1',
    `${many.length} subsets, partition 2`, 'repeated names, partition 2', 'a subset without a name, partition 2',
  ]);
  // At partition 0 every pod is updated: Current from both.
  assert.ok(rows.filter((r) => r.where.endsWith('partition 0')).every((r) => r.cel === 'Current'));
});
