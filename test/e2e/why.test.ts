// `why` end to end on ONE sandbox: stuck situations built with real kubectl, each answered by `why`
// with a code, the objects and a next step; the test runs that next step and reads the workload back
// through the API. `why --fix` restores Kruise Rollout leftovers and is refused during a live release.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_BIN, kubectl, REPO_ROOT, runCli } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const KRUISE_CRDS = '/work/shared/kruise-crds/v1.9.0';
const ROLLOUT_CRDS = '/work/shared/kruise-rollout-crds/v0.6.2';
const WHY_FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'why');

let sb: Sandbox;
const get = async (path: string): Promise<any> => (await sb.api('GET', path)).body;

async function apply(yaml: string): Promise<void> {
  const r = await kubectl(['apply', '-f', '-'], sb.kubeconfig, { input: yaml });
  assert.equal(r.code, 0, r.stderr);
}

async function why(...args: string[]): Promise<{ code: number; stdout: string; stderr: string; answers: any[] }> {
  return whyOn(sb, ...args);
}

async function whyOn(on: Sandbox, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string; answers: any[] }> {
  const r = await runCli(['why', ...args, '-o', 'json'], { kubeconfig: on.kubeconfig });
  return { ...r, answers: r.code === 0 ? JSON.parse(r.stdout) : [] };
}

/** Runs the `next` command `why` printed (a kubectl command line; the trailing comment dropped). */
function runNext(next: string, on: Sandbox = sb): string {
  return execFileSync('/bin/sh', ['-c', next.replace(/\s+#.*$/, '').replace(/^kubectl kruise /, `${CLI_BIN} `)], { env: { ...process.env, KUBECONFIG: on.kubeconfig }, stdio: 'pipe', encoding: 'utf8' });
}

const cloneset = (name: string, extra: string): string => `apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata: { name: ${name}, namespace: default }
spec:
  replicas: 2
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec: { containers: [{ name: app, image: nginx:1.25 }] }
${extra}`;

before(async () => {
  sb = await startSandbox({ readyDelay: '50ms', extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS, '--feature-gates', 'PodUnavailableBudgetUpdateGate=true'] });
});
after(async () => {
  await sb?.stop();
});

describe('why', () => {
  it('a healthy workload: nothing blocks it, exit 0, and no write sent', async () => {
    await apply(cloneset('healthy', ''));
    await waitUntil('healthy ready', async () => (await get('/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/healthy')).status?.readyReplicas === 2);
    sb.clearAudit();
    const r = await runCli(['why', 'cloneset/healthy'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /cloneset\/healthy: nothing blocks it/);
    assert.deepEqual(sb.audit().filter((e) => !['get', 'list', 'watch'].includes(e.verb)).map((e) => `${e.verb} ${e.path}`), []);
  });

  it('Paused: a paused CloneSet; the printed patch resumes it', async () => {
    await apply(cloneset('paused', '  updateStrategy: { paused: true }'));
    const r = await why('cloneset/paused');
    const f = r.answers[0].findings.find((x: any) => x.code === 'Paused');
    assert.ok(f, r.stdout);
    assert.deepEqual(f.objects, ['cloneset/paused']);
    runNext(f.next);
    assert.equal((await get('/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/paused')).spec.updateStrategy.paused, false);
  });

  it('PartitionHolds: an update held by partition; the printed patch releases it and the pods update', async () => {
    await apply(cloneset('held', '  updateStrategy: { partition: 2 }'));
    await waitUntil('held ready', async () => (await get('/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/held')).status?.readyReplicas === 2);
    const set = await runCli(['set', 'image', 'cloneset/held', 'app=nginx:1.26'], { kubeconfig: sb.kubeconfig });
    assert.equal(set.code, 0, set.stderr);
    const f = await waitUntil('PartitionHolds', async () => (await why('cloneset/held')).answers[0]?.findings.find((x: any) => x.code === 'PartitionHolds'));
    runNext(f.next);
    await waitUntil('held updated', async () => {
      const cs = await get('/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/held');
      return cs.status?.updatedReplicas === 2 && cs.status?.observedGeneration === cs.metadata.generation;
    });
  });

  /** Applies a leftover fixture, asks `why`, runs its `next` (`why --fix`) and returns the object read back. */
  async function fixLeftover(fixture: string, path: string, ref: string): Promise<any> {
    const r0 = await kubectl(['apply', '-f', join(WHY_FIXTURES, fixture)], sb.kubeconfig);
    assert.equal(r0.code, 0, r0.stderr);
    const r = await why(ref);
    const f = r.answers[0].findings.find((x: any) => x.code === 'RolloutLeftover');
    assert.ok(f, r.stdout);
    assert.equal(f.next, `kubectl kruise why ${ref} --fix`);
    const out = runNext(f.next);
    // The sandbox's controller may write the object between the read and the fix: then the fix reads again and says so.
    assert.match(out, new RegExp(`^${ref.replace('/', '\\/')} restored( \\(read again \\d+x: it changed under the write\\))?$`, 'm'));
    assert.ok(!(await why(ref)).answers[0].findings.some((x: any) => x.code === 'RolloutLeftover'), 'nothing left');
    return get(path);
  }

  it('RolloutLeftover: a partition-style Deployment left Recreate + paused; why --fix (dry run, then one conditional patch) resumes it RollingUpdate with its saved rollingUpdate', async () => {
    sb.clearAudit();
    const d = await fixLeftover('deployment-recreate-leftover.yaml', '/apis/apps/v1/namespaces/default/deployments/web', 'deployment/web');
    // A dry run, then one conditional patch; when the controller wrote the Deployment between the read and the
    // patch (seen in CI), the fix reads again and dry-runs again first: still one patch that changed it.
    const patches = sb.audit().filter((e) => e.verb === 'patch' && e.code < 300).map((e) => /dryRun=All/.test(e.query));
    assert.equal(patches.filter((dry) => !dry).length, 1, JSON.stringify(patches));
    assert.equal(patches.at(-1), false, JSON.stringify(patches));
    assert.ok(patches.length >= 2 && patches.slice(0, -1).every((dry) => dry), JSON.stringify(patches));
    assert.equal(d.spec.strategy.type, 'RollingUpdate');
    assert.deepEqual(d.spec.strategy.rollingUpdate, { maxUnavailable: '25%', maxSurge: '25%' });
    assert.notEqual(d.spec.paused, true);
    assert.deepEqual(Object.keys(d.metadata.annotations ?? {}).filter((k) => k.includes('rollouts.kruise.io')), []);
    assert.deepEqual(Object.keys(d.metadata.labels ?? {}).filter((k) => k.includes('rollouts.kruise.io')), []);
    await waitUntil('web rolls again', async () => (await get('/apis/apps/v1/namespaces/default/deployments/web')).status?.availableReplicas === 2);
  });

  it('RolloutLeftover: a blue-green Deployment left with minReadySeconds MaxReadySeconds and progressDeadlineSeconds MaxProgressSeconds; why --fix puts the saved settings back', async () => {
    const d = await fixLeftover('deployment-bluegreen-leftover.yaml', '/apis/apps/v1/namespaces/default/deployments/cart', 'deployment/cart');
    assert.deepEqual([d.spec.minReadySeconds ?? 0, d.spec.progressDeadlineSeconds, d.spec.strategy.rollingUpdate], [0, 600, { maxSurge: '25%', maxUnavailable: '25%' }]);
    assert.equal(d.metadata.annotations?.['rollouts.kruise.io/original-deployment-strategy'], undefined);
    // Its pods count as available again (they never did under MaxReadySeconds).
    await waitUntil('cart available', async () => (await get('/apis/apps/v1/namespaces/default/deployments/cart')).status?.availableReplicas === 2);
  });

  it('RolloutLeftover: a native DaemonSet left OnDelete; why --fix restores the saved type and removes the release annotations', async () => {
    const ds = await fixLeftover('daemonset-ondelete-leftover.yaml', '/apis/apps/v1/namespaces/default/daemonsets/agent', 'daemonset/agent');
    assert.equal(ds.spec.updateStrategy.type, 'RollingUpdate');
    assert.deepEqual(Object.keys(ds.metadata.annotations ?? {}).filter((k) => k.includes('rollouts.kruise.io')), []);
  });

  it('RolloutLeftover: stale in-progressing and control-info marks on a CloneSet; why --fix removes them', async () => {
    const cs = await fixLeftover('cloneset-stale-release-marks.yaml', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/api', 'cloneset/api');
    assert.deepEqual(Object.keys(cs.metadata.annotations ?? {}).filter((k) => k.includes('rollouts.kruise.io')), []);
  });

  it('ImagePull: a CloneSet updated to an image that cannot be pulled; the printed undo brings it back', async () => {
    await apply(cloneset('pull', '  updateStrategy: { maxUnavailable: 1 }'));
    await waitUntil('pull ready', async () => (await get('/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/pull')).status?.readyReplicas === 2);
    const set = await runCli(['set', 'image', 'cloneset/pull', 'app=nginx:fail-pull'], { kubeconfig: sb.kubeconfig });
    assert.equal(set.code, 0, set.stderr);
    const f = await waitUntil('ImagePull', async () => (await why('cloneset/pull')).answers[0]?.findings.find((x: any) => x.code === 'ImagePull'));
    assert.ok(f.objects.some((o: string) => o.startsWith('pod/pull-')), JSON.stringify(f));
    runNext(f.next);
    await waitUntil('pull back on nginx:1.25', async () => {
      const pods = (await get('/api/v1/namespaces/default/pods?labelSelector=app%3Dpull')).items as any[];
      return pods.length === 2 && pods.every((p) => p.spec.containers[0].image === 'nginx:1.25' && (p.status.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'));
    });
  });

  it('--fix is refused while a Kruise Rollout release is in progress', async () => {
    await apply(`apiVersion: apps/v1
kind: Deployment
metadata: { name: live, namespace: default }
spec:
  replicas: 2
  selector: { matchLabels: { app: live } }
  template:
    metadata: { labels: { app: live } }
    spec: { containers: [{ name: app, image: nginx:1.25 }] }
---
apiVersion: rollouts.kruise.io/v1beta1
kind: Rollout
metadata: { name: live, namespace: default }
spec:
  workloadRef: { apiVersion: apps/v1, kind: Deployment, name: live }
  strategy:
    canary:
      steps: [{ replicas: 1 }, { replicas: 2 }]
`);
    await waitUntil('live ready', async () => (await get('/apis/apps/v1/namespaces/default/deployments/live')).status?.readyReplicas === 2);
    const set = await kubectl(['set', 'image', 'deployment/live', 'app=nginx:1.26'], sb.kubeconfig);
    assert.equal(set.code, 0, set.stderr);
    await waitUntil('release progressing', async () => (await get('/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts/live')).status?.phase === 'Progressing');
    const fix = await runCli(['why', 'deployment/live', '--fix'], { kubeconfig: sb.kubeconfig });
    assert.equal(fix.code, 1, fix.stdout);
    assert.match(fix.stderr, /^error: deployment\/live: a Kruise Rollout release is in progress/m);
    // The same release answered by `why`: waiting for approval; the printed approve moves it on.
    const f = await waitUntil('AwaitingApproval', async () => (await why('rollout/live')).answers[0]?.findings.find((x: any) => x.code === 'AwaitingApproval' && /waits at step/.test(x.cause)));
    assert.deepEqual(f.objects, ['rollout/live', 'deployment/live']);
    runNext(f.next);
    await waitUntil('step 2', async () => (await get('/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts/live')).status?.canaryStatus?.currentStepIndex === 2);
  });

  it('BudgetExhausted: a PodUnavailableBudget that admits no unavailable pod holds the update (the sandbox PUB controller counts it); the printed patch relaxes it and the update completes', async () => {
    await apply(cloneset('budget', '') + `
---
apiVersion: policy.kruise.io/v1alpha1
kind: PodUnavailableBudget
metadata: { name: budget, namespace: default }
spec: { maxUnavailable: 0, selector: { matchLabels: { app: budget } } }
`);
    await waitUntil('PUB counts 2 available, allows 0', async () => {
      const st = (await get('/apis/policy.kruise.io/v1alpha1/namespaces/default/podunavailablebudgets/budget')).status;
      return st?.currentAvailable === 2 && st.unavailableAllowed === 0;
    });
    const set = await runCli(['set', 'image', 'cloneset/budget', 'app=nginx:1.26'], { kubeconfig: sb.kubeconfig });
    assert.equal(set.code, 0, set.stderr);
    const f = await waitUntil('BudgetExhausted', async () => (await why('cloneset/budget')).answers[0]?.findings.find((x: any) => x.code === 'BudgetExhausted'));
    assert.deepEqual(f.objects, ['podunavailablebudget/budget', 'cloneset/budget']);
    // Held, not slow: the CloneSet asked the budget and updated nothing.
    assert.equal((await get('/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/budget')).status.updatedReplicas, 0);
    runNext(f.next);
    await waitUntil('budget updated', async () => {
      const cs = await get('/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/budget');
      return cs.status?.updatedReplicas === 2 && cs.status.updatedReadyReplicas === 2;
    });
  });

  it('MaxUnavailableRoundsToZero: on Kruise v1.3 (a sandbox of its own) a SidecarSet maxUnavailable of 5% of 3 pods is 0 and the upgrade never moves (kruise#1812); the printed patch moves it', async () => {
    const old = await startSandbox({ kruise: 'v1.3', readyDelay: '50ms' });
    try {
      const r = await kubectl(['apply', '-f', '-'], old.kubeconfig, {
        input: `apiVersion: apps.kruise.io/v1alpha1
kind: SidecarSet
metadata: { name: log }
spec:
  selector: { matchLabels: { app: side } }
  updateStrategy: { maxUnavailable: 5% }
  containers: [{ name: log, image: busybox:1.35 }]
---
${cloneset('side', '').replace('replicas: 2', 'replicas: 3')}`,
      });
      assert.equal(r.code, 0, r.stderr);
      const sidecarSet = async (): Promise<any> => (await old.api('GET', '/apis/apps.kruise.io/v1alpha1/sidecarsets/log')).body;
      await waitUntil('3 pods matched, ready', async () => (await sidecarSet()).status?.readyPods === 3);
      const p = await kubectl(['patch', 'sidecarset/log', '--type=json', '-p', '[{"op":"replace","path":"/spec/containers/0/image","value":"busybox:1.36"}]'], old.kubeconfig);
      assert.equal(p.code, 0, p.stderr);
      const f = await waitUntil('MaxUnavailableRoundsToZero', async () => (await whyOn(old, 'sidecarset/log')).answers[0]?.findings.find((x: any) => x.code === 'MaxUnavailableRoundsToZero'));
      assert.deepEqual(f.objects, ['sidecarset/log']);
      // Stuck, not slow: the controller has seen the change (observedGeneration) and upgraded no pod.
      const seen = await sidecarSet();
      assert.deepEqual([seen.status.observedGeneration, seen.status.updatedPods], [seen.metadata.generation, 0]);
      runNext(f.next, old);
      await waitUntil('3 pods upgraded', async () => {
        const pods = (await old.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dside')).body.items as any[];
        return (await sidecarSet()).status.updatedPods === 3 && pods.every((x) => x.spec.containers.find((c: any) => c.name === 'log')?.image === 'busybox:1.36');
      });
    } finally {
      await old.stop();
    }
  });

  it('ScaleThrottled: a CloneSet whose scaleStrategy.maxUnavailable stops creation behind a pod that never gets ready (kruise#2385); the printed patch lets it create the rest', async () => {
    await apply(cloneset('throttle', '  scaleStrategy: { maxUnavailable: 1 }').replace('replicas: 2', 'replicas: 3').replace('nginx:1.25', 'nginx:fail-pull'));
    const pods = async (): Promise<any[]> => (await get('/api/v1/namespaces/default/pods?labelSelector=app%3Dthrottle')).items;
    const f = await waitUntil('ScaleThrottled', async () => (await why('cloneset/throttle')).answers[0]?.findings.find((x: any) => x.code === 'ScaleThrottled'));
    // Held at one pod by the sandbox's CloneSet controller (cloneset-diffs.ts scaleUpLimit), the one why names.
    const held = await pods();
    assert.equal(held.length, 1);
    assert.deepEqual(f.objects, ['cloneset/throttle', `pod/${held[0].metadata.name}`]);
    runNext(f.next);
    await waitUntil('3 pods created', async () => (await pods()).length === 3 && (await get('/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/throttle')).status?.replicas === 3);
  });

  it('LifecycleHookHolds: a scale-in held by a preDelete labelsHandler hook (kruise#369); the printed label removal lets the pod go', async () => {
    await apply(cloneset('hook', `  lifecycle:
    preDelete: { labelsHandler: { example.io/deregistered: "false" } }`).replace('labels: { app: hook }', 'labels: { app: hook, example.io/deregistered: "false" }'));
    await waitUntil('hook ready', async () => (await get('/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/hook')).status?.readyReplicas === 2);
    const scale = await kubectl(['scale', 'cloneset/hook', '--replicas=1'], sb.kubeconfig);
    assert.equal(scale.code, 0, scale.stderr);
    const pods = async (): Promise<any[]> => (await get('/api/v1/namespaces/default/pods?labelSelector=app%3Dhook')).items;
    const f = await waitUntil('LifecycleHookHolds', async () => (await why('cloneset/hook')).answers[0]?.findings.find((x: any) => x.code === 'LifecycleHookHolds'));
    const held = (await pods()).find((p) => p.metadata.labels['lifecycle.apps.kruise.io/state'] === 'PreparingDelete');
    assert.ok(held, 'a pod waits in PreparingDelete');
    assert.deepEqual(f.objects, [`pod/${held.metadata.name}`, 'cloneset/hook']);
    assert.equal(f.next.replace(/\s+#.*$/, ''), `kubectl label pod/${held.metadata.name} example.io/deregistered-`);
    runNext(f.next);
    await waitUntil('held pod gone, 1 left', async () => {
      const left = await pods();
      return left.length === 1 && left[0].metadata.name !== held.metadata.name;
    });
  });

  it('ReadinessGateFalse: a custom readiness gate nobody sets keeps the pod out of Ready (the sandbox kubelet folds spec.readinessGates); the printed status patch makes it Ready', async () => {
    await apply(cloneset('gated', '').replace('replicas: 2', 'replicas: 1').replace('spec: { containers:', 'spec: { readinessGates: [{ conditionType: example.io/lb-registered }], containers:'));
    const f = await waitUntil('ReadinessGateFalse', async () => (await why('cloneset/gated')).answers[0]?.findings.find((x: any) => x.code === 'ReadinessGateFalse'));
    const [pod] = (await get('/api/v1/namespaces/default/pods?labelSelector=app%3Dgated')).items;
    assert.deepEqual(f.objects, [`pod/${pod.metadata.name}`, 'cloneset/gated']);
    assert.match(pod.status.conditions.find((c: any) => c.type === 'Ready').message, /readiness gate "example.io\/lb-registered" does not exist/);
    runNext(f.next);
    await waitUntil('gated ready', async () => (await get('/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/gated')).status?.readyReplicas === 1);
  });

  it('Unschedulable: a nodeSelector no node carries; the printed patch lets the pods schedule', async () => {
    await apply(cloneset('nowhere', '').replace('spec: { containers:', 'spec: { nodeSelector: { disk: nvme-none }, containers:'));
    const f = await waitUntil('Unschedulable', async () => (await why('cloneset/nowhere')).answers[0]?.findings.find((x: any) => x.code === 'Unschedulable'));
    assert.ok(f.objects.includes('cloneset/nowhere'), JSON.stringify(f));
    runNext(f.next);
    await waitUntil('nowhere scheduled and ready', async () => {
      const pods = (await get('/api/v1/namespaces/default/pods?labelSelector=app%3Dnowhere')).items as any[];
      return pods.length === 2 && pods.every((p) => p.spec.nodeName && (p.status.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'));
    });
  });

  it('ControllerNotObserving: kruise-manager scaled to 0 (the sandbox stops its Kruise controllers) leaves a CloneSet edit unobserved; the printed scale brings the manager back and the edit is observed', async () => {
    await apply(cloneset('stall', '').replace('replicas: 2', 'replicas: 1'));
    const cs = async (): Promise<any> => get('/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/stall');
    await waitUntil('stall ready', async () => (await cs()).status?.readyReplicas === 1);
    const ns = await kubectl(['create', 'namespace', 'kruise-system'], sb.kubeconfig);
    assert.equal(ns.code, 0, ns.stderr);
    const dep = await kubectl(['apply', '-f', join(REPO_ROOT, 'test', 'fixtures', 'preview', 'kruise-controller-manager.yaml')], sb.kubeconfig);
    assert.equal(dep.code, 0, dep.stderr);
    const set = await runCli(['set', 'image', 'cloneset/stall', 'app=nginx:1.26'], { kubeconfig: sb.kubeconfig });
    assert.equal(set.code, 0, set.stderr);
    const r = await why('cloneset/stall');
    const f = r.answers[0].findings.find((x: any) => x.code === 'ControllerNotObserving');
    assert.ok(f, r.stdout);
    assert.deepEqual(f.objects, ['cloneset/stall', 'deployment/kruise-controller-manager -n kruise-system']);
    assert.match(f.cause, /^status\.observedGeneration 1 < metadata\.generation 2: the CloneSet controller has not seen the last change: kruise-manager \(kruise-system\/kruise-controller-manager\) is scaled to 0, so no Kruise controller runs$/);
    assert.equal(f.next, 'kubectl -n kruise-system scale deployment/kruise-controller-manager --replicas=1');
    runNext(f.next);
    await waitUntil('stall observed and updated', async () => {
      const now = await cs();
      return now.status?.observedGeneration === now.metadata.generation && now.status.updatedReadyReplicas === 1;
    });
  });

  it('the whole selector, matchExpressions too: the pods of a sibling that shares only the matchLabels are not blamed (was: its ImagePull named)', async () => {
    const two = (tier: string, image: string): string => `apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata: { name: ${tier}, namespace: default }
spec:
  replicas: 1
  selector: { matchLabels: { app: shop }, matchExpressions: [{ key: tier, operator: In, values: [${tier}] }] }
  template:
    metadata: { labels: { app: shop, tier: ${tier} } }
    spec: { containers: [{ name: app, image: ${image} }] }
`;
    await apply(`${two('front', 'nginx:1.25')}---\n${two('back', 'nginx:fail-pull')}`);
    await waitUntil('front ready, back failing its pull', async () => {
      const pods = (await get('/api/v1/namespaces/default/pods?labelSelector=app%3Dshop')).items as any[];
      const ready = (p: any): boolean => (p.status.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
      const back = pods.find((p) => p.metadata.labels.tier === 'back');
      return pods.some((p) => p.metadata.labels.tier === 'front' && ready(p)) && back && (back.status.containerStatuses ?? []).some((c: any) => /ImagePull|ErrImage/.test(c.state?.waiting?.reason ?? ''));
    });
    const back = await why('cloneset/back');
    assert.ok(back.answers[0].findings.some((f: any) => f.code === 'ImagePull'), back.stdout);
    const r = await runCli(['why', 'cloneset/front'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'cloneset/front: nothing blocks it\n');
  });

  it('PartitionHolds on a UnitedDeployment: a subset held by manualUpdate.partitions; the printed patch releases it and every pod updates', async () => {
    await apply(`apiVersion: apps.kruise.io/v1alpha1
kind: UnitedDeployment
metadata: { name: zones, namespace: default }
spec:
  replicas: 4
  selector: { matchLabels: { app: zones } }
  template:
    cloneSetTemplate:
      metadata: { labels: { app: zones } }
      spec:
        selector: { matchLabels: { app: zones } }
        template:
          metadata: { labels: { app: zones } }
          spec: { containers: [{ name: app, image: nginx:1.25 }] }
  topology: { subsets: [{ name: a, replicas: 2 }, { name: b }] }
  updateStrategy: { type: Manual, manualUpdate: { partitions: { a: 2 } } }
`);
    const pods = async (): Promise<any[]> => (await get('/api/v1/namespaces/default/pods?labelSelector=app%3Dzones')).items as any[];
    const ready = (p: any): boolean => (p.status.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
    await waitUntil('4 zones pods ready', async () => ((await pods()).filter(ready).length === 4 ? true : undefined));
    const set = await runCli(['set', 'image', 'ud/zones', 'app=nginx:1.26'], { kubeconfig: sb.kubeconfig });
    assert.equal(set.code, 0, set.stderr);
    const f = await waitUntil('PartitionHolds', async () => (await why('ud/zones')).answers[0]?.findings.find((x: any) => x.code === 'PartitionHolds'));
    assert.equal(f.cause, "manualUpdate.partitions keeps 2 of subset a's 2 pods on the old revision");
    runNext(f.next);
    await waitUntil('every zones pod on nginx:1.26 and ready', async () => {
      const now = await pods();
      return now.length === 4 && now.every((p) => p.spec.containers[0].image === 'nginx:1.26' && ready(p)) ? true : undefined;
    });
    assert.equal((await why('ud/zones')).answers[0].findings.length, 0);
  });

  it('cannot read: an unknown object exits 1 with a one-line error', async () => {
    const r = await runCli(['why', 'cloneset/nope'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: .*not found/m);
  });

  it('bad input: exit 2 with one line, before any request (a name with two slashes was cut at the second one; a lone word is an unknown type; -o kyaml is taken)', async () => {
    sb.clearAudit();
    for (const [args, line] of [
      [['cloneset/a/b'], 'error: invalid resource reference "cloneset/a/b": expected TYPE/NAME with exactly one "/"\n'],
      [['web'], 'error: the server doesn\'t have a resource type "web"\n'],
    ] as const) {
      const r = await runCli(['why', ...args], { kubeconfig: sb.kubeconfig });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr, line);
    }
    const wide = await runCli(['why', 'cloneset/x', '-o', 'wide'], { kubeconfig: sb.kubeconfig });
    assert.equal(wide.code, 2);
    assert.deepEqual(sb.audit().filter((e) => !e.path.startsWith('/api?') && e.path !== '/api' && !e.path.startsWith('/apis')), [], 'nothing but discovery');
    const k = await runCli(['why', 'cloneset/nope', '-o', 'kyaml'], { kubeconfig: sb.kubeconfig });
    assert.equal(k.code, 1, 'parsed, then not found');
  });

  it('cannot read: an unreachable server exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'why-dead-'));
    const kc = join(dir, 'kubeconfig');
    writeFileSync(kc, 'apiVersion: v1\nkind: Config\nclusters: [{name: dead, cluster: {server: "http://127.0.0.1:1"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: dead, context: {cluster: dead, user: u}}]\ncurrent-context: dead\n');
    const r = await runCli(['why', 'deployment/x', '--request-timeout=2s'], { kubeconfig: kc });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^error: /m);
  });
});
