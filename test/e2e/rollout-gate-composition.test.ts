// The CI gate where workloads compose (issue #25), through bin/kubectl-kruise (and the executable) on
// sandboxes with the real CRDs: a workload under a Kruise Rollout (first deployment, undo, a failing
// canary), `-f` with a workload and its Rollout, a UnitedDeployment after undo, a server that never
// answers, and a server that fails 30 % of its reads. The gate under test never waits for its own
// setup: pods, images and revisions are read back through the API after it exits.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl, REPO_ROOT, runCli } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { isPodReady, jsonLines, podsOf, summary } from './rollout-helpers';
import { haveCrds, KRUISE_CRDS, ROLLOUT_CRDS } from './rollout-kruise-helpers';

const GATE = join(REPO_ROOT, 'test', 'fixtures', 'rollout-kruise', 'gate');
const CS = (name: string): string => `/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/${name}`;
const RO = (name: string, version = 'v1beta1'): string => `/apis/rollouts.kruise.io/${version}/namespaces/default/rollouts/${name}`;

async function apply(sb: Sandbox, file: string): Promise<void> {
  const r = await kubectl(['apply', '-f', join(GATE, file)], sb.kubeconfig);
  assert.equal(r.code, 0, r.stderr);
}

const gate = (sb: Sandbox, args: string[], timeoutMs = 60_000) => runCli(['rollout', 'status', ...args], { kubeconfig: sb.kubeconfig, timeoutMs });
const cli = (sb: Sandbox, args: string[]) => runCli(args, { kubeconfig: sb.kubeconfig });

/** Live pods of app=APP: their count, how many are ready, and their first containers' images. */
async function podView(sb: Sandbox, app: string): Promise<{ total: number; ready: number; images: string[] }> {
  const pods = await podsOf(sb, `app=${app}`);
  return { total: pods.length, ready: pods.filter(isPodReady).length, images: [...new Set(pods.map((p) => p.spec.containers[0].image as string))].sort() };
}

async function subStatus(sb: Sandbox, name: string, version = 'v1beta1'): Promise<any> {
  const ro = (await sb.api('GET', RO(name, version))).body;
  const progressing = (ro.status?.conditions ?? []).find((c: any) => c.type === 'Progressing');
  return { ...(ro.status?.canaryStatus ?? {}), phase: ro.status?.phase, reason: progressing?.reason };
}

/**
 * A release in progress at a step waiting for approval, its canary pods ready. The Progressing condition's
 * reason InRolling: a cancelled release leaves its StepPaused in canaryStatus, under phase Healthy and then
 * under the first Progressing write of the next release (reason Initializing; rollout_status.go does not
 * reset canaryStatus, rollout_progressing.go does a reconcile later). Seen in CI right after `rollout restart`.
 */
function waitStepPaused(sb: Sandbox, name: string, version = 'v1beta1'): Promise<unknown> {
  return waitUntil(`rollout ${name} at a step waiting for approval`, async () => {
    const s = await subStatus(sb, name, version);
    return (s.phase === 'Progressing' && s.reason === 'InRolling' && s.currentStepState === 'StepPaused' && s.canaryReadyReplicas > 0 && s.canaryReadyReplicas >= s.canaryReplicas) || undefined;
  }, 30_000);
}

describe('the gate of a workload under a Kruise Rollout (v1.9.0 + Kruise Rollout v0.6.2 CRDs)', { skip: !haveCrds('v0.6.2') && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  before(async () => {
    // Pods take 1 s to become ready: long enough for a gate that does not wait to be caught.
    sb = await startSandbox({ readyDelay: '1s', extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS('v0.6.2')] });
  });
  after(async () => {
    await sb?.stop();
  });

  it('first deployment: CloneSet and Rollout applied together; cloneset/shop and rollout/shop exit 0 only once the 10 pods are ready', async () => {
    await apply(sb, 'shop.yaml');
    const [workload, rollout] = await Promise.all([gate(sb, ['cloneset/shop', '--timeout=30s']), gate(sb, ['rollout/shop', '--timeout=30s', '-o', 'json'])]);
    const pods = await podView(sb, 'shop');
    for (const r of [workload, rollout]) assert.equal(r.code, 0, summary(r));
    // Read after both exited: every pod was ready when the gates passed (they passed at once before issue #25).
    assert.deepEqual(pods, { total: 10, ready: 10, images: ['nginx:1.25'] });
    assert.equal((await sb.api('GET', CS('shop'))).body.status.readyReplicas, 10);
    assert.equal(workload.stderr, 'cloneset/shop is released by rollout/shop: following it\n');
    assert.match(workload.stdout, /Waiting for cloneset "shop" rollout to finish: \d+ of 10 updated pods are ready/);
    assert.match(workload.stdout, /rollout "shop" successfully rolled out\n$/);
    const lines = jsonLines(rollout.stdout);
    assert.ok(lines.some((l) => l.state === 'Progressing' && l.release === 'none'), 'it waited for the pods');
    assert.deepEqual([lines.at(-1).state, lines.at(-1).reached, lines.at(-1).workloadState], ['Complete', true, 'Complete']);
  });

  it('-f with the Rollout before its CloneSet in one manifest: both followed as one gate, exit 0 once the pods are ready', async () => {
    await apply(sb, 'cart.yaml');
    const r = await gate(sb, ['-f', join(GATE, 'cart.yaml'), '--timeout=30s']);
    const pods = await podView(sb, 'cart');
    assert.equal(r.code, 0, summary(r));
    assert.deepEqual(pods, { total: 4, ready: 4, images: ['nginx:1.25'] });
    assert.equal(r.stderr, 'cloneset/cart is released by rollout/cart: following it\n');
    // One gate for the pair, not two: one line, one row of the summary.
    assert.equal(r.stdout.match(/^rollout "cart" successfully rolled out$/gm)?.length, 1, r.stdout);
    assert.match(r.stdout, /\nWORKLOAD +VERDICT.*\nrollout\/cart +complete .*\n1 workload: 1 complete; exit 0\n$/, r.stdout);
  });

  it('undo at the first pause: cloneset/shop waits for the stable pods and exits 0; later gates too; rollout/shop reports the cancellation; history shows no release', async () => {
    const set = await cli(sb, ['set', 'image', 'cloneset/shop', 'app=nginx:1.27']);
    assert.equal(set.code, 0, summary(set));
    assert.match(set.stderr, /^cloneset\/shop is released by rollout\/shop: the change goes out in its steps; follow it with '.*rollout status cloneset\/shop'/);
    await waitStepPaused(sb, 'shop');
    // Pausing the workload itself during its release: said, with what pauses the release instead.
    const pause = await cli(sb, ['rollout', 'pause', 'cloneset/shop']);
    assert.equal(pause.code, 0, summary(pause));
    assert.match(pause.stderr, /^warning: cloneset\/shop is being released by rollout\/shop, which drives its partition: .*rollout pause rollout\/shop' pauses the release itself\n$/);
    assert.equal((await cli(sb, ['rollout', 'resume', 'cloneset/shop'])).code, 0);
    const undo = await cli(sb, ['rollout', 'undo', 'cloneset/shop']);
    assert.equal(undo.code, 0, summary(undo));
    assert.match(undo.stderr, /it cancels its release \(Kruise Rollout's rollback\) and the stable pods come back; follow it with '.*rollout status cloneset\/shop'/);
    const r = await gate(sb, ['cloneset/shop', '--timeout=40s']);
    const pods = await podView(sb, 'shop');
    assert.equal(r.code, 0, summary(r));
    assert.deepEqual(pods, { total: 10, ready: 10, images: ['nginx:1.25'] });
    assert.match(r.stdout, /its last release was cancelled/);
    const again = await gate(sb, ['cloneset/shop', '--watch=false']);
    assert.equal(again.code, 0, summary(again));
    const byRollout = await gate(sb, ['rollout/shop', '--watch=false']);
    assert.equal(byRollout.code, 1, summary(byRollout));
    assert.match(byRollout.stderr, /^error: rollout "shop" was cancelled: the workload was rolled back to its stable revision.*\(Succeeded=False\)\n$/);
    const history = await cli(sb, ['rollout', 'history', 'cloneset/shop', '-o', 'json']);
    assert.equal(history.code, 0, summary(history));
    const h = JSON.parse(history.stdout);
    assert.equal(h.rollout.inProgress, false);
    assert.match(h.rollout.summary, /no release in progress/);
    assert.ok(h.revisions.every((rev: any) => rev.rolloutRole !== 'canary'), history.stdout);
  });

  it('a template that lost its in-progressing mark (changed while the last release was finalising) is released by nobody: the gates and verify fail at once with the way out, which works', async () => {
    // Built as it happens (seen in CI, a new image applied right after a rollback): the webhook holds the new
    // template (partition 100% + the mark), then the finalising controller removes the mark with its
    // unconditional merge patch (rollout_releaseManager.go removeRolloutProgressingAnnotation). The
    // sandbox's controller is held off the Rollout meanwhile, so the order is the one that loses.
    const k = async (args: string[]) => {
      const r = await kubectl(args, sb.kubeconfig);
      assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    };
    await k(['annotate', 'rollouts.rollouts.kruise.io/shop', 'kruise-sandbox/controller=none']);
    assert.equal((await cli(sb, ['set', 'image', 'cloneset/shop', 'app=nginx:1.28'])).code, 0);
    const held = (await sb.api('GET', CS('shop'))).body;
    assert.equal(held.spec.updateStrategy.partition, '100%');
    assert.ok('rollouts.kruise.io/in-progressing' in held.metadata.annotations, 'the webhook held it');
    await k(['annotate', 'clonesets.apps.kruise.io/shop', 'rollouts.kruise.io/in-progressing-']);
    await k(['annotate', 'rollouts.rollouts.kruise.io/shop', 'kruise-sandbox/controller-']);
    await waitUntil('the CloneSet\'s status caught up, the Rollout reconciled and still Healthy', async () => {
      const cs = (await sb.api('GET', CS('shop'))).body;
      const ro = (await sb.api('GET', RO('shop'))).body;
      return (cs.status.observedGeneration === cs.metadata.generation && ro.status.phase === 'Healthy' && ro.status.observedGeneration === ro.metadata.generation) || undefined;
    }, 10_000);
    const started = Date.now();
    const [byWorkload, byRollout, verify] = await Promise.all([
      gate(sb, ['cloneset/shop', '--timeout=20s']),
      gate(sb, ['rollout/shop', '--timeout=20s']),
      cli(sb, ['rollout', 'verify', 'rollout/shop', '--http', 'http://127.0.0.1:9/health', '--step', '1', '--timeout=20s']),
    ]);
    assert.ok(Date.now() - started < 15_000, 'none waited for --timeout');
    const stuck = /rollout "shop" will not release cloneset\/shop's template \(revision \w+\): cloneset\/shop holds it without Kruise Rollout's in-progressing mark .*e\.g\. kubectl kruise rollout restart cloneset\/shop\n$/;
    for (const r of [byWorkload, byRollout]) {
      assert.equal(r.code, 1, summary(r));
      assert.match(r.stderr, new RegExp(`^error: ${stuck.source}`, 'm'));
    }
    assert.equal(verify.code, 1, summary(verify));
    assert.match(verify.stderr, /^error: rollout "shop" will not release cloneset\/shop's template \(revision \w+\): it has no Kruise Rollout's in-progressing mark/m);
    // why names it first, and does not offer "partition 0" (that would release it past the canary).
    const why = await cli(sb, ['why', 'cloneset/shop', '-o', 'json']);
    assert.equal(why.code, 0, summary(why));
    const codes = JSON.parse(why.stdout)[0].findings.map((f: any) => f.code);
    assert.equal(codes[0], 'UnreleasedTemplate', why.stdout);
    assert.ok(!codes.includes('PartitionHolds'), why.stdout);
    assert.match(JSON.parse(why.stdout)[0].findings[0].next, /^kubectl kruise rollout restart cloneset\/shop/);
    // Before: cloneset/shop waited "to start releasing workload generation N" until --timeout, verify likewise.
    assert.deepEqual((await podView(sb, 'shop')).images, ['nginx:1.25'], 'nothing rolled meanwhile');
    // The way out the error gives: a new template change, held with its mark, starts the release.
    assert.equal((await cli(sb, ['rollout', 'restart', 'cloneset/shop'])).code, 0);
    await waitStepPaused(sb, 'shop');
    assert.deepEqual((await podView(sb, 'shop')).images, ['nginx:1.25', 'nginx:1.28']);
    // Back to the stable revision (the previous one is 1.28 without the restart annotation).
    const history = JSON.parse((await cli(sb, ['rollout', 'history', 'cloneset/shop', '-o', 'json'])).stdout);
    const stable = history.revisions.find((x: any) => x.rolloutRole === 'stable');
    assert.equal(stable?.images?.[0], 'nginx:1.25', JSON.stringify(history.revisions));
    const undo = await cli(sb, ['rollout', 'undo', 'cloneset/shop', `--to-revision=${stable.revision}`]);
    assert.equal(undo.code, 0, summary(undo));
    await waitUntil('shop back on nginx:1.25, all ready', async () => {
      const v = await podView(sb, 'shop');
      return (v.total === 10 && v.ready === 10 && v.images.join() === 'nginx:1.25' && (await subStatus(sb, 'shop')).phase === 'Healthy') || undefined;
    }, 30_000);
  });

  it('a canary pod that never pulls: its countdown shows while the grace runs (as for a plain workload), the timeout line keeps it, the grace fails the gate', async () => {
    const set = await cli(sb, ['set', 'image', 'cloneset/shop', 'app=nginx:fail-pull']);
    assert.equal(set.code, 0, summary(set));
    const timedOut = await gate(sb, ['cloneset/shop', '--timeout=4s', '-o', 'json']);
    assert.equal(timedOut.code, 3, summary(timedOut));
    assert.ok(jsonLines(timedOut.stdout).some((l) => l.failingPod && /ErrImagePull|ImagePullBackOff/.test(l.failingPod.reason)), timedOut.stdout);
    // The last line, what a CI log keeps, names the failing pod.
    assert.match(timedOut.stderr, /^error: timed out waiting for rollout "shop": step 1\/2 StepUpgrade, 0 of 2 canary pods ready; pod shop-\w+ (ErrImagePull|ImagePullBackOff), failing the rollout in \d+s$/m);
    assert.equal(timedOut.stderr.trim().split('\n').length, 2, 'the Rollout followed, then one error line');
    const failed = await gate(sb, ['cloneset/shop', '--failure-grace=1s', '--timeout=30s']);
    assert.equal(failed.code, 1, summary(failed));
    assert.match(failed.stderr, /^error: rollout "shop" failed: .*(ErrImagePull|ImagePullBackOff)/m);
    // Back to the stable image for the tests after this one.
    assert.equal((await cli(sb, ['rollout', 'undo', 'cloneset/shop'])).code, 0);
    await waitUntil('shop back on nginx:1.25, all ready', async () => {
      const v = await podView(sb, 'shop');
      return (v.total === 10 && v.ready === 10 && v.images.join() === 'nginx:1.25' && (await subStatus(sb, 'shop')).phase === 'Healthy') || undefined;
    }, 30_000);
  });

  it('a Deployment and an Advanced StatefulSet under Rollouts: first deployment waits for the pods; undo at the first pause exits 0 with the stable pods back', async () => {
    await apply(sb, 'api-db.yaml');
    const first = await gate(sb, ['deployment/api', 'asts/db', '--timeout=40s']);
    const [api, db] = [await podView(sb, 'api'), await podView(sb, 'db')];
    assert.equal(first.code, 0, summary(first));
    assert.deepEqual([api.ready, db.ready], [4, 4]);
    assert.equal(first.stderr, 'deployment/api is released by rollout/api: following it\nasts/db is released by rollout/db: following it\n');
    for (const [target, container, image] of [['deployment/api', 'app', 'nginx:1.27'], ['asts/db', 'app', 'redis:7.2']]) {
      assert.equal((await cli(sb, ['set', 'image', target!, `${container}=${image}`])).code, 0);
    }
    await Promise.all([waitStepPaused(sb, 'api'), waitStepPaused(sb, 'db')]);
    for (const target of ['deployment/api', 'asts/db']) assert.equal((await cli(sb, ['rollout', 'undo', target])).code, 0);
    const back = await gate(sb, ['deployment/api', 'asts/db', '--timeout=40s']);
    const [api2, db2] = [await podView(sb, 'api'), await podView(sb, 'db')];
    assert.equal(back.code, 0, summary(back));
    assert.deepEqual(api2, { total: 4, ready: 4, images: ['nginx:1.25'] });
    assert.deepEqual(db2, { total: 4, ready: 4, images: ['redis:7.0'] });
  });

  it('a workload named by the user that does not exist, though a Rollout names it: "not found", exit 1, as without a Rollout', async () => {
    const ro = { apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name: 'ghost' }, spec: { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'ghost' }, strategy: { canary: { steps: [{ replicas: '100%' }] } } } };
    assert.equal((await sb.api('POST', '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts', ro)).status, 201);
    const r = await gate(sb, ['cloneset/ghost', '--timeout=10s']);
    assert.equal(r.code, 1, summary(r));
    assert.match(r.stderr, /^error: clonesets\.apps\.kruise\.io "ghost" not found in namespace "default"$/m);
  });

  it('UnitedDeployment after undo with a subset partition: the gate agrees with its subsets (5 of 6, one kept by the partition), undo says so', async () => {
    await apply(sb, 'ud2.yaml');
    const created = await gate(sb, ['ud/ud2', '--timeout=30s']);
    assert.equal(created.code, 0, summary(created));
    assert.doesNotMatch(created.stdout, /2 of 1 updated pods/);
    assert.match(created.stdout, /subset "zone-a": 2 of 2 updated pods ready \(2 replicas, partition 1\), done/);
    assert.equal((await cli(sb, ['set', 'image', 'ud/ud2', 'app=nginx:1.27'])).code, 0);
    await waitUntil('5 of 6 pods of ud2 on nginx:1.27 and ready', async () => {
      const pods = await podsOf(sb, 'app=ud2');
      return pods.filter((p) => p.spec.containers[0].image === 'nginx:1.27' && isPodReady(p)).length === 5 || undefined;
    }, 30_000);
    const undo = await cli(sb, ['rollout', 'undo', 'ud/ud2']);
    assert.equal(undo.code, 0, summary(undo));
    assert.match(undo.stderr, /^warning: uniteddeployment "ud2": subset "zone-a"'s partition 1 keeps 1 pod at revision \d+ \(nginx:1\.27\): set spec\.updateStrategy\.manualUpdate\.partitions\.zone-a to 0 to roll it back\n$/);
    const r = await gate(sb, ['ud/ud2', '--timeout=30s']);
    const pods = await podsOf(sb, 'app=ud2');
    assert.equal(r.code, 0, summary(r));
    assert.match(r.stdout, /partition rollout complete: 5 of 6 pods updated/);
    // As Kruise leaves it: zone-a's partition keeps its one pod of the revision undone, everything else is back and ready.
    const zone = (z: string) => pods.filter((p) => p.metadata.labels['apps.kruise.io/subset-name'] === z);
    assert.deepEqual(zone('zone-a').map((p) => p.spec.containers[0].image).sort(), ['nginx:1.25', 'nginx:1.27']);
    assert.ok(zone('zone-b').every((p) => p.spec.containers[0].image === 'nginx:1.25' && isPodReady(p)));
    assert.equal(zone('zone-b').length, 4);
  });
});

describe('the gate of a CloneSet under a v1alpha1 Rollout (Kruise Rollout v0.4.4 CRDs)', { skip: !haveCrds('v0.4.4') && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ readyDelay: '1s', extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS('v0.4.4')] });
  });
  after(async () => {
    await sb?.stop();
  });

  it('first deployment waits for the pods; undo at the first pause exits 0 with the stable pods back', async () => {
    await apply(sb, 'shop-v1alpha1.yaml');
    const first = await gate(sb, ['cloneset/shop', '--timeout=30s']);
    const pods = await podView(sb, 'shop');
    assert.equal(first.code, 0, summary(first));
    assert.deepEqual(pods, { total: 6, ready: 6, images: ['nginx:1.25'] });
    assert.equal((await cli(sb, ['set', 'image', 'cloneset/shop', 'app=nginx:1.27'])).code, 0);
    await waitStepPaused(sb, 'shop', 'v1alpha1');
    assert.equal((await cli(sb, ['rollout', 'undo', 'cloneset/shop'])).code, 0);
    const back = await gate(sb, ['cloneset/shop', '--timeout=40s']);
    const after = await podView(sb, 'shop');
    assert.equal(back.code, 0, summary(back));
    assert.deepEqual(after, { total: 6, ready: 6, images: ['nginx:1.25'] });
  });
});

describe('a gate never hangs and transient errors never decide it', () => {
  let hung: Server;
  const sockets = new Set<Socket>();
  before(async () => {
    // Accepts connections and never answers a byte.
    hung = createServer((s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((res) => hung.listen(0, '127.0.0.1', res));
  });
  after(() => {
    for (const s of sockets) s.destroy();
    hung.close();
  });

  it('a server that accepts and never answers: --timeout=5s exits 3 within 6 s, one line naming the server', async () => {
    const port = (hung.address() as { port: number }).port;
    const dir = mkdtempSync(join(tmpdir(), 'kk-hung-'));
    const kubeconfig = join(dir, 'config');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: hung, cluster: {server: "http://127.0.0.1:${port}"}}]`,
        'users: [{name: u, user: {token: t0ken-never-printed}}]',
        'contexts: [{name: c, context: {cluster: hung, user: u}}]',
        'current-context: c',
        '',
      ].join('\n'),
    );
    await Promise.all(
      ['deployment/x', 'cloneset/x', 'rollout/x'].map(async (target) => {
        const started = Date.now();
        const r = await runCli(['rollout', 'status', target, '--timeout=5s'], { kubeconfig, timeoutMs: 20_000 });
        const took = Date.now() - started;
        assert.equal(r.code, 3, summary(r));
        assert.ok(took < 6_000, `${target}: ${took} ms`);
        assert.equal(r.stderr, `error: timed out after 5s waiting for ${target}: no answer from the server at http://127.0.0.1:${port}\n`);
        assert.doesNotMatch(r.stdout + r.stderr, /t0ken-never-printed/);
      }),
    );
  });

  it('30 % of reads answered 500 or 503: 20 of 20 gates on a finished CloneSet under a Rollout exit 0', async () => {
    const faulty = await startSandbox({ readyDelay: '50ms', faults: { errorRate: { read: { rate: 0.3, codes: [500, 503] } } } });
    try {
      for (const file of ['shop.yaml']) {
        // kubectl's own reads meet the faults too: apply until it goes through.
        await waitUntil('shop applied', async () => (await kubectl(['apply', '-f', join(GATE, file)], faulty.kubeconfig)).code === 0 || undefined, 30_000, 200);
      }
      await waitUntil('shop settled', async () => {
        const r = await faulty.api('GET', CS('shop'));
        return (r.status === 200 && r.body.status?.readyReplicas === 10 && r.body.status?.updatedReadyReplicas === 10) || undefined;
      }, 30_000, 100);
      const codes: number[] = [];
      // Four at a time: the faults are the same, the wall time a quarter.
      for (let round = 0; round < 5; round++) {
        const results = await Promise.all([0, 1, 2, 3].map(() => gate(faulty, ['cloneset/shop', '--timeout=60s'], 70_000)));
        for (const r of results) {
          if (r.code !== 0) assert.fail(summary(r));
          codes.push(r.code);
        }
      }
      assert.deepEqual(codes, new Array(20).fill(0));
    } finally {
      await faulty.stop();
    }
  });

  it('a burst of 503s on the first 10 lists (more than two requests\' own 5 attempts each): the gate rides it out and exits 0', async () => {
    const faulty = await startSandbox({ readyDelay: '50ms', faults: { errorRate: { list: { rate: 0, failFirst: 10, code: 503 } } } });
    try {
      assert.equal((await faulty.api('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets', { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] } } } })).status, 201);
      const r = await gate(faulty, ['cloneset/web', '--timeout=60s'], 70_000);
      assert.equal(r.code, 0, summary(r));
      assert.equal((await faulty.api('GET', CS('web'))).body.status.readyReplicas, 2);
    } finally {
      await faulty.stop();
    }
  });

  it('rollout/NAME with every read answered 500: exit 1 with the server\'s error at --timeout, not 3 "no status yet"', async () => {
    const faulty = await startSandbox({ readyDelay: '50ms', faults: { errorRate: { get: 1, list: 1, watch: 1 } } });
    try {
      const r = await gate(faulty, ['rollout/x', '--timeout=3s'], 20_000);
      assert.equal(r.code, 1, summary(r));
      assert.match(r.stderr, /^error: .*500|internal/im);
      assert.doesNotMatch(r.stderr, /no status yet|timed out/);
      assert.equal(r.stderr.trim().split('\n').length, 1);
    } finally {
      await faulty.stop();
    }
  });
});
