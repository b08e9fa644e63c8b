// `rollout history` output: the REVISION / CHANGE-CAUSE / IMAGES / PODS table, and the
// structured form for -o json|yaml. Under a Kruise Rollout, a ROLLOUT column says which
// revision is stable and which the canary being released.
import type { HistoryRow } from '../kruise/revisions';
import type { RolloutHistoryRelease } from '../kruise/rollout/history-release';
import { formatTable } from './table';

function roleText(release: RolloutHistoryRelease, revision: number): string {
  const role = release.roles[revision];
  if (role === undefined) return '';
  if (role === 'stable') return 'stable';
  if (release.state === 'Complete') return 'released';
  return `canary (step ${release.step ?? '-'}/${release.steps}${release.stepState ? ` ${release.stepState}` : ''})`;
}

export function historyTable(rows: readonly HistoryRow[], release?: RolloutHistoryRelease): string {
  if (!release) {
    return formatTable(
      ['REVISION', 'CHANGE-CAUSE', 'IMAGES', 'PODS'],
      rows.map((r) => [r.revision, r.changeCause, r.images.join(',') || '<none>', r.pods]),
    );
  }
  return formatTable(
    ['REVISION', 'CHANGE-CAUSE', 'IMAGES', 'PODS', 'ROLLOUT'],
    rows.map((r) => [r.revision, r.changeCause, r.images.join(',') || '<none>', r.pods, roleText(release, r.revision)]),
    { emptyCell: '' },
  );
}

/** -o json|yaml of the whole history (documented shape, stable field names). */
export function historyObject(kind: string, apiVersion: string, namespace: string, name: string, rows: readonly HistoryRow[], release?: RolloutHistoryRelease): Record<string, unknown> {
  return {
    kind,
    apiVersion,
    namespace,
    name,
    ...(release
      ? {
          rollout: {
            name: release.rollout,
            state: release.state,
            step: release.step,
            steps: release.steps,
            stepState: release.stepState,
            stableRevision: release.stableRevision,
            canaryRevision: release.canaryRevision,
            summary: release.summary,
            inProgress: release.inProgress,
          },
        }
      : {}),
    revisions: rows.map((r) => ({
      revision: r.revision,
      name: r.name,
      changeCause: r.changeCause === '<none>' ? '' : r.changeCause,
      images: r.images,
      pods: r.pods,
      ...(release?.roles[r.revision] ? { rolloutRole: release.roles[r.revision] } : {}),
    })),
  };
}
