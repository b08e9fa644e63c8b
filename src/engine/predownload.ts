// The predownload operation: decide which images go to which nodes (a workload's new
// template images on the nodes of its old pods, or explicit images and nodes), then either
// post ImagePullJob/ImageListPullJob for Kruise's daemon or pull client-side with pods.
import type { CommandContext } from '../cli/context';
import type { KubeClient, KubeObject } from '../kube/client';
import type { Container } from '../kruise/types';
import type { PullJobOptions, PullTarget } from '../kruise/builders/imagepulljob';
import type { DryRunMode } from '../printers/output';
import { failure } from '../cli/exit';
import { planWorkloadPredownload } from '../kruise/plans/predownload';
import type { Via } from './restart';
import type { WorkloadTarget } from './targets';

export interface PredownloadOptions extends PullJobOptions {
  parallelism: number;
  wait: boolean;
  /** Overall wait (exit 3); 0 = none. */
  timeoutMs: number;
  via: Via;
  dryRun: DryRunMode;
}

/** What to pull where, and a base for job names. */
export interface PredownloadRequest {
  images: string[];
  target: PullTarget;
  /** Nodes known up front (workload plan / --nodes), for the client engine and messages. */
  nodes?: string[];
  nameBase: string;
  namespace: string;
  /** e.g. "cloneset/web" for messages. */
  what: string;
}

export interface PredownloadReporter {
  /** Progress counts: spinner text on a TTY, a line per change otherwise. */
  progress(text: string): void;
  log(line: string): void;
}

export interface JobReport {
  /** "imagepulljob/x", or "pull IMAGE" for the client engine. */
  name: string;
  images: string[];
  desired: number;
  succeeded: number;
  failed: number;
  failedNodes: string[];
  done: boolean;
}

export interface PredownloadResult {
  via: 'kruise' | 'client';
  objects: KubeObject[];
  jobs: JobReport[];
  outcome: 'succeeded' | 'failed' | 'created' | 'dry-run' | 'timeout' | 'nothing';
  message?: string;
}

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
  if (!plan) return undefined;
  return {
    images: plan.images,
    target: plan.target,
    nodes: plan.nodes,
    nameBase: `${target.name}-predownload`,
    namespace: target.namespace,
    what: `${target.kind.toLowerCase()}/${target.name}`,
  };
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
