// `get pps [NAME]`: the list of PersistentPodStates, or one as a table of its recorded pod
// states next to where each pod runs now.
import type { CommandContext } from '../../cli/context';
import { ExitCode, usageError } from '../../cli/exit';
import type { KubeObject } from '../../kruise/types';
import { formatObjects, parseOutputFormat, resourceName } from '../../printers/output';
import { formatAge, formatTable } from '../../printers/table';
import { podStateRows, recordedStates, topologyKeys, type PodStateRow } from '../../engine/pps-view';
import { ppsResourceType, ppsTargetPods } from '../../engine/pps';
import { apiGroupOf } from '../../kruise/api-version';
import { preferredByKey, readPpsSpec } from '../../kruise/rules/pps';
import { checkObjectName, splitTypeName } from '../type-name-args';

export const PPS_TYPES = new Set(['pps', 'persistentpodstate', 'persistentpodstates', 'persistentpodstates.apps.kruise.io', 'persistentpodstate.apps.kruise.io']);

/** `pps NAME` (or `pps/NAME`) → name; other kinds are kubectl's business. */
export function parsePpsArgs(type: string, name: string | undefined, verb: string, nameRequired: boolean): string | undefined {
  const { type: t, name: n } = splitTypeName(type, name, verb);
  if (!PPS_TYPES.has(t.toLowerCase())) throw usageError(`${verb} supports ${verb === 'get' ? 'all, pps and rollouts' : 'pps and rollout'}; use kubectl ${verb} ${type} for other kinds`);
  if (n === undefined && nameRequired) throw usageError(`${verb} pps needs a NAME`);
  checkObjectName(n);
  return n;
}

export function podStatesTable(rows: PodStateRow[], keys: string[]): string {
  return formatTable(
    ['POD', 'NODE', ...keys.map((k) => k.toUpperCase()), 'CURRENT NODE', 'STATE'],
    rows.map((r) => [r.pod, r.node, ...keys.map((k) => r.topology[k] ?? ''), r.currentNode ?? '', !r.exists ? 'pod gone' : r.elsewhere ? 'elsewhere' : 'in place']),
  );
}

function listTable(items: KubeObject[], withNamespace: boolean): string {
  return formatTable(
    [...(withNamespace ? ['NAMESPACE'] : []), 'NAME', 'TARGET', 'REQUIRED', 'PREFERRED', 'PODS', 'AGE'],
    items.map((p) => {
      const spec = readPpsSpec(p);
      const ref = spec.targetRef;
      return [
        ...(withNamespace ? [p.metadata.namespace ?? ''] : []),
        p.metadata.name,
        resourceName(ref?.kind ?? '', apiGroupOf(ref?.apiVersion), ref?.name ?? ''),
        spec.required.join(','),
        preferredByKey(spec)
          .map((x) => `${x.key}:${x.weight}`)
          .join(','),
        Object.keys(recordedStates(p)).length,
        formatAge(p.metadata.creationTimestamp),
      ];
    }),
  );
}

export async function run(ctx: CommandContext, args: string[], flags: { output?: string; allNamespaces?: boolean; selector?: string }): Promise<number> {
  const name = parsePpsArgs(args[0] ?? '', args[1], 'get', false);
  const allNamespaces = flags.allNamespaces === true;
  if (allNamespaces && name !== undefined) throw usageError('a resource cannot be retrieved by name across all namespaces');
  // kubectl's words for `get TYPE NAME -l ...`.
  if (flags.selector !== undefined && name !== undefined) throw usageError('name cannot be provided when a selector is specified');
  if (flags.selector !== undefined && flags.selector.trim() === '') throw usageError('-l needs a label selector (e.g. app=db)');
  const output = parseOutputFormat(flags.output, ['wide', 'yaml', 'json', 'name', 'jsonpath']);
  const client = await ctx.kube();
  try {
    const rt = await ppsResourceType(client);
    const out = ctx.term.stdout;
    if (name === undefined) {
      const list = await client.list(rt, allNamespaces ? undefined : client.namespace, { signal: ctx.signal, labelSelector: flags.selector });
      if (output.kind !== 'default' && output.kind !== 'wide') {
        out.write(formatObjects(list.items, output, { list: true }));
        return ExitCode.OK;
      }
      if (list.items.length === 0) {
        ctx.term.stderr.write(allNamespaces ? 'No resources found\n' : `No resources found in ${client.namespace} namespace.\n`);
        return ExitCode.OK;
      }
      out.write(listTable(list.items, allNamespaces));
      return ExitCode.OK;
    }
    const pps = await client.get(rt, name, client.namespace, { signal: ctx.signal });
    if (output.kind !== 'default' && output.kind !== 'wide') {
      out.write(formatObjects([pps], output));
      return ExitCode.OK;
    }
    const { pods } = await ppsTargetPods(client, pps, ctx.signal);
    const rows = podStateRows(pps, pods);
    if (rows.length === 0) {
      ctx.term.stderr.write(`persistentpodstate/${name} has no recorded pod states yet\n`);
      return ExitCode.OK;
    }
    out.write(podStatesTable(rows, topologyKeys(pps)));
    return ExitCode.OK;
  } finally {
    client.close();
  }
}
