// In-place restart of a Kruise workload's containers for `rollout restart`, delegated to the
// engine of `kubectl kruise restart` (ContainerRecreateRequests, batched by the workload's
// own maxUnavailable so the restart is no more disruptive than an update would be).
import type { CommandContext } from '../../cli/context';
import { ExitCode, failure } from '../../cli/exit';
import type { KubeClient, KubeObject, ResourceType } from '../../kube/client';
import { adapterFor } from '../../kruise/workloads/index';
import { mutationLine } from '../../printers/output';
import { createProgress } from '../../printers/progress';

export async function restartInPlace(ctx: CommandContext, client: KubeClient, rt: ResourceType, obj: KubeObject, timeoutMs = 0, printLine = true): Promise<number> {
  const [{ runRestart }, { workloadPods }] = await Promise.all([import('../../engine/restart'), import('../../engine/targets')]);
  const adapter = adapterFor(obj);
  const name = obj.metadata.name ?? '';
  const namespace = obj.metadata.namespace ?? client.namespace;
  const selector = adapter?.selector(obj);
  if (!adapter || !selector) throw failure(`${rt.kind.toLowerCase()} "${name}" has no pod selector`);
  const pods = await workloadPods(client, rt, obj, selector, namespace, ctx.signal);
  const progress = await createProgress(ctx.term);
  const result = await runRestart(
    ctx,
    client,
    { rt, kind: rt.kind, name, namespace, object: obj, selector, pods },
    {
      containers: [],
      maxUnavailable: String(adapter.maxUnavailable(obj) ?? 1),
      strategy: {},
      wait: true,
      timeoutMs,
      via: 'kruise',
      dryRun: 'none',
    },
    { progress: (text) => progress.update(text), log: (line) => progress.log(line) },
  );
  progress.stop();
  if (result.outcome !== 'succeeded') {
    throw failure(`restarting ${rt.kind.toLowerCase()} "${name}" in place did not succeed${result.message ? `: ${result.message}` : ''}`);
  }
  if (printLine) ctx.term.stdout.write(`${mutationLine(rt.kind, rt.group, name, 'restarted', 'none')}\n`);
  return ExitCode.OK;
}
