// What `get pps` / `describe pps` show: the recorded pod states next to where the pods sit
// now, and whether a pod carries the affinity Kruise injected from them. Pure functions.
import type { KubeObject, Pod } from '../kruise/types';
import { PPS_INJECTED_ANNOTATION } from '../kruise/builders/pps';
import { readPpsSpec, recordPodState } from '../kruise/rules/pps';
import { comparePodNames } from '../kruise/plans/restart';

export interface PodStateRow {
  pod: string;
  node: string;
  /** Recorded value per topology key (in the PPS's key order). */
  topology: Record<string, string>;
  /** Node the pod runs on now; undefined when the pod does not exist. */
  currentNode?: string;
  /** The pod exists but sits on another node than recorded. */
  elsewhere: boolean;
  exists: boolean;
  /** The pod carries the injected-persistent-pod-state annotation for this PPS. */
  injected: boolean;
  /** The pod's nodeSelector / preferred terms for the PPS's keys ("zone=a (required), hostname=node-1 (100)"). */
  affinity: string;
}

export interface PodState {
  nodeName?: string;
  nodeTopologyLabels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function recordedStates(pps: KubeObject): Record<string, PodState> {
  return ((pps.status as { podStates?: Record<string, PodState> } | undefined)?.podStates ?? {}) as Record<string, PodState>;
}

/** Topology keys in display order: required first, then preferred. */
export function topologyKeys(pps: KubeObject): string[] {
  const spec = readPpsSpec(pps);
  return [...new Set([...spec.required, ...spec.preferred.flatMap((p) => p.keys)])];
}

interface PreferredTerm {
  weight?: number;
  preference?: { matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> };
}

export function podAffinitySummary(pod: Pod, keys: readonly string[]): string {
  const parts: string[] = [];
  for (const k of keys) {
    const v = pod.spec.nodeSelector?.[k];
    if (v !== undefined) parts.push(`${k}=${v} (required)`);
  }
  const affinity = pod.spec.affinity as { nodeAffinity?: { preferredDuringSchedulingIgnoredDuringExecution?: PreferredTerm[] } } | undefined;
  for (const term of affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) {
    for (const e of term.preference?.matchExpressions ?? []) {
      if (keys.includes(e.key) && e.operator === 'In') parts.push(`${e.key}=${(e.values ?? []).join('|')} (${term.weight ?? 0})`);
    }
  }
  return parts.join(', ');
}

export function podStateRows(pps: KubeObject, pods: readonly Pod[]): PodStateRow[] {
  const keys = topologyKeys(pps);
  const byName = new Map(pods.map((p) => [p.metadata.name ?? '', p]));
  const states = recordedStates(pps);
  return Object.keys(states)
    .sort(comparePodNames)
    .map((name) => {
      const st = states[name]!;
      const pod = byName.get(name);
      const topology: Record<string, string> = {};
      for (const k of keys) topology[k] = st.nodeTopologyLabels?.[k] ?? '';
      const currentNode = pod?.spec.nodeName;
      return {
        pod: name,
        node: st.nodeName ?? '',
        topology,
        currentNode,
        exists: pod !== undefined,
        elsewhere: pod !== undefined && currentNode !== undefined && st.nodeName !== undefined && currentNode !== st.nodeName,
        injected: pod?.metadata.annotations?.[PPS_INJECTED_ANNOTATION] === pps.metadata.name,
        affinity: pod ? podAffinitySummary(pod, keys) : '',
      };
    });
}

/**
 * The pod states the controller would record now, by the controller's own rule
 * (src/kruise/rules/pps: Ready pods with a node, topology keys present on the node).
 */
export function previewPodStates(pps: KubeObject, pods: readonly Pod[], nodes: readonly KubeObject[]): Record<string, PodState> {
  const spec = readPpsSpec(pps);
  const byName = new Map(nodes.map((n) => [n.metadata.name ?? '', n]));
  const out: Record<string, PodState> = {};
  for (const pod of pods) {
    const state = recordPodState(spec, pod, byName.get(pod.spec.nodeName ?? ''));
    if (state) out[pod.metadata.name ?? ''] = state;
  }
  return out;
}
