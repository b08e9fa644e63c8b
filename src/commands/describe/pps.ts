// `describe pps [NAME]`: the PPS's topology, its recorded pod states, the pods that sit
// elsewhere than recorded, and the affinity Kruise injected into the pods.
import type { CommandContext } from '../../cli/context';
import { ExitCode } from '../../cli/exit';
import type { KubeClient } from '../../kube/client';
import type { KubeObject } from '../../kruise/types';
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

/** The describe text of one PersistentPodState (its target's pods are read for the current nodes). */
async function describeOne(client: KubeClient, pps: KubeObject, namespace: string, signal: AbortSignal): Promise<string> {
  const { ppsTargetPods } = await import('../../engine/pps');
  const { pods, targetFound } = await ppsTargetPods(client, pps, signal);
  const spec = readPpsSpec(pps);
  const ref = spec.targetRef;
  const keys = topologyKeys(pps);
  const rows = podStateRows(pps, pods);
  const field = (label: string, value: string): string => `${`${label}:`.padEnd(24)}${value}`;
  const lines: string[] = [
    field('Name', pps.metadata.name ?? ''),
    field('Namespace', pps.metadata.namespace ?? namespace),
    field('API Version', pps.apiVersion ?? ''),
    field('Target', `${ref?.kind}/${ref?.name} (${ref?.apiVersion})${targetFound ? '' : ' — not found'}`),
    field('Required Topology', spec.required.join(', ') || '<none>'),
    field('Preferred Topology', preferredByKey(spec).map((p) => `${p.key} (weight ${p.weight})`).join(', ') || '<none>'),
    field('Persistent Annotations', spec.podAnnotations.join(', ') || '<none>'),
    field('Retention Policy', spec.retention),
    field('Age', formatAge(pps.metadata.creationTimestamp)),
    field('Recorded Pod States', String(rows.length)),
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
  return text;
}

export async function run(ctx: CommandContext, args: string[]): Promise<number> {
  // Like kubectl describe: without a NAME, every PersistentPodState of the namespace.
  const name = parsePpsArgs(args[0] ?? '', args[1], 'describe', false);
  const client = await ctx.kube();
  try {
    const { ppsResourceType } = await import('../../engine/pps');
    const rt = await ppsResourceType(client);
    const all = name === undefined ? (await client.list(rt, client.namespace, { signal: ctx.signal })).items : [await client.get(rt, name, client.namespace, { signal: ctx.signal })];
    if (all.length === 0) {
      ctx.term.stderr.write(`No resources found in ${client.namespace} namespace.\n`);
      return ExitCode.OK;
    }
    const texts: string[] = [];
    for (const pps of all) texts.push(await describeOne(client, pps, client.namespace, ctx.signal));
    ctx.term.stdout.write(texts.join('\n\n'));
    return ExitCode.OK;
  } finally {
    client.close();
  }
}
