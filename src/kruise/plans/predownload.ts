// Planning a pre-download for a workload: which images of its template its current pods do
// not run yet, and on which nodes (those of the pods that will have to pull them).
import type { Container, Pod } from '../types';
import type { LabelSelectorShape, PullTarget } from '../builders/imagepulljob';
import { labelSelectorMatches } from '../selectors';
import { REVISION_HASH_LABEL, revisionHash } from '../rules/revisions';

export interface ImageNeed {
  container: string;
  image: string;
  /** Pods whose container runs another image. */
  pods: string[];
  nodes: string[];
}

export interface PredownloadPlan {
  images: string[];
  pods: string[];
  nodes: string[];
  target: PullTarget;
  needs: ImageNeed[];
}

function unique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/** Per template container: the pods (and their nodes) whose container runs a different image. */
export function imagesNotYetRun(templateContainers: readonly Container[], pods: readonly Pod[]): ImageNeed[] {
  const needs: ImageNeed[] = [];
  const active = pods.filter((p) => !p.metadata.deletionTimestamp);
  for (const c of templateContainers) {
    if (!c.image) continue;
    const stale = active.filter((p) => {
      const pc = [...p.spec.containers, ...(p.spec.initContainers ?? [])].find((x) => x.name === c.name);
      return pc !== undefined && pc.image !== c.image;
    });
    if (stale.length === 0) continue;
    needs.push({
      container: c.name,
      image: c.image,
      pods: unique(stale.map((p) => p.metadata.name ?? '')),
      nodes: unique(stale.map((p) => p.spec.nodeName ?? '').filter((n) => n !== '')),
    });
  }
  return needs;
}

/**
 * Targets the pods still on an older revision the way Kruise's own pre-download does
 * (workload selector + controller-revision-hash NotIn [update revision, its hash]) when that
 * picks exactly the pods that need the images; otherwise the nodes by name.
 */
export function planWorkloadPredownload(input: {
  templateContainers: readonly Container[];
  pods: readonly Pod[];
  selector?: LabelSelectorShape;
  updateRevision?: string;
}): PredownloadPlan | undefined {
  const needs = imagesNotYetRun(input.templateContainers, input.pods);
  if (needs.length === 0) return undefined;
  const images = unique(needs.map((n) => n.image));
  const podNames = unique(needs.flatMap((n) => n.pods));
  const nodes = unique(needs.flatMap((n) => n.nodes));
  let target: PullTarget = { kind: 'nodes', names: nodes };
  if (input.updateRevision && input.selector && (input.selector.matchLabels || input.selector.matchExpressions)) {
    const podSelector: LabelSelectorShape = {};
    if (input.selector.matchLabels) podSelector.matchLabels = { ...input.selector.matchLabels };
    podSelector.matchExpressions = [
      ...(input.selector.matchExpressions ?? []).map((e) => ({ ...e })),
      { key: REVISION_HASH_LABEL, operator: 'NotIn', values: unique([input.updateRevision, revisionHash(input.updateRevision)]) },
    ];
    const picked = input.pods.filter((p) => !p.metadata.deletionTimestamp && labelSelectorMatches(podSelector, p.metadata.labels));
    const pickedNames = unique(picked.map((p) => p.metadata.name ?? ''));
    if (pickedNames.length === podNames.length && pickedNames.every((n, i) => n === podNames[i])) target = { kind: 'pods', podSelector };
  }
  return { images, pods: podNames, nodes, target, needs };
}

/**
 * Warming a workload's nodes before switching it to new images (`predownload cloneset/web --image
 * nginx:1.27`): the given images on every node that runs one of its pods, whatever those pods run
 * now. Undefined when none of its pods is on a node yet.
 */
export function planWorkloadImages(input: { images: readonly string[]; pods: readonly Pod[] }): PredownloadPlan | undefined {
  const active = input.pods.filter((p) => !p.metadata.deletionTimestamp && p.spec.nodeName);
  if (active.length === 0) return undefined;
  const images = unique(input.images);
  const pods = unique(active.map((p) => p.metadata.name ?? ''));
  const nodes = unique(active.map((p) => p.spec.nodeName!));
  return { images, pods, nodes, target: { kind: 'nodes', names: nodes }, needs: images.map((image) => ({ container: '', image, pods, nodes })) };
}

/** "k=v,k2=v2" → matchLabels; throws with a user message. */
export function parseNodeSelector(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of value.split(',')) {
    const p = part.trim();
    const eq = p.indexOf('=');
    if (p === '' || eq <= 0) throw new Error(`invalid --node-selector "${value}": use key=value[,key=value]`);
    out[p.slice(0, eq)] = p.slice(eq + 1);
  }
  return out;
}
