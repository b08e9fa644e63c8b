// `rollout history` output: the REVISION / CHANGE-CAUSE / IMAGES / PODS table, and the
// structured form for -o json|yaml.
import type { HistoryRow } from '../kruise/revisions';
import { formatTable } from './table';

export function historyTable(rows: readonly HistoryRow[]): string {
  return formatTable(
    ['REVISION', 'CHANGE-CAUSE', 'IMAGES', 'PODS'],
    rows.map((r) => [r.revision, r.changeCause, r.images.join(',') || '<none>', r.pods]),
  );
}

/** -o json|yaml of the whole history (documented shape, stable field names). */
export function historyObject(kind: string, apiVersion: string, namespace: string, name: string, rows: readonly HistoryRow[]): Record<string, unknown> {
  return {
    kind,
    apiVersion,
    namespace,
    name,
    revisions: rows.map((r) => ({ revision: r.revision, name: r.name, changeCause: r.changeCause === '<none>' ? '' : r.changeCause, images: r.images, pods: r.pods })),
  };
}
