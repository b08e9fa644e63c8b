// UnitedDeployment end to end (issue #17): a UD of 10 replicas over 3 CloneSet subsets (2, 30%, the
// rest) on sandboxes running the real v1.3.0, v1.9.0 and master CRDs (schema validation on):
// per-subset replicas as Kruise's allocator computes them, read back with kubectl; set image +
// rollout status with per-subset partitions; rollout restart reaching every subset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, runCli, streamCli, REPO_ROOT } from '../helpers/cli';
import { startSandbox, waitUntil } from '../helpers/sandbox';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'uniteddeployment', 'ud-web.yaml');
const CRDS = '/work/shared/kruise-crds';
const SUBSET_LABEL = 'apps.kruise.io/subset-name';

interface Item {
  apiVersion?: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: Array<{ kind: string; name: string }> };
  spec?: { replicas?: number; containers?: Array<{ image: string }>; updateStrategy?: Record<string, unknown> };
  status?: Record<string, unknown>;
}

function restarts(p: Item): number {
  return (p.status as { containerStatuses?: Array<{ restartCount?: number }> } | undefined)?.containerStatuses?.[0]?.restartCount ?? 0;
}

async function getJson(args: string[], kubeconfig: string): Promise<{ items: Item[] } & Item> {
  const r = await kubectl([...args, '-o', 'json'], kubeconfig);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

for (const rel of [
  { dir: 'v1.3.0', kruise: 'v1.3' },
  { dir: 'v1.9.0', kruise: 'v1.9' },
  { dir: 'master', kruise: 'master' },
]) {
  test(`UnitedDeployment of 3 CloneSet subsets (2, 30%, rest) against the ${rel.dir} CRDs: replicas, set image + status with partitions, restart`, { skip: !existsSync(join(CRDS, rel.dir)), timeout: 120_000 }, async () => {
    const sb = await startSandbox({ kruise: rel.kruise, crds: join(CRDS, rel.dir), readyDelay: 100 });
    try {
      const kc = sb.kubeconfig;
      const env = { kubeconfig: kc, timeoutMs: 60_000 };
      // subsets[].patch arrived after v1.3 (its CRD rejects the field): that release gets the fixture without it
      const manifest = readFileSync(FIXTURE, 'utf8');
      const withPatch = rel.dir !== 'v1.3.0';
      const applied = await kubectl(['apply', '-f', '-'], kc, { input: withPatch ? manifest : manifest.replace(/^ {8}patch:\n(?: {10}.*\n)+/m, '') });
      assert.equal(applied.code, 0, applied.stderr);

      // Kruise's allocator: zone-a 2, zone-b round(30% of 10) = 3, zone-c the remaining 5
      const subsets = await waitUntil('three subset CloneSets', async () => {
        const list = (await getJson(['get', 'clonesets'], kc)).items;
        return list.length === 3 ? list : undefined;
      });
      const bySubset: Record<string, Item> = Object.fromEntries(subsets.map((c) => [c.metadata.labels?.[SUBSET_LABEL] ?? '', c]));
      assert.deepEqual(Object.keys(bySubset).sort(), ['zone-a', 'zone-b', 'zone-c']);
      assert.deepEqual([bySubset['zone-a']!.spec?.replicas, bySubset['zone-b']!.spec?.replicas, bySubset['zone-c']!.spec?.replicas], [2, 3, 5]);
      for (const [name, cs] of Object.entries(bySubset)) {
        assert.match(cs.metadata.name, new RegExp(`^web-${name}-[a-z0-9]{5}$`), 'named <ud>-<subset>-<random>');
        assert.equal(cs.metadata.ownerReferences?.[0]?.kind, 'UnitedDeployment');
      }
      const first = await runCli(['rollout', 'status', 'ud/web', '--timeout=60s'], env);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /uniteddeployment "web" successfully rolled out/);
      const ud = await getJson(['get', 'ud', 'web'], kc);
      // v1alpha1 writes status.subsetReplicas; v1beta1 (master's served-first version) subsetStatuses[].replicas
      const statuses = ud.status?.subsetStatuses as Array<{ name: string; replicas: number }> | undefined;
      const written = ud.apiVersion === 'apps.kruise.io/v1beta1' ? Object.fromEntries((statuses ?? []).map((s) => [s.name, s.replicas])) : ud.status?.subsetReplicas;
      assert.deepEqual(written, { 'zone-a': 2, 'zone-b': 3, 'zone-c': 5 });
      assert.equal(ud.status?.replicas, 10);
      if (ud.apiVersion === 'apps.kruise.io/v1beta1') {
        // Read as v1alpha1, the status is Kruise's conversion of it (uniteddeployment_conversion.go ConvertFrom).
        const alpha = await getJson(['get', 'uniteddeployments.v1alpha1.apps.kruise.io', 'web'], kc);
        assert.deepEqual(alpha.status?.subsetReplicas, { 'zone-a': 2, 'zone-b': 3, 'zone-c': 5 });
        assert.equal((alpha.status?.updateStatus as { updatedRevision?: string } | undefined)?.updatedRevision, ud.status?.updatedRevision);
        assert.equal(alpha.status?.updatedRevision, undefined);
      }
      // zone-a's node selector term pins its pods to node-1; zone-b's patch labels its pods, its toleration is merged in
      const pods = (await getJson(['get', 'pods', '-l', `${SUBSET_LABEL}=zone-a`], kc)).items as Array<Item & { spec: { nodeName?: string } }>;
      assert.deepEqual(pods.map((p) => p.spec.nodeName), ['node-1', 'node-1']);
      const zoneB = (await getJson(['get', 'pods', '-l', withPatch ? 'tier=b' : `${SUBSET_LABEL}=zone-b`], kc)).items as Array<Item & { spec: { tolerations?: Array<{ key?: string }> } }>;
      assert.equal(zoneB.length, 3);
      assert.ok(zoneB.every((p) => p.metadata.labels?.[SUBSET_LABEL] === 'zone-b' && p.spec.tolerations?.some((t) => t.key === 'dedicated')));
      assert.equal((await getJson(['get', 'pods', '-l', 'tier=b'], kc)).items.length, withPatch ? 3 : 0);

      // per-subset partitions, then a new image: zone-a keeps 1 old pod, zone-c keeps 2
      const part = await kubectl(['patch', 'ud', 'web', '--type=merge', '-p', '{"spec":{"updateStrategy":{"manualUpdate":{"partitions":{"zone-a":1,"zone-b":0,"zone-c":2}}}}}'], kc);
      assert.equal(part.code, 0, part.stderr);
      const set = await runCli(['set', 'image', 'ud/web', 'nginx=nginx:1.27'], env);
      assert.equal(set.code, 0, set.stderr);
      assert.match(set.stdout, /uniteddeployment.apps.kruise.io\/web image updated/);
      const status = await runCli(['rollout', 'status', 'ud/web', '--timeout=60s'], env);
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, /partition rollout complete: 7 of 10 pods updated \(3 kept at the old revision by the partition\)/);
      assert.match(status.stdout, /subset "zone-a": 1 of 1 updated pods ready \(2 replicas, partition 1\), done/);
      assert.match(status.stdout, /subset "zone-c": 3 of 3 updated pods ready \(5 replicas, partition 2\), done/);
      const images = async (subset: string) =>
        (await getJson(['get', 'pods', '-l', `${SUBSET_LABEL}=${subset}`], kc)).items.map((p) => p.spec?.containers?.[0]?.image).sort();
      assert.deepEqual(await images('zone-a'), ['nginx:1.25', 'nginx:1.27']);
      assert.deepEqual(await images('zone-b'), ['nginx:1.27', 'nginx:1.27', 'nginx:1.27']);
      assert.deepEqual(await images('zone-c'), ['nginx:1.25', 'nginx:1.25', 'nginx:1.27', 'nginx:1.27', 'nginx:1.27']);
      const json = await runCli(['rollout', 'status', 'ud/web', '--watch=false', '-o', 'json'], env);
      assert.equal(json.code, 0, json.stderr);
      const line = JSON.parse(json.stdout.trim().split('\n').pop()!) as { state: string; partition: number; subsets: Array<{ name: string; partition: number; done: boolean }> };
      assert.equal(line.state, 'PartitionComplete');
      assert.deepEqual(line.subsets.map((s) => [s.name, s.partition, s.done]), [['zone-a', 1, true], ['zone-b', 0, true], ['zone-c', 2, true]]);

      // explain partition per subset; a subset that does not exist: one line, exit 2, nothing written
      const explained = await runCli(['explain', 'partition', 'ud/web', '--subset', 'zone-c'], env);
      assert.equal(explained.code, 0, explained.stderr);
      assert.match(explained.stdout, /subset "zone-c":\nCloneSet: 5 replicas, partition 2 → 2 pods stay at the old revision → expectedUpdatedReplicas 3/);
      const before = (await getJson(['get', 'ud', 'web'], kc)).metadata as { resourceVersion?: string };
      sb.clearAudit();
      const bad = await runCli(['explain', 'partition', 'ud/web', '--subset', 'zone-x'], env);
      assert.equal(bad.code, 2);
      assert.equal(bad.stderr, 'error: subset "zone-x" not found in UnitedDeployment "web" (its subsets: zone-a, zone-b, zone-c)\n');
      assert.deepEqual(sb.audit().filter((e) => e.verb !== 'get' && e.verb !== 'list' && e.verb !== 'watch'), []);
      assert.equal(((await getJson(['get', 'ud', 'web'], kc)).metadata as { resourceVersion?: string }).resourceVersion, before.resourceVersion);

      // lifting the partitions finishes the rollout in every subset
      await kubectl(['patch', 'ud', 'web', '--type=merge', '-p', '{"spec":{"updateStrategy":{"manualUpdate":{"partitions":{"zone-a":0,"zone-c":0}}}}}'], kc);
      const done = await runCli(['rollout', 'status', 'ud/web', '--timeout=60s'], env);
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stdout, /successfully rolled out/);

      // rollout restart: the restartedAt annotation in the UD template reaches every subset's pods
      const restart = await runCli(['rollout', 'restart', 'ud/web'], env);
      assert.equal(restart.code, 0, restart.stderr);
      const stamped = (await getJson(['get', 'ud', 'web'], kc)) as unknown as { spec: { template: { cloneSetTemplate: { spec: { template: { metadata: { annotations?: Record<string, string> } } } } } } };
      const at = stamped.spec.template.cloneSetTemplate.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'];
      assert.ok(at, 'restartedAt set in the UD template');
      const after = await runCli(['rollout', 'status', 'ud/web', '--timeout=60s'], env);
      assert.equal(after.code, 0, after.stderr);
      const restarted = (await getJson(['get', 'pods', '-l', 'app=ud-web'], kc)).items;
      assert.equal(restarted.length, 10);
      for (const p of restarted) assert.equal(p.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'], at, `${p.metadata.name} restarted`);

      // history: the UD's revisions (1.25, 1.27, restarted); undo goes back to 1.27 without the stamp
      const history = await runCli(['rollout', 'history', 'ud/web'], env);
      assert.equal(history.code, 0, history.stderr);
      assert.match(history.stdout, /^1\s+<none>\s+nginx:1\.25\s+0$/m);
      assert.match(history.stdout, /^3\s+<none>\s+nginx:1\.27\s+10$/m);
      const undo = await runCli(['rollout', 'undo', 'ud/web'], env);
      assert.equal(undo.code, 0, undo.stderr);
      const undone = await runCli(['rollout', 'status', 'ud/web', '--timeout=60s'], env);
      assert.equal(undone.code, 0, undone.stderr);
      const back = (await getJson(['get', 'ud', 'web'], kc)) as unknown as { spec: { template: { cloneSetTemplate: { spec: { template: { metadata: { annotations?: Record<string, string> } } } } } } };
      assert.equal(back.spec.template.cloneSetTemplate.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'], undefined);
    } finally {
      await sb.stop();
    }
  });
}

test('UnitedDeployment of Advanced StatefulSet subsets: per-subset partitions keep the lowest ordinals old', { skip: !existsSync(join(CRDS, 'v1.9.0')), timeout: 120_000 }, async () => {
  const sb = await startSandbox({ kruise: 'v1.9', crds: join(CRDS, 'v1.9.0'), readyDelay: 100 });
  try {
    const kc = sb.kubeconfig;
    const env = { kubeconfig: kc, timeoutMs: 60_000 };
    const applied = await kubectl(['apply', '-f', join(REPO_ROOT, 'test', 'fixtures', 'uniteddeployment', 'ud-db-asts.yaml')], kc);
    assert.equal(applied.code, 0, applied.stderr);
    const first = await runCli(['rollout', 'status', 'ud/db', '--timeout=60s'], env);
    assert.equal(first.code, 0, first.stderr);
    const sets = (await getJson(['get', 'statefulsets.apps.kruise.io'], kc)).items;
    assert.deepEqual(sets.map((s) => [s.metadata.labels?.[SUBSET_LABEL], s.spec?.replicas]).sort(), [['zone-a', 2], ['zone-b', 3], ['zone-c', 5]]);
    const part = await kubectl(['patch', 'ud', 'db', '--type=merge', '-p', '{"spec":{"updateStrategy":{"manualUpdate":{"partitions":{"zone-a":1,"zone-c":2}}}}}'], kc);
    assert.equal(part.code, 0, part.stderr);
    assert.equal((await runCli(['set', 'image', 'ud/db', 'nginx=nginx:1.27'], env)).code, 0);
    const status = await runCli(['rollout', 'status', 'ud/db', '--timeout=60s'], env);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /subset "zone-c": 3 of 3 updated pods ready \(5 replicas, partition 2\), done/);
    const pods = (await getJson(['get', 'pods', '-l', 'app=ud-web'], kc)).items;
    const old = pods.filter((p) => p.spec?.containers?.[0]?.image === 'nginx:1.25').map((p) => p.metadata.name.replace(/-[a-z0-9]{5}-/, '-')).sort();
    // Advanced StatefulSet partitions keep ordinals below the partition at the old revision
    assert.deepEqual(old, ['db-zone-a-0', 'db-zone-c-0', 'db-zone-c-1']);
    // In-place restart of the UD's pods (issue #26: "has no pods to restart", the pods being its subsets'): all 10.
    const restart = await runCli(['restart', 'ud/db', '-c', 'nginx', '--max-unavailable=100%', '--timeout=60s'], env);
    assert.equal(restart.code, 0, `${restart.stdout}${restart.stderr}`);
    const after = (await getJson(['get', 'pods', '-l', 'app=ud-web'], kc)).items;
    assert.equal(after.length, 10);
    assert.ok(after.every((p) => restarts(p) >= 1), 'every pod of the UD restarted in place');
    // Interrupted between batches, then rerun (issue #26): the rerun continues the UD's run, no pod twice.
    const counted = new Map(after.map((p) => [p.metadata.name, restarts(p)]));
    const args = ['restart', 'ud/db', '-c', 'nginx', '--max-unavailable=3', '--timeout=60s'];
    const run = streamCli(args, { kubeconfig: kc });
    await waitUntil('a batch of the UD done', () => (/batch 1\/4: 3\/3 pods restarted/.test(run.stderr()) ? true : undefined), 30_000, 20);
    const stopped = await run.stop('SIGINT');
    assert.equal(stopped.code, 130, stopped.stderr);
    const again = await runCli(args, env);
    assert.equal(again.code, 0, `${again.stdout}${again.stderr}`);
    assert.match(again.stderr, /resuming restart \w+ of uniteddeployment\/db, which did not finish: \d+ of 10 pods already restarted/);
    const twice = await waitUntil('every UD pod restarted again', async () => {
      const now = (await getJson(['get', 'pods', '-l', 'app=ud-web'], kc)).items;
      return now.every((p) => restarts(p) >= counted.get(p.metadata.name)! + 1) ? now : undefined;
    }, 20_000);
    for (const p of twice) assert.equal(restarts(p), counted.get(p.metadata.name)! + 1, `${p.metadata.name} restarted exactly once by the interrupted run and its rerun`);
  } finally {
    await sb.stop();
  }
});
