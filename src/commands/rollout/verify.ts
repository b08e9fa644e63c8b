// `rollout verify rollout/NAME|TYPE/NAME (--http URL | --job FILE | --prometheus URL --query Q --condition C |
// --checks FILE) [--step N] [--on-failure=undo|undo-fast|pause|none] [--approve-unchecked] [--until] [--timeout]
// [-o json]`: the analysis Kruise Rollout lacks. It follows the release (watches of the Rollout and its
// workload), and at each step waiting for approval that has checks runs them, records the step's verdict on the
// Rollout (kruise/verify/verdict.ts) and only then acts on it: approves a pass, carries out --on-failure for a
// fail and exits 1 with the failing measurements, leaves an inconclusive step to people (exit 1). The decision
// on each read is kruise/verify/decide.ts; the writes, verify-writes.ts. Exit 0 at completion or --until, 2 bad
// input (checks, files, a step that does not wait for approval), 3 --timeout.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { CliError, ExitCode, failure, usageError } from '../../cli/exit';
import { parseDuration } from '../../cli/globals';
import { manifestReader } from '../../lib/yaml';
import { CheckInputError, checkFromFlags, parseChecksFile, validateJobManifest, type CheckFlags, type Variables, type VerifyCheck } from '../../kruise/verify/checks';
import { decideVerify, planChecks, type VerifyAction, type VerifyPlan } from '../../kruise/verify/decide';
import { stepVerdict } from '../../kruise/verify/measurements';
import type { VerdictRecord } from '../../kruise/verify/verdict';
import { readRollout } from '../../kruise/rollout/read';
import { VerifyPrinter } from '../../printers/verify';
import { VerifyReport } from '../../printers/verify-report';
import { ciFlavour } from '../../printers/ci-report';
import { runCheck, type CheckResult } from '../../engine/verify/run-check';
import { CheckSetupError } from '../../engine/verify/fetch-text';
import { rolloutOfTarget, workloadTypeOf } from './kruise-rollout';
import { parseTargets, resolveTargets } from './targets';
import { RolloutWatch } from './verify-watch';
import { approveStep, ON_FAILURE, recordVerdict, rollBack, type OnFailure, type RolloutRef } from './verify-writes';

export interface VerifyOptions extends CheckFlags {
  checks?: string;
  onFailure?: string;
  approveUnchecked?: boolean;
  until?: string;
  timeout?: string;
  output?: string;
  ci?: string;
  junit?: string;
  evidenceDir?: string;
}

interface Input {
  checks: VerifyCheck[];
  jobManifests: Map<string, Record<string, unknown>>;
  onFailure: OnFailure;
  untilStep?: number;
  timeoutMs: number;
  json: boolean;
}

function readYamlFile(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw usageError(`${what} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  try {
    return manifestReader().load(text);
  } catch (err) {
    throw usageError(`${file}: not YAML: ${String((err as Error).message).split('\n')[0]}`);
  }
}

/** Everything the flags and files say, judged before any request (exit 2). */
function parseInput(opts: VerifyOptions): Input {
  let checks: VerifyCheck[];
  const jobManifests = new Map<string, Record<string, unknown>>();
  try {
    const one = checkFromFlags(opts);
    if (opts.checks !== undefined) {
      if (one) throw new CheckInputError(`--checks ${opts.checks} and ${one.origin} exclude each other: put every check in the file`);
      checks = parseChecksFile(readYamlFile(opts.checks, 'checks file'), opts.checks);
    } else if (one) {
      checks = [one];
    } else {
      throw new CheckInputError('no checks: give --prometheus URL --query Q --condition C, --http URL, --job FILE or --checks FILE');
    }
    for (const c of checks) {
      if (c.kind.type !== 'job' || c.kind.manifest) continue;
      // A file named in a checks file is relative to it.
      const file = opts.checks !== undefined ? resolvePath(dirname(opts.checks), c.kind.file!) : c.kind.file!;
      const doc = readYamlFile(file, 'Job manifest');
      validateJobManifest(doc, file);
      jobManifests.set(c.name, doc as Record<string, unknown>);
    }
  } catch (err) {
    if (err instanceof CheckInputError) throw usageError(err.message);
    throw err;
  }
  const onFailure = (opts.onFailure ?? 'undo') as OnFailure;
  if (!ON_FAILURE.includes(onFailure)) throw usageError(`invalid --on-failure ${JSON.stringify(opts.onFailure)}: undo, undo-fast, pause or none`);
  let untilStep: number | undefined;
  if (opts.until !== undefined && opts.until !== 'complete') {
    const m = /^step=([1-9]\d*)$/.exec(opts.until);
    if (!m) throw usageError(`invalid --until ${JSON.stringify(opts.until)}: step=N (N ≥ 1) or complete`);
    untilStep = Number(m[1]);
  }
  const timeoutMs = opts.timeout === undefined ? 0 : parseDuration(opts.timeout, '--timeout');
  if (opts.output !== undefined && opts.output !== 'json') throw usageError(`unable to match a printer suitable for the output format "${opts.output}", allowed formats are: json`);
  return { checks, jobManifests, onFailure, untilStep, timeoutMs, json: opts.output === 'json' };
}

/** The run's id: who recorded a verdict (a CI job's host and process), unique per run. */
function runId(): string {
  return `${hostname().split('.')[0]!.slice(0, 20)}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** Thrown into the checks when the release moved on under them (another run's verdict, a new release...). */
class Moved extends Error {}

export async function run(ctx: CommandContext, args: string[], opts: VerifyOptions, _cmd: Command): Promise<number> {
  const input = parseInput(opts);
  const refs = parseTargets('rollout verify', args, undefined, { single: true });
  const started = Date.now();
  const deadline = input.timeoutMs > 0 ? started + input.timeoutMs : undefined;
  const client = await ctx.kube();
  client.configureWaits?.({ deadline });
  const stop = new AbortController();
  const timer = deadline !== undefined ? setTimeout(() => stop.abort(new CliError(`timed out after ${opts.timeout}`, ExitCode.TIMEOUT)), Math.max(0, deadline - Date.now())) : undefined;
  const signal = AbortSignal.any([ctx.signal, stop.signal]);
  let watch: RolloutWatch | undefined;
  let report: VerifyReport | undefined;
  let printer: VerifyPrinter | undefined;
  const run = runId();
  let where = 'nothing done yet';
  let inflight: Promise<unknown> | undefined;
  ctx.setInterruptSummary(async () => {
    // A write in flight lands or not as a whole; wait for its answer so the summary says which.
    if (inflight) await inflight.catch(() => undefined);
    // The process exits after this: close the CI log's open group and write the CI files now.
    if (report) {
      printer?.raw(report.interrupt());
      writeCiFiles(ctx, report, opts, started);
    }
    return `${where}; nothing half done: run it again to go on`;
  });
  const track = <T>(p: Promise<T>): Promise<T> => {
    inflight = p;
    return p.finally(() => (inflight = undefined));
  };
  try {
    const [target] = await resolveTargets(client, 'rollout verify', refs, { allowRollout: true });
    const { rollout: first, rolloutRt, via } = await rolloutOfTarget(client, target!, 'verify');
    const name = first.metadata.name ?? '';
    const namespace = target!.namespace;
    if (via) ctx.term.stderr.write(`${via} is released by rollout/${name}\n`);
    let plan: VerifyPlan;
    try {
      plan = planChecks(first, input.checks, { approveUnchecked: opts.approveUnchecked === true, untilStep: input.untilStep });
    } catch (err) {
      if (err instanceof CheckInputError) throw usageError(err.message);
      throw err;
    }
    report = new VerifyReport({ namespace, name }, ciFlavour(opts.ci, ctx.term.env));
    printer = new VerifyPrinter(ctx.term.stdout, input.json, { namespace, name }, report);
    const workloadRt = workloadTypeOf(first);
    watch = new RolloutWatch(client, namespace, rolloutRt, name, workloadRt, readRollout(first).workloadRef?.name, signal);
    await watch.start();
    const ref: RolloutRef = { client, rt: rolloutRt, name, namespace };
    const byName = new Map(input.checks.map((c) => [c.name, c]));
    /** Steps whose inconclusive checks this run reported: not checked again by it. */
    const inconclusive = new Set<string>();

    for (;;) {
      signal.throwIfAborted();
      const action: VerifyAction = decideVerify(watch.rollout!, watch.workload, plan, Date.now());
      switch (action.kind) {
        case 'complete':
          printer.emit({ event: 'done', result: 'complete', message: action.message });
          return 0;
        case 'until':
          printer.emit({ event: 'done', result: 'until', message: action.message });
          return 0;
        case 'cancelled':
          printer.emit({ event: 'done', result: 'cancelled', message: action.message });
          throw failure(`${action.message}: not by this verification (no failed step is recorded for this release)`);
        case 'unreleased':
          printer.emit({ event: 'done', result: 'unreleased', message: action.message });
          throw failure(action.message);
        case 'rollback': {
          const rec = action.record;
          where = `step ${rec.step} failed its checks; rolling back (--on-failure=${input.onFailure})`;
          const done = await track(rollBack(ref, rec, input.onFailure, workloadRt));
          printer.emit({ event: 'rollback', step: rec.step, revision: rec.revision, action: input.onFailure, message: done });
          const message = `rollout/${name}: step ${rec.step} failed its checks${rec.run !== run ? ` (verdict of run ${rec.run})` : ''}: ${rec.summary}; ${done}`;
          printer.emit({ event: 'done', result: 'failed', message });
          throw failure(message);
        }
        case 'approve': {
          where = `approving step ${action.step}`;
          const out = await track(approveStep(ref, action.step, action.revision, action.record !== undefined));
          if (out.kind === 'approved') printer.emit({ event: 'approved', step: action.step, revision: action.revision, unchecked: action.record === undefined });
          else printer.emit({ event: 'approve-skipped', step: action.step, message: out.why });
          where = `step ${action.step} approved`;
          // The watch brings the Rollout as the approval left it.
          if (decideVerify(watch.rollout!, watch.workload, plan, Date.now()).kind === 'approve') await watch.waitChange(signal);
          break;
        }
        case 'check': {
          const key = `${action.revision}/${action.step}`;
          if (inconclusive.has(key)) {
            printer.emit({ event: 'wait', message: `rollout "${name}" waits for approval at step ${action.step}: its checks were inconclusive, left to people` });
            await watch.waitChange(signal);
            break;
          }
          const outcome = await checkStep(action, { input, plan, byName, watch, printer, client, namespace, run, signal, rolloutName: name });
          if (outcome === 'moved') break;
          if (outcome.kind === 'inconclusive') {
            inconclusive.add(key);
            printer.emit({ event: 'inconclusive', step: action.step, revision: action.revision, summary: outcome.summary });
            printer.emit({ event: 'done', result: 'inconclusive', message: outcome.summary });
            throw failure(`rollout/${name}: step ${action.step} is inconclusive: ${outcome.summary}; left waiting for a person (nothing recorded: a rerun checks it again)`);
          }
          where = `step ${action.step}: recording its verdict (${outcome.record.verdict})`;
          const recorded = await track(recordVerdict(ref, outcome.record));
          if (recorded.kind === 'gone') {
            printer.emit({ event: 'wait', message: `step ${action.step}: verdict ${outcome.record.verdict} not recorded: ${recorded.why}` });
            where = `step ${action.step} checked, but ${recorded.why}`;
            // The read that said so may be ahead of the watch: decide again once the watch has caught up.
            const again = decideVerify(watch.rollout!, watch.workload, plan, Date.now());
            if (again.kind === 'check' && again.step === action.step && again.revision === action.revision) await watch.waitChange(signal);
            break;
          }
          const rec = recorded.record;
          printer.emit({ event: 'verdict', step: rec.step, revision: rec.revision, verdict: rec.verdict, run: rec.run, recordedBy: recorded.kind === 'recorded' ? 'this run' : 'another run', summary: rec.summary });
          where = `step ${rec.step}: verdict ${rec.verdict} recorded`;
          // Acting on it is the next decision (approve or roll back), on a fresh read.
          await waitForVerdict(watch, rec, signal);
          break;
        }
        case 'wait':
          printer.emit({ event: 'wait', message: action.message });
          await watch.waitChange(signal);
          break;
      }
    }
  } catch (err) {
    if (stop.signal.aborted && !ctx.signal.aborted) {
      const r = watch?.rollout ? readRollout(watch.rollout).status : undefined;
      const timedOut = new CliError(`timed out after ${opts.timeout} verifying rollout/${watch?.rollout?.metadata.name ?? ''}${r?.currentStepIndex !== undefined ? ` (the release at step ${r.currentStepIndex} ${r.currentStepState ?? ''})` : ''}; ${where}`.replace(/ \)/, ')'), ExitCode.TIMEOUT);
      printer?.raw(report?.finish('timeout', timedOut.message) ?? '');
      throw timedOut;
    }
    // Ctrl-C or an error: the CI log's open group still closes, so the lines after it are not folded away.
    printer?.raw(report?.interrupt() ?? '');
    if (err instanceof CheckSetupError) throw failure(err.message);
    throw err;
  } finally {
    clearTimeout(timer);
    watch?.stop();
    client.close();
    if (report) writeCiFiles(ctx, report, opts, started);
  }
}

/** --junit, --evidence-dir and the GitHub job summary, whatever the outcome; a file that cannot be written is said, not fatal. */
function writeCiFiles(ctx: CommandContext, report: VerifyReport, opts: VerifyOptions, started: number): void {
  const attempt = (what: string, write: () => void): void => {
    try {
      write();
    } catch (err) {
      ctx.term.stderr.write(`warning: could not write ${what}: ${(err as Error).message}\n`);
    }
  };
  const summaryFile = ctx.term.env.GITHUB_STEP_SUMMARY;
  if (ciFlavour(opts.ci, ctx.term.env) === 'github' && summaryFile) attempt('$GITHUB_STEP_SUMMARY', () => appendFileSync(summaryFile, report.markdown()));
  const junit = opts.junit;
  if (junit) attempt(`--junit ${junit}`, () => writeFileSync(junit, report.junit(started)));
  const dir = opts.evidenceDir;
  const files = report.evidenceFiles();
  if (dir && files.length > 0) {
    attempt(`--evidence-dir ${dir}`, () => {
      const folder = join(dir, `${report.namespace}_${report.name}`);
      mkdirSync(folder, { recursive: true });
      for (const f of files) writeFileSync(join(folder, f.name), f.content);
    });
  }
}

/** Until the watch shows the verdict recorded (our own write comes back through it): decisions read from it. */
async function waitForVerdict(watch: RolloutWatch, rec: VerdictRecord, signal: AbortSignal): Promise<void> {
  const { recordedVerdict } = await import('../../kruise/verify/verdict');
  while (!recordedVerdict(watch.rollout!, rec.step, rec.revision)) {
    const s = readRollout(watch.rollout!).status;
    if (s.canaryRevision !== rec.revision) return;
    await watch.waitChange(signal);
  }
}

type StepOutcome = 'moved' | { kind: 'verdict'; record: VerdictRecord } | { kind: 'inconclusive'; summary: string };

/**
 * Runs the checks of one step at once (each reporting its measurements as they come), stopped as soon as the
 * decision on the watched Rollout is no longer to check this step of this release (another run's verdict, a
 * person's approval or rollback, a new release): then nothing is decided here.
 */
async function checkStep(
  action: Extract<VerifyAction, { kind: 'check' }>,
  o: { input: Input; plan: VerifyPlan; byName: Map<string, VerifyCheck>; watch: RolloutWatch; printer: VerifyPrinter; client: import('../../kube/client').KubeClient; namespace: string; run: string; signal: AbortSignal; rolloutName: string },
): Promise<StepOutcome> {
  const rollout = o.watch.rollout!;
  const view = readRollout(rollout);
  const s = view.status;
  const vars: Variables = {
    canaryHash: s.podTemplateHash || action.revision,
    canaryRevision: action.revision,
    stableRevision: s.stableRevision ?? '',
    rollout: o.rolloutName,
    namespace: o.namespace,
    step: String(action.step),
  };
  const checks = action.checks.map((n) => o.byName.get(n)!);
  o.printer.emit({ event: 'step', step: action.step, steps: view.steps.length, revision: action.revision, checks: action.checks, run: o.run });
  const moved = new AbortController();
  const stopWatching = o.watch.onEveryChange(() => {
    const now = decideVerify(o.watch.rollout!, o.watch.workload, o.plan, Date.now());
    if (now.kind !== 'check' || now.step !== action.step || now.revision !== action.revision) moved.abort(new Moved(now.kind));
  });
  const signal = AbortSignal.any([o.signal, moved.signal]);
  let results: CheckResult[];
  try {
    results = await Promise.all(
      checks.map((check) =>
        runCheck(check, {
          client: o.client,
          vars,
          rollout,
          namespace: o.namespace,
          signal,
          jobManifests: o.input.jobManifests,
          onMeasurement: (c, m, tally, subject) => o.printer.emit({ event: 'measurement', step: action.step, check: c.name, type: c.kind.type, subject, index: m.index, count: c.kind.type === 'job' ? 1 : c.policy.count, outcome: m.outcome, values: m.values, message: m.message }),
          onNote: (c, text) => o.printer.emit({ event: 'note', step: action.step, check: c.name, message: text }),
        }),
      ),
    );
  } catch (err) {
    if (moved.signal.aborted && !o.signal.aborted) return 'moved';
    throw err;
  } finally {
    stopWatching();
  }
  for (const r of results) o.printer.emit({ event: 'check', step: action.step, check: r.check.name, type: r.check.kind.type, phase: r.phase, reason: r.reason, subject: r.subject, evidence: r.phase === 'pass' ? undefined : r.evidence });
  const verdict = stepVerdict(results.map((r) => r.phase));
  const summary = summarize(results, verdict);
  if (verdict === 'inconclusive') return { kind: 'inconclusive', summary };
  return { kind: 'verdict', record: { rollout: o.rolloutName, revision: action.revision, step: action.step, verdict, run: o.run, at: new Date().toISOString(), summary } };
}

/** One line: for a fail, each failing check with what it asked and the values measured; for a pass, the counts. */
function summarize(results: readonly CheckResult[], verdict: string): string {
  const shown = verdict === 'pass' ? results : results.filter((r) => r.phase !== 'pass');
  return shown
    .map((r) => {
      if (verdict === 'pass') return `${r.check.name}: ${r.reason}`;
      const bad = r.measurements.filter((m) => m.outcome !== 'pass').map((m) => m.message);
      const values = bad.length > 3 ? [...bad.slice(0, 3), `… ${bad.length - 3} more`] : bad;
      return `${r.check.name} (${r.subject}) ${r.phase}: ${r.reason}: ${values.join('; ')}`;
    })
    .join('; ');
}
