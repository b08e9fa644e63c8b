// The sandbox serves Kruise Rollout's kinds (rollouts.kruise.io): built-in definitions per
// --kruise-rollout release and the real CRDs (../shared/kruise-rollout-crds) given with a second
// --crds folder. Real kubectl discovers the group, prints the release's printer columns, applies
// Rollouts in v1alpha1 and v1beta1 (converted as openkruise/rollouts api/v1alpha1/conversion.go),
// reads them through either version and merge-patches their status subresource.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl, REPO_ROOT, runCli } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';

const SHARED = resolve(REPO_ROOT, '..', 'shared');
const KRUISE_CRDS = join(SHARED, 'kruise-crds', 'v1.9.0');
const ROLLOUT_CRDS = join(SHARED, 'kruise-rollout-crds');
const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'rollout-kruise');
const BETA = join(FIXTURES, 'sandbox-rollout-web-v1beta1.yaml');
const ALPHA = join(FIXTURES, 'sandbox-rollout-web-v1alpha1.yaml');
const haveCrds = existsSync(join(ROLLOUT_CRDS, 'v0.6.2')) && existsSync(KRUISE_CRDS);
const ROLLOUTS = '/apis/rollouts.kruise.io';

interface Setup {
  name: string;
  /** extra sandbox flags */
  args: string[];
  /** Rollout's served versions, the storage (preferred) one last */
  versions: string[];
  realCrds: boolean;
}

const SETUPS: Setup[] = [
  { name: 'built-in --kruise-rollout v0.4', args: ['--kruise-rollout', 'v0.4'], versions: ['v1alpha1'], realCrds: false },
  { name: 'built-in default (v0.6)', args: [], versions: ['v1alpha1', 'v1beta1'], realCrds: false },
  { name: 'built-in --kruise-rollout master', args: ['--kruise-rollout', 'master'], versions: ['v1alpha1', 'v1beta1'], realCrds: false },
  { name: '--crds kruise v1.9.0 --crds kruise-rollout v0.4.4', args: ['--crds', KRUISE_CRDS, '--crds', join(ROLLOUT_CRDS, 'v0.4.4')], versions: ['v1alpha1'], realCrds: true },
  { name: '--crds kruise v1.9.0 --crds kruise-rollout v0.6.2', args: ['--crds', KRUISE_CRDS, '--crds', join(ROLLOUT_CRDS, 'v0.6.2')], versions: ['v1alpha1', 'v1beta1'], realCrds: true },
  { name: '--crds kruise-rollout master --crds kruise v1.9.0', args: ['--crds', join(ROLLOUT_CRDS, 'master'), '--crds', KRUISE_CRDS], versions: ['v1alpha1', 'v1beta1'], realCrds: true },
];

for (const setup of SETUPS) {
  const storage = setup.versions[setup.versions.length - 1]!;
  const servesBeta = setup.versions.includes('v1beta1');
  describe(`sandbox ${setup.name}: Kruise Rollout kinds`, { skip: setup.realCrds && !haveCrds && 'no ../shared/kruise-rollout-crds' }, () => {
    let sb: Sandbox;
    before(async () => {
      sb = await startSandbox({ readyDelay: '50ms', extraArgs: setup.args });
      // The workload the Rollouts name: without it the simulated Rollout controller resets their status
      // to "Workload Not Found" (as Kruise Rollout does), which the status patches below would race with.
      const cs = await sb.api('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets', { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'web' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } } } });
      assert.equal(cs.status, 201, cs.text);
    });
    after(async () => {
      await sb.stop();
    });

    it('discovery (aggregated: kubectl api-resources; legacy: /apis/rollouts.kruise.io) lists the group with the release\'s versions', async () => {
      const res = await kubectl(['api-resources', '--api-group', 'rollouts.kruise.io'], sb.kubeconfig);
      assert.equal(res.code, 0, res.stderr);
      for (const kind of ['Rollout', 'BatchRelease']) assert.match(res.stdout, new RegExp(`rollouts\\.kruise\\.io/${storage}\\s+true\\s+${kind}\\n`));
      for (const kind of ['TrafficRouting', 'RolloutHistory']) assert.match(res.stdout, new RegExp(`rollouts\\.kruise\\.io/v1alpha1\\s+true\\s+${kind}\\n`));
      const legacy = await sb.api('GET', ROLLOUTS);
      assert.equal(legacy.status, 200);
      assert.deepEqual(legacy.body.versions.map((v: { version: string }) => v.version).sort(), setup.versions);
      assert.equal(legacy.body.preferredVersion.version, storage);
      // Which definitions serve the group: the folder's real CRD, or the built-in one of the release.
      const crd = await sb.api('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/rollouts.rollouts.kruise.io');
      const builtin = crd.body.metadata.annotations?.['kruise-sandbox/builtin'];
      assert.equal(builtin, setup.realCrds ? undefined : `kruise-rollout-${/master/.test(setup.name) ? 'master' : /v0\.4/.test(setup.name) ? 'v0.4' : 'v0.6'}`);
      // Kruise's own kinds are still served beside them.
      const clonesets = await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets');
      assert.equal(clonesets.status, 200);
    });

    it('kubectl apply of a v1alpha1 Rollout; kubectl get rollouts prints the CRD\'s columns', async () => {
      const applied = await kubectl(['apply', '-f', ALPHA], sb.kubeconfig);
      assert.equal(applied.code, 0, applied.stderr);
      assert.match(applied.stdout, /rollout\.rollouts\.kruise\.io\/rollout-web-alpha created/);
      const get = await kubectl(['get', 'rollouts'], sb.kubeconfig);
      assert.equal(get.code, 0, get.stderr);
      assert.match(get.stdout, /^NAME\s+STATUS\s+CANARY_STEP\s+CANARY_STATE\s+MESSAGE\s+AGE\n/);
      assert.match(get.stdout, /\nrollout-web-alpha\s+/);
      const alpha = await kubectl(['get', 'rollouts.v1alpha1.rollouts.kruise.io', 'rollout-web-alpha', '-o', 'jsonpath={.apiVersion} {.spec.objectRef.workloadRef.name} {.spec.strategy.canary.steps[1].pause.duration}'], sb.kubeconfig);
      assert.equal(alpha.code, 0, alpha.stderr);
      assert.equal(alpha.stdout, 'rollouts.kruise.io/v1alpha1 web 5');
    });

    if (servesBeta) {
      it('the v1alpha1 Rollout reads in v1beta1 converted (objectRef.workloadRef → workloadRef; rolling-style partition → no extra workload)', async () => {
        const beta = await sb.api('GET', `${ROLLOUTS}/v1beta1/namespaces/default/rollouts/rollout-web-alpha`);
        assert.equal(beta.status, 200);
        assert.deepEqual(beta.body.spec.workloadRef, { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web' });
        assert.equal(beta.body.spec.objectRef, undefined);
        assert.equal(beta.body.spec.strategy.canary.enableExtraWorkloadForCanary, undefined);
        assert.deepEqual(beta.body.spec.strategy.canary.steps.map((s: { replicas: string }) => s.replicas), ['20%', '50%', '100%']);
      });

      it('kubectl apply of a v1beta1 Rollout; it reads in v1alpha1 with the rolling-style annotation', async () => {
        // One Rollout per workload (Kruise Rollout's webhook, validateRolloutConflict): the v1alpha1 one of CloneSet web goes first.
        const deleted = await kubectl(['delete', 'rollouts.v1alpha1.rollouts.kruise.io', 'rollout-web-alpha'], sb.kubeconfig);
        assert.equal(deleted.code, 0, deleted.stderr);
        const applied = await kubectl(['apply', '-f', BETA], sb.kubeconfig);
        assert.equal(applied.code, 0, applied.stderr);
        const alpha = await sb.api('GET', `${ROLLOUTS}/v1alpha1/namespaces/default/rollouts/rollout-web`);
        assert.equal(alpha.status, 200);
        assert.deepEqual(alpha.body.spec.objectRef.workloadRef, { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web' });
        assert.equal(alpha.body.metadata.annotations['rollouts.kruise.io/rolling-style'], 'partition');
        const get = await kubectl(['get', 'rollout', 'rollout-web', '-o', 'jsonpath={.apiVersion}'], sb.kubeconfig);
        assert.equal(get.stdout, 'rollouts.kruise.io/v1beta1', 'kubectl prefers the storage version');
      });

      it('kubectl patch --subresource=status --type=merge sets the step shown by kubectl get rollouts; spec and generation unchanged', async () => {
        const before = await sb.api('GET', `${ROLLOUTS}/v1beta1/namespaces/default/rollouts/rollout-web`);
        const patch = { status: { phase: 'Progressing', currentStepIndex: 1, currentStepState: 'StepPaused', message: 'Rollout is in step(1/3), and you need manually confirm to enter the next step', canaryStatus: { currentStepIndex: 1, currentStepState: 'StepPaused', nextStepIndex: 2, finalisingStep: '', canaryReplicas: 2, canaryReadyReplicas: 2, podTemplateHash: 'b7d7c9d4f', stableRevision: '6bd8c7d4c9', canaryRevision: 'b7d7c9d4f', observedWorkloadGeneration: 2, rolloutHash: 'x' } } };
        const res = await kubectl(['patch', 'rollout', 'rollout-web', '--subresource=status', '--type=merge', '-p', JSON.stringify(patch)], sb.kubeconfig);
        assert.equal(res.code, 0, res.stderr);
        const get = await kubectl(['get', 'rollouts', 'rollout-web', '--no-headers'], sb.kubeconfig);
        assert.match(get.stdout, /^rollout-web\s+Progressing\s+1\s+StepPaused\s+Rollout is in step\(1\/3\)/);
        const after = await sb.api('GET', `${ROLLOUTS}/v1beta1/namespaces/default/rollouts/rollout-web`);
        assert.deepEqual(after.body.spec, before.body.spec);
        assert.equal(after.body.metadata.generation, before.body.metadata.generation);
        // The same status through v1alpha1 (canaryStatus crosses over; v1alpha1's columns read it there).
        const alpha = await kubectl(['get', 'rollouts.v1alpha1.rollouts.kruise.io', 'rollout-web', '--no-headers'], sb.kubeconfig);
        assert.match(alpha.stdout, /^rollout-web\s+Progressing\s+1\s+StepPaused\s+/);
      });

      it('a v1beta1 BatchRelease (with status) applies and reads in v1alpha1 converted; the v1alpha1 KIND column shows the workload kind', async () => {
        const applied = await kubectl(['apply', '-f', join(FIXTURES, 'sandbox-batchrelease-web-v1beta1.yaml')], sb.kubeconfig);
        assert.equal(applied.code, 0, applied.stderr);
        const alpha = await sb.api('GET', `${ROLLOUTS}/v1alpha1/namespaces/default/batchreleases/rollout-web`);
        assert.equal(alpha.status, 200);
        assert.deepEqual(alpha.body.spec.targetReference.workloadRef, { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web' });
        assert.equal(alpha.body.metadata.annotations['rollouts.kruise.io/rolling-style'], 'partition');
        const get = await kubectl(['get', 'batchreleases.v1alpha1.rollouts.kruise.io', '--no-headers'], sb.kubeconfig);
        assert.equal(get.code, 0, get.stderr);
        assert.match(get.stdout, /^rollout-web\s+CloneSet\s+/);
      });
    } else {
      it('v1beta1 is not served: kubectl apply of a v1beta1 Rollout fails and stores nothing', async () => {
        const applied = await kubectl(['apply', '-f', BETA], sb.kubeconfig);
        assert.equal(applied.code, 1);
        assert.match(applied.stderr, /no matches for kind "Rollout" in version "rollouts\.kruise\.io\/v1beta1"/);
        const list = await sb.api('GET', `${ROLLOUTS}/v1alpha1/namespaces/default/rollouts`);
        assert.deepEqual(list.body.items.map((o: { metadata: { name: string } }) => o.metadata.name), ['rollout-web-alpha']);
      });

      it('kubectl patch --subresource=status --type=merge sets canaryStatus, shown by kubectl get rollouts', async () => {
        const patch = { status: { phase: 'Progressing', message: 'Rollout is in step(1/3), and you need manually confirm to enter the next step', canaryStatus: { currentStepIndex: 1, currentStepState: 'StepPaused', canaryReplicas: 2, canaryReadyReplicas: 2, podTemplateHash: 'b7d7c9d4f', stableRevision: '6bd8c7d4c9', canaryRevision: 'b7d7c9d4f', observedWorkloadGeneration: 2, rolloutHash: 'x' } } };
        const res = await kubectl(['patch', 'rollout', 'rollout-web-alpha', '--subresource=status', '--type=merge', '-p', JSON.stringify(patch)], sb.kubeconfig);
        assert.equal(res.code, 0, res.stderr);
        const get = await kubectl(['get', 'rollouts', 'rollout-web-alpha', '--no-headers'], sb.kubeconfig);
        assert.match(get.stdout, /^rollout-web-alpha\s+Progressing\s+1\s+StepPaused\s+Rollout is in step\(1\/3\)/);
      });
    }

    if (setup.realCrds) {
      it('validates a Rollout against the real schema: 422 with the field path, nothing stored', async () => {
        const res = await kubectl(['apply', '-f', join(FIXTURES, 'sandbox-rollout-bad-pause.yaml')], sb.kubeconfig);
        if (!servesBeta) {
          // v0.4.4 serves v1alpha1 only: the same slip in that shape, straight to the API.
          const alpha = await sb.api('POST', `${ROLLOUTS}/v1alpha1/namespaces/default/rollouts`, {
            apiVersion: 'rollouts.kruise.io/v1alpha1',
            kind: 'Rollout',
            metadata: { name: 'rollout-bad' },
            spec: { objectRef: { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web' } }, strategy: { canary: { steps: [{ replicas: '20%', pause: { duration: '5s' } }] } } },
          });
          assert.equal(alpha.status, 422, alpha.text);
          assert.match(alpha.body.message, /spec\.strategy\.canary\.steps\[0\]\.pause\.duration: Invalid value: "string": spec\.strategy\.canary\.steps\[0\]\.pause\.duration in body must be of type integer: "string"/);
          assert.equal((await sb.api('GET', `${ROLLOUTS}/v1alpha1/namespaces/default/rollouts/rollout-bad`)).status, 404);
          return;
        }
        assert.equal(res.code, 1, res.stdout);
        assert.match(res.stderr, /The Rollout "rollout-bad" is invalid: spec\.strategy\.canary\.steps\[0\]\.pause\.duration: Invalid value: "string": spec\.strategy\.canary\.steps\[0\]\.pause\.duration in body must be of type integer: "string"/);
        const get = await sb.api('GET', `${ROLLOUTS}/v1beta1/namespaces/default/rollouts/rollout-bad`);
        assert.equal(get.status, 404);
      });

      if (servesBeta) {
        it('validates a status patch against the real schema: v1beta1 canaryStatus without nextStepIndex/finalisingStep is 422, status unchanged', async () => {
          const before = await sb.api('GET', `${ROLLOUTS}/v1beta1/namespaces/default/rollouts/rollout-web`);
          const patch = { status: { canaryStatus: { nextStepIndex: null, finalisingStep: null } } };
          const res = await kubectl(['patch', 'rollout', 'rollout-web', '--subresource=status', '--type=merge', '-p', JSON.stringify(patch)], sb.kubeconfig);
          assert.equal(res.code, 1, res.stdout);
          assert.match(res.stderr, /status\.canaryStatus\.finalisingStep: Required value/);
          assert.match(res.stderr, /status\.canaryStatus\.nextStepIndex: Required value/);
          const after = await sb.api('GET', `${ROLLOUTS}/v1beta1/namespaces/default/rollouts/rollout-web`);
          assert.deepEqual(after.body.status, before.body.status);
        });
      }

      it('validates the v1alpha1 schema too (a workloadRef without a name: 422 Required value)', async () => {
        const res = await sb.api('POST', `${ROLLOUTS}/v1alpha1/namespaces/default/rollouts`, {
          apiVersion: 'rollouts.kruise.io/v1alpha1',
          kind: 'Rollout',
          metadata: { name: 'no-name' },
          spec: { objectRef: { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' } }, strategy: { canary: { steps: [{ replicas: 1 }] } } },
        });
        assert.equal(res.status, 422, res.text);
        assert.match(res.body.message, /spec\.objectRef\.workloadRef\.name: Required value/);
      });
    }
  });
}

describe('sandbox --crds / --kruise-rollout: bad combinations exit 2 before serving', { skip: !haveCrds && 'no ../shared/kruise-rollout-crds' }, () => {
  const cases: Array<[string[], RegExp]> = [
    [['--kruise-rollout', 'v0.5'], /^error: invalid value "v0\.5" for --kruise-rollout: use v0\.4, v0\.6 or master$/m],
    [['--kruise-rollout', 'v0.4', '--crds', join(ROLLOUT_CRDS, 'v0.6.2')], /^error: --kruise-rollout v0\.4 contradicts --crds \S+v0\.6\.2: its Rollout CRD serves v1alpha1, v1beta1 \(storage v1beta1\), v0\.4 serves v1alpha1 \(storage v1alpha1\); drop --kruise-rollout \(the folder decides\)$/m],
    [['--crds', join(ROLLOUT_CRDS, 'v0.6.2'), '--crds', join(ROLLOUT_CRDS, 'master')], /^error: --crds \S+master: CustomResourceDefinition batchreleases\.rollouts\.kruise\.io is also in --crds \S+v0\.6\.2; give each CRD once$/m],
  ];
  for (const [args, message] of cases) {
    it(`sandbox ${args.map((a) => a.replace(SHARED, '..')).join(' ')}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'kk-sbro-'));
      try {
        const res = await runCli(['sandbox', '--kubeconfig-out', join(dir, 'kc'), ...args], { timeoutMs: 15_000 });
        assert.equal(res.code, 2, res.stderr);
        assert.match(res.stderr, message);
        assert.doesNotMatch(res.stderr, /\n\s+at /, 'no stack trace');
        assert.equal(existsSync(join(dir, 'kc')), false, 'nothing started');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('--kruise-rollout matching the folder is accepted (v0.6 with v0.6.2 CRDs); Kruise\'s kinds keep their built-in definitions', async () => {
    const sb = await startSandbox({ extraArgs: ['--kruise-rollout', 'v0.6', '--crds', join(ROLLOUT_CRDS, 'v0.6.2')] });
    try {
      const res = await kubectl(['get', 'rollouts'], sb.kubeconfig);
      assert.equal(res.code, 0, res.stderr);
      const crd = await sb.api('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clonesets.apps.kruise.io');
      assert.equal(crd.body.metadata.annotations['kruise-sandbox/builtin'], 'v1.9');
      const clonesets = await kubectl(['get', 'clonesets'], sb.kubeconfig);
      assert.equal(clonesets.code, 0, clonesets.stderr);
    } finally {
      await sb.stop();
    }
  });
});
