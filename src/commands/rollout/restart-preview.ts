// `rollout restart --preview`: what the restart would do per pod, writing nothing. The template path
// (native kinds, ReCreate) is previewed as the restartedAt annotation change it is; in-place policies
// as the ContainerRecreateRequests the restart engine would post, in its batches.
import type { CommandContext } from '../../cli/context';
import { failure } from '../../cli/exit';
import { adapterFor } from '../../kruise/workloads/index';
import type { WorkloadPreview } from '../../kruise/preview/types';
import { previewCrrRestart } from '../../kruise/preview/crr-restart';
import type { KubeObject, Pod } from '../../kruise/types';
import { checkPreviewable, previewLive, printPreviews } from '../preview/run';
import { parsePreviewSettings } from '../preview/settings';
import { loadPods } from './revision-source';
import { noResourcesFound, readTargetObjects, resolveTargets, type TargetRefs } from './targets';
import { restartPatch } from './restart-patch';
import type { RestartOptions } from './restart-options';

/** The object with the merge patch applied to its template annotations (what the restart writes). */
function withRestartAnnotation(obj: KubeObject, pointer: string, now: Date): KubeObject {
  const next = structuredClone(obj) as Record<string, unknown>;
  let patch = restartPatch(now, pointer.split('/').slice(1)) as Record<string, unknown>;
  let target = next;
  // walk the patch and the object together down to the template's annotations
  while (patch && typeof patch === 'object') {
    const [key, value] = Object.entries(patch)[0]!;
    if (key === 'annotations') {
      target.annotations = { ...((target.annotations as Record<string, string>) ?? {}), ...(value as Record<string, string>) };
      break;
    }
    target = (target[key] ??= {}) as Record<string, unknown>;
    patch = value as Record<string, unknown>;
  }
  return next as KubeObject;
}

export async function previewRestart(ctx: CommandContext, refs: TargetRefs, opts: RestartOptions): Promise<number> {
  const settings = parsePreviewSettings(opts);
  const client = await ctx.kube();
  try {
    const objects = await readTargetObjects(client, await resolveTargets(client, 'rollout restart', refs), opts.selector);
    if (objects.length === 0) ctx.term.stderr.write(`${noResourcesFound(client.namespace)}\n`);
    const previews: WorkloadPreview[] = [];
    for (const { obj } of objects) {
      checkPreviewable(obj, 'rollout restart');
      const adapter = adapterFor(obj)!;
      if (adapter.paused(obj)) throw failure(`can't restart paused ${(obj.kind ?? '').toLowerCase()} "${obj.metadata.name ?? ''}" (run rollout resume first)`);
      const policy = adapter.updatePolicy(obj);
      if ((policy === 'InPlaceIfPossible' || policy === 'InPlaceOnly') && !adapter.restartsThroughTemplate) {
        const pods = (await loadPods(client, { ...obj, metadata: { ...obj.metadata, namespace: obj.metadata.namespace ?? client.namespace } }, adapter)) as Pod[];
        const active = pods.filter((p) => !p.metadata.deletionTimestamp && (p.metadata.ownerReferences ?? []).some((o) => o.uid === obj.metadata.uid));
        previews.push(previewCrrRestart('rollout restart', obj, active, opts.maxUnavailable ?? String(adapter.maxUnavailable(obj) ?? 1)));
        continue;
      }
      previews.push(await previewLive(client, 'rollout restart', obj, withRestartAnnotation(obj, adapter.templatePointer(obj), new Date()), settings));
    }
    return printPreviews(ctx, previews, settings);
  } finally {
    client.close();
  }
}
