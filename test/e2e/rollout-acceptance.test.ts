// Issue #15's acceptance, end to end: real Kruise and Kruise Rollout CRDs loaded into the sandbox
// (so every write the CLI sends is checked against that release's schema by the API server), the
// simulated Kruise Rollout controller doing the release, and the CLI (bin/kubectl-kruise, and
// `kubectl kruise` through kubectl's plugin mechanism) driving and gating it. Results are read back
// through the API.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl, REPO_ROOT, runCli, type RunResult } from '../helpers/cli';
import { startSandbox, waitUntil, type AuditEntry, type Sandbox } from '../helpers/sandbox';
import { getObject, jsonLines, kubectlKruise, podsOf, summary, waitSettled, writes } from './rollout-helpers';
import { haveCrds, KRUISE_CRDS, ROLLOUT_CRDS, startWithRolloutCrds } from './rollout-kruise-helpers';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'rollout-kruise', 'acceptance');
const SKIP = !haveCrds('v0.6.2', 'v0.4.4') && 'no ../shared/kruise-crds or kruise-rollout-crds';

const OLD = 'nginx:1.25';
const NEW = 'nginx:1.27';

interface Workload {
  /** CLI reference, e.g. cloneset/web */
  ref: string;
  path: string;
  selector: string;
  replicas: number;
}

const WEB: Workload = { ref: 'cloneset/web', path: '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web', selector: 'app=web', replicas: 10 };
const API: Workload = { ref: 'deployment/api', path: '/apis/apps/v1/namespaces/default/deployments/api', selector: 'app=api', replicas: 10 };
const DB: Workload = { ref: 'asts/db', path: '/apis/apps.kruise.io/v1beta1/namespaces/default/statefulsets/db', selector: 'app=db', replicas: 10 };
const SHOP: Workload = { ref: 'cloneset/shop', path: '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/shop', selector: 'app=shop', replicas: 4 };

function rolloutPath(name: string, version = 'v1beta1'): string {
  return `/apis/rollouts.kruise.io/${version}/namespaces/default/rollouts/${name}`;
}

async function apply(sb: Sandbox, file: string): Promise<void> {
  const r = await kubectl(['apply', '-f', join(FIXTURES, file)], sb.kubeconfig);
  assert.equal(r.code, 0, `kubectl apply ${file}: ${r.stderr}`);
}

async function cli(sb: Sandbox, args: string[], timeoutMs = 90_000): Promise<RunResult> {
  return runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs });
}

function image(pod: any): string {
  return pod.spec.containers[0].image;
}

async function livePods(sb: Sandbox, w: Workload): Promise<any[]> {
  return podsOf(sb, w.selector);
}

async function countImages(sb: Sandbox, w: Workload): Promise<{ old: number; new: number; total: number }> {
  const pods = await livePods(sb, w);
  return { old: pods.filter((p) => image(p) === OLD).length, new: pods.filter((p) => image(p) === NEW).length, total: pods.length };
}

/** The Rollout's status as the controller writes it, whichever version is stored. */
async function rolloutStatus(sb: Sandbox, name: string, version: string): Promise<any> {
  return (await getObject(sb, rolloutPath(name, version))).status ?? {};
}

function subStatus(status: any): any {
  return status.canaryStatus ?? status.blueGreenStatus ?? {};
}

/** Writes the CLI sent during one command: all of them accepted (the CRD schema of the release validated them). */
function acceptedWrites(entries: AuditEntry[]): AuditEntry[] {
  const w = writes(entries);
  for (const e of w) assert.ok(e.code < 300, `write rejected: ${e.verb} ${e.path} → ${e.code}`);
  return w;
}

async function waitHealthy(sb: Sandbox, name: string, version: string): Promise<void> {
  await waitUntil(`rollout/${name} Healthy`, async () => (await rolloutStatus(sb, name, version)).phase === 'Healthy', 20_000);
}

/**
 * The canary acceptance flow of the issue on one workload kind: steps [20% manual, 50% pause 5s, 100%].
 * `viaKubectl` runs approve through `kubectl kruise`.
 */
async function canaryFlow(sb: Sandbox, w: Workload, rollout: string, version: string, viaKubectl = false): Promise<void> {
  await waitSettled(sb, w.path, 30_000);
  await waitHealthy(sb, rollout, version);
  // A release id on the workload: Kruise Rollout labels the release's pods with it and their batch.
  const labelled = await kubectl(['label', w.ref.replace(/^asts\//, 'statefulsets.apps.kruise.io/').replace(/^cloneset\//, 'clonesets.apps.kruise.io/'), 'rollouts.kruise.io/rollout-id=r2', '--overwrite'], sb.kubeconfig);
  assert.equal(labelled.code, 0, labelled.stderr);

  const set = await cli(sb, ['set', 'image', w.ref, `app=${NEW}`]);
  assert.equal(set.code, 0, summary(set));

  // Stop at the manual pause of step 1 with 20% of the pods updated.
  sb.clearAudit();
  const paused = await cli(sb, ['rollout', 'status', `rollout/${rollout}`, '--until=paused', '--timeout=60s', '-o', 'json']);
  assert.equal(paused.code, 0, summary(paused));
  assert.deepEqual(acceptedWrites(sb.audit()), [], 'rollout status writes nothing');
  const atPause = jsonLines(paused.stdout).at(-1);
  assert.equal(atPause.step, 1, paused.stdout);
  assert.equal(atPause.steps, 3);
  assert.equal(atPause.stepState, 'StepPaused');
  assert.equal(atPause.state, 'StepPaused');
  assert.equal(atPause.canaryReplicas, 2);
  assert.equal((await countImages(sb, w)).new, 2, 'two pods on the new image at step 1');

  // Not finished: the CI gate without waiting says 4.
  const notYet = await cli(sb, ['rollout', 'status', `rollout/${rollout}`, '--watch=false']);
  assert.equal(notYet.code, 4, summary(notYet));

  // Approve: one status patch, accepted by the release's schema; the controller moves to step 2.
  sb.clearAudit();
  const approve = viaKubectl ? await kubectlKruise(sb, ['rollout', 'approve', `rollout/${rollout}`]) : await cli(sb, ['rollout', 'approve', `rollout/${rollout}`]);
  assert.equal(approve.code, 0, summary(approve));
  assert.match(approve.stdout, new RegExp(`rollout\\.rollouts\\.kruise\\.io/${rollout} approved`));
  const approveWrites = acceptedWrites(sb.audit());
  assert.equal(approveWrites.length, 1, JSON.stringify(approveWrites));
  assert.match(approveWrites[0]!.path, new RegExp(`/rollouts/${rollout}/status$`));
  const approvedAt = Date.now();

  await waitUntil('step 2 with half the pods updated', async () => {
    const s = await rolloutStatus(sb, rollout, version);
    return subStatus(s).currentStepIndex === 2 && (await countImages(sb, w)).new === 5;
  }, 30_000);

  // Step 2's 5 s pause ends by itself; the gate then waits for completion.
  const done = await cli(sb, ['rollout', 'status', `rollout/${rollout}`, '--timeout=90s', '-o', 'json']);
  assert.equal(done.code, 0, summary(done));
  assert.equal(jsonLines(done.stdout).at(-1).state, 'Complete');
  // The pause starts at the Rollout's lastUpdateTime, a metav1.Time kept to the whole second (as on a cluster),
  // so its 5 s may end up to 1 s early in real time: 4 s after the approval is the earliest honest end.
  assert.ok(Date.now() - approvedAt >= 4_000, 'the timed pause of step 2 was honoured');

  const final = await rolloutStatus(sb, rollout, version);
  assert.equal(final.phase, 'Healthy', `${JSON.stringify(final)}\nworkload: ${JSON.stringify((await getObject(sb, w.path)).metadata)}\ngate: ${done.stdout}`);
  assert.equal(subStatus(final).currentStepState, 'Completed');
  const counts = await countImages(sb, w);
  assert.deepEqual(counts, { old: 0, new: w.replicas, total: w.replicas });

  // The release's pods carry the rollout id and the batch that updated them (2 in batch 1, 3 in 2, 5 in 3).
  const batches = new Map<string, number>();
  for (const p of await livePods(sb, w)) {
    assert.equal(p.metadata.labels['rollouts.kruise.io/rollout-id'], 'r2', p.metadata.name);
    const b = p.metadata.labels['rollouts.kruise.io/rollout-batch-id'];
    batches.set(b, (batches.get(b) ?? 0) + 1);
  }
  assert.deepEqual(Object.fromEntries([...batches].sort()), { '1': 2, '2': 3, '3': 5 });
}

describe('Kruise Rollout acceptance: canary CloneSet on v0.6.2 CRDs', { skip: SKIP }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startWithRolloutCrds('v0.6.2');
    await apply(sb, 'cloneset-web.yaml');
    await apply(sb, 'rollout-web.yaml');
  });
  after(async () => sb?.stop());

  it('set image → status --until=paused at step 1 (2 pods) → --watch=false exits 4 → approve → step 2 → step 3 after 5 s → Complete; batch labels', async () => {
    await canaryFlow(sb, WEB, 'rollout-web', 'v1beta1', true);
  });

  it('rollout status of the workload follows its Rollout and says so', async () => {
    const r = await cli(sb, ['rollout', 'status', WEB.ref, '--watch=false']);
    assert.equal(r.code, 0, summary(r));
    assert.match(r.stderr, /rollout\/rollout-web/);
  });

  it('approve with nothing waiting: exit 1, one error line, nothing written', async () => {
    sb.clearAudit();
    const r = await cli(sb, ['rollout', 'approve', 'rollout/rollout-web']);
    assert.equal(r.code, 1, summary(r));
    assert.match(r.stderr, /^error: .*rollout-web.*nothing to approve/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.deepEqual(writes(sb.audit()), []);
  });

  it('undo in the middle of the release: every pod back on the stable image, the gate fails with the cancellation', async () => {
    const set = await cli(sb, ['set', 'image', WEB.ref, 'app=nginx:1.28']);
    assert.equal(set.code, 0, summary(set));
    const paused = await cli(sb, ['rollout', 'status', 'rollout/rollout-web', '--until=paused', '--timeout=60s']);
    assert.equal(paused.code, 0, summary(paused));
    // --until repeated: all must hold (paused at step 1 yes; paused at step 2 or later not yet).
    const both = await cli(sb, ['rollout', 'status', 'rollout/rollout-web', '--until=paused', '--until=step=1', '--watch=false']);
    assert.equal(both.code, 0, summary(both));
    const notYet = await cli(sb, ['rollout', 'status', 'rollout/rollout-web', '--until=paused', '--until=step=2', '--watch=false']);
    assert.equal(notYet.code, 4, summary(notYet));
    const undo = await cli(sb, ['rollout', 'undo', WEB.ref]);
    assert.equal(undo.code, 0, summary(undo));
    const gate = await cli(sb, ['rollout', 'status', 'rollout/rollout-web', '--timeout=60s', '-o', 'json']);
    assert.equal(gate.code, 1, summary(gate));
    const last = jsonLines(gate.stdout).at(-1);
    assert.equal(last.state, 'Failed');
    assert.match(last.message, /cancel/i);
    await waitUntil('every pod back on the stable image', async () => {
      const pods = await livePods(sb, WEB);
      return pods.length === 10 && pods.every((p) => image(p) === NEW);
    }, 30_000);
    const status = await rolloutStatus(sb, 'rollout-web', 'v1beta1');
    const succeeded = (status.conditions ?? []).find((c: any) => c.type === 'Succeeded');
    assert.equal(succeeded?.status, 'False');
  });

  it('an updated pod stuck in ImagePullBackOff fails the gate after --failure-grace', async () => {
    const set = await cli(sb, ['set', 'image', WEB.ref, 'app=nginx:fail-pull']);
    assert.equal(set.code, 0, summary(set));
    const started = Date.now();
    const gate = await cli(sb, ['rollout', 'status', 'rollout/rollout-web', '--failure-grace=2s', '--timeout=60s']);
    assert.equal(gate.code, 1, summary(gate));
    assert.match(gate.stdout + gate.stderr, /ErrImagePull|ImagePullBackOff/);
    assert.ok(Date.now() - started >= 2_000, 'not before the grace');
    // Back to a healthy state for the tests after this one.
    const undo = await cli(sb, ['rollout', 'undo', WEB.ref]);
    assert.equal(undo.code, 0, summary(undo));
    await waitUntil('release cancelled', async () => subStatus(await rolloutStatus(sb, 'rollout-web', 'v1beta1')).currentStepState === 'Completed' || (await rolloutStatus(sb, 'rollout-web', 'v1beta1')).phase === 'Healthy', 30_000);
  });

  it('errors: a Rollout pointing at a missing workload, a wrong kind, a missing Rollout, a bad step: documented codes, nothing written', async () => {
    await apply(sb, 'rollout-orphan.yaml');
    sb.clearAudit();
    const orphan = await cli(sb, ['rollout', 'status', 'rollout/rollout-orphan', '--watch=false']);
    // A gate on a typo must not wait forever: the workload named by the Rollout is missing.
    assert.equal(orphan.code, 1, summary(orphan));
    assert.match(orphan.stderr, /does-not-exist/);
    const approveOrphan = await cli(sb, ['rollout', 'approve', 'rollout/rollout-orphan']);
    assert.equal(approveOrphan.code, 1, summary(approveOrphan));
    assert.match(approveOrphan.stderr, /^error: /);

    const wrongKind = await cli(sb, ['rollout', 'jump', 'cloneset/web', '--to-step', '2']);
    assert.ok(wrongKind.code === 1 || wrongKind.code === 2, summary(wrongKind));
    assert.match(wrongKind.stderr, /^error: .*web/);
    assert.equal(wrongKind.stderr.trim().split('\n').length <= 2, true, wrongKind.stderr);

    const missing = await cli(sb, ['rollout', 'approve', 'rollout/nope']);
    assert.equal(missing.code, 1, summary(missing));
    assert.match(missing.stderr, /^error: .*nope.*not found/);

    const badStep = await cli(sb, ['rollout', 'jump', 'rollout/rollout-web', '--to-step', '9']);
    assert.equal(badStep.code, 2, summary(badStep));
    assert.match(badStep.stderr, /^error: .*rollout-web/);

    assert.deepEqual(writes(sb.audit()), []);
  });
});

describe('Kruise Rollout acceptance: a viewer cannot approve', { skip: SKIP }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ tls: true, readyDelay: '50ms', extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS('v0.6.2')] });
    await apply(sb, 'cloneset-web.yaml');
    await apply(sb, 'rollout-web.yaml');
  });
  after(async () => sb?.stop());

  it('403 on rollouts/status is explained, exit 1, nothing written', async () => {
    await waitSettled(sb, WEB.path, 30_000);
    await waitHealthy(sb, 'rollout-web', 'v1beta1');
    const set = await cli(sb, ['set', 'image', WEB.ref, `app=${NEW}`]);
    assert.equal(set.code, 0, summary(set));
    const paused = await cli(sb, ['rollout', 'status', 'rollout/rollout-web', '--until=paused', '--timeout=60s']);
    assert.equal(paused.code, 0, summary(paused));
    sb.clearAudit();
    const r = await cli(sb, ['rollout', 'approve', 'rollout/rollout-web', '--context', 'viewer']);
    assert.equal(r.code, 1, summary(r));
    assert.match(r.stderr, /^error: .*patch.*rollouts\/status/m);
    assert.ok(writes(sb.audit()).every((e) => e.code === 403), 'only the refused write');
    assert.equal(subStatus(await rolloutStatus(sb, 'rollout-web', 'v1beta1')).currentStepState, 'StepPaused');
  });
});

describe('Kruise Rollout acceptance: canary Deployment on v0.6.2 CRDs', { skip: SKIP }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startWithRolloutCrds('v0.6.2');
    await apply(sb, 'deployment-api.yaml');
  });
  after(async () => sb?.stop());

  it('the same release on a Deployment of 10', async () => {
    await canaryFlow(sb, API, 'rollout-api', 'v1beta1');
  });
});

describe('Kruise Rollout acceptance: canary Advanced StatefulSet on v0.6.2 CRDs', { skip: SKIP }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startWithRolloutCrds('v0.6.2');
    await apply(sb, 'asts-db.yaml');
  });
  after(async () => sb?.stop());

  it('the same release on an Advanced StatefulSet of 10', async () => {
    await canaryFlow(sb, DB, 'rollout-db', 'v1beta1');
  });
});

describe('Kruise Rollout acceptance: v1alpha1 Rollout on v0.4.4 CRDs', { skip: SKIP }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startWithRolloutCrds('v0.4.4');
    await apply(sb, 'cloneset-web.yaml');
    await apply(sb, 'rollout-web-v1alpha1.yaml');
  });
  after(async () => sb?.stop());

  it('the same release through a v1alpha1 Rollout', async () => {
    await canaryFlow(sb, WEB, 'rollout-web', 'v1alpha1');
  });
});

describe('Kruise Rollout acceptance: blue-green CloneSet on v0.6.2 CRDs', { skip: SKIP }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startWithRolloutCrds('v0.6.2');
    await apply(sb, 'bluegreen-shop.yaml');
  });
  after(async () => sb?.stop());

  it('new pods come up beside the old ones, wait for approval, then replace them', async () => {
    await waitSettled(sb, SHOP.path, 30_000);
    await waitHealthy(sb, 'rollout-shop', 'v1beta1');
    const set = await cli(sb, ['set', 'image', SHOP.ref, `app=${NEW}`]);
    assert.equal(set.code, 0, summary(set));
    const paused = await cli(sb, ['rollout', 'status', 'rollout/rollout-shop', '--until=paused', '--timeout=60s', '-o', 'json']);
    assert.equal(paused.code, 0, summary(paused));
    assert.equal(jsonLines(paused.stdout).at(-1).stepState, 'StepPaused');
    const during = await countImages(sb, SHOP);
    assert.equal(during.old, 4, 'the old pods keep running');
    assert.equal(during.new, 4, 'the new pods beside them');
    const approve = await cli(sb, ['rollout', 'approve', 'rollout/rollout-shop']);
    assert.equal(approve.code, 0, summary(approve));
    // Blue-green's last step waits for a person too (rollout_bluegreen.go: no 100% shortcut).
    await waitUntil('step 2 waiting for approval', async () => {
      const s = subStatus(await rolloutStatus(sb, 'rollout-shop', 'v1beta1'));
      return s.currentStepIndex === 2 && s.currentStepState === 'StepPaused';
    }, 30_000);
    const notYet = await cli(sb, ['rollout', 'status', 'rollout/rollout-shop', '--watch=false']);
    assert.equal(notYet.code, 4, summary(notYet));
    const approve2 = await kubectlKruise(sb, ['rollout', 'approve', 'cloneset/shop']);
    assert.equal(approve2.code, 0, summary(approve2));
    const done = await cli(sb, ['rollout', 'status', 'rollout/rollout-shop', '--timeout=60s']);
    assert.equal(done.code, 0, summary(done));
    await waitUntil('only the new pods left', async () => {
      const c = await countImages(sb, SHOP);
      return c.old === 0 && c.new === 4 && c.total === 4;
    }, 30_000);
  });
});
