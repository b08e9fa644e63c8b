// Availability budgets end to end on one sandbox (Kruise v1.9, PodUnavailableBudgetUpdateGate on):
// a CloneSet of 3 with a PodUnavailableBudget of maxUnavailable 1 (test/fixtures/budgets/sandbox-web.yaml).
// The PUB's status is read back through the API; kubectl delete and an eviction are refused by Kruise's
// webhook; a PodDisruptionBudget refuses an eviction with 429; `kubectl-kruise restart --via=client` and
// `scaledown` plan around the budget; an in-place image update goes only as the budget's headroom allows.
// State is set up with real kubectl and read back through the API (kubectl wait watches).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { kubectl, REPO_ROOT, runCli, streamCli } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'budgets');
const REFUSED = 'podunavailablebudget.policy.kruise.io "web-pub" is forbidden: pub unavailable allowed is negative';

let sb: Sandbox;

interface PodView {
  name: string;
  uid: string;
  image: string;
  ready: boolean;
}

async function pods(): Promise<PodView[]> {
  const list = (await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body;
  return (list.items as any[])
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p) => ({
      name: p.metadata.name,
      uid: p.metadata.uid,
      image: p.spec.containers[0].image,
      ready: (p.status.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'),
    }));
}

const pubStatus = async (): Promise<any> => (await sb.api('GET', '/apis/policy.kruise.io/v1alpha1/namespaces/default/podunavailablebudgets/web-pub')).body.status;

/** kubectl wait (a watch) until the PUB's status field reads `value`. */
async function waitPub(field: string, value: number): Promise<void> {
  const r = await kubectl(['wait', 'pub/web-pub', `--for=jsonpath={.status.${field}}=${value}`, '--timeout=20s'], sb.kubeconfig);
  assert.equal(r.code, 0, `${field}=${value}: ${r.stderr} ${JSON.stringify(await pubStatus())}`);
}

const evict = (pod: string) => sb.api('POST', `/api/v1/namespaces/default/pods/${pod}/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: 'default' } });

/** The Deployment "api" of 2 and its PodUnavailableBudget (sandbox-api-migrate.yaml), both pods ready. */
async function applyApiMigrate(on: Sandbox): Promise<void> {
  assert.equal((await kubectl(['apply', '-f', join(FIXTURES, 'sandbox-api-migrate.yaml')], on.kubeconfig)).code, 0);
  await waitUntil('2 ready api pods', async () => {
    const list = (await on.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dapi')).body.items as any[];
    return list.filter((p) => (p.status.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True')).length === 2;
  });
}

before(async () => {
  sb = await startSandbox({ kruise: 'v1.9', readyDelay: '400ms', extraArgs: ['--feature-gates', 'PodUnavailableBudgetUpdateGate=true'] });
  const r = await kubectl(['apply', '-f', join(FIXTURES, 'sandbox-web.yaml')], sb.kubeconfig);
  assert.equal(r.code, 0, r.stderr);
});

after(async () => {
  await sb?.stop();
});

test('PUB status counts as Kruise writes them, and pods carry the related-pub annotation', async () => {
  await waitPub('currentAvailable', 3);
  const s = await pubStatus();
  assert.deepEqual(
    { total: s.totalReplicas, desired: s.desiredAvailable, current: s.currentAvailable, allowed: s.unavailableAllowed, observed: s.observedGeneration },
    { total: 3, desired: 2, current: 3, allowed: 1, observed: 1 },
  );
  const list = (await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items as any[];
  assert.deepEqual(list.map((p) => p.metadata.annotations?.['kruise.io/related-pub']), ['web-pub', 'web-pub', 'web-pub']);
});

test('kubectl delete of two pods: the first spends the budget, the second is refused by the webhook (403)', async () => {
  await waitPub('unavailableAllowed', 1);
  const [a, b] = (await pods()).map((p) => p.name);
  const r = await kubectl(['delete', 'pod', a!, b!, '--wait=false'], sb.kubeconfig);
  assert.equal(r.code, 1);
  assert.match(r.stdout, new RegExp(`pod "${a}" deleted`));
  assert.equal(r.stderr.trim(), `Error from server (Forbidden): admission webhook "vpod.kb.io" denied the request: ${REFUSED}`);
  assert.ok((await pods()).some((p) => p.name === b), 'the refused pod is still there');
});

test('eviction: the PUB refuses the second (403 from vpodeviction.kb.io); a PDB refuses with 429', async () => {
  await waitPub('currentAvailable', 3);
  await waitPub('unavailableAllowed', 1);
  const [a, b] = (await pods()).map((p) => p.name);
  const first = await evict(a!);
  assert.equal(first.status, 201, first.text);
  const second = await evict(b!);
  assert.equal(second.status, 403, second.text);
  assert.equal(second.body.message, `admission webhook "vpodeviction.kb.io" denied the request: ${REFUSED}`);

  // the PUB stops guarding evictions; a PDB needing all 3 healthy refuses with kube-apiserver's 429
  assert.equal((await kubectl(['annotate', 'pub/web-pub', 'kruise.io/pub-protect-operations=DELETE,UPDATE'], sb.kubeconfig)).code, 0);
  assert.equal((await kubectl(['apply', '-f', join(FIXTURES, 'sandbox-web-pdb.yaml')], sb.kubeconfig)).code, 0);
  const ready = await waitUntil('3 ready pods', async () => ((await pods()).filter((p) => p.ready).length === 3 ? await pods() : undefined));
  await waitUntil('the PDB status', async () => (await sb.api('GET', '/apis/policy/v1/namespaces/default/poddisruptionbudgets/web-pdb')).body.status?.currentHealthy === 3);
  const refused = await evict(ready[0]!.name);
  assert.equal(refused.status, 429, refused.text);
  assert.equal(refused.body.reason, 'TooManyRequests');
  assert.equal(refused.body.message, "Cannot evict pod as it would violate the pod's disruption budget.");
  assert.deepEqual(refused.body.details.causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget web-pdb needs 3 healthy pods and has 3 currently' }]);
  const pdb = (await sb.api('GET', '/apis/policy/v1/namespaces/default/poddisruptionbudgets/web-pdb')).body.status;
  assert.deepEqual([pdb.expectedPods, pdb.desiredHealthy, pdb.disruptionsAllowed, pdb.conditions[0].reason], [3, 3, 0, 'InsufficientPods']);
  assert.equal((await kubectl(['delete', '-f', join(FIXTURES, 'sandbox-web-pdb.yaml')], sb.kubeconfig)).code, 0);
  assert.equal((await kubectl(['annotate', 'pub/web-pub', 'kruise.io/pub-protect-operations-'], sb.kubeconfig)).code, 0);
});

test('restart --via=client recreates all 3 pods in one batch of 3 as the budget admits, saying which pods wait', async () => {
  await waitPub('currentAvailable', 3);
  await waitPub('unavailableAllowed', 1);
  const before = new Set((await pods()).map((p) => p.uid));
  const r = await runCli(['restart', 'cloneset/web', '--via=client', '--max-unavailable=3', '--timeout=30s'], { kubeconfig: sb.kubeconfig });
  assert.equal(r.code, 0, r.stderr);
  // two of the three wait while the first is recreated (the budget has room for one at a time)
  assert.equal(r.stderr.match(/batch 1\/1: pod web-\w+ waits for PodUnavailableBudget web-pub \(unavailableAllowed \d(, taken by the pod before it)?: \d available, 2 desired\); not deleted until it has room\n/g)?.length, 2, r.stderr);
  assert.doesNotMatch(r.stderr, /forbidden/);
  const now = await pods();
  assert.equal(now.length, 3);
  assert.ok(now.every((p) => !before.has(p.uid) && p.ready), 'every pod recreated and ready');
});

test('scaledown asks only for the pods the budget lets go and names the one that waits', async () => {
  await waitPub('currentAvailable', 3);
  // a fixed total: scaling down does not lower what the budget wants available
  assert.equal((await kubectl(['annotate', 'pub/web-pub', 'pub.kruise.io/protect-total-replicas=3'], sb.kubeconfig)).code, 0);
  await waitPub('unavailableAllowed', 1);
  const [a, b] = (await pods()).map((p) => p.name);
  const r = await runCli(['scaledown', 'cloneset/web', '--pods', `${a},${b}`], { kubeconfig: sb.kubeconfig });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `cloneset.apps.kruise.io/web scaled down from 3 to 2 replicas (removing pod ${a})\n`);
  assert.match(r.stderr, new RegExp(`^note: pod ${b} waits for PodUnavailableBudget web-pub \\(unavailableAllowed 1, taken by the pod before it: 3 available, 2 desired\\); left out of this scale-down`));
  assert.equal((await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web')).body.spec.replicas, 2);
  await waitUntil(`pod ${a} gone`, async () => !(await pods()).some((p) => p.name === a));
  // nothing left to give: the next scaledown writes nothing and says why (exit 1)
  await waitPub('currentAvailable', 2);
  const none = await runCli(['scaledown', 'cloneset/web', '--pods', b!], { kubeconfig: sb.kubeconfig });
  assert.equal(none.code, 1);
  assert.match(none.stderr, new RegExp(`^error: no pod of cloneset/web can be removed now: pod ${b} waits for PodUnavailableBudget web-pub \\(unavailableAllowed 0: 2 available, 2 desired\\); nothing was written`));
  assert.equal((await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web')).body.spec.replicas, 2);
  assert.equal((await kubectl(['annotate', 'pub/web-pub', 'pub.kruise.io/protect-total-replicas-'], sb.kubeconfig)).code, 0);
});

test('an in-place image update goes one pod at a time: the next waits until the first leaves unavailablePods (10 s)', async () => {
  await waitPub('totalReplicas', 2);
  await waitPub('unavailableAllowed', 1);
  // --preview says the budget's headroom for each batch, from the PUB's status, and writes nothing.
  sb.clearAudit();
  const preview = await runCli(['set', 'image', 'cloneset/web', 'web=nginx:1.26', '--preview', '-o', 'json'], { kubeconfig: sb.kubeconfig });
  assert.equal(preview.code, 0, preview.stderr);
  const batches = JSON.parse(preview.stdout).items[0].batches as Array<{ budgetHeadroom?: number; budgetName?: string }>;
  assert.ok(batches.length > 0);
  for (const b of batches) assert.deepEqual([b.budgetHeadroom, b.budgetName], [1, 'PodUnavailableBudget/web-pub']);
  assert.deepEqual(sb.audit().filter((e) => !['get', 'list', 'watch'].includes(e.verb)), [], 'the preview writes nothing');
  const r = await kubectl(['patch', 'cloneset/web', '--type=merge', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.26"}]}}}}'], sb.kubeconfig);
  assert.equal(r.code, 0, r.stderr);
  const first = await waitUntil('one pod updated in place', async () => {
    const updated = (await pods()).filter((p) => p.image === 'nginx:1.26');
    return updated.length > 0 ? updated : undefined;
  });
  const firstAt = Date.now();
  assert.equal(first.length, 1, 'the budget lets one pod go');
  const s = await pubStatus();
  assert.deepEqual(Object.keys(s.unavailablePods ?? {}), [first[0]!.name]);
  assert.equal(s.unavailableAllowed, 0);
  // the first pod is ready again long before its record expires; the second waits for the record
  await waitUntil('the first pod ready again', async () => (await pods()).find((p) => p.name === first[0]!.name)?.ready);
  assert.equal((await pods()).filter((p) => p.image === 'nginx:1.26').length, 1, 'still one: the budget is spent');
  const w = await kubectl(['wait', 'cloneset/web', '--for=jsonpath={.status.updatedReplicas}=2', '--timeout=20s'], sb.kubeconfig);
  assert.equal(w.code, 0, w.stderr);
  assert.ok(Date.now() - firstAt >= 8_000, `the second pod went after ${Date.now() - firstAt} ms, before the first's 10 s record expired`);
});

test('migrate drains the Deployment only as far as the PUB admits, then waits for it (exit 3 at --timeout), nothing refused', async () => {
  await applyApiMigrate(sb);
  const r = await runCli(['migrate', 'cloneset/api', '--from', 'deployment/api', '--max-surge', '2', '--timeout', '8s'], { kubeconfig: sb.kubeconfig });
  assert.equal(r.code, 3, r.stderr);
  // The drain follows the CloneSet's pods as they become available. Both available at once: 4 pods,
  // the budget wants 3, one Deployment pod may go, not two (a note says so). One at a time: the
  // first drains one pod, which the budget admits whole (no note), and the second finds 0 allowed.
  if (/note: deployment\/api drained/.test(r.stderr)) {
    assert.match(r.stderr, /note: deployment\/api drained by 1 of 2 pods in this step: PodUnavailableBudget api-pub \(unavailableAllowed 1: 4 available, 3 desired\)/);
  }
  assert.doesNotMatch(r.stderr, /^step /m, 'the step is not over: the Deployment is not as low as the CloneSet allows');
  assert.match(r.stderr, /waiting for PodUnavailableBudget api-pub \(unavailableAllowed 0: 3 available, 3 desired\) to let a pod of deployment\/api go/);
  assert.equal((await sb.api('GET', '/apis/apps/v1/namespaces/default/deployments/api')).body.spec.replicas, 1);
  const s = (await sb.api('GET', '/apis/policy.kruise.io/v1alpha1/namespaces/default/podunavailablebudgets/api-pub')).body.status;
  assert.deepEqual([s.currentAvailable, s.desiredAvailable, s.unavailableAllowed], [3, 3, 0]);
});

test('migrate decides each drain on a fresh read of the PUB: a PUB watch 1.5 s late does not let a budget of 1 drain 2 (CI: 2 -> 0, exit 0)', async () => {
  // Kruise's pod webhook spends the budget before the drained pod goes; a lagging PUB watch still shows
  // the budget unspent after the Deployment's status shows the pod gone.
  const lagged = await startSandbox({ kruise: 'v1.9', readyDelay: '200ms', faults: { watchLagMs: { podunavailablebudgets: 1500 } } });
  try {
    await applyApiMigrate(lagged);
    const r = await runCli(['migrate', 'cloneset/api', '--from', 'deployment/api', '--max-surge', '2', '--timeout', '6s'], { kubeconfig: lagged.kubeconfig });
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /waiting for PodUnavailableBudget api-pub \(unavailableAllowed 0: 3 available, 3 desired\) to let a pod of deployment\/api go/);
    assert.equal((await lagged.api('GET', '/apis/apps/v1/namespaces/default/deployments/api')).body.spec.replicas, 1);
    const s = (await lagged.api('GET', '/apis/policy.kruise.io/v1alpha1/namespaces/default/podunavailablebudgets/api-pub')).body.status;
    assert.deepEqual([s.currentAvailable, s.desiredAvailable, s.unavailableAllowed], [3, 3, 0]);
  } finally {
    await lagged.stop();
  }
});

test('a step the budget cuts short goes on once the budget admits the rest: the one step announced is the one step printed (was "1 step", then step 1/2 and step 2/2)', async (t) => {
  const yaml = `apiVersion: apps/v1
kind: Deployment
metadata: { name: api2, namespace: default }
spec:
  replicas: 2
  selector: { matchLabels: { app: api2 } }
  template:
    metadata: { labels: { app: api2 } }
    spec: { containers: [{ name: api, image: "nginx:1.25" }] }
---
apiVersion: policy.kruise.io/v1alpha1
kind: PodUnavailableBudget
metadata: { name: api2-pub, namespace: default }
spec:
  selector: { matchLabels: { app: api2 } }
  minAvailable: 3
`;
  assert.equal((await kubectl(['apply', '-f', '-'], sb.kubeconfig, { input: yaml })).code, 0);
  const readyApi2 = async (): Promise<number> => ((await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dapi2')).body.items as any[]).filter((p) => (p.status.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True')).length;
  await waitUntil('2 ready api2 pods', async () => (await readyApi2()) === 2 || undefined);
  const pubs: Record<string, unknown> = {};
  const pubStatusOf = (name: string): unknown => pubs[name];
  const poll = setInterval(() => void sb.api('GET', '/apis/policy.kruise.io/v1alpha1/namespaces/default/podunavailablebudgets/api2-pub').then((r) => (pubs['api2-pub'] = r.body.status)), 500);
  t.after(() => clearInterval(poll));
  const run = streamCli(['migrate', 'cloneset/api2', '--from', 'deployment/api2', '--max-surge', '2', '--timeout', '90s'], { kubeconfig: sb.kubeconfig });
  // The budget (3 of the 4 pods) lets one Deployment pod go, and the step waits for it to admit the other.
  // (A budget status not yet recounted after the first pod went may admit the other at once: known, see
  // the issue notes; the step is then done before the test relaxes the budget.)
  await waitUntil('deployment/api2 lowered to 1, or the run over', async () => (run.child.exitCode !== null || (await sb.api('GET', '/apis/apps/v1/namespaces/default/deployments/api2')).body.spec.replicas === 1) || undefined, 55_000).catch((err: Error) => {
    throw new Error(`${err.message}\nmigrate so far:\n${run.stderr()}\nPUB: ${JSON.stringify(pubStatusOf('api2-pub'))}`);
  });
  if (run.child.exitCode === null) assert.equal((await kubectl(['patch', 'pub/api2-pub', '--type=merge', '-p', '{"spec":{"minAvailable":2}}'], sb.kubeconfig)).code, 0);
  await waitUntil('the migration to end', () => (run.child.exitCode !== null ? true : undefined), 90_000);
  const r = await run.stop();
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^migrating: deployment\/api2 \(2\) to cloneset\/api2 \(0\), 2 pods in the end, max surge 2 \(2 pods\): 1 step$/m);
  assert.deepEqual(r.stderr.split('\n').filter((l) => l.startsWith('step ')).map((l) => l.replace(/ \(\d+(\.\d+)?s\)$/, '')), ['step 1/1: cloneset/api2 0 -> 2 (2 available), deployment/api2 2 -> 0']);
  assert.equal((await sb.api('GET', '/apis/apps/v1/namespaces/default/deployments/api2')).body.spec.replicas, 0);
});
