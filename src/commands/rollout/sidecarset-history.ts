// `rollout history|undo sidecarset/NAME`: the SidecarSet's ControllerRevisions (in kruise-system,
// labelled kruise.io/sidecarset-name) as a table, and undo as a merge patch restoring a revision's
// sidecar fields (src/kruise/sidecarset-revisions.ts), guarded by the resourceVersion read.
import type { CommandContext } from '../../cli/context';
import { ExitCode, failure, usageError } from '../../cli/exit';
import type { KubeClient, KubeObject } from '../../kube/client';
import { retryOnConflict } from '../../kube/conflict';
import { labelSelectorString } from '../../kruise/selectors';
import { sidecarSetHistory, sidecarSetUndo, SIDECARSET_REVISION_LABEL, SIDECARSET_REVISION_NAMESPACE } from '../../kruise/sidecarset-revisions';
import type { Pod } from '../../kruise/types';
import { readSidecarSet, sidecarSetMatchesPod } from '../../kruise/workloads/sidecarset';
import { formatObjects, mutationLine, type DryRunMode, type OutputFormat } from '../../printers/output';
import { formatTable } from '../../printers/table';
import type { SidecarSetTargets } from './sidecarset-status';

async function revisionsOf(client: KubeClient, name: string): Promise<KubeObject[]> {
  const rt = await client.resolve('controllerrevisions.apps');
  return (await client.list(rt, SIDECARSET_REVISION_NAMESPACE, { labelSelector: `${SIDECARSET_REVISION_LABEL}=${name}` })).items;
}

function oneName(t: SidecarSetTargets, verb: string): string {
  if (t.selector !== undefined || t.names.length !== 1) throw usageError(`${verb} of SidecarSets takes exactly one sidecarset/NAME`);
  return t.names[0]!;
}

export async function sidecarSetHistoryCommand(ctx: CommandContext, client: KubeClient, t: SidecarSetTargets, format: OutputFormat): Promise<number> {
  const name = oneName(t, 'rollout history');
  const obj = await client.get(t.rt, name);
  const view = readSidecarSet(obj);
  const podRt = await client.resolve('pods');
  const selector = labelSelectorString(view.selector);
  const pods = selector ? (await client.list<Pod>(podRt, view.namespace, { labelSelector: selector, limit: 500 })).items.filter((p) => sidecarSetMatchesPod(view, p)) : [];
  const rows = sidecarSetHistory(view, await revisionsOf(client, name), pods);
  if (format.kind === 'json' || format.kind === 'yaml' || format.kind === 'jsonpath') {
    ctx.term.stdout.write(formatObjects([{ apiVersion: 'v1', kind: 'SidecarSetHistory', metadata: { name }, revisions: rows } as unknown as KubeObject], format));
    return ExitCode.OK;
  }
  if (format.kind === 'name') {
    ctx.term.stdout.write(`sidecarset.apps.kruise.io/${name}\n`);
    return ExitCode.OK;
  }
  ctx.term.stdout.write(`sidecarset.apps.kruise.io/${name}\n`);
  if (rows.length === 0) {
    ctx.term.stdout.write(`No revisions recorded (Kruise keeps them as ControllerRevisions in ${SIDECARSET_REVISION_NAMESPACE}).\n`);
    return ExitCode.OK;
  }
  ctx.term.stdout.write(formatTable(['REVISION', 'IMAGES', 'PODS'], rows.map((r) => [`${r.revision}${r.current ? ' (current)' : ''}`, r.images.join(','), String(r.pods)])));
  return ExitCode.OK;
}

export async function sidecarSetUndoCommand(
  ctx: CommandContext,
  client: KubeClient,
  t: SidecarSetTargets,
  o: { toRevision?: number; dryRun: DryRunMode; format: OutputFormat },
): Promise<number> {
  const name = oneName(t, 'rollout undo');
  const result = await retryOnConflict(async () => {
    const obj = await client.get(t.rt, name);
    const view = readSidecarSet(obj);
    const decision = sidecarSetUndo(obj, view, await revisionsOf(client, name), o.toRevision);
    if (!decision.ok) throw decision.usage ? usageError(decision.reason) : failure(decision.reason);
    if (o.dryRun === 'client') return { obj, to: decision.to.revision };
    const patched = await client.patch(t.rt, name, 'merge', decision.patch, undefined, { dryRun: o.dryRun === 'server' });
    return { obj: patched, to: decision.to.revision };
  });
  if (o.format.kind !== 'default') ctx.term.stdout.write(formatObjects([result.obj], o.format));
  else ctx.term.stdout.write(`${mutationLine('SidecarSet', 'apps.kruise.io', name, 'rolled back', o.dryRun)}\n`);
  return ExitCode.OK;
}
