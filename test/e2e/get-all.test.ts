// `get all [-n NS | -A] [-o wide|name]` against sandboxes serving the real Kruise CRDs: one object of every
// Kruise kind (test/fixtures/get-all, applied with real kubectl), each of our tables compared with what
// `kubectl get <kind>` prints for it (same columns, same rows, the NAME prefixed by kind.group/ as kubectl does
// when it prints several kinds), -A, -o wide, -o name, a namespace with nothing, a cluster serving only some
// kinds, and the requests it costs (audit log).
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl, REPO_ROOT, runCli } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';

const SHARED_CRDS = resolve(REPO_ROOT, '..', 'shared', 'kruise-crds');
const haveCrds = existsSync(join(SHARED_CRDS, 'v1.9.0')) && existsSync(join(SHARED_CRDS, 'v1.3.0'));
const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'get-all');

/** Every kind of `get all`, in its printing order: `kubectl get` type, whether namespaced, name prefix. */
const KINDS = [
  ['clonesets.apps.kruise.io', true, 'cloneset.apps.kruise.io'],
  ['statefulsets.apps.kruise.io', true, 'statefulset.apps.kruise.io'],
  ['daemonsets.apps.kruise.io', true, 'daemonset.apps.kruise.io'],
  ['sidecarsets.apps.kruise.io', false, 'sidecarset.apps.kruise.io'],
  ['uniteddeployments.apps.kruise.io', true, 'uniteddeployment.apps.kruise.io'],
  ['broadcastjobs.apps.kruise.io', true, 'broadcastjob.apps.kruise.io'],
  ['advancedcronjobs.apps.kruise.io', true, 'advancedcronjob.apps.kruise.io'],
  ['imagepulljobs.apps.kruise.io', true, 'imagepulljob.apps.kruise.io'],
  ['containerrecreaterequests.apps.kruise.io', true, 'containerrecreaterequest.apps.kruise.io'],
  ['persistentpodstates.apps.kruise.io', true, 'persistentpodstate.apps.kruise.io'],
  ['workloadspreads.apps.kruise.io', true, 'workloadspread.apps.kruise.io'],
  ['podunavailablebudgets.policy.kruise.io', true, 'podunavailablebudget.policy.kruise.io'],
  ['rollouts.rollouts.kruise.io', true, 'rollout.rollouts.kruise.io'],
] as const;
type Kind = (typeof KINDS)[number];

interface Table {
  headers: string[];
  rows: string[][];
}

/** Reads kubectl-style tables (blank line between them): each cell is cut at the columns its header line starts. */
function parseTables(text: string): Table[] {
  return text
    .split(/\n\s*\n/)
    .map((block) => block.split('\n').filter((l) => l.trim() !== ''))
    .filter((lines) => lines.length > 0)
    .map(([header, ...lines]) => {
      const starts = [...header!.matchAll(/(?:^|\s{2,})(\S)/g)].map((m) => m.index! + m[0].length - 1);
      const cut = (l: string): string[] => starts.map((s, i) => l.slice(s, starts[i + 1]).trim());
      return { headers: cut(header!), rows: lines.map(cut) };
    });
}

// Ages move between two commands run a second apart: compare them as "an age".
const DURATION = /^(\d+[smhdy])+$/;
const sameAges = (t: Table): Table => ({ headers: t.headers, rows: t.rows.map((r) => r.map((c) => (DURATION.test(c) ? '<age>' : c))) });

/** kubectl's table of one kind, its NAME cells prefixed as kubectl prints them among several kinds. */
function prefixed(t: Table, prefix: string): Table {
  const at = t.headers.indexOf('NAME');
  return { headers: t.headers, rows: t.rows.map((r) => r.map((c, i) => (i === at ? `${prefix}/${c}` : c))) };
}

/** Retries `attempt` until it passes (controllers may still be writing statuses), failing with its last error. */
async function eventually(attempt: () => Promise<void>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** What `kubectl get` prints for every kind that has objects, in `get all`'s order. */
async function kubectlTables(sb: Sandbox, kinds: readonly Kind[], args: string[]): Promise<Table[]> {
  const tables: Table[] = [];
  for (const [type, , prefix] of kinds) {
    const r = await kubectl(['get', type, ...args], sb.kubeconfig);
    assert.equal(r.code, 0, r.stderr);
    if (r.stdout.trim() === '') continue;
    const parsed = parseTables(r.stdout);
    assert.equal(parsed.length, 1, r.stdout);
    tables.push(sameAges(prefixed(parsed[0]!, prefix)));
  }
  return tables;
}

async function getAll(sb: Sandbox, args: string[]): Promise<{ tables: Table[]; stdout: string; stderr: string }> {
  const r = await runCli(['get', 'all', ...args], { kubeconfig: sb.kubeconfig });
  assert.equal(r.code, 0, r.stderr);
  return { tables: parseTables(r.stdout).map(sameAges), stdout: r.stdout, stderr: r.stderr };
}

// v1.9.0 prefers v1beta1 for several kinds (other printer columns, e.g. ImagePullJob without MESSAGE); v1.3.0 serves
// v1alpha1 only; master prefers v1beta1 of CloneSet, CRR, PPS, UnitedDeployment, WorkloadSpread and PodUnavailableBudget,
// converted from what the fixtures wrote (kubectl picks the same versions as discovery does).
for (const release of ['v1.9.0', 'v1.3.0', 'master']) describe(`get all: every Kruise kind (${release} CRDs, Kruise Rollout built in)`, { skip: !haveCrds && 'no ../shared/kruise-crds' }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ crds: join(SHARED_CRDS, release), readyDelay: '50ms', ...(release === 'master' ? { kruise: 'master' } : {}) });
    const applied = await kubectl(['apply', '-f', FIXTURES], sb.kubeconfig);
    assert.equal(applied.code, 0, applied.stderr);
    // Every kind of get all has its object (the fixtures are the acceptance's "a sandbox with every Kruise kind").
    for (const [type, namespaced] of KINDS) {
      const r = await kubectl(['get', type, ...(namespaced ? ['-A'] : []), '-o', 'name'], sb.kubeconfig);
      assert.equal(r.code, 0, r.stderr);
      assert.notEqual(r.stdout.trim(), '', `no ${type} object: ${r.stderr}`);
    }
  });
  after(async () => {
    await sb?.stop();
  });

  it('-n shop: one table per kind, each the same columns and rows as kubectl get <kind> -n shop', async () => {
    await eventually(async () => {
      const ours = await getAll(sb, ['-n', 'shop']);
      assert.equal(ours.stderr, '');
      assert.equal(ours.tables.length, KINDS.length, ours.stdout);
      assert.deepEqual(ours.tables, await kubectlTables(sb, KINDS, ['-n', 'shop']));
    });
    const ours = await runCli(['get', 'all', '-n', 'shop'], { kubeconfig: sb.kubeconfig });
    // Tables are separated by one blank line; the CloneSet's are the CRD's priority-0 columns.
    assert.equal(ours.stdout.split('\n\n').length, KINDS.length);
    // v1.3.0's CloneSet CRD has no UPDATED_AVAILABLE column yet.
    // The UnitedDeployment api's two subsets are CloneSets too (api-zone-a-xxxxx, api-zone-b-xxxxx), listed first by name.
    const subsets = String.raw`(cloneset\.apps\.kruise\.io\/api-zone-[ab]-[a-z0-9]+ .*\n){2}`;
    const cloneset = release === 'v1.3.0'
      ? new RegExp(String.raw`^NAME +DESIRED +UPDATED +UPDATED_READY +READY +TOTAL +AGE\n${subsets}cloneset\.apps\.kruise\.io\/web +2 +2 +2 +2 +2 +\d+s\n\n`)
      : new RegExp(String.raw`^NAME +DESIRED +UPDATED +UPDATED_READY +UPDATED_AVAILABLE +READY +TOTAL +AGE\n${subsets}cloneset\.apps\.kruise\.io\/web +2 +2 +2 +2 +2 +2 +\d+s\n\n`);
    assert.match(ours.stdout, cloneset);
    assert.match(ours.stdout, /\nworkloadspread\.apps\.kruise\.io\/web-spread +web +CloneSet +Adaptive +\d+s\n/);
  });

  it('-A: NAMESPACE first for namespaced kinds, none for SidecarSet (cluster-scoped), as kubectl get -A', async () => {
    await eventually(async () => {
      const ours = await getAll(sb, ['-A']);
      assert.deepEqual(ours.tables, await kubectlTables(sb, KINDS, ['-A']));
      assert.deepEqual(
        // Besides the UnitedDeployment's subset CloneSets (api-zone-a-xxxxx, api-zone-b-xxxxx).
        ours.tables[0]!.rows.map((r) => r.slice(0, 2)).filter((r) => !r[1]!.includes('/api-zone-')),
        [
          ['batch', 'cloneset.apps.kruise.io/worker'],
          ['shop', 'cloneset.apps.kruise.io/web'],
        ],
      );
      assert.deepEqual(ours.tables[3]!.headers, ['NAME', 'MATCHED', 'UPDATED', 'READY', 'AGE']);
    });
  });

  it('-A -o wide adds the priority columns (CONTAINERS, IMAGES, SELECTOR) like kubectl get -o wide', async () => {
    await eventually(async () => {
      const ours = await getAll(sb, ['-A', '-o', 'wide']);
      assert.deepEqual(ours.tables, await kubectlTables(sb, KINDS, ['-A', '-o', 'wide']));
      assert.deepEqual(ours.tables[0]!.headers.slice(-3), ['CONTAINERS', 'IMAGES', 'SELECTOR']);
      assert.deepEqual(ours.tables[0]!.rows.find((r) => r[1] === 'cloneset.apps.kruise.io/web')!.slice(-3), ['nginx', 'nginx:1.25', 'app=web']);
    });
  });

  it('-o name: kind.group/name lines, the same as kubectl get <kind> -o name, kinds in order', async () => {
    let expected = '';
    for (const [type] of KINDS) expected += (await kubectl(['get', type, '-A', '-o', 'name'], sb.kubeconfig)).stdout;
    const ours = await runCli(['get', 'all', '-A', '-o', 'name'], { kubeconfig: sb.kubeconfig });
    assert.equal(ours.code, 0, ours.stderr);
    assert.equal(ours.stdout, expected);
    assert.equal(ours.stdout.split('\n').filter(Boolean).length, KINDS.length + 3, 'four CloneSets (two of them the UnitedDeployment\'s subsets), one of every other kind');
  });

  it('a namespace with nothing shows only the cluster-scoped SidecarSet, as kubectl get sidecarsets -n quiet does', async () => {
    const ours = await runCli(['get', 'all', '-n', 'quiet'], { kubeconfig: sb.kubeconfig });
    assert.equal(ours.code, 0, ours.stderr);
    assert.equal(ours.stderr, '');
    const tables = parseTables(ours.stdout).map(sameAges);
    assert.deepEqual(tables, await kubectlTables(sb, KINDS, ['-n', 'quiet']));
    assert.deepEqual(tables.map((t) => t.rows.map((r) => r[0])), [['sidecarset.apps.kruise.io/log']]);
    const names = await runCli(['get', 'all', '-n', 'quiet', '-o', 'name'], { kubeconfig: sb.kubeconfig });
    assert.equal(names.stdout, 'sidecarset.apps.kruise.io/log\n');
  });

  it('costs one discovery request (none once cached) + one list per served kind, and sends nothing on bad input', async () => {
    rmSync(join(sb.dir, 'home', '.kube', 'cache', 'kruise-discovery'), { recursive: true, force: true });
    sb.clearAudit();
    assert.equal((await runCli(['get', 'all'], { kubeconfig: sb.kubeconfig })).code, 0);
    const cold = sb.audit();
    assert.deepEqual(cold.filter((e) => e.verb !== 'list').map((e) => e.path), ['/apis'], 'one aggregated discovery request');
    assert.equal(cold.length, KINDS.length + 1, cold.map((e) => e.path).join('\n'));
    sb.clearAudit();
    const r = await runCli(['get', 'all', '-A'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, r.stderr);
    const requests = sb.audit();
    assert.equal(requests.length, KINDS.length, requests.map((e) => e.path).join('\n'));
    assert.ok(requests.every((e) => e.verb === 'list' && e.code === 200));
    assert.deepEqual(new Set(requests.map((e) => e.path.split('/').pop())).size, KINDS.length);

    sb.clearAudit();
    for (const [args, message] of [
      [['get', 'all', 'web'], /^error: get all takes no NAME \("web"\)/],
      [['get', 'all/web'], /^error: get all takes no NAME \("all\/web"\)/],
      [['get', 'all', '-o', 'yaml'], /^error: unable to match a printer suitable for the output format "yaml", allowed formats are: wide,name\n$/],
      [['get', 'all', '-l', ' '], /^error: -l needs a label selector/],
      [['get', 'clonesets'], /^error: get supports all, pps and rollouts; use kubectl get clonesets for other kinds\n$/],
    ] as const) {
      const bad = await runCli([...args], { kubeconfig: sb.kubeconfig });
      assert.equal(bad.code, 2, bad.stderr);
      assert.equal(bad.stdout, '');
      assert.match(bad.stderr, message);
      assert.equal(bad.stderr.trimEnd().split('\n').length, 1, bad.stderr);
    }
    assert.deepEqual(sb.audit(), [], 'bad input sends no request');
  });

  it('completion: get <TAB> offers all; nothing after get all (no names); its flags', async () => {
    const complete = async (...words: string[]): Promise<string[]> => {
      const r = await runCli(['__complete', ...words], { kubeconfig: sb.kubeconfig });
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.trim().split('\n');
    };
    assert.deepEqual(await complete('get', ''), ['all', 'pps', 'rollouts', ':4']);
    assert.deepEqual(await complete('get', 'a'), ['all', ':4']);
    assert.deepEqual(await complete('get', 'all', ''), [':4']);
    const flags = await complete('get', 'all', '-');
    for (const f of ['-A', '--all-namespaces', '-o', '--output', '-l', '--selector', '--namespace']) assert.ok(flags.includes(f), `${f} in ${flags.join(' ')}`);
  });

  it('-l filters every kind like kubectl get -l', async () => {
    const ours = await runCli(['get', 'all', '-A', '-l', 'app=web', '-o', 'name'], { kubeconfig: sb.kubeconfig });
    assert.equal(ours.code, 0, ours.stderr);
    assert.equal(ours.stdout, 'cloneset.apps.kruise.io/web\n');
  });

  it('a kind whose CRD went away after discovery was cached is skipped, not an error', async () => {
    await runCli(['get', 'all'], { kubeconfig: sb.kubeconfig }); // discovery cached with BroadcastJob served
    const del = await sb.api('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/broadcastjobs.apps.kruise.io');
    assert.ok(del.status === 200 || del.status === 202, del.text);
    await eventually(async () => {
      const gone = await sb.api('GET', '/apis/apps.kruise.io/v1beta1/broadcastjobs');
      assert.equal(gone.status, 404);
    });
    const r = await runCli(['get', 'all', '-A', '-o', 'name'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /broadcastjob/);
    assert.match(r.stdout, /^cloneset\.apps\.kruise\.io\/worker\n/);
    assert.match(r.stdout, /\nrollout\.rollouts\.kruise\.io\/web\n$/);
  });
});

describe('get all: a cluster serving only some Kruise kinds (v1.3.0 CloneSet, SidecarSet, PPS CRDs)', { skip: !haveCrds && 'no ../shared/kruise-crds' }, () => {
  let sb: Sandbox;
  let crds: string;
  const SERVED = KINDS.filter(([type]) => ['clonesets.apps.kruise.io', 'sidecarsets.apps.kruise.io', 'persistentpodstates.apps.kruise.io', 'rollouts.rollouts.kruise.io'].includes(type));
  before(async () => {
    // A folder of three of v1.3.0's CRDs (copied at test time): apps.kruise.io serves only them,
    // policy.kruise.io is not there at all, Kruise Rollout comes from the sandbox's built-in definitions.
    crds = mkdtempSync(join(tmpdir(), 'kk-getall-crds-'));
    for (const f of ['apps.kruise.io_clonesets.yaml', 'apps.kruise.io_sidecarsets.yaml', 'apps.kruise.io_persistentpodstates.yaml']) copyFileSync(join(SHARED_CRDS, 'v1.3.0', f), join(crds, f));
    sb = await startSandbox({ crds, readyDelay: '50ms' });
  });
  after(async () => {
    await sb?.stop();
    rmSync(crds, { recursive: true, force: true });
  });

  it('with no objects yet: "No resources found" on stderr, nothing on stdout, exit 0 (-n and -A); -o name prints nothing', async () => {
    for (const [args, message] of [
      [['-n', 'default'], 'No resources found in default namespace.\n'],
      [[], 'No resources found in default namespace.\n'],
      [['-A'], 'No resources found\n'],
    ] as const) {
      const r = await runCli(['get', 'all', ...args], { kubeconfig: sb.kubeconfig });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, message);
    }
    const names = await runCli(['get', 'all', '-A', '-o', 'name'], { kubeconfig: sb.kubeconfig });
    assert.deepEqual([names.code, names.stdout, names.stderr], [0, '', '']);
  });

  it('lists the served kinds only, each as kubectl get prints it; the others are skipped without error', async () => {
    for (const f of ['00-namespaces.yaml', '01-cloneset.yaml', '04-sidecarset.yaml', '10-persistentpodstate.yaml', '13-rollout.yaml']) {
      const r = await kubectl(['apply', '-f', join(FIXTURES, f)], sb.kubeconfig);
      assert.equal(r.code, 0, r.stderr);
    }
    // Objects of the kinds this cluster lacks cannot even be created (the sandbox serves what its CRDs say).
    const pub = await kubectl(['apply', '-f', join(FIXTURES, '12-podunavailablebudget.yaml')], sb.kubeconfig);
    assert.notEqual(pub.code, 0);
    await eventually(async () => {
      const ours = await getAll(sb, ['-A']);
      assert.equal(ours.stderr, '');
      assert.deepEqual(ours.tables, await kubectlTables(sb, SERVED, ['-A']));
      assert.deepEqual(
        ours.tables.map((t) => t.rows[0]![t.headers.indexOf('NAME')]!.split('/')[0]),
        ['cloneset.apps.kruise.io', 'sidecarset.apps.kruise.io', 'persistentpodstate.apps.kruise.io', 'rollout.rollouts.kruise.io'],
      );
    });
    sb.clearAudit();
    const shop = await runCli(['get', 'all', '-n', 'shop', '-o', 'name'], { kubeconfig: sb.kubeconfig });
    assert.equal(shop.stdout, 'cloneset.apps.kruise.io/web\nsidecarset.apps.kruise.io/log\npersistentpodstate.apps.kruise.io/db\nrollout.rollouts.kruise.io/web\n');
    assert.equal(sb.audit().length, SERVED.length, 'one list per served kind, no request for the others');
  });
});
