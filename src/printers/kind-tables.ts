// `get all`'s printing, as kubectl prints several kinds at once (`kubectl get a,b`): one table per kind with
// rows, a blank line between tables, the first cell (NAME) prefixed by `kind.group/`, a NAMESPACE column first
// under -A for namespaced kinds only, priority > 0 columns only with -o wide, a missing CRD value as an
// empty cell. Pure: the server-side Tables go in, text comes out.
import type { TableColumn, TableRow } from '../lib/table';
import { resourceName } from './output';
import { formatTable } from './table';

/** One kind's server-side Table and what is needed to print it. */
export interface KindTable {
  kind: string;
  group: string;
  namespaced: boolean;
  columns: readonly TableColumn[];
  rows: readonly TableRow[];
}

export interface KindTablesView {
  headers: string[];
  rows: string[][];
}

/** How kubectl prints a Table cell (fmt.Print of the decoded JSON value; null is nothing). */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** The rows of every kind with rows, ready to print (headers upper-cased as kubectl does). */
export function kindTablesView(tables: readonly KindTable[], o: { allNamespaces: boolean; wide: boolean }): KindTablesView[] {
  return tables
    .filter((t) => t.rows.length > 0)
    .map((t) => {
      const shown = t.columns.map((c, i) => ({ c, i })).filter(({ c }) => o.wide || !c.priority);
      const withNamespace = o.allNamespaces && t.namespaced;
      return {
        headers: [...(withNamespace ? ['NAMESPACE'] : []), ...shown.map(({ c }) => c.name.toUpperCase())],
        rows: t.rows.map((r) => [
          ...(withNamespace ? [r.object?.metadata?.namespace ?? ''] : []),
          ...shown.map(({ i }) => (i === 0 ? resourceName(t.kind, t.group, cellText(r.cells[i])) : cellText(r.cells[i]))),
        ]),
      };
    });
}

export function formatKindTables(views: readonly KindTablesView[]): string {
  return views.map((v) => formatTable(v.headers, v.rows, { emptyCell: '' })).join('\n');
}

/** `-o name`: one `kind.group/name` line per object, kinds in order. */
export function formatKindNames(tables: readonly KindTable[]): string {
  return tables.flatMap((t) => t.rows.map((r) => `${resourceName(t.kind, t.group, r.object?.metadata?.name ?? cellText(r.cells[0]))}\n`)).join('');
}
