// The predownload operation: decide which images go to which nodes (a workload's new
// template images on the nodes of its old pods, or explicit images and nodes), then either
// post ImagePullJob/ImageListPullJob for Kruise's daemon or pull client-side with pods.
import type { CommandContext } from '../cli/context';
import type { KubeClient } from '../kube/client';
import type { Container } from '../kruise/types';
import type { PullTarget } from '../kruise/builders/imagepulljob';
import type { PredownloadOptions, PredownloadReporter, PredownloadRequest, PredownloadResult } from './predownload-types';
import { failure } from '../cli/exit';
import { planWorkloadImages, planWorkloadPredownload } from '../kruise/plans/predownload';
import type { Via } from './restart-types';
import { NODE_RT, type WorkloadTarget } from './targets';
import { isForbidden } from '../kube/errors';
import { labelSelectorString } from '../kruise/selectors';

export type { JobReport, PredownloadOptions, PredownloadReporter, PredownloadRequest, PredownloadResult } from './predownload-types';

/** A workload's request: template images not run yet by its pods, on their nodes. Undefined when there is nothing to pull. */
export function workloadRequest(target: WorkloadTarget): PredownloadRequest | undefined {
  const spec = (target.object as { spec?: { template?: { spec?: { containers?: Container[]; initContainers?: Container[] } } } }).spec;
  const tpl = spec?.template?.spec;
  const status = (target.object as { status?: { updateRevision?: string } }).status;
  const plan = planWorkloadPredownload({
    templateContainers: [...(tpl?.containers ?? []), ...(tpl?.initContainers ?? [])],
    pods: target.pods,
    selector: target.selector,
    updateRevision: status?.updateRevision,
  });
  return plan && requestOnWorkloadNodes(target, plan, `${target.kind.toLowerCase()}/${target.name}`);
}

/** `predownload TYPE/NAME --image ...`: the given images on the nodes of the workload's pods (undefined: no pod on a node). */
export function workloadImagesRequest(target: WorkloadTarget, images: readonly string[]): PredownloadRequest | undefined {
  const plan = planWorkloadImages({ images, pods: target.pods });
  return plan && requestOnWorkloadNodes(target, plan, `${plan.images.join(', ')} for ${target.kind.toLowerCase()}/${target.name}`);
}

/** A workload's plan as a request: jobs named after the workload, in its namespace. */
function requestOnWorkloadNodes(target: WorkloadTarget, plan: Pick<PredownloadRequest, 'images' | 'target' | 'nodes'>, what: string): PredownloadRequest {
  return { images: plan.images, target: plan.target, nodes: plan.nodes, nameBase: `${target.name}-predownload`, namespace: target.namespace, what };
}

/**
 * Explicit nodes must exist and a node selector must match some node: otherwise Kruise would
 * report a job of 0 nodes as done (and client-side pull pods pinned to a missing node would wait
 * forever). Read-only; a user who may not list nodes skips the check rather than fail.
 */
export async function checkPullNodes(client: KubeClient, target: PullTarget, signal: AbortSignal): Promise<void> {
  if (target.kind === 'pods') return;
  const labelSelector = target.kind === 'nodeSelector' ? labelSelectorString({ matchLabels: target.matchLabels }) : undefined;
  let names: Set<string>;
  try {
    names = new Set((await client.list(NODE_RT, undefined, { labelSelector, signal })).items.map((n) => n.metadata.name ?? ''));
  } catch (err) {
    if (isForbidden(err)) return;
    throw err;
  }
  if (target.kind === 'nodes') {
    const missing = target.names.filter((n) => !names.has(n));
    if (missing.length > 0) throw failure(`${missing.length === 1 ? `node "${missing[0]}"` : `nodes ${missing.map((n) => `"${n}"`).join(', ')}`} not found; nothing was created`);
  } else if (names.size === 0) {
    throw failure(target.kind === 'nodeSelector' ? `no node matches --node-selector ${labelSelector}; nothing was created` : 'the cluster has no nodes; nothing was created');
  }
}

export async function choosePullExecutor(client: KubeClient, via: Via): Promise<'kruise' | 'client'> {
  if (via === 'client') return 'client';
  if (await client.isServed('apps.kruise.io', 'imagepulljobs')) return 'kruise';
  if (via === 'kruise') throw failure('this cluster does not serve imagepulljobs.apps.kruise.io (is OpenKruise installed?)', 'hint: --via=client pulls with short-lived pods instead');
  return 'client';
}

export async function runPredownload(ctx: CommandContext, client: KubeClient, request: PredownloadRequest, options: PredownloadOptions, reporter: PredownloadReporter): Promise<PredownloadResult> {
  const via = await choosePullExecutor(client, options.via);
  if (via === 'kruise') {
    const { pullWithJobs } = await import('./predownload-kruise');
    return pullWithJobs(ctx, client, request, options, reporter);
  }
  if (options.via === 'auto') reporter.log('ImagePullJobs are not served by this cluster: pulling with short-lived pods instead');
  const { pullWithPods } = await import('./predownload-client');
  return pullWithPods(ctx, client, request, options, reporter);
}
