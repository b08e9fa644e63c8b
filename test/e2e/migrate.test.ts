// `migrate cloneset/NEW --from deployment/OLD` (issue #18) end to end on the sandbox: no downtime
// (real kubectl samples the pods of both workloads while it runs), an interrupt half-way and a rerun
// that finishes without doing a step twice (audit log), one run per Deployment, the modes kruise-tools
// has (--create, --copy), --dry-run, --timeout, --delete-source, neither controller taking the
// other's pods, and bad input refused before any write.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, runCli, streamCli, type RunResult } from '../helpers/cli';
import { startSandbox, waitUntil, type AuditEntry, type Sandbox } from '../helpers/sandbox';
import { kubectlKruise, writes } from './rollout-helpers';
import { controllerKind, deploymentReady, getCloneSet, getDeployment, isReady, migrated, podSampler, pods } from './migrate-helpers';

const show = (r: RunResult): string => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
const record = (cs: { metadata: { annotations?: Record<string, string> } } | undefined): Record<string, unknown> =>
  JSON.parse(cs?.metadata.annotations?.['kubectl-kruise/migration'] ?? '{}') as Record<string, unknown>;
const ok = (e: AuditEntry): boolean => e.code < 300;
const patchesOf = (entries: AuditEntry[], resource: string, name: string): AuditEntry[] =>
  entries.filter((e) => e.verb === 'patch' && e.path === `/apis/${resource}/namespaces/default/${resource.startsWith('apps.kruise.io') ? 'clonesets' : 'deployments'}/${name}`);
const CS = 'apps.kruise.io/v1alpha1';
const DEP = 'apps/v1';

let sb: Sandbox;
before(async () => {
  // Pods Ready 1 s after they start, available 1 s later (the fixture's minReadySeconds): each step
  // takes about 2 s, time for kubectl to sample the states in between.
  sb = await startSandbox({ readyDelay: 1000 });
});
after(async () => {
  await sb?.stop();
});

describe('migrate: the acceptance case', () => {
  test('6 replicas, max surge 2, through kubectl kruise: never fewer than 6 ready pods, ends with a CloneSet of 6 ready and the Deployment at 0', async () => {
    const original = await deploymentReady(sb, 'web', 6);
    // Warm both discovery caches (kubectl's and ours), so the counts below are the migration's own.
    await kubectl(['get', 'pods', '-l', 'app=web'], sb.kubeconfig);
    const dry = await kubectlKruise(sb, ['migrate', 'cloneset/web', '--from', 'deployment/web', '--max-surge', '2', '--dry-run']);
    assert.equal(dry.code, 0, show(dry));
    sb.clearAudit();
    const sampler = podSampler(sb, 'web');
    const started = Date.now();
    const r = await kubectlKruise(sb, ['migrate', 'cloneset/web', '--from', 'deployment/web', '--max-surge', '2'], 60_000);
    const elapsedMs = Date.now() - started;
    const seen = await sampler.stop();
    // Requests of the migration (the sampler only lists pods): reads, lease, mark, create, 2 watches, 3 + 3 scales, record, release.
    // kubectl's own requests: the pod lists, its version check and (cached) discovery.
    const kubectlOwn = (e: AuditEntry): boolean => e.path.startsWith('/api/v1/namespaces/default/pods') || e.path === '/version' || /^\/(api|apis)(\/[^/]+){0,2}$/.test(e.path);
    // Read now: the checks below read the objects back through the API too.
    const own = sb.audit().filter((e) => !kubectlOwn(e));
    const byVerb = own.reduce<Record<string, number>>((m, e) => ((m[e.verb] = (m[e.verb] ?? 0) + 1), m), {});
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stdout, 'cloneset.apps.kruise.io/web created\ncloneset.apps.kruise.io/web migrated\n');
    const stepLines = r.stderr.split('\n').filter((l) => l.startsWith('step ')).map((l) => l.replace(/ \(\d+(\.\d+)?s\)$/, ''));
    // The three steps announced, whether each surge's two pods become available together or one after
    // the other (a loaded machine: the Deployment is then lowered by the first within its step, which
    // goes on until the second; the steps printed were once 4 to 6 of "3").
    assert.match(r.stderr, /^migrating: deployment\/web \(6\) to cloneset\/web \(0\), 6 pods in the end, max surge 2 \(2 pods\): 3 steps$/m);
    assert.deepEqual(stepLines, [
      'step 1/3: cloneset/web 0 -> 2 (2 available), deployment/web 6 -> 4',
      'step 2/3: cloneset/web 2 -> 4 (4 available), deployment/web 4 -> 2',
      'step 3/3: cloneset/web 4 -> 6 (6 available), deployment/web 2 -> 0',
    ], show(r));
    assert.match(r.stderr, /deployment\/web is at 0 replicas and kept/);

    assert.ok(seen.samples >= 5, `kubectl sampled ${seen.samples} times`);
    assert.ok(seen.minReady >= 6, `ready pods of both never below 6 (fewest seen: ${seen.minReady} in ${seen.samples} samples)`);
    assert.ok(seen.maxPods <= 8, `at most 6 + 2 pods at once (most seen: ${seen.maxPods})`);
    assert.deepEqual([...seen.owners].sort(), ['CloneSet', 'ReplicaSet'], 'every pod had its own controller throughout (none orphaned or adopted)');

    const now = await migrated(sb, 'web', 6);
    assert.ok(now.every((p) => !original.some((o) => o.metadata.uid === p.metadata.uid)), 'the CloneSet runs pods of its own');
    const cs = (await getCloneSet(sb, 'web'))!;
    assert.equal(cs.spec.replicas, 6);
    assert.equal(cs.status?.readyReplicas, 6);
    assert.deepEqual({ ...record(cs), startedAt: 'x', finishedAt: 'x' }, {
      from: 'web',
      sourceUid: (await getDeployment(sb, 'web')).metadata.uid,
      sourceReplicas: 6,
      replicas: 6,
      maxSurge: '2',
      state: 'done',
      startedAt: 'x',
      finishedAt: 'x',
    });
    const dep = await getDeployment(sb, 'web');
    assert.equal(dep.spec.replicas, 0, 'the Deployment is kept at 0');
    assert.equal(dep.metadata.annotations?.['kubectl-kruise/migration-target'], 'web');

    // 22 for the three steps; a pod available after its surge's first adds a scale of the Deployment.
    const depScales = patchesOf(own, DEP, 'web').filter(ok).length - 1;
    assert.ok(depScales >= 3 && depScales <= 6, `the mark and one or two scales of the Deployment per step: ${depScales} scales`);
    assert.ok(own.length <= 22 + depScales - 3, `${own.length} requests: ${JSON.stringify(byVerb)}\n${own.map((e) => `${e.verb} ${e.path}`).join('\n')}`);
    assert.equal(patchesOf(own, CS, 'web').filter(ok).length, 4, '3 scales of the CloneSet and the record marked done');
    assert.deepEqual(writes(own).filter((e) => !ok(e)), [], 'no write refused');
    process.stdout.write(`# migrate 6 replicas, max surge 2: ${(elapsedMs / 1000).toFixed(1)}s, ${own.length} requests ${JSON.stringify(byVerb)}\n`);

    // Run again: nothing to do, nothing written.
    sb.clearAudit();
    const again = await runCli(['migrate', 'cloneset/web', '--from', 'deployment/web', '--max-surge', '2'], { kubeconfig: sb.kubeconfig });
    assert.equal(again.code, 0, show(again));
    assert.equal(again.stdout, 'cloneset.apps.kruise.io/web unchanged\n');
    assert.match(again.stderr, /nothing to do: cloneset\/web finished its migration from deployment\/web at /);
    assert.deepEqual(writes(sb.audit()), []);
  });
});

describe('migrate: interrupted and run again', () => {
  test('Ctrl-C half-way leaves both consistent and says what to run; the rerun finishes and no step is done twice', async () => {
    await deploymentReady(sb, 'shop', 6);
    const generationBefore = (await getDeployment(sb, 'shop')).metadata.generation ?? 0;
    sb.clearAudit();
    const run = streamCli(['migrate', 'cloneset/shop', '--from', 'deployment/shop', '--max-surge', '2'], { kubeconfig: sb.kubeconfig });
    // "step 1/3" once step 1 is done (the steps announced are the steps printed).
    await waitUntil('step 1 done', () => /^step 1\/\d+:/m.test(run.stderr()) || undefined, 40_000, 20);
    const stopped = await run.stop('SIGINT');
    assert.equal(stopped.code, 130, show(stopped));
    const lines = stopped.stderr.trimEnd().split('\n');
    const last = lines[lines.length - 1]!;
    assert.match(
      last,
      /^interrupted: migration of deployment\/shop to cloneset\/shop stopped (at|after) step \d+.*: cloneset\/shop \d+ \(\d+ available\), deployment\/shop \d+; run "kubectl kruise migrate cloneset\/shop --from deployment\/shop -n default" to continue$/,
    );
    assert.equal(lines.filter((l) => l.startsWith('interrupted')).length, 1);

    // Consistent: whatever moment the interrupt hit, the CloneSet's available pods and the
    // Deployment's still serve 6, and there are never more than 6 + 2.
    const cs = (await getCloneSet(sb, 'shop'))!;
    const dep = await getDeployment(sb, 'shop');
    assert.ok((cs.spec.replicas ?? 0) + (dep.spec.replicas ?? 0) <= 8, `cloneset ${cs.spec.replicas} + deployment ${dep.spec.replicas}`);
    const ready = (await pods(sb, 'shop')).filter(isReady).length;
    assert.ok(ready >= 6, `${ready} ready pods after the interrupt`);
    assert.ok((cs.spec.replicas ?? 0) >= 2 && (dep.spec.replicas ?? 0) <= 5, 'step 1 was done');
    const lease = await sb.api('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases/kubectl-kruise-migrate-deployment-shop');
    assert.equal(lease.body.spec.holderIdentity, undefined, 'the lease was released');

    const again = await runCli(['migrate', 'cloneset/shop', '--from', 'deployment/shop'], { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
    assert.equal(again.code, 0, show(again));
    assert.match(again.stderr, /resuming the migration started at \S+: deployment\/shop \(\d\) to cloneset\/shop \(\d\), 6 pods in the end, max surge 2 \(2 pods\)/, 'the recorded max surge, not the default 1');
    await migrated(sb, 'shop', 6);
    assert.equal((await getDeployment(sb, 'shop')).spec.replicas, 0);

    // Across both runs: one create, each of the 3 surges once, the mark once, the record once; the
    // Deployment drained in 3 steps (up to 6 when pods of a surge become available one by one).
    const all = sb.audit();
    assert.equal(all.filter((e) => e.verb === 'create' && e.path.endsWith('/clonesets') && ok(e)).length, 1);
    assert.equal(patchesOf(all, CS, 'shop').filter(ok).length, 4, patchesOf(all, CS, 'shop').map((e) => e.code).join(','));
    const drains = patchesOf(all, DEP, 'shop').filter(ok).length - 1;
    assert.ok(drains >= 3 && drains <= 6, `the mark and ${drains} scales of the Deployment`);
    // Each drain once: every scale changed spec.replicas (a repeated one would not bump the generation).
    assert.equal(((await getDeployment(sb, 'shop')).metadata.generation ?? 0) - generationBefore, drains, 'one generation per drain');
    assert.deepEqual(writes(all).filter((e) => !ok(e)), [], 'no write refused: the rerun decided from the cluster, never on stale state');
  });

  test('--timeout while pods are starting: exit 3 with the command to continue; the rerun finishes', async () => {
    // Pods of the `slow` image take 5 s to be Ready: the surge is sent well before the 3 s are up.
    await deploymentReady(sb, 'cart', 4, 'nginx:slow');
    const r = await runCli(['migrate', 'cloneset/cart', '--from', 'deployment/cart', '--max-surge', '2', '--timeout', '3s'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 3, show(r));
    assert.match(r.stderr, /^error: timed out during the migration of deployment\/cart to cloneset\/cart, waiting for cloneset\/cart: \d of 2 pods available: cloneset\/cart 2 \(\d available\), deployment\/cart 4$/m);
    assert.match(r.stderr, /^hint: run "kubectl kruise migrate cloneset\/cart --from deployment\/cart -n default" to continue where it stopped$/m);
    const again = await runCli(['migrate', 'cloneset/cart', '--from', 'deployment/cart'], { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
    assert.equal(again.code, 0, show(again));
    await migrated(sb, 'cart', 4);
  });
});

describe('migrate: one run per Deployment', () => {
  test('a second run while the first drives exits 1 naming the holder and writes nothing; --wait-for-lock then finds nothing to do', async () => {
    await deploymentReady(sb, 'race', 4);
    sb.clearAudit();
    const first = streamCli(['migrate', 'cloneset/race', '--from', 'deployment/race', '--max-surge', '1'], { kubeconfig: sb.kubeconfig });
    await waitUntil('the first run driving', () => first.stderr().includes('migrating:') || undefined, 40_000, 20);
    const second = await runCli(['migrate', 'cloneset/race', '--from', 'deployment/race', '--max-surge', '1'], { kubeconfig: sb.kubeconfig });
    assert.equal(second.code, 1, show(second));
    assert.match(second.stderr, /^error: deployment\/race is being migrated by another run \(\S+@\S+ pid \d+ #\w+; lease default\/kubectl-kruise-migrate-deployment-race, renewed \d+s ago, expires in \d+s unless renewed\)$/m);
    assert.equal(second.stdout, '');
    const waiting = await runCli(['migrate', 'cloneset/race', '--from', 'deployment/race', '--wait-for-lock'], { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
    await waitUntil('the first run to exit', () => first.child.exitCode !== null || undefined, 60_000);
    const firstResult = await first.stop();
    assert.equal(firstResult.code, 0, show(firstResult));
    assert.equal(waiting.code, 0, show(waiting));
    assert.match(waiting.stderr, /waiting for the lease: deployment\/race is being migrated by another run/);
    assert.match(waiting.stderr, /nothing to do: cloneset\/race finished its migration/);
    await migrated(sb, 'race', 4);
    const all = sb.audit();
    assert.equal(patchesOf(all, CS, 'race').filter(ok).length, 5, '4 surges of one pod and the record: the first run alone');
    assert.equal(patchesOf(all, DEP, 'race').filter(ok).length, 5, 'the mark and 4 drains');
  });
});

describe('migrate: --create, --copy, --dry-run, --delete-source', () => {
  test('--dry-run prints the CloneSet and the steps and writes nothing; -o yaml keeps the plan on stderr', async () => {
    await deploymentReady(sb, 'dry', 6);
    sb.clearAudit();
    const r = await runCli(['migrate', 'cloneset/dry', '--from', 'deployment/dry', '--max-surge', '50%', '--dry-run'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, show(r));
    assert.equal(
      r.stdout,
      'cloneset.apps.kruise.io/dry created (dry run)\n' +
        'STEP   CLONESET/dry   DEPLOYMENT/dry   PODS AT MOST\n' +
        '1      0 -> 3         6 -> 3           9\n' +
        '2      3 -> 6         3 -> 0           9\n',
    );
    const y = await runCli(['migrate', 'cloneset/dry', '--from', 'deployment/dry', '--replicas', '4', '--dry-run=server', '-o', 'yaml'], { kubeconfig: sb.kubeconfig });
    assert.equal(y.code, 0, show(y));
    assert.match(y.stdout, /^kind: CloneSet$/m);
    assert.match(y.stdout, /^ {2}replicas: 0$/m);
    assert.match(y.stderr, /^1 +0 +6 -> 4 +6$/m, 'the Deployment first lowered to the 4 asked for');
    assert.deepEqual(writes(sb.audit()).filter((e) => !e.query.includes('dryRun')), [], 'nothing written');
    assert.equal(await getCloneSet(sb, 'dry'), undefined);
    assert.equal((await getDeployment(sb, 'dry')).metadata.annotations?.['kubectl-kruise/migration-target'], undefined);
  });

  test('--create makes the CloneSet at 0; a later run without it moves the pods', async () => {
    await deploymentReady(sb, 'later', 3);
    const c = await runCli(['migrate', 'cloneset/later', '--from', 'deployment/later', '--create', '-o', 'name'], { kubeconfig: sb.kubeconfig });
    assert.equal(c.code, 0, show(c));
    assert.equal(c.stdout, 'cloneset.apps.kruise.io/later\n');
    const cs = (await getCloneSet(sb, 'later'))!;
    assert.equal(cs.spec.replicas, 0);
    assert.equal(record(cs).state, 'created');
    assert.equal((await getDeployment(sb, 'later')).spec.replicas, 3, 'the Deployment untouched');
    const again = await runCli(['migrate', 'cloneset/later', '--from', 'deployment/later', '--create'], { kubeconfig: sb.kubeconfig });
    assert.equal(again.code, 0, show(again));
    assert.equal(again.stdout, 'cloneset.apps.kruise.io/later unchanged\n');
    const m = await runCli(['migrate', 'cloneset/later', '--from', 'deployment/later', '--max-surge', '3'], { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
    assert.equal(m.code, 0, show(m));
    assert.match(m.stderr, /step 1\/1: cloneset\/later 0 -> 3 \(3 available\), deployment\/later 3 -> 0/);
    await migrated(sb, 'later', 3);
    assert.equal(record(await getCloneSet(sb, 'later')).state, 'done');
  });

  test('--copy runs the CloneSet beside the Deployment; the migration then lowers the Deployment in one step; --delete-source deletes it', async () => {
    await deploymentReady(sb, 'twin', 3);
    const c = await runCli(['migrate', 'cloneset/twin', '--from', 'deployment/twin', '--copy'], { kubeconfig: sb.kubeconfig });
    assert.equal(c.code, 0, show(c));
    await waitUntil('6 ready pods of both', async () => (await pods(sb, 'twin')).filter(isReady).length === 6 || undefined, 40_000);
    assert.equal(record(await getCloneSet(sb, 'twin')).state, 'copied');
    const m = await runCli(['migrate', 'cloneset/twin', '--from', 'deployment/twin', '--delete-source'], { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
    assert.equal(m.code, 0, show(m));
    assert.equal(m.stdout, 'cloneset.apps.kruise.io/twin migrated\ndeployment.apps/twin deleted\n');
    assert.match(m.stderr, /step 1\/1: cloneset\/twin 3 \(3 available\), deployment\/twin 3 -> 0/);
    await waitUntil('deployment/twin gone', async () => (await sb.api('GET', '/apis/apps/v1/namespaces/default/deployments/twin')).status === 404 || undefined, 20_000);
    await migrated(sb, 'twin', 3);
    assert.ok(await getCloneSet(sb, 'twin'), 'the CloneSet is not owned by the Deployment: not collected with it');
  });
});

describe("migrate: neither controller takes or deletes the other's pods", () => {
  test('CloneSet and ReplicaSet pods under one selector keep their owners; an orphan pod is adopted by neither (Kruise lists pods by owner UID)', async () => {
    const original = await deploymentReady(sb, 'own', 3);
    assert.equal((await runCli(['migrate', 'cloneset/own', '--from', 'deployment/own', '--create'], { kubeconfig: sb.kubeconfig })).code, 0);
    const orphan = await kubectl(['run', 'own-orphan', '--image=nginx:1.27', '--labels=app=own,tier=frontend'], sb.kubeconfig);
    assert.equal(orphan.code, 0, orphan.stderr);
    // Both controllers act on the shared selector: the CloneSet grows by hand, the Deployment too.
    assert.equal((await kubectl(['scale', 'cloneset/own', '--replicas=2'], sb.kubeconfig)).code, 0);
    assert.equal((await kubectl(['scale', 'deployment/own', '--replicas=4'], sb.kubeconfig)).code, 0);
    const all = await waitUntil('2 CloneSet pods and 4 ReplicaSet pods ready', async () => {
      const items = (await pods(sb, 'own')).filter((p) => !p.metadata.deletionTimestamp);
      const by = (k: string): number => items.filter((p) => controllerKind(p) === k && isReady(p)).length;
      return by('CloneSet') === 2 && by('ReplicaSet') === 4 ? items : undefined;
    }, 40_000);
    assert.equal(all.length, 7, 'nobody deleted another controller\'s pods: 2 + 4 + the orphan');
    assert.ok(original.every((o) => all.some((p) => p.metadata.uid === o.metadata.uid)), 'the Deployment kept its original pods');
    const cs = (await getCloneSet(sb, 'own'))!;
    const dep = await getDeployment(sb, 'own');
    assert.equal(cs.status?.replicas, 2, "the CloneSet counts only its own pods");
    assert.equal(dep.status?.replicas, 4, 'the Deployment counts only its own pods');
    const o = all.find((p) => p.metadata.name === 'own-orphan')!;
    assert.equal(o.metadata.ownerReferences, undefined, 'the orphan stays an orphan');
  });
});

describe('migrate: bad input, refused before any write', () => {
  test('exit 2 (1 for a missing Deployment), one error line naming the object, nothing written', async () => {
    await deploymentReady(sb, 'bad', 2);
    const taken = await kubectl(['apply', '-f', '-'], sb.kubeconfig, {
      input: 'apiVersion: apps.kruise.io/v1alpha1\nkind: CloneSet\nmetadata:\n  name: taken\nspec:\n  replicas: 0\n  selector:\n    matchLabels: {app: taken}\n  template:\n    metadata:\n      labels: {app: taken}\n    spec:\n      containers: [{name: c, image: nginx:1.27}]\n',
    });
    assert.equal(taken.code, 0, taken.stderr);
    const hashed = await kubectl(['apply', '-f', '-'], sb.kubeconfig, {
      input: 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: hashed\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: hashed, pod-template-hash: abc}\n  template:\n    metadata:\n      labels: {app: hashed, pod-template-hash: abc}\n    spec:\n      containers: [{name: c, image: nginx:1.27}]\n',
    });
    assert.equal(hashed.code, 0, hashed.stderr);
    const cases: Array<{ args: string[]; code: number; error: RegExp; sent?: boolean }> = [
      { args: ['cloneset/x', '--from', 'deployment/nope'], code: 1, error: /^error: deployments\.apps "nope" not found in namespace "default"$/m },
      { args: ['cloneset/taken', '--from', 'deployment/bad'], code: 2, error: /^error: cloneset\.apps\.kruise\.io\/taken already exists and is not a migration's \(no kubectl-kruise\/migration annotation\): choose another name; nothing was changed$/m },
      { args: ['cloneset/hashed', '--from', 'deployment/hashed'], code: 2, error: /^error: cannot make a CloneSet of deployment\/hashed: the selector of deployment\/hashed uses the label "pod-template-hash", which a CloneSet sets on its pods itself: its pods would not match its own selector; nothing was created$/m },
      { args: ['cloneset/web', '--from', 'deployment/bad'], code: 2, error: /^error: cloneset\/web belongs to the migration from deployment\/web, not from deployment\/bad; nothing was changed$/m },
      { args: ['cloneset/other', '--from', 'deployment/web'], code: 2, error: /^error: deployment\/web belongs to the migration to cloneset\/web \(annotation kubectl-kruise\/migration-target\), not to cloneset\/other; nothing was changed$/m },
      { args: ['cloneset/bad', '--from', 'deployment/bad', '--max-surge', '0'], code: 2, error: /^error: --max-surge 0 is 0 pods of 2: nothing could move/m },
      { args: ['cloneset/bad', '--from', 'deployment/bad', '--max-surge', '12.5%'], code: 2, error: /^error: invalid value "12\.5%" for --max-surge: a percentage must be a whole number/m, sent: false },
      { args: ['cloneset/bad', '--from', 'deployment/bad', '--replicas', '-1'], code: 2, error: /^error: invalid value "-1" for --replicas: must be from 0 to/m, sent: false },
      { args: ['cloneset/Bad', '--from', 'deployment/bad'], code: 2, error: /^error: invalid name "Bad": must consist of lower case/m, sent: false },
      { args: ['cloneset/bad'], code: 2, error: /^error: migrate needs --from deployment\/NAME/m, sent: false },
      { args: ['cloneset/bad', '--from', 'statefulset/bad'], code: 2, error: /^error: migrate moves the pods of a Deployment: expected --from deployment\/NAME, not statefulset\/bad \(statefulsets\.apps\)$/m },
      { args: ['asts/bad', '--from', 'deployment/bad'], code: 2, error: /^error: migrate makes a CloneSet: expected cloneset\/NAME, not asts\/bad \(statefulsets\.apps\.kruise\.io\)$/m },
      { args: ['cloneset/bad', '--from', 'deployment/bad', '--create', '--max-surge', '2'], code: 2, error: /^error: --max-surge has no effect with --create/m, sent: false },
    ];
    for (const c of cases) {
      sb.clearAudit();
      const r = await runCli(['migrate', ...c.args], { kubeconfig: sb.kubeconfig });
      assert.equal(r.code, c.code, `${c.args.join(' ')}\n${show(r)}`);
      assert.match(r.stderr, c.error, c.args.join(' '));
      const lines = r.stderr.trimEnd().split('\n');
      assert.ok(lines.length <= 2 && lines[0]!.startsWith('error: ') && (lines.length === 1 || lines[1]!.startsWith('hint: ')), `one error line (and a hint): ${r.stderr}`);
      assert.equal(r.stdout, '');
      const entries = sb.audit();
      assert.deepEqual(writes(entries), [], `${c.args.join(' ')}: nothing written`);
      if (c.sent === false) assert.deepEqual(entries, [], `${c.args.join(' ')}: nothing sent`);
    }
    assert.equal((await getDeployment(sb, 'bad')).spec.replicas, 2);
    assert.equal(await getCloneSet(sb, 'bad'), undefined);
  });
});

describe('migrate: completion', () => {
  test('migrate <TAB> offers cloneset/, --from <TAB> deployment/ and then the Deployments of the namespace', async () => {
    const complete = async (...words: string[]): Promise<string[]> => {
      const r = await runCli(['__complete', ...words], { kubeconfig: sb.kubeconfig });
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.trim().split('\n');
    };
    assert.ok((await complete('')).includes('migrate'));
    assert.deepEqual(await complete('migrate', ''), ['cloneset/', ':6']);
    assert.deepEqual(await complete('migrate', 'cloneset/web', '--from', ''), ['deployment/', ':6']);
    const names = await complete('migrate', 'cloneset/web', '--from', 'deployment/');
    assert.ok(names.includes('deployment/web') && names.includes('deployment/shop'), names.join(' '));
    assert.ok((await complete('migrate', 'cloneset/web', '--max')).includes('--max-surge'));
  });
});

describe('migrate: on a server that refuses writes now and then', () => {
  let flaky: Sandbox;
  before(async () => {
    // Every 3rd update or patch answers 409, a fifth of the patches 503 before applying: each refused
    // write is decided again from fresh state (or resent: its test ops make that safe).
    flaky = await startSandbox({ readyDelay: 300, faults: { conflictEveryNthUpdate: 3, errorRate: { patch: { rate: 0.2, code: 503 } }, seed: 7 } });
  });
  after(async () => {
    await flaky?.stop();
  });

  test('the migration completes, every step written once, the ready pods never below the total', async () => {
    await deploymentReady(flaky, 'web', 4);
    flaky.clearAudit();
    let minReady = Number.POSITIVE_INFINITY;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const items = await pods(flaky, 'web').catch(() => undefined);
        if (items) minReady = Math.min(minReady, items.filter(isReady).length);
        await new Promise((res) => setTimeout(res, 25));
      }
    })();
    const r = await runCli(['migrate', 'cloneset/web', '--from', 'deployment/web', '--max-surge', '1'], { kubeconfig: flaky.kubeconfig, timeoutMs: 90_000 });
    sampling = false;
    await sampler;
    assert.equal(r.code, 0, show(r));
    await migrated(flaky, 'web', 4);
    assert.ok(minReady >= 4, `ready pods never below 4 (fewest: ${minReady})`);
    const all = flaky.audit();
    const refused = writes(all).filter((e) => !ok(e) && e.path.includes('/web'));
    assert.ok(refused.length > 0, 'the faults hit some of its writes');
    assert.equal(patchesOf(all, CS, 'web').filter(ok).length, 5, '4 surges of one pod and the record, each once');
    assert.equal(patchesOf(all, DEP, 'web').filter(ok).length, 5, 'the mark and 4 drains, each once');
  });
});
