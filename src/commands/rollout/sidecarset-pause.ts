// `rollout pause|resume sidecarset/NAME...`: spec.updateStrategy.paused (sidecarset_types.go
// SidecarSetUpdateStrategy.Paused: the controller stops upgrading pods, injection goes on).
// One GET and one merge PATCH per SidecarSet (cluster-scoped: no namespace), re-decided on 409.
import type { CommandContext } from '../../cli/context';
import { ExitCode, exitCodeOf, failure } from '../../cli/exit';
import type { KubeClient, KubeObject } from '../../kube/client';
import { retryOnConflict } from '../../kube/conflict';
import { readSidecarSet, sidecarSetPausePatch } from '../../kruise/workloads/sidecarset';
import { formatObjects, mutationLine, type OutputFormat } from '../../printers/output';
import type { SidecarSetTargets } from './sidecarset-status';

export async function pauseSidecarSets(ctx: CommandContext, client: KubeClient, t: SidecarSetTargets, paused: boolean, format: OutputFormat): Promise<number> {
  let names = t.names;
  if (t.selector !== undefined) {
    names = (await client.list(t.rt, undefined, t.selector ? { labelSelector: t.selector } : {})).items.map((i) => i.metadata.name ?? '');
    if (names.length === 0) ctx.term.stderr.write('No resources found\n');
  }
  let code: number = ExitCode.OK;
  const printed: KubeObject[] = [];
  for (const name of names) {
    try {
      const patched = await retryOnConflict(
        async () => {
          const obj = await client.get(t.rt, name);
          if (readSidecarSet(obj).paused === paused) return undefined;
          return client.patch(t.rt, name, 'merge', sidecarSetPausePatch(paused));
        },
        {
          attempts: 3,
          exhausted: (last, attempts) => failure(`sidecarset.apps.kruise.io "${name}" was not ${paused ? 'paused' : 'resumed'}: it kept changing (${attempts} attempts)`, `hint: last server answer: ${last.message}`),
        },
      );
      if (!patched) {
        ctx.term.stderr.write(`error: sidecarset.apps.kruise.io "${name}" ${paused ? 'is already paused' : 'is not paused'}\n`);
        code = Math.max(code, ExitCode.FAILED);
      } else if (format.kind !== 'default') printed.push(patched);
      else ctx.term.stdout.write(`${mutationLine('SidecarSet', 'apps.kruise.io', name, paused ? 'paused' : 'resumed', 'none')}\n`);
    } catch (err) {
      if (names.length === 1) throw err;
      ctx.term.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      code = Math.max(code, exitCodeOf(err));
    }
  }
  if (printed.length > 0) ctx.term.stdout.write(formatObjects(printed, format));
  return code;
}
