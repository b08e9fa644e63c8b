// kubectl-style tables: upper-case headers, columns separated by three spaces,
// no borders (what scripts and eyes expect from `kubectl get`).

export function formatTable(headers: string[], rows: Array<Array<string | number | undefined>>, opts: { noHeaders?: boolean; emptyCell?: string } = {}): string {
  // kubectl prints "<none>" for its own empty columns, nothing for a CRD printer column without a value.
  const empty = opts.emptyCell ?? '<none>';
  const cells = rows.map((r) => r.map((c) => (c === undefined || c === '' ? empty : String(c))));
  const all = opts.noHeaders ? cells : [headers, ...cells];
  // Widths count what shows: a coloured cell's escape codes take no column on the terminal.
  const widths = headers.map((_, i) => Math.max(...all.map((r) => visibleLength(r[i] ?? ''))));
  return all
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(Math.max(0, widths[i]! - visibleLength(c)))))
        .join('   ')
        .trimEnd(),
    )
    .map((l) => `${l}\n`)
    .join('');
}

// SGR sequences (what chalk writes): ESC [ params m.
const SGR = /\x1b\[[0-9;]*m/g;

/** The columns a cell takes on a terminal: its length without colour escape codes. */
export function visibleLength(text: string): number {
  return text.includes('\x1b') ? text.replace(SGR, '').length : text.length;
}

/** Seconds as kubectl prints durations below two years: 45s, 2m30s, 4h, 3d. */
export function formatSeconds(secs: number): string {
  if (secs < 120) return `${secs}s`;
  const mins = Math.floor(secs / 60);
  if (mins < 10) return `${mins}m${secs % 60 ? `${secs % 60}s` : ''}`;
  if (mins < 180) return `${mins}m`;
  const hours = Math.floor(mins / 60);
  if (hours < 48) return `${hours}h`;
  return `${Math.floor(hours / 24)}d`;
}

/** Kubernetes-style age: 5s, 3m, 2m30s, 4h, 3d, 2y. */
export function formatAge(from: string | undefined, now: number = Date.now()): string {
  if (!from) return '<unknown>';
  const secs = Math.max(0, Math.floor((now - Date.parse(from)) / 1000));
  const days = Math.floor(secs / 86400);
  return days < 730 ? formatSeconds(secs) : `${Math.floor(days / 365)}y`;
}
