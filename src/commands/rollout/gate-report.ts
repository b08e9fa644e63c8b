// The report of a gate over several objects (a release's manifest, --helm-release, several names):
// records every object's last state as the watches report it (GateLedger), shows the progress (one
// line per change; on a terminal one line per workload redrawn in place; in GitHub Actions or GitLab
// CI each workload's lines folded in a group once it ends), and at the end prints one summary table,
// the evidence of what failed or timed out, and hands CI its files (--junit, --evidence-dir,
// $GITHUB_STEP_SUMMARY). The exit code is the worst row's (1 > 3 > 4 > 0).
import { mkdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandContext } from '../../cli/context';
import { ExitCode } from '../../cli/exit';
import type { KubeClient, ResourceType } from '../../kube/client';
import type { RolloutProgress } from '../../kruise/progress';
import type { ReleaseReport } from '../../printers/rollout-release';
import { releaseIsFinal, releaseLine } from '../../printers/rollout-release';
import { humanLine, isFinal } from '../../printers/rollout-status';
import { redrawInPlace, terminalRows } from '../../printers/rollout-describe';
import { objectRef, rowFromProgress, rowFromRelease, worstExitCode, needsEvidence, verdictWord, type GateRow } from '../../printers/gate-rows';
import { evidenceFiles, evidenceSection, evidenceText, summaryJson, summaryLine, summaryTable, type ReleaseSummary } from '../../printers/release-summary';
import { githubAnnotations, githubGroup, gitlabSection, junitXml, markdownSummary, type CiFlavour } from '../../printers/ci-report';
import { collectEvidence, type EvidenceTarget } from './evidence';
import type { Evidence } from '../../kruise/evidence';
import { workloadTypeOf } from './kruise-rollout';
import { readRollout } from '../../kruise/rollout/read';

/** How long reading the evidence may take after the verdict (its requests are cut then). */
export const EVIDENCE_BUDGET_MS = 10_000;

export interface StatusPrinter {
  change(p: RolloutProgress): void;
  /** The same state a second later (a failing pod's countdown): only the spinner shows it. */
  tick(p: RolloutProgress): void;
  /** A change of a workload followed with its Kruise Rollout. */
  release(r: ReleaseReport): void;
  close(): void;
}

export interface ReportSettings {
  ci: CiFlavour;
  junit?: string;
  evidenceDir?: string;
  /** -o json: the summary is one more JSON Lines record, nothing else on stdout. */
  json: boolean;
  /** -o name: only the names of the objects that passed on stdout (no summary, no evidence text). */
  names?: boolean;
  /** Print the table even for one object (a manifest, a Helm release, CI files asked for). */
  alwaysSummary: boolean;
  /** What the gate is about, for the summary's title. */
  subject: string;
  /** Objects of the manifest without a rollout, by kind. */
  skipped: Record<string, number>;
  /** One line per workload redrawn in place (stdout is a terminal and decoration is allowed). */
  liveBlock: boolean;
}

interface Entry {
  key: string;
  progress?: RolloutProgress;
  release?: ReleaseReport;
  /** When the verdict came (ms); undefined while waiting. */
  finalAt?: number;
  /** Lines kept for a CI group, until the object ends. */
  lines: string[];
  groupPrinted: boolean;
}

function progressKey(p: Pick<RolloutProgress, 'namespace' | 'kind' | 'name'>): string {
  return `${p.namespace}/${p.kind}/${p.name}`;
}

export class GateReport {
  readonly startedAt = Date.now();
  private readonly entries = new Map<string, Entry>();
  private blockRows = 0;
  /** Resource types of the followed kinds, by "group/Kind", for reading the evidence. */
  private readonly types = new Map<string, ResourceType>();

  constructor(
    private readonly ctx: CommandContext,
    private readonly settings: ReportSettings,
  ) {}

  /** Rows in the order of the manifest (or the arguments): each followed object's `namespace/Kind/name`, in order. */
  private order = new Map<string, number>();

  setOrder(keys: readonly string[]): void {
    this.order = new Map(keys.map((k, i) => [k, i] as const).reverse());
  }

  private rank(row: GateRow): number {
    const own = this.order.get(`${row.namespace}/${row.kind}/${row.name}`);
    const workload = row.workload ? this.order.get(`${row.namespace}/${row.workload}`) : undefined;
    return Math.min(own ?? Infinity, workload ?? Infinity);
  }

  knowType(rt: ResourceType): void {
    this.types.set(`${rt.group}/${rt.kind}`, rt);
  }

  /** A printer that records each change and shows it as the settings say (`base` prints the plain lines). */
  wrap(base: StatusPrinter): StatusPrinter {
    const mode = this.settings.json || this.settings.names ? 'plain' : this.settings.liveBlock ? 'block' : this.settings.ci !== 'none' ? 'groups' : 'plain';
    const entry = (key: string): Entry => {
      let e = this.entries.get(key);
      if (!e) this.entries.set(key, (e = { key, lines: [], groupPrinted: false }));
      return e;
    };
    // One change of one object: recorded, then shown plainly, in the redrawn block, or in its CI group.
    const changed = (e: Entry, final: boolean, failed: boolean, line: () => string, plain: () => void): void => {
      if (final && e.finalAt === undefined) e.finalAt = Date.now();
      if (mode === 'plain') return plain();
      if (mode === 'block') return this.redraw();
      e.lines.push(line());
      if (failed) plain(); // its error: line, on stderr
      if (final) this.printGroup(e);
    };
    return {
      change: (p) => {
        const e = entry(progressKey(p));
        e.progress = p;
        changed(e, isFinal(p), p.state === 'Failed' || p.state === 'TimedOut', () => humanLine(p, Date.now()), () => base.change(p));
      },
      tick: (p) => {
        if (mode === 'plain') base.tick(p);
        else if (mode === 'block') {
          entry(progressKey(p)).progress = p;
          this.redraw();
        }
      },
      release: (r) => {
        const e = entry(`${r.namespace}/Rollout/${r.name}`);
        e.release = r;
        changed(e, releaseIsFinal(r), r.state === 'Failed' || r.state === 'TimedOut', () => releaseLine(r, Date.now()), () => base.release(r));
      },
      close: () => base.close(),
    };
  }

  private title(e: Entry): string {
    if (e.release) return `rollout/${e.release.name}${e.release.workload ? ` (${e.release.workload})` : ''}`;
    const p = e.progress!;
    return objectRef(p.kind, p.apiVersion, p.name);
  }

  private lineOf(e: Entry, now: number): string {
    return e.release ? releaseLine(e.release, now) : e.progress ? humanLine(e.progress, now) : '';
  }

  /** GitHub Actions / GitLab: an object's lines in one folded group once it ends (`finished`: by its own verdict). */
  private printGroup(e: Entry, finished = true): void {
    if (e.groupPrinted || e.lines.length === 0) return;
    e.groupPrinted = true;
    const row = this.rowOf(e, Date.now(), finished);
    const header = `${this.title(e)}: ${row ? verdictWord(row) : 'waiting'}`;
    const out = this.settings.ci === 'github' ? githubGroup(header, e.lines) : gitlabSection(`gate_${e.key}`, header, e.lines, Math.floor(this.startedAt / 1000), Math.floor(Date.now() / 1000));
    this.ctx.term.stdout.write(out);
    e.lines = [];
  }

  private redraw(): void {
    const now = Date.now();
    const text = [...this.entries.values()].map((e) => `${this.title(e)}: ${this.lineOf(e, now)}`).join('\n');
    const columns = (this.ctx.term.stdout as { columns?: number }).columns;
    this.ctx.term.stdout.write(redrawInPlace(text, this.blockRows));
    this.blockRows = terminalRows(text, columns);
  }

  private rowOf(e: Entry, now: number, finished: boolean): GateRow | undefined {
    const seconds = ((e.finalAt ?? now) - this.startedAt) / 1000;
    const final = e.finalAt !== undefined || finished;
    if (e.release) return rowFromRelease(e.release, seconds, final);
    if (e.progress) return rowFromProgress(e.progress, seconds, final);
    return undefined;
  }

  /**
   * The rows at the end. `waitEnded`: the wait ran to its own end (every watch gave a verdict, or
   * --watch=false); otherwise objects still waiting were stopped because the outcome was decided.
   */
  rows(waitEnded: boolean): GateRow[] {
    const now = Date.now();
    const rows = [...this.entries.values()].map((e) => this.rowOf(e, now, waitEnded)).filter((r): r is GateRow => r !== undefined);
    const ranked = rows.map((row, seen) => ({ row, rank: this.rank(row), seen }));
    return ranked.sort((a, b) => a.rank - b.rank || a.seen - b.seen).map((x) => x.row);
  }

  /** Prints the summary, reads and prints the evidence, writes the CI files; returns the exit code. */
  async finish(client: KubeClient, codes: readonly number[], waitEnded: boolean): Promise<number> {
    const now = (): number => Date.now();
    // Groups of objects stopped before their verdict (the outcome was decided elsewhere).
    if (this.showsGroups) for (const e of this.entries.values()) this.printGroup(e);
    const rows = this.rows(waitEnded);
    const code = worstExitCode([...codes, ...rows.map((r) => r.code)]);
    const wantsSummary = this.settings.alwaysSummary || rows.length > 1;
    const out = this.ctx.term.stdout;
    if (this.settings.liveBlock) {
      this.redraw();
      for (const r of rows) if (r.verdict === 'failed' || r.verdict === 'timed-out') this.ctx.term.stderr.write(`error: ${r.reason}\n`);
    }
    if (!wantsSummary && this.settings.ci === 'none' && !this.settings.junit && !this.settings.evidenceDir) return code;

    const evidence = await this.readEvidence(client, rows);
    const summary: ReleaseSummary = { rows, skipped: this.settings.skipped, code, evidence, subject: this.settings.subject };
    // JSON Lines of named objects keep their contract (the last line of each object is its final state); a release adds its record.
    if (this.settings.json) {
      if (this.settings.alwaysSummary) out.write(`${summaryJson(summary)}\n`);
    }
    else if (!this.settings.names && (wantsSummary || evidence.size > 0)) {
      if (wantsSummary) out.write(`\n${summaryTable(rows)}${summaryLine(summary)}\n`);
      const section = evidenceSection(summary, now());
      if (section) {
        const folded = rows.filter((x) => evidence.has(x.ref)).map((r) => ({ title: `Evidence for ${r.ref} (${verdictWord(r)})`, lines: evidenceText(evidence.get(r.ref)!, now()).split('\n'), key: `evidence_${r.namespace}_${r.ref}` }));
        if (this.settings.ci === 'github') for (const f of folded) out.write(githubGroup(f.title, f.lines));
        else if (this.settings.ci === 'gitlab') for (const f of folded) out.write(gitlabSection(f.key, f.title, f.lines, Math.floor(now() / 1000), Math.floor(now() / 1000)));
        else out.write(`\n${section}`);
      }
    }
    this.writeCiFiles(summary);
    return code;
  }

  private get showsGroups(): boolean {
    return this.settings.ci !== 'none' && !this.settings.json && !this.settings.names && !this.settings.liveBlock;
  }

  /**
   * Ctrl-C (a CI cancel sends SIGINT): the process exits right after, so the lines held back for CI
   * groups are printed now, and the CI files written with the objects still waiting as stopped
   * (JUnit `<skipped>`). No evidence is read: there is no time left for requests.
   */
  interrupted(): void {
    if (this.showsGroups) for (const e of this.entries.values()) this.printGroup(e, false);
    const rows = this.rows(false);
    this.writeCiFiles({ rows, skipped: this.settings.skipped, code: ExitCode.INTERRUPTED, evidence: new Map(), subject: this.settings.subject });
  }

  /** The annotations, job summary, JUnit file and evidence folder of a summary. */
  private writeCiFiles(summary: ReleaseSummary): void {
    const now = (): number => Date.now();
    const { rows, evidence } = summary;
    if (this.settings.ci === 'github') {
      this.ctx.term.stdout.write(githubAnnotations(summary));
      const file = this.ctx.term.env.GITHUB_STEP_SUMMARY;
      if (file) this.writeCiFile('$GITHUB_STEP_SUMMARY', () => appendFileSync(file, markdownSummary(summary, now())));
    }
    const junit = this.settings.junit;
    if (junit) this.writeCiFile(`--junit ${junit}`, () => writeFileSync(junit, junitXml(summary, { suite: 'kubectl kruise rollout status', startedAt: this.startedAt, now: now() })));
    const dir = this.settings.evidenceDir;
    if (dir) {
      this.writeCiFile(`--evidence-dir ${dir}`, () => {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'summary.txt'), `${summaryTable(rows)}${summaryLine(summary)}\n`);
        for (const r of rows) {
          const ev = evidence.get(r.ref);
          if (!ev) continue;
          const { folder, files } = evidenceFiles(r, ev, now());
          mkdirSync(join(dir, folder), { recursive: true });
          for (const f of files) writeFileSync(join(dir, folder, f.name), f.content);
        }
      });
    }
  }

  /** A CI file that cannot be written is said, not fatal: the gate's verdict stands. */
  private writeCiFile(what: string, write: () => void): void {
    try {
      write();
    } catch (err) {
      this.ctx.term.stderr.write(`warning: could not write ${what}: ${(err as Error).message}\n`);
    }
  }

  /** Evidence of the failed and timed-out rows, read concurrently, cut after EVIDENCE_BUDGET_MS. */
  private async readEvidence(client: KubeClient, rows: readonly GateRow[]): Promise<Map<string, Evidence>> {
    const out = new Map<string, Evidence>();
    const wanted = rows.filter(needsEvidence);
    if (wanted.length === 0) return out;
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), EVIDENCE_BUDGET_MS);
    const onInterrupt = (): void => ac.abort();
    this.ctx.signal.addEventListener('abort', onInterrupt, { once: true });
    try {
      await Promise.all(
        wanted.map(async (row) => {
          const target = await this.evidenceTarget(client, row, ac.signal);
          try {
            out.set(row.ref, await collectEvidence(client, target, ac.signal));
          } catch (err) {
            out.set(row.ref, { ref: row.ref, namespace: row.namespace, pods: [], events: [], logs: [], objects: [], notes: [`evidence: ${(err as Error).message}`] });
          }
        }),
      );
    } finally {
      clearTimeout(timer);
      this.ctx.signal.removeEventListener('abort', onInterrupt);
    }
    return out;
  }

  private async evidenceTarget(client: KubeClient, row: GateRow, signal: AbortSignal): Promise<EvidenceTarget> {
    if (row.kind !== 'Rollout') {
      const group = row.apiVersion.includes('/') ? row.apiVersion.slice(0, row.apiVersion.indexOf('/')) : '';
      const rt = this.types.get(`${group}/${row.kind}`);
      return { row, ...(rt ? { workload: { rt, name: row.name, namespace: row.namespace } } : {}) };
    }
    const rolloutRt = this.types.get(`rollouts.kruise.io/Rollout`);
    if (!rolloutRt) return { row };
    const target: EvidenceTarget = { row, rollout: { rt: rolloutRt, name: row.name, namespace: row.namespace } };
    try {
      const rollout = await client.get(rolloutRt, row.name, row.namespace, { signal });
      const rt = workloadTypeOf(rollout);
      const name = readRollout(rollout).workloadRef?.name;
      if (rt && name) target.workload = { rt, name, namespace: row.namespace };
    } catch {
      // collectEvidence reads the Rollout again and says why it could not
    }
    return target;
  }
}
