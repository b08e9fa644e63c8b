// In-place update rules as Kruise's `inplaceupdate` package applies them (kruise-semantics §3.3),
// shared by CloneSet, Advanced StatefulSet and Advanced DaemonSet:
// - `inPlaceUpdatePlan(oldTemplate, newTemplate)`: what to change on a pod when only container images
//   and template labels/annotations differ; undefined when the change needs a recreate.
// - `applyInPlaceUpdate(pod, plan, revision, now)`: the pod after the in-place patch, with the
//   `apps.kruise.io/inplace-update-state` annotation and the revision labels.
// - `inPlaceUpdateCompleted(pod)`: whether the kubelet has restarted every updated container.
// - readiness-gate helpers for the `InPlaceUpdateReady` condition.
import type { ContainerStatus, Pod } from '../types';
import { setPodReadyCondition } from './pod-readiness';
import { POD_TEMPLATE_HASH_LABEL, podRevisionMatches, REVISION_HASH_LABEL, revisionHash } from './revisions';
import { jsonEqual } from '../../lib/json-equal';
import type { Container } from '../types';
import { applyResourceChange, containerResizeCompleted, resizeRestartsContainer, verticalResourceChange, type ContainerResourceChange } from './inplace-vertical';

export const INPLACE_UPDATE_STATE_ANNOTATION = 'apps.kruise.io/inplace-update-state';
export const INPLACE_UPDATE_GRACE_ANNOTATION = 'apps.kruise.io/inplace-update-grace';
export const INPLACE_READY_CONDITION = 'InPlaceUpdateReady';

export interface InPlaceUpdatePlan {
  /** container name → new image */
  containerImages: Record<string, string>;
  /** labels/annotations to set (value) or remove (null) on the pod */
  labels: Record<string, string | null>;
  annotations: Record<string, string | null>;
  /**
   * Containers whose env reads (fieldRef) a label or annotation this update adds or changes: Kruise
   * restarts them (InPlaceUpdateEnvFromMetadata, its ContainerRefMetadata). Empty when the gate is off.
   */
  envFromMetadataContainers: string[];
  /** container name → resized cpu/memory quantities (InPlaceWorkloadVerticalScaling); empty without. */
  containerResources: Record<string, ContainerResourceChange>;
  /** Resized containers the kubelet restarts (their resizePolicy says RestartContainer). */
  resizeRestartContainers: string[];
}

export interface InPlaceUpdatePlanOptions {
  /** Kruise's InPlaceUpdateEnvFromMetadata feature gate: on by default since v1.8 (alpha, off, in v1.3). */
  envFromMetadata?: boolean;
  /** Kruise's InPlaceWorkloadVerticalScaling feature gate (Alpha, off, since v1.8). */
  verticalScaling?: boolean;
}

/** Why a template change cannot be applied in place (the same walk as inPlaceUpdatePlan). */
export type InPlaceDecision = { inPlace: true; plan: InPlaceUpdatePlan } | { inPlace: false; reasons: string[] };

/**
 * Default of the InPlaceUpdateEnvFromMetadata feature gate per imitated Kruise release
 * (pkg/features/kruise_features.go: Alpha, off, in v1.3; Beta, on, from v1.8). It applies to every
 * workload using pkg/util/inplaceupdate: CloneSet, Advanced StatefulSet, Advanced DaemonSet.
 */
export function envFromMetadataByDefault(release: string): boolean {
  return release !== 'v1.3';
}

/** Env vars Kruise's IsContainerReferenceToMeta ignores (pkg/util/containermeta/env_hash.go excludeEnvs). */
const EXCLUDED_ENVS = new Set(['SIDECARSET_VERSION', 'SIDECARSET_VERSION_ALT']);

/** Whether an env var of the container reads `path['key']`, e.g. metadata.labels['app'] (IsContainerReferenceToMeta). */
export function containerReadsMetadata(container: Record<string, unknown>, path: 'metadata.labels' | 'metadata.annotations', key: string): boolean {
  const env = (container.env ?? []) as Array<{ name?: string; value?: string; valueFrom?: { fieldRef?: { fieldPath?: string } } }>;
  return env.some((e) => {
    if (e.value || !e.valueFrom?.fieldRef || EXCLUDED_ENVS.has(e.name ?? '')) return false;
    const m = /^(.*)\['(.*)'\]$/.exec(e.valueFrom.fieldRef.fieldPath ?? '');
    return m !== null && m[1] === path && m[2] === key;
  });
}

/** Containers reading a label/annotation the update adds or replaces (removals restart nothing). */
function envFromMetadataContainers(containers: Array<Record<string, unknown>>, labels: Record<string, string | null>, annotations: Record<string, string | null>): string[] {
  const out: string[] = [];
  for (const c of containers) {
    const reads =
      Object.entries(labels).some(([k, v]) => v !== null && containerReadsMetadata(c, 'metadata.labels', k)) ||
      Object.entries(annotations).some(([k, v]) => v !== null && containerReadsMetadata(c, 'metadata.annotations', k));
    if (reads) out.push(String(c.name));
  }
  return out;
}

export interface InPlaceUpdateState {
  revision: string;
  updateTimestamp: string;
  updateEnvFromMetadata?: boolean;
  /** cpu/memory were resized: completion also waits for the kubelet to report them (IsUpdateCompleted). */
  updateResources?: boolean;
  lastContainerStatuses?: Record<string, { imageID?: string }>;
  containerBatchesRecord?: Array<{ timestamp: string; containers: string[] }>;
}

type Template = Record<string, unknown>;
interface TemplateParts {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  spec: Record<string, unknown>;
}

function parts(tpl: Template | undefined): TemplateParts {
  const meta = (tpl?.metadata ?? {}) as { labels?: Record<string, string>; annotations?: Record<string, string> };
  return { labels: meta.labels ?? {}, annotations: meta.annotations ?? {}, spec: (tpl?.spec ?? {}) as Record<string, unknown> };
}

function mapDiff(from: Record<string, string>, to: Record<string, string>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(to)) if (from[k] !== v) out[k] = v;
  for (const k of Object.keys(from)) if (!(k in to)) out[k] = null;
  return out;
}

/**
 * Kruise's defaultCalculateInPlaceUpdateSpec as a decision: the in-place update from one template to
 * another, or the reasons it needs a recreate (anything besides `containers[*].image`, metadata
 * labels/annotations and, with the vertical scaling gate, resizable cpu/memory quantities).
 */
export function inPlaceUpdateDecision(oldTemplate: Template | undefined, newTemplate: Template | undefined, opts: InPlaceUpdatePlanOptions = {}): InPlaceDecision {
  const a = parts(oldTemplate);
  const b = parts(newTemplate);
  const ac = (a.spec.containers ?? []) as Container[];
  const bc = (b.spec.containers ?? []) as Container[];
  const reasons: string[] = [];
  if (ac.length !== bc.length) reasons.push('spec.containers: containers added or removed');
  const containerImages: Record<string, string> = {};
  let containerResources: Record<string, ContainerResourceChange> = {};
  if (reasons.length === 0) {
    for (let i = 0; i < ac.length; i++) {
      const { image: ai, resources: ar, ...arest } = ac[i]!;
      const { image: bi, resources: br, ...brest } = bc[i]!;
      for (const k of new Set([...Object.keys(arest), ...Object.keys(brest)])) {
        if (!jsonEqual(arest[k], brest[k])) reasons.push(`spec.containers[${i}].${k}`);
      }
      if (!opts.verticalScaling && !jsonEqual(ar, br)) reasons.push(`spec.containers[${i}].resources`);
      if (ai !== bi) containerImages[String(bc[i]!.name)] = String(bi ?? '');
    }
    if (opts.verticalScaling) {
      const vertical = verticalResourceChange(a.spec as { containers?: Container[] }, b.spec as { containers?: Container[] });
      if (vertical.ok) containerResources = vertical.resources;
      else reasons.push(`spec.containers[*].resources: ${vertical.reason}`);
    }
  }
  const { containers: _a, ...aSpec } = a.spec;
  const { containers: _b, ...bSpec } = b.spec;
  for (const k of new Set([...Object.keys(aSpec), ...Object.keys(bSpec)])) {
    if (!jsonEqual(aSpec[k], bSpec[k])) reasons.push(`spec.${k}`);
  }
  if (reasons.length > 0) return { inPlace: false, reasons };
  const labels = mapDiff(a.labels, b.labels);
  const annotations = mapDiff(a.annotations, b.annotations);
  const envContainers = opts.envFromMetadata === false ? [] : envFromMetadataContainers(bc, labels, annotations);
  const resizeRestartContainers = bc.filter((c) => containerResources[c.name] && resizeRestartsContainer(c, containerResources[c.name]!)).map((c) => c.name);
  return { inPlace: true, plan: { containerImages, labels, annotations, envFromMetadataContainers: envContainers, containerResources, resizeRestartContainers } };
}

/** The in-place update from one template to another, or undefined when Kruise recreates the pod. */
export function inPlaceUpdatePlan(oldTemplate: Template | undefined, newTemplate: Template | undefined, opts: InPlaceUpdatePlanOptions = {}): InPlaceUpdatePlan | undefined {
  const d = inPlaceUpdateDecision(oldTemplate, newTemplate, opts);
  return d.inPlace ? d.plan : undefined;
}

/** A metav1.Time as the API writes it: RFC 3339 with whole seconds. */
export function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function containerStatusOf(pod: Pod, name: string): ContainerStatus | undefined {
  return pod.status?.containerStatuses?.find((c) => c.name === name);
}

/** What Kruise parks in the grace annotation until `inPlaceUpdateStrategy.gracePeriodSeconds` pass. */
export interface InPlaceUpdateGrace {
  revision: string;
  containerImages: Record<string, string>;
  graceSeconds: number;
  /** Containers to restart once the grace period is over (env from changed metadata). */
  envFromMetadataContainers?: string[];
  /** When the grace period started, with millisecond precision (updateTimestamp has seconds only). */
  startedAt?: string;
}

/**
 * The pod after an in-place update to `revisionName`: metadata, revision labels and the state
 * annotation at once; container images too, unless a grace period parks them in the
 * `apps.kruise.io/inplace-update-grace` annotation (the pod is already marked not ready).
 */
export function applyInPlaceUpdate(pod: Pod, plan: InPlaceUpdatePlan, revisionName: string, now: Date, graceSeconds = 0): Pod {
  const next = structuredClone(pod);
  const labels = { ...(next.metadata.labels ?? {}) };
  const annotations = { ...(next.metadata.annotations ?? {}) };
  for (const [k, v] of Object.entries(plan.labels)) {
    if (v === null) delete labels[k];
    else labels[k] = v;
  }
  for (const [k, v] of Object.entries(plan.annotations)) {
    if (v === null) delete annotations[k];
    else annotations[k] = v;
  }
  labels[REVISION_HASH_LABEL] = labels[REVISION_HASH_LABEL] && !labels[REVISION_HASH_LABEL].includes('-') ? revisionHash(revisionName) : revisionName;
  if (POD_TEMPLATE_HASH_LABEL in labels) labels[POD_TEMPLATE_HASH_LABEL] = revisionHash(revisionName);
  const names = Object.keys(plan.containerImages);
  const lastContainerStatuses: Record<string, { imageID?: string }> = {};
  for (const c of next.spec.containers) {
    const resize = plan.containerResources?.[c.name];
    if (resize) applyResourceChange(c, resize);
    if (c.name in plan.containerImages) {
      lastContainerStatuses[c.name] = { imageID: containerStatusOf(pod, c.name)?.imageID };
      if (graceSeconds <= 0) c.image = plan.containerImages[c.name];
    }
  }
  const envNames = plan.envFromMetadataContainers ?? [];
  if (graceSeconds > 0 && (names.length > 0 || envNames.length > 0)) {
    const grace: InPlaceUpdateGrace = { revision: revisionName, containerImages: plan.containerImages, graceSeconds, startedAt: now.toISOString() };
    if (envNames.length > 0) grace.envFromMetadataContainers = envNames;
    annotations[INPLACE_UPDATE_GRACE_ANNOTATION] = JSON.stringify(grace);
  } else delete annotations[INPLACE_UPDATE_GRACE_ANNOTATION];
  const ts = isoSeconds(now);
  // resized containers are part of the batch too (Kruise's containerBatchesRecord)
  const batch = [...new Set([...names, ...envNames, ...Object.keys(plan.containerResources ?? {})])].sort();
  const state: InPlaceUpdateState = {
    revision: revisionName,
    updateTimestamp: ts,
    ...(envNames.length > 0 ? { updateEnvFromMetadata: true } : {}),
    ...(Object.keys(plan.containerResources ?? {}).length > 0 ? { updateResources: true } : {}),
    lastContainerStatuses,
    containerBatchesRecord: batch.length > 0 ? [{ timestamp: ts, containers: batch }] : [],
  };
  annotations[INPLACE_UPDATE_STATE_ANNOTATION] = JSON.stringify(state);
  next.metadata.labels = labels;
  next.metadata.annotations = annotations;
  return next;
}

export function readInPlaceUpdateState(pod: Pod): InPlaceUpdateState | undefined {
  const raw = pod.metadata.annotations?.[INPLACE_UPDATE_STATE_ANNOTATION];
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as InPlaceUpdateState;
  } catch {
    return undefined;
  }
}

/** Whether the image reported by the kubelet is the one in the spec (the kubelet may normalise names). */
function sameImage(status: string | undefined, spec: string | undefined): boolean {
  if (!status || !spec) return false;
  return status === spec || status.endsWith(`/${spec}`) || status === `${spec}:latest` || status.endsWith(`/${spec}:latest`);
}

/**
 * Kruise's CheckInPlaceUpdateCompleted: every container updated in place runs the new image
 * (its imageID changed, or the reported image is the spec's).
 */
export function inPlaceUpdateCompleted(pod: Pod): boolean {
  const state = readInPlaceUpdateState(pod);
  if (!state) return true;
  if (pod.metadata.annotations?.[INPLACE_UPDATE_GRACE_ANNOTATION]) return false;
  if (state.updateResources) {
    // NativeVerticalUpdate.IsUpdateCompleted: every container reports its spec resources
    const statuses = pod.status?.containerStatuses ?? [];
    if (statuses.length !== pod.spec.containers.length) return false;
    for (const c of pod.spec.containers) {
      if (!containerResizeCompleted(c, containerStatusOf(pod, c.name) as { resources?: Container['resources'] } | undefined)) return false;
    }
  }
  for (const [name, last] of Object.entries(state.lastContainerStatuses ?? {})) {
    const spec = pod.spec.containers.find((c) => c.name === name);
    const st = containerStatusOf(pod, name);
    if (!spec || !st) return false;
    if (!sameImage(st.image, spec.image)) return false;
    // the runtime reports the new image's ID once it has pulled it and restarted the container
    if (last.imageID && (!st.imageID || st.imageID === last.imageID)) return false;
  }
  return true;
}

export function hasInPlaceReadinessGate(pod: Pod): boolean {
  const gates = (pod.spec.readinessGates ?? []) as Array<{ conditionType?: string }>;
  return gates.some((g) => g.conditionType === INPLACE_READY_CONDITION);
}

export function inPlaceReadyCondition(pod: Pod): { type: string; status: string } | undefined {
  return pod.status?.conditions?.find((c) => c.type === INPLACE_READY_CONDITION);
}

/**
 * The pod's status with the InPlaceUpdateReady condition set (lastTransitionTime moves on a change).
 * Turned False, Ready goes False in the same write (inplace_update.go updateCondition: "We only update
 * the ready condition to False, and let Kubelet update it to True").
 */
export function withInPlaceReadyCondition(pod: Pod, status: 'True' | 'False', now: Date, reason?: string): Pod {
  const next = structuredClone(pod);
  const st = (next.status ??= {});
  const conds = (st.conditions ??= []);
  const ts = isoSeconds(now);
  const existing = conds.find((c) => c.type === INPLACE_READY_CONDITION);
  if (existing) {
    if (existing.status !== status) existing.lastTransitionTime = ts;
    existing.status = status;
    if (reason) existing.reason = reason;
    else delete existing.reason;
  } else {
    conds.push({ type: INPLACE_READY_CONDITION, status, lastTransitionTime: ts, ...(reason ? { reason } : {}) });
  }
  if (status === 'False') setPodReadyCondition(next, ts);
  return next;
}

/**
 * Kruise's finishGracePeriod: once the grace period has passed, the parked images go into the spec
 * (the kubelet then restarts those containers); a grace spec for a revision the pod no longer has is
 * dropped. Returns the updated pod, or the ms left to wait.
 */
export function finishInPlaceGracePeriod(pod: Pod, now: Date): { pod: Pod; restart: string[] } | { waitMs: number } | undefined {
  const raw = pod.metadata.annotations?.[INPLACE_UPDATE_GRACE_ANNOTATION];
  if (!raw) return undefined;
  let grace: InPlaceUpdateGrace;
  try {
    grace = JSON.parse(raw) as InPlaceUpdateGrace;
  } catch {
    return undefined;
  }
  const next = structuredClone(pod);
  // the pod moved to another revision meanwhile: drop the parked change, the normal update follows
  const sameRevision = podRevisionMatches(pod, grace.revision);
  if (sameRevision) {
    const since = Date.parse(grace.startedAt ?? readInPlaceUpdateState(pod)?.updateTimestamp ?? '');
    const due = (Number.isFinite(since) ? since : 0) + grace.graceSeconds * 1000;
    if (now.getTime() < due) return { waitMs: due - now.getTime() };
    for (const c of next.spec.containers) if (c.name in grace.containerImages) c.image = grace.containerImages[c.name];
  }
  const annotations = { ...(next.metadata.annotations ?? {}) };
  delete annotations[INPLACE_UPDATE_GRACE_ANNOTATION];
  next.metadata.annotations = annotations;
  return { pod: next, restart: sameRevision ? grace.envFromMetadataContainers ?? [] : [] };
}
