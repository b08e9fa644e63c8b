// `rollout verify` in the CI's own language, as the release gate speaks it (ci-report.ts): each step's
// checks folded in a GitHub group or a GitLab section while they run, an annotation for a failed or
// inconclusive step, a job summary (one row per step and check), a JUnit report (one testcase per check
// of a step) and the evidence of a failed step as files. Pure: it renders the events the command emits.
import { githubError, githubEscapeData, gitlabSectionName, xmlEscape, type CiFlavour } from './ci-report';
import type { VerifyEvent } from './verify';

interface CheckRow {
  step: number;
  check: string;
  type: string;
  phase?: string;
  reason?: string;
  subject?: string;
  lines: string[];
  evidence: string[];
  startedAt: number;
  endedAt?: number;
}

interface StepRow {
  step: number;
  steps: number;
  revision: string;
  verdict?: string;
  summary?: string;
  action?: string;
  startedAt: number;
}

export type VerifyOutcome = 'complete' | 'until' | 'failed' | 'cancelled' | 'inconclusive' | 'unreleased' | 'timeout';

export class VerifyReport {
  private readonly checks: CheckRow[] = [];
  private readonly steps: StepRow[] = [];
  private outcome: { result: VerifyOutcome; message: string } | undefined;
  private openSection: { step: number; name: string } | undefined;

  constructor(
    readonly who: { namespace: string; name: string },
    private readonly ci: CiFlavour,
    private readonly now: () => number = Date.now,
  ) {}

  get namespace(): string {
    return this.who.namespace;
  }

  get name(): string {
    return this.who.name;
  }

  /** Records an event; returns what the CI wants printed around it (before, after) on the human output. */
  record(e: VerifyEvent): { before: string; after: string } {
    const t = this.now();
    let before = '';
    let after = '';
    switch (e.event) {
      case 'step':
        before = this.closeSection();
        this.steps.push({ step: e.step, steps: e.steps, revision: e.revision, startedAt: t });
        for (const c of e.checks) this.checks.push({ step: e.step, check: c, type: '', lines: [], evidence: [], startedAt: t });
        before += this.openSectionFor(e.step, `rollout/${this.who.name} step ${e.step}/${e.steps}: ${e.checks.join(', ')}`);
        break;
      case 'measurement':
      case 'note': {
        const row = this.checkRow(e.step, e.check);
        if (row) {
          if (e.event === 'measurement') row.type = e.type;
          row.lines.push(e.event === 'measurement' ? `#${e.index}/${e.count} ${e.outcome}: ${e.message}` : e.message);
        }
        break;
      }
      case 'check': {
        const row = this.checkRow(e.step, e.check);
        if (row) Object.assign(row, { type: e.type, phase: e.phase, reason: e.reason, subject: e.subject, evidence: e.evidence ?? [], endedAt: t });
        break;
      }
      case 'verdict': {
        const s = this.stepRow(e.step);
        if (s) Object.assign(s, { verdict: e.verdict, summary: e.summary });
        after = this.closeSection();
        if (e.verdict === 'fail' && this.ci === 'github') after += githubError(`rollout/${this.who.name} step ${e.step} failed its checks`, e.summary);
        break;
      }
      case 'inconclusive': {
        const s = this.stepRow(e.step);
        if (s) Object.assign(s, { verdict: 'inconclusive', summary: e.summary });
        after = this.closeSection();
        if (this.ci === 'github') after += githubError(`rollout/${this.who.name} step ${e.step} inconclusive`, e.summary);
        break;
      }
      case 'approved': {
        const s = this.stepRow(e.step);
        if (s) s.action = e.unchecked ? 'approved (unchecked)' : 'approved';
        else this.steps.push({ step: e.step, steps: 0, revision: e.revision, action: 'approved (unchecked)', startedAt: t });
        break;
      }
      case 'rollback': {
        const s = this.stepRow(e.step);
        if (s) s.action = `rolled back (${e.action})`;
        break;
      }
      case 'done':
        this.outcome = { result: e.result, message: e.message };
        before = this.closeSection();
        if (this.ci === 'github' && (e.result === 'cancelled' || e.result === 'unreleased')) after = githubError(`rollout/${this.who.name} ${e.result}`, e.message);
        break;
      default:
        break;
    }
    return { before, after };
  }

  /** The run ended without a done event (--timeout, an error): what it ended with. */
  finish(result: VerifyOutcome, message: string): string {
    this.outcome ??= { result, message };
    const out = this.closeSection();
    return this.ci === 'github' && result === 'timeout' ? out + githubError(`rollout/${this.who.name} verify timed out`, message) : out;
  }

  /** Interrupted or ended by an error: the open group or section closed, the outcome left unsaid ("stopped"). */
  interrupt(): string {
    return this.closeSection();
  }

  private checkRow(step: number, check: string): CheckRow | undefined {
    for (let i = this.checks.length - 1; i >= 0; i--) if (this.checks[i]!.step === step && this.checks[i]!.check === check) return this.checks[i];
    return undefined;
  }

  private stepRow(step: number): StepRow | undefined {
    for (let i = this.steps.length - 1; i >= 0; i--) if (this.steps[i]!.step === step) return this.steps[i];
    return undefined;
  }

  private openSectionFor(step: number, title: string): string {
    if (this.ci === 'none') return '';
    const name = gitlabSectionName(`verify_${this.who.name}_step_${step}`);
    this.openSection = { step, name };
    if (this.ci === 'github') return `::group::${githubEscapeData(title)}\n`;
    return `\x1b[0Ksection_start:${Math.floor(this.now() / 1000)}:${name}[collapsed=true]\r\x1b[0K${title}\n`;
  }

  private closeSection(): string {
    const s = this.openSection;
    if (!s) return '';
    this.openSection = undefined;
    if (this.ci === 'github') return '::endgroup::\n';
    return `\x1b[0Ksection_end:${Math.floor(this.now() / 1000)}:${s.name}\r\x1b[0K\n`;
  }

  private checkVerdict(c: CheckRow): 'pass' | 'fail' | 'inconclusive' | 'stopped' {
    const p = (c.phase ?? '').toLowerCase();
    if (p === 'pass' || p === 'passed' || p === 'successful') return 'pass';
    if (p === 'fail' || p === 'failed' || p === 'error') return 'fail';
    if (p === 'inconclusive') return 'inconclusive';
    return 'stopped';
  }

  /** Markdown for $GITHUB_STEP_SUMMARY: the outcome, one row per check of a step, the failures' measurements. */
  markdown(): string {
    const o = this.outcome;
    const head = `### kubectl kruise rollout verify rollout/${this.who.name}: ${o ? o.result : 'stopped'}`;
    const lines = [head, '', md(o?.message ?? ''), '', '| Step | Check | Verdict | Reason | Step action |', '|---|---|---|---|---|'];
    for (const c of this.checks) {
      const s = this.stepRow(c.step);
      lines.push(`| ${c.step} | \`${md(c.check)}\` | ${md(this.checkVerdict(c))} | ${md(c.reason ?? '')} | ${md(s?.action ?? s?.verdict ?? '')} |`);
    }
    for (const c of this.checks) {
      if (this.checkVerdict(c) !== 'fail' && this.checkVerdict(c) !== 'inconclusive') continue;
      lines.push('', `<details><summary>Measurements of <code>${md(c.check)}</code> at step ${c.step}</summary>`, '', '```text', ...this.evidenceLines(c), '```', '', '</details>');
    }
    return `${lines.join('\n')}\n\n`;
  }

  /** JUnit XML: one testcase per check of a step; a failed check a <failure>, an inconclusive one <skipped>, a timeout an <error>. */
  junit(startedAt: number): string {
    const now = this.now();
    const cases: string[] = [];
    let failures = 0;
    let errors = 0;
    let skipped = 0;
    for (const c of this.checks) {
      const v = this.checkVerdict(c);
      const time = (((c.endedAt ?? now) - c.startedAt) / 1000).toFixed(3);
      const open = `    <testcase classname="${xmlEscape(`${this.who.namespace}.rollout/${this.who.name}`)}" name="${xmlEscape(`step ${c.step}: ${c.check}`)}" time="${time}">`;
      const body = xmlEscape(this.evidenceLines(c).join('\n'));
      if (v === 'pass') cases.push(open, `      <system-out>${body}</system-out>`, '    </testcase>');
      else if (v === 'fail') (failures++, cases.push(open, `      <failure message="${xmlEscape(c.reason ?? 'failed')}" type="CheckFailed">${body}</failure>`, '    </testcase>'));
      else if (v === 'inconclusive') (skipped++, cases.push(open, `      <skipped message="${xmlEscape(`inconclusive: ${c.reason ?? ''}`)}"/>`, '    </testcase>'));
      else (skipped++, cases.push(open, `      <skipped message="not decided by this run (the release moved on, or another run decided)"/>`, '    </testcase>'));
    }
    const o = this.outcome;
    if (o && (o.result === 'timeout' || o.result === 'cancelled' || o.result === 'unreleased')) {
      errors++;
      cases.push(`    <testcase classname="${xmlEscape(`${this.who.namespace}.rollout/${this.who.name}`)}" name="release" time="${((now - startedAt) / 1000).toFixed(3)}">`, `      <error message="${xmlEscape(o.message)}" type="${o.result === 'timeout' ? 'TimedOut' : o.result === 'cancelled' ? 'Cancelled' : 'Unreleased'}">${xmlEscape(o.message)}</error>`, '    </testcase>');
    }
    const tests = this.checks.length + (errors ? 1 : 0);
    const attrs = `tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${((now - startedAt) / 1000).toFixed(3)}"`;
    const suite = `rollout verify ${this.who.namespace}/rollout/${this.who.name}`;
    return `${['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="kubectl kruise rollout verify" ${attrs}>`, `  <testsuite name="${xmlEscape(suite)}" ${attrs} timestamp="${new Date(startedAt).toISOString().replace(/\.\d+Z$/, '')}">`, ...cases, '  </testsuite>', '</testsuites>'].join('\n')}\n`;
  }

  /** Evidence files for the steps that failed or were inconclusive: `step-N-CHECK.txt` (measurements, Job logs). */
  evidenceFiles(): Array<{ name: string; content: string }> {
    const out: Array<{ name: string; content: string }> = [];
    for (const c of this.checks) {
      const v = this.checkVerdict(c);
      if (v !== 'fail' && v !== 'inconclusive') continue;
      const safe = c.check.replace(/[^A-Za-z0-9_.-]/g, '_');
      out.push({ name: `step-${c.step}-${safe}.txt`, content: `${this.evidenceLines(c).join('\n')}\n` });
    }
    return out;
  }

  private evidenceLines(c: CheckRow): string[] {
    return [`${c.check} (${c.type || 'check'}${c.subject ? ` ${c.subject}` : ''}) at step ${c.step}: ${c.phase ?? 'not finished'}${c.reason ? `: ${c.reason}` : ''}`, ...c.lines.map((l) => `  ${l}`), ...c.evidence.map((l) => `  ${l}`)];
  }
}

function md(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>').replace(/</g, '&lt;');
}
