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
import { runHealthScript } from '../../../helpers/lua';
import { COUNT, randomRollouts, randomWorkloads } from '../../../helpers/random-objects';

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
