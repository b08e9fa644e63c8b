// `set ... --local -f FILE`: edit the manifests in memory and print them. Never loads
// the Kubernetes client, so it works without any cluster or kubeconfig.
import type { CommandContext } from '../../cli/context';
import { applyJsonPatch } from '../../kruise/containers';
import { formatOutcomes, planAll, type EditRequest, type EditOutcome } from './edit';
import { readManifests } from './manifests';

export function runLocalEdit(ctx: CommandContext, files: readonly string[], req: EditRequest): number {
  const objects = readManifests(files, req.command).map((m) => m.object);
  const planned = planAll(objects, req, (line) => ctx.term.stderr.write(`${line}\n`));
  const outcomes: EditOutcome[] = planned.map((p) => ({ obj: p.ops.length > 0 ? applyJsonPatch(p.obj, p.ops) : p.obj, changed: p.ops.length > 0 }));
  // Nothing is sent anywhere: report it like a client dry run.
  ctx.term.stdout.write(formatOutcomes(outcomes, { ...req, dryRun: req.output.kind === 'default' ? 'client' : req.dryRun }));
  return 0;
}
