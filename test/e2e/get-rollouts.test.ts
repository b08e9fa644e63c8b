// `get rollouts [NAME] [-A] [-l SEL] [-o ...]` against sandboxes serving the real Kruise Rollout CRDs
// v0.4.4 (v1alpha1 only) and v0.6.2 (v1beta1 preferred): the table must say what real kubectl prints
// from the CRD's additionalPrinterColumns (STATUS, CANARY_STEP, CANARY_STATE, MESSAGE, AGE).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectl, runCli } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';
import { haveRealCrds } from './describe-rollout-helpers';
import { startWithRolloutCrds } from './rollout-kruise-helpers';

const SETUPS = [
  { release: 'v0.4.4', version: 'v1alpha1' },
  { release: 'v0.6.2', version: 'v1beta1' },
] as const;

function rolloutBody(version: string, name: string, ns: string, labels: Record<string, string>): Record<string, unknown> {
  const ref = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name };
  return {
    apiVersion: `rollouts.kruise.io/${version}`,
    kind: 'Rollout',
    // The test writes the status; the sandbox's Rollout controller leaves this one alone.
    metadata: { name, namespace: ns, labels, annotations: { 'kruise-sandbox/controller': 'none' } },
    spec: { ...(version === 'v1alpha1' ? { objectRef: { workloadRef: ref } } : { workloadRef: ref }), strategy: { canary: { steps: [{ replicas: 1, pause: {} }, { replicas: '100%' }] } } },
  };
}

/** Status as the controller writes it at step 1 waiting for approval (v1beta1 adds the top mirrors). */
function statusAtStep1(version: string): Record<string, unknown> {
  const msg = 'Rollout is in step(1/2), and you need manually confirm to enter the next step';
  const canaryStatus: Record<string, unknown> = {
    observedWorkloadGeneration: 2, observedRolloutID: '', rolloutHash: 'h', stableRevision: 'web-1', canaryRevision: 'web-2', podTemplateHash: '2',
    canaryReplicas: 1, canaryReadyReplicas: 1, currentStepIndex: 1, currentStepState: 'StepPaused', message: msg, lastUpdateTime: '2026-11-25T01:00:00Z',
  };
  if (version === 'v1beta1') Object.assign(canaryStatus, { nextStepIndex: 2, finalisingStep: '' });
  return { status: { observedGeneration: 1, phase: 'Progressing', message: msg, canaryStatus, ...(version === 'v1beta1' ? { currentStepIndex: 1, currentStepState: 'StepPaused' } : {}) } };
}

const cells = (line: string): string[] => line.trim().split(/\s{2,}/);

for (const { release, version } of SETUPS) {
  describe(`get rollouts (Kruise Rollout ${release} CRDs, ${version})`, { skip: !haveRealCrds && 'no ../shared CRDs' }, () => {
    let sb: Sandbox;
    const run = (...args: string[]) => runCli(args, { kubeconfig: sb.kubeconfig });
    before(async () => {
      sb = await startWithRolloutCrds(release);
      assert.equal((await sb.api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })).status, 201);
      for (const [name, ns, tier] of [['web', 'default', 'front'], ['api', 'default', 'back'], ['cart', 'shop', 'front']] as const) {
        const base = `/apis/rollouts.kruise.io/${version}/namespaces/${ns}/rollouts`;
        const c = await sb.api('POST', base, rolloutBody(version, name, ns, { tier }));
        assert.equal(c.status, 201, c.text);
        if (name !== 'api') {
          const s = await sb.api('PATCH', `${base}/${name}/status`, statusAtStep1(version), { contentType: 'application/merge-patch+json' });
          assert.equal(s.status, 200, s.text);
        }
      }
    });
    after(async () => {
      await sb?.stop();
    });

    it('the table says what kubectl prints from the CRD printer columns (AGE aside)', async () => {
      const ours = await run('get', 'rollouts');
      const theirs = await kubectl(['get', 'rollouts.rollouts.kruise.io'], sb.kubeconfig);
      assert.equal(ours.code, 0, ours.stderr);
      assert.equal(theirs.code, 0, theirs.stderr);
      const o = ours.stdout.trimEnd().split('\n').map(cells);
      const k = theirs.stdout.trimEnd().split('\n').map(cells);
      assert.deepEqual(o[0], ['NAME', 'STATUS', 'CANARY_STEP', 'CANARY_STATE', 'MESSAGE', 'AGE']);
      assert.deepEqual(o.map((r) => r.slice(0, -1)), k.map((r) => r.slice(0, -1)));
      assert.match(ours.stdout, /\nweb\s+Progressing\s+1\s+StepPaused\s+Rollout is in step\(1\/2\), and you need manually confirm to enter the next step\s+\d+s\n/);
    });

    it('-A adds NAMESPACE; -l filters; NAME and rollout/NAME; get rollout (singular)', async () => {
      const all = await run('get', 'rollouts', '-A');
      assert.equal(all.code, 0, all.stderr);
      assert.deepEqual(all.stdout.trimEnd().split('\n').map((l) => cells(l).slice(0, 2)), [['NAMESPACE', 'NAME'], ['default', 'api'], ['default', 'web'], ['shop', 'cart']]);
      const front = await run('get', 'rollouts', '-A', '-l', 'tier=front', '-o', 'name');
      assert.equal(front.code, 0, front.stderr);
      assert.equal(front.stdout, 'rollout.rollouts.kruise.io/web\nrollout.rollouts.kruise.io/cart\n');
      for (const args of [['rollout', 'web'], ['rollout/web'], ['rollouts', 'web'], ['rollouts.rollouts.kruise.io', 'web']]) {
        const one = await run('get', ...args);
        assert.equal(one.code, 0, `${args}: ${one.stderr}`);
        assert.equal(one.stdout.trimEnd().split('\n').length, 2);
        assert.match(one.stdout, /^NAME\s+STATUS/);
        assert.match(one.stdout, /\nweb\s+Progressing\s+1\s+StepPaused/);
      }
      const wide = await run('get', 'rollout', 'web', '-o', 'wide');
      assert.match(wide.stdout, /\s+WORKLOAD\s+STRATEGY\n.*\s+CloneSet\/web\s+canary\n/);
    });

    it('-o json|yaml|jsonpath: the objects as served (a List for a list)', async () => {
      const j = await run('get', 'rollouts', '-o', 'json');
      assert.equal(j.code, 0, j.stderr);
      const list = JSON.parse(j.stdout);
      assert.equal(list.kind, 'List');
      assert.deepEqual(list.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['api', 'web']);
      assert.equal(list.items[0].apiVersion, `rollouts.kruise.io/${version}`);
      const y = await run('get', 'rollout', 'web', '-o', 'yaml');
      assert.match(y.stdout, /^kind: Rollout$/m);
      const jp = await run('get', 'rollout', 'web', '-o', `jsonpath={.status.phase}`);
      assert.equal(jp.stdout, 'Progressing');
    });

    it(`describe rollout reads the ${version} shape (workload missing here: Blocked)`, async () => {
      const d = await run('describe', 'rollout', 'web');
      assert.equal(d.code, 0, d.stderr);
      assert.match(d.stdout, new RegExp(`^API Version:\\s+rollouts\\.kruise\\.io/${version}$`, 'm'));
      assert.match(d.stdout, /^Workload:\s+CloneSet\/web — not found$/m);
      assert.match(d.stdout, /^Step:\s+1\/2 StepPaused$/m);
      assert.match(d.stdout, /^\s+▶\s+1\s+1\s+-\s+manual\s+StepPaused$/m);
      assert.match(d.stdout, /^Status:\s+Blocked$/m);
    });

    it('errors: not found (exit 1), bad -o and name with -A (exit 2, nothing sent), empty namespace', async () => {
      const nf = await run('get', 'rollout', 'nope');
      assert.equal(nf.code, 1);
      assert.equal(nf.stderr, 'error: rollouts.rollouts.kruise.io "nope" not found in namespace "default"\n');
      sb.clearAudit();
      const badOut = await run('get', 'rollouts', '-o', 'table');
      assert.equal(badOut.code, 2);
      assert.match(badOut.stderr, /^error: unable to match a printer suitable for the output format "table"/);
      const nameAll = await run('get', 'rollout', 'web', '-A');
      assert.equal(nameAll.code, 2);
      assert.equal(nameAll.stderr, 'error: a resource cannot be retrieved by name across all namespaces\n');
      assert.equal(sb.audit().length, 0);
      const empty = await run('get', 'rollouts', '-n', 'kube-system');
      assert.equal(empty.code, 0);
      assert.equal(empty.stdout, '');
      assert.equal(empty.stderr, 'No resources found in kube-system namespace.\n');
    });
  });
}

describe('get/describe rollouts when reading is forbidden (403 on every read)', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ readyDelay: '50ms', faults: { errorRate: { read: { rate: 1, code: 403 } } } });
  });
  after(async () => {
    await sb?.stop();
  });

  it('one error line naming the resource, exit 1, for get and describe (with and without -w)', async () => {
    for (const args of [['get', 'rollouts'], ['get', 'rollout', 'web'], ['describe', 'rollout', 'web'], ['describe', 'rollout', 'web', '-w']]) {
      const r = await runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 20_000 });
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^error: .*rollouts\.rollouts\.kruise\.io.*\n$/, args.join(' '));
      assert.equal(r.stdout, '');
    }
  });
});
