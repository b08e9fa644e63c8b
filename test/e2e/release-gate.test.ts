// The release-level gate (issue #28), end to end on one sandbox with the v1.9.0 Kruise and v0.6.2 Kruise
// Rollout CRDs: `rollout status -R -f DIR` follows every workload of a rendered release together (a
// CloneSet, an Advanced StatefulSet, a Deployment and a CloneSet under a Kruise Rollout; the ConfigMap
// and Service skipped and counted), prints one summary table, one exit code, and the evidence of what
// failed; --ci=github, --junit and --evidence-dir hand it to CI. State is set up with real kubectl and
// read back through the API: the gate under test never waits for its own preconditions.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectl, REPO_ROOT, runCli } from '../helpers/cli';
import { junit } from '../helpers/junit';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { jsonLines, summary } from './rollout-helpers';
import { helmReleaseSecret } from '../helpers/helm-release';

const RELEASE = join(REPO_ROOT, 'test', 'fixtures', 'release');
const KRUISE_CRDS = '/work/shared/kruise-crds/v1.9.0';
const ROLLOUT_CRDS = '/work/shared/kruise-rollout-crds/v0.6.2';

let sb: Sandbox;
let work: string;

const get = async (path: string): Promise<any> => (await sb.api('GET', path)).body;

async function pods(app: string): Promise<Array<{ name: string; image: string; ready: boolean; waiting?: string }>> {
  const list = await get(`/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`);
  return (list.items as any[]).map((p) => ({
    name: p.metadata.name,
    image: p.spec.containers[0].image,
    ready: (p.status.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'),
    waiting: p.status.containerStatuses?.[0]?.state?.waiting?.reason,
  }));
}

/** Every pod of `app` runs `image` and is ready, `count` of them. */
async function settled(app: string, image: string, count: number): Promise<boolean> {
  const all = await pods(app);
  return all.length === count && all.every((p) => p.image === image && p.ready);
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'release-gate-'));
  sb = await startSandbox({ readyDelay: '150ms', extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS] });
  const applied = await kubectl(['apply', '-R', '-f', join(RELEASE, 'v1')], sb.kubeconfig);
  assert.equal(applied.code, 0, applied.stderr);
  await waitUntil('revision 1 running', async () =>
    (await settled('web', 'nginx:1.25', 3)) && (await settled('api', 'ghcr.io/shop/api:1.4.0', 2)) && (await settled('db', 'postgres:16.4', 3)) && (await settled('cart', 'ghcr.io/shop/cart:2.0.0', 4)) && (await get('/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts/cart')).status?.phase === 'Healthy' ? true : undefined, 40_000);
});

after(async () => {
  await sb?.stop();
});

describe('rollout status of a whole release', () => {
  it('a finished release: every workload complete, one table, the skipped objects counted, exit 0; one list+watch per kind and namespace', async () => {
    sb.clearAudit();
    const r = await runCli(['rollout', 'status', '-R', '-f', join(RELEASE, 'v1'), '--timeout=30s'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, summary(r));
    const table = r.stdout.slice(r.stdout.indexOf('WORKLOAD'));
    assert.match(table, /^WORKLOAD +VERDICT +UPDATED +READY +TIME +REASON\n/);
    for (const row of [/statefulset\.apps\.kruise\.io\/db +complete +3\/3 +3\/3/, /cloneset\/web +complete +3\/3 +3\/3/, /deployment\/api +complete +2\/2 +2\/2/, /rollout\/cart +complete/]) assert.match(table, row);
    assert.match(table, /\n4 workloads: 4 complete; skipped 2 objects without a rollout \(ConfigMap, Service\); exit 0\n$/);
    // Requests: at most one list and one watch per resource and namespace, however many objects.
    const perResource = new Map<string, { list: number; watch: number }>();
    for (const a of sb.audit()) {
      if (a.method !== 'GET' || !a.path.includes('/namespaces/default/')) continue;
      const resource = a.path.replace(/\/namespaces\/default\/([^/]+).*$/, '/$1');
      const named = /\/namespaces\/default\/[^/]+\/[^/]+/.test(a.path);
      const n = perResource.get(resource) ?? { list: 0, watch: 0 };
      if (/(^|&)watch=(true|1)/.test(a.query)) n.watch++;
      else if (!named) n.list++;
      perResource.set(resource, n);
    }
    for (const [resource, n] of perResource) assert.ok(n.list <= 1 && n.watch <= 1, `${resource}: ${n.list} lists, ${n.watch} watches`);
    assert.equal(perResource.get('/apis/apps.kruise.io/v1alpha1/clonesets')?.list, 1, 'web and cart from one list');
  });

  describe('revision 2: the database crash-loops, the cart waits for approval', () => {
    before(async () => {
      const applied = await kubectl(['apply', '-R', '-f', join(RELEASE, 'v2')], sb.kubeconfig);
      assert.equal(applied.code, 0, applied.stderr);
      await waitUntil('revision 2 where it stops', async () => {
        const cart = (await get('/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts/cart')).status?.canaryStatus;
        const db = await pods('db');
        return (await settled('web', 'nginx:1.27', 3)) && (await settled('api', 'ghcr.io/shop/api:1.5.0', 2)) && cart?.currentStepState === 'StepPaused' && cart.canaryReadyReplicas === 1 && db.some((p) => p.waiting === 'CrashLoopBackOff') ? true : undefined;
      }, 40_000);
    });

    it('exit 1 after the failure grace; the table says each verdict (the paused release waiting for approval); the evidence names the crash-looping pod, its log and BackOff events; GitHub annotations, job summary, JUnit and the evidence directory', async () => {
      const stepSummary = join(work, 'step-summary.md');
      const junitFile = join(work, 'report.xml');
      const dir = join(work, 'evidence');
      const started = Date.now();
      const r = await runCli(['rollout', 'status', '-R', '-f', join(RELEASE, 'v2'), '--failure-grace=3s', '--timeout=60s', '--ci=github', '--junit', junitFile, '--evidence-dir', dir], {
        kubeconfig: sb.kubeconfig,
        env: { GITHUB_STEP_SUMMARY: stepSummary },
        timeoutMs: 60_000,
      });
      const took = Date.now() - started;
      assert.equal(r.code, 1, summary(r));
      assert.ok(took < 20_000, `decided once the database failed, not at the timeout (${took} ms)`);
      const out = r.stdout;
      // Each workload's progress folded in a group once it ended.
      assert.match(out, /^::group::cloneset\/web: complete\n(.*\n)*?cloneset "web" successfully rolled out\n::endgroup::$/m);
      assert.match(out, /^::group::statefulset\.apps\.kruise\.io\/db: failed\n/m);
      assert.match(out, /^::group::rollout\/cart \(CloneSet\/cart\): waiting for approval\n/m);
      const table = out.slice(out.indexOf('WORKLOAD'));
      assert.match(table, /statefulset\.apps\.kruise\.io\/db +failed +\d\/3 +\d\/3 +[\d.]+s +advanced statefulset "db" rollout failed: pod "db-\d" container "postgres" is in CrashLoopBackOff/);
      assert.match(table, /cloneset\/web +complete +3\/3 +3\/3/);
      assert.match(table, /deployment\/api +complete +2\/2 +2\/2/);
      assert.match(table, /rollout\/cart +waiting for approval +1\/1 +1\/1 +[\d.]+s +rollout "cart" is waiting for approval at step 1\/2/);
      assert.match(table, /\n4 workloads: 1 failed, 1 waiting for approval, 2 complete; skipped 2 objects without a rollout \(ConfigMap, Service\); exit 1\n/);
      // The evidence: the pod, its BackOff events, the previous instance's log.
      const crashing = /pod (db-\d) \(node [\w-]+\): container postgres: CrashLoopBackOff/.exec(out)?.[1];
      assert.ok(crashing, out);
      assert.match(out, /^::group::Evidence for statefulset\.apps\.kruise\.io\/db \(failed\)\n/m);
      assert.match(out, new RegExp(`Warning +BackOff +Pod/${crashing} +Back-off restarting failed container postgres in pod ${crashing}_default`));
      assert.match(out, new RegExp(`log of pod ${crashing}, container postgres \\(previous instance\\), last \\d+ lines?:\\n( +\\| .*\\n)+`));
      assert.match(out, /^::error title=statefulset\.apps\.kruise\.io\/db failed::statefulset\.apps\.kruise\.io\/db in namespace default: advanced statefulset "db" rollout failed: .*%0Apod db-\d: container postgres: CrashLoopBackOff/m);
      assert.equal(out.match(/^::error /gm)?.length, 1, 'one annotation: only the database failed');
      // The job summary, as GitHub renders Markdown.
      const md = readFileSync(stepSummary, 'utf8');
      assert.match(md, /^### kubectl kruise rollout status: failed\n/);
      assert.match(md, /\| `statefulset\.apps\.kruise\.io\/db` \| default \| ❌ failed \|/);
      assert.match(md, /\| `rollout\/cart` \| default \| ⏸️ waiting for approval \|/);
      assert.match(md, /<details><summary>Evidence for <code>statefulset\.apps\.kruise\.io\/db<\/code> \(failed\)<\/summary>\n\n```+text\n[\s\S]*BackOff[\s\S]*\n```+\n\n<\/details>/);
      // JUnit, read by a real consumer.
      assert.equal(junit(junitFile), ['4 1 0 1', 'cloneset/web passed', 'deployment/api passed', 'rollout/cart Skipped', 'statefulset.apps.kruise.io/db Failure', ''].join('\n'));
      // The evidence directory: one folder per failed workload, events, logs and the objects as YAML.
      const folder = join(dir, 'default_statefulset_db');
      const files = readdirSync(folder).sort();
      assert.ok(files.includes('events.txt') && files.includes('summary.txt') && files.includes(`pod_${crashing}.yaml`) && files.includes(`log_${crashing}_postgres_previous.txt`), files.join(' '));
      assert.match(readFileSync(join(folder, 'events.txt'), 'utf8'), /BackOff/);
      assert.ok(existsSync(join(dir, 'summary.txt')));
      assert.doesNotMatch(readFileSync(join(folder, `pod_${crashing}.yaml`), 'utf8'), /env:|containers:\n *- name: postgres\n *image/);
    });

    it('--until=paused applies to the Rollout\'s row (reached); -o json ends with one record carrying every row and the evidence', async () => {
      const r = await runCli(['rollout', 'status', '-R', '-f', join(RELEASE, 'v2'), '--until=paused', '--failure-grace=3s', '--timeout=60s', '-o', 'json'], { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
      assert.equal(r.code, 1, summary(r));
      const last = jsonLines(r.stdout).at(-1);
      assert.equal(last.kind, 'ReleaseGateSummary');
      assert.equal(last.code, 1);
      assert.deepEqual(last.skipped, { ConfigMap: 1, Service: 1 });
      const byRef = Object.fromEntries((last.workloads as any[]).map((w) => [w.ref, w]));
      assert.deepEqual([byRef['rollout/cart'].verdict, byRef['rollout/cart'].state, byRef['rollout/cart'].step], ['done', 'StepPaused', 'step 1/2 StepPaused']);
      assert.equal(byRef['statefulset.apps.kruise.io/db'].verdict, 'failed');
      assert.match(byRef['statefulset.apps.kruise.io/db'].evidence.pods[0].summary, /CrashLoopBackOff/);
      assert.ok(byRef['statefulset.apps.kruise.io/db'].evidence.logs[0].lines.length > 0);
      assert.equal(byRef['cloneset/web'].evidence, null);
    });

    it('several named objects, one failing: exit 1 as soon as it fails (it waited for the others and exited 3 at the timeout), one table; --junit on a single-workload gate', async () => {
      const started = Date.now();
      const r = await runCli(['rollout', 'status', 'asts/db', 'rollout/cart', '--failure-grace=2s', '--timeout=40s'], { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
      assert.equal(r.code, 1, summary(r));
      assert.ok(Date.now() - started < 15_000, `${Date.now() - started} ms`);
      assert.match(r.stdout, /\n2 workloads: 1 failed, 1 waiting for approval; exit 1\n/);
      const junitFile = join(work, 'single.xml');
      const one = await runCli(['rollout', 'status', 'cloneset/web', '--junit', junitFile], { kubeconfig: sb.kubeconfig });
      assert.equal(one.code, 0, summary(one));
      assert.equal(junit(junitFile), '1 0 0 0\ncloneset/web passed\n');
    });

    it('--helm-release: the same four workloads from the release Secret Helm wrote for revision 2; the superseded revision 1 is not used; Secret data never printed, even at -v=9', async () => {
      const v2 = [readFileSync(join(RELEASE, 'v2', 'shop.yaml'), 'utf8'), readFileSync(join(RELEASE, 'v2', 'db', 'db.yaml'), 'utf8')].join('\n---\n');
      // Revision 1 also had a CloneSet "legacy" (gone since): following it would fail as not found.
      const v1 = `${readFileSync(join(RELEASE, 'v1', 'shop.yaml'), 'utf8')}\n---\napiVersion: apps.kruise.io/v1alpha1\nkind: CloneSet\nmetadata:\n  name: legacy\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: legacy}}\n  template:\n    metadata: {labels: {app: legacy}}\n    spec: {containers: [{name: app, image: nginx:1.25}]}\n`;
      const secrets = [helmReleaseSecret({ name: 'shop', namespace: 'default', version: 1, status: 'superseded', manifest: v1 }), helmReleaseSecret({ name: 'shop', namespace: 'default', version: 2, status: 'deployed', manifest: v2, chart: { name: 'shop', version: '2.0.0' } })];
      for (const secret of secrets) assert.equal((await sb.api('POST', '/api/v1/namespaces/default/secrets', secret)).status, 201);
      const r = await runCli(['rollout', 'status', '--helm-release', 'shop', '--failure-grace=3s', '--timeout=60s', '-v=9'], { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
      assert.equal(r.code, 1, summary(r));
      const table = r.stdout.slice(r.stdout.indexOf('WORKLOAD'));
      assert.match(table, /statefulset\.apps\.kruise\.io\/db +failed/);
      assert.match(table, /cloneset\/web +complete/);
      assert.match(table, /deployment\/api +complete/);
      assert.match(table, /rollout\/cart +waiting for approval/);
      assert.doesNotMatch(r.stdout + r.stderr, /legacy/);
      assert.match(table, /\n4 workloads: 1 failed, 1 waiting for approval, 2 complete; skipped 2 objects without a rollout \(ConfigMap, Service\); exit 1\n/);
      for (const secret of secrets) assert.ok(!(r.stdout + r.stderr).includes(((secret.data as { release: string }).release).slice(0, 40)), 'no Secret data in the output');
      assert.doesNotMatch(r.stderr, /H4sI/, 'no gzip+base64 of a release');
      // Missing release, and one whose latest revision failed: one error line, exit 1.
      const missing = await runCli(['rollout', 'status', '--helm-release', 'nope'], { kubeconfig: sb.kubeconfig });
      assert.equal(missing.code, 1, summary(missing));
      assert.equal(missing.stderr, 'error: helm release "nope" not found in namespace "default" (no Secret labelled owner=helm,name=nope)\n');
      assert.equal((await sb.api('POST', '/api/v1/namespaces/default/secrets', helmReleaseSecret({ name: 'broken', namespace: 'default', version: 1, status: 'failed', manifest: v2 }))).status, 201);
      const failed = await runCli(['rollout', 'status', '--helm-release', 'broken'], { kubeconfig: sb.kubeconfig });
      assert.equal(failed.code, 1, summary(failed));
      assert.match(failed.stderr, /^error: helm release "broken" in namespace "default": its latest revision 1 is failed, not deployed or pending: nothing to wait for\n$/);
      const both = await runCli(['rollout', 'status', '--helm-release', 'shop', 'cloneset/web'], { kubeconfig: sb.kubeconfig });
      assert.equal(both.code, 2, summary(both));
    });

    it('a release that only waits: exit 3 at --timeout, the timed-out row is a JUnit error', async () => {
      const manifest = join(work, 'cart-only.yaml');
      writeFileSync(manifest, readFileSync(join(RELEASE, 'v2', 'shop.yaml'), 'utf8').split(/^---$/m).filter((d) => /name: cart/.test(d)).join('---'));
      const junitFile = join(work, 'timeout.xml');
      const r = await runCli(['rollout', 'status', '-f', manifest, '--timeout=2s', '--junit', junitFile], { kubeconfig: sb.kubeconfig });
      assert.equal(r.code, 3, summary(r));
      assert.match(r.stdout, /rollout\/cart +timed out +1\/1 +1\/1 +[\d.]+s +timed out waiting for rollout "cart"/);
      assert.match(r.stdout, /\n1 workload: 1 timed out; exit 3\n/);
      assert.equal(junit(junitFile), '1 0 1 0\nrollout/cart Error\n');
    });
  });

  it('a batch/v1 Job is a gate kind: done at its Complete condition (read back: 3 succeeded), failed at Failed naming the failed pod', async () => {
    const applied = await kubectl(['apply', '-f', join(REPO_ROOT, 'test', 'fixtures', 'jobs', 'job-report.yaml')], sb.kubeconfig);
    assert.equal(applied.code, 0, applied.stderr);
    const ok = await runCli(['rollout', 'status', 'job/report', '--timeout=40s'], { kubeconfig: sb.kubeconfig, timeoutMs: 45_000 });
    assert.equal(ok.code, 0, summary(ok));
    assert.match(ok.stdout, /job "report" completed: 3 of 3 completions succeeded\n$/);
    const job = await get('/apis/batch/v1/namespaces/default/jobs/report');
    assert.equal(job.status.succeeded, 3);
    assert.ok((job.status.conditions as any[]).some((c) => c.type === 'Complete' && c.status === 'True'));
    const failing = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'jobs', 'job-report.yaml'), 'utf8').replace('name: report\n', 'name: broken\n').replace('python:3.13-slim', 'busybox:exit-3').replace('restartPolicy: OnFailure', 'restartPolicy: Never').replace('completions: 3', 'completions: 1\n  backoffLimit: 0');
    const file = join(work, 'job-broken.yaml');
    writeFileSync(file, failing);
    assert.equal((await kubectl(['apply', '-f', file], sb.kubeconfig)).code, 0);
    const bad = await runCli(['rollout', 'status', 'job/broken', '--timeout=40s'], { kubeconfig: sb.kubeconfig, timeoutMs: 45_000 });
    assert.equal(bad.code, 1, summary(bad));
    assert.match(bad.stderr, /^error: job "broken" failed: BackoffLimitExceeded: Job has reached the specified backoff limit \(0 of 1 completion succeeded(, 1 failed)?\); pod "broken-\w+"( on node "[\w-]+")?: container "report" exited with code 3/m);
  });

  it('bad input: -R without -f, --ci unknown, a manifest without a workload: one error line, nothing sent', async () => {
    const onlyConfig = join(work, 'config.yaml');
    writeFileSync(onlyConfig, readFileSync(join(RELEASE, 'v1', 'shop.yaml'), 'utf8').split(/^---$/m)[0]!);
    sb.clearAudit();
    for (const [args, code, message] of [
      [['rollout', 'status', 'cloneset/web', '-R'], 2, /^error: -R \(--recursive\) applies to -f DIRECTORY\n/],
      [['rollout', 'status', '-f', onlyConfig, '--ci=jenkins'], 2, /^error: invalid value "jenkins" for --ci: use auto, github, gitlab or none\n/],
      [['rollout', 'status', '-f', onlyConfig], 1, /^error: the manifest holds no object with a rollout to wait for \(only ConfigMap\)\n/],
    ] as const) {
      const r = await runCli([...args], { kubeconfig: sb.kubeconfig });
      assert.equal(r.code, code, `${args.join(' ')}: ${summary(r)}`);
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    }
    assert.deepEqual(sb.audit().filter((a) => a.method !== 'GET'), []);
  });
});
