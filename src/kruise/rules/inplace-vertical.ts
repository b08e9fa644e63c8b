// In-place vertical scaling as Kruise's pkg/util/inplaceupdate applies it (inplace_update_vertical.go,
// NativeVerticalUpdate), behind the InPlaceWorkloadVerticalScaling gate (Alpha, off; v1.8+):
// - only `replace` of an existing cpu/memory quantity under containers[i].resources.{limits,requests}
//   can be resized; adding or removing a key (or the whole map) needs a new pod;
// - the pod's QoS class must not change;
// - whether the kubelet restarts a resized container is the container's `resizePolicy`
//   (RestartContainer / NotRequired, the default), not Kruise's decision.
import type { Container } from '../types';
import { parseQuantity } from '../quantity';

/** The resources Kruise resizes in place (allowedResizeResourceKey). */
export const RESIZABLE_RESOURCES: readonly string[] = ['cpu', 'memory'];

export type ResourceListName = 'limits' | 'requests';

/** A JSON patch operation on a revision's template, as jsonpatch.CreatePatch produces it. */
export interface TemplatePatchOp {
  /** '' is read like replace (Kruise only refuses add and remove). */
  op: 'add' | 'remove' | 'replace' | '';
  path: string;
  value?: unknown;
}

export interface ContainerResourceChange {
  limits?: Record<string, string>;
  requests?: Record<string, string>;
}

export type ResourcePatchVerdict =
  | { ok: true; container: string; list: ResourceListName; resource: string; quantity: string }
  | { ok: false; reason: string };

/** Kruise's UpdateInplaceUpdateMetadata: one resources op of the template patch, accepted or why not. */
export function validateResourcePatch(op: TemplatePatchOp, oldContainers: readonly Pick<Container, 'name'>[]): ResourcePatchVerdict {
  const words = op.path.split('/');
  if (words.length !== 7) return { ok: false, reason: `invalid resource path: ${op.path}` };
  const idx = /^\d+$/.test(words[3]!) ? Number(words[3]) : NaN;
  if (!Number.isInteger(idx) || idx >= oldContainers.length) return { ok: false, reason: `invalid container index: ${op.path}` };
  if (op.op === 'add' || op.op === 'remove') return { ok: false, reason: 'can not add or remove resources' };
  if (op.value === undefined || op.value === null) return { ok: false, reason: 'json patch value is nil' };
  const quantity = String(op.value);
  if (parseQuantity(quantity) === undefined) return { ok: false, reason: `parse quantity error: ${quantity}` };
  const resource = words[6]!;
  if (!RESIZABLE_RESOURCES.includes(resource)) return { ok: false, reason: `disallowed inplace update resource: ${resource}` };
  const list = words[5] === 'limits' ? 'limits' : 'requests';
  return { ok: true, container: String(oldContainers[idx]!.name), list, resource, quantity };
}

type ResourceMaps = { limits?: Record<string, string>; requests?: Record<string, string> } | undefined;

/** The JSON patch ops between two containers' resources, shaped as jsonpatch.CreatePatch makes them. */
export function resourcePatchOps(index: number, before: ResourceMaps, after: ResourceMaps): TemplatePatchOp[] {
  const base = `/spec/containers/${index}/resources`;
  if (before === undefined && after === undefined) return [];
  if (before === undefined) return [{ op: 'add', path: base, value: after }];
  if (after === undefined) return [{ op: 'remove', path: base }];
  const ops: TemplatePatchOp[] = [];
  for (const list of ['limits', 'requests'] as const) {
    const a = before[list];
    const b = after[list];
    if (a === undefined && b === undefined) continue;
    if (a === undefined) ops.push({ op: 'add', path: `${base}/${list}`, value: b });
    else if (b === undefined) ops.push({ op: 'remove', path: `${base}/${list}` });
    else {
      for (const [k, v] of Object.entries(b)) {
        if (!(k in a)) ops.push({ op: 'add', path: `${base}/${list}/${k}`, value: v });
        else if (String(a[k]) !== String(v)) ops.push({ op: 'replace', path: `${base}/${list}/${k}`, value: v });
      }
      for (const k of Object.keys(a)) if (!(k in b)) ops.push({ op: 'remove', path: `${base}/${list}/${k}` });
    }
  }
  return ops;
}

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/** Kubernetes' GetPodQOS over cpu and memory (the QoS compute resources) of app and init containers. */
export function podQosClass(spec: { containers?: readonly Container[]; initContainers?: readonly Container[] }): QosClass {
  const requests: Record<string, number> = {};
  const limits: Record<string, number> = {};
  let guaranteed = true;
  const all = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
  for (const c of all) {
    const lim = c.resources?.limits ?? {};
    const req = { ...lim, ...(c.resources?.requests ?? {}) }; // requests default to limits
    const limitsFound = new Set<string>();
    for (const r of RESIZABLE_RESOURCES) {
      const q = req[r] !== undefined ? parseQuantity(String(req[r])) : undefined;
      if (q !== undefined && q !== 0) requests[r] = (requests[r] ?? 0) + q;
      const l = lim[r] !== undefined ? parseQuantity(String(lim[r])) : undefined;
      if (l !== undefined && l !== 0) {
        limitsFound.add(r);
        limits[r] = (limits[r] ?? 0) + l;
      }
    }
    if (limitsFound.size !== RESIZABLE_RESOURCES.length) guaranteed = false;
  }
  if (Object.keys(requests).length === 0 && Object.keys(limits).length === 0) return 'BestEffort';
  if (guaranteed) {
    for (const r of RESIZABLE_RESOURCES) if (requests[r] !== limits[r]) guaranteed = false;
  }
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

export type VerticalChange = { ok: true; resources: Record<string, ContainerResourceChange> } | { ok: false; reason: string };

/**
 * The resize Kruise applies in place between two templates' app containers (same length and order),
 * or why it cannot: an op it refuses, or a QoS class change.
 */
export function verticalResourceChange(
  before: { containers?: readonly Container[]; initContainers?: readonly Container[] },
  after: { containers?: readonly Container[]; initContainers?: readonly Container[] },
): VerticalChange {
  const a = before.containers ?? [];
  const b = after.containers ?? [];
  const resources: Record<string, ContainerResourceChange> = {};
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    for (const op of resourcePatchOps(i, a[i]!.resources, b[i]!.resources)) {
      const v = validateResourcePatch(op, a);
      if (!v.ok) return { ok: false, reason: `${a[i]!.name}: ${v.reason}` };
      const change = (resources[v.container] ??= {});
      (change[v.list] ??= {})[v.resource] = v.quantity;
    }
  }
  if (Object.keys(resources).length > 0) {
    const from = podQosClass(before);
    const to = podQosClass(after);
    if (from !== to) return { ok: false, reason: `the pod's QoS class would change (${from} → ${to})` };
  }
  return { ok: true, resources };
}

/**
 * Whether the kubelet restarts this container to apply the resize: its resizePolicy names a
 * resized resource with restartPolicy RestartContainer (NotRequired is the default).
 */
export function resizeRestartsContainer(container: Container, change: ContainerResourceChange): boolean {
  const policies = (container.resizePolicy ?? []) as Array<{ resourceName?: string; restartPolicy?: string }>;
  const resized = new Set([...Object.keys(change.limits ?? {}), ...Object.keys(change.requests ?? {})]);
  return policies.some((p) => p.restartPolicy === 'RestartContainer' && resized.has(p.resourceName ?? ''));
}

/** The container with the resized quantities written into its resources (UpdateResource). */
export function applyResourceChange(container: Container, change: ContainerResourceChange): void {
  const res = (container.resources ??= {});
  for (const list of ['limits', 'requests'] as const) {
    const values = change[list];
    if (!values) continue;
    res[list] = { ...(res[list] ?? {}), ...values };
  }
}

/** What defaultCheckPodNeedsBeUnready reads of an update spec. */
export interface UnreadyCheckSpec {
  containerImages: Record<string, string>;
  containerResources: Record<string, ContainerResourceChange>;
  envFromMetadataContainers: readonly string[];
}

/**
 * Kruise's defaultCheckPodNeedsBeUnready (inplace_update_defaults.go): a pod with the InPlaceUpdateReady
 * gate is marked not ready before an in-place update, except a resize alone (gate on) in which no resized
 * container restarts (its resizePolicy names a changed resource with RestartContainer).
 */
export function podNeedsBeUnready(pod: { spec: { containers: readonly Container[]; readinessGates?: unknown } }, spec: UnreadyCheckSpec, verticalScaling: boolean): boolean {
  const gates = (pod.spec.readinessGates ?? []) as Array<{ conditionType?: string }>;
  const hasGate = gates.some((g) => g.conditionType === 'InPlaceUpdateReady');
  const verticalOnly = Object.keys(spec.containerResources).length > 0 && Object.keys(spec.containerImages).length === 0 && spec.envFromMetadataContainers.length === 0;
  if (!verticalScaling || !verticalOnly) return hasGate;
  const needRestart = pod.spec.containers.some((c) => spec.containerResources[c.name] !== undefined && resizeRestartsContainer(c, spec.containerResources[c.name]!));
  return needRestart && hasGate;
}

function sameList(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  if (ka.length !== kb.length) return false;
  return ka.every((k) => b?.[k] !== undefined && parseQuantity(String(a![k])) === parseQuantity(String(b[k])));
}

/** NativeVerticalUpdate.isContainerUpdateCompleted: the kubelet reports the spec's resources for the container. */
export function containerResizeCompleted(container: Pick<Container, 'resources'>, status: { resources?: ResourceMaps } | undefined): boolean {
  if (!status?.resources) return false;
  return sameList(container.resources?.limits, status.resources.limits) && sameList(container.resources?.requests, status.resources.requests);
}
