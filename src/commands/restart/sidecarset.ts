// `restart sidecarset/NAME -c SIDECAR[,...]`: restarts the named sidecars in place in the pods the
// SidecarSet matched, through ContainerRecreateRequests, batched by --max-unavailable, with the
// same engine (and lease, resume, progress) as `restart cloneset/...`. A SidecarSet is
// cluster-scoped and its pods live in many namespaces: one run per namespace, one after the other
// (CRRs and the lease are namespaced), so no more than --max-unavailable pods restart at once.
import type { CommandContext } from '../../cli/context';
import { failure, usageError } from '../../cli/exit';
import type { KubeClient, ResourceType } from '../../kube/client';
import type { RestartOptions, RestartReporter, RestartResult } from '../../engine/restart-types';
import type { WorkloadTarget } from '../../engine/targets';
import type { LabelSelectorShape } from '../../kruise/builders/imagepulljob';
import { labelSelectorString } from '../../kruise/selectors';
import type { Pod } from '../../kruise/types';
import { readSidecarSet, sidecarNames, sidecarSetMatchesPod, type SidecarSetView } from '../../kruise/workloads/sidecarset';
import { multiNamespaceResume, type MultiNamespaceResume, type RestartRunRecord } from '../../kruise/plans/restart-run';
import { shortHash } from '../../kruise/builders/hash';

const POD_RT: ResourceType = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

/** -c is required and names only sidecars of the SidecarSet (its init containers are not restartable: they ran once). */
export function checkSidecarContainers(view: SidecarSetView, containers: readonly string[]): void {
  const sidecars = sidecarNames(view);
  if (containers.length === 0) {
    throw usageError(`restart sidecarset/${view.name} needs -c SIDECAR: the SidecarSet restarts only its own containers (${sidecars.join(', ') || 'none'})`);
  }
  const unknown = containers.filter((c) => !sidecars.includes(c));
  if (unknown.length > 0) {
    throw usageError(`sidecarset "${view.name}" has no sidecar container "${unknown[0]}" (its sidecars: ${sidecars.join(', ') || 'none'}); nothing was created`);
  }
}

async function matchedPods(client: KubeClient, view: SidecarSetView, namespace: string | undefined, signal: AbortSignal): Promise<Pod[]> {
  const selector = labelSelectorString(view.selector);
  if (selector === '') throw failure(`sidecarset "${view.name}" has an empty selector`);
  const pods = (await client.list<Pod>(POD_RT, namespace, { labelSelector: selector, signal, limit: 500 })).items;
  return pods.filter((p) => sidecarSetMatchesPod(view, p));
}

export async function restartSidecarSet(
  ctx: CommandContext,
  client: KubeClient,
  rt: ResourceType,
  name: string,
  options: RestartOptions,
  reporter: RestartReporter,
): Promise<RestartResult> {
  if (options.via === 'client') throw usageError('restart sidecarset/NAME restarts sidecars in place through ContainerRecreateRequests: --via=client would recreate other workloads\' pods');
  const object = await client.get(rt, name);
  const view = readSidecarSet(object);
  checkSidecarContainers(view, options.containers);
  const pods = await matchedPods(client, view, view.namespace, ctx.signal);
  if (pods.length === 0) throw failure(`sidecarset/${name} has no matched pods to restart`);
  const byNamespace = new Map<string, Pod[]>();
  for (const p of pods) {
    const ns = p.metadata.namespace ?? '';
    byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), p]);
  }
  const { runRestart } = await import('../../engine/restart');
  const current = [...byNamespace.keys()].sort();
  // One run over every namespace: a rerun after an interruption continues it, skipping the namespaces it finished.
  const resume = options.dryRun === 'none' ? await resumeOf(client, name, current, options.containers, ctx.signal) : undefined;
  const parent = resume ? { id: resume.id, namespaces: resume.namespaces } : { id: shortHash(`${object.metadata.uid ?? name}|${options.containers.join(',')}|${Date.now()}|${Math.random()}`, 8), namespaces: current };
  const namespaces = [...parent.namespaces, ...current.filter((ns) => !parent.namespaces.includes(ns))].filter((ns) => byNamespace.has(ns));
  if (resume && resume.done.length > 0) reporter.log(`resuming restart ${resume.id} of sidecarset/${name}, which did not finish: namespace${resume.done.length === 1 ? '' : 's'} ${resume.done.join(', ')} done, not restarted again`);
  const results: Array<{ ns: string; r: RestartResult }> = [];
  for (const ns of namespaces) {
    if (resume?.done.includes(ns)) continue;
    if (namespaces.length > 1) reporter.log(`namespace ${ns}: ${byNamespace.get(ns)!.length} matched pods`);
    const target: WorkloadTarget = {
      rt,
      kind: 'SidecarSet',
      name,
      namespace: ns,
      object,
      selector: view.selector as LabelSelectorShape,
      pods: byNamespace.get(ns)!,
      relistPods: (signal) => matchedPods(client, view, ns, signal),
    };
    const r = await runRestart(ctx, client, target, { ...options, via: 'kruise', parent }, reporter);
    results.push({ ns, r });
    if (r.outcome === 'failed' || r.outcome === 'timeout') break;
  }
  return mergeResults(results, namespaces.length > 1);
}

/** The whole run a rerun continues, from the record on each namespace's restart lease (restart-run.ts). */
async function resumeOf(client: KubeClient, name: string, namespaces: readonly string[], containers: readonly string[], signal: AbortSignal): Promise<MultiNamespaceResume | undefined> {
  const { restartLeaseState } = await import('../../engine/restart-lease');
  const records = new Map<string, RestartRunRecord | undefined>();
  for (const ns of namespaces) records.set(ns, (await restartLeaseState(client, ns, 'SidecarSet', name, `sidecarset/${name}`, signal)).previous);
  return multiNamespaceResume(records, 'kruise', containers);
}

/** One result for the whole SidecarSet: the worst outcome, every row (pods prefixed by namespace when several). */
function mergeResults(all: Array<{ ns: string; r: RestartResult }>, prefix: boolean): RestartResult {
  const order: RestartResult['outcome'][] = ['dry-run', 'created', 'succeeded', 'failed', 'timeout'];
  const results = all.map((x) => x.r);
  const worst = results.reduce((a, r) => (order.indexOf(r.outcome) > order.indexOf(a.outcome) ? r : a));
  return {
    via: 'kruise',
    runId: results[0]?.runId,
    rows: all.flatMap(({ ns, r }) => r.rows.map((row) => ({ ...row, pod: prefix ? `${ns}/${row.pod}` : row.pod }))),
    objects: results.flatMap((r) => r.objects),
    batches: results.reduce((n, r) => n + r.batches, 0),
    outcome: worst.outcome,
    message: worst.message,
  };
}
