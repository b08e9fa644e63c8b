// `get all [-n NS | -A] [-l SEL] [-o wide|name]`: one table per Kruise kind the cluster serves and holds
// objects of, with the columns the server prints for it (the CRD's additionalPrinterColumns, asked for as a
// meta.k8s.io Table like kubectl get does), so each table matches `kubectl get <kind>`.
// Requests: discovery (cached on disk) + one list per served kind, at most GET_ALL_CONCURRENCY at once.
// Cluster-scoped kinds (SidecarSet) are listed whatever -n says, as `kubectl get sidecarsets -n NS` does.
import type { CommandContext } from '../../cli/context';
import { ExitCode, usageError } from '../../cli/exit';
import { mapLimit } from '../../engine/concurrency';
import type { ResourceType } from '../../kube/client';
import { isNotFound } from '../../kube/errors';
import { formatKindNames, formatKindTables, kindTablesView, type KindTable } from '../../printers/kind-tables';
import { parseOutputFormat } from '../../printers/output';
import { GET_ALL_CONCURRENCY, GET_ALL_KINDS } from './all-kinds';

export async function run(ctx: CommandContext, args: string[], flags: { output?: string; allNamespaces?: boolean; selector?: string }): Promise<number> {
  if (args[0] !== 'all') throw usageError(`get all takes no NAME ("${args[0]}"); use kubectl get TYPE/NAME`);
  if (args.length > 1) throw usageError(`get all takes no NAME ("${args[1]}"); use kubectl kruise get TYPE NAME or kubectl get TYPE NAME`);
  if (flags.selector !== undefined && flags.selector.trim() === '') throw usageError('-l needs a label selector (e.g. app=web)');
  const output = parseOutputFormat(flags.output, ['wide', 'name']);
  const allNamespaces = flags.allNamespaces === true;
  const client = await ctx.kube();
  try {
    const served = (await Promise.all(GET_ALL_KINDS.map((k) => client.discovered(k.group, k.resource)))).filter((rt): rt is ResourceType => rt !== undefined);
    // Like kubectl get a,b: a kind that cannot be listed (403, 5xx) does not hide the others; its error comes after them.
    const results = await mapLimit(
      served,
      GET_ALL_CONCURRENCY,
      async (rt): Promise<KindTable | { error: unknown } | undefined> => {
        try {
          const t = await client.listTable(rt, allNamespaces ? undefined : client.namespace, { labelSelector: flags.selector, signal: ctx.signal });
          return { kind: rt.kind, group: rt.group, namespaced: rt.namespaced, columns: t.columnDefinitions, rows: t.rows };
        } catch (err) {
          // Discovery came from the cache and the CRD has gone since: the kind is not served any more.
          if (isNotFound(err)) return undefined;
          return { error: err };
        }
      },
      ctx.signal,
    );
    const failed = results.find((r): r is { error: unknown } => r !== undefined && 'error' in r);
    const found = results.filter((t): t is KindTable => t !== undefined && 'rows' in t && t.rows.length > 0);
    // kubectl says "No resources found" with its tables only; -o name prints nothing at all.
    if (found.length === 0 && output.kind !== 'name' && !failed) {
      ctx.term.stderr.write(allNamespaces ? 'No resources found\n' : `No resources found in ${client.namespace} namespace.\n`);
      if (served.length === 0) ctx.term.stderr.write('hint: no OpenKruise kind (apps.kruise.io, policy.kruise.io, rollouts.kruise.io) is served by this cluster\n');
      return ExitCode.OK;
    }
    if (found.length > 0) ctx.term.stdout.write(output.kind === 'name' ? formatKindNames(found) : formatKindTables(kindTablesView(found, { allNamespaces, wide: output.kind === 'wide' })));
    if (failed) throw failed.error;
    return ExitCode.OK;
  } finally {
    client.close();
  }
}
