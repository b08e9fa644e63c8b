// `rollout restart sidecarset/NAME`: a SidecarSet has no pod template to annotate, so every one of
// its sidecars is restarted in place in the matched pods (ContainerRecreateRequests, the `restart`
// engine), batched by the SidecarSet's own maxUnavailable (default 1) unless --max-unavailable says.
import type { CommandContext } from '../../cli/context';
import { CliError, ExitCode, failure } from '../../cli/exit';
import type { KubeClient } from '../../kube/client';
import { readSidecarSet, sidecarNames } from '../../kruise/workloads/sidecarset';
import { mutationLine } from '../../printers/output';
import { withProgress } from '../../printers/progress';
import type { SidecarSetTargets } from './sidecarset-status';

export async function rolloutRestartSidecarSets(ctx: CommandContext, client: KubeClient, t: SidecarSetTargets, o: { timeoutMs: number; maxUnavailable?: string }): Promise<number> {
  const names = t.selector === undefined ? t.names : (await client.list(t.rt, undefined, t.selector ? { labelSelector: t.selector } : {})).items.map((i) => i.metadata.name ?? '');
  if (names.length === 0) ctx.term.stderr.write('No resources found\n');
  const { restartSidecarSet } = await import('../restart/sidecarset');
  for (const name of names) {
    const view = readSidecarSet(await client.get(t.rt, name));
    if (view.paused) throw failure(`can't restart paused sidecarset "${name}" (run rollout resume first)`);
    ctx.term.stdout.write(`sidecarset.apps.kruise.io/${name} has no pod template: restarting its sidecars (${sidecarNames(view).join(', ')}) in place through ContainerRecreateRequests\n`);
    const result = await withProgress(
      ctx.term,
      (reporter) =>
        restartSidecarSet(
          ctx,
          client,
          t.rt,
          name,
          {
            containers: sidecarNames(view),
            maxUnavailable: o.maxUnavailable ?? String(view.maxUnavailable ?? 1),
            strategy: {},
            wait: true,
            timeoutMs: o.timeoutMs,
            via: 'kruise',
            dryRun: 'none',
          },
          reporter,
        ),
      { liveTextOnlyOnTty: true },
    );
    if (result.outcome === 'timeout') throw new CliError(result.message ?? `timed out restarting sidecarset "${name}" in place`, ExitCode.TIMEOUT);
    if (result.outcome !== 'succeeded') throw failure(`restarting sidecarset "${name}" in place did not succeed${result.message ? `: ${result.message}` : ''}`);
    ctx.term.stdout.write(`${mutationLine('SidecarSet', 'apps.kruise.io', name, 'restarted', 'none')}\n`);
  }
  return ExitCode.OK;
}
