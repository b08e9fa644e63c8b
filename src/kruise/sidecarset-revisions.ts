// SidecarSet revisions: Kruise records each sidecar spec as a ControllerRevision in its own
// namespace (kruise-system), labelled kruise.io/sidecarset-name=NAME, whose data is
// {spec: {$patch: replace, containers, initContainers, volumes, imagePullSecrets, patchPodMetadata}}
// and whose annotations carry the spec's kruise.io/sidecarset-hash
// (pkg/control/sidecarcontrol/history_control.go NewRevision / copySidecarSetSpecRevision).
// Pure: the history rows and the merge patch that brings a revision's sidecars back.
import type { KubeObject, Pod } from './types';
import { isObj } from './workloads/access';
import { podSidecarSetHash, SIDECARSET_HASH_ANNOTATION, type SidecarSetView } from './workloads/sidecarset';

export const SIDECARSET_REVISION_NAMESPACE = 'kruise-system';
export const SIDECARSET_REVISION_LABEL = 'kruise.io/sidecarset-name';
/** The spec fields a revision restores (copySidecarSetSpecRevision). */
export const REVISION_FIELDS = ['containers', 'initContainers', 'volumes', 'imagePullSecrets', 'patchPodMetadata'] as const;

export interface SidecarSetRevisionRow {
  revision: number;
  name: string;
  hash?: string;
  /** "logger=fluent-bit:3.1" per sidecar, init containers too. */
  images: string[];
  /** Matched pods running this revision's sidecars (by the pod's hash). */
  pods: number;
  current: boolean;
}

function revisionSpec(rev: KubeObject): Record<string, unknown> {
  const data = (rev as { data?: unknown }).data;
  return isObj(data) && isObj(data.spec) ? data.spec : {};
}

function images(spec: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const field of ['initContainers', 'containers']) {
    const list = spec[field];
    if (!Array.isArray(list)) continue;
    for (const c of list) if (isObj(c) && typeof c.name === 'string') out.push(`${c.name}=${typeof c.image === 'string' ? c.image : ''}`);
  }
  return out;
}

/** Oldest first; `pods` are the SidecarSet's matched pods. */
export function sidecarSetHistory(view: SidecarSetView, revisions: readonly KubeObject[], pods: readonly Pod[]): SidecarSetRevisionRow[] {
  return revisions
    .filter((r) => r.metadata.labels?.[SIDECARSET_REVISION_LABEL] === view.name)
    .map((r) => {
      const hash = r.metadata.annotations?.[SIDECARSET_HASH_ANNOTATION];
      const revision = (r as { revision?: unknown }).revision;
      return {
        revision: typeof revision === 'number' ? revision : 0,
        name: r.metadata.name ?? '',
        hash,
        images: images(revisionSpec(r)),
        pods: hash === undefined ? 0 : pods.filter((p) => podSidecarSetHash(p, view.name) === hash).length,
        current: hash !== undefined && hash === view.hash,
      };
    })
    .sort((a, b) => a.revision - b.revision);
}

export type UndoDecision =
  | { ok: true; patch: Record<string, unknown>; to: SidecarSetRevisionRow }
  | { ok: false; reason: string; usage: boolean };

/**
 * The merge patch restoring revision `toRevision` (default: the newest one before the current),
 * guarded by the resourceVersion read: each restored field is replaced whole, and a field the
 * revision does not have is removed (null), as the revision's `$patch: replace` means.
 */
export function sidecarSetUndo(obj: KubeObject, view: SidecarSetView, revisions: readonly KubeObject[], toRevision?: number): UndoDecision {
  const rows = sidecarSetHistory(view, revisions, []);
  const byName = new Map(revisions.map((r) => [r.metadata.name ?? '', r]));
  if (rows.length === 0) return { ok: false, reason: `sidecarset "${view.name}" has no recorded revisions`, usage: false };
  const current = rows.find((r) => r.current);
  let to: SidecarSetRevisionRow | undefined;
  if (toRevision !== undefined) {
    to = rows.find((r) => r.revision === toRevision);
    if (!to) return { ok: false, reason: `unable to find the specified revision ${toRevision} of sidecarset "${view.name}" (revisions: ${rows.map((r) => r.revision).join(', ')})`, usage: true };
  } else {
    const below = rows.filter((r) => r !== current && (!current || r.revision < current.revision));
    to = below.at(-1);
    if (!to) return { ok: false, reason: `sidecarset "${view.name}" has no previous revision to roll back to`, usage: false };
  }
  if (to.current) return { ok: false, reason: `sidecarset "${view.name}" already runs revision ${to.revision}: skipped rollback`, usage: false };
  const spec = revisionSpec(byName.get(to.name)!);
  const patchSpec: Record<string, unknown> = {};
  for (const f of REVISION_FIELDS) patchSpec[f] = spec[f] === undefined ? null : spec[f];
  return { ok: true, patch: { metadata: { resourceVersion: obj.metadata.resourceVersion }, spec: patchSpec }, to };
}
