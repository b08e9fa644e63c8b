// Two CI jobs approving the same release at once (issue #26): each step is promoted exactly once, and the loser
// exits 1 saying where the release is, never promoting the next step nobody looked at. The same for two
// `rollout undo --fast` at once: one step back, not two. Then approve, jump, undo --fast, pause and resume while
// the controller keeps writing the Rollout's status: each goes through at once with one write (a write guarded
// by the resourceVersion was refused again and again: exit 1 "still conflicting").
//
// A sandbox with 300 ms added to every request and the v0.6.2 CRDs. The Rollouts are left alone by the sandbox's
// controller (kruise-sandbox/controller: none): the test is their controller, through the status subresource, so
// that the two commands of a pair really race. It moves the release on as the controller does (an approved step
// to the next step's pause; a jump asked for, to that step's pause) as soon as the write lands and both commands
// have read the Rollout — not before: a command that first reads the Rollout once the next step waits has no way
// of telling it from a later approval, and approves it, as kubectl would. Every pair of forms this run has
// (npm+npm; with the executable: exe+exe and npm+exe), 50 tries of each, on 10 Rollouts at once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { EXE, LAUNCHER, REPO_ROOT, testEnv, type RunResult } from '../helpers/cli';
import { startSandbox, type AuditEntry, type Sandbox } from '../helpers/sandbox';
import { haveCrds, KRUISE_CRDS, ROLLOUT_CRDS } from './rollout-kruise-helpers';

type Form = 'npm' | 'exe';
const PAIRS: Array<[Form, Form]> = EXE ? [['exe', 'exe'], ['npm', 'exe']] : [['npm', 'npm']];
const ROLLOUTS = 10;
const TRIES_EACH = 5;
const STEPS = 10;
const RO = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts';
/** The test's own writes (the controller's part) carry this field manager: the audit tells them apart. */
const OURS = 'fieldManager=race-controller';

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

interface Sub {
  currentStepIndex: number;
  currentStepState: string;
  nextStepIndex: number;
  canaryRevision: string;
  canaryReadyReplicas: number;
}

/** The audit log as it grows: read from where the last read stopped. */
class AuditTail {
  readonly entries: AuditEntry[] = [];
  private offset = 0;
  private rest = '';
  constructor(private readonly file: string) {}
  refresh(): void {
    let size = 0;
    try {
      size = statSync(this.file).size;
    } catch {
      return;
    }
    if (size <= this.offset) return;
    const fd = openSync(this.file, 'r');
    try {
      const buf = Buffer.alloc(size - this.offset);
      readSync(fd, buf, 0, buf.length, this.offset);
      this.offset = size;
      const lines = (this.rest + buf.toString('utf8')).split('\n');
      this.rest = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) this.entries.push(JSON.parse(l) as AuditEntry);
    } finally {
      closeSync(fd);
    }
  }
}

/** Every Rollout of the namespace as the last watch event had it. */
function watchRollouts(url: string): { latest: Map<string, { status?: { canaryStatus?: Sub } }>; stop: () => void; started: Promise<void> } {
  const latest = new Map<string, { status?: { canaryStatus?: Sub } }>();
  const ctl = new AbortController();
  let answered: () => void = () => undefined;
  const started = new Promise<void>((r) => (answered = r));
  void (async () => {
    const res = await fetch(`${url}${RO}?watch=1`, { signal: ctl.signal, headers: { accept: 'application/json', 'accept-encoding': 'identity' } });
    answered();
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (line) {
          const ev = JSON.parse(line) as { object: { metadata: { name: string }; status?: { canaryStatus?: Sub } } };
          latest.set(ev.object.metadata.name, ev.object);
        }
      }
    }
  })().catch(() => undefined);
  return { latest, started, stop: () => ctl.abort() };
}

const tick = () => new Promise((r) => setTimeout(r, 10));

/** `check` once it holds, polled on what the watch has delivered (2 s at most: the write it waits for is done). */
async function eventually<T>(what: string, check: () => T | undefined | false): Promise<T> {
  for (const end = Date.now() + 2000; ; await tick()) {
    const v = check();
    if (v) return v;
    if (Date.now() > end) assert.fail(`not seen through the watch: ${what}`);
  }
}

describe('two rollout approve / undo --fast at once, 300 ms per request (v0.6.2 CRDs)', { skip: !haveCrds('v0.6.2') && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  let tail: AuditTail;
  let watch: ReturnType<typeof watchRollouts>;
  before(async () => {
    sb = await startSandbox({ faults: { latencyMs: 300 }, extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS('v0.6.2')] });
    tail = new AuditTail(sb.auditLog);
    watch = watchRollouts(sb.url);
    await watch.started;
  });
  after(async () => {
    watch?.stop();
    await sb?.stop();
  });

  const natural = (step: number) => (step >= STEPS ? -1 : step + 1);
  /** The status the controller writes once a step waits for a person (rollout_canary.go, StepPaused). */
  function pausedAt(step: number, o: { next?: number; revision?: string; ready?: number } = {}): Record<string, unknown> {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const revision = o.revision ?? 'race-6d9c8b7f5';
    const message = `Rollout is in step(${step}/${STEPS}), and you need manually confirm to enter the next step`;
    return {
      observedGeneration: 1,
      phase: 'Progressing',
      message,
      currentStepIndex: step,
      currentStepState: 'StepPaused',
      conditions: [{ type: 'Progressing', status: 'True', reason: 'InRolling', message, lastUpdateTime: now, lastTransitionTime: now }],
      canaryStatus: {
        canaryRevision: revision,
        podTemplateHash: revision,
        canaryReplicas: step,
        canaryReadyReplicas: o.ready ?? step,
        currentStepIndex: step,
        currentStepState: 'StepPaused',
        nextStepIndex: o.next ?? natural(step),
        finalisingStep: '',
        observedWorkloadGeneration: 2,
        lastUpdateTime: now,
      },
    };
  }

  async function setStatus(name: string, status: Record<string, unknown>): Promise<void> {
    const r = await sb.api('PATCH', `${RO}/${name}/status?${OURS}`, { status }, { contentType: 'application/merge-patch+json' });
    assert.equal(r.status, 200, r.text);
  }

  async function create(name: string): Promise<void> {
    const steps = [...Array.from({ length: STEPS - 1 }, (_, i) => ({ replicas: `${(i + 1) * 10}%`, pause: {} })), { replicas: '100%' }];
    const ro = {
      apiVersion: 'rollouts.kruise.io/v1beta1',
      kind: 'Rollout',
      metadata: { name, annotations: { 'kruise-sandbox/controller': 'none' } },
      spec: { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name }, strategy: { canary: { steps } } },
    };
    const r = await sb.api('POST', RO, ro);
    assert.equal(r.status, 201, r.text);
  }

  const sub = (name: string): Sub | undefined => watch.latest.get(name)?.status?.canaryStatus;

  /**
   * One try: the two commands at once on a Rollout waiting at `step`; the test, as the controller, moves the
   * release on (`moveOn`) once `landed` says a command's write is in and both commands have read the Rollout.
   * Returns both results and the commands' status writes that went through.
   */
  async function race(forms: [Form, Form], name: string, args: string[], landed: (s: Sub) => boolean, moveOn: () => Promise<void>): Promise<{ results: RunResult[]; writes: number; moved: boolean }> {
    tail.refresh();
    const mark = tail.entries.length;
    const since = () => tail.entries.slice(mark);
    let exited = 0;
    const results = Promise.all(forms.map((f) => run(f, args, sb.kubeconfig).finally(() => exited++)));
    let moved = false;
    // Until both ended and the release moved on (the watch may deliver the write a moment after its command ended).
    for (let grace = 0; exited < 2 || (!moved && grace < 200); grace += exited < 2 ? 0 : 1) {
      tail.refresh();
      const reads = since().filter((e) => e.verb === 'get' && e.path === `${RO}/${name}`).length;
      const s = sub(name);
      if (!moved && reads >= 2 && s && landed(s)) {
        moved = true;
        await moveOn();
      }
      await tick();
    }
    tail.refresh();
    const writes = since().filter((e) => e.verb === 'patch' && e.path === `${RO}/${name}/status` && e.code < 300 && !e.query.includes(OURS)).length;
    return { results: await results, writes, moved };
  }

  function loserOf(results: RunResult[], what: string): RunResult {
    assert.deepEqual(results.map((r) => r.code).sort(), [0, 1], `${what}: ${results.map((r) => `exit ${r.code}: ${r.stdout}${r.stderr}`).join(' | ')}`);
    return results.find((r) => r.code === 1)!;
  }

  for (const [a, b] of PAIRS) {
    it(`${a}+${b}: 50 pairs of approvals promote 50 steps, one status write each; the loser exits 1 saying where the release is`, { timeout: 240_000 }, async (t) => {
      const names = Array.from({ length: ROLLOUTS }, (_, i) => `approve-${a}-${b}-${i}`);
      const worst: string[] = [];
      await Promise.all(
        names.map(async (name) => {
          await create(name);
          for (let step = 1; step <= TRIES_EACH; step++) {
            await setStatus(name, pausedAt(step));
            const { results, writes, moved } = await race([a, b], name, ['rollout', 'approve', `rollout/${name}`], (s) => s.currentStepIndex === step && s.currentStepState === 'StepReady', () => setStatus(name, pausedAt(step + 1)));
            const what = `${name} step ${step}`;
            const loser = loserOf(results, what);
            assert.equal(writes, 1, `${what}: one status write`);
            assert.ok(moved, `${what}: approved`);
            // What it found: the step approved under it (before or after the controller moved on), or, read after the
            // winner's write, nothing waiting.
            const found = new RegExp(
              `^error: (rollout "${name}": step ${step} was already approved; the release is at (step ${step}/${STEPS} StepReady|step ${step + 1}/${STEPS} StepPaused: run approve again to promote step ${step + 1})|rollout/${name}: nothing to approve \\(step ${step}/${STEPS} is StepReady\\))\\n$`,
            );
            assert.match(loser.stderr, found, what);
            if (loser.stderr.includes('run approve again')) worst.push(what);
            // One step on, never two: the next step still waits for a person.
            await eventually(`${what}: step ${step + 1} waits`, () => sub(name)?.currentStepIndex === step + 1 && sub(name)?.currentStepState === 'StepPaused');
          }
        }),
      );
      t.diagnostic(`losers that found the next step waiting after their refused write: ${worst.length} of ${ROLLOUTS * TRIES_EACH}`);
      // The case of issue #26 happened: a loser re-read after its refused write and found the next step waiting.
      assert.ok(worst.length > 0, 'no loser found the next step waiting');
    });

    it(`${a}+${b}: 50 pairs of undo --fast go back one step each, one status write each; the loser exits 1 saying where the release is`, { timeout: 240_000 }, async () => {
      const names = Array.from({ length: ROLLOUTS }, (_, i) => `undo-${a}-${b}-${i}`);
      await Promise.all(
        names.map(async (name) => {
          await create(name);
          for (let step = TRIES_EACH + 1; step > 1; step--) {
            await setStatus(name, pausedAt(step));
            // fast-rollback.ts: the previous step (no traffic, the most replicas); doStepJump then re-executes it up to its pause.
            const { results, writes, moved } = await race([a, b], name, ['rollout', 'undo', `rollout/${name}`, '--fast'], (s) => s.nextStepIndex === step - 1, () => setStatus(name, pausedAt(step - 1)));
            const what = `${name} from step ${step}`;
            const loser = loserOf(results, what);
            assert.equal(writes, 1, `${what}: one status write`);
            assert.ok(moved, `${what}: rolled back`);
            const found = new RegExp(
              `^error: (rollout "${name}" moved on since it was read \\(it was at step ${step}/${STEPS} StepPaused; it is at (step ${step}/${STEPS} StepPaused, next step ${step - 1}|step ${step - 1}/${STEPS} StepPaused, next step ${step})\\): nothing was changed; run the command again to act on where it is now|rollout/${name}: cannot roll back fast: a jump from step ${step}/${STEPS} to step ${step - 1} is already under way .*)\\n$`,
            );
            assert.match(loser.stderr, found, what);
            await eventually(`${what}: one step back, not two`, () => sub(name)?.currentStepIndex === step - 1 && sub(name)?.nextStepIndex === step);
          }
        }),
      );
    });
  }

  it('approve, jump, undo --fast, pause and resume while the controller keeps writing the status: each at once, one write (they were refused until "still conflicting")', { timeout: 60_000 }, async () => {
    const form: Form = EXE ? 'exe' : 'npm';
    const name = `churn-${form}`;
    await create(name);
    await setStatus(name, pausedAt(3));
    // The controller's status writes of a release under way (canaryReadyReplicas, lastUpdateTime), back to back.
    let churning = true;
    const churn = (async () => {
      for (let ready = 0; churning; ready++) {
        const r = await sb.api('PATCH', `${RO}/${name}/status?${OURS}`, { status: { canaryStatus: { canaryReadyReplicas: ready % 7, lastUpdateTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') } } }, { contentType: 'application/merge-patch+json' });
        assert.equal(r.status, 200, r.text);
      }
    })();
    // Two writers at a time keep the resourceVersion moving every ~150 ms, faster than one read and one write.
    const churn2 = (async () => {
      await new Promise((r) => setTimeout(r, 150));
      for (; churning; ) await sb.api('PATCH', `${RO}/${name}/status?${OURS}`, { status: { message: `busy ${Date.now()}` } }, { contentType: 'application/merge-patch+json' });
    })();
    try {
      const writes = () => {
        tail.refresh();
        return tail.entries.filter((e) => e.verb === 'patch' && e.path.startsWith(`${RO}/${name}`) && e.code < 300 && !e.query.includes(OURS)).length;
      };
      const steps: Array<[string[], (s: Sub) => boolean]> = [
        [['rollout', 'pause', `rollout/${name}`], () => true],
        [['rollout', 'resume', `rollout/${name}`], () => true],
        [['rollout', 'jump', `rollout/${name}`, '--to-step', '1'], (s) => s.nextStepIndex === 1],
      ];
      for (const [args, check] of steps) {
        const before = writes();
        const r = await run(form, args, sb.kubeconfig);
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
        assert.equal(writes() - before, 1, `${args.join(' ')}: one write`);
        await eventually(args.join(' '), () => check(sub(name)!));
      }
      // The controller makes the jump and stops at step 1's pause: approve it; then, from step 2, go back fast.
      await setStatus(name, pausedAt(1));
      let before = writes();
      let r = await run(form, ['rollout', 'approve', `rollout/${name}`], sb.kubeconfig);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(writes() - before, 1);
      await eventually('approved', () => sub(name)?.currentStepState === 'StepReady');
      await setStatus(name, pausedAt(2));
      before = writes();
      r = await run(form, ['rollout', 'undo', `rollout/${name}`, '--fast'], sb.kubeconfig);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(writes() - before, 1);
      await eventually('back to step 1', () => sub(name)?.nextStepIndex === 1);
    } finally {
      churning = false;
      await Promise.all([churn, churn2]);
    }
  });
});
