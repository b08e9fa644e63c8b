// Every CRR, ImagePullJob, ImageListPullJob and PersistentPodState the CLI builds is accepted
// by a sandbox running the real Kruise CRDs of v1.3.0, v1.8.4, v1.9.0 and master (schema validation
// on, 422 otherwise). Created for real (CRR) or with a server-side dry run (the rest).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, runCli, REPO_ROOT } from '../helpers/cli';
import { startSandbox, waitUntil } from '../helpers/sandbox';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'ops');
const CRDS = '/work/shared/kruise-crds';

const RELEASES: Array<{ dir: string; kruise: string; force: boolean; listJobs: boolean; ppsAnnotations: boolean }> = [
  { dir: 'v1.3.0', kruise: 'v1.3', force: false, listJobs: false, ppsAnnotations: false },
  { dir: 'v1.8.4', kruise: 'v1.8', force: true, listJobs: true, ppsAnnotations: true },
  { dir: 'v1.9.0', kruise: 'v1.9', force: true, listJobs: true, ppsAnnotations: true },
  { dir: 'master', kruise: 'master', force: true, listJobs: true, ppsAnnotations: true },
];

for (const rel of RELEASES) {
  test(`objects built by restart, predownload and create pps validate against the ${rel.dir} CRDs`, { skip: !existsSync(join(CRDS, rel.dir)) }, async () => {
    const sb = await startSandbox({ kruise: rel.kruise, crds: join(CRDS, rel.dir), readyDelay: 200 });
    try {
      const env = { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 };
      for (const f of ['cloneset-web.yaml', 'statefulset-db.yaml']) {
        const a = await kubectl(['apply', '-f', join(FIXTURES, f)], sb.kubeconfig);
        assert.equal(a.code, 0, a.stderr);
      }
      await waitUntil('pods ready', async () => {
        const items = (await sb.api('GET', '/api/v1/namespaces/default/pods')).body.items as Array<{ status?: { conditions?: Array<{ type: string; status: string }> } }>;
        return items.length === 9 && items.every((p) => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'));
      });

      // The schema is enforced: a wrong type is rejected with 422 (so passing below means something).
      const served = (await sb.api('GET', '/apis/apps.kruise.io')).body as { versions: Array<{ version: string }> };
      assert.ok(served.versions.length > 0);
      const crrVersion = rel.dir === 'master' ? 'v1beta1' : 'v1alpha1';
      const bad = await sb.api('POST', `/apis/apps.kruise.io/${crrVersion}/namespaces/default/containerrecreaterequests?dryRun=All`, {
        apiVersion: `apps.kruise.io/${crrVersion}`,
        kind: 'ContainerRecreateRequest',
        metadata: { name: 'bad' },
        spec: { podName: 'x', containers: [{ name: 'nginx' }], strategy: { orderedRecreate: 'yes' } },
      });
      assert.equal(bad.status, 422, bad.text);

      const dry = await runCli(['restart', 'cloneset/web', '--dry-run=client', '-o', 'json'], env);
      assert.equal(dry.code, 0, dry.stderr);
      const built = (JSON.parse(dry.stdout) as { items: Array<{ apiVersion: string; spec: { ttlSecondsAfterFinished?: number } }> }).items;
      assert.ok(built.every((i) => i.apiVersion === `apps.kruise.io/${crrVersion}`), 'the served version');
      // #32: the default TTL (5 minutes) is sent, and accepted by every release below (no --ttl there).
      assert.ok(built.every((i) => i.spec.ttlSecondsAfterFinished === 300), 'the default ttlSecondsAfterFinished');
      const restartArgs = ['restart', 'cloneset/web', '-c', 'nginx', '--max-unavailable=100%', '--ordered', '--failure-policy=Ignore', '--unready-grace-period=1s', '--min-started=1s', '--active-deadline=60s'];
      const r = await runCli([...restartArgs, ...(rel.force ? ['--force'] : [])], env);
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /Warning/, 'no field of the CRRs is pruned by this release');
      const crrs = (await sb.api('GET', `/apis/apps.kruise.io/${crrVersion}/namespaces/default/containerrecreaterequests`)).body.items as Array<{ apiVersion: string }>;
      assert.equal(crrs.length, 6);
      if (!rel.force) {
        // Kruise < 1.8 has no strategy.forceRecreate: refused up front instead of silently pruned.
        const f = await runCli([...restartArgs, '--force', '--dry-run=server'], env);
        assert.equal(f.code, 2, f.stderr);
        assert.match(f.stderr, /--force needs OpenKruise v1\.8/);
      }

      const one = await runCli(['predownload', '--image', 'nginx:1.27', '--nodes', 'node-1,node-2', '--parallelism=2', '--timeout=120s', '--backoff-limit=2', '--pull-secret=regcred', '--ttl=300s', '--dry-run=server', '-o', 'json'], env);
      assert.equal(one.code, 0, one.stderr);
      assert.doesNotMatch(one.stderr, /Warning/, 'no field of the job is pruned by this release');
      assert.equal(JSON.parse(one.stdout).kind, 'ImagePullJob');
      const podSelected = await runCli(['predownload', '--image', 'nginx:1.27', '--image', 'redis:7.2', '--node-selector', 'topology.kubernetes.io/zone=zone-b', '--dry-run=server', '-o', 'json'], env);
      assert.equal(podSelected.code, 0, podSelected.stderr);
      assert.doesNotMatch(podSelected.stderr, /Warning/);
      const parsed = JSON.parse(podSelected.stdout) as { kind: string; items?: Array<{ kind: string }> };
      if (rel.listJobs) assert.equal(parsed.kind, 'ImageListPullJob');
      else assert.deepEqual(parsed.items?.map((i) => i.kind), ['ImagePullJob', 'ImagePullJob']);
      // A workload's pre-download (pod selector or node names) on a paused template change.
      const p = await kubectl(['patch', 'cloneset/web', '--type=merge', '-p', '{"spec":{"updateStrategy":{"paused":true},"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27.1"},{"name":"log-agent","image":"fluent/fluent-bit:3.0"}]}}}}'], sb.kubeconfig);
      assert.equal(p.code, 0, p.stderr);
      const wl = await runCli(['predownload', 'cloneset/web', '--dry-run=server'], env);
      assert.equal(wl.code, 0, wl.stderr);

      const ppsArgs = ['create', 'pps', 'db', '--for', 'sts/db', '--required-topology', 'topology.kubernetes.io/zone', '--preferred-topology', 'kubernetes.io/hostname:50', '--retention=WhenDeleted'];
      const pps = await runCli([...ppsArgs, ...(rel.ppsAnnotations ? ['--persistent-annotations', 'example.com/ip'] : []), '--dry-run=server', '-o', 'yaml'], env);
      assert.equal(pps.code, 0, pps.stderr);
      assert.doesNotMatch(pps.stderr, /Warning/, 'no field of the PPS is pruned by this release');
      assert.match(pps.stdout, rel.dir === 'master' ? /^\s+keys:/m : /^\s+nodeTopologyKeys:/m);
      if (!rel.ppsAnnotations) {
        // v1.3 has no spec.persistentPodAnnotations: refused up front instead of silently pruned.
        const annotated = await runCli([...ppsArgs, '--persistent-annotations', 'example.com/ip', '--dry-run=server'], env);
        assert.equal(annotated.code, 2, annotated.stderr);
        assert.match(annotated.stderr, /--persistent-annotations needs a newer OpenKruise/);
      }
    } finally {
      await sb.stop();
    }
  });
}
