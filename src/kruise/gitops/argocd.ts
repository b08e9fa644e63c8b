// What `gitops export --for=argocd` writes: the health scripts as an argocd-cm patch
// (resource.customizations.health.<group>_<Kind>), or Argo CD's resource_customizations layout
// (<group>/<Kind>/health.lua, health_test.yaml, testdata/*.yaml, actions/) for a fork or an upstream PR.
// Actions: pause and resume (the field `rollout pause|resume` writes), for the kinds it takes, and
// approve, undo-fast and jump for a Rollout (the status writes of `rollout approve`, `rollout undo --fast`
// and `rollout jump --to-step N`; jump takes its step as an Argo CD action parameter, Argo CD 3.1+).
// Health for every Kruise kind: the workloads, SidecarSet and BroadcastJob with `rollout status`'s
// verdict; AdvancedCronJob, ImagePullJob and ContainerRecreateRequest with the rules of health.ts.
import { CLONESET_HEALTH_LUA } from './lua/cloneset';
import { ROLLOUT_HEALTH_LUA } from './lua/rollout';
import { ADVANCED_CRONJOB_STATES, ADVANCED_DAEMONSET_STATES, ADVANCED_STATEFULSET_STATES, BROADCASTJOB_STATES, CLONESET_STATES, CONTAINER_RECREATE_REQUEST_STATES, IMAGEPULLJOB_STATES, ROLLOUT_STATES, SIDECARSET_STATES, UNITED_DEPLOYMENT_STATES, type HealthState } from './states';
import { ADVANCED_DAEMONSET_HEALTH_LUA } from './lua/advanced-daemonset';
import { advancedDaemonSetAdapter } from '../workloads/advanced-daemonset';
import { ADVANCED_STATEFULSET_HEALTH_LUA } from './lua/advanced-statefulset';
import { advancedStatefulSetAdapter } from '../workloads/advanced-statefulset';
import { ADVANCED_DAEMONSET_ACTIONS, ADVANCED_STATEFULSET_ACTIONS, CLONESET_ACTIONS, JUMP_STEP_PARAM, ROLLOUT_ACTIONS, SIDECARSET_ACTIONS, type LuaActions } from './lua/actions';
import { cloneSetAdapter } from '../workloads/cloneset';
import { readRollout } from '../rollout/read';
import { jsonPatch, mergePatch } from '../../lib/json-patch';
import { approvePatch, jumpPatch, type RolloutPatchResult } from '../rollout/patches';
import { fastRollbackStep } from '../rollout/fast-rollback';
import { compareText } from '../../lib/compare';
import type { KubeObject } from '../types';
import type { WorkloadAdapter } from '../workloads/types';
import { advancedCronJobHealth, broadcastJobHealth, containerRecreateRequestHealth, imagePullJobHealth, rolloutHealth, sidecarSetHealth, unitedDeploymentHealth, workloadHealth, type ArgoHealth } from './health';
import { UNITED_DEPLOYMENT_HEALTH_LUA } from './lua/uniteddeployment';
import { SIDECARSET_HEALTH_LUA } from './lua/sidecarset';
import { ADVANCED_CRONJOB_HEALTH_LUA, BROADCASTJOB_HEALTH_LUA, CONTAINER_RECREATE_REQUEST_HEALTH_LUA, IMAGEPULLJOB_HEALTH_LUA } from './lua/jobs';
import { readSidecarSet, sidecarSetPausePatch } from '../workloads/sidecarset';

export interface HealthKind {
  /** What --kinds takes. */
  names: readonly string[];
  group: string;
  kind: string;
  lua: string;
  states: readonly HealthState[];
  /** Our verdict for the kind as Argo CD health (the oracle the Lua is tested against). */
  gate: (obj: KubeObject, now: number) => ArgoHealth;
  /** Resource actions pause and resume, for the kinds `rollout pause|resume` takes. */
  actions?: PauseActions;
}

export interface PauseActions {
  lua: LuaActions;
  /** Whether the object is paused, and the object `rollout pause|resume` makes of it (action tests). */
  paused: (obj: KubeObject) => boolean;
  withPaused: (obj: KubeObject, paused: boolean) => KubeObject;
  /** The approve action (Rollout): whether `rollout approve` has something to write, the object it makes, and an object waiting for it. */
  /** Whether `rollout restart` writes the template annotation (the restart action); absent: no restart action. */
  restartOffered?: (obj: KubeObject) => boolean;
  approve?: { offered: (obj: KubeObject) => boolean; approved: (obj: KubeObject) => KubeObject; waiting: KubeObject };
  /** undo-fast and jump (Rollout): whether the commands would write, what they make of the object (or the line they refuse with), and a release they act on. */
  steps?: {
    undoFastOffered: (obj: KubeObject) => boolean;
    jumpOffered: (obj: KubeObject) => boolean;
    undoneFast: (obj: KubeObject) => KubeObject | string;
    jumped: (obj: KubeObject, step: string | undefined) => KubeObject | string;
    inRelease: KubeObject;
  };
}

type Json = Parameters<typeof mergePatch>[0];
const merged = (obj: KubeObject, patch: unknown): KubeObject => mergePatch(structuredClone(obj) as unknown as Json, patch as Json) as unknown as KubeObject;

export const HEALTH_KINDS: readonly HealthKind[] = [
  {
    names: ['cloneset', 'clonesets', 'clone'],
    group: 'apps.kruise.io',
    kind: 'CloneSet',
    lua: CLONESET_HEALTH_LUA,
    gate: workloadHealth,
    states: CLONESET_STATES,
    actions: {
      lua: CLONESET_ACTIONS,
      paused: (o) => cloneSetAdapter.paused(o),
      withPaused: (o, p) => merged(o, cloneSetAdapter.pausePatch(o, p)),
      restartOffered: (o) => restartsThroughTemplate(cloneSetAdapter, o),
    },
  },
  {
    names: ['asts', 'advancedstatefulset', 'statefulset.apps.kruise.io'],
    group: 'apps.kruise.io',
    kind: 'StatefulSet',
    lua: ADVANCED_STATEFULSET_HEALTH_LUA,
    gate: workloadHealth,
    states: ADVANCED_STATEFULSET_STATES,
    actions: {
      lua: ADVANCED_STATEFULSET_ACTIONS,
      paused: (o) => advancedStatefulSetAdapter.paused(o),
      withPaused: (o, p) => merged(o, advancedStatefulSetAdapter.pausePatch(o, p)),
      restartOffered: (o) => restartsThroughTemplate(advancedStatefulSetAdapter, o),
    },
  },
  {
    names: ['ads', 'advanceddaemonset', 'daemonset.apps.kruise.io'],
    group: 'apps.kruise.io',
    kind: 'DaemonSet',
    lua: ADVANCED_DAEMONSET_HEALTH_LUA,
    gate: workloadHealth,
    states: ADVANCED_DAEMONSET_STATES,
    actions: {
      lua: ADVANCED_DAEMONSET_ACTIONS,
      paused: (o) => advancedDaemonSetAdapter.paused(o),
      withPaused: (o, p) => merged(o, advancedDaemonSetAdapter.pausePatch(o, p)),
      restartOffered: (o) => restartsThroughTemplate(advancedDaemonSetAdapter, o),
    },
  },
  {
    names: ['rollout', 'rollouts', 'ro'],
    group: 'rollouts.kruise.io',
    kind: 'Rollout',
    lua: ROLLOUT_HEALTH_LUA,
    gate: rolloutHealth,
    states: ROLLOUT_STATES,
    actions: {
      lua: ROLLOUT_ACTIONS,
      paused: (o) => readRollout(o).paused,
      withPaused: (o, p) => merged(o, { spec: { strategy: { paused: p } } }),
      approve: { offered: (o) => approvePatch(o).patch !== undefined, approved: approvedRollout, waiting: ROLLOUT_STATES.find((s) => s.name === 'suspended-approval')!.object },
      steps: { undoFastOffered, jumpOffered, undoneFast: undoneFastRollout, jumped: jumpedRollout, inRelease: rolloutInRelease() },
    },
  },
  {
    names: ['sidecarset', 'sidecarsets'],
    group: 'apps.kruise.io',
    kind: 'SidecarSet',
    lua: SIDECARSET_HEALTH_LUA,
    gate: sidecarSetHealth,
    states: SIDECARSET_STATES,
    actions: {
      lua: SIDECARSET_ACTIONS,
      paused: (o) => readSidecarSet(o).paused,
      withPaused: (o, p) => merged(o, sidecarSetPausePatch(p)),
    },
  },
  {
    names: ['uniteddeployment', 'uniteddeployments', 'ud'],
    group: 'apps.kruise.io',
    kind: 'UnitedDeployment',
    lua: UNITED_DEPLOYMENT_HEALTH_LUA,
    gate: unitedDeploymentHealth,
    states: UNITED_DEPLOYMENT_STATES,
  },
  {
    names: ['broadcastjob', 'broadcastjobs', 'bcj'],
    group: 'apps.kruise.io',
    kind: 'BroadcastJob',
    lua: BROADCASTJOB_HEALTH_LUA,
    gate: broadcastJobHealth,
    states: BROADCASTJOB_STATES,
  },
  {
    names: ['advancedcronjob', 'advancedcronjobs', 'acj'],
    group: 'apps.kruise.io',
    kind: 'AdvancedCronJob',
    lua: ADVANCED_CRONJOB_HEALTH_LUA,
    gate: (o) => advancedCronJobHealth(o).status,
    states: ADVANCED_CRONJOB_STATES,
  },
  {
    names: ['imagepulljob', 'imagepulljobs'],
    group: 'apps.kruise.io',
    kind: 'ImagePullJob',
    lua: IMAGEPULLJOB_HEALTH_LUA,
    gate: (o) => imagePullJobHealth(o).status,
    states: IMAGEPULLJOB_STATES,
  },
  {
    names: ['containerrecreaterequest', 'containerrecreaterequests', 'crr'],
    group: 'apps.kruise.io',
    kind: 'ContainerRecreateRequest',
    lua: CONTAINER_RECREATE_REQUEST_HEALTH_LUA,
    gate: (o) => containerRecreateRequestHealth(o).status,
    states: CONTAINER_RECREATE_REQUEST_STATES,
  },
];

/** `rollout restart`'s choice: the template annotation unless paused (refused) or under an in-place policy (ContainerRecreateRequests). */
export function restartsThroughTemplate(adapter: WorkloadAdapter, obj: KubeObject): boolean {
  const policy = adapter.updatePolicy(obj);
  return !adapter.paused(obj) && policy !== 'InPlaceIfPossible' && policy !== 'InPlaceOnly';
}

/** The Rollout `rollout approve` makes (its JSON patch's changes, without the tests that guard a live write); unchanged when nothing waits. */
export function approvedRollout(obj: KubeObject): KubeObject {
  const r = approvePatch(obj);
  if (r.patch === undefined) return obj;
  return jsonPatch(structuredClone(obj) as unknown as Json, r.patch.filter((op) => op.op !== 'test') as unknown as Json) as unknown as KubeObject;
}

/** A JSON patch's changes applied to a copy of `obj` (the tests that guard a live write left out). */
function withChanges(obj: KubeObject, r: Extract<RolloutPatchResult, { patch: unknown[] }>): KubeObject {
  return jsonPatch(structuredClone(obj) as unknown as Json, r.patch.filter((op) => op.op !== 'test') as unknown as Json) as unknown as KubeObject;
}

/** A refusal as `rollout jump` and `undo --fast` print it (their `nothing` lines): `rollout/NAME: <reason without its "rollout "NAME"">`. */
function refusalLine(obj: KubeObject, reason: string, what = ''): string {
  return `rollout/${obj.metadata.name ?? ''}: ${what}${reason.replace(/^rollout "[^"]*":? /, '')}`;
}

/** What `rollout undo --fast` (no step) writes on `obj`, or the line it refuses with. */
export function undoneFastRollout(obj: KubeObject): KubeObject | string {
  const target = fastRollbackStep(obj);
  const r: RolloutPatchResult = target.error !== undefined ? { patch: undefined, reason: target.error } : jumpPatch(obj, target.step);
  return r.patch === undefined ? refusalLine(obj, r.reason, 'cannot roll back fast: ') : withChanges(obj, r);
}

/** What `rollout jump --to-step STEP` writes on `obj`, or the line it refuses with (the action's parameter in place of --to-step). */
export function jumpedRollout(obj: KubeObject, step: string | undefined): KubeObject | string {
  const name = obj.metadata.name ?? '';
  if (step === undefined) return `rollout/${name}: jump needs the step to go to, the action parameter "${JUMP_STEP_PARAM}" (Argo CD 3.1 or later asks for it)`;
  // jump.ts parseToStep's rule
  if (!/^[1-9]\d*$/.test(step)) return `invalid value "${step}" for ${JUMP_STEP_PARAM}: must be a step number (1..steps)`;
  const r = jumpPatch(obj, Number(step));
  return r.patch === undefined ? refusalLine(obj, r.reason) : withChanges(obj, r);
}

/** Whether `rollout undo --fast` has something to write. */
export function undoFastOffered(obj: KubeObject): boolean {
  return typeof undoneFastRollout(obj) !== 'string';
}

/** Whether `rollout jump --to-step N` writes for some step N. */
export function jumpOffered(obj: KubeObject): boolean {
  const steps = readRollout(obj).steps.length;
  for (let n = 1; n <= steps; n++) if (jumpPatch(obj, n).patch !== undefined) return true;
  return false;
}

/** A release at step 2/3 waiting for approval on a Kruise Rollout that can jump (v0.5+: status nextStepIndex), for the action tests. */
function rolloutInRelease(): KubeObject {
  const obj = structuredClone(ROLLOUT_STATES.find((s) => s.name === 'suspended-approval')!.object);
  (obj.status as { canaryStatus: Record<string, unknown> }).canaryStatus.nextStepIndex = 3;
  return obj;
}

/** The kinds --kinds names (all when none), or the names it does not know. */
export function selectHealthKinds(names: readonly string[]): { kinds: HealthKind[]; unknown: string[] } {
  if (names.length === 0) return { kinds: [...HEALTH_KINDS], unknown: [] };
  const kinds: HealthKind[] = [];
  const unknown: string[] = [];
  for (const raw of names) {
    const name = raw.trim().toLowerCase();
    const k = HEALTH_KINDS.find((h) => h.names.includes(name) || `${h.kind.toLowerCase()}.${h.group}` === name);
    if (!k) unknown.push(raw);
    else if (!kinds.includes(k)) kinds.push(k);
  }
  return { kinds, unknown };
}

/** `resource.customizations.health.apps.kruise.io_CloneSet` */
export function healthKey(k: HealthKind): string {
  return `resource.customizations.health.${k.group}_${k.kind}`;
}

/** `resource.customizations.actions.apps.kruise.io_CloneSet` */
export function actionsKey(k: HealthKind): string {
  return `resource.customizations.actions.${k.group}_${k.kind}`;
}

/** The value of actionsKey in argocd-cm: discovery.lua and the definitions. */
function actionsValue(a: PauseActions): unknown {
  return { 'discovery.lua': `${a.lua.discovery}\n`, definitions: a.lua.actions.map((d) => ({ name: d.name, 'action.lua': `${d.lua}\n` })) };
}

/** actions/: discovery.lua, <name>/action.lua, action_test.yaml and its testdata (one running and one paused state). */
function actionFiles(k: HealthKind, pa: PauseActions, dir: string, toYaml: (value: unknown) => string): ExportFile[] {
  const files: ExportFile[] = [{ path: `${dir}/actions/discovery.lua`, content: `${pa.lua.discovery}\n` }];
  for (const a of pa.lua.actions) files.push({ path: `${dir}/actions/${a.name}/action.lua`, content: `${a.lua}\n` });
  const running = k.states.find((s) => !pa.paused(s.object)) ?? k.states[0]!;
  const inputs = [
    { name: 'running', object: running.object },
    { name: 'paused', object: pa.withPaused(running.object, true) },
  ];
  if (pa.approve) inputs.push({ name: 'waiting-approval', object: pa.approve.waiting });
  if (pa.steps) inputs.push({ name: 'in-release', object: pa.steps.inRelease });
  const disabled = (action: string, obj: KubeObject): boolean => {
    if (action === 'approve') return !(pa.approve?.offered(obj) ?? false);
    if (action === 'undo-fast') return !(pa.steps?.undoFastOffered(obj) ?? false);
    if (action === 'jump') return !(pa.steps?.jumpOffered(obj) ?? false);
    if (action === 'restart') return !(pa.restartOffered?.(obj) ?? false);
    return (action === 'pause') === pa.paused(obj);
  };
  const discoveryTests = inputs.map((i) => ({
    inputPath: `testdata/${i.name}.yaml`,
    result: pa.lua.actions
      .map((a) => ({ name: a.name, disabled: disabled(a.name, i.object), ...(a.name === 'jump' ? { params: [{ name: JUMP_STEP_PARAM }] } : {}) }))
      .sort((a, b) => compareText(a.name, b.name)),
  }));
  const actionTests: Array<Record<string, unknown>> = [
    { action: 'pause', inputPath: 'testdata/running.yaml', expectedOutputPath: 'testdata/paused.yaml' },
    { action: 'resume', inputPath: 'testdata/paused.yaml', expectedOutputPath: 'testdata/resumed.yaml' },
  ];
  if (pa.approve) {
    actionTests.push({ action: 'approve', inputPath: 'testdata/waiting-approval.yaml', expectedOutputPath: 'testdata/approved.yaml' });
    files.push({ path: `${dir}/actions/testdata/approved.yaml`, content: toYaml(pa.approve.approved(pa.approve.waiting)) });
  }
  if (pa.steps) {
    // The outcomes are the commands' (an object, or the line they refuse with: Argo CD's expectedErrorMessage).
    const st = pa.steps;
    const outcome = (action: string, input: string, result: KubeObject | string, parameters?: Record<string, string>): void => {
      const test: Record<string, unknown> = { action, inputPath: `testdata/${input}.yaml`, ...(parameters ? { parameters } : {}) };
      if (typeof result === 'string') test.expectedErrorMessage = result;
      else {
        const out = action === 'jump' ? `jumped-to-${parameters?.[JUMP_STEP_PARAM] ?? ''}` : 'rolled-back-fast';
        test.expectedOutputPath = `testdata/${out}.yaml`;
        files.push({ path: `${dir}/actions/testdata/${out}.yaml`, content: toYaml(result) });
      }
      actionTests.push(test);
    };
    outcome('undo-fast', 'in-release', st.undoneFast(st.inRelease));
    outcome('undo-fast', 'running', st.undoneFast(running.object));
    for (const step of ['1', '3', 'x']) outcome('jump', 'in-release', st.jumped(st.inRelease, step), { [JUMP_STEP_PARAM]: step });
  }
  files.push({ path: `${dir}/actions/action_test.yaml`, content: toYaml({ discoveryTests, actionTests }) });
  for (const i of inputs) files.push({ path: `${dir}/actions/testdata/${i.name}.yaml`, content: toYaml(i.object) });
  files.push({ path: `${dir}/actions/testdata/resumed.yaml`, content: toYaml(pa.withPaused(inputs[1]!.object, false)) });
  return files;
}

export interface ExportFile {
  path: string;
  content: string;
}

/** Argo CD's layout: <group>/<Kind>/health.lua, health_test.yaml, testdata/<state>.yaml. */
export function argocdFiles(kinds: readonly HealthKind[], toYaml: (value: unknown) => string): ExportFile[] {
  const files: ExportFile[] = [];
  for (const k of kinds) {
    const dir = `${k.group}/${k.kind}`;
    files.push({ path: `${dir}/health.lua`, content: `${k.lua.trimEnd()}\n` });
    const tests = k.states.map((s) => ({ healthStatus: { status: s.status, message: s.message }, inputPath: `testdata/${s.name}.yaml` }));
    files.push({ path: `${dir}/health_test.yaml`, content: toYaml({ tests }) });
    for (const s of k.states) files.push({ path: `${dir}/testdata/${s.name}.yaml`, content: toYaml(s.object) });
    if (k.actions) files.push(...actionFiles(k, k.actions, dir, toYaml));
  }
  return files;
}

/** The argocd-cm patch (kubectl -n argocd patch configmap argocd-cm --type merge --patch-file FILE). */
export function argocdConfigMapPatch(kinds: readonly HealthKind[], toYaml: (value: unknown) => string): string {
  const data: Record<string, string> = {};
  for (const k of kinds) {
    data[healthKey(k)] = `${k.lua.trimEnd()}\n`;
    if (k.actions) data[actionsKey(k)] = toYaml(actionsValue(k.actions));
  }
  const header = '# Argo CD health checks generated by kubectl-kruise from its rollout gate.\n# kubectl -n argocd patch configmap argocd-cm --type merge --patch-file THIS_FILE\n';
  return `${header}${toYaml({ data })}`;
}
