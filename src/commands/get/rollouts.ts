// `get rollouts [NAME] [-A] [-l SEL] [-o ...]`: Kruise Rollouts as a table of the real CRD's
// additionalPrinterColumns (openkruise/rollouts v0.6.2 config/crd/bases/rollouts.kruise.io_rollouts.yaml):
// STATUS .status.phase, CANARY_STEP and CANARY_STATE (v1alpha1: .status.canaryStatus.currentStepIndex/
// currentStepState; v1beta1: .status.currentStepIndex/currentStepState), MESSAGE .status.message, AGE.
import type { CommandContext } from '../../cli/context';
import { ExitCode, usageError } from '../../cli/exit';
import type { KubeObject } from '../../kruise/types';
import { numAt, strAt } from '../../kruise/workloads/access';
import { formatObjects, parseOutputFormat } from '../../printers/output';
import { formatAge, formatTable } from '../../printers/table';
import { parseRolloutArgs, rolloutResourceType } from '../describe/rollout-source';

/** The CRD's printer column values of one Rollout, as its own apiVersion declares them. */
export function rolloutColumns(r: KubeObject): { status?: string; step?: number; state?: string; message?: string } {
  const beta = r.apiVersion === 'rollouts.kruise.io/v1beta1';
  return {
    status: strAt(r, 'status', 'phase'),
    step: beta ? numAt(r, 'status', 'currentStepIndex') : numAt(r, 'status', 'canaryStatus', 'currentStepIndex'),
    state: beta ? strAt(r, 'status', 'currentStepState') : strAt(r, 'status', 'canaryStatus', 'currentStepState'),
    message: strAt(r, 'status', 'message'),
  };
}

export function rolloutsTable(items: readonly KubeObject[], o: { withNamespace: boolean; wide: boolean; now?: number }): string {
  return formatTable(
    [...(o.withNamespace ? ['NAMESPACE'] : []), 'NAME', 'STATUS', 'CANARY_STEP', 'CANARY_STATE', 'MESSAGE', 'AGE', ...(o.wide ? ['WORKLOAD', 'STRATEGY'] : [])],
    items.map((r) => {
      const c = rolloutColumns(r);
      const beta = r.apiVersion === 'rollouts.kruise.io/v1beta1';
      const ref = beta ? (r as { spec?: { workloadRef?: { kind?: string; name?: string } } }).spec?.workloadRef : (r as { spec?: { objectRef?: { workloadRef?: { kind?: string; name?: string } } } }).spec?.objectRef?.workloadRef;
      const blueGreen = beta && (r as { spec?: { strategy?: { blueGreen?: unknown } } }).spec?.strategy?.blueGreen !== undefined;
      return [
        ...(o.withNamespace ? [r.metadata.namespace ?? ''] : []),
        r.metadata.name,
        c.status,
        c.step,
        c.state,
        c.message,
        formatAge(r.metadata.creationTimestamp, o.now),
        ...(o.wide ? [ref?.kind ? `${ref.kind}/${ref.name ?? ''}` : undefined, blueGreen ? 'blueGreen' : 'canary'] : []),
      ];
    }),
    { emptyCell: '' },
  );
}

export async function run(ctx: CommandContext, args: string[], flags: { output?: string; allNamespaces?: boolean; selector?: string }): Promise<number> {
  const { type, name } = parseRolloutArgs(args[0] ?? '', args[1], 'get');
  const allNamespaces = flags.allNamespaces === true;
  if (allNamespaces && name !== undefined) throw usageError('a resource cannot be retrieved by name across all namespaces');
  if (flags.selector !== undefined && name !== undefined) throw usageError('name cannot be provided when a selector is specified');
  if (flags.selector !== undefined && flags.selector.trim() === '') throw usageError('-l needs a label selector (e.g. app=web)');
  const output = parseOutputFormat(flags.output, ['wide', 'yaml', 'json', 'name', 'jsonpath']);
  const client = await ctx.kube();
  try {
    const rt = await rolloutResourceType(client, type);
    const out = ctx.term.stdout;
    const table = output.kind === 'default' || output.kind === 'wide';
    if (name !== undefined) {
      const r = await client.get(rt, name, client.namespace, { signal: ctx.signal });
      out.write(table ? rolloutsTable([r], { withNamespace: false, wide: output.kind === 'wide' }) : formatObjects([r], output));
      return ExitCode.OK;
    }
    const list = await client.list(rt, allNamespaces ? undefined : client.namespace, { signal: ctx.signal, labelSelector: flags.selector });
    if (!table) {
      out.write(formatObjects(list.items, output, { list: true }));
      return ExitCode.OK;
    }
    if (list.items.length === 0) {
      ctx.term.stderr.write(allNamespaces ? 'No resources found\n' : `No resources found in ${client.namespace} namespace.\n`);
      return ExitCode.OK;
    }
    out.write(rolloutsTable(list.items, { withNamespace: allNamespaces, wide: output.kind === 'wide' }));
    return ExitCode.OK;
  } finally {
    client.close();
  }
}
