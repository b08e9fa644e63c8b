// ControllerRevisions of the native StatefulSet and DaemonSet controllers (apps/v1):
// `<workload>-<hash>` holding `{"spec":{"template":{..., "$patch":"replace"}}}`, `.revision`
// max+1 for a new template, and a reused template's revision moved to the newest number. The hash
// label is the StatefulSet's controller.kubernetes.io/hash (history.NewControllerRevision) or the
// DaemonSet's controller-revision-hash (daemon controller snapshot: DefaultDaemonSetUniqueLabelKey).
import type { KubeObject, PodTemplate } from '../../kruise/types';
import {
  buildControllerRevision,
  CONTROLLER_HASH_LABEL,
  findRevisionWithTemplate,
  nextRevisionNumber,
  revisionHash,
  type ControllerRevision,
} from '../../kruise/rules/revisions';
import type { Store } from '../store-api';
import { revisionName, templateHash } from './hash';
import type { Informer } from './informer';
import { CONTROLLER_REVISIONS, controllerOf, objectKey } from './pods';

export interface RevisionSync {
  update: ControllerRevision;
  hash: string;
  all: ControllerRevision[];
}

export function ownedRevisions(revisions: Informer, owner: KubeObject): ControllerRevision[] {
  return revisions.ownedBy(owner.metadata.uid).filter((r) => controllerOf(r)?.uid === owner.metadata.uid) as ControllerRevision[];
}

/** Finds or creates the revision of `template`, making it the newest. */
export function syncUpdateRevision(store: Store, revisions: Informer, owner: KubeObject, template: PodTemplate, collisionCount = 0, hashLabel = CONTROLLER_HASH_LABEL): RevisionSync {
  const all = ownedRevisions(revisions, owner);
  const tpl = template as unknown as Record<string, unknown>;
  const existing = findRevisionWithTemplate(all, tpl);
  const next = nextRevisionNumber(all);
  if (existing) {
    let update = existing;
    if (existing.revision !== next - 1) {
      update = store.update(CONTROLLER_REVISIONS, { ...existing, revision: next }) as ControllerRevision;
    }
    return { update, hash: hashOf(update), all: ownedRevisions(revisions, owner) };
  }
  let collision = collisionCount;
  for (;;) {
    const hash = templateHash(tpl, collision);
    const name = revisionName(owner.metadata.name ?? '', hash);
    if (revisions.get(objectKey(owner.metadata.namespace, name))) {
      collision++;
      continue;
    }
    const created = store.create(CONTROLLER_REVISIONS, buildControllerRevision({ owner, name, hash, template: tpl, revision: next, hashLabel })) as ControllerRevision;
    return { update: created, hash, all: ownedRevisions(revisions, owner) };
  }
}

/** apps.DefaultDaemonSetUniqueLabelKey. */
export const DAEMONSET_HASH_LABEL = 'controller-revision-hash';

function hashOf(rev: KubeObject): string {
  return rev.metadata.labels?.[CONTROLLER_HASH_LABEL] || rev.metadata.labels?.[DAEMONSET_HASH_LABEL] || revisionHash(rev.metadata.name ?? '');
}
