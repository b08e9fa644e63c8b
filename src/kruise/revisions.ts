// Revision history of a workload (contract "rollout undo" / "rollout history"), pure:
// the caller lists the revision objects and pods; these functions pick, compare and print.
//
// - `revisionSourceFor(kindName)`: where a kind keeps its history (ControllerRevisions, or
//   ReplicaSets for Deployment) and which pod label ties a pod to a revision.
// - `workloadRevisions(workload, kindName, objects)`: the workload's revisions (controller owner
//   UID match), sorted by revision number, each with its pod template.
// - `currentRevisionNumber(...)`, `undoTarget(...)`: which revision is live and which to go back to.
// - `undoPatch(workload, template)`: JSON patch replacing the whole template, guarded by metadata.generation.
// - `historyRows(revisions, pods, source)`: REVISION / CHANGE-CAUSE / IMAGES / PODS.
// - (`templateYaml`, `templateDiff` live in revision-diff.ts, so status and undo never load YAML/diff.)
// - `labelSelectorString(selector)`: a LabelSelector as a `?labelSelector=` value.
import type { KubeObject, Pod } from './types';
import type { JsonPatchOp } from './containers';
import type { WorkloadKindName } from './workloads/types';
import { subsetTemplateOf, UD_REVISION_LABEL } from './rules/uniteddeployment';
import { CONTROLLER_HASH_LABEL, isControlledBy, POD_TEMPLATE_HASH_LABEL, revisionHash, templateOfRevision } from './rules/revisions';
import { jsonEqual } from '../lib/json-equal';

export const CHANGE_CAUSE_ANNOTATION = 'kubernetes.io/change-cause';
const DEPLOYMENT_REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';

export interface RevisionSource {
  /** Plural of the apps/v1 resource holding the revisions. */
  resource: 'controllerrevisions' | 'replicasets';
  /** Pod label whose value names the revision. */
  podLabel: 'controller-revision-hash' | 'pod-template-hash' | typeof UD_REVISION_LABEL;
  /** The revision objects carry no labels to select them by (Kruise's UnitedDeployment of CloneSets): list all, keep the owned. */
  unlabeled?: boolean;
  /** Deployment refuses a rollback while paused (kubectl's rule). */
  undoRefusedWhenPaused: boolean;
  revisionNumber(obj: KubeObject): number | undefined;
  /** The pod template stored in a revision object, as the workload would carry it. */
  template(obj: KubeObject): Record<string, unknown> | undefined;
  /** Hash identifying the revision in pod labels. */
  hash(obj: KubeObject): string;
}

const CONTROLLER_REVISIONS: RevisionSource = {
  resource: 'controllerrevisions',
  podLabel: 'controller-revision-hash',
  undoRefusedWhenPaused: false,
  revisionNumber: (obj) => (typeof obj.revision === 'number' ? obj.revision : undefined),
  template: templateOfRevision,
  hash: (obj) => obj.metadata.labels?.[CONTROLLER_HASH_LABEL] ?? revisionHash(obj.metadata.name ?? ''),
};

const REPLICA_SETS: RevisionSource = {
  resource: 'replicasets',
  podLabel: 'pod-template-hash',
  undoRefusedWhenPaused: true,
  revisionNumber(obj) {
    const n = Number(obj.metadata.annotations?.[DEPLOYMENT_REVISION_ANNOTATION]);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  },
  template(obj) {
    const tpl = (obj.spec as { template?: Record<string, unknown> } | undefined)?.template;
    if (!tpl) return undefined;
    // The ReplicaSet controller adds pod-template-hash; the Deployment's template never has it.
    const copy = structuredClone(tpl) as { metadata?: { labels?: Record<string, string> } };
    if (copy.metadata?.labels) {
      delete copy.metadata.labels[POD_TEMPLATE_HASH_LABEL];
    }
    return copy as Record<string, unknown>;
  },
  hash: (obj) => obj.metadata.labels?.[POD_TEMPLATE_HASH_LABEL] ?? revisionHash(obj.metadata.name ?? ''),
};

/**
 * UnitedDeployment: a ControllerRevision of the whole spec.template (revision.go getUnitedDeploymentPatch);
 * its pod template is the subset workload template's; pods carry the revision's full name.
 */
const UD_REVISIONS: RevisionSource = {
  ...CONTROLLER_REVISIONS,
  podLabel: UD_REVISION_LABEL,
  unlabeled: true,
  template(obj) {
    const udTemplate = templateOfRevision(obj);
    const found = udTemplate && subsetTemplateOf({ metadata: {}, spec: { template: udTemplate } });
    const spec = found?.template.spec as { template?: Record<string, unknown> } | undefined;
    return spec?.template;
  },
  hash: (obj) => obj.metadata.name ?? '',
};

const SOURCES: Partial<Record<WorkloadKindName, RevisionSource>> = { Deployment: REPLICA_SETS, UnitedDeployment: UD_REVISIONS };

export function revisionSourceFor(kindName: WorkloadKindName): RevisionSource {
  return SOURCES[kindName] ?? CONTROLLER_REVISIONS;
}

export interface Revision {
  revision: number;
  name: string;
  hash: string;
  template: Record<string, unknown>;
  changeCause?: string;
  object: KubeObject;
}

/** The workload's revisions: objects it controls (owner UID), with a number and a template, oldest first. */
export function workloadRevisions(workload: KubeObject, source: RevisionSource, objects: readonly KubeObject[]): Revision[] {
  const out: Revision[] = [];
  for (const obj of objects) {
    if (!isControlledBy(obj, workload)) continue;
    const revision = source.revisionNumber(obj);
    const template = source.template(obj);
    if (revision === undefined || !template) continue;
    out.push({
      revision,
      name: obj.metadata.name ?? '',
      hash: source.hash(obj),
      template,
      changeCause: obj.metadata.annotations?.[CHANGE_CAUSE_ANNOTATION],
      object: obj,
    });
  }
  return out.sort((a, b) => a.revision - b.revision);
}

/**
 * The revision the workload is rolling towards: the one named by status.updateRevision (full
 * name or hash), else the one holding the current template, else the newest.
 */
export function currentRevisionNumber(revisions: readonly Revision[], currentTemplate: unknown, updateRevision?: string): number | undefined {
  if (updateRevision) {
    const hash = revisionHash(updateRevision);
    const byName = revisions.find((r) => r.name === updateRevision || r.hash === hash);
    if (byName) return byName.revision;
  }
  const byTemplate = [...revisions].reverse().find((r) => jsonEqual(r.template, currentTemplate));
  if (byTemplate) return byTemplate.revision;
  return revisions.length ? revisions[revisions.length - 1]!.revision : undefined;
}

export type UndoDecision =
  | { kind: 'rollback'; target: Revision }
  | { kind: 'skip'; target: Revision }
  | { kind: 'error'; message: string };

/**
 * What `rollout undo` does: `toRevision` 0/undefined means the previous revision (the highest
 * below the current one). Skips when the template already equals the target's.
 */
export function undoTarget(opts: {
  label: string;
  revisions: readonly Revision[];
  currentTemplate: unknown;
  updateRevision?: string;
  toRevision?: number;
}): UndoDecision {
  const { label, revisions } = opts;
  let target: Revision | undefined;
  if (opts.toRevision) {
    target = revisions.find((r) => r.revision === opts.toRevision);
    if (!target) return { kind: 'error', message: `unable to find specified revision ${opts.toRevision} in history of ${label}` };
  } else {
    const current = currentRevisionNumber(revisions, opts.currentTemplate, opts.updateRevision);
    const older = revisions.filter((r) => current === undefined || r.revision < current);
    target = older[older.length - 1];
    if (!target) return { kind: 'error', message: `no previous revision to roll back to in history of ${label}` };
  }
  if (jsonEqual(target.template, opts.currentTemplate)) return { kind: 'skip', target };
  return { kind: 'rollback', target };
}

/**
 * Replaces the whole template (keys added after that revision disappear, unlike a merge patch),
 * only if nobody changed the object since we read it.
 */
export function undoPatch(workload: KubeObject, template: Record<string, unknown>, templatePointer = '/spec/template'): JsonPatchOp[] {
  // The guard is on what the rollback decided from, not on resourceVersion: status writes change the
  // resourceVersion (a big rollout writes status many times a second) but never metadata.generation,
  // which the apiserver bumps on every spec change. Without a generation, test the template itself.
  const generation = workload.metadata.generation;
  const guard: JsonPatchOp =
    typeof generation === 'number'
      ? { op: 'test', path: '/metadata/generation', value: generation }
      : { op: 'test', path: templatePointer, value: templateAt(workload, templatePointer) };
  return [guard, { op: 'replace', path: templatePointer, value: template }];
}

function templateAt(workload: KubeObject, pointer: string): unknown {
  let at: unknown = workload;
  for (const key of pointer.split('/').slice(1)) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  return at ?? null;
}

/** The object as it will be after `undoPatch` (for --dry-run=client -o yaml). */
export function withTemplate<T extends KubeObject>(workload: T, template: Record<string, unknown>): T {
  const copy = structuredClone(workload) as T & { spec?: Record<string, unknown> };
  copy.spec = { ...(copy.spec ?? {}), template: structuredClone(template) };
  return copy;
}

export interface HistoryRow {
  revision: number;
  name: string;
  changeCause: string;
  images: string[];
  pods: number;
}

export function templateImages(template: Record<string, unknown>): string[] {
  const spec = template.spec as { containers?: Array<{ image?: string }>; initContainers?: Array<{ image?: string }> } | undefined;
  return [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])].map((c) => c.image ?? '').filter((i) => i !== '');
}

/** Whether a pod's revision label names this revision (whole value, or the part after the last `-`). */
export function podAtRevision(pod: KubeObject, revision: Revision, source: RevisionSource): boolean {
  const value = pod.metadata.labels?.[source.podLabel];
  if (!value) return false;
  return value === revision.name || revisionHash(value) === revision.hash || value === revision.hash;
}

export function historyRows(revisions: readonly Revision[], pods: readonly Pod[], source: RevisionSource): HistoryRow[] {
  const live = pods.filter((p) => !p.metadata.deletionTimestamp);
  return revisions.map((r) => ({
    revision: r.revision,
    name: r.name,
    changeCause: r.changeCause ?? '<none>',
    images: templateImages(r.template),
    pods: live.filter((p) => podAtRevision(p, r, source)).length,
  }));
}

/** A LabelSelector in the string form of `?labelSelector=` (one implementation, in selectors.ts). */
export { labelSelectorString } from './selectors';
