// Pre-download without Kruise: one short-lived pod per image and node, pinned with
// nodeName (no scheduler involved), at most --parallelism at once, deleted once the kubelet
// has pulled the image. Success is judged from the pull, not from the no-op command's exit
// status (an image without a shell still got pulled).
import type { CommandContext } from '../cli/context';
import type { KubeClient, KubeObject } from '../kube/client';
import type { Pod } from '../kruise/types';
import { shortHash } from '../kruise/builders/hash';
import { PREDOWNLOAD_LABEL } from '../kruise/builders/imagepulljob';
import { isNotFound } from '../kube/errors';
import { createOrAdopt } from './idempotent';
import { mapLimit } from './concurrency';
import { waitUntilDeadline, watchSet, type LiveSet } from './live';
import { labelSelectorString } from '../kruise/selectors';
import { NODE_RT, POD_RT } from './targets';
import type { JobReport, PredownloadOptions, PredownloadReporter, PredownloadRequest, PredownloadResult } from './predownload-types';

const RUN_LABEL = 'kubectl-kruise/predownload-run';
const PULL_FAILURES = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull', 'RegistryUnavailable']);

/** Pulled, failed (with why) or still pulling. */
export function pullState(pod: Pod | undefined): { state: 'pulled' | 'failed' | 'pulling'; reason?: string } {
  if (!pod) return { state: 'pulling' };
  const st = pod.status?.containerStatuses?.[0];
  if (st?.state?.running || st?.state?.terminated || st?.imageID) return { state: 'pulled' };
  const reason = st?.state?.waiting?.reason;
  if (reason && PULL_FAILURES.has(reason)) return { state: 'failed', reason: st?.state?.waiting?.message ? `${reason}: ${st.state.waiting.message}` : reason };
  if (pod.status?.phase === 'Succeeded') return { state: 'pulled' };
  if (pod.status?.phase === 'Failed') return { state: 'failed', reason: 'pod failed' };
  return { state: 'pulling' };
}

export function pullPod(name: string, namespace: string, image: string, node: string, runId: string, pullSecrets: string[] | undefined): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { [PREDOWNLOAD_LABEL]: 'true', [RUN_LABEL]: runId } },
    spec: {
      nodeName: node,
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      tolerations: [{ operator: 'Exists' }],
      ...(pullSecrets && pullSecrets.length > 0 ? { imagePullSecrets: pullSecrets.map((s) => ({ name: s })) } : {}),
      containers: [
        {
          name: 'pull',
          image,
          imagePullPolicy: 'IfNotPresent',
          command: ['sh', '-c', 'true'],
          resources: { requests: { cpu: '1m', memory: '4Mi' }, limits: { cpu: '50m', memory: '32Mi' } },
        },
      ],
    },
  };
}

async function nodesFor(client: KubeClient, request: PredownloadRequest, signal: AbortSignal): Promise<string[]> {
  const t = request.target;
  if (t.kind === 'nodes') return [...t.names];
  if (request.nodes) return [...request.nodes];
  const labelSelector = t.kind === 'nodeSelector' ? labelSelectorString({ matchLabels: t.matchLabels }) : undefined;
  const list = await client.list(NODE_RT, undefined, { labelSelector, signal });
  return list.items.map((n) => n.metadata.name ?? '').sort();
}

export async function pullWithPods(ctx: CommandContext, client: KubeClient, request: PredownloadRequest, options: PredownloadOptions, reporter: PredownloadReporter): Promise<PredownloadResult> {
  const ns = request.namespace;
  const nodes = await nodesFor(client, request, ctx.signal);
  const runId = shortHash(`${request.images.join(',')}|${nodes.join(',')}`, 8);
  const tasks = request.images.flatMap((image) => nodes.map((node) => ({ image, node, name: `${request.nameBase.slice(0, 200)}-${shortHash(`${image}|${node}`)}` })));
  const pods = tasks.map((t) => pullPod(t.name, ns, t.image, t.node, runId, options.pullSecrets));
  if (options.dryRun !== 'none') {
    if (options.dryRun === 'server') await mapLimit(pods, 8, (p) => client.create(POD_RT, p, ns, { dryRun: true, signal: ctx.signal }));
    return { via: 'client', objects: pods, jobs: [], outcome: 'dry-run' };
  }
  if (!options.wait) reporter.log('note: --wait=false has no effect on a client-side pre-download: the pull pods are cleaned up when done');
  const reports = new Map<string, JobReport>(request.images.map((image) => [image, { name: `pull ${image}`, images: [image], desired: nodes.length, succeeded: 0, failed: 0, failedNodes: [], done: false }]));
  const podSet: LiveSet<Pod> = watchSet<Pod>(client, POD_RT, ns, { labelSelector: `${RUN_LABEL}=${runId}`, signal: ctx.signal });
  const deadline = options.timeoutMs > 0 ? Date.now() + options.timeoutMs : undefined;
  const pullTimeoutMs = (options.timeoutSeconds ?? 600) * 1000;
  const live = new Set<string>();
  let finished = 0;
  ctx.setInterruptSummary(() => `${finished} of ${tasks.length} pulls done; pods labelled ${RUN_LABEL}=${runId} may remain (kubectl delete pod -l ${RUN_LABEL}=${runId})`);
  let timedOut = false;
  const cleanup = async (name: string): Promise<void> => {
    try {
      await client.delete(POD_RT, name, ns);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    live.delete(name);
  };
  try {
    await podSet.synced;
    await mapLimit(
      tasks,
      Math.max(1, options.parallelism),
      async (t, i) => {
        if (timedOut) return;
        live.add(t.name);
        await createOrAdopt(client, POD_RT, pods[i]!, { signal: ctx.signal });
        const pullDeadline = Math.min(Date.now() + pullTimeoutMs, deadline ?? Infinity);
        const settled = await waitUntilDeadline([podSet as LiveSet<KubeObject>], () => {
          const s = pullState(podSet.objects.get(t.name));
          return s.state === 'pulling' ? undefined : s;
        }, { deadline: pullDeadline, signal: ctx.signal, what: `${t.image} on ${t.node}` });
        if (!settled && deadline !== undefined && Date.now() >= deadline) timedOut = true;
        const outcome = settled ?? { state: 'failed', reason: 'pull timed out' };
        const r = reports.get(t.image)!;
        if (outcome.state === 'pulled') r.succeeded++;
        else {
          r.failed++;
          r.failedNodes.push(t.node);
          r.failedNodes.sort();
        }
        finished++;
        const line = `pull ${t.image}: ${r.succeeded}/${r.desired} succeeded, ${r.failed} failed${outcome.state === 'failed' ? ` (${t.node}: ${outcome.reason})` : ''}`;
        reporter.log(line);
        await cleanup(t.name);
      },
      ctx.signal,
    );
  } finally {
    podSet.stop();
    await Promise.all([...live].map((n) => cleanup(n).catch(() => undefined)));
  }
  const jobs = [...reports.values()].map((r) => ({ ...r, done: r.succeeded + r.failed >= r.desired }));
  if (timedOut) return { via: 'client', objects: [], jobs, outcome: 'timeout', message: `timed out waiting for the pre-download of ${request.what}` };
  return { via: 'client', objects: [], jobs, outcome: jobs.some((j) => j.failed > 0) ? 'failed' : 'succeeded' };
}
