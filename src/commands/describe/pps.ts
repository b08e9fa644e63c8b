// `describe pps NAME`: the PPS's topology, its recorded pod states, the pods that sit
// elsewhere than recorded, and the affinity Kruise injected into the pods.
import type { CommandContext } from '../../cli/context';
import { ExitCode } from '../../cli/exit';
import { preferredByKey, readPpsSpec } from '../../kruise/rules/pps';
import { comparePodNames } from '../../kruise/plans/restart';
import { formatAge, formatTable } from '../../printers/table';
import { podStateRows, topologyKeys } from '../../engine/pps-view';
import { parsePpsArgs } from '../get/pps';

function indent(text: string, by = '  '): string {
  return text
    .split('\n')
    .map((l) => (l ? `${by}${l}` : l))
    .join('\n');
}

export async function run(ctx: CommandContext, args: string[]): Promise<number> {
  const name = parsePpsArgs(args[0] ?? '', args[1], 'describe', true)!;
  const client = await ctx.kube();
  try {
    const { ppsResourceType, ppsTargetPods } = await import('../../engine/pps');
    const rt = await ppsResourceType(client);
    const pps = await client.get(rt, name, client.namespace, { signal: ctx.signal });
    const { pods, targetFound } = await ppsTargetPods(client, pps, ctx.signal);
    const spec = readPpsSpec(pps);
    const ref = spec.targetRef;
    const keys = topologyKeys(pps);
    const rows = podStateRows(pps, pods);
    const lines: string[] = [
      `Name:                 ${pps.metadata.name}`,
      `Namespace:            ${pps.metadata.namespace ?? client.namespace}`,
      `API Version:          ${pps.apiVersion}`,
      `Target:               ${ref?.kind}/${ref?.name} (${ref?.apiVersion})${targetFound ? '' : ' — not found'}`,
      `Required Topology:    ${spec.required.join(', ') || '<none>'}`,
      `Preferred Topology:   ${preferredByKey(spec).map((p) => `${p.key} (weight ${p.weight})`).join(', ') || '<none>'}`,
      `Persistent Annotations: ${spec.podAnnotations.join(', ') || '<none>'}`,
      `Retention Policy:     ${spec.retention}`,
      `Age:                  ${formatAge(pps.metadata.creationTimestamp)}`,
      `Recorded Pod States:  ${rows.length}`,
    ];
    let text = `${lines.join('\n')}\n`;
    if (rows.length > 0) {
      text += indent(
        formatTable(
          ['POD', 'NODE', ...keys.map((k) => k.toUpperCase()), 'CURRENT NODE', 'INJECTED', 'AFFINITY'],
          rows.map((r) => [r.pod, r.node, ...keys.map((k) => r.topology[k] ?? ''), r.currentNode ?? '<pod gone>', r.exists ? (r.injected ? 'yes' : 'no') : '', r.affinity]),
        ),
      );
    }
    const elsewhere = rows.filter((r) => r.elsewhere);
    text += `Pods Elsewhere Than Recorded: ${elsewhere.length === 0 ? '<none>' : ''}\n`;
    for (const r of elsewhere) text += `  ${r.pod}: recorded on ${r.node}, now on ${r.currentNode}\n`;
    const unrecorded = pods.map((p) => p.metadata.name ?? '').filter((n) => !rows.some((r) => r.pod === n));
    if (unrecorded.length > 0) text += `Pods Not Recorded Yet: ${unrecorded.sort(comparePodNames).join(', ')}\n`;
    ctx.term.stdout.write(text);
    return ExitCode.OK;
  } finally {
    client.close();
  }
}
