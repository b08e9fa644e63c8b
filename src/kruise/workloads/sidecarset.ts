// SidecarSet view (apps.kruise.io v1alpha1/v1beta1, cluster-scoped): the fields the commands read
// and the pod annotations that tie a pod to a SidecarSet's revision. A SidecarSet has no pod
// template and no replicas, so it is not a WorkloadAdapter: its "replicas" are the pods it matched.
// Field names: apis/apps/v1alpha1/sidecarset_types.go (v1.9.0); pod annotations:
// pkg/control/sidecarcontrol/util.go (SidecarSetHashAnnotation, SidecarSetListAnnotation).
import type { KubeObject, Pod } from '../types';
import type { IntOrString, TemplateContainer } from './types';
import { at, boolAt, intOrStringAt, isObj, jsonObjectOf, mergePatchAt, numAt, objAt, strAt } from './access';
import { labelSelectorMatches, type LabelSelector } from '../selectors';

/** On the SidecarSet: hash of its sidecars (the latest revision); on a pod: JSON map name → {hash, ...}. */
export const SIDECARSET_HASH_ANNOTATION = 'kruise.io/sidecarset-hash';
/** On a pod: comma-separated names of the SidecarSets injected into it. */
export const SIDECARSET_LIST_ANNOTATION = 'kruise.io/sidecarset-injected-list';

export interface SidecarSetView {
  name: string;
  generation?: number;
  observedGeneration?: number;
  matchedPods: number;
  updatedPods: number;
  readyPods: number;
  updatedReadyPods: number;
  /** annotations[kruise.io/sidecarset-hash]: the revision pods must carry to count as updated. */
  hash?: string;
  latestRevision?: string;
  partition?: IntOrString;
  maxUnavailable?: IntOrString;
  paused: boolean;
  /** spec.updateStrategy.type: RollingUpdate (default) or NotUpdate. */
  updateType: string;
  selector?: LabelSelector;
  /** spec.namespace: only pods of this namespace (empty: every namespace). */
  namespace?: string;
  namespaceSelector?: LabelSelector;
  /** spec.updateStrategy.selector: only matched pods that also match it are upgraded. */
  updateSelector?: LabelSelector;
  containers: TemplateContainer[];
}

export function isSidecarSet(obj: KubeObject): boolean {
  return obj.kind === 'SidecarSet' && (obj.apiVersion ?? '').startsWith('apps.kruise.io/');
}

/** Whether a resolved type is the SidecarSet resource (sidecarsets.apps.kruise.io). */
export function isSidecarSetType(rt: { group: string; resource: string }): boolean {
  return rt.group === 'apps.kruise.io' && rt.resource === 'sidecarsets';
}

/** Sidecar containers then init containers of spec (no template), with JSON pointers. */
export function sidecarContainers(obj: KubeObject): TemplateContainer[] {
  const out: TemplateContainer[] = [];
  for (const [field, init] of [['containers', false], ['initContainers', true]] as const) {
    const list = at(obj, 'spec', field);
    if (!Array.isArray(list)) continue;
    list.forEach((c, i) => {
      if (!isObj(c) || typeof c.name !== 'string') return;
      const entry: TemplateContainer = { name: c.name, init, pointer: `/spec/${field}/${i}` };
      if (typeof c.image === 'string') entry.image = c.image;
      out.push(entry);
    });
  }
  return out;
}

export function readSidecarSet(obj: KubeObject): SidecarSetView {
  const strategy = ['spec', 'updateStrategy'];
  return {
    name: obj.metadata.name ?? '',
    generation: obj.metadata.generation,
    observedGeneration: numAt(obj, 'status', 'observedGeneration'),
    matchedPods: numAt(obj, 'status', 'matchedPods') ?? 0,
    updatedPods: numAt(obj, 'status', 'updatedPods') ?? 0,
    readyPods: numAt(obj, 'status', 'readyPods') ?? 0,
    updatedReadyPods: numAt(obj, 'status', 'updatedReadyPods') ?? 0,
    hash: obj.metadata.annotations?.[SIDECARSET_HASH_ANNOTATION],
    latestRevision: strAt(obj, 'status', 'latestRevision'),
    partition: intOrStringAt(obj, ...strategy, 'partition'),
    maxUnavailable: intOrStringAt(obj, ...strategy, 'maxUnavailable'),
    paused: boolAt(obj, ...strategy, 'paused'),
    updateType: strAt(obj, ...strategy, 'type') ?? 'RollingUpdate',
    selector: objAt(obj, 'spec', 'selector') as LabelSelector | undefined,
    namespace: strAt(obj, 'spec', 'namespace') || undefined,
    namespaceSelector: objAt(obj, 'spec', 'namespaceSelector') as LabelSelector | undefined,
    updateSelector: objAt(obj, ...strategy, 'selector') as LabelSelector | undefined,
    containers: sidecarContainers(obj),
  };
}

/** JSON merge patch of spec.updateStrategy.paused (the only pause field a SidecarSet has). */
export function sidecarSetPausePatch(paused: boolean): Record<string, unknown> {
  return mergePatchAt(['spec', 'updateStrategy', 'paused'], paused);
}

export const SIDECARSET_PAUSED_POINTER = '/spec/updateStrategy/paused';
export const SIDECARSET_PARTITION_POINTER = '/spec/updateStrategy/partition';

/**
 * The SidecarSet revision recorded on a pod (GetPodSidecarSetRevision): the `hash` of its entry in
 * the pod's kruise.io/sidecarset-hash map, or the plain string of the older map[string]string form.
 */
export function podSidecarSetHash(pod: Pod, name: string): string | undefined {
  const parsed = jsonObjectOf(pod.metadata.annotations?.[SIDECARSET_HASH_ANNOTATION]);
  if (!parsed) return undefined;
  const entry = parsed[name];
  if (typeof entry === 'string') return entry;
  return isObj(entry) && typeof entry.hash === 'string' ? entry.hash : undefined;
}

/** IsPodInjectedSidecarSet: the pod's kruise.io/sidecarset-injected-list names the SidecarSet. */
export function podInjectedWith(pod: Pod, name: string): boolean {
  const list = pod.metadata.annotations?.[SIDECARSET_LIST_ANNOTATION];
  return !!list && list.split(',').includes(name);
}

/** IsPodSidecarUpdated: the pod carries the SidecarSet's current hash. */
export function podSidecarUpdated(view: SidecarSetView, pod: Pod): boolean {
  return view.hash !== undefined && podSidecarSetHash(pod, view.name) === view.hash;
}

/**
 * Whether the SidecarSet's controller counts this pod as matched (getMatchingPods): active, in
 * scope (spec.namespace; namespaceSelector against `namespaceLabels` when given), selected by
 * spec.selector, and injected with this SidecarSet.
 */
export function sidecarSetMatchesPod(view: SidecarSetView, pod: Pod, namespaceLabels?: Record<string, string>): boolean {
  if (pod.metadata.deletionTimestamp) return false;
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if (view.namespace && pod.metadata.namespace !== view.namespace) return false;
  if (view.namespaceSelector && namespaceLabels && !labelSelectorMatches(view.namespaceSelector, namespaceLabels)) return false;
  if (!view.selector || !labelSelectorMatches(view.selector, pod.metadata.labels)) return false;
  return podInjectedWith(pod, view.name);
}

/** The sidecar (not init) container names: the containers an in-place upgrade or a restart touches. */
export function sidecarNames(view: SidecarSetView): string[] {
  return view.containers.filter((c) => !c.init).map((c) => c.name);
}
