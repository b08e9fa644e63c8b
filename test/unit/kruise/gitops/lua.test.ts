// The Argo CD health scripts we generate are judged against our gate (the oracle): every CloneSet
// and Kruise Rollout fixture of the repository, run in real lua5.1, must get the status our gate's
// verdict maps to. A difference is a failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { FIXTURES, fixtureObjects } from '../../../helpers/fixture-objects';
import { evaluateRollout } from '../../../../src/kruise/progress';
import { cloneSetHealth, rolloutHealth, workloadHealth } from '../../../../src/kruise/gitops/health';
import { ADVANCED_STATEFULSET_HEALTH_LUA } from '../../../../src/kruise/gitops/lua/advanced-statefulset';
import { ADVANCED_DAEMONSET_HEALTH_LUA } from '../../../../src/kruise/gitops/lua/advanced-daemonset';
import { advancedStatefulSetAdapter } from '../../../../src/kruise/workloads/advanced-statefulset';
import { evaluateRolloutRelease } from '../../../../src/kruise/rollout/gate';
import { ROLLOUT_HEALTH_LUA } from '../../../../src/kruise/gitops/lua/rollout';
import { CLONESET_HEALTH_LUA } from '../../../../src/kruise/gitops/lua/cloneset';
import type { KubeObject } from '../../../../src/kruise/types';
import { runHealthScript, runLuaAction, runLuaScript } from '../../../helpers/lua';
import { parseToStep } from '../../../../src/commands/rollout/jump';
import { ADVANCED_DAEMONSET_ACTIONS, ADVANCED_STATEFULSET_ACTIONS, CLONESET_ACTIONS, ROLLOUT_ACTIONS, SIDECARSET_ACTIONS } from '../../../../src/kruise/gitops/lua/actions';
import { approvedRollout, HEALTH_KINDS, jumpedRollout, jumpOffered, restartsThroughTemplate, undoFastOffered, undoneFastRollout } from '../../../../src/kruise/gitops/argocd';
import { restartPatch } from '../../../../src/commands/rollout/restart-patch';
import { approvePatch } from '../../../../src/kruise/rollout/patches';
import { advancedCronJobHealth, containerRecreateRequestHealth, imagePullJobHealth } from '../../../../src/kruise/gitops/health';
import { readSidecarSet, sidecarSetPausePatch } from '../../../../src/kruise/workloads/sidecarset';
import { advancedDaemonSetAdapter } from '../../../../src/kruise/workloads/advanced-daemonset';
import { cloneSetAdapter } from '../../../../src/kruise/workloads/cloneset';
import { readRollout } from '../../../../src/kruise/rollout/read';
import { mergePatch } from '../../../../src/lib/json-patch';
import { ADVANCED_DAEMONSET_STATES, ADVANCED_STATEFULSET_STATES, CLONESET_STATES, ROLLOUT_STATES } from '../../../../src/kruise/gitops/states';

const NOW = Date.parse('2026-11-29T00:00:00Z');

test('CloneSet (v1alpha1 and v1beta1): the generated Lua gives every fixture the status our gate maps to', () => {
  const cases = fixtureObjects('CloneSet', 'apps.kruise.io');
  assert.ok(cases.length >= 40, `fixtures found: ${cases.length}`);
  assert.ok(cases.some((c) => c.obj.apiVersion === 'apps.kruise.io/v1beta1'), 'v1beta1 objects are among them');
  const lua = runHealthScript(CLONESET_HEALTH_LUA, cases.map((c) => c.obj));
  const differences = cases
    .map((c, i) => ({ where: c.where, gate: evaluateRollout(c.obj, [], NOW).state, want: cloneSetHealth(c.obj, NOW), got: lua[i]!.status, message: lua[i]!.message }));
  const seen = new Set(lua.map((h) => h.status));
  for (const status of ['Healthy', 'Progressing', 'Suspended']) assert.ok(seen.has(status), `the fixtures cover ${status}`);
  assert.deepEqual(differences.filter((d) => d.want !== d.got), []);
});

test('Advanced StatefulSet (v1alpha1 and v1beta1): the generated Lua gives every fixture the status our gate maps to', () => {
  const cases = fixtureObjects('StatefulSet', 'apps.kruise.io');
  assert.ok(cases.length >= 15, `fixtures found: ${cases.length}`);
  const lua = runHealthScript(ADVANCED_STATEFULSET_HEALTH_LUA, cases.map((c) => c.obj));
  const differences = cases.map((c, i) => ({ where: c.where, gate: evaluateRollout(c.obj, [], NOW).state, want: workloadHealth(c.obj, NOW), got: lua[i]!.status, message: lua[i]!.message }));
  const seen = new Set(lua.map((h) => h.status));
  for (const status of ['Healthy', 'Progressing']) assert.ok(seen.has(status), `the fixtures cover ${status}`);
  assert.deepEqual(differences.filter((d) => d.want !== d.got), []);
});

test('Advanced DaemonSet: the generated Lua gives every fixture the status our gate maps to', () => {
  const cases = fixtureObjects('DaemonSet', 'apps.kruise.io');
  assert.ok(cases.length >= 10, `fixtures found: ${cases.length}`);
  const lua = runHealthScript(ADVANCED_DAEMONSET_HEALTH_LUA, cases.map((c) => c.obj));
  const differences = cases.map((c, i) => ({ where: c.where, gate: evaluateRollout(c.obj, [], NOW).state, want: workloadHealth(c.obj, NOW), got: lua[i]!.status, message: lua[i]!.message }));
  const seen = new Set(lua.map((h) => h.status));
  for (const status of ['Healthy', 'Progressing']) assert.ok(seen.has(status), `the fixtures cover ${status}`);
  assert.deepEqual(differences.filter((d) => d.want !== d.got), []);
});

test('Kruise Rollout (v1alpha1, v1beta1 canary and blue-green): the generated Lua gives every fixture the status our gate maps to', () => {
  const cases = fixtureObjects('Rollout', 'rollouts.kruise.io').filter((c) => /^rollouts\.kruise\.io\/v1(alpha|beta)1$/.test(c.obj.apiVersion ?? ''));
  assert.ok(cases.length >= 30, `fixtures found: ${cases.length}`);
  assert.ok(cases.some((c) => (c.obj.spec as any)?.strategy?.blueGreen), 'blue-green Rollouts are among them');
  const lua = runHealthScript(ROLLOUT_HEALTH_LUA, cases.map((c) => c.obj));
  const differences = cases.map((c, i) => ({ where: c.where, gate: evaluateRolloutRelease(c.obj, undefined, NOW).state, want: rolloutHealth(c.obj, NOW), got: lua[i]!.status, message: lua[i]!.message }));
  const seen = new Set(lua.map((h) => h.status));
  for (const status of ['Healthy', 'Progressing', 'Suspended']) assert.ok(seen.has(status), `the fixtures cover ${status}`);
  assert.deepEqual(differences.filter((d) => d.want !== d.got), []);
});

// The defects of Argo CD's own scripts the issue names: our verdict, by the gate and by the Lua.
const DEFECTS: Array<[file: string, health: string]> = [
  ['cloneset-updated-not-available.yaml', 'Progressing'],
  ['cloneset-v1beta1-partition-done.yaml', 'Healthy'],
  ['cloneset-v1beta1-paused.yaml', 'Suspended'],
  ['cloneset-old-kruise-done.yaml', 'Healthy'],
  ['rollout-canary-timed-pause.yaml', 'Progressing'],
  ['rollout-canary-approval.yaml', 'Suspended'],
  ['rollout-bluegreen-timed-pause.yaml', 'Progressing'],
  ['rollout-bluegreen-approval.yaml', 'Suspended'],
  ['rollout-cancelled.yaml', 'Degraded'],
];

test('Argo CD\'s defects (updated-but-unavailable CloneSet, v1beta1 paths, blue-green status, timed pause as Suspended): our status, gate and Lua alike', () => {
  for (const [file, health] of DEFECTS) {
    const obj = parse(readFileSync(join(FIXTURES, 'gitops/argocd', file), 'utf8')) as KubeObject;
    const isRollout = obj.kind === 'Rollout';
    const gate = isRollout ? rolloutHealth(obj, NOW) : cloneSetHealth(obj, NOW);
    const [lua] = runHealthScript(isRollout ? ROLLOUT_HEALTH_LUA : CLONESET_HEALTH_LUA, [obj]);
    assert.deepEqual([file, gate, lua!.status], [file, health, health]);
  }
});

test('SidecarSet, UnitedDeployment, BroadcastJob, AdvancedCronJob, ImagePullJob, ContainerRecreateRequest: the generated Lua gives every fixture the status of our rule', () => {
  for (const [kind, min] of [['SidecarSet', 5], ['UnitedDeployment', 4], ['BroadcastJob', 3], ['AdvancedCronJob', 2], ['ImagePullJob', 2], ['ContainerRecreateRequest', 2]] as const) {
    const k = HEALTH_KINDS.find((h) => h.kind === kind)!;
    const cases = fixtureObjects(kind, 'apps.kruise.io');
    assert.ok(cases.length >= min, `${kind} fixtures found: ${cases.length}`);
    const lua = runHealthScript(k.lua, cases.map((c) => c.obj));
    const differences = cases.map((c, i) => ({ where: c.where, want: k.gate(c.obj, NOW), got: lua[i]!.status, message: lua[i]!.message }));
    assert.deepEqual(differences.filter((d) => d.want !== d.got), [], kind);
  }
});

test('the rules written for kinds without a gate (AdvancedCronJob, ImagePullJob, ContainerRecreateRequest): their messages are the Lua\'s', () => {
  const rules = [
    ['AdvancedCronJob', advancedCronJobHealth],
    ['ImagePullJob', imagePullJobHealth],
    ['ContainerRecreateRequest', containerRecreateRequestHealth],
  ] as const;
  for (const [kind, rule] of rules) {
    const k = HEALTH_KINDS.find((h) => h.kind === kind)!;
    const objects = [...k.states.map((s) => s.object), ...fixtureObjects(kind, 'apps.kruise.io').map((c) => c.obj)];
    assert.deepEqual(runHealthScript(k.lua, objects), objects.map((o) => rule(o)), kind);
  }
});

test('the table of states export writes as testdata, every kind: the gate gives each its status, lua5.1 its status and message', () => {
  assert.equal(HEALTH_KINDS.length, 10);
  for (const k of HEALTH_KINDS) {
    const got = runHealthScript(k.lua, k.states.map((s) => s.object));
    assert.deepEqual(
      k.states.map((s, i) => [k.kind, s.name, k.gate(s.object, NOW), got[i]!.status, got[i]!.message]),
      k.states.map((s) => [k.kind, s.name, s.status, s.status, s.message]),
    );
    assert.ok(new Set(k.states.map((s) => s.status)).size >= 2, `${k.kind}: the states cover several statuses`);
  }
});

test('the table of states export writes as testdata: the gate gives each its status, lua5.1 its status and message', () => {
  for (const [states, lua, gate] of [[CLONESET_STATES, CLONESET_HEALTH_LUA, cloneSetHealth], [ADVANCED_STATEFULSET_STATES, ADVANCED_STATEFULSET_HEALTH_LUA, workloadHealth], [ADVANCED_DAEMONSET_STATES, ADVANCED_DAEMONSET_HEALTH_LUA, workloadHealth], [ROLLOUT_STATES, ROLLOUT_HEALTH_LUA, rolloutHealth]] as const) {
    const got = runHealthScript(lua, states.map((s) => s.object));
    assert.deepEqual(
      states.map((s, i) => [s.name, gate(s.object, NOW), got[i]!.status, got[i]!.message]),
      states.map((s) => [s.name, s.status, s.status, s.message]),
    );
  }
});

/** A Lua table cannot tell an empty list from an empty map: compare with empty lists as maps. */
function luaShaped(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? {} : value.map(luaShaped);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, luaShaped(v)]));
  return value;
}

test('actions pause/resume: the field our rollout pause|resume writes, nothing else; offered only when they change something', () => {
  const kinds = [
    { cases: fixtureObjects('CloneSet', 'apps.kruise.io'), actions: CLONESET_ACTIONS, paused: (o: KubeObject) => cloneSetAdapter.paused(o), patch: (o: KubeObject, p: boolean) => cloneSetAdapter.pausePatch(o, p) },
    { cases: fixtureObjects('StatefulSet', 'apps.kruise.io'), actions: ADVANCED_STATEFULSET_ACTIONS, paused: (o: KubeObject) => advancedStatefulSetAdapter.paused(o), patch: (o: KubeObject, p: boolean) => advancedStatefulSetAdapter.pausePatch(o, p) },
    { cases: fixtureObjects('DaemonSet', 'apps.kruise.io'), actions: ADVANCED_DAEMONSET_ACTIONS, paused: (o: KubeObject) => advancedDaemonSetAdapter.paused(o), patch: (o: KubeObject, p: boolean) => advancedDaemonSetAdapter.pausePatch(o, p) },
    { cases: fixtureObjects('SidecarSet', 'apps.kruise.io'), actions: SIDECARSET_ACTIONS, paused: (o: KubeObject) => readSidecarSet(o).paused, patch: (_o: KubeObject, p: boolean) => sidecarSetPausePatch(p) },
    {
      cases: fixtureObjects('Rollout', 'rollouts.kruise.io').filter((c) => /^rollouts\.kruise\.io\/v1(alpha|beta)1$/.test(c.obj.apiVersion ?? '')),
      actions: ROLLOUT_ACTIONS,
      paused: (o: KubeObject) => readRollout(o).paused,
      patch: (_o: KubeObject, p: boolean) => ({ spec: { strategy: { paused: p } } }),
    },
  ];
  for (const k of kinds) {
    const objects = k.cases.map((c) => c.obj);
    const discovered = runLuaScript(k.actions.discovery, objects) as Array<Record<string, { disabled: boolean }>>;
    assert.deepEqual(discovered.map((d) => [d.pause!.disabled, d.resume!.disabled]), objects.map((o) => [k.paused(o), !k.paused(o)]));
    for (const action of k.actions.actions.filter((a) => a.name === 'pause' || a.name === 'resume')) {
      const paused = action.name === 'pause';
      const got = runLuaScript(action.lua, objects);
      const want = objects.map((o) => luaShaped(mergePatch(structuredClone(o) as never, k.patch(o, paused) as never)));
      assert.deepEqual(got.map((o, i) => [k.cases[i]!.where, k.paused(o as KubeObject)]), k.cases.map((c) => [c.where, paused]));
      assert.deepEqual(got, want, action.name);
    }
  }
});

test('action approve (Rollout): what rollout approve writes (StepPaused → StepReady, sub-status and v1beta1 mirror), offered only when it has something to write', () => {
  const cases = fixtureObjects('Rollout', 'rollouts.kruise.io').filter((c) => /^rollouts\.kruise\.io\/v1(alpha|beta)1$/.test(c.obj.apiVersion ?? ''));
  const objects = [...cases.map((c) => c.obj), ...ROLLOUT_STATES.map((s) => s.object)];
  const where = [...cases.map((c) => c.where), ...ROLLOUT_STATES.map((s) => `states:${s.name}`)];
  const offered = objects.map((o) => approvePatch(o).patch !== undefined);
  assert.ok(offered.filter(Boolean).length >= 5 && offered.filter((x) => !x).length >= 5, 'objects waiting and not waiting for approval');
  const discovered = runLuaScript(ROLLOUT_ACTIONS.discovery, objects) as Array<Record<string, { disabled: boolean }>>;
  assert.deepEqual(discovered.map((d, i) => [where[i], !d.approve!.disabled]), offered.map((o, i) => [where[i], o]));
  const approve = ROLLOUT_ACTIONS.actions.find((a) => a.name === 'approve')!;
  const got = runLuaScript(approve.lua, objects);
  assert.deepEqual(got.map((o, i) => [where[i], o]), objects.map((o, i) => [where[i], luaShaped(approvedRollout(o))]));
  // The approved object waits no more: `rollout approve` has nothing left to write, and Argo CD's health is no longer Suspended for approval.
  const approved = got.filter((_, i) => offered[i]) as KubeObject[];
  assert.deepEqual(approved.map((o) => approvePatch(o).patch), approved.map(() => undefined));
  for (const h of runHealthScript(ROLLOUT_HEALTH_LUA, approved)) assert.doesNotMatch(h.message, /Waiting for approval/);
});

test('action restart (CloneSet, Advanced StatefulSet, Advanced DaemonSet): what rollout restart writes (restartedAt in the template, now), offered only when it writes that', () => {
  const kinds = [
    { kind: 'CloneSet', actions: CLONESET_ACTIONS, adapter: cloneSetAdapter },
    { kind: 'StatefulSet', actions: ADVANCED_STATEFULSET_ACTIONS, adapter: advancedStatefulSetAdapter },
    { kind: 'DaemonSet', actions: ADVANCED_DAEMONSET_ACTIONS, adapter: advancedDaemonSetAdapter },
  ];
  for (const k of kinds) {
    const cases = fixtureObjects(k.kind, 'apps.kruise.io');
    const objects = cases.map((c) => c.obj);
    const offered = objects.map((o) => restartsThroughTemplate(k.adapter, o));
    assert.ok(offered.some(Boolean) && offered.some((x) => !x), `${k.kind}: fixtures with and without a restart through the template`);
    const discovered = runLuaScript(k.actions.discovery, objects) as Array<Record<string, { disabled: boolean }>>;
    assert.deepEqual(discovered.map((d, i) => [cases[i]!.where, !d.restart!.disabled]), offered.map((o, i) => [cases[i]!.where, o]));
    const before = Math.floor(Date.now() / 1000) * 1000;
    const got = runLuaScript(k.actions.actions.find((a) => a.name === 'restart')!.lua, objects) as KubeObject[];
    const after = Date.now();
    const want = objects.map((o, i) => {
      if (!offered[i]) return luaShaped(o);
      const stamp = (got[i]!.spec as any)?.template?.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt'] as string;
      const at = Date.parse(stamp);
      assert.ok(at >= before && at <= after, `${k.kind}: restartedAt ${stamp} is the time the action ran`);
      return luaShaped(mergePatch(structuredClone(o) as never, restartPatch(new Date(at), k.adapter.templatePointer(o).split('/').slice(1)) as never));
    });
    assert.deepEqual(got.map((o, i) => [cases[i]!.where, o]), want.map((o, i) => [cases[i]!.where, o]), k.kind);
  }
});

/** Fixture Rollouts, the export's states, and each with a sub-status made jumpable (v0.5+ nextStepIndex at the natural next step, InRolling). */
function stepJumpCases(): Array<{ where: string; obj: KubeObject }> {
  const base = [
    ...fixtureObjects('Rollout', 'rollouts.kruise.io').filter((c) => /^rollouts\.kruise\.io\/v1(alpha|beta)1$/.test(c.obj.apiVersion ?? '')),
    ...ROLLOUT_STATES.map((s) => ({ where: `states:${s.name}`, obj: s.object })),
  ];
  const jumpable = base.flatMap((c) => {
    const view = readRollout(c.obj);
    if (!view.status.hasSubStatus) return [];
    const obj = structuredClone(c.obj);
    const status = obj.status as Record<string, any>;
    const current = view.status.currentStepIndex ?? 0;
    status[view.subStatusField].nextStepIndex = current >= view.steps.length ? -1 : current + 1;
    if (status[view.subStatusField].currentStepState === 'Completed') status[view.subStatusField].currentStepState = 'StepPaused';
    status.phase = 'Progressing';
    status.conditions = [{ type: 'Progressing', status: 'True', reason: 'InRolling' }];
    return [{ where: `${c.where} (jumpable)`, obj }];
  });
  return [...base, ...jumpable];
}

const outcomeOf = (r: KubeObject | string) => (typeof r === 'string' ? { error: r } : { result: luaShaped(r) });

test('actions undo-fast and jump (Rollout), over the fixtures: what rollout undo --fast and rollout jump --to-step write (status nextStepIndex), or their refusal as the action\'s error; offered exactly when they would write', () => {
  const cases = stepJumpCases();
  const objects = cases.map((c) => c.obj);
  const where = cases.map((c) => c.where);
  const undoOffered = objects.map(undoFastOffered);
  const jumpOffers = objects.map(jumpOffered);
  assert.ok(undoOffered.filter(Boolean).length >= 5 && undoOffered.filter((x) => !x).length >= 5, `undo --fast writes on some, not others: ${undoOffered.filter(Boolean).length}`);
  assert.ok(jumpOffers.filter(Boolean).length >= 8 && jumpOffers.filter((x) => !x).length >= 5, `jump writes on some, not others: ${jumpOffers.filter(Boolean).length}`);
  const discovered = runLuaAction(ROLLOUT_ACTIONS.discovery, objects) as Array<{ result: Record<string, { disabled: boolean; params?: unknown }> }>;
  assert.deepEqual(
    discovered.map((d, i) => [where[i], !d.result['undo-fast']!.disabled, !d.result.jump!.disabled, d.result.jump!.params]),
    objects.map((_, i) => [where[i], undoOffered[i], jumpOffers[i], [{ name: 'step' }]]),
  );
  const undo = ROLLOUT_ACTIONS.actions.find((a) => a.name === 'undo-fast')!;
  assert.deepEqual(
    runLuaAction(undo.lua, objects).map((r, i) => [where[i], r]),
    objects.map((o, i) => [where[i], outcomeOf(undoneFastRollout(o))]),
  );
  const jump = ROLLOUT_ACTIONS.actions.find((a) => a.name === 'jump')!;
  for (const step of ['1', '2', '3', '4', '0', '-1', '02', '2.0', '1e1', ' 2', 'x', '']) {
    assert.deepEqual(
      runLuaAction(jump.lua, objects, { step }).map((r, i) => [where[i], step, r]),
      objects.map((o, i) => [where[i], step, outcomeOf(jumpedRollout(o, step))]),
    );
  }
  // An Argo CD before 3.1 has no actionParams; a caller that passes none (the argocd CLI) leaves it empty.
  for (const params of [null, {}]) {
    assert.deepEqual(runLuaAction(jump.lua, objects, params), objects.map((o) => outcomeOf(jumpedRollout(o, undefined))));
  }
});

test('action jump (Rollout): the parameter is read as rollout jump reads --to-step', () => {
  for (const raw of ['1', '2', '10', '0', '-1', '02', '2.0', '1e1', ' 2', '2 ', 'x', '', '0x2']) {
    let usage: string | undefined;
    try {
      parseToStep(raw);
    } catch (err) {
      usage = (err as Error).message.replace('--to-step', 'step');
    }
    const got = jumpedRollout(ROLLOUT_STATES[2]!.object, raw);
    assert.equal(typeof got === 'string' && got.startsWith('invalid value') ? got : undefined, usage, raw);
  }
});

test('undo-fast then jump, what they write is what the commands write: at step 2 of 3, undo --fast goes to step 1, jump --to-step 1 too; each offered; the written object refuses a second one while the controller has not moved', () => {
  const inRelease = HEALTH_KINDS.find((k) => k.kind === 'Rollout')!.actions!.steps!.inRelease;
  const undo = ROLLOUT_ACTIONS.actions.find((a) => a.name === 'undo-fast')!;
  const [r] = runLuaAction(undo.lua, [inRelease]) as Array<{ result: any }>;
  assert.equal(r!.result.status.canaryStatus.nextStepIndex, 1);
  assert.deepEqual(runLuaAction(undo.lua, [r!.result]), [{ error: 'rollout/web: cannot roll back fast: a jump from step 2/3 to step 1 is already under way (status nextStepIndex): run the command again once the controller has made it' }]);
  const jump = ROLLOUT_ACTIONS.actions.find((a) => a.name === 'jump')!;
  assert.deepEqual(runLuaAction(jump.lua, [inRelease], { step: '3' }), [{ error: 'rollout/web: step 3 is already the next step (approve the current one instead)' }]);
});

test('Rollout actions use only what Argo CD gives a script (base, table, os): every one runs over the fixtures without another library', () => {
  const objects = stepJumpCases().map((c) => c.obj);
  const ran = [ROLLOUT_ACTIONS.discovery, ...ROLLOUT_ACTIONS.actions.map((a) => a.lua)].flatMap((lua) => runLuaAction(lua, objects, { step: '1' }));
  const libraryErrors = ran.filter((r) => 'error' in r && !/^(rollout\/|invalid value|not a Kruise Rollout)/.test(r.error));
  assert.deepEqual(libraryErrors, []);
});
