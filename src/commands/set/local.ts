// `set ... --local -f FILE`: edit the manifests in memory and print them. Never loads
// the Kubernetes client, so it works without any cluster or kubeconfig.
import type { CommandContext } from '../../cli/context';
import { applyJsonPatch } from '../../kruise/containers';
import { formatOutcomes, planAll, type EditRequest, type EditOutcome } from './edit';
import { readManifests } from './manifests';
import { editableProblem } from './targets';
import { usageError } from '../../cli/exit';
import { apiGroupOf } from '../../kruise/api-version';

export function runLocalEdit(ctx: CommandContext, files: readonly string[], req: EditRequest): number {
  const manifests = readManifests(files, req.command);
  // The kinds the verb edits, as against a cluster (cluster.ts fetchTargets): `set subject` on a ServiceAccount is exit 2, not a `subjects:` key.
  for (const { object, source } of manifests) {
    const problem = editableProblem(apiGroupOf(object.apiVersion), object.kind ?? '', `${(object.kind ?? '').toLowerCase()}s`, req.command);
    if (problem) throw usageError(`${problem} (${object.kind} "${object.metadata.name}" in ${source})`);
  }
  const objects = manifests.map((m) => m.object);
  const planned = planAll(objects, req, (line) => ctx.term.stderr.write(`${line}\n`));
  const outcomes: EditOutcome[] = planned.map((p) => ({ obj: p.ops.length > 0 ? applyJsonPatch(p.obj, p.ops) : p.obj, changed: p.ops.length > 0 }));
  // Nothing is sent anywhere: report it like a client dry run.
  ctx.term.stdout.write(formatOutcomes(outcomes, { ...req, dryRun: req.output.kind === 'default' ? 'client' : req.dryRun }));
  return 0;
}
