// `sandbox --tour` (npm run demo): starts a private sandbox and walks a CloneSet through
// create → set image under a 90% partition → status → partition 0 → undo, then a Kruise Rollout
// canary release (paused for approval, described, approved), then a Deployment moved into a CloneSet
// without downtime and a BroadcastJob awaited like a rollout, printing every command and its output.
// Each step runs the real CLI as a subprocess, exactly as a user would.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandContext } from '../cli/context';
import { failure } from '../cli/exit';
import { selfCommand } from '../cli/self';
import type { RunningSandbox } from '../sandbox/index';

const CLONESET = `apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata:
  name: web
  namespace: default
spec:
  replicas: 8
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: nginx
          image: nginx:1.25.3
  updateStrategy:
    type: InPlaceIfPossible
    partition: "90%"
`;

const ROLLOUT = `apiVersion: rollouts.kruise.io/v1beta1
kind: Rollout
metadata:
  name: rollout-web
  namespace: default
spec:
  workloadRef:
    apiVersion: apps.kruise.io/v1alpha1
    kind: CloneSet
    name: web
  strategy:
    canary:
      steps:
        - replicas: 25%
          pause: {}
        - replicas: 100%
`;

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: default
spec:
  replicas: 4
  selector:
    matchLabels:
      app: api
  template:
    metadata:
      labels:
        app: api
    spec:
      containers:
        - name: api
          image: nginx:1.25.3
`;

const BROADCASTJOB = `apiVersion: apps.kruise.io/v1alpha1
kind: BroadcastJob
metadata:
  name: warm-cache
  namespace: default
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: warm
          image: busybox:1.36
  completionPolicy:
    type: Always
`;

interface Step {
  say: string;
  /** argv shown after "$ "; the first word is kubectl (real) or kubectl kruise (this CLI). */
  show: string[];
  run: 'plugin' | 'kubectl' | 'api';
  args: string[];
  /** For `api` steps: the request done instead of kubectl when it is not installed (a string body is sent as is). */
  api?: { method: string; path: string; body: unknown; contentType: string; done: string };
}

/** The kubectl that ran us (KUBECTL_PATH, which kubectl ≥ 1.36 passes to plugins), else the first on PATH. */
export function findKubectl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.KUBECTL_PATH;
  if (given && existsSync(given)) return given;
  for (const dir of (env.PATH ?? '').split(':')) {
    const p = join(dir, 'kubectl');
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

function runProcess(file: string, args: string[], env: NodeJS.ProcessEnv, out: NodeJS.WritableStream): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => out.write(d));
    child.stderr.on('data', (d: Buffer) => out.write(d));
    child.on('close', (code) => resolve(code ?? 1));
    child.on('error', () => resolve(127));
  });
}

export async function runTour(ctx: CommandContext, sandbox: RunningSandbox): Promise<number> {
  const out = ctx.term.stdout;
  const dir = mkdtempSync(join(tmpdir(), 'kruise-tour-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const manifest = join(dir, 'web.yaml');
  writeFileSync(kubeconfig, sandbox.kubeconfig, { mode: 0o600 });
  const rolloutManifest = join(dir, 'rollout-web.yaml');
  writeFileSync(manifest, CLONESET);
  writeFileSync(rolloutManifest, ROLLOUT);
  const deploymentManifest = join(dir, 'api.yaml');
  const jobManifest = join(dir, 'warm-cache.yaml');
  writeFileSync(deploymentManifest, DEPLOYMENT);
  writeFileSync(jobManifest, BROADCASTJOB);
  const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache'), NO_COLOR: '1' };
  const kubectl = findKubectl();
  const partitionZero = { spec: { updateStrategy: { partition: 0 } } };
  const steps: Step[] = [
    { say: 'Create a CloneSet of 8 pods that keeps 90% of them at the old revision during updates', show: ['kubectl', 'apply', '-f', 'web.yaml'], run: 'kubectl', args: ['apply', '-f', manifest], api: { method: 'POST', path: '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets', body: CLONESET, contentType: 'application/yaml', done: 'cloneset.apps.kruise.io/web created' } },
    { say: 'Wait until all 8 pods are ready', show: ['kubectl', 'kruise', 'rollout', 'status', 'cloneset/web', '--timeout=60s'], run: 'plugin', args: ['rollout', 'status', 'cloneset/web', '--timeout=60s'] },
    { say: 'What does partition 90% mean for 8 replicas?', show: ['kubectl', 'kruise', 'explain', 'partition', 'cloneset/web'], run: 'plugin', args: ['explain', 'partition', 'cloneset/web'] },
    { say: 'Change the image: only the pods outside the partition are updated (in place)', show: ['kubectl', 'kruise', 'set', 'image', 'cloneset/web', 'nginx=nginx:1.25.4'], run: 'plugin', args: ['set', 'image', 'cloneset/web', 'nginx=nginx:1.25.4'] },
    { say: 'The rollout stops at the partition: 1 pod updated, 7 kept', show: ['kubectl', 'kruise', 'rollout', 'status', 'cloneset/web', '--timeout=60s'], run: 'plugin', args: ['rollout', 'status', 'cloneset/web', '--timeout=60s'] },
    { say: 'Release the partition', show: ['kubectl', 'patch', 'cloneset', 'web', '--type', 'merge', '-p', JSON.stringify(partitionZero)], run: 'kubectl', args: ['patch', 'cloneset', 'web', '--type', 'merge', '-p', JSON.stringify(partitionZero)], api: { method: 'PATCH', path: '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web', body: partitionZero, contentType: 'application/merge-patch+json', done: 'cloneset.apps.kruise.io/web patched' } },
    { say: 'Now every pod is updated', show: ['kubectl', 'kruise', 'rollout', 'status', 'cloneset/web', '--timeout=60s'], run: 'plugin', args: ['rollout', 'status', 'cloneset/web', '--timeout=60s'] },
    { say: 'Roll back to the previous template', show: ['kubectl', 'kruise', 'rollout', 'undo', 'cloneset/web'], run: 'plugin', args: ['rollout', 'undo', 'cloneset/web'] },
    { say: 'Wait for the rollback', show: ['kubectl', 'kruise', 'rollout', 'status', 'cloneset/web', '--timeout=60s'], run: 'plugin', args: ['rollout', 'status', 'cloneset/web', '--timeout=60s'] },
    { say: 'The revisions so far', show: ['kubectl', 'kruise', 'rollout', 'history', 'cloneset/web'], run: 'plugin', args: ['rollout', 'history', 'cloneset/web'] },
    { say: 'Hand the next releases to Kruise Rollout: a canary of 25% that waits for a person, then everyone', show: ['kubectl', 'apply', '-f', 'rollout-web.yaml'], run: 'kubectl', args: ['apply', '-f', rolloutManifest], api: { method: 'POST', path: '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts', body: ROLLOUT, contentType: 'application/yaml', done: 'rollout.rollouts.kruise.io/rollout-web created' } },
    { say: 'Wait until the Rollout has taken the CloneSet over', show: ['kubectl', 'kruise', 'rollout', 'status', 'rollout/rollout-web', '--timeout=60s'], run: 'plugin', args: ['rollout', 'status', 'rollout/rollout-web', '--timeout=60s'] },
    { say: 'Change the image: the Rollout releases it in steps', show: ['kubectl', 'kruise', 'set', 'image', 'cloneset/web', 'nginx=nginx:1.25.5'], run: 'plugin', args: ['set', 'image', 'cloneset/web', 'nginx=nginx:1.25.5'] },
    { say: 'A pipeline stops at the canary: 2 of 8 pods updated, waiting for approval', show: ['kubectl', 'kruise', 'rollout', 'status', 'rollout/rollout-web', '--until=paused', '--timeout=60s'], run: 'plugin', args: ['rollout', 'status', 'rollout/rollout-web', '--until=paused', '--timeout=60s'] },
    { say: 'Look at the release', show: ['kubectl', 'kruise', 'describe', 'rollout', 'rollout-web'], run: 'plugin', args: ['describe', 'rollout', 'rollout-web'] },
    { say: 'Approve the next step', show: ['kubectl', 'kruise', 'rollout', 'approve', 'rollout/rollout-web'], run: 'plugin', args: ['rollout', 'approve', 'rollout/rollout-web'] },
    { say: 'Wait for the release to complete', show: ['kubectl', 'kruise', 'rollout', 'status', 'rollout/rollout-web', '--timeout=60s'], run: 'plugin', args: ['rollout', 'status', 'rollout/rollout-web', '--timeout=60s'] },
    { say: 'A plain Deployment of 4 pods, to be moved to a CloneSet', show: ['kubectl', 'apply', '-f', 'api.yaml'], run: 'kubectl', args: ['apply', '-f', deploymentManifest], api: { method: 'POST', path: '/apis/apps/v1/namespaces/default/deployments', body: DEPLOYMENT, contentType: 'application/yaml', done: 'deployment.apps/api created' } },
    { say: 'Wait until its pods are ready', show: ['kubectl', 'kruise', 'rollout', 'status', 'deployment/api', '--timeout=60s'], run: 'plugin', args: ['rollout', 'status', 'deployment/api', '--timeout=60s'] },
    { say: 'Move its pods into a CloneSet, 2 at a time, never fewer than 4 available (Ctrl-C and a rerun would resume)', show: ['kubectl', 'kruise', 'migrate', 'cloneset/api', '--from', 'deployment/api', '--max-surge', '2', '--timeout=60s'], run: 'plugin', args: ['migrate', 'cloneset/api', '--from', 'deployment/api', '--max-surge', '2', '--timeout=60s'] },
    { say: 'Run a job once on every node: a BroadcastJob', show: ['kubectl', 'apply', '-f', 'warm-cache.yaml'], run: 'kubectl', args: ['apply', '-f', jobManifest], api: { method: 'POST', path: '/apis/apps.kruise.io/v1alpha1/namespaces/default/broadcastjobs', body: BROADCASTJOB, contentType: 'application/yaml', done: 'broadcastjob.apps.kruise.io/warm-cache created' } },
    { say: 'A pipeline waits for it like for a rollout: 0 done, 1 failed, 3 timed out', show: ['kubectl', 'kruise', 'rollout', 'status', 'broadcastjob/warm-cache', '--timeout=60s'], run: 'plugin', args: ['rollout', 'status', 'broadcastjob/warm-cache', '--timeout=60s'] },
  ];
  try {
    for (const [i, step] of steps.entries()) {
      const shown = step.show.map((a) => (/^[\w./:=%-]+$/.test(a) ? a : `'${a}'`)).join(' ');
      out.write(`\n# ${i + 1}. ${step.say}\n$ ${shown}\n`);
      let code: number;
      if (step.run === 'plugin') code = await runProcess(...selfCommand(step.args), env, out);
      else if (kubectl) code = await runProcess(kubectl, ['--kubeconfig', kubeconfig, ...step.args], env, out);
      else {
        // No kubectl installed: the same request, made directly.
        const a = step.api!;
        const res = await fetch(sandbox.url + a.path, { method: a.method, headers: { 'Content-Type': a.contentType, Accept: 'application/json' }, body: typeof a.body === 'string' ? a.body : JSON.stringify(a.body) });
        code = res.ok ? 0 : 1;
        out.write(res.ok ? `${a.done}\n` : `error: ${await res.text()}\n`);
      }
      if (code !== 0) throw failure(`the tour stopped at step ${i + 1} (${step.show.join(' ')}): exit code ${code}`);
    }
    out.write('\nTour finished: a CloneSet partitioned rollout and rollback, a Kruise Rollout canary release, a Deployment migrated to a CloneSet and a BroadcastJob, end to end.\n');
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
