// `create pps`, `get pps`, `describe pps` against the sandbox: validation before sending,
// one PPS per StatefulSet, injected affinity on a recreated pod, and --auto. The PPS flows run on
// Kruise v1.9 (PPS v1alpha1) and on Kruise master with its CRDs (v1beta1 preferred: `keys` for
// `nodeTopologyKeys`), the rest once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, runCli, REPO_ROOT } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox, type SandboxOptions } from '../helpers/sandbox';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'ops');
const MASTER_CRDS = join(REPO_ROOT, '..', 'shared', 'kruise-crds', 'master');
const PROFILES: Array<{ label: string; opts: SandboxOptions; ppsVersion: 'v1alpha1' | 'v1beta1'; full: boolean; skip?: string | false }> = [
  { label: 'Kruise v1.9', opts: { readyDelay: 200 }, ppsVersion: 'v1alpha1', full: true },
  { label: 'Kruise master (master CRDs)', opts: { kruise: 'master', crds: MASTER_CRDS, readyDelay: 200 }, ppsVersion: 'v1beta1', full: false, skip: !existsSync(MASTER_CRDS) && 'no ../shared/kruise-crds/master' },
];
/** The PPSs' collection in the version the current profile's server prefers. */
let PPS_PATH = '';
let sb: Sandbox;

interface PodView {
  metadata: { name: string; uid: string; annotations?: Record<string, string>; deletionTimestamp?: string };
  spec: { nodeName?: string; nodeSelector?: Record<string, string>; affinity?: { nodeAffinity?: { preferredDuringSchedulingIgnoredDuringExecution?: Array<{ weight: number; preference: { matchExpressions: Array<{ key: string; values: string[] }> } }> } } };
  status?: { phase?: string; conditions?: Array<{ type: string; status: string }> };
}

const ready = (p: PodView): boolean => p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

async function dbPods(): Promise<PodView[]> {
  const r = await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Ddb');
  return (r.body.items as PodView[]).filter((p) => !p.metadata.deletionTimestamp);
}

for (const profile of PROFILES) describe(profile.label, { skip: profile.skip }, () => {
  before(async () => {
    PPS_PATH = `/apis/apps.kruise.io/${profile.ppsVersion}/namespaces/default/persistentpodstates`;
    sb = await startSandbox(profile.opts);
    const a = await kubectl(['apply', '-f', join(FIXTURES, 'statefulset-db.yaml')], sb.kubeconfig);
    assert.equal(a.code, 0, a.stderr);
    await waitUntil('3 ready db pods', async () => {
      const list = await dbPods();
      return list.length === 3 && list.every(ready);
    });
  });

  after(async () => {
    await sb?.stop();
  });

  if (profile.full) test('bad input exits 2 and sends no write', async () => {
    sb.clearAudit();
    for (const args of [
      ['create', 'pps', 'db', '--for', 'sts/db', '--preferred-topology', 'kubernetes.io/hostname:0'],
      ['create', 'pps', 'db', '--for', 'sts/db', '--preferred-topology', 'kubernetes.io/hostname:101'],
      ['create', 'pps', 'db', '--for', 'sts/db'],
      ['create', 'pps', 'DB', '--for', 'sts/db', '--required-topology', 'kubernetes.io/hostname'],
      ['create', 'pps', 'db', '--for', 'sts/db', '--required-topology', 'bad key'],
      ['create', 'pps', 'db', '--for', 'sts/db', '--required-topology', 'a', '--retention', 'Never'],
    ]) {
      const r = await runCli(args, { kubeconfig: sb.kubeconfig });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^error: /);
    }
    const notSts = await runCli(['create', 'pps', 'x', '--for', 'deployment/db', '--required-topology', 'kubernetes.io/hostname'], { kubeconfig: sb.kubeconfig });
    assert.equal(notSts.code, 2, notSts.stderr);
    assert.match(notSts.stderr, /must name a StatefulSet/);
    const missing = await runCli(['create', 'pps', 'x', '--for', 'sts/nope', '--required-topology', 'kubernetes.io/hostname'], { kubeconfig: sb.kubeconfig });
    assert.equal(missing.code, 1, missing.stderr);
    assert.deepEqual(sb.audit().filter((e) => e.verb !== 'get' && e.verb !== 'list'), []);
  });

  test('create pps, recreate a pod: the new pod carries the injected affinity and describe shows it', async () => {
    const preview = await runCli(['create', 'pps', 'db', '--for', 'sts/db', '--required-topology', 'topology.kubernetes.io/zone', '--preferred-topology', 'kubernetes.io/hostname:80', '--preview'], {
      kubeconfig: sb.kubeconfig,
    });
    assert.equal(preview.code, 0, preview.stderr);
    assert.match(preview.stdout, /^db-0\s+node-\d\s+zone-[abc]\s+node-\d/m);
    assert.equal((await sb.api('GET', PPS_PATH)).body.items.length, 0, '--preview creates nothing');

    const r = await runCli(['create', 'pps', 'db', '--for', 'sts/db', '--required-topology', 'topology.kubernetes.io/zone', '--preferred-topology', 'kubernetes.io/hostname:80'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'persistentpodstate.apps.kruise.io/db created\n');
    const pps = await waitUntil('pod states recorded', async () => {
      const o = (await sb.api('GET', `${PPS_PATH}/db`)).body as { status?: { podStates?: Record<string, { nodeName: string; nodeTopologyLabels: Record<string, string> }> } };
      return Object.keys(o.status?.podStates ?? {}).length === 3 ? o : undefined;
    });
    const recorded = pps.status!.podStates!['db-1']!;
    if (profile.ppsVersion === 'v1beta1') {
      // Written in v1beta1's shape (keys); v1alpha1 reads Kruise's conversion of it.
      const written = (await sb.api('GET', `${PPS_PATH}/db`)).body as { spec: { requiredPersistentTopology: unknown } };
      assert.deepEqual(written.spec.requiredPersistentTopology, { keys: ['topology.kubernetes.io/zone'] });
      const alpha = await kubectl(['get', 'persistentpodstates.v1alpha1.apps.kruise.io', 'db', '-o', 'jsonpath={.spec.requiredPersistentTopology}'], sb.kubeconfig);
      assert.equal(alpha.code, 0, alpha.stderr);
      assert.deepEqual(JSON.parse(alpha.stdout), { nodeTopologyKeys: ['topology.kubernetes.io/zone'] });
    }

    const second = await runCli(['create', 'pps', 'db-again', '--for', 'sts/db', '--required-topology', 'kubernetes.io/hostname'], { kubeconfig: sb.kubeconfig });
    assert.equal(second.code, 1);
    assert.match(second.stderr, /persistentpodstate "db" already targets/);

    const old = (await dbPods()).find((p) => p.metadata.name === 'db-1')!;
    const d = await kubectl(['delete', 'pod', 'db-1'], sb.kubeconfig);
    assert.equal(d.code, 0, d.stderr);
    const fresh = await waitUntil('db-1 recreated and ready', async () => {
      const p = (await dbPods()).find((x) => x.metadata.name === 'db-1');
      return p && p.metadata.uid !== old.metadata.uid && ready(p) ? p : undefined;
    });
    assert.equal(fresh.metadata.annotations?.['kruise.io/injected-persistent-pod-state'], 'db');
    assert.equal(fresh.spec.nodeSelector?.['topology.kubernetes.io/zone'], recorded.nodeTopologyLabels['topology.kubernetes.io/zone']);
    const term = fresh.spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.find((t) => t.preference.matchExpressions[0]!.key === 'kubernetes.io/hostname');
    assert.equal(term?.weight, 80);
    assert.deepEqual(term?.preference.matchExpressions[0]!.values, [recorded.nodeName]);

    const desc = await runCli(['describe', 'pps', 'db'], { kubeconfig: sb.kubeconfig });
    assert.equal(desc.code, 0, desc.stderr);
    assert.match(desc.stdout, /^Target:\s+StatefulSet\/db \(apps\/v1\)/m);
    assert.match(desc.stdout, new RegExp(`db-1\\s+${recorded.nodeName}\\s+zone-[abc]\\s+node-\\d\\s+node-\\d\\s+yes\\s+topology\\.kubernetes\\.io/zone=zone-[abc] \\(required\\), kubernetes\\.io/hostname=${recorded.nodeName} \\(80\\)`));
    const get = await runCli(['get', 'pps', 'db'], { kubeconfig: sb.kubeconfig });
    assert.equal(get.code, 0, get.stderr);
    assert.match(get.stdout, /^POD\s+NODE\s+TOPOLOGY\.KUBERNETES\.IO\/ZONE\s+KUBERNETES\.IO\/HOSTNAME\s+CURRENT NODE\s+STATE/m);
    assert.equal(get.stdout.trim().split('\n').length, 4);
    const list = await runCli(['get', 'pps'], { kubeconfig: sb.kubeconfig });
    assert.match(list.stdout, /^db\s+statefulset\.apps\/db\s+topology\.kubernetes\.io\/zone\s+kubernetes\.io\/hostname:80\s+3\s/m);
    // Like kubectl get: the list form is a List even with one item; jsonpath works on both forms.
    const listJson = await runCli(['get', 'pps', '-o', 'json'], { kubeconfig: sb.kubeconfig });
    assert.equal(listJson.code, 0, listJson.stderr);
    const parsed = JSON.parse(listJson.stdout) as { kind: string; items: Array<{ metadata: { name: string } }> };
    assert.equal(parsed.kind, 'List');
    assert.deepEqual(parsed.items.map((i) => i.metadata.name), ['db']);
    const names = await runCli(['get', 'pps', '-o', 'jsonpath={.items[*].spec.targetRef.name}'], { kubeconfig: sb.kubeconfig });
    assert.equal(names.code, 0, names.stderr);
    assert.equal(names.stdout, 'db', 'jsonpath output ends without a newline, like kubectl');
    const node = await runCli(['get', 'pps', 'db', '-o', `jsonpath={.status.podStates.db-1.nodeName}`], { kubeconfig: sb.kubeconfig });
    assert.equal(node.code, 0, node.stderr);
    assert.equal(node.stdout.trim(), recorded.nodeName);
    // -l as in kubectl get: nothing matching is `No resources found in NS namespace.` and exit 0 (a
    // reading command); -o json an empty List; a name with a selector is refused like kubectl does.
    const none = await runCli(['get', 'pps', '-l', 'app=nothing'], { kubeconfig: sb.kubeconfig });
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, '');
    assert.equal(none.stderr, 'No resources found in default namespace.\n');
    const noneJson = await runCli(['get', 'pps', '-l', 'app=nothing', '-o', 'json'], { kubeconfig: sb.kubeconfig });
    assert.deepEqual(JSON.parse(noneJson.stdout).items, []);
    const both = await runCli(['get', 'pps', 'db', '-l', 'app=db'], { kubeconfig: sb.kubeconfig });
    assert.equal(both.code, 2);
    assert.equal(both.stderr, 'error: name cannot be provided when a selector is specified\n');
  });

  test('--auto annotates the StatefulSet and Kruise generates a PPS named after it', async () => {
    const a = await kubectl(['apply', '-f', '-'], sb.kubeconfig, {
      input: (await import('node:fs')).readFileSync(join(FIXTURES, 'statefulset-db.yaml'), 'utf8').replace(/name: db$/m, 'name: cache').replace(/app: db/g, 'app: cache').replace('serviceName: db', 'serviceName: cache'),
    });
    assert.equal(a.code, 0, a.stderr);
    const r = await runCli(['create', 'pps', '--for', 'sts/cache', '--auto', '--preferred-topology', 'kubernetes.io/hostname'], { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'statefulset.apps/cache annotated\n');
    const sts = (await sb.api('GET', '/apis/apps/v1/namespaces/default/statefulsets/cache')).body as { metadata: { annotations: Record<string, string> } };
    assert.equal(sts.metadata.annotations['kruise.io/auto-generate-persistent-pod-state'], 'true');
    assert.equal(sts.metadata.annotations['kruise.io/preferred-persistent-topology'], 'kubernetes.io/hostname');
    const pps = await waitUntil('generated PPS', async () => {
      const res = await sb.api('GET', `${PPS_PATH}/cache`);
      return res.status === 200 ? res.body : undefined;
    });
    assert.equal(pps.spec.targetRef.name, 'cache');
    const weighted = await runCli(['create', 'pps', '--for', 'sts/cache', '--auto', '--preferred-topology', 'kubernetes.io/hostname:50'], { kubeconfig: sb.kubeconfig });
    assert.equal(weighted.code, 2);
  });

  if (profile.full) test('completion offers pps after get/describe, PersistentPodState names, and StatefulSets after --for', async () => {
    const complete = async (...words: string[]): Promise<string[]> => {
      const r = await runCli(['__complete', ...words], { kubeconfig: sb.kubeconfig });
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.trim().split('\n');
    };
    assert.deepEqual(await complete('get', ''), ['all', 'pps', 'rollouts', ':4']);
    assert.deepEqual(await complete('describe', 'pps', 'd'), ['db', ':4']);
    assert.deepEqual(await complete('get', 'pps', 'db', ''), [':4']);
    assert.deepEqual(await complete('create', 'pps', 'x', '--for', ''), ['statefulset/', 'asts/', ':6']);
    assert.ok((await complete('create', 'pps', 'x', '--for', 'statefulset/')).includes('statefulset/db'));
  });

  if (profile.full) test('like kubectl: describe pps without NAME describes every PPS of the namespace; get pps -A lists all namespaces', async () => {
    const all = await runCli(['describe', 'pps'], { kubeconfig: sb.kubeconfig });
    assert.equal(all.code, 0, all.stderr);
    const names = [...all.stdout.matchAll(/^Name:\s+(\S+)$/gm)].map((m) => m[1]).sort();
    const listed = ((await sb.api('GET', PPS_PATH)).body.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name).sort();
    assert.ok(listed.length >= 2, `two PPSs by now: ${listed.join(',')}`);
    assert.deepEqual(names, listed);
    const empty = await runCli(['describe', 'pps', '-n', 'kube-public'], { kubeconfig: sb.kubeconfig });
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.stderr, 'No resources found in kube-public namespace.\n');
    const wide = await runCli(['get', 'pps', '-A'], { kubeconfig: sb.kubeconfig });
    assert.equal(wide.code, 0, wide.stderr);
    assert.match(wide.stdout, /^NAMESPACE\s+NAME\s+TARGET/);
    assert.match(wide.stdout, /^default\s+db\s+statefulset\.apps\/db\s/m);
    const byName = await runCli(['get', 'pps', 'db', '-A'], { kubeconfig: sb.kubeconfig });
    assert.equal(byName.code, 2);
  });
});
