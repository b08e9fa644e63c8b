// What a release-level gate prints at its end, pure: the summary table (one row per followed object:
// workload, verdict, updated/ready, time taken, reason), the closing line with the exit code, the
// evidence of each failed or timed-out workload as text (events as `kubectl events` prints them), the
// files of --evidence-dir, and the final JSON Lines record.
import { formatAge, formatTable } from './table';
import { formatTaken, verdictWord, type GateRow } from './gate-rows';
import type { Evidence, EventLine } from '../kruise/evidence';
import { yamlLib } from '../lib/yaml';

export interface ReleaseSummary {
  rows: GateRow[];
  /** Objects of the manifest without a rollout (Services, ConfigMaps...), by kind. */
  skipped: Record<string, number>;
  code: number;
  /** Evidence by row ref (failed and timed-out rows). */
  evidence: Map<string, Evidence>;
  /** What the gate was about: `the objects of manifest.yaml`, `helm release web (revision 3)`. */
  subject: string;
}

function counts(n: number, d: number | undefined): string {
  return d === undefined ? '-' : `${n}/${d}`;
}

function refOf(row: GateRow, namespaces: number): string {
  return namespaces > 1 ? `${row.namespace}/${row.ref}` : row.ref;
}

/** `cloneset/web   complete   4/4   4/4   12s   ...`: kubectl's table style, no borders. */
export function summaryTable(rows: readonly GateRow[]): string {
  const namespaces = new Set(rows.map((r) => r.namespace)).size;
  return formatTable(
    ['WORKLOAD', 'VERDICT', 'UPDATED', 'READY', 'TIME', 'REASON'],
    rows.map((r) => [refOf(r, namespaces), verdictWord(r), counts(r.updated ?? 0, r.desired), counts(r.ready ?? 0, r.desired), formatTaken(r.seconds), oneLine(r.reason)]),
    { emptyCell: '-' },
  );
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}

/** `release: 4 workloads: 2 complete, 1 failed, 1 waiting for approval; skipped 3 objects without a rollout (ConfigMap x2, Service); exit 1` */
export function summaryLine(s: Pick<ReleaseSummary, 'rows' | 'skipped' | 'code'>): string {
  const tally = new Map<string, number>();
  for (const r of s.rows) {
    const w = verdictWord(r).replace(/ \(.*\)$/, '');
    tally.set(w, (tally.get(w) ?? 0) + 1);
  }
  // Worst first, whatever the order of the rows.
  const severity = (w: string): number => ['failed', 'timed out', 'not finished', 'waiting for approval'].indexOf(w) >>> 0;
  const parts = [...tally.entries()].sort(([a], [b]) => severity(a) - severity(b)).map(([w, n]) => `${n} ${w}`);
  const skippedTotal = Object.values(s.skipped).reduce((a, b) => a + b, 0);
  const skipped = skippedTotal
    ? `; skipped ${skippedTotal} ${skippedTotal === 1 ? 'object' : 'objects'} without a rollout (${Object.entries(s.skipped)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, n]) => (n > 1 ? `${k} x${n}` : k))
        .join(', ')})`
    : '';
  return `${s.rows.length} ${s.rows.length === 1 ? 'workload' : 'workloads'}: ${parts.join(', ')}${skipped}; exit ${s.code}`;
}

/** kubectl events' LAST SEEN column (event_printer.go getInterval): `5s`, `5s (x4 over 40s)`. */
export function eventInterval(e: EventLine, now: number): string {
  const last = formatAge(e.lastSeen, now);
  return e.count > 1 ? `${last} (x${e.count} over ${formatAge(e.firstSeen, now)})` : formatAge(e.firstSeen, now);
}

export function eventsTable(events: readonly EventLine[], now: number): string {
  return formatTable(
    ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'],
    events.map((e) => [eventInterval(e, now), e.type, e.reason, e.object, e.message]),
    { emptyCell: '' },
  );
}

function indent(text: string, by = '  '): string {
  return text
    .split('\n')
    .map((l) => (l ? `${by}${l}` : l))
    .join('\n');
}

/** The evidence of one workload as text (stdout, the GitHub summary's <details>, the JUnit failure body). */
export function evidenceText(ev: Evidence, now: number): string {
  const out: string[] = [];
  if (ev.pods.length === 0) out.push('no pod in trouble found');
  for (const p of ev.pods) out.push(`pod ${p.name}${p.node ? ` (node ${p.node})` : ''}: ${p.summary}`);
  for (const o of ev.objects) out.push(`${o.kind} ${o.name}: ${o.summary}`);
  if (ev.events.length) out.push(`Warning events:\n${indent(eventsTable(ev.events, now).trimEnd())}`);
  for (const l of ev.logs) {
    const what = `log of pod ${l.pod}, container ${l.container}${l.previous ? ' (previous instance)' : ''}`;
    if (l.error) out.push(`${what}: could not be read: ${l.error}`);
    else if (l.lines.length === 0) out.push(`${what}: empty`);
    else out.push(`${what}, last ${l.lines.length} ${l.lines.length === 1 ? 'line' : 'lines'}:\n${l.lines.map((x) => `  | ${x}`).join('\n')}`);
  }
  for (const n of ev.notes) out.push(`not read: ${n}`);
  return out.join('\n');
}

/** The stdout block after the table: each failed or timed-out row's evidence under its name. */
export function evidenceSection(s: Pick<ReleaseSummary, 'rows' | 'evidence'>, now: number): string {
  const blocks: string[] = [];
  for (const r of s.rows) {
    const ev = s.evidence.get(r.ref);
    if (!ev) continue;
    blocks.push(`Evidence for ${r.ref} (${verdictWord(r)}):\n${indent(evidenceText(ev, now))}\n`);
  }
  return blocks.join('\n');
}

/** --evidence-dir: one folder per workload (`<namespace>_<kind>_<name>`): summary, events, logs, the objects as YAML. */
export function evidenceFiles(row: GateRow, ev: Evidence, now: number): { folder: string; files: Array<{ name: string; content: string }> } {
  const folder = `${row.namespace}_${row.kind.toLowerCase()}_${row.name}`;
  const files: Array<{ name: string; content: string }> = [];
  files.push({ name: 'summary.txt', content: `${row.ref} in namespace ${row.namespace}: ${verdictWord(row)} after ${formatTaken(row.seconds)}\n${row.reason}\n\n${evidenceText(ev, now)}\n` });
  files.push({ name: 'events.txt', content: ev.events.length ? eventsTable(ev.events, now) : 'No Warning events.\n' });
  for (const l of ev.logs) {
    files.push({ name: `log_${l.pod}_${l.container}${l.previous ? '_previous' : ''}.txt`, content: l.error ? `could not be read: ${l.error}\n` : `${l.lines.join('\n')}\n` });
  }
  const yaml = yamlLib();
  for (const pod of ev.podObjects ?? []) files.push({ name: `pod_${pod.metadata.name ?? ''}.yaml`, content: yaml.stringify(pod, { lineWidth: 0, aliasDuplicateObjects: false }) });
  for (const o of ev.objects) files.push({ name: `${o.kind.toLowerCase()}_${o.name}.yaml`, content: yaml.stringify(o.object, { lineWidth: 0, aliasDuplicateObjects: false }) });
  return { folder, files };
}

/** The evidence in the JSON record: the pods as summarised (their objects are for the evidence directory). */
function evidenceJson(ev: Evidence | undefined): Omit<Evidence, 'podObjects'> | null {
  if (!ev) return null;
  const { podObjects: _objects, ...rest } = ev;
  return rest;
}

/** The final JSON Lines record of a release gate: every row, the exit code, and the evidence. */
export function summaryJson(s: ReleaseSummary): string {
  return JSON.stringify({
    kind: 'ReleaseGateSummary',
    subject: s.subject,
    code: s.code,
    skipped: s.skipped,
    workloads: s.rows.map((r) => ({
      ref: r.ref,
      kind: r.kind,
      apiVersion: r.apiVersion,
      namespace: r.namespace,
      name: r.name,
      state: r.state,
      verdict: r.verdict,
      code: r.code,
      desired: r.desired ?? null,
      updated: r.updated ?? null,
      ready: r.ready ?? null,
      seconds: Math.round(r.seconds * 10) / 10,
      reason: r.reason,
      ...(r.workload ? { workload: r.workload } : {}),
      ...(r.step ? { step: r.step } : {}),
      evidence: evidenceJson(s.evidence.get(r.ref)),
    })),
  });
}
