// `create pps --preview` and the wait for a Kruise-generated PPS (--auto).
import type { KubeClient, KubeObject, ResourceType } from '../../kube/client';
import type { Pod } from '../../kruise/types';
import { formatTable } from '../../printers/table';
import { comparePodNames } from '../../kruise/plans/restart';
import { previewPodStates, topologyKeys } from '../../engine/pps-view';
import { NODE_RT } from '../../engine/targets';
import { watchSet, waitUntilDeadline } from '../../engine/live';

export async function previewTable(client: KubeClient, pps: KubeObject, pods: Pod[], signal?: AbortSignal): Promise<string> {
  const nodes = (await client.list(NODE_RT, undefined, { signal })).items;
  const states = previewPodStates(pps, pods, nodes);
  const keys = topologyKeys(pps);
  const names = Object.keys(states).sort(comparePodNames);
  const skipped = pods.map((p) => p.metadata.name ?? '').filter((n) => !names.includes(n));
  const table = formatTable(
    ['POD', 'NODE', ...keys.map((k) => k.toUpperCase())],
    names.map((n) => [n, states[n]!.nodeName, ...keys.map((k) => states[n]!.nodeTopologyLabels?.[k] ?? '')]),
  );
  return `${table}${skipped.length > 0 ? `not recorded (not Ready or not scheduled): ${skipped.join(', ')}\n` : ''}`;
}

export async function waitForGenerated(client: KubeClient, ppsRt: ResourceType, name: string, namespace: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
  const set = watchSet(client, ppsRt, namespace, { fieldSelector: `metadata.name=${name}`, signal });
  try {
    return (await waitUntilDeadline([set], () => set.objects.has(name), { deadline: Date.now() + timeoutMs, signal, what: `persistentpodstate ${name}` })) !== undefined;
  } finally {
    set.stop();
  }
}
