// `rollout status|approve|jump|pause|resume|undo` on Kruise Rollouts, driving bin/kubectl-kruise against a
// sandbox with the real CRDs (Kruise v1.9.0, Kruise Rollout v0.6.2: every status write and every patch
// of the CLI is validated by their schemas). The sandbox's Rollout controller is told to leave this
// Rollout alone: the test writes its status through the API as openkruise/rollouts v0.6.2 would, so each
// state is deterministic. rollout-kruise-rollout-flow.test.ts follows the simulated controller instead.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { spawnSync } from 'node:child_process';
import { CLI_BIN, kubectl, REPO_ROOT, runCli, streamCli, testEnv } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { jsonLines, kubectlKruise, summary, writes } from './rollout-helpers';

const SHARED = resolve(REPO_ROOT, '..', 'shared');
const KRUISE_CRDS = join(SHARED, 'kruise-crds', 'v1.9.0');
const ROLLOUT_CRDS = join(SHARED, 'kruise-rollout-crds', 'v0.6.2');
const haveCrds = existsSync(KRUISE_CRDS) && existsSync(ROLLOUT_CRDS);

const NS = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts';
const CS = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets';
const MERGE = { contentType: 'application/merge-patch+json' };

function cloneSet(name: string, image: string): unknown {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name, labels: { app: name } },
    spec: {
      replicas: 5,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image }] } },
      updateStrategy: { type: 'ReCreate' },
    },
  };
}

/**
 * Steps: 20% waiting for a person, 40% (no traffic) for 1 s, 50% with 30% traffic, then everyone (a partition-style
 * step with traffic may not release more than --partition-percent-limit, 50%: Kruise Rollout's webhook). The
 * sandbox's Rollout controller leaves it alone (kruise-sandbox/controller: none): the test writes its status.
 */
function rollout(name: string, workload: string): unknown {
  return {
    apiVersion: 'rollouts.kruise.io/v1beta1',
    kind: 'Rollout',
    metadata: { name, annotations: { 'kruise-sandbox/controller': 'none' } },
    spec: {
      workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: workload },
      strategy: {
        canary: {
          steps: [{ replicas: '20%', pause: {} }, { replicas: '40%', pause: { duration: 1 } }, { replicas: '50%', traffic: '30%', pause: {} }, { replicas: '100%' }],
          trafficRoutings: [{ service: workload, ingress: { name: workload } }],
        },
      },
    },
  };
}

interface StepStatus {
  step: number;
  state: string;
  ready?: number;
  replicas?: number;
  phase?: string;
  reason?: string;
  succeeded?: 'True' | 'False';
  workloadGeneration: number;
  lastUpdateTime?: string;
  /** The stable revision's hash (default: the one of CloneSet web's first revision). */
  stable?: string;
}

/** The hash of CloneSet web's first revision (before()): what a real controller records as stableRevision. */
let webStable = 'web-6c4f9b7d8';

/** A v1beta1 status as rollout_status.go writes it (the schema's required fields included). */
function status(gen: number, s: StepStatus): Record<string, unknown> {
  const conditions: unknown[] = [{ type: 'Progressing', status: s.reason === 'Completed' ? 'False' : 'True', reason: s.reason ?? 'InRolling', message: '', lastUpdateTime: '2026-11-25T01:00:00Z', lastTransitionTime: '2026-11-25T01:00:00Z' }];
  if (s.succeeded) conditions.push({ type: 'Succeeded', status: s.succeeded, reason: s.succeeded === 'True' ? 'Completed' : 'Cancelled', message: '', lastUpdateTime: '2026-11-25T01:00:00Z', lastTransitionTime: '2026-11-25T01:00:00Z' });
  return {
    observedGeneration: gen,
    phase: s.phase ?? 'Progressing',
    currentStepIndex: s.step,
    currentStepState: s.state,
    canaryStatus: {
      observedWorkloadGeneration: s.workloadGeneration,
      stableRevision: s.stable ?? webStable,
      canaryRevision: 'web-7b5d6c9f4',
      podTemplateHash: '7b5d6c9f4',
      canaryReplicas: s.replicas ?? 1,
      canaryReadyReplicas: s.ready ?? 1,
      currentStepIndex: s.step,
      nextStepIndex: s.step >= 4 ? -1 : s.step + 1,
      currentStepState: s.state,
      finalisingStep: '',
      lastUpdateTime: s.lastUpdateTime ?? new Date().toISOString(),
    },
    conditions,
  };
}

describe('Kruise Rollout commands against a sandbox with the real CRDs (status written as the controller would)', { skip: !haveCrds && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  let wlGen = 0;

  async function setStatus(name: string, s: StepStatus): Promise<void> {
    const ro = await sb.api('GET', `${NS}/${name}`);
    assert.equal(ro.status, 200, ro.text);
    // A release over (phase Healthy) was finalised first: doFinalising takes the in-progressing mark off the workload and
    // the BatchRelease hands its partition back (partitionstyle/cloneset control.go Finalize: partition null, paused false).
    if (s.phase === 'Healthy') {
      const w = await sb.api('PATCH', `${CS}/${ro.body.spec.workloadRef.name}`, { metadata: { annotations: { 'rollouts.kruise.io/in-progressing': null } }, spec: { updateStrategy: { partition: null, paused: false } } }, MERGE);
      assert.equal(w.status, 200, w.text);
      wlGen = w.body.metadata.generation;
      s = { ...s, workloadGeneration: wlGen };
    }
    const r = await sb.api('PATCH', `${NS}/${name}/status`, { status: status(ro.body.metadata.generation, s) }, MERGE);
    assert.equal(r.status, 200, r.text);
  }

  async function readRollout(name: string): Promise<any> {
    return (await sb.api('GET', `${NS}/${name}`)).body;
  }

  before(async () => {
    sb = await startSandbox({ readyDelay: '50ms', tls: true, extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS] });
    for (const name of ['web', 'plain']) assert.equal((await sb.api('POST', CS, cloneSet(name, 'nginx:1.25'))).status, 201);
    const first = await waitUntil('web\'s first revision', async () => (await sb.api('GET', `${CS}/web`)).body.status?.currentRevision as string | undefined);
    webStable = first.slice(first.lastIndexOf('-') + 1);
    assert.equal((await sb.api('POST', NS, rollout('web-rollout', 'web'))).status, 201);
    // A new revision: the release the Rollout would run.
    assert.equal((await sb.api('PATCH', `${CS}/web`, { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] } } } }, MERGE)).status, 200);
    wlGen = (await sb.api('GET', `${CS}/web`)).body.metadata.generation;
  });
  after(async () => {
    await sb?.stop();
  });
  beforeEach(async () => {
    await sb.api('PATCH', `${NS}/web-rollout`, { spec: { strategy: { paused: false } } }, MERGE);
  });

  it('status on a terminal: the same spinner as a workload gate while the release waits (was one line per change), a plain line at the end', { skip: spawnSync('script', ['--version']).status !== 0 && 'no script(1)' }, async () => {
    await setStatus('web-rollout', { step: 1, state: 'StepPaused', workloadGeneration: wlGen });
    const r = spawnSync('script', ['-qec', `stty cols 120 rows 20; exec '${CLI_BIN}' rollout status rollout/web-rollout --timeout=1s`, '/dev/null'], {
      env: testEnv(sb.kubeconfig, { CI: undefined, NO_COLOR: undefined, TERM: 'xterm' }),
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      timeout: 20_000,
    });
    // The pty carries stdout and stderr together.
    assert.equal(r.status, 3, r.stdout);
    assert.match(r.stdout, /[\u2800-\u28ff]\S* rollout "web-rollout" is waiting for approval at step 1\/4/, 'a spinner frame (braille) leads the waiting line');
    assert.match(r.stdout, /error: timed out waiting for /);
  });

  it('status --watch=false: a step waiting for approval is not finished (exit 4) unless --until=paused (exit 0); JSON Lines carry the contract fields', async () => {
    await setStatus('web-rollout', { step: 1, state: 'StepPaused', workloadGeneration: wlGen });
    const r = await runCli(['rollout', 'status', 'rollout/web-rollout', '--watch=false', '-o', 'json'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 4, summary(r));
    const [line] = jsonLines(r.stdout);
    assert.equal(line.state, 'StepPaused');
    assert.deepEqual(
      [line.kind, line.name, line.step, line.steps, line.stepState, line.canaryRevision, line.stableRevision, line.canaryReadyReplicas, line.canaryReplicas, line.trafficWeight],
      ['Rollout', 'web-rollout', 1, 4, 'StepPaused', 'web-7b5d6c9f4', webStable, 1, 1, null],
    );
    const paused = await runCli(['rollout', 'status', 'rollout/web-rollout', '--watch=false', '--until=paused'], { kubeconfig: sb.kubeconfig });
    assert.equal(paused.code, 0, summary(paused));
    assert.match(paused.stdout, /^rollout "web-rollout" is waiting for approval at step 1\/4 \(1 of 1 canary pods ready\): approve it to continue\n$/);
  });

  it('status -o name: the object named (the Rollout, or the workload it releases) once the --until point is reached; nothing before', async () => {
    await setStatus('web-rollout', { step: 1, state: 'StepPaused', workloadGeneration: wlGen });
    const rollout = await runCli(['rollout', 'status', 'rollout/web-rollout', '--watch=false', '--until=paused', '-o', 'name'], { kubeconfig: sb.kubeconfig });
    assert.equal(rollout.code, 0, summary(rollout));
    assert.equal(rollout.stdout, 'rollout.rollouts.kruise.io/web-rollout\n');
    const workload = await runCli(['rollout', 'status', 'cloneset/web', '--watch=false', '--until=paused', '-o', 'name'], { kubeconfig: sb.kubeconfig });
    assert.equal(workload.code, 0, summary(workload));
    assert.equal(workload.stdout, 'cloneset.apps.kruise.io/web\n');
    const notYet = await runCli(['rollout', 'status', 'cloneset/web', '--watch=false', '-o', 'name'], { kubeconfig: sb.kubeconfig });
    assert.equal(notYet.code, 4, summary(notYet));
    assert.equal(notYet.stdout, '');
  });

  it('status cloneset/web follows the Rollout releasing it and says so on stderr (one list of Rollouts); a CloneSet without Rollout is unchanged', async () => {
    await setStatus('web-rollout', { step: 3, state: 'StepUpgrade', ready: 1, replicas: 3, workloadGeneration: wlGen });
    sb.clearAudit();
    const r = await runCli(['rollout', 'status', 'cloneset/web', '--watch=false'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 4, summary(r));
    assert.equal(r.stderr, 'cloneset/web is released by rollout/web-rollout: following it\n');
    assert.match(r.stdout, /^Waiting for rollout "web-rollout" to finish: step 3\/4 StepUpgrade, 1 of 3 canary pods ready; traffic 30%\.\.\.\n$/);
    const lists = sb.audit().filter((e) => e.verb === 'list' && e.path.endsWith('/rollouts'));
    assert.equal(lists.length, 1, JSON.stringify(lists));
    const plain = await runCli(['rollout', 'status', 'cloneset/plain', '--watch=false'], { kubeconfig: sb.kubeconfig });
    assert.equal(plain.stderr, '');
    assert.doesNotMatch(plain.stdout, /rollout "/);
  });

  it('status --watch: one line per change (StepUpgrade → StepPaused → Completed), exit 0 when Healthy, by watching (no polling)', async () => {
    await setStatus('web-rollout', { step: 1, state: 'StepUpgrade', ready: 0, workloadGeneration: wlGen });
    sb.clearAudit();
    const s = streamCli(['rollout', 'status', 'rollout/web-rollout', '--timeout=30s'], { kubeconfig: sb.kubeconfig });
    await s.waitFor('step 1/4 StepUpgrade, 0 of 1 canary pods ready');
    await setStatus('web-rollout', { step: 1, state: 'StepPaused', workloadGeneration: wlGen });
    await s.waitFor('waiting for approval at step 1/4');
    await setStatus('web-rollout', { step: 4, state: 'Completed', ready: 5, replicas: 5, phase: 'Healthy', reason: 'Completed', succeeded: 'True', workloadGeneration: wlGen });
    await s.waitFor('successfully rolled out');
    const r = await s.stop();
    assert.equal(r.code, 0, summary(r));
    const lines = r.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, 2), [
      'Waiting for rollout "web-rollout" to finish: step 1/4 StepUpgrade, 0 of 1 canary pods ready...',
      'rollout "web-rollout" is waiting for approval at step 1/4 (1 of 1 canary pods ready): approve it to continue',
    ]);
    assert.equal(lines.at(-1), 'rollout "web-rollout" successfully rolled out');
    // Between them only the hand-back (the workload finalised before the status says Healthy: the step's line stays,
    // nothing decided on the lagging status) and the workload's own rollout once the release is over (issue #25:
    // the pods decide), each line once.
    for (const line of lines.slice(2, -1)) assert.match(line, /^Waiting for (cloneset "web" rollout to finish|rollout "web-rollout" to finish: (the controller has not observed workload generation \d+ yet|step 1\/4 StepPaused, 1 of 1 canary pods ready\.\.\.$))/);
    assert.equal(new Set(lines).size, lines.length, 'no repeated line');
    const gets = sb.audit().filter((e) => e.verb === 'get' || e.verb === 'list');
    assert.ok(gets.length <= 6, `few reads, no polling: ${gets.map((e) => `${e.verb} ${e.path}`).join(', ')}`);
  });

  it('status: a cancelled release (Succeeded=False) fails with exit 1; --timeout exits 3', async () => {
    await setStatus('web-rollout', { step: 2, state: 'Completed', phase: 'Healthy', reason: 'Completed', succeeded: 'False', workloadGeneration: wlGen });
    const r = await runCli(['rollout', 'status', 'rollout/web-rollout', '-o', 'json'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 1, summary(r));
    assert.equal(jsonLines(r.stdout).at(-1).state, 'Failed');
    assert.match(r.stderr, /^error: rollout "web-rollout" was cancelled.*\(Succeeded=False\)\n$/);
    await setStatus('web-rollout', { step: 2, state: 'StepUpgrade', workloadGeneration: wlGen });
    const t = await runCli(['rollout', 'status', 'rollout/web-rollout', '--timeout=1s'], { kubeconfig: sb.kubeconfig });
    assert.equal(t.code, 3, summary(t));
    assert.match(t.stderr, /^error: timed out waiting for rollout "web-rollout": /);
  });

  it('status --watch: the Rollout deleted while waiting ends the wait with exit 1 and says so', async () => {
    // Its own workload: Kruise Rollout's webhook refuses a second Rollout of CloneSet web (validateRolloutConflict).
    assert.equal((await sb.api('POST', CS, cloneSet('doomed', 'nginx:1.25'))).status, 201);
    assert.equal((await sb.api('POST', NS, rollout('doomed', 'doomed'))).status, 201);
    await setStatus('doomed', { step: 1, state: 'StepUpgrade', ready: 0, workloadGeneration: 1 });
    const s = streamCli(['rollout', 'status', 'rollout/doomed', '--timeout=30s'], { kubeconfig: sb.kubeconfig });
    await s.waitFor('step 1/4 StepUpgrade');
    assert.equal((await sb.api('DELETE', `${NS}/doomed`)).status, 200);
    await waitUntil('the status command to exit', () => (s.child.exitCode !== null ? true : undefined), 15_000);
    const r = await s.stop();
    assert.equal(r.code, 1, summary(r));
    assert.match(r.stderr, /^error: rollout "doomed" was deleted while waiting for its release\n$/);
  });

  it('status of a Rollout whose workload does not exist fails at once (exit 1, watching or not); approve on it writes nothing', async () => {
    const orphan = rollout('orphan', 'ghost');
    assert.equal((await sb.api('POST', NS, orphan)).status, 201);
    for (const watch of ['--watch=true', '--watch=false']) {
      const r = await runCli(['rollout', 'status', 'rollout/orphan', watch, '--timeout=20s'], { kubeconfig: sb.kubeconfig });
      assert.equal(r.code, 1, summary(r));
      assert.equal(r.stderr, 'error: rollout "orphan" is blocked: workload CloneSet/ghost not found\n');
    }
    sb.clearAudit();
    const a = await runCli(['rollout', 'approve', 'rollout/orphan'], { kubeconfig: sb.kubeconfig });
    assert.equal(a.code, 1, summary(a));
    assert.equal(a.stderr, 'error: rollout/orphan: nothing to approve (phase unknown)\n');
    assert.deepEqual(writes(sb.audit()), []);
    assert.equal((await sb.api('DELETE', `${NS}/orphan`)).status, 200);
  });

  it('status: bad --until (exit 2) and a missing Rollout (exit 1), one line each', async () => {
    const bad = await runCli(['rollout', 'status', 'rollout/web-rollout', '--until=soon'], { kubeconfig: sb.kubeconfig });
    assert.equal(bad.code, 2, summary(bad));
    assert.match(bad.stderr, /^error: invalid --until "soon": expected paused, step=N \(N ≥ 1\) or complete\n$/);
    const beyond = await runCli(['rollout', 'status', 'rollout/web-rollout', '--until=step=9', '--watch=false'], { kubeconfig: sb.kubeconfig });
    assert.equal(beyond.code, 2, summary(beyond));
    assert.match(beyond.stderr, /has 4 steps: --until=step=9 cannot be reached/);
    const missing = await runCli(['rollout', 'status', 'rollout/nope'], { kubeconfig: sb.kubeconfig });
    assert.equal(missing.code, 1, summary(missing));
    assert.match(missing.stderr, /^error: rollouts\.rollouts\.kruise\.io "nope" not found in namespace "default"\n$/);
  });

  it('approve: StepPaused → StepReady on the status subresource (one PATCH), through rollout/NAME or the workload; nothing waiting → exit 1, no write', async () => {
    await setStatus('web-rollout', { step: 1, state: 'StepPaused', workloadGeneration: wlGen });
    sb.clearAudit();
    const r = await runCli(['rollout', 'approve', 'rollout/web-rollout'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'rollout.rollouts.kruise.io/web-rollout approved\n');
    const ro = await readRollout('web-rollout');
    assert.deepEqual([ro.status.canaryStatus.currentStepState, ro.status.currentStepState, ro.status.canaryStatus.currentStepIndex], ['StepReady', 'StepReady', 1]);
    assert.deepEqual(writes(sb.audit()).map((e) => `${e.verb} ${e.path}`), [`patch ${NS}/web-rollout/status`]);

    sb.clearAudit();
    const again = await runCli(['rollout', 'approve', 'rollout/web-rollout'], { kubeconfig: sb.kubeconfig });
    assert.equal(again.code, 1, summary(again));
    assert.equal(again.stderr, 'error: rollout/web-rollout: nothing to approve (step 1/4 is StepReady)\n');
    assert.deepEqual(writes(sb.audit()), []);

    await setStatus('web-rollout', { step: 3, state: 'StepPaused', replicas: 3, ready: 3, workloadGeneration: wlGen });
    const viaWorkload = await runCli(['rollout', 'approve', 'cloneset/web'], { kubeconfig: sb.kubeconfig });
    assert.equal(viaWorkload.code, 0, summary(viaWorkload));
    assert.equal(viaWorkload.stdout, 'rollout.rollouts.kruise.io/web-rollout approved\n');
    assert.equal((await readRollout('web-rollout')).status.canaryStatus.currentStepState, 'StepReady');
  });

  it('approve: no Rollout for the workload, a missing workload, a wrong kind, and the viewer (403 explained): one line each, nothing written', async () => {
    await setStatus('web-rollout', { step: 1, state: 'StepPaused', workloadGeneration: wlGen });
    sb.clearAudit();
    const none = await runCli(['rollout', 'approve', 'cloneset/plain'], { kubeconfig: sb.kubeconfig });
    assert.equal(none.code, 1, summary(none));
    assert.match(none.stderr, /^error: cloneset\/plain is not released by a Kruise Rollout in namespace "default": nothing to approve\n$/);
    const missing = await runCli(['rollout', 'approve', 'cloneset/ghost'], { kubeconfig: sb.kubeconfig });
    assert.equal(missing.code, 1, summary(missing));
    assert.match(missing.stderr, /^error: clonesets\.apps\.kruise\.io "ghost" not found/);
    const pod = await runCli(['rollout', 'approve', 'pod/x'], { kubeconfig: sb.kubeconfig });
    assert.equal(pod.code, 2, summary(pod));
    const viewer = await runCli(['rollout', 'approve', 'rollout/web-rollout', '--context', 'viewer'], { kubeconfig: sb.kubeconfig });
    assert.equal(viewer.code, 1, summary(viewer));
    const lines = viewer.stderr.trim().split('\n');
    assert.match(lines[0]!, /^error: rollout\/web-rollout: not approved: viewer cannot patch rollouts\/status\S* in namespace default/);
    assert.equal(lines[1], 'hint: this needs the "patch" verb on "rollouts/status" (group rollouts.kruise.io) in namespace "default"');
    assert.deepEqual(writes(sb.audit()).filter((e) => e.code < 400), []);
    assert.equal((await readRollout('web-rollout')).status.canaryStatus.currentStepState, 'StepPaused');
  });

  it('viewer: pause and jump refused with the permission they need, nothing written', async () => {
    await setStatus('web-rollout', { step: 2, state: 'StepUpgrade', workloadGeneration: wlGen });
    const p = await runCli(['rollout', 'pause', 'rollout/web-rollout', '--context', 'viewer'], { kubeconfig: sb.kubeconfig });
    assert.equal(p.code, 1, summary(p));
    assert.match(p.stderr, /^error: rollout\/web-rollout: not paused: viewer cannot patch rollouts\S* in namespace default\nhint: this needs the "patch" verb on "rollouts" \(group rollouts\.kruise\.io\) in namespace "default"\n$/);
    const j = await runCli(['rollout', 'jump', 'rollout/web-rollout', '--to-step', '4', '--context', 'viewer'], { kubeconfig: sb.kubeconfig });
    assert.equal(j.code, 1, summary(j));
    assert.match(j.stderr, /hint: this needs the "patch" verb on "rollouts\/status"/);
    const ro = await readRollout('web-rollout');
    assert.deepEqual([ro.spec.strategy.paused ?? false, ro.status.canaryStatus.nextStepIndex], [false, 3]);
  });

  it('approve a blue-green release (blueGreenStatus, v1beta1 only), valid against the v0.6.2 schema', async () => {
    const bg = {
      apiVersion: 'rollouts.kruise.io/v1beta1',
      kind: 'Rollout',
      metadata: { name: 'bg', annotations: { 'kruise-sandbox/controller': 'none' } },
      spec: { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'plain' }, strategy: { blueGreen: { steps: [{ replicas: '50%', traffic: '0%', pause: {} }, { replicas: '100%', traffic: '100%' }] } } },
    };
    const created = await sb.api('POST', NS, bg);
    assert.equal(created.status, 201, created.text);
    const plainGen = (await sb.api('GET', `${CS}/plain`)).body.metadata.generation;
    const st = await sb.api('PATCH', `${NS}/bg/status`, {
      status: {
        observedGeneration: created.body.metadata.generation,
        phase: 'Progressing',
        currentStepIndex: 1,
        currentStepState: 'StepPaused',
        blueGreenStatus: {
          observedWorkloadGeneration: plainGen,
          stableRevision: 'plain-1',
          updatedRevision: 'plain-2',
          podTemplateHash: 'p2',
          updatedReplicas: 3,
          updatedReadyReplicas: 3,
          currentStepIndex: 1,
          nextStepIndex: 2,
          currentStepState: 'StepPaused',
          finalisingStep: '',
          lastUpdateTime: new Date().toISOString(),
        },
        conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', message: '', lastUpdateTime: '2026-11-25T01:00:00Z', lastTransitionTime: '2026-11-25T01:00:00Z' }],
      },
    }, MERGE);
    assert.equal(st.status, 200, st.text);
    const status = await runCli(['rollout', 'status', 'rollout/bg', '--watch=false', '-o', 'json'], { kubeconfig: sb.kubeconfig });
    assert.equal(status.code, 4, summary(status));
    assert.deepEqual((({ state, canaryReplicas, canaryRevision }) => ({ state, canaryReplicas, canaryRevision }))(jsonLines(status.stdout)[0]), { state: 'StepPaused', canaryReplicas: 3, canaryRevision: 'plain-2' });
    const r = await runCli(['rollout', 'approve', 'cloneset/plain'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, summary(r));
    const after = await readRollout('bg');
    assert.deepEqual([after.status.blueGreenStatus.currentStepState, after.status.currentStepState], ['StepReady', 'StepReady']);
    assert.equal((await sb.api('DELETE', `${NS}/bg`)).status, 200);
  });

  it('jump --to-step: out of range → exit 2 before any write; a valid step sets status nextStepIndex', async () => {
    await setStatus('web-rollout', { step: 2, state: 'StepUpgrade', workloadGeneration: wlGen });
    sb.clearAudit();
    const out = await runCli(['rollout', 'jump', 'rollout/web-rollout', '--to-step', '9'], { kubeconfig: sb.kubeconfig });
    assert.equal(out.code, 2, summary(out));
    assert.equal(out.stderr, 'error: rollout/web-rollout: has steps 1..4: cannot jump to step 9\n');
    const notNumber = await runCli(['rollout', 'jump', 'rollout/web-rollout', '--to-step', 'x'], { kubeconfig: sb.kubeconfig });
    assert.equal(notNumber.code, 2, summary(notNumber));
    assert.deepEqual(writes(sb.audit()), []);
    const r = await runCli(['rollout', 'jump', 'rollout/web-rollout', '--to-step', '4'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'rollout.rollouts.kruise.io/web-rollout jumped to step 4\n');
    assert.equal((await readRollout('web-rollout')).status.canaryStatus.nextStepIndex, 4);
    const wrongKind = await runCli(['rollout', 'jump', 'cloneset/plain', '--to-step', '2'], { kubeconfig: sb.kubeconfig });
    assert.equal(wrongKind.code, 1, summary(wrongKind));
    assert.match(wrongKind.stderr, /^error: cloneset\/plain is not released by a Kruise Rollout/);
  });

  it('pause|resume rollout/NAME: spec.strategy.paused; already paused → exit 1, nothing sent; status then says Paused', async () => {
    const p = await runCli(['rollout', 'pause', 'rollout/web-rollout'], { kubeconfig: sb.kubeconfig });
    assert.equal(p.code, 0, summary(p));
    assert.equal(p.stdout, 'rollout.rollouts.kruise.io/web-rollout paused\n');
    assert.equal((await readRollout('web-rollout')).spec.strategy.paused, true);
    sb.clearAudit();
    const again = await runCli(['rollout', 'pause', 'rollout/web-rollout'], { kubeconfig: sb.kubeconfig });
    assert.equal(again.code, 1, summary(again));
    assert.equal(again.stderr, 'error: rollout.rollouts.kruise.io "web-rollout" is already paused\n');
    assert.deepEqual(writes(sb.audit()), []);
    await setStatus('web-rollout', { step: 2, state: 'StepUpgrade', reason: 'Paused', workloadGeneration: wlGen });
    const st = await runCli(['rollout', 'status', 'rollout/web-rollout', '--watch=false'], { kubeconfig: sb.kubeconfig });
    assert.equal(st.code, 4, summary(st));
    assert.match(st.stdout, /is paused \(spec\.strategy\.paused\) at step 2\/4: resume it to continue/);
    const r = await runCli(['rollout', 'resume', 'rollout/web-rollout'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'rollout.rollouts.kruise.io/web-rollout resumed\n');
    assert.equal((await readRollout('web-rollout')).spec.strategy.paused, false);
  });

  it('undo --fast (kruise-tools): back to the previous step without traffic and with the most pods (nextStepIndex); at step 1 → exit 1, nothing written', async () => {
    await setStatus('web-rollout', { step: 3, state: 'StepPaused', replicas: 3, ready: 3, workloadGeneration: wlGen });
    const r = await runCli(['rollout', 'undo', 'cloneset/web', '--fast'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'rollout.rollouts.kruise.io/web-rollout rolled back to step 2\n');
    assert.equal((await readRollout('web-rollout')).status.canaryStatus.nextStepIndex, 2);
    assert.equal((await sb.api('GET', `${CS}/web`)).body.spec.template.spec.containers[0].image, 'nginx:1.26', 'the template is kept');
    await setStatus('web-rollout', { step: 1, state: 'StepPaused', workloadGeneration: wlGen });
    sb.clearAudit();
    const first = await runCli(['rollout', 'undo', 'rollout/web-rollout', '--fast'], { kubeconfig: sb.kubeconfig });
    assert.equal(first.code, 1, summary(first));
    assert.equal(first.stderr, 'error: rollout/web-rollout: cannot roll back fast: already at the first step\n');
    assert.deepEqual(writes(sb.audit()), []);
    const noFast = await runCli(['rollout', 'undo', 'rollout/web-rollout'], { kubeconfig: sb.kubeconfig });
    assert.equal(noFast.code, 2, summary(noFast));
  });

  it('undo cloneset/web under a Rollout: the stable template comes back (Kruise Rollout\'s rollback) and the CLI says the Rollout cancels its release', async () => {
    await waitUntil('two revisions of web', async () => {
      const list = await sb.api('GET', '/apis/apps/v1/namespaces/default/controllerrevisions?labelSelector=app%3Dweb');
      return list.body.items.length >= 2 || undefined;
    });
    // A release in progress (the webhook's mark back on the workload, as for the template change of before()).
    await setStatus('web-rollout', { step: 1, state: 'StepPaused', workloadGeneration: wlGen });
    assert.equal((await sb.api('PATCH', `${CS}/web`, { metadata: { annotations: { 'rollouts.kruise.io/in-progressing': '{"rolloutName":"web-rollout"}' } } }, MERGE)).status, 200);
    const r = await runCli(['rollout', 'undo', 'cloneset/web'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'cloneset.apps.kruise.io/web rolled back\n');
    assert.match(r.stderr, /^cloneset\/web is released by rollout\/web-rollout: it cancels its release \(Kruise Rollout's rollback\)/);
    assert.equal((await sb.api('GET', `${CS}/web`)).body.spec.template.spec.containers[0].image, 'nginx:1.25');
  });

  it('undo deployment/api paused by its Rollout (Kruise Rollout pauses a Deployment it releases) is not refused: the template comes back', async () => {
    const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
    const deploy = (image: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'api', labels: { app: 'api' } },
      spec: { replicas: 2, selector: { matchLabels: { app: 'api' } }, template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'app', image }] } } },
    });
    assert.equal((await sb.api('POST', DEPLOY, deploy('nginx:1.25'))).status, 201);
    await waitUntil('first ReplicaSet of api', async () => ((await sb.api('GET', '/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dapi')).body.items.length >= 1) || undefined);
    assert.equal((await sb.api('PATCH', `${DEPLOY}/api`, { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] } } } }, MERGE)).status, 200);
    await waitUntil('second ReplicaSet of api', async () => ((await sb.api('GET', '/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dapi')).body.items.length >= 2) || undefined);
    const ro = rollout('api-rollout', 'api') as { spec: { workloadRef: Record<string, string> } };
    ro.spec.workloadRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' };
    assert.equal((await sb.api('POST', NS, ro)).status, 201);
    // Its release of nginx:1.26 in progress, from the first ReplicaSet's pod-template-hash (controller_finder.go getDeployment).
    const rsList = (await sb.api('GET', '/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dapi')).body.items as any[];
    const stableRs = rsList.find((x) => x.spec.template.spec.containers[0].image === 'nginx:1.25');
    await setStatus('api-rollout', { step: 1, state: 'StepPaused', workloadGeneration: (await sb.api('GET', `${DEPLOY}/api`)).body.metadata.generation + 1, stable: stableRs.metadata.labels['pod-template-hash'] });
    assert.equal((await sb.api('PATCH', `${DEPLOY}/api`, { spec: { paused: true } }, MERGE)).status, 200);
    const r = await runCli(['rollout', 'undo', 'deployment/api'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'deployment.apps/api rolled back\n');
    assert.match(r.stderr, /^deployment\/api is released by rollout\/api-rollout: it cancels its release/);
    assert.equal((await sb.api('GET', `${DEPLOY}/api`)).body.spec.template.spec.containers[0].image, 'nginx:1.25');
  });

  it('through kubectl\'s plugin mechanism: kubectl kruise rollout approve / status rollout/NAME', async () => {
    await setStatus('web-rollout', { step: 1, state: 'StepPaused', workloadGeneration: wlGen });
    const st = await kubectlKruise(sb, ['rollout', 'status', 'rollout/web-rollout', '--watch=false']);
    assert.equal(st.code, 4, summary(st));
    const r = await kubectlKruise(sb, ['rollout', 'approve', 'rollout/web-rollout']);
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'rollout.rollouts.kruise.io/web-rollout approved\n');
    const k = await kubectl(['get', 'rollouts.rollouts.kruise.io', 'web-rollout', '-o', 'jsonpath={.status.canaryStatus.currentStepState}'], sb.kubeconfig);
    assert.equal(k.stdout, 'StepReady');
  });
});

const ROLLOUT_CRDS_V04 = join(SHARED, 'kruise-rollout-crds', 'v0.4.4');

describe('Kruise Rollout v0.4.4 (v1alpha1 only, real CRDs): status, approve, jump and pause write what that schema accepts', { skip: !(existsSync(KRUISE_CRDS) && existsSync(ROLLOUT_CRDS_V04)) && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  const ALPHA = '/apis/rollouts.kruise.io/v1alpha1/namespaces/default/rollouts';
  before(async () => {
    sb = await startSandbox({ readyDelay: '50ms', extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS_V04] });
    assert.equal((await sb.api('POST', CS, cloneSet('web', 'nginx:1.25'))).status, 201);
    const created = await sb.api('POST', ALPHA, {
      apiVersion: 'rollouts.kruise.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web-rollout', annotations: { 'kruise-sandbox/controller': 'none' } },
      spec: {
        objectRef: { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web' } },
        strategy: { canary: { steps: [{ replicas: 1, weight: 20, pause: {} }, { weight: 50, pause: { duration: 120 } }, { replicas: '100%' }], trafficRoutings: [{ service: 'web', ingress: { name: 'web' } }] } },
      },
    });
    assert.equal(created.status, 201, created.text);
    const wl = (await sb.api('GET', `${CS}/web`)).body;
    const st = await sb.api('PATCH', `${ALPHA}/web-rollout/status`, {
      status: {
        observedGeneration: created.body.metadata.generation,
        phase: 'Progressing',
        canaryStatus: {
          observedWorkloadGeneration: wl.metadata.generation,
          stableRevision: 'web-6c4f9b7d8',
          canaryRevision: 'web-7b5d6c9f4',
          podTemplateHash: '7b5d6c9f4',
          canaryReplicas: 1,
          canaryReadyReplicas: 1,
          currentStepIndex: 1,
          currentStepState: 'StepPaused',
          lastUpdateTime: new Date().toISOString(),
        },
        conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', message: '', lastUpdateTime: '2026-11-25T01:00:00Z', lastTransitionTime: '2026-11-25T01:00:00Z' }],
      },
    }, MERGE);
    assert.equal(st.status, 200, st.text);
  });
  after(async () => {
    await sb?.stop();
  });

  it('status reads v1alpha1 (weight as trafficWeight); approve patches only canaryStatus; jump is refused (no nextStepIndex before v0.5); pause sets spec.strategy.paused', async () => {
    const st = await runCli(['rollout', 'status', 'rollout/web-rollout', '--watch=false', '-o', 'json'], { kubeconfig: sb.kubeconfig });
    assert.equal(st.code, 4, summary(st));
    const [line] = jsonLines(st.stdout);
    assert.deepEqual([line.apiVersion, line.state, line.step, line.steps, line.trafficWeight], ['rollouts.kruise.io/v1alpha1', 'StepPaused', 1, 3, '20%']);
    const dry = await runCli(['rollout', 'approve', 'rollout/web-rollout', '--dry-run=server'], { kubeconfig: sb.kubeconfig });
    assert.equal(dry.code, 0, summary(dry));
    assert.equal(dry.stdout, 'rollout.rollouts.kruise.io/web-rollout approved (server dry run)\n');
    assert.equal((await sb.api('GET', `${ALPHA}/web-rollout`)).body.status.canaryStatus.currentStepState, 'StepPaused');
    const r = await runCli(['rollout', 'approve', 'rollout/web-rollout'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, summary(r));
    assert.equal((await sb.api('GET', `${ALPHA}/web-rollout`)).body.status.canaryStatus.currentStepState, 'StepReady');
    sb.clearAudit();
    const jump = await runCli(['rollout', 'jump', 'rollout/web-rollout', '--to-step', '3'], { kubeconfig: sb.kubeconfig });
    assert.equal(jump.code, 1, summary(jump));
    assert.match(jump.stderr, /^error: rollout\/web-rollout: has no status nextStepIndex: this Kruise Rollout release \(before v0\.5\) cannot jump steps\n$/);
    assert.deepEqual(writes(sb.audit()), []);
    const p = await runCli(['rollout', 'pause', 'rollout/web-rollout'], { kubeconfig: sb.kubeconfig });
    assert.equal(p.code, 0, summary(p));
    assert.equal((await sb.api('GET', `${ALPHA}/web-rollout`)).body.spec.strategy.paused, true);
  });
});
