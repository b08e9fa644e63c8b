// Issue #31's acceptance for the Argo CD approve action, end to end: a Kruise Rollout (v1beta1 CRDs of
// kruise-rollout v0.6.2, the sandbox's simulated controller) waiting for approval at step 1; the
// exported health says Suspended and discovery offers approve; the exported action.lua runs in lua5.1 on
// the live object; its change is applied the way Argo CD applies an action's result (server/application/
// application.go patchResource: the JSON merge patch from the live object to the returned one, sent first to
// the status subresource when it touches status, the rest to the resource), and the Rollout moves on to
// step 2, as after `rollout approve`. Then, within step 2, the exported undo-fast action applied the same
// way takes it back to step 1, as `rollout undo --fast` does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { kubectl, runCli } from '../helpers/cli';
import { runHealthScript, runLuaAction, runLuaScript } from '../helpers/lua';
import { waitUntil, type Sandbox } from '../helpers/sandbox';
import { applyRolloutFixtures, haveCrds, patchImage, startWithRolloutCrds } from './rollout-kruise-helpers';

const skip = !haveCrds('v0.6.2') && 'no ../shared CRDs';
const RO = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts/rollout-web';
const CS = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const isMap = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmpty = (v: unknown): boolean => (Array.isArray(v) && v.length === 0) || (isMap(v) && Object.keys(v).length === 0);

/** Argo CD's cleanReturnedObj (util/lua/lua.go): Lua cannot tell an empty list from an empty map; the live object's shape is kept. */
function cleanReturned(live: Json, out: Json): Json {
  if (isEmpty(out) && isEmpty(live)) return live;
  if (isMap(out) && isMap(live)) return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, k in live ? cleanReturned(live[k]!, v) : v]));
  if (Array.isArray(out) && Array.isArray(live) && out.length === live.length) return out.map((v, i) => cleanReturned(live[i]!, v));
  return out;
}

/** RFC 7386 merge patch from `a` to `b` (what jsonpatch.CreateMergePatch computes); undefined when equal. */
function mergeDiff(a: Json, b: Json): Json | undefined {
  if (isMap(a) && isMap(b)) {
    const out: Record<string, Json> = {};
    for (const k of Object.keys(a)) if (!(k in b)) out[k] = null;
    for (const [k, v] of Object.entries(b)) {
      const d = k in a ? mergeDiff(a[k]!, v) : v;
      if (d !== undefined) out[k] = d;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return canonical(a) === canonical(b) ? undefined : b;
}

/** JSON with keys sorted (lua5.1 hands objects back with their keys in another order). */
function canonical(v: Json): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isMap(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k]!)}`).join(',')}}`;
  return JSON.stringify(v);
}

describe('gitops export: the Argo CD approve and undo-fast actions on a Rollout in a release (v0.6.2 CRDs)', { skip }, () => {
  let sb: Sandbox;
  const rollout = async (): Promise<any> => (await sb.api('GET', RO)).body;
  /** An action's change applied as Argo CD applies it (status only: through rollouts/status); the release then reaches `step`, the spec unwritten. */
  const applyStatusChange = async (before: any, diff: Json, step: number): Promise<any> => {
    const patched = await kubectl(['patch', 'rollout', 'rollout-web', '--subresource=status', '--type=merge', '-p', JSON.stringify(diff)], sb.kubeconfig);
    assert.equal(patched.code, 0, patched.stderr);
    const at = await waitUntil(`the release at step ${step}`, async () => {
      const ro = await rollout();
      return ro.status?.canaryStatus?.currentStepIndex === step ? ro : undefined;
    }, 20_000);
    assert.equal(at.metadata.generation, before.metadata.generation, 'the spec was not written');
    return at;
  };

  before(async () => {
    sb = await startWithRolloutCrds('v0.6.2');
    await applyRolloutFixtures(sb, ['sandbox-cloneset-web-10.yaml', 'sandbox-rollout-web-v1beta1.yaml']);
  });
  after(async () => {
    await sb.stop();
  });

  it('health Suspended, approve offered; the action\'s change applied as Argo CD does moves the release to step 2 (5 pods), and Argo CD health is no longer Suspended; then undo-fast, applied the same way, takes it back to step 1', async () => {
    await waitUntil('Healthy', async () => {
      const ro = await rollout();
      return ro.status?.phase === 'Healthy' && ro.status.canaryStatus ? ro : undefined;
    }, 20_000);
    await patchImage(sb, ['cloneset', 'web'], 'nginx:1.26');
    const paused = await waitUntil('step 1 StepPaused', async () => {
      const ro = await rollout();
      return ro.status?.canaryStatus?.currentStepIndex === 1 && ro.status.canaryStatus.currentStepState === 'StepPaused' ? ro : undefined;
    }, 20_000);

    const exported = await runCli(['gitops', 'export', '--for=argocd', '--kinds', 'rollout']);
    assert.equal(exported.code, 0, exported.stderr);
    const data = (parse(exported.stdout) as { data: Record<string, string> }).data;
    const actions = parse(data['resource.customizations.actions.rollouts.kruise.io_Rollout']!) as { 'discovery.lua': string; definitions: Array<{ name: string; 'action.lua': string }> };
    const [health] = runHealthScript(data['resource.customizations.health.rollouts.kruise.io_Rollout']!, [paused]);
    assert.deepEqual(health, { status: 'Suspended', message: 'Waiting for approval at step 1/3: approve it to continue' });
    const [offered] = runLuaScript(actions['discovery.lua'], [paused]) as Array<Record<string, { disabled: boolean }>>;
    // At step 1 undo-fast has nowhere to go back to; jump (to step 1 again, or 3) is offered, with its parameter.
    assert.deepEqual(offered, { approve: { disabled: false }, pause: { disabled: false }, resume: { disabled: true }, 'undo-fast': { disabled: true }, jump: { disabled: false, params: [{ name: 'step' }] } });

    const approve = actions.definitions.find((d) => d.name === 'approve')!;
    const [returned] = runLuaScript(approve['action.lua'], [paused]);
    const diff = mergeDiff(paused, cleanReturned(paused, returned as Json)) as Record<string, Json>;
    // Only status changes: all of it goes through rollouts/status, nothing to the resource.
    assert.deepEqual(diff, { status: { canaryStatus: { currentStepState: 'StepReady' }, currentStepState: 'StepReady' } });
    await applyStatusChange(paused, diff, 2);
    await waitUntil('5 pods updated', async () => ((await sb.api('GET', CS)).body.status?.updatedReplicas === 5 ? true : undefined), 20_000);
    // Step 2 pauses 5 s: a timed pause is Progressing, and approve is offered only while a step is paused.
    const atStep2 = await rollout();
    const [after] = runHealthScript(data['resource.customizations.health.rollouts.kruise.io_Rollout']!, [atStep2]);
    assert.notEqual(after!.status, 'Suspended');

    // Within step 2's 5 s: undo-fast is offered, and its change, applied as Argo CD does, is the status write of
    // `rollout undo --fast` (nextStepIndex 1: step 1 routes no traffic and has the most pods before step 2); the
    // controller takes the release back to step 1.
    const [offeredAt2] = runLuaAction(actions['discovery.lua'], [atStep2]) as Array<{ result: Record<string, { disabled: boolean }> }>;
    assert.deepEqual([offeredAt2!.result['undo-fast']!.disabled, offeredAt2!.result.jump!.disabled], [false, false]);
    const undo = actions.definitions.find((d) => d.name === 'undo-fast')!;
    const [undone] = runLuaAction(undo['action.lua'], [atStep2]) as Array<{ result: Json }>;
    const undoDiff = mergeDiff(atStep2, cleanReturned(atStep2, undone!.result));
    assert.deepEqual(undoDiff, { status: { canaryStatus: { nextStepIndex: 1 } } });
    await applyStatusChange(atStep2, undoDiff, 1);
  });
});
