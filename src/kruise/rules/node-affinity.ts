// Node selection by a pod spec, as the Kubernetes scheduler and the DaemonSet controllers read
// it: nodeSelector plus required node affinity. One implementation for the sandbox scheduler,
// the (Advanced) DaemonSet rules and anything else that asks "does this pod belong on that node?".
import type { KubeObject } from '../types';

export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

interface NodeAffinitySpec {
  nodeSelector?: Record<string, string>;
  affinity?: unknown;
}

/** A node-affinity requirement over labels: In, NotIn, Exists, DoesNotExist, Gt, Lt (integers); anything else matches nothing. */
export function nodeRequirementMatches(req: NodeSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, req.key);
  const value = labels[req.key];
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return has && values.includes(value!);
    case 'NotIn':
      return !has || !values.includes(value!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      if (!has || values.length !== 1) return false;
      const a = Number.parseInt(value!, 10);
      const b = Number.parseInt(values[0]!, 10);
      if (Number.isNaN(a) || Number.isNaN(b)) return false;
      return req.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/** A node selector term: every expression (labels) and field (metadata.name) must match; an empty term matches nothing. */
export function nodeMatchesTerm(term: NodeSelectorTerm, node: KubeObject): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  const nodeFields = { 'metadata.name': node.metadata.name ?? '' };
  return exprs.every((r) => nodeRequirementMatches(r, labels)) && fields.every((r) => nodeRequirementMatches(r, nodeFields));
}

/** Whether a pod of this spec may run on the node: its nodeSelector and any required node-affinity term. */
export function podSpecFitsNode(spec: NodeAffinitySpec, node: KubeObject): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const affinity = spec.affinity as { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] } } } | undefined;
  const terms = affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return !terms || terms.some((t) => nodeMatchesTerm(t, node));
}
