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
import { compact, COUNT, maker, randomKruiseObjects, randomRollouts, randomWorkloads } from '../../../helpers/random-objects';
import type { KubeObject } from '../../../../src/kruise/types';
import { runHealthScript, runLuaScript } from '../../../helpers/lua';
import { approvedRollout, HEALTH_KINDS } from '../../../../src/kruise/gitops/argocd';
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
