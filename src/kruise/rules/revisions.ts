// ControllerRevision rules shared by the Kruise workload controllers (CloneSet, Advanced
// StatefulSet, Advanced DaemonSet), kruise-semantics §3.3:
// - `revisionData(template)`: the `.data` a Kruise controller stores, `{"spec":{"template":{..., "$patch":"replace"}}}`.
// - `templateOfRevision(rev)`: the template back out of a revision (without the `$patch` directive).
// - `nextRevisionNumber(revisions)`: max(.revision)+1.
// - `findRevisionWithTemplate(revisions, template)`: an existing revision whose template equals this one.
// - `revisionsToPrune(revisions, inUse, limit)`: the oldest unused revisions beyond revisionHistoryLimit.
// - `buildControllerRevision(...)`: the apps/v1 object as Kruise writes it.
// - `podRevisionMatches(pod, revisionName)`: whole name or the hash after the last `-`.
// - `revisionLabelMatches(value, revision)`: the same comparison when either side may be the bare hash.
import { jsonEqual } from '../../lib/json-equal';
import type { KubeObject, OwnerReference } from '../types';

export const REVISION_HASH_LABEL = 'controller-revision-hash';
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
export const CONTROLLER_HASH_LABEL = 'controller.kubernetes.io/hash';
export const DEFAULT_REVISION_HISTORY_LIMIT = 10;

export interface ControllerRevision extends KubeObject {
  data?: { spec?: { template?: Record<string, unknown> } } & Record<string, unknown>;
  revision: number;
}

/** The `.data` of a ControllerRevision: the whole template, replacing on apply. */
export function revisionData(template: Record<string, unknown>): { spec: { template: Record<string, unknown> } } {
  return { spec: { template: { ...structuredClone(template), $patch: 'replace' } } };
}

/** The pod template stored in a revision, without the `$patch` directive. */
export function templateOfRevision(rev: KubeObject): Record<string, unknown> | undefined {
  const data = rev.data as { spec?: { template?: Record<string, unknown> } } | undefined;
  const tpl = data?.spec?.template;
  if (!tpl) return undefined;
  const { $patch: _drop, ...rest } = tpl;
  return rest;
}

export function nextRevisionNumber(revisions: KubeObject[]): number {
  let max = 0;
  for (const r of revisions) {
    const n = typeof r.revision === 'number' ? r.revision : 0;
    if (n > max) max = n;
  }
  return max + 1;
}

export function findRevisionWithTemplate<T extends KubeObject>(revisions: T[], template: Record<string, unknown>): T | undefined {
  return revisions.find((r) => jsonEqual(templateOfRevision(r), template));
}

/**
 * Revisions to delete: unused ones (not the current or update revision, no live pod on them),
 * oldest first, until at most `limit` revisions remain.
 */
export function revisionsToPrune<T extends KubeObject>(revisions: T[], inUse: Set<string>, limit: number): T[] {
  const excess = revisions.length - Math.max(0, limit);
  if (excess <= 0) return [];
  const candidates = revisions
    .filter((r) => !inUse.has(r.metadata.name ?? ''))
    .sort((a, b) => ((a.revision as number) ?? 0) - ((b.revision as number) ?? 0));
  return candidates.slice(0, excess);
}

/** The ControllerRevision object a Kruise workload controller creates for a template. */
export function buildControllerRevision(opts: {
  owner: KubeObject;
  name: string;
  hash: string;
  template: Record<string, unknown>;
  revision: number;
  /** The label naming the hash: kube's StatefulSet and Kruise write controller.kubernetes.io/hash, kube's DaemonSet controller-revision-hash. */
  hashLabel?: string;
}): ControllerRevision {
  const tplMeta = (opts.template.metadata ?? {}) as { labels?: Record<string, string> };
  const ownerRef: OwnerReference = {
    apiVersion: opts.owner.apiVersion ?? '',
    kind: opts.owner.kind ?? '',
    name: opts.owner.metadata.name ?? '',
    uid: opts.owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: opts.name,
      namespace: opts.owner.metadata.namespace,
      labels: { ...(tplMeta.labels ?? {}), [opts.hashLabel ?? CONTROLLER_HASH_LABEL]: opts.hash },
      ownerReferences: [ownerRef],
    },
    data: revisionData(opts.template),
    revision: opts.revision,
  };
}

/** Whether the pod's revision label names this revision (full name, or only the hash with CloneSetShortHash). */
export function podRevisionMatches(pod: KubeObject, revisionName: string): boolean {
  const value = pod.metadata.labels?.[REVISION_HASH_LABEL];
  if (!value) return false;
  return value === revisionName || value === revisionHash(revisionName);
}

/**
 * Whether a pod's revision label value names `revision`, whichever of the two holds the full
 * name and which only the hash (pods with CloneSetShortHash; DaemonSet statuses hold the hash).
 */
export function revisionLabelMatches(value: string, revision: string): boolean {
  return value === revision || revisionHash(value) === revisionHash(revision);
}

/** The hash part of a revision name `<workload>-<hash>`. */
export function revisionHash(revisionName: string): string {
  return revisionName.slice(revisionName.lastIndexOf('-') + 1);
}

/** Whether `obj` is controlled by `owner` (controller ownerReference with its UID). */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const uid = owner.metadata.uid;
  return !!uid && (obj.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === uid);
}
