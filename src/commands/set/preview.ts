// `set image|env|resources --preview`: the same planning as the edit (planAll), then the preview of
// each edited object instead of a write. --local previews the -f manifests offline.
import type { CommandContext } from '../../cli/context';
import { usageError } from '../../cli/exit';
import { applyJsonPatch } from '../../kruise/containers';
import { apiGroupOf } from '../../kruise/api-version';
import type { WorkloadPreview } from '../../kruise/preview/types';
import { checkPreviewable, previewLive, previewOffline, printPreviews } from '../preview/run';
import type { PreviewSettings } from '../preview/settings';
import { planAll, type EditRequest } from './edit';
import { readManifests } from './manifests';
import { editableProblem } from './targets';
import type { CommonSettings } from './options';

export async function runEditPreview(ctx: CommandContext, common: CommonSettings, req: EditRequest, settings: PreviewSettings): Promise<number> {
  // Refusals (InPlaceOnly) are part of the preview: plan like --local, which warns instead of throwing; the preview says it.
  const planReq: EditRequest = { ...req, local: true };
  const quiet = (): void => undefined;
  const previews: WorkloadPreview[] = [];
  if (common.selection.local) {
    const manifests = readManifests(common.selection.files, req.command);
    for (const { object, source } of manifests) {
      const problem = editableProblem(apiGroupOf(object.apiVersion), object.kind ?? '', `${(object.kind ?? '').toLowerCase()}s`, req.command);
      if (problem) throw usageError(`${problem} (${object.kind} "${object.metadata.name}" in ${source})`);
      checkPreviewable(object, req.command);
    }
    const planned = planAll(manifests.map((m) => m.object), planReq, quiet);
    for (const p of planned) previews.push(previewOffline(req.command, p.obj, p.ops.length > 0 ? applyJsonPatch(p.obj, p.ops) : p.obj, settings));
    return printPreviews(ctx, previews, settings);
  }
  const { fetchTargets } = await import('./cluster');
  const client = await ctx.kube();
  try {
    const live = await fetchTargets(client, common.selection, req.command);
    if (live.length === 0) {
      ctx.term.stderr.write(`No resources found in ${client.namespace} namespace.\n`);
      return 0;
    }
    for (const l of live) checkPreviewable(l.obj, req.command);
    const planned = planAll(live.map((l) => l.obj), planReq, quiet);
    for (const p of planned) previews.push(await previewLive(client, req.command, p.obj, p.ops.length > 0 ? applyJsonPatch(p.obj, p.ops) : p.obj, settings));
    return printPreviews(ctx, previews, settings);
  } finally {
    client.close();
  }
}
