// Beyond the fixtures: seeded random objects (statuses halfway, odd partitions, both versions, every
// step state) through the generated Lua in lua5.1 and through our gate; any difference is a failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateRollout } from '../../../../src/kruise/progress';
import { rolloutHealth, workloadHealth } from '../../../../src/kruise/gitops/health';
import { CLONESET_HEALTH_LUA } from '../../../../src/kruise/gitops/lua/cloneset';
import { ADVANCED_STATEFULSET_HEALTH_LUA } from '../../../../src/kruise/gitops/lua/advanced-statefulset';
import { ADVANCED_DAEMONSET_HEALTH_LUA } from '../../../../src/kruise/gitops/lua/advanced-daemonset';
import { ROLLOUT_HEALTH_LUA } from '../../../../src/kruise/gitops/lua/rollout';
import { compact, COUNT, maker, r01, randomKruiseObjects, randomRollouts, randomWorkloads } from '../../../helpers/random-objects';
import type { KubeObject } from '../../../../src/kruise/types';
import { runHealthScript, runLuaAction, runLuaScript } from '../../../helpers/lua';
import { readRollout } from '../../../../src/kruise/rollout/read';
import { approvedRollout, HEALTH_KINDS, jumpedRollout, jumpOffered, undoFastOffered, undoneFastRollout } from '../../../../src/kruise/gitops/argocd';
import { approvePatch } from '../../../../src/kruise/rollout/patches';
import { ROLLOUT_ACTIONS } from '../../../../src/kruise/gitops/lua/actions';
import { cloneSetAdapter } from '../../../../src/kruise/workloads/cloneset';
import { advancedStatefulSetAdapter } from '../../../../src/kruise/workloads/advanced-statefulset';
import { advancedDaemonSetAdapter } from '../../../../src/kruise/workloads/advanced-daemonset';

const NOW = Date.parse('2026-11-29T00:00:00Z');

for (const [kind, lua, seed] of [['CloneSet', CLONESET_HEALTH_LUA, 1], ['StatefulSet', ADVANCED_STATEFULSET_HEALTH_LUA, 2], ['DaemonSet', ADVANCED_DAEMONSET_HEALTH_LUA, 3]] as const) {
  test(`${kind}: ${COUNT} random objects, Lua and gate agree`, () => {
    const objects = randomWorkloads(kind, seed);
    const got = runHealthScript(lua, objects);
    const differences = objects
      .map((o, i) => ({ i, gate: evaluateRollout(o, [], NOW).state, want: workloadHealth(o, NOW), got: got[i]!.status, obj: JSON.stringify(o) }))
      .filter((d) => d.want !== d.got);
    assert.deepEqual(differences.slice(0, 3), []);
    assert.ok(new Set(got.map((g) => g.status)).size >= 3, 'the objects reach several statuses');
  });
}

test(`Rollout: ${COUNT} random objects, Lua and gate agree`, () => {
  const objects = randomRollouts(4);
  const got = runHealthScript(ROLLOUT_HEALTH_LUA, objects);
  const differences = objects.map((o, i) => ({ i, want: rolloutHealth(o, NOW), got: got[i]!.status, obj: JSON.stringify(o) })).filter((d) => d.want !== d.got);
  assert.deepEqual(differences.slice(0, 3), []);
  assert.ok(new Set(got.map((g) => g.status)).size >= 4, 'the objects reach several statuses');
});

for (const [kind, seed] of [['SidecarSet', 5], ['UnitedDeployment', 14], ['BroadcastJob', 6], ['AdvancedCronJob', 7], ['ImagePullJob', 8], ['ContainerRecreateRequest', 9]] as const) {
  test(`${kind}: ${COUNT} random objects, Lua and our rule agree`, () => {
    const k = HEALTH_KINDS.find((h) => h.kind === kind)!;
    const objects = randomKruiseObjects(kind, seed);
    const got = runHealthScript(k.lua, objects);
    const differences = objects.map((o, i) => ({ i, want: k.gate(o, NOW), got: got[i]!.status, obj: JSON.stringify(o) })).filter((d) => d.want !== d.got);
    assert.deepEqual(differences.slice(0, 3), []);
    assert.ok(new Set(got.map((g) => g.status)).size >= 2, 'the objects reach several statuses');
    if (kind === 'UnitedDeployment') assert.ok(got.filter((g) => /kept at the old revision by the partition/.test(g.message)).length >= 40, 'many objects are done at a partition');
  });
}

test(`Rollout: ${COUNT} random objects, action approve and discovery agree with rollout approve`, () => {
  const objects = randomRollouts(10);
  const offered = objects.map((o) => approvePatch(o).patch !== undefined);
  assert.ok(offered.filter(Boolean).length >= 20, 'some wait for approval');
  const discovered = runLuaScript(ROLLOUT_ACTIONS.discovery, objects) as Array<Record<string, { disabled: boolean }>>;
  assert.deepEqual(discovered.map((d) => !d.approve!.disabled), offered);
  const got = runLuaScript(ROLLOUT_ACTIONS.actions.find((a) => a.name === 'approve')!.lua, objects);
  const differences = objects.map((o, i) => ({ i, want: JSON.stringify(luaShaped(approvedRollout(o))), got: JSON.stringify(got[i]) })).filter((d) => d.want !== d.got);
  assert.deepEqual(differences.slice(0, 3), []);
});

/** A Lua table cannot tell an empty list from an empty map: compare with empty lists as maps. */
function luaShaped(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? {} : value.map(luaShaped);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, luaShaped(v)]));
  }
  return value;
}

for (const [kind, seed] of [['CloneSet', 11], ['StatefulSet', 12], ['DaemonSet', 13]] as const) {
  test(`${kind}: ${COUNT} random update strategies, action restart offered exactly when rollout restart writes the template annotation`, () => {
    const { pick, maybe } = maker(seed);
    const k = HEALTH_KINDS.find((h) => h.group === 'apps.kruise.io' && h.kind === kind)!;
    const adapter = { CloneSet: cloneSetAdapter, StatefulSet: advancedStatefulSetAdapter, DaemonSet: advancedDaemonSetAdapter }[kind];
    const policies = ['ReCreate', 'InPlaceIfPossible', 'InPlaceOnly', 'Standard', 'Surging', 'x'];
    const objects = Array.from({ length: COUNT }, (_, i) => {
      const rolling = { paused: maybe(pick<unknown>([true, false, 'true']), 0.4), podUpdatePolicy: maybe(pick(policies), 0.6), rollingUpdateType: maybe(pick(policies), 0.6) };
      const type = maybe(pick(['ReCreate', 'InPlaceIfPossible', 'InPlaceOnly', 'RollingUpdate', 'OnDelete']), 0.8);
      return compact({ apiVersion: `apps.kruise.io/${pick(['v1alpha1', 'v1beta1', 'v1'])}`, kind, metadata: { name: `w${i}` }, spec: { updateStrategy: maybe({ type, ...rolling, rollingUpdate: maybe(rolling, 0.8) }, 0.9) } }) as KubeObject;
    });
    const offered = objects.map((o) => k.actions!.restartOffered!(o));
    assert.ok(offered.some(Boolean) && offered.some((x) => !x));
    const discovered = runLuaScript(k.actions!.lua.discovery, objects) as Array<Record<string, { disabled: boolean }>>;
    const differences = objects.map((o, i) => ({ i, want: offered[i], got: !discovered[i]!.restart!.disabled, obj: JSON.stringify(o), policy: adapter.updatePolicy(o) })).filter((d) => d.want !== d.got);
    assert.deepEqual(differences.slice(0, 3), []);
  });
}

/** Rollouts in a release with every shape a step jump decides on: nextStepIndex natural, under way, absent; odd traffic and replicas. */
function randomJumpRollouts(seed: number): KubeObject[] {
  const { int, pick, maybe } = maker(seed);
  return Array.from({ length: COUNT }, (_, i) => {
    const v1beta1 = r01(int);
    const blueGreen = v1beta1 && int(2) === 0;
    const count = pick([0, 1, 2, 3, 3, 4, 4, 5, 5]);
    const within = () => 2 + int(Math.max(count - 2, 0));
    const steps = Array.from({ length: count }, () =>
      compact(
        v1beta1
          ? { replicas: maybe(pick<unknown>([1, 2, 3, 5, '20%', '50%', '100%', '050%', '+30%', '-10%', '0%', 'x', '5', '%', '5%%', 1.5])), traffic: maybe(pick(['0%', '00%', '+0%', '-0%', '20%', '100%', 'x', '5', '1.5%', '%']), 0.3) }
          : { weight: maybe(pick([0, 20, 50, 100, 1.5]), 0.4), replicas: maybe(pick<unknown>([1, 2, '50%', 'x']), 0.6) },
      ),
    );
    // Mostly a step of the release, sometimes none, 0 or past the last.
    const current = maybe(pick([within(), within(), within(), within(), within(), within(), within(), 1, 0, count + 1]), 0.97);
    const natural = (current ?? 0) >= count ? -1 : (current ?? 0) + 1;
    const sub = maybe(
      {
        currentStepIndex: current,
        currentStepState: maybe(pick(['StepInit', 'StepUpgrade', 'StepTrafficRouting', 'StepPaused', 'StepPaused', 'StepReady', 'Completed', '']), 0.9),
        nextStepIndex: maybe(pick([natural, natural, natural, natural, natural, -1, 0, 1 + int(count + 1)]), 0.9),
        canaryReplicas: 1,
      },
      0.9,
    );
    const progressing = maybe({ type: 'Progressing', status: 'True', reason: maybe(pick(['InRolling', 'InRolling', 'InRolling', 'Paused', 'Finalising', 'Cancelling', 'Initializing', '']), 0.95) }, 0.95);
    return compact({
      apiVersion: v1beta1 ? 'rollouts.kruise.io/v1beta1' : 'rollouts.kruise.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: `j${i}`, namespace: 'default', generation: 1 },
      spec: { strategy: { [blueGreen ? 'blueGreen' : 'canary']: { steps } } },
      status: { phase: maybe(pick(['Progressing', 'Progressing', 'Progressing', 'Progressing', 'Progressing', 'Healthy', '']), 0.95), [blueGreen ? 'blueGreenStatus' : 'canaryStatus']: sub, conditions: [progressing].filter(Boolean) },
    }) as KubeObject;
  });
}

const outcomeOf = (r: KubeObject | string) => (typeof r === 'string' ? { error: r } : { result: luaShaped(r) });

test(`Rollout: ${COUNT} random releases, actions undo-fast and jump and their discovery agree with rollout undo --fast and rollout jump`, () => {
  const objects = randomJumpRollouts(15);
  const undoOffered = objects.map(undoFastOffered);
  const jumpOffers = objects.map(jumpOffered);
  assert.ok(undoOffered.filter(Boolean).length >= 40, `undo --fast writes on some: ${undoOffered.filter(Boolean).length}`);
  assert.ok(jumpOffers.filter(Boolean).length >= 80, `jump writes on some: ${jumpOffers.filter(Boolean).length}`);
  // The steps undo --fast picks among several candidates (the most pods, ties to the later step), not only the step before.
  const picked = objects.map((o) => (undoFastOffered(o) ? [(undoneFastRollout(o) as any).status, readRollout(o).status.currentStepIndex] : undefined)).filter(Boolean) as Array<[any, number]>;
  assert.ok(picked.some(([s, current]) => (s.canaryStatus ?? s.blueGreenStatus).nextStepIndex < current - 1), 'some go back more than one step');
  const discovered = runLuaAction(ROLLOUT_ACTIONS.discovery, objects) as Array<{ result: Record<string, { disabled: boolean }> }>;
  const differences = objects
    .map((o, i) => ({ i, want: [undoOffered[i], jumpOffers[i]], got: [!discovered[i]!.result['undo-fast']!.disabled, !discovered[i]!.result.jump!.disabled], obj: JSON.stringify(o) }))
    .filter((d) => d.want[0] !== d.got[0] || d.want[1] !== d.got[1]);
  assert.deepEqual(differences.slice(0, 3), []);
  const undo = runLuaAction(ROLLOUT_ACTIONS.actions.find((a) => a.name === 'undo-fast')!.lua, objects);
  const undoDiffs = objects.map((o, i) => ({ i, want: JSON.stringify(outcomeOf(undoneFastRollout(o))), got: JSON.stringify(undo[i]), obj: JSON.stringify(o) })).filter((d) => d.want !== d.got);
  assert.deepEqual(undoDiffs.slice(0, 3), []);
  const jump = ROLLOUT_ACTIONS.actions.find((a) => a.name === 'jump')!;
  for (const step of ['1', '2', '3', '5']) {
    const got = runLuaAction(jump.lua, objects, { step });
    const diffs = objects.map((o, i) => ({ i, step, want: JSON.stringify(outcomeOf(jumpedRollout(o, step))), got: JSON.stringify(got[i]), obj: JSON.stringify(o) })).filter((d) => d.want !== d.got);
    assert.deepEqual(diffs.slice(0, 3), []);
  }
});
