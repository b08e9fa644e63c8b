// A release gate's outcome in the CI's own language, pure:
// - GitHub Actions workflow commands (docs.github.com "Workflow commands for GitHub Actions"):
//   `::group::TITLE` ... `::endgroup::`, `::error title=TITLE::MESSAGE`, with the escaping of the
//   actions toolkit (@actions/core command.ts escapeData / escapeProperty: % \r \n, and : , in
//   properties); the job summary is Markdown appended to $GITHUB_STEP_SUMMARY.
// - GitLab CI collapsible sections (docs.gitlab.com "CI/CD job logs", custom collapsible sections):
//   `\e[0Ksection_start:UNIX_SECONDS:NAME[collapsed=true]\r\e[0KHEADER` ... `\e[0Ksection_end:UNIX_SECONDS:NAME\r\e[0K`.
// - JUnit XML (the Ant/Jenkins schema every CI reads): one testcase per followed object; failed is a
//   <failure>, timed out an <error>, one not waited for further a <skipped>.
import { formatTaken, verdictWord, type GateRow } from './gate-rows';
import { evidenceText, summaryLine, type ReleaseSummary } from './release-summary';

export type CiFlavour = 'github' | 'gitlab' | 'none';

/** --ci=auto: GitHub Actions sets GITHUB_ACTIONS=true, GitLab CI sets GITLAB_CI=true. */
export function ciFlavour(flag: string | undefined, env: NodeJS.ProcessEnv): CiFlavour {
  const v = flag ?? 'auto';
  if (v === 'github' || v === 'gitlab' || v === 'none') return v;
  if (env.GITHUB_ACTIONS === 'true') return 'github';
  if (env.GITLAB_CI === 'true') return 'gitlab';
  return 'none';
}

export function githubEscapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function githubEscapeProperty(s: string): string {
  return githubEscapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** A workflow command that would end the group (or stop commands) must not pass through as log text. */
function githubLine(line: string): string {
  return line.startsWith('::') ? ` ${line}` : line;
}

export function githubGroup(title: string, lines: readonly string[]): string {
  return `::group::${githubEscapeData(title)}\n${lines.map((l) => `${githubLine(l)}\n`).join('')}::endgroup::\n`;
}

export function githubError(title: string, message: string): string {
  return `::error title=${githubEscapeProperty(title)}::${githubEscapeData(message)}\n`;
}

/** GitLab section names: letters, digits, `_`, `.` and `-`. */
export function gitlabSectionName(s: string): string {
  return s.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100) || 'section';
}

export function gitlabSection(name: string, header: string, lines: readonly string[], startSeconds: number, endSeconds: number): string {
  const id = gitlabSectionName(name);
  return `\x1b[0Ksection_start:${startSeconds}:${id}[collapsed=true]\r\x1b[0K${header}\n${lines.map((l) => `${l}\n`).join('')}\x1b[0Ksection_end:${endSeconds}:${id}\r\x1b[0K\n`;
}

/** One annotation per failed or timed-out row: its verdict as the title, the reason and the worst pod as the message. */
export function githubAnnotations(s: Pick<ReleaseSummary, 'rows' | 'evidence'>): string {
  let out = '';
  for (const r of s.rows) {
    if (r.verdict !== 'failed' && r.verdict !== 'timed-out') continue;
    const pod = s.evidence.get(r.ref)?.pods[0];
    out += githubError(`${r.ref} ${verdictWord(r)}`, `${r.ref} in namespace ${r.namespace}: ${r.reason}${pod ? `\npod ${pod.name}: ${pod.summary}` : ''}`);
  }
  return out;
}

function mdCell(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>').replace(/</g, '&lt;');
}

/** A fenced block whose fence no line of the text can close. */
function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text}\n${fence}`;
}

const VERDICT_MARK: Record<GateRow['verdict'], string> = { done: '✅', failed: '❌', 'timed-out': '⏱️', 'not-finished': '⏸️', stopped: '⏸️' };

/** The job summary: a heading with the outcome, the table, each failed row's evidence folded in <details>. */
export function markdownSummary(s: ReleaseSummary, now: number): string {
  const outcome = s.code === 0 ? 'passed' : s.code === 1 ? 'failed' : s.code === 3 ? 'timed out' : s.code === 130 ? 'interrupted' : 'not finished';
  const lines = [`### kubectl kruise rollout status: ${outcome}`, '', `${mdCell(s.subject)}: ${mdCell(summaryLine(s))}`, ''];
  lines.push('| Workload | Namespace | Verdict | Updated | Ready | Time | Reason |', '|---|---|---|---|---|---|---|');
  for (const r of s.rows) {
    const n = (v: number | undefined) => (r.desired === undefined ? '-' : `${v ?? 0}/${r.desired}`);
    lines.push(`| \`${mdCell(r.ref)}\` | ${mdCell(r.namespace)} | ${VERDICT_MARK[r.verdict]} ${mdCell(verdictWord(r))} | ${n(r.updated)} | ${n(r.ready)} | ${formatTaken(r.seconds)} | ${mdCell(r.reason)} |`);
  }
  for (const r of s.rows) {
    const ev = s.evidence.get(r.ref);
    if (!ev) continue;
    lines.push('', `<details><summary>Evidence for <code>${mdCell(r.ref)}</code> (${mdCell(verdictWord(r))})</summary>`, '', fenced(evidenceText(ev, now)), '', '</details>');
  }
  return `${lines.join('\n')}\n\n`;
}

/** XML 1.0 text: the five entities, and no character XML forbids (terminal escapes in a log line included). */
export function xmlEscape(s: string): string {
  return s
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** JUnit XML: one testsuite of one testcase per followed object. */
export function junitXml(s: ReleaseSummary, o: { suite: string; startedAt: number; now: number }): string {
  const failures = s.rows.filter((r) => r.verdict === 'failed' || r.verdict === 'not-finished').length;
  const errors = s.rows.filter((r) => r.verdict === 'timed-out').length;
  const skipped = s.rows.filter((r) => r.verdict === 'stopped').length;
  const time = ((o.now - o.startedAt) / 1000).toFixed(3);
  const attrs = `tests="${s.rows.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${time}"`;
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(o.suite)}" ${attrs}>`,
    `  <testsuite name="${xmlEscape(s.subject)}" ${attrs} timestamp="${new Date(o.startedAt).toISOString().replace(/\.\d+Z$/, '')}">`,
  ];
  for (const r of s.rows) {
    const open = `    <testcase classname="${xmlEscape(r.namespace)}" name="${xmlEscape(r.ref)}" time="${r.seconds.toFixed(3)}"`;
    const ev = s.evidence.get(r.ref);
    const body = `${r.reason}${ev ? `\n\n${evidenceText(ev, o.now)}` : ''}`;
    if (r.verdict === 'done') {
      out.push(`${open}>`, `      <system-out>${xmlEscape(r.reason)}</system-out>`, '    </testcase>');
      continue;
    }
    const element =
      r.verdict === 'failed' || r.verdict === 'not-finished'
        ? `<failure message="${xmlEscape(r.reason)}" type="${r.verdict === 'failed' ? 'Failed' : 'NotFinished'}">${xmlEscape(body)}</failure>`
        : r.verdict === 'timed-out'
          ? `<error message="${xmlEscape(r.reason)}" type="TimedOut">${xmlEscape(body)}</error>`
          : `<skipped message="${xmlEscape(`not waited for further (${verdictWord(r)}): ${r.reason}`)}"/>`;
    out.push(`${open}>`, `      ${element}`, '    </testcase>');
  }
  out.push('  </testsuite>', '</testsuites>');
  return `${out.join('\n')}\n`;
}
