// Two CI jobs approving the same release at once (issue #26): each step is promoted exactly once, and the loser
// exits 1 saying where the release is, never promoting the next step nobody looked at. The same for two
// `rollout undo --fast` at once: one step back, not two. On a sandbox with 300 ms added to every request and
// the simulated Kruise Rollout controller (v0.6.2 CRDs), which moves to the next step's pause as soon as it can:
// a loser that re-decided after its 409 found that next pause waiting. Every pair of forms this run has (npm+npm;
// with the executable: exe+exe and npm+exe), 50 tries of each, on Rollouts of their own, all at once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { EXE, LAUNCHER, REPO_ROOT, testEnv, type RunResult } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { haveCrds, KRUISE_CRDS, ROLLOUT_CRDS } from './rollout-kruise-helpers';

type Form = 'npm' | 'exe';
const PAIRS: Array<[Form, Form]> = EXE ? [['exe', 'exe'], ['npm', 'exe']] : [['npm', 'npm']];
/** Rollouts per pair: 9 approvals each (steps 10%..90% wait for a person), then 8 fast rollbacks (9 → 1). */
const ROLLOUTS_PER_PAIR = 6;
const STEPS = 10;

function run(form: Form, args: string[], kubeconfig: string): Promise<RunResult> {
  const [file, argv] = form === 'exe' ? [EXE!, args] : [process.execPath, [LAUNCHER, ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { env: testEnv(kubeconfig), cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 128, stdout, stderr });
    });
  });
}

const CS = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets';
const RO = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts';

async function create(sb: Sandbox, name: string): Promise<void> {
  const cs = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name }, spec: { replicas: STEPS, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] } }, updateStrategy: { maxUnavailable: '100%' } } };
  const steps = [...Array.from({ length: STEPS - 1 }, (_, i) => ({ replicas: `${(i + 1) * 10}%`, pause: {} })), { replicas: '100%' }];
  const ro = { apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name }, spec: { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name }, strategy: { canary: { steps } } } };
  assert.equal((await sb.api('POST', CS, cs)).status, 201);
  assert.equal((await sb.api('POST', RO, ro)).status, 201);
}

async function sub(sb: Sandbox, name: string): Promise<{ step?: number; state?: string; phase?: string }> {
  const r = (await sb.api('GET', `${RO}/${name}`)).body;
  return { step: r.status?.canaryStatus?.currentStepIndex, state: r.status?.canaryStatus?.currentStepState, phase: r.status?.phase };
}

const pausedAt = (sb: Sandbox, name: string, step: number) =>
  waitUntil(`${name} waiting for approval at step ${step}`, async () => {
    const s = await sub(sb, name);
    return (s.step === step && s.state === 'StepPaused') || undefined;
  }, 30_000, 100);

/** Status writes that went through (a refused one, 409, changed nothing). */
const statusWrites = (sb: Sandbox, name: string): number => sb.audit().filter((e) => e.verb === 'patch' && e.path === `${RO}/${name}/status` && e.code < 300).length;

describe('two rollout approve / undo --fast at once, 300 ms per request (v0.6.2 CRDs)', { skip: !haveCrds('v0.6.2') && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ readyDelay: '50ms', faults: { latencyMs: 300 }, extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS('v0.6.2')] });
  });
  after(async () => {
    await sb?.stop();
  });

  for (const [a, b] of PAIRS) {
    it(`${a}+${b}: 54 approvals in pairs promote 54 steps, one status write each; then 48 fast rollbacks in pairs go back one step each`, { timeout: 300_000 }, async () => {
      const names = Array.from({ length: ROLLOUTS_PER_PAIR }, (_, i) => `race-${a}-${b}-${i}`);
      for (const n of names) await create(sb, n);
      // Each Rollout's release goes on in parallel with the others; within one, the tries are sequential.
      await Promise.all(
        names.map(async (name) => {
          assert.equal((await sb.api('PATCH', `${CS}/${name}`, { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } } }, { contentType: 'application/merge-patch+json' })).status, 200);
          for (let step = 1; step < STEPS; step++) {
            await pausedAt(sb, name, step);
            const before = statusWrites(sb, name);
            const results = await Promise.all([run(a, ['rollout', 'approve', `rollout/${name}`], sb.kubeconfig), run(b, ['rollout', 'approve', `rollout/${name}`], sb.kubeconfig)]);
            const codes = results.map((r) => r.code).sort();
            assert.deepEqual(codes, [0, 1], `${name} step ${step}: ${results.map((r) => `exit ${r.code}: ${r.stdout}${r.stderr}`).join(' | ')}`);
            const loser = results.find((r) => r.code === 1)!;
            // It says what it found: the step already approved (after a 409), or nothing waiting (read after the winner wrote).
            assert.match(loser.stderr, new RegExp(`^error: (rollout "${name}": step ${step} was already approved; the release is at |rollout/${name}: nothing to approve )`), loser.stderr);
            assert.equal(statusWrites(sb, name) - before, 1, `${name} step ${step}: one status write`);
            // Exactly one step on: the release waits at the next step (or, after step 9, completes) — never two on.
            if (step < STEPS - 1) await pausedAt(sb, name, step + 1);
          }
          await waitUntil(`${name} complete`, async () => ((await sub(sb, name)).phase === 'Healthy') || undefined, 30_000, 100);
        }),
      );
      // Fast rollbacks need a release in progress: a new one, approved up to step 9.
      await Promise.all(
        names.map(async (name) => {
          assert.equal((await sb.api('PATCH', `${CS}/${name}`, { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.28' }] } } } }, { contentType: 'application/merge-patch+json' })).status, 200);
          for (let step = 1; step < STEPS - 1; step++) {
            await pausedAt(sb, name, step);
            assert.equal((await run('npm', ['rollout', 'approve', `rollout/${name}`], sb.kubeconfig)).code, 0);
          }
          for (let step = STEPS - 1; step > 1; step--) {
            await pausedAt(sb, name, step);
            const before = statusWrites(sb, name);
            const results = await Promise.all([run(a, ['rollout', 'undo', `rollout/${name}`, '--fast'], sb.kubeconfig), run(b, ['rollout', 'undo', `rollout/${name}`, '--fast'], sb.kubeconfig)]);
            assert.deepEqual(results.map((r) => r.code).sort(), [0, 1], `${name} from step ${step}: ${results.map((r) => `exit ${r.code}: ${r.stdout}${r.stderr}`).join(' | ')}`);
            const loser = results.find((r) => r.code === 1)!;
            assert.match(loser.stderr, new RegExp(`^error: (rollout "${name}" moved on since it was read|rollout/${name}: cannot roll back fast)`), loser.stderr);
            assert.equal(statusWrites(sb, name) - before, 1, `${name} from step ${step}: one status write`);
            // One step back, not two.
            await pausedAt(sb, name, step - 1);
          }
        }),
      );
    });
  }
});
