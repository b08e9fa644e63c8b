// `restart` against the sandbox: CRRs in batches, restartCount +1, pod UIDs kept, validation
// before anything is created, dry run, --wait=false + resume, and the client engine on a
// cluster without Kruise. Results are read back through the API and the audit log. The CRR flows
// run on Kruise v1.9 (CRR v1alpha1) and on Kruise master with its CRDs (CRR v1beta1 preferred and
// stored, its progress kept in status), the rest once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, runCli, REPO_ROOT } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox, type SandboxOptions } from '../helpers/sandbox';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'ops');
const MASTER_CRDS = join(REPO_ROOT, '..', 'shared', 'kruise-crds', 'master');

interface Profile {
  label: string;
  opts: SandboxOptions;
  /** The CRR version the server prefers, which restart writes and reads. */
  crrVersion: 'v1alpha1' | 'v1beta1';
  /** Every test; otherwise only those whose path through the API depends on the CRR version. */
  full: boolean;
  skip?: string | false;
}

const PROFILES: Profile[] = [
  { label: 'Kruise v1.9', opts: { readyDelay: 500 }, crrVersion: 'v1alpha1', full: true },
  { label: 'Kruise master (master CRDs)', opts: { kruise: 'master', crds: MASTER_CRDS, readyDelay: 500 }, crrVersion: 'v1beta1', full: false, skip: !existsSync(MASTER_CRDS) && 'no ../shared/kruise-crds/master' },
];

interface PodView {
  metadata: { name: string; uid: string; labels?: Record<string, string> };
  spec: { nodeName?: string };
  status?: { phase?: string; conditions?: Array<{ type: string; status: string }>; containerStatuses?: Array<{ name: string; restartCount: number }> };
}

let sb: Sandbox;
/** The CRRs' collection in the version the current profile's server prefers. */
let CRR_PATH = '';

async function pods(sandbox: Sandbox, selector: string): Promise<PodView[]> {
  const r = await sandbox.api('GET', `/api/v1/namespaces/default/pods?labelSelector=${encodeURIComponent(selector)}`);
  return (r.body.items as PodView[]).filter((p) => !(p.metadata as { deletionTimestamp?: string }).deletionTimestamp);
}

const ready = (p: PodView): boolean => p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

async function allReady(sandbox: Sandbox, selector: string, n: number): Promise<PodView[]> {
  return waitUntil(`${n} ready pods for ${selector}`, async () => {
    const list = await pods(sandbox, selector);
    return list.length === n && list.every(ready) ? list : undefined;
  });
}

function writes(sandbox: Sandbox): Array<{ verb: string; path: string; time: string }> {
  return sandbox.audit().filter((e) => ['create', 'update', 'patch', 'delete', 'deletecollection'].includes(e.verb));
}

/** Groups timestamps into bursts separated by more than `gapMs`. */
function bursts(times: number[], gapMs: number): number[] {
  const sorted = [...times].sort((a, b) => a - b);
  const sizes: number[] = [];
  let prev = -Infinity;
  for (const t of sorted) {
    if (t - prev > gapMs) sizes.push(0);
    sizes[sizes.length - 1]!++;
    prev = t;
  }
  return sizes;
}

for (const profile of PROFILES) describe(profile.label, { skip: profile.skip }, () => {
  before(async () => {
    CRR_PATH = `/apis/apps.kruise.io/${profile.crrVersion}/namespaces/default/containerrecreaterequests`;
    sb = await startSandbox(profile.opts);
    const r = await kubectl(['apply', '-f', join(FIXTURES, 'cloneset-web.yaml')], sb.kubeconfig);
    assert.equal(r.code, 0, r.stderr);
    await allReady(sb, 'app=web', 6);
  });

  after(async () => {
    await sb?.stop();
  });

  if (profile.full) test('a wrong container name exits 2 before anything is created', async () => {
    sb.clearAudit();
    const r = await runCli(['restart', 'cloneset/web', '-c', 'nginx,nope'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^error: .*no container "nope"/m);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    assert.deepEqual(writes(sb), []);
    const empty = await runCli(['restart', 'cloneset/web', '-c', ''], { kubeconfig: sb.kubeconfig });
    assert.equal(empty.code, 2);
    assert.deepEqual(writes(sb), []);
  });

  test('--dry-run=client -o yaml prints one CRR per pod and creates nothing', async () => {
    sb.clearAudit();
    const r = await runCli(['restart', 'cloneset/web', '-c', 'nginx', '--dry-run=client', '-o', 'yaml'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.match(/kind: ContainerRecreateRequest/g)?.length, 6);
    assert.match(r.stdout, new RegExp(`apiVersion: apps\\.kruise\\.io/${profile.crrVersion}`));
    assert.doesNotMatch(r.stdout, /preStop|statusContext|ports/);
    const jp = await runCli(['restart', 'cloneset/web', '-c', 'nginx', '--dry-run=client', '-o', 'jsonpath={.items[*].spec.podName}'], { kubeconfig: sb.kubeconfig });
    assert.equal(jp.code, 0, jp.stderr);
    const podNames = (await pods(sb, 'app=web')).map((p) => p.metadata.name).sort();
    assert.deepEqual(jp.stdout.trim().split(' ').sort(), podNames);
    assert.deepEqual(writes(sb), []);
  });

  test('restart cloneset/web --max-unavailable=2: 3 batches of CRRs, every restartCount +1, same pods', async () => {
    const podsBefore = await allReady(sb, 'app=web', 6);
    sb.clearAudit();
    const r = await runCli(['restart', 'cloneset/web', '--max-unavailable=2'], { kubeconfig: sb.kubeconfig, timeoutMs: 45_000 });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /^POD\s+CONTAINERS\s+PHASE\s+RESTARTS\s+DURATION/m);
    // PHASE is the CRR's phase as Kruise names it (Completed), not a container's (Succeeded).
    assert.equal(r.stdout.match(/ Completed /g)?.length, 6);
    assert.doesNotMatch(r.stdout, /Succeeded/);
    assert.equal(r.stderr.match(/^batch \d\/3: /gm)?.length, 3, r.stderr);

    const creates = sb.audit().filter((e) => e.verb === 'create' && e.path.startsWith(CRR_PATH));
    assert.equal(creates.length, 6);
    assert.ok(creates.every((e) => e.code === 201));
    // Each batch is created only after the previous one restarted and its pods were Ready again
    // (≥ the 500 ms ready delay), so the creations come in three bursts of two.
    assert.deepEqual(bursts(creates.map((e) => Date.parse(e.time)), 250), [2, 2, 2]);

    const podsAfter = await allReady(sb, 'app=web', 6);
    for (const p of podsBefore) {
      const q = podsAfter.find((x) => x.metadata.name === p.metadata.name);
      assert.ok(q, `pod ${p.metadata.name} still exists`);
      assert.equal(q.metadata.uid, p.metadata.uid, 'restarted in place, not recreated');
      for (const c of p.status!.containerStatuses!) {
        const now: { restartCount: number } = q.status!.containerStatuses!.find((x) => x.name === c.name)!;
        assert.equal(now.restartCount, c.restartCount + 1, `${p.metadata.name}/${c.name}`);
      }
    }
    const crrs = (await sb.api('GET', CRR_PATH)).body.items as Array<{ metadata: { labels: Record<string, string> }; status?: { phase?: string } }>;
    const run = crrs.filter((c) => c.metadata.labels['kubectl-kruise/workload-name'] === 'web');
    assert.equal(new Set(run.map((c) => c.metadata.labels['kubectl-kruise/restart-id'])).size, 1);
    assert.ok(run.every((c) => c.status?.phase === 'Completed'));
  });

  test('--wait=false creates the first batch; running again resumes the same run without duplicates', async () => {
    const podsBefore = await allReady(sb, 'app=web', 6);
    sb.clearAudit();
    const first = await runCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=2', '--wait=false'], { kubeconfig: sb.kubeconfig });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout.match(/containerrecreaterequest\.apps\.kruise\.io\/\S+ created/g)?.length, 2);

    const second = await runCli(['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=2'], { kubeconfig: sb.kubeconfig, timeoutMs: 45_000 });
    assert.equal(second.code, 0, `${second.stdout}\n${second.stderr}`);
    assert.match(second.stderr, /resuming restart \w+/);
    const creates = sb.audit().filter((e) => e.verb === 'create' && e.path.startsWith(CRR_PATH) && e.code === 201);
    assert.equal(creates.length, 6, 'one CRR per pod over both invocations');
    const podsAfter = await allReady(sb, 'app=web', 6);
    for (const p of podsBefore) {
      const q = podsAfter.find((x) => x.metadata.name === p.metadata.name)!;
      const was = p.status!.containerStatuses!.find((c) => c.name === 'nginx')!.restartCount;
      assert.equal(q.status!.containerStatuses!.find((c) => c.name === 'nginx')!.restartCount, was + 1, p.metadata.name);
      const sidecar = p.status!.containerStatuses!.find((c) => c.name === 'log-agent')!.restartCount;
      assert.equal(q.status!.containerStatuses!.find((c) => c.name === 'log-agent')!.restartCount, sidecar, 'untouched container');
    }
  });

  if (profile.full) test('--ttl=0s: Kruise deletes each CRR as it completes; the restart still ends with exit 0, not a timeout', async () => {
    const [pod] = await allReady(sb, 'app=web', 6);
    const was = pod!.status!.containerStatuses!.find((c) => c.name === 'nginx')!.restartCount;
    const r = await runCli(['restart', `pod/${pod!.metadata.name}`, '-c', 'nginx', '--ttl=0s', '--timeout=20s'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^${pod!.metadata.name}\\s+nginx\\s+Completed\\s`, 'm'));
    const now = (await sb.api('GET', `/api/v1/namespaces/default/pods/${pod!.metadata.name}`)).body as PodView;
    assert.equal(now.status!.containerStatuses!.find((c) => c.name === 'nginx')!.restartCount, was + 1);
  });

  if (profile.crrVersion === 'v1beta1') test('--unready-grace-period: the CRR keeps the grace time and the synced statuses in its v1beta1 status; read as v1alpha1 they are the annotations (containerrecreaterequest_conversion.go)', async () => {
    const [pod] = await allReady(sb, 'app=web', 6);
    const was = pod!.status!.containerStatuses!.find((c) => c.name === 'nginx')!.restartCount;
    const r = await runCli(['restart', `pod/${pod!.metadata.name}`, '-c', 'nginx', '--unready-grace-period=1s'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^${pod!.metadata.name}\\s+nginx\\s+Completed\\s+${was} -> ${was + 1}\\s`, 'm'));
    type Crr = { metadata: { name: string; creationTimestamp: string; annotations?: Record<string, string> }; spec: { podName: string; strategy?: { unreadyGracePeriodSeconds?: number } }; status?: Record<string, unknown> };
    const crr = ((await sb.api('GET', CRR_PATH)).body.items as Crr[]).find((c) => c.spec.podName === pod!.metadata.name && c.spec.strategy?.unreadyGracePeriodSeconds === 1)!;
    const grace = (crr.status?.conditions as Array<Record<string, string>>).find((c) => c.type === 'PreRecreateGrace')!;
    assert.deepEqual([grace.status, grace.reason], ['True', 'PreRecreateGrace']);
    const snapshot = crr.status?.containerStatusSnapshot as Array<{ name: string; ready: boolean; restartCount: number; containerID: string }>;
    assert.deepEqual(snapshot.map((x) => [x.name, x.ready, x.restartCount]), [['nginx', true, was + 1]]);
    assert.equal(crr.metadata.annotations?.['crr.apps.kruise.io/unready-acquired'], undefined);
    const alpha = await kubectl(['get', 'containerrecreaterequests.v1alpha1.apps.kruise.io', crr.metadata.name, '-o', 'json'], sb.kubeconfig);
    assert.equal(alpha.code, 0, alpha.stderr);
    const asAlpha = JSON.parse(alpha.stdout) as Crr;
    assert.equal(asAlpha.metadata.annotations?.['crr.apps.kruise.io/unready-acquired'], grace.lastTransitionTime);
    assert.deepEqual(JSON.parse(asAlpha.metadata.annotations!['crr.apps.kruise.io/sync-container-statuses']!), snapshot);
    assert.deepEqual([asAlpha.status?.conditions, asAlpha.status?.containerStatusSnapshot, asAlpha.status?.phase], [undefined, undefined, 'Completed']);
  });

  if (profile.full) test('restart pod/NAME -c restarts one container of one pod', async () => {
    const [pod] = await allReady(sb, 'app=web', 6);
    const r = await runCli(['restart', `pod/${pod!.metadata.name}`, '-c', 'log-agent'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const now = (await sb.api('GET', `/api/v1/namespaces/default/pods/${pod!.metadata.name}`)).body as PodView;
    const was = pod!.status!.containerStatuses!.find((c) => c.name === 'log-agent')!.restartCount;
    assert.equal(now.status!.containerStatuses!.find((c) => c.name === 'log-agent')!.restartCount, was + 1);
  });

  if (profile.full) test('--via=client on a cluster without Kruise recreates the pods batch by batch', async () => {
    const plain = await startSandbox({ readyDelay: 500 });
    try {
      // "Kruise uninstalled": no apps.kruise.io kinds are served any more.
      const crds = (await plain.api('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions')).body.items as Array<{ metadata: { name: string } }>;
      for (const c of crds.filter((x) => x.metadata.name.endsWith('.kruise.io'))) {
        const d = await kubectl(['delete', 'crd', c.metadata.name], plain.kubeconfig);
        assert.equal(d.code, 0, d.stderr);
      }
      const a = await kubectl(['apply', '-f', join(FIXTURES, 'deployment-api.yaml')], plain.kubeconfig);
      assert.equal(a.code, 0, a.stderr);
      const apiBefore = await allReady(plain, 'app=api', 4);
      plain.clearAudit();
      // Like kubectl delete --dry-run: the pods that would be recreated, on stdout, nothing deleted.
      const dry = await runCli(['restart', 'deployment/api', '--dry-run=client'], { kubeconfig: plain.kubeconfig });
      assert.equal(dry.code, 0, dry.stderr);
      assert.deepEqual(dry.stdout.trim().split('\n').sort(), apiBefore.map((p) => `pod/${p.metadata.name} deleted (dry run)`).sort());
      const kruise = await runCli(['restart', 'deployment/api', '--via=kruise'], { kubeconfig: plain.kubeconfig });
      assert.equal(kruise.code, 1);
      assert.match(kruise.stderr, /does not serve containerrecreaterequests/);
      const r = await runCli(['restart', 'deployment/api', '--max-unavailable=2'], { kubeconfig: plain.kubeconfig, timeoutMs: 45_000 });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stderr, /recreating pods batch by batch/);
      const deletes = plain.audit().filter((e) => e.verb === 'delete' && e.path.includes('/pods/'));
      assert.equal(deletes.length, 4);
      assert.deepEqual(bursts(deletes.map((e) => Date.parse(e.time)), 250), [2, 2]);
      const apiAfter = await allReady(plain, 'app=api', 4);
      const oldUids = new Set(apiBefore.map((p) => p.metadata.uid));
      assert.ok(apiAfter.every((p) => !oldUids.has(p.metadata.uid)), 'every pod was replaced');
    } finally {
      await plain.stop();
    }
  });

  test('a container that crashes after recreation fails its CRR at --active-deadline, the restart exits 1 and stops the batches', async () => {
    const { readFileSync } = await import('node:fs');
    const manifest = readFileSync(join(FIXTURES, 'cloneset-web.yaml'), 'utf8')
      .replace(/name: web$/m, 'name: shaky')
      .replace(/app: web/g, 'app: shaky')
      .replace('replicas: 6', 'replicas: 2')
      .replace('fluent/fluent-bit:2.2', 'fluent/fluent-bit:crashloop');
    const a = await kubectl(['apply', '-f', '-'], sb.kubeconfig, { input: manifest });
    assert.equal(a.code, 0, a.stderr);
    await waitUntil('shaky pods started', async () => {
      const list = await pods(sb, 'app=shaky');
      return list.length === 2 && list.every((p) => (p.status?.containerStatuses ?? []).every((c) => (c as { containerID?: string }).containerID)) ? list : undefined;
    });
    // Kruise never marks a crashing container Failed (pkg/daemon/containerrecreate/crr_daemon_util.go
    // getCurrentCRRContainersRecreateStates: an exited or unready container stays Recreating); only
    // activeDeadlineSeconds ends the request (pkg/controller/containerrecreaterequest/crr_controller.go).
    const started = Date.now();
    const r = await runCli(['restart', 'cloneset/shaky', '-c', 'log-agent', '--active-deadline=3s'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
    assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
    assert.ok(Date.now() - started >= 2000, 'the CRR ran until its active deadline');
    assert.match(r.stdout + r.stderr, /recreating has exceeded the activeDeadlineSeconds/);
    assert.match(r.stdout, /^shaky-\S+\s+log-agent\s+Failed\s/m);
    // Names the pod and why, in one line (singular wording: "1 pod", "1 batch"): the crash loop when the pod
    // shows it by the deadline, else the CRR's own reason (on a loaded machine the backoff may not show yet).
    assert.match(r.stderr, /^error: restart of cloneset\/shaky failed: 1 pod of batch 1 did not restart: shaky-\w+ \((?:[^)]*CrashLoopBackOff|recreating has exceeded the activeDeadlineSeconds)\); stopped before the remaining 1 batch$/m);
    const crrs = (await sb.api('GET', CRR_PATH)).body.items as Array<{ metadata: { labels: Record<string, string> } }>;
    assert.equal(crrs.filter((c) => c.metadata.labels['kubectl-kruise/workload-name'] === 'shaky').length, 1, 'the second batch was not started');
  });

  test('--timeout ends the wait with exit 3 and one error line; the CRR stays for a rerun to resume', async () => {
    const list = await allReady(sb, 'app=web', 6);
    const pod = list[list.length - 1]!;
    const r = await runCli(['restart', `pod/${pod.metadata.name}`, '-c', 'nginx', '--min-started=60s', '--timeout=1s'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
    assert.equal(r.code, 3, `${r.stdout}\n${r.stderr}`);
    assert.equal(r.stderr.split('\n').filter((l) => l.startsWith('error: ')).length, 1, r.stderr);
    assert.match(r.stderr, /^error: timed out waiting for batch 1\/1 of the restart of pod\/\S+; run the same command again to resume$/m);
    const crrs = (await sb.api('GET', CRR_PATH)).body.items as Array<{ spec: { podName: string }; status?: { phase?: string } }>;
    assert.ok(crrs.some((c) => c.spec.podName === pod.metadata.name && c.status?.phase !== 'Completed'), 'the CRR is still recreating');
  });
});
