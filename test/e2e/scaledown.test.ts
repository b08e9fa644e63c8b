// `scaledown` end to end on the sandbox (issue #18): exactly the named pods go in one write (audit
// log), other workloads' pods and bad input are refused with exit 2 and nothing written, a rerun
// never lowers replicas twice, a concurrent scale between our read and our write is re-decided,
// --wait watches until the pods are gone (exit 3 on --timeout), and an Advanced StatefulSet keeps
// every other ordinal. Results are read back through the API and real kubectl.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { kubectl, REPO_ROOT, runCli, type RunResult } from '../helpers/cli';
import { startSandbox, waitUntil, type AuditEntry, type Sandbox } from '../helpers/sandbox';
import { getObject, isPodReady, kubectlKruise, kubectlOk, podsOf, summary, waitSettled, writes } from './rollout-helpers';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'scaledown');
const CS_PATH = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web';
const ASTS_PATH = '/apis/apps.kruise.io/v1beta1/namespaces/default/statefulsets/db';

let sb: Sandbox;

async function apply(file: string): Promise<void> {
  await kubectlOk(sb, ['apply', '-f', join(FIXTURES, file)]);
}

async function readyNames(selector: string, n: number): Promise<string[]> {
  return waitUntil(`${n} ready pods of ${selector}`, async () => {
    const pods = await podsOf(sb, selector);
    return pods.length === n && pods.every(isPodReady) ? pods.map((p) => p.metadata.name as string).sort() : undefined;
  }, 40_000);
}

/** PATCH/PUT requests on exactly this object (not its /scale or /status). */
const writesTo = (entries: AuditEntry[], path: string): AuditEntry[] => writes(entries).filter((e) => e.path === path);

const cli = (args: string[], timeoutMs = 40_000): Promise<RunResult> => runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs });

before(async () => {
  sb = await startSandbox({ readyDelay: 100 });
  await apply('cloneset-web.yaml');
  await apply('cloneset-api.yaml');
  await readyNames('app=web', 8);
  await readyNames('app=api', 2);
});

after(async () => {
  await sb?.stop();
});

describe('scaledown cloneset (issue #18 acceptance)', () => {
  test('`kubectl kruise scaledown cloneset/web --pods a,b` on 8 replicas: 6 pods left, neither named, one write', async () => {
    const [a, b] = await readyNames('app=web', 8);
    sb.clearAudit();
    const r = await kubectlKruise(sb, ['scaledown', 'cloneset/web', '--pods', `${a},${b}`]);
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, `cloneset.apps.kruise.io/web scaled down from 8 to 6 replicas (removing pods ${a}, ${b})\n`);
    assert.equal(r.stderr, '');
    const audit = sb.audit();
    assert.deepEqual(
      writes(audit).map((e) => `${e.verb} ${e.path} ${e.code}`),
      [`patch ${CS_PATH} 200`],
      'exactly one write, a PATCH of the CloneSet',
    );
    assert.equal(writes(audit)[0]!.contentType, 'application/json-patch+json');
    // Reads: the CloneSet, one list of its pods and one of the namespace's PodUnavailableBudgets (none
    // here: the write removes pods, which a budget could refuse) (plus discovery on a cold cache).
    const reads = audit.filter((e) => e.verb === 'get' || e.verb === 'list').filter((e) => !e.path.startsWith('/api') || e.path.includes('/namespaces/'));
    assert.deepEqual(reads.map((e) => `${e.verb} ${e.path}`), [`get ${CS_PATH}`, 'list /api/v1/namespaces/default/pods', 'list /apis/policy.kruise.io/v1alpha1/namespaces/default/podunavailablebudgets']);

    const left = await waitUntil('6 web pods without the named ones', async () => {
      const names = (await podsOf(sb, 'app=web')).map((p) => p.metadata.name as string);
      return names.length === 6 && !names.includes(a!) && !names.includes(b!) ? names : undefined;
    }, 30_000);
    // Real kubectl sees the same: 6 pods, replicas 6, the named pods not found.
    const k = await kubectlOk(sb, ['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}']);
    assert.deepEqual(k.stdout.split(' ').sort(), left.sort());
    assert.equal((await kubectlOk(sb, ['get', 'cloneset', 'web', '-o', 'jsonpath={.spec.replicas}'])).stdout, '6');
    const gone = await kubectl(['get', 'pod', a!], sb.kubeconfig);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /NotFound|not found/);
    // Kruise's controller drops the names of the removed pods from podsToDelete.
    await waitUntil('podsToDelete truncated', async () => ((await getObject(sb, CS_PATH)).spec.scaleStrategy?.podsToDelete === undefined ? true : undefined));
    await waitSettled(sb, CS_PATH);
  });

  test('a rerun after success writes nothing and never lowers replicas twice ("unchanged"); with --wait it confirms the scale-down', async () => {
    const record = JSON.parse((await getObject(sb, CS_PATH)).metadata.annotations['kubectl-kruise/scaledown']) as { pods: Record<string, string> };
    const named = Object.keys(record.pods);
    assert.equal(named.length, 2);
    sb.clearAudit();
    const r = await cli(['scaledown', 'cloneset/web', '--pods', named.join(','), '--wait', '--timeout=30s']);
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, `cloneset.apps.kruise.io/web unchanged (pods ${named.join(', ')} already scaled down)\ncloneset.apps.kruise.io/web scale-down complete (pods ${named.join(', ')} gone, 6 replicas)\n`);
    assert.deepEqual(writes(sb.audit()), [], 'nothing written');
    // --wait lists once and then watches, it does not poll: the plan reads the CloneSet, its pods and
    // the two named pods, then the wait lists each once. (Everything is already gone at that list, so
    // the wait ends there and its watches may never reach the server: asserting a watch was timing, and
    // failed against the executable, whose lists go through fetch and whose watches load node:http first.)
    const reads = sb.audit().filter((e) => e.verb === 'get' || e.verb === 'list').map((e) => `${e.verb} ${e.path}`);
    const podsList = 'list /api/v1/namespaces/default/pods';
    assert.deepEqual(reads.sort(), [`get ${CS_PATH}`, ...named.map((n) => `get /api/v1/namespaces/default/pods/${n}`), podsList, podsList, 'list /apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets'].sort());
    assert.equal((await getObject(sb, CS_PATH)).spec.replicas, 6);
  });

  test('a pod of another workload is refused with exit 2 and nothing written', async () => {
    const [apiPod] = await readyNames('app=api', 2);
    const [web] = await readyNames('app=web', 6);
    sb.clearAudit();
    const r = await kubectlKruise(sb, ['scaledown', 'cloneset/web', '--pods', `${web},${apiPod}`]);
    assert.equal(r.code, 2, summary(r));
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `error: pod "${apiPod}" does not belong to cloneset "web" (its controller is cloneset "api"); nothing was written\n`);
    assert.deepEqual(writes(sb.audit()), []);
    const cs = await getObject(sb, CS_PATH);
    assert.equal(cs.spec.replicas, 6);
    assert.equal(cs.spec.scaleStrategy?.podsToDelete, undefined);
    // A pod that does not exist, and one already being deleted, likewise.
    const missing = await cli(['scaledown', 'cloneset/web', '--pods', 'web-nope']);
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr, 'error: pod "web-nope" not found in namespace "default"; nothing was written\n');
    assert.deepEqual(writes(sb.audit()), []);
  });

  test('bad input is refused before any request (exit 2, one error line, the audit log stays empty)', async () => {
    sb.clearAudit();
    const cases: Array<[string[], RegExp]> = [
      [['scaledown', 'cloneset/web'], /^error: scaledown needs the pods to remove: --pods POD\[,POD\.\.\.\]$/m],
      [['scaledown', 'cloneset/web', '--pods', 'a', '--ordinals', '1'], /^error: give either --pods or --ordinals, not both$/m],
      [['scaledown', 'cloneset/web', '--ordinals', '1'], /^error: --ordinals applies to Advanced StatefulSets only/m],
      [['scaledown', 'sts/db', '--ordinals', '1'], /^error: scaledown is not supported for statefulsets\.apps: a StatefulSet only removes its highest ordinals/m],
      [['scaledown', 'deployment/api', '--pods', 'a'], /^error: scaledown is not supported for deployments\.apps$/m],
      [['scaledown', 'cloneset/web', '--pods', 'web-a,web-a'], /^error: pod "web-a" is named twice in --pods$/m],
      [['scaledown', 'cloneset/web', '--pods', 'Web_A'], /^error: invalid pod name "Web_A" in --pods/m],
      [['scaledown', 'asts/db', '--ordinals', '3-1'], /^error: invalid range "3-1" in --ordinals/m],
      [['scaledown', 'cloneset/web', '--pods', 'a', '--wait', '--dry-run'], /^error: --wait cannot be combined with --dry-run/m],
      [['scaledown', 'cloneset/web', '--pods', 'a', '--timeout=5s'], /^error: --timeout applies to --wait/m],
      [['scaledown', 'cloneset/We_b', '--pods', 'a'], /^error: invalid name "We_b"/m],
      [['scaledown', '--pods', 'a'], /^error: scaledown needs a resource/m],
    ];
    for (const [args, want] of cases) {
      const r = await cli(args);
      assert.equal(r.code, 2, `${args.join(' ')}\n${summary(r)}`);
      assert.match(r.stderr, want, args.join(' '));
      assert.doesNotMatch(r.stderr, /at .*\.[cm]?js:\d+/, 'no stack trace');
    }
    assert.deepEqual(sb.audit(), [], 'no request at all');
  });

  test('--dry-run=client and =server: the decision is shown, nothing changes', async () => {
    const [c] = await readyNames('app=web', 6);
    sb.clearAudit();
    const client = await cli(['scaledown', 'cloneset/web', '--pods', c!, '--dry-run=client', '-o', 'json']);
    assert.equal(client.code, 0, summary(client));
    const shown = JSON.parse(client.stdout);
    assert.equal(shown.spec.replicas, 5);
    assert.deepEqual(shown.spec.scaleStrategy.podsToDelete, [c]);
    assert.deepEqual(writes(sb.audit()), []);
    const server = await cli(['scaledown', 'cloneset/web', '--pods', c!, '--dry-run=server']);
    assert.equal(server.code, 0, summary(server));
    assert.equal(server.stdout, `cloneset.apps.kruise.io/web scaled down from 6 to 5 replicas (removing pod ${c}) (server dry run)\n`);
    assert.deepEqual(writes(sb.audit()).map((e) => `${e.path}?${e.query}`), [`${CS_PATH}?dryRun=All&fieldManager=kubectl-kruise-scaledown`]);
    const cs = await getObject(sb, CS_PATH);
    assert.equal(cs.spec.replicas, 6);
    assert.equal(cs.spec.scaleStrategy?.podsToDelete, undefined);
    assert.equal((await podsOf(sb, 'app=web')).length, 6);
  });

  test('--wait: exit 3 at --timeout while a pod is held (a finalizer); the rerun resumes waiting and ends once it is gone', async () => {
    const [held] = await readyNames('app=web', 6);
    const podPath = `/api/v1/namespaces/default/pods/${held}`;
    const fin = await sb.api('PATCH', podPath, { metadata: { finalizers: ['example.com/hold'] } }, { contentType: 'application/merge-patch+json' });
    assert.equal(fin.status, 200, fin.text);
    const timedOut = await cli(['scaledown', 'cloneset/web', '--pods', held!, '--wait', '--timeout=2s']);
    assert.equal(timedOut.code, 3, summary(timedOut));
    assert.equal(timedOut.stdout.split('\n')[0], `cloneset.apps.kruise.io/web scaled down from 6 to 5 replicas (removing pod ${held})`);
    assert.match(timedOut.stderr, new RegExp(`^error: timed out waiting for CloneSet "web" to scale down: pod ${held} still present`, 'm'));
    assert.equal((await getObject(sb, CS_PATH)).spec.replicas, 5);
    // The rerun writes nothing (the pod is terminating, recorded as ours) and waits for it.
    sb.clearAudit();
    const rerun = runCli(['scaledown', 'cloneset/web', '--pods', held!, '--wait', '--timeout=30s'], { kubeconfig: sb.kubeconfig, timeoutMs: 40_000 });
    await waitUntil('the rerun watching', () => (sb.audit().some((e) => e.verb === 'list' && e.query.includes('fieldSelector')) ? true : undefined), 20_000, 20);
    const release = await sb.api('PATCH', podPath, { metadata: { finalizers: null } }, { contentType: 'application/merge-patch+json' });
    assert.equal(release.status, 200, release.text);
    const done = await rerun;
    assert.equal(done.code, 0, summary(done));
    assert.equal(done.stdout, `cloneset.apps.kruise.io/web unchanged (pod ${held} already scaled down)\ncloneset.apps.kruise.io/web scale-down complete (pod ${held} gone, 5 replicas)\n`);
    assert.deepEqual(writes(sb.audit()).map((e) => e.path), [podPath], 'only the test\'s own release of the finalizer');
    assert.equal((await getObject(sb, CS_PATH)).spec.replicas, 5);
  });
});

/**
 * A proxy in front of the sandbox that holds the first PATCH of the CloneSet until `meanwhile`
 * ran: a deterministic "someone scaled between our read and our write".
 */
async function holdFirstPatch(meanwhile: () => Promise<void>): Promise<{ kubeconfig: string; close(): void }> {
  const upstream = new URL(sb.url);
  let held = false;
  const server: Server = createServer((req, res) => {
    const forward = (): void => {
      const fwd = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      fwd.on('error', () => res.destroy());
      req.pipe(fwd);
    };
    if (!held && req.method === 'PATCH' && req.url?.startsWith(CS_PATH) && !req.url.startsWith(`${CS_PATH}/`)) {
      held = true;
      req.pause();
      meanwhile().then(forward, () => res.destroy());
    } else forward();
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const port = (server.address() as { port: number }).port;
  const kubeconfig = join(sb.dir, 'kubeconfig-held');
  writeFileSync(kubeconfig, readFileSync(sb.kubeconfig, 'utf8').replaceAll(sb.url.replace(/\/$/, ''), `http://127.0.0.1:${port}`));
  return { kubeconfig, close: () => server.close() };
}

describe('scaledown races', () => {
  test('someone scales the CloneSet between our read and our write: the guarded patch fails, is re-decided from a fresh read, applied once', async () => {
    await waitSettled(sb, CS_PATH, 30_000);
    const before = await readyNames('app=web', 5);
    const victim = before[0]!;
    const proxy = await holdFirstPatch(async () => {
      // kubectl scale goes through the sandbox directly (the /scale subresource): 5 -> 7
      await kubectlOk(sb, ['scale', 'cloneset/web', '--replicas=7']);
    });
    try {
      sb.clearAudit();
      const r = await runCli(['scaledown', 'cloneset/web', '--pods', victim], { kubeconfig: proxy.kubeconfig, timeoutMs: 40_000 });
      assert.equal(r.code, 0, summary(r));
      // Decided again on the fresh read: 7 -> 6, not 5 -> 4 (the concurrent scale is kept, ours applied once).
      assert.equal(r.stdout, `cloneset.apps.kruise.io/web scaled down from 7 to 6 replicas (removing pod ${victim})\n`);
      const ours = writesTo(sb.audit(), CS_PATH);
      assert.deepEqual(ours.map((e) => e.code), [422, 200], 'the stale patch refused by its test ops, the re-decided one applied');
      assert.ok(writes(sb.audit()).some((e) => e.path === `${CS_PATH}/scale`), 'the concurrent scale');
      const cs = await getObject(sb, CS_PATH);
      assert.equal(cs.spec.replicas, 6);
      await waitUntil('6 pods without the victim', async () => {
        const names = (await podsOf(sb, 'app=web')).map((p) => p.metadata.name);
        return names.length === 6 && !names.includes(victim) ? true : undefined;
      }, 30_000);
    } finally {
      proxy.close();
    }
  });

  test('two scale-downs of the same pod at once: one writes, the other finds it recorded and writes nothing', async () => {
    await waitSettled(sb, CS_PATH, 30_000);
    const [victim] = await readyNames('app=web', 6);
    sb.clearAudit();
    const [x, y] = await Promise.all([cli(['scaledown', 'cloneset/web', '--pods', victim!]), cli(['scaledown', 'cloneset/web', '--pods', victim!])]);
    assert.deepEqual([x.code, y.code], [0, 0], `${summary(x)}\n${summary(y)}`);
    const lines = [x.stdout, y.stdout].sort();
    assert.deepEqual(lines, [`cloneset.apps.kruise.io/web scaled down from 6 to 5 replicas (removing pod ${victim})\n`, `cloneset.apps.kruise.io/web unchanged (pod ${victim} already scaled down)\n`].sort());
    assert.equal((await getObject(sb, CS_PATH)).spec.replicas, 5, 'lowered once');
    assert.equal(writesTo(sb.audit(), CS_PATH).filter((e) => e.code === 200).length, 1);
  });

  test('two overlapping scale-downs (a,b and b,c) at once, another one later, then a rerun of each of the first two: both "unchanged", nothing written (issue #26: exit 2 "pod ... not found")', async () => {
    await waitSettled(sb, CS_PATH, 30_000);
    const [a, b, c] = await readyNames('app=web', 5);
    const first = ['scaledown', 'cloneset/web', '--pods', `${a},${b}`];
    const second = ['scaledown', 'cloneset/web', '--pods', `${b},${c}`];
    const [x, y] = await Promise.all([cli(first), cli(second)]);
    assert.deepEqual([x.code, y.code], [0, 0], `${summary(x)}\n${summary(y)}`);
    assert.equal((await getObject(sb, CS_PATH)).spec.replicas, 2, '5 - 3 pods, each once');
    await waitUntil('a, b and c gone', async () => {
      const names = (await podsOf(sb, 'app=web')).map((p) => p.metadata.name);
      return names.length === 2 && ![a, b, c].some((n) => names.includes(n)) ? true : undefined;
    }, 30_000);
    // A later scale-down writes the record again, with a, b and c gone: they must stay recorded.
    const [d] = await readyNames('app=web', 2);
    assert.equal((await cli(['scaledown', 'cloneset/web', '--pods', d!])).code, 0);
    sb.clearAudit();
    for (const args of [first, second]) {
      const again = await cli(args);
      assert.equal(again.code, 0, summary(again));
      assert.match(again.stdout, /^cloneset\.apps\.kruise\.io\/web unchanged \(pods .* already scaled down\)\n$/);
    }
    assert.deepEqual(writes(sb.audit()), []);
    assert.equal((await getObject(sb, CS_PATH)).spec.replicas, 1);
  });
});

test('completion: the kinds scaledown takes, and after --pods the pods the named workload controls (the rest of a list too)', async () => {
  const kinds = await cli(['__complete', 'scaledown', '']);
  assert.equal(kinds.stdout, 'cloneset/\nasts/\n:6\n');
  const web = (await podsOf(sb, 'app=web')).map((p) => p.metadata.name as string).sort();
  const pods = await cli(['__complete', 'scaledown', 'cloneset/web', '--pods', '']);
  assert.deepEqual(pods.stdout.split('\n').filter((l) => l && !l.startsWith(':')).sort(), web, 'only web\'s pods, not api\'s');
  const rest = await cli(['__complete', 'scaledown', 'cloneset/web', '--pods', `${web[0]},`]);
  assert.deepEqual(rest.stdout.split('\n').filter((l) => l && !l.startsWith(':')).sort(), web.slice(1).map((n) => `${web[0]},${n}`));
});

describe('scaledown advanced statefulset', () => {
  test('--ordinals 2: ordinal 2 reserved (API and kubectl), its pod gone, the others kept; a rerun and an inactive ordinal write nothing', async () => {
    await apply('asts-db.yaml');
    await readyNames('app=db', 5);
    const uids = new Map((await podsOf(sb, 'app=db')).map((p) => [p.metadata.name as string, p.metadata.uid as string]));
    sb.clearAudit();
    const r = await kubectlKruise(sb, ['scaledown', 'asts/db', '--ordinals', '2']);
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'statefulset.apps.kruise.io/db scaled down from 5 to 4 replicas (reserving ordinal 2, removing pod db-2)\n');
    assert.deepEqual(writes(sb.audit()).map((e) => `${e.verb} ${e.path}`), [`patch ${ASTS_PATH}`]);
    const set = await getObject(sb, ASTS_PATH);
    assert.deepEqual(set.spec.reserveOrdinals, [2]);
    assert.equal(set.spec.replicas, 4);
    assert.equal((await kubectlOk(sb, ['get', 'statefulsets.apps.kruise.io', 'db', '-o', 'jsonpath={.spec.reserveOrdinals} {.spec.replicas}'])).stdout, '[2] 4');
    const left = await waitUntil('db-2 gone', async () => {
      const pods = await podsOf(sb, 'app=db');
      return pods.length === 4 && !pods.some((p) => p.metadata.name === 'db-2') ? pods : undefined;
    }, 30_000);
    // The others are the same pods (same UIDs): nothing was recreated or renumbered.
    assert.deepEqual(
      left.map((p) => [p.metadata.name, p.metadata.uid]).sort(),
      ['db-0', 'db-1', 'db-3', 'db-4'].map((n) => [n, uids.get(n)]),
    );
    await waitSettled(sb, ASTS_PATH);

    sb.clearAudit();
    const again = await cli(['scaledown', 'asts/db', '--ordinals', '2']);
    assert.equal(again.code, 0, summary(again));
    assert.equal(again.stdout, 'statefulset.apps.kruise.io/db unchanged (pod db-2 already scaled down)\n');
    const inactive = await cli(['scaledown', 'asts/db', '--ordinals', '5']);
    assert.equal(inactive.code, 2, summary(inactive));
    assert.equal(inactive.stderr, 'error: ordinal 5 is not an active ordinal of advanced statefulset "db" (active: 0-1, 3-4); nothing was written\n');
    assert.deepEqual(writes(sb.audit()), []);
    assert.equal((await getObject(sb, ASTS_PATH)).spec.replicas, 4);
  });

  test('--pods db-4 with --wait: the pod\'s ordinal is reserved and the command returns once it is gone', async () => {
    const r = await cli(['scaledown', 'asts/db', '--pods', 'db-4', '--wait', '--timeout=30s']);
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'statefulset.apps.kruise.io/db scaled down from 4 to 3 replicas (reserving ordinal 4, removing pod db-4)\nstatefulset.apps.kruise.io/db scale-down complete (pod db-4 gone, 3 replicas)\n');
    // Returned only once done: read right after, nothing left to wait for.
    assert.deepEqual((await podsOf(sb, 'app=db')).map((p) => p.metadata.name).sort(), ['db-0', 'db-1', 'db-3']);
    const set = await getObject(sb, ASTS_PATH);
    assert.deepEqual(set.spec.reserveOrdinals, [2, 4]);
    assert.equal(set.status.replicas, 3);
  });
});
