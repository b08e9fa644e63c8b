// `gitops export --for=argocd`: the argocd-cm patch, and Argo CD's folder layout whose own tests
// (health_test.yaml over testdata/) pass when the exported health.lua runs in lua5.1, as Argo CD's
// resource_customizations test runner would run them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { runCli } from '../helpers/cli';
import { runHealthScript, runLuaAction, runLuaScript } from '../helpers/lua';
import { fluxStatus, fluxStatusOfHealth } from '../helpers/cel';
import { HEALTH_KINDS } from '../../src/kruise/gitops/argocd';

test('default: an argocd-cm merge patch with resource.customizations.health|actions.<group>_<Kind> for CloneSet, Advanced StatefulSet, Advanced DaemonSet and Rollout', async () => {
  const r = await runCli(['gitops', 'export', '--for=argocd']);
  assert.equal(r.code, 0, r.stderr);
  const patch = parse(r.stdout) as { data: Record<string, string> };
  assert.deepEqual(Object.keys(patch.data), [
    'resource.customizations.health.apps.kruise.io_CloneSet',
    'resource.customizations.actions.apps.kruise.io_CloneSet',
    'resource.customizations.health.apps.kruise.io_StatefulSet',
    'resource.customizations.actions.apps.kruise.io_StatefulSet',
    'resource.customizations.health.apps.kruise.io_DaemonSet',
    'resource.customizations.actions.apps.kruise.io_DaemonSet',
    'resource.customizations.health.rollouts.kruise.io_Rollout',
    'resource.customizations.actions.rollouts.kruise.io_Rollout',
    'resource.customizations.health.apps.kruise.io_SidecarSet',
    'resource.customizations.actions.apps.kruise.io_SidecarSet',
    'resource.customizations.health.apps.kruise.io_UnitedDeployment',
    'resource.customizations.health.apps.kruise.io_BroadcastJob',
    'resource.customizations.health.apps.kruise.io_AdvancedCronJob',
    'resource.customizations.health.apps.kruise.io_ImagePullJob',
    'resource.customizations.health.apps.kruise.io_ContainerRecreateRequest',
  ]);
  const actions = parse(patch.data['resource.customizations.actions.apps.kruise.io_CloneSet']!) as { 'discovery.lua': string; definitions: Array<{ name: string; 'action.lua': string }> };
  assert.deepEqual(actions.definitions.map((d) => d.name), ['pause', 'resume', 'restart']);
  const [restarted] = runLuaScript(actions.definitions[2]!['action.lua'], [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'x' }, spec: { updateStrategy: { type: 'ReCreate' }, template: { metadata: { labels: { app: 'x' } } } } }]);
  assert.match((restarted as any).spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const rollout = parse(patch.data['resource.customizations.actions.rollouts.kruise.io_Rollout']!) as { definitions: Array<{ name: string }> };
  assert.deepEqual(rollout.definitions.map((d) => d.name), ['pause', 'resume', 'approve', 'undo-fast', 'jump']);
  const [paused] = runLuaScript(actions.definitions[0]!['action.lua'], [{ apiVersion: 'apps.kruise.io/v1beta1', kind: 'CloneSet', metadata: { name: 'x' }, spec: { updateStrategy: { type: 'RollingUpdate' } } }]);
  assert.deepEqual((paused as any).spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { paused: true } });
  const [health] = runHealthScript(patch.data['resource.customizations.health.apps.kruise.io_CloneSet']!, [
    { apiVersion: 'apps.kruise.io/v1beta1', kind: 'CloneSet', metadata: { name: 'x', generation: 1 }, spec: { replicas: 1, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { paused: true } } }, status: { observedGeneration: 1, replicas: 1, updatedReplicas: 0 } },
  ]);
  assert.equal(health!.status, 'Suspended');
  const one = await runCli(['gitops', 'export', '--for=argocd', '--kinds', 'rollout']);
  assert.deepEqual(Object.keys((parse(one.stdout) as { data: object }).data), ['resource.customizations.health.rollouts.kruise.io_Rollout', 'resource.customizations.actions.rollouts.kruise.io_Rollout']);
});

test('--out-dir: Argo CD\'s layout, and every health_test.yaml case passes with the exported health.lua', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gitops-export-'));
  try {
    const r = await runCli(['gitops', 'export', '--for=argocd', '--out-dir', dir]);
    assert.equal(r.code, 0, r.stderr);
    const kinds = [['apps.kruise.io', 'CloneSet'], ['apps.kruise.io', 'StatefulSet'], ['apps.kruise.io', 'DaemonSet'], ['rollouts.kruise.io', 'Rollout'], ['apps.kruise.io', 'SidecarSet'],
      ['apps.kruise.io', 'UnitedDeployment'], ['apps.kruise.io', 'BroadcastJob'], ['apps.kruise.io', 'AdvancedCronJob'], ['apps.kruise.io', 'ImagePullJob'], ['apps.kruise.io', 'ContainerRecreateRequest']];
    assert.deepEqual(readdirSync(join(dir, 'apps.kruise.io')).sort(), kinds.filter(([g]) => g === 'apps.kruise.io').map(([, k]) => k).sort());
    for (const [group, kind] of kinds) {
      const base = join(dir, group!, kind!);
      const tests = (parse(readFileSync(join(base, 'health_test.yaml'), 'utf8')) as { tests: Array<{ healthStatus: { status: string; message: string }; inputPath: string }> }).tests;
      assert.equal(tests.length, readdirSync(join(base, 'testdata')).length, `${kind}: one test per testdata file`);
      const statuses = new Set(tests.map((t) => t.healthStatus.status));
      // Every kind can be Healthy; each other status where the kind has it (a scheduler never progresses, a request is never suspended).
      const want = { UnitedDeployment: ['Healthy', 'Progressing'], AdvancedCronJob: ['Healthy', 'Suspended'], ImagePullJob: ['Healthy', 'Progressing', 'Degraded'], ContainerRecreateRequest: ['Healthy', 'Progressing', 'Degraded'] }[kind!] ?? ['Healthy', 'Progressing', 'Suspended'];
      assert.deepEqual(want.filter((s) => !statuses.has(s)), [], `${kind}: ${[...statuses].join(', ')}`);
      const got = runHealthScript(readFileSync(join(base, 'health.lua'), 'utf8'), tests.map((t) => parse(readFileSync(join(base, t.inputPath), 'utf8'))));
      assert.deepEqual(got, tests.map((t) => t.healthStatus), kind);
      if (['UnitedDeployment', 'BroadcastJob', 'AdvancedCronJob', 'ImagePullJob', 'ContainerRecreateRequest'].includes(kind!)) {
        assert.equal(existsSync(join(base, 'actions')), false, `${kind}: no actions`);
        continue;
      }
      // actions/action_test.yaml as Argo CD's runner reads it: discovery results and action outputs.
      const actions = join(base, 'actions');
      const at = parse(readFileSync(join(actions, 'action_test.yaml'), 'utf8')) as {
        discoveryTests: Array<{ inputPath: string; result: Array<{ name: string; disabled: boolean; params?: Array<{ name: string }> }> }>;
        actionTests: Array<{ action: string; inputPath: string; expectedOutputPath?: string; expectedErrorMessage?: string; parameters?: Record<string, string> }>;
      };
      const input = (p: string): unknown => parse(readFileSync(join(actions, p), 'utf8'));
      // Run as Argo CD runs them: its libraries only, actionParams from the test's parameters.
      const discovered = runLuaAction(readFileSync(join(actions, 'discovery.lua'), 'utf8'), at.discoveryTests.map((t) => input(t.inputPath))) as Array<{ result: Record<string, { disabled: boolean; params?: Array<{ name: string }> }> }>;
      assert.deepEqual(
        discovered.map((d) => Object.entries(d.result).map(([name, v]) => ({ name, disabled: v.disabled, ...(v.params ? { params: v.params } : {}) })).sort((a, b) => (a.name < b.name ? -1 : 1))),
        at.discoveryTests.map((t) => t.result),
      );
      // A running and a paused input (for a Rollout also one waiting for approval and one in a release that can jump), each offering other actions.
      assert.deepEqual(new Set(at.discoveryTests.map((t) => JSON.stringify(t.result))).size, kind === 'Rollout' ? 4 : 2, `${kind}: inputs`);
      assert.deepEqual(at.actionTests.map((t) => t.action), kind === 'Rollout' ? ['pause', 'resume', 'approve', 'undo-fast', 'undo-fast', 'jump', 'jump', 'jump'] : ['pause', 'resume']);
      for (const t of at.actionTests) {
        const [out] = runLuaAction(readFileSync(join(actions, t.action, 'action.lua'), 'utf8'), [input(t.inputPath)], t.parameters ?? {});
        assert.deepEqual(out, t.expectedErrorMessage !== undefined ? { error: t.expectedErrorMessage } : { result: input(t.expectedOutputPath!) }, `${kind} ${t.action} ${JSON.stringify(t.parameters ?? {})}`);
      }
      if (kind === 'Rollout') {
        // The release at step 2/3: undo-fast and jump to step 1 write nextStepIndex 1; jump to 3 (the next step) and to "x" fail with the commands' words.
        assert.deepEqual(at.actionTests.filter((t) => t.expectedErrorMessage).map((t) => [t.action, t.inputPath, t.expectedErrorMessage]), [
          ['undo-fast', 'testdata/running.yaml', 'rollout/web: cannot roll back fast: has no release in progress to jump in (phase Healthy, Completed)'],
          ['jump', 'testdata/in-release.yaml', 'rollout/web: step 3 is already the next step (approve the current one instead)'],
          ['jump', 'testdata/in-release.yaml', 'invalid value "x" for step: must be a step number (1..steps)'],
        ]);
        for (const out of ['rolled-back-fast', 'jumped-to-1']) assert.equal((input(`testdata/${out}.yaml`) as any).status.canaryStatus.nextStepIndex, 1, out);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--for=flux: a Kustomization snippet, spec.healthCheckExprs per kind, whose printed expressions give the example states their status', async () => {
  const r = await runCli(['gitops', 'export', '--for=flux']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^# Flux health checks \(CEL healthCheckExprs\)/);
  const snippet = parse(r.stdout) as { spec: { healthCheckExprs: Array<{ apiVersion: string; kind: string; inProgress: string; failed: string; current: string }> } };
  const entries = snippet.spec.healthCheckExprs;
  // Every kind the Argo CD export covers, in the same order.
  assert.deepEqual(entries.map((e) => [e.apiVersion, e.kind]), [
    ['apps.kruise.io/v1alpha1', 'CloneSet'],
    ['apps.kruise.io/v1alpha1', 'StatefulSet'],
    ['apps.kruise.io/v1alpha1', 'DaemonSet'],
    ['rollouts.kruise.io/v1beta1', 'Rollout'],
    ['apps.kruise.io/v1alpha1', 'SidecarSet'],
    ['apps.kruise.io/v1alpha1', 'UnitedDeployment'],
    ['apps.kruise.io/v1alpha1', 'BroadcastJob'],
    ['apps.kruise.io/v1alpha1', 'AdvancedCronJob'],
    ['apps.kruise.io/v1alpha1', 'ImagePullJob'],
    ['apps.kruise.io/v1alpha1', 'ContainerRecreateRequest'],
  ]);
  // The text as printed (through YAML), evaluated as Flux would: the states export --for=argocd writes as testdata.
  for (const [i, entry] of entries.entries()) {
    const states = HEALTH_KINDS[i]!.states;
    assert.deepEqual(states.map((s) => [s.name, fluxStatus(entry, s.object)]), states.map((s) => [s.name, fluxStatusOfHealth(s.status)]), entry.kind);
  }
  const one = await runCli(['gitops', 'export', '--for=flux', '--kinds', 'rollout,clone,ud,crr']);
  assert.equal(one.code, 0, one.stderr);
  assert.deepEqual((parse(one.stdout) as typeof snippet).spec.healthCheckExprs.map((e) => e.kind), ['Rollout', 'CloneSet', 'UnitedDeployment', 'ContainerRecreateRequest']);
});

test('bad flags are exit 2 and write nothing: no --for, an unknown tool, --out-dir with flux, an unknown kind (for either tool)', async () => {
  for (const [args, message] of [
    [['gitops', 'export'], /--for is required: --for=argocd or --for=flux/],
    [['gitops', 'export', '--for=fluxcd'], /--for must be argocd or flux, not "fluxcd"/],
    [['gitops', 'export', '--for=flux', '--out-dir', '/tmp/never-written'], /--out-dir is for --for=argocd/],
    [['gitops', 'export', '--for=flux', '--kinds', 'sidecarset,cronjob'], /no health check for "cronjob"; known: cloneset, asts/],
    [['gitops', 'export', '--for=argocd', '--kinds', 'cloneset,workloadspread'], /no health check for "workloadspread"; known: cloneset, asts, ads, rollout, sidecarset, uniteddeployment, broadcastjob, advancedcronjob, imagepulljob, containerrecreaterequest/],
  ] as const) {
    const r = await runCli([...args]);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, message);
    assert.equal(r.stdout, '');
  }
});
