// ControllerRevision bookkeeping shared by the Kruise workload controllers (CloneSet, Advanced
// StatefulSet, Advanced DaemonSet), the way Kruise (and kube's StatefulSet controller) does it:
// find a revision whose template equals the current one (bumping its number when it is not the
// newest), else create `<workload>-<hash>` with revision max+1, stepping the collisionCount past a
// name that holds a different template; prune unused revisions beyond revisionHistoryLimit.
import type { KubeObject } from '../../kruise/types';
import { buildControllerRevision, findRevisionWithTemplate, isControlledBy, nextRevisionNumber, revisionsToPrune, templateOfRevision, type ControllerRevision } from '../../kruise/rules/revisions';
import { jsonEqual } from '../../lib/json-equal';
import type { Store } from '../store-api';
import { revisionName, templateHash } from './hash';
import type { Informer } from './informer';
import { CONTROLLER_REVISIONS } from './pods';

export interface RevisionState {
  updateRevision: ControllerRevision;
  /** The revision named by status.currentRevision, else the update revision. */
  currentRevision: ControllerRevision;
  /** All revisions of the workload, after any creation. */
  revisions: ControllerRevision[];
  collisionCount: number;
}

/** Revisions controlled by `owner`, oldest first. */
export function ownedRevisions(informer: Informer, owner: KubeObject): ControllerRevision[] {
  return (informer.ownedBy(owner.metadata.uid) as ControllerRevision[])
    .filter((r) => isControlledBy(r, owner) && !r.metadata.deletionTimestamp)
    .sort((a, b) => (a.revision ?? 0) - (b.revision ?? 0));
}

/** Makes sure a revision exists for `template` and returns the update and current revisions. */
export function syncRevisions(
  store: Store,
  informer: Informer,
  owner: KubeObject,
  template: Record<string, unknown>,
  collisionCountIn: number,
  currentRevisionName: string | undefined,
): RevisionState {
  let revisions = ownedRevisions(informer, owner);
  let collisionCount = collisionCountIn;
  let update = findRevisionWithTemplate(revisions, template);
  if (update) {
    const newest = revisions[revisions.length - 1];
    if (newest && newest !== update) {
      // re-applying an old template reuses its revision and makes it the newest
      const fresh = store.get(CONTROLLER_REVISIONS, owner.metadata.namespace, update.metadata.name ?? '') as ControllerRevision | undefined;
      if (fresh) update = store.update(CONTROLLER_REVISIONS, { ...fresh, revision: nextRevisionNumber(revisions) }) as ControllerRevision;
      revisions = ownedRevisions(informer, owner);
    }
  } else {
    for (let attempt = 0; attempt < 100 && !update; attempt++) {
      const hash = templateHash(template, collisionCount);
      const name = revisionName(owner.metadata.name ?? '', hash);
      const existing = store.get(CONTROLLER_REVISIONS, owner.metadata.namespace, name);
      if (existing) {
        if (isControlledBy(existing, owner) && jsonEqual(templateOfRevision(existing), template)) {
          update = existing as ControllerRevision;
          break;
        }
        collisionCount++;
        continue;
      }
      const rev = buildControllerRevision({ owner, name, hash, template, revision: nextRevisionNumber(revisions) });
      update = store.create(CONTROLLER_REVISIONS, rev) as ControllerRevision;
    }
    if (!update) throw new Error(`no free revision name for ${owner.metadata.name}`);
    revisions = ownedRevisions(informer, owner);
  }
  const current = (currentRevisionName && revisions.find((r) => r.metadata.name === currentRevisionName)) || update;
  return { updateRevision: update, currentRevision: current, revisions, collisionCount };
}

/** Deletes the oldest revisions no pod (and neither status revision) uses, beyond `limit`. */
export function pruneRevisions(store: Store, revisions: ControllerRevision[], inUse: Set<string>, limit: number): void {
  for (const r of revisionsToPrune(revisions, inUse, limit)) {
    try {
      store.delete(CONTROLLER_REVISIONS, r.metadata.namespace, r.metadata.name ?? '');
    } catch {
      // already gone
    }
  }
}
