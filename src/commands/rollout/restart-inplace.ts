// In-place restart of a Kruise workload's containers for `rollout restart`, delegated to the
// engine of `kubectl kruise restart` (ContainerRecreateRequests, batched by the workload's
// own maxUnavailable so the restart is no more disruptive than an update would be).
import type { CommandContext } from '../../cli/context';
import { CliError, ExitCode, failure } from '../../cli/exit';
import type { KubeClient, KubeObject, ResourceType } from '../../kube/client';
import { adapterFor } from '../../kruise/workloads/index';
import { mutationLine } from '../../printers/output';
import { withProgress } from '../../printers/progress';

export interface InPlaceOptions {
  /** 0 = no limit. */
  timeoutMs: number;
  /** --max-unavailable; default: the workload's own maxUnavailable. */
  maxUnavailable?: string;
}

export async function restartInPlace(ctx: CommandContext, client: KubeClient, rt: ResourceType, obj: KubeObject, opts: InPlaceOptions, printLine = true): Promise<number> {
  const [{ runRestart }, { workloadPods }] = await Promise.all([import('../../engine/restart'), import('../../engine/targets')]);
  const adapter = adapterFor(obj);
  const name = obj.metadata.name ?? '';
  const namespace = obj.metadata.namespace ?? client.namespace;
  const selector = adapter?.selector(obj);
  if (!adapter || !selector) throw failure(`${rt.kind.toLowerCase()} "${name}" has no pod selector`);
  const pods = await workloadPods(client, rt, obj, selector, namespace, ctx.signal);
  // Like `restart`: one line per batch, the live counts only on a terminal.
  const result = await withProgress(
    ctx.term,
    (reporter) =>
      runRestart(
        ctx,
        client,
        { rt, kind: rt.kind, name, namespace, object: obj, selector, pods },
        {
          containers: [],
          maxUnavailable: opts.maxUnavailable ?? String(adapter.maxUnavailable(obj) ?? 1),
          strategy: {},
          wait: true,
          timeoutMs: opts.timeoutMs,
          via: 'kruise',
          dryRun: 'none',
        },
        reporter,
      ),
    { liveTextOnlyOnTty: true },
  );
  if (result.outcome === 'timeout') throw new CliError(result.message ?? `timed out restarting ${rt.kind.toLowerCase()} "${name}" in place`, ExitCode.TIMEOUT);
  if (result.outcome !== 'succeeded') {
    throw failure(`restarting ${rt.kind.toLowerCase()} "${name}" in place did not succeed${result.message ? `: ${result.message}` : ''}`);
  }
  if (printLine) ctx.term.stdout.write(`${mutationLine(rt.kind, rt.group, name, 'restarted', 'none')}\n`);
  return ExitCode.OK;
}
