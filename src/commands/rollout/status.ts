// `rollout status TYPE/NAME... [-l SEL] [-w=true] [--timeout] [--failure-grace] [-o json]`:
// waits (watch-based) until each rollout is complete, partition-complete or failed; several
// objects are awaited concurrently and the exit code is the worst.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { CliError, ExitCode, failure, usageError } from '../../cli/exit';
import { untilDeadline } from '../../cli/deadline';
import { parseDuration } from '../../cli/globals';
import type { KubeClient, KubeObject, Observation, ResourceType } from '../../kube/client';
import { parseRolloutUntil, RolloutUntilError, type RolloutUntil } from '../../kruise/rollout/gate';
import { RolloutIndex, rolloutText } from './kruise-rollout';
import { checkRelease, releaseExitCode, type ReleaseTarget } from './release-status';
import { ReleaseWatch } from './release-watch';
import { releaseIsFinal, releaseJsonLine, releaseLine, releaseNames } from '../../printers/rollout-release';
import { isNoAnswer, resourceLabel } from '../../kube/errors';
import { advancedKindHint } from '../../kube/resolve';
import { KIND_LABELS, type RolloutProgress, type RolloutState } from '../../kruise/progress';
import { jobProgressKind, progressKindFor } from '../../kruise/progress-kinds';
import { adapterFor } from '../../kruise/workloads/index';
import { heldVerdict } from '../../kruise/rollout/holder';
import { currentRevisionNumber } from '../../kruise/revisions';
import { loadPods, loadRevisions } from './revision-source';
import { parseRevisionNumber } from './undo';
import { parseOutputFormat, resourceName, type OutputFormat } from '../../printers/output';
import { createProgress, type Progress } from '../../printers/progress';
import { humanLine, isFinal, subsetLines, statusDocument, statusJsonLine, statusName, statusSpinnerText } from '../../printers/rollout-status';
import { RolloutWatch } from './status-watch';
import { useWaitingJit } from '../../cli/self';
import { sidecarSetStatus, sidecarSetTargets } from './sidecarset-status';
import { isKruiseRollout, NoMatchesError, parseTargets, readTargetObjects, resolveTargets, targetLabel, type ResolvedTarget, type TargetRefs } from './targets';
import { GateReport, type StatusPrinter } from './gate-report';
import { ciFlavour } from '../../printers/ci-report';
import { SharedWatchClient } from '../../kube/shared-watches';
import { releaseObjects } from './release-objects';
import { labelSelectorString } from '../../kruise/selectors';
import { trimWatchedPod } from '../../kruise/rollout-pods';

export interface StatusOptions {
  filename?: string[];
  recursive?: boolean;
  helmRelease?: string;
  ci?: string;
  junit?: string;
  evidenceDir?: string;
  watch?: string | boolean;
  timeout?: string;
  failureGrace?: string;
  output?: string;
  selector?: string;
  revision?: string;
  until?: string[];
}

const EXIT_BY_STATE: Record<RolloutState, number> = {
  Complete: ExitCode.OK,
  PartitionComplete: ExitCode.OK,
  Failed: ExitCode.FAILED,
  TimedOut: ExitCode.TIMEOUT,
  Progressing: ExitCode.NOT_FINISHED,
  Paused: ExitCode.NOT_FINISHED,
};

function parseBool(value: string | boolean | undefined, flag: string, dflt: boolean): boolean {
  if (value === undefined) return dflt;
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw usageError(`invalid value "${value}" for ${flag}: use true or false`);
}

export async function run(ctx: CommandContext, args: string[], opts: StatusOptions, _cmd: Command): Promise<number> {
  const started = Date.now();
  // Everything knowable is validated before the first request.
  const timeoutMs = opts.timeout === undefined ? 0 : parseDuration(opts.timeout, '--timeout');
  // An explicit --timeout=0 checks once, as `kubectl wait --timeout=0` does; no --timeout is no limit.
  const zeroTimeout = opts.timeout !== undefined && timeoutMs === 0;
  if (zeroTimeout && parseBool(opts.watch, '--watch', false)) throw usageError('--timeout=0 checks once and --watch=true waits: give one of them');
  const watch = !zeroTimeout && parseBool(opts.watch, '--watch', true);
  const failureGraceMs = opts.failureGrace === undefined ? 60_000 : parseDuration(opts.failureGrace, '--failure-grace');
  const format = parseOutputFormat(opts.output, ['default', 'json', 'yaml', 'jsonpath', 'name']);
  const pinnedRevision = parseRevisionNumber(opts.revision, '--revision');
  if (opts.ci !== undefined && !['auto', 'github', 'gitlab', 'none'].includes(opts.ci)) throw usageError(`invalid value "${opts.ci}" for --ci: use auto, github, gitlab or none`);
  if (opts.helmRelease !== undefined && (args.length > 0 || opts.filename?.length || opts.selector !== undefined)) throw usageError('--helm-release takes no TYPE/NAME, -f or -l: the release names its objects');
  const ci = ciFlavour(opts.ci, ctx.term.env);
  // A release's manifest (-f, --helm-release): every object with a rollout is followed, the rest counted.
  const releaseInput = Boolean(opts.filename?.length) || opts.helmRelease !== undefined;
  let refs: TargetRefs | undefined = opts.helmRelease === undefined ? parseTargets('rollout status', args, opts.selector, { filenames: opts.filename, recursive: opts.recursive }) : undefined;
  let skipped: Record<string, number> = {};
  if (refs && releaseInput) ({ refs, skipped } = releaseObjects(refs, 'the manifest'));
  let until: RolloutUntil | undefined;
  try {
    until = opts.until === undefined ? undefined : parseRolloutUntil(opts.until);
  } catch (err) {
    if (err instanceof RolloutUntilError) throw usageError(err.message);
    throw err;
  }

  const client = await ctx.kube();
  // --timeout bounds the whole wait: every request and watch, and whatever comes before the watches.
  const deadline = timeoutMs > 0 ? started + timeoutMs : undefined;
  client.configureWaits?.({ deadline });
  let subject = args.length > 0 ? args.join(' ') : opts.selector ? `objects matching "${opts.selector}"` : `the objects of ${(opts.filename ?? []).join(', ')}`;
  let awaited = args.length > 0 ? args.join(' ') : opts.selector ? `objects matching "${opts.selector}"` : 'the objects of the manifest';
  const reportSettings = {
    ci,
    junit: opts.junit,
    evidenceDir: opts.evidenceDir,
    json: format.kind === 'json',
    names: format.kind === 'name',
    alwaysSummary: releaseInput || opts.junit !== undefined || opts.evidenceDir !== undefined,
    skipped,
  };
  let report: GateReport | undefined;
  // Ctrl-C: whichever wait set the interrupt summary, the report first prints what it held back for CI
  // groups and writes its CI files (the process exits right after the summary).
  const waitCtx: CommandContext = {
    ...ctx,
    setInterruptSummary: (summary) =>
      ctx.setInterruptSummary(() => {
        try {
          report?.interrupted();
        } catch {
          /* the interrupt's own line still goes out */
        }
        return summary();
      }),
  };
  try {
    const expired = (): Error => deadlineError(client, `timed out after ${opts.timeout} waiting for ${awaited}`);
    // A read that got no answer until the deadline (retried till then) is the deadline's timeout, not its own error.
    const work = gate().catch((err: unknown) => {
      throw deadline !== undefined && Date.now() >= deadline && isNoAnswer(err) ? expired() : err;
    });
    const outcome = await untilDeadline(work, deadline, expired);
    if (typeof outcome === 'number') return outcome;
    return await outcome.report.finish(client, outcome.codes, outcome.waitEnded);
  } finally {
    client.close();
  }

  async function gate(): Promise<number | { report: GateReport; codes: number[]; waitEnded: boolean }> {
    if (opts.helmRelease !== undefined) {
      const { helmReleaseTargets } = await import('./helm-release-targets');
      const release = await helmReleaseTargets(client, opts.helmRelease, ctx.signal);
      ({ refs, skipped } = releaseObjects(release.refs, release.subject));
      reportSettings.skipped = skipped;
      subject = release.subject;
      awaited = release.subject;
    }
    const targetRefs = refs!;
    // SidecarSets (cluster-scoped, their pods in any namespace) have their own watch.
    const { sidecarSets, rest } = releaseInput ? await splitSidecarSets(client, targetRefs) : { sidecarSets: await sidecarSetTargets(client, 'rollout status', targetRefs), rest: undefined };
    if (sidecarSets && (until !== undefined || pinnedRevision !== undefined) && !releaseInput) throw usageError('--until and --revision do not apply to a SidecarSet');
    const liveBlock = releaseInput && format.kind === 'default' && Boolean((ctx.term.stdout as { isTTY?: boolean }).isTTY) && ctx.term.decorate;
    report = new GateReport(ctx, { ...reportSettings, subject, liveBlock });
    const printer = report.wrap(await makePrinter(ctx, format));
    if (sidecarSets && !rest) {
      report.knowType(sidecarSets.rt);
      const code = await sidecarSetStatus(waitCtx, client, sidecarSets, { watch, timeoutMs, failureGraceMs, printer });
      return { report, codes: [code], waitEnded: true };
    }
    const targets = await resolveTargets(client, 'rollout status', rest ?? targetRefs, { allowRollout: true, allowJobs: true });
    for (const t of targets) report.knowType(t.rt);
    report.setOrder(targets.filter((t) => t.name !== undefined).map((t) => `${t.namespace}/${t.rt.kind}/${t.name}`));
    // One named object: its list starts now, beside the lookup of a Rollout releasing it, rather
    // than one round trip later; whichever watch follows it (its own, or its Rollout's) takes it over.
    const only = targets.length === 1 && !sidecarSets ? targets[0] : undefined;
    if (watch && only?.name !== undefined) client.prefetchObserve?.(only.rt, only.namespace, only.name);
    const job = targets.find((t) => jobProgressKind(t.rt.group, t.rt.kind));
    if (job && !releaseInput && (until !== undefined || pinnedRevision !== undefined)) throw usageError(`--until and --revision do not apply to a ${job.rt.kind}: its completion is awaited`);
    // Many objects: one list+watch per kind and namespace, shared by all their gates (shared-watches.ts).
    const many = targets.length + (sidecarSets ? 1 : 0) > 1 || targets.some((t) => t.name === undefined);
    const watcher = many && watch ? shareWatches(client, targetRefs, targets) : client;
    // Kruise Rollouts, and the workloads they release: followed as a composition (gate.ts evaluateGate).
    const plan = await planGates(ctx, watcher, targets, { until, pinnedRevision, format, releaseInput });
    if (until !== undefined && plan.releases.length === 0 && !(plan.index && plan.plain.some((t) => t.name === undefined)) && !releaseInput) {
      throw usageError('--until applies to Kruise Rollouts: rollout/NAME, or a workload a Rollout releases');
    }
    if (plan.index) report.knowType(plan.index.rolloutRt);
    for (const r of plan.releases) report.knowType(r.rt);
    if (pinnedRevision !== undefined) await checkRevision(client, plan.plain, opts.selector, pinnedRevision);
    const settings: GateSettings = { until: until ?? { kind: 'complete' }, failureGraceMs, deadline, printer, selector: opts.selector, failFast: releaseInput || many };
    let result: { codes: number[]; waitEnded: boolean };
    try {
      const sidecarCodes = sidecarSets ? sidecarSetStatus(waitCtx, client, sidecarSets, { watch, timeoutMs, failureGraceMs, printer: { ...printer, close: () => undefined } }) : undefined;
      result = watch ? await watchAll(waitCtx, watcher, plan, settings) : { codes: await checkOnce(client, plan, settings), waitEnded: true };
      if (sidecarCodes) result.codes.push(await sidecarCodes);
    } catch (err) {
      // A gate must not pass on nothing: kubectl's words, exit 1.
      if (!(err instanceof NoMatchesError)) throw err;
      printer.close();
      ctx.term.stderr.write(`No resources found in ${err.namespace} namespace.\n`);
      return ExitCode.FAILED;
    } finally {
      if (watcher instanceof SharedWatchClient) watcher.stopWatches();
    }
    printer.close();
    return { report, ...result };
  }
}

/** A release's SidecarSets are followed beside its workloads (sidecarset-status.ts), the rest here. */
async function splitSidecarSets(client: KubeClient, refs: TargetRefs): Promise<{ sidecarSets?: Awaited<ReturnType<typeof sidecarSetTargets>>; rest?: TargetRefs }> {
  const isSidecarSetSpec = (s: TargetRefs['specs'][number]): boolean => s.kind === 'object' && s.object.kind === 'SidecarSet' && (s.object.apiVersion ?? '').startsWith('apps.kruise.io/');
  const mine = refs.specs.filter(isSidecarSetSpec);
  const others = refs.specs.filter((s) => !isSidecarSetSpec(s));
  if (mine.length === 0) return { rest: refs };
  const sidecarSets = await sidecarSetTargets(client, 'rollout status', { ...refs, specs: mine });
  return { sidecarSets, rest: others.length ? { ...refs, specs: others } : undefined };
}

/**
 * The shared watches of a gate over many objects; the pod selectors of the manifest's workloads are
 * declared up front, so each workload's pod watch, whenever it starts, is served by one list of the
 * namespace's pods (and the names of the followed objects by one list of each kind).
 */
function shareWatches(client: KubeClient, refs: TargetRefs, targets: readonly ResolvedTarget[]): SharedWatchClient {
  const shared = new SharedWatchClient(client, {
    listFromWatch: ['rollouts.kruise.io/rollouts'],
    shape: (rt, item) => (rt.resource === 'pods' && rt.group === '' ? trimWatchedPod(item) : item),
  });
  const podRt: ResourceType = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
  for (const t of targets) if (t.name !== undefined) shared.declare(t.rt, t.namespace, { name: t.name });
  // The named objects' lists start now, beside the lookup of the Rollouts (planGates).
  for (const t of targets) if (t.name !== undefined) shared.prestart(t.rt, t.namespace);
  for (const spec of refs.specs) {
    if (spec.kind !== 'object') continue;
    const kind = progressKindFor(spec.object);
    const selector = kind ? labelSelectorString(kind.selector(spec.object)) : '';
    if (selector) shared.declare(podRt, spec.object.metadata.namespace ?? client.namespace, { labelSelector: selector });
  }
  return shared;
}

/**
 * The deadline passed before the watches could answer: a server that kept answering with errors (or
 * refusing connections) is reported by its error (exit 1, like the watches' own timeout); one that never
 * answered, as a timeout naming it (exit 3).
 */
function deadlineError(client: KubeClient, what: string): Error {
  const trouble = client.waitTrouble?.();
  if (trouble instanceof Error && !isNoAnswer(trouble)) return trouble;
  const last = trouble instanceof Error ? ` (last error: ${trouble.message})` : '';
  return new CliError(`${what}: no answer from the server at ${client.server}${last}`, ExitCode.TIMEOUT);
}

/** What `rollout status` follows: workloads on their own, and Rollouts with the workloads they release. */
interface GatePlan {
  /** Named workloads no Rollout releases, job kinds, and TYPE -l SELECTOR targets. */
  plain: ResolvedTarget[];
  releases: ReleaseTarget[];
  /** The namespaces' Rollouts, for workloads a selector matches (undefined: none served, or not readable). */
  index?: RolloutIndex;
}

/**
 * Which targets are followed with their Rollout: rollout/NAME, and every workload a Rollout releases (one
 * list of Rollouts per namespace, only when the cluster serves them), said on stderr. A Rollout named
 * beside its workload (a manifest holding both) is followed once.
 */
async function planGates(
  ctx: CommandContext,
  client: KubeClient,
  targets: ResolvedTarget[],
  o: { until?: RolloutUntil; pinnedRevision?: number; format: OutputFormat; releaseInput?: boolean },
): Promise<GatePlan> {
  const checkFlags = (): void => {
    if (o.pinnedRevision !== undefined) throw usageError('--revision does not apply to a Kruise Rollout: its release is followed instead');
    if (o.format.kind !== 'default' && o.format.kind !== 'json' && o.format.kind !== 'name') throw usageError(`-o ${o.format.kind} is not supported for a Kruise Rollout: use -o json or -o name`);
  };
  for (const t of targets) if (isKruiseRollout(t.rt) && t.name === undefined) throw usageError('rollout status of Kruise Rollouts takes rollout/NAME, not a selector');
  const releases = new Map<string, ReleaseTarget>();
  const add = (r: ReleaseTarget): void => {
    const key = `${r.namespace}/${r.name}`;
    const seen = releases.get(key);
    releases.set(key, seen ? { ...seen, forWorkload: seen.forWorkload || r.forWorkload, gated: [...seen.gated, ...r.gated.filter((g) => !seen.gated.includes(g))] } : r);
  };
  for (const t of targets) {
    if (!isKruiseRollout(t.rt)) continue;
    checkFlags();
    add({ rt: t.rt, name: t.name!, namespace: t.namespace, forWorkload: false, gated: [resourceName(t.rt.kind, t.rt.group, t.name!)] });
  }
  // Workloads (not job kinds): --revision alone asks about the workload's own revisions.
  const workloads = targets.filter((t) => !isKruiseRollout(t.rt) && !jobProgressKind(t.rt.group, t.rt.kind));
  const lookup = workloads.length > 0 && !(o.pinnedRevision !== undefined && o.until === undefined);
  const index = lookup ? await RolloutIndex.load(client, workloads.map((t) => t.namespace)) : undefined;
  const plain: ResolvedTarget[] = [];
  for (const t of targets) {
    if (isKruiseRollout(t.rt)) continue;
    const found = t.name !== undefined && !jobProgressKind(t.rt.group, t.rt.kind) ? index?.find(t.rt, t.name, t.namespace) : undefined;
    if (!found) {
      plain.push(t);
      continue;
    }
    checkFlags();
    ctx.term.stderr.write(`${found.via} is released by ${rolloutText(found.rollout)}: following it\n`);
    add({ rt: found.rolloutRt, name: found.rollout.metadata.name ?? '', namespace: t.namespace, forWorkload: true, gated: [resourceName(t.rt.kind, t.rt.group, t.name!)] });
  }
  const selected = index && plain.some((t) => t.name === undefined) ? index : undefined;
  return { plain, releases: [...releases.values()], index: selected };
}

/**
 * Human lines on stdout (spinner on a TTY for intermediate states), or one JSON Lines object,
 * YAML document or jsonpath result per change of state, or (-o name) each object's name once it
 * passes the gate; failures also as `error:` on stderr.
 */
async function makePrinter(ctx: CommandContext, format: OutputFormat): Promise<StatusPrinter> {
  const machine = format.kind !== 'default';
  const spinner: Progress | undefined = !machine && ctx.term.decorate ? await createProgress(ctx.term) : undefined;
  // Colour only where decoration is allowed; chalk is not even loaded otherwise.
  const palette = ctx.term.decorate ? (await import('../../printers/colors')).paletteFor(ctx.term) : undefined;
  // stdout may be piped while stderr is a terminal: no escape codes into a pipe.
  const stdoutColour = (ctx.term.stdout as { isTTY?: boolean }).isTTY ? palette : undefined;
  const error = (message: string): void => {
    spinner?.stop();
    ctx.term.stderr.write(`${palette ? palette.bad(`error: ${message}`) : `error: ${message}`}\n`);
  };
  let documents = 0;
  const passed = new Set<string>();
  const printNames = (names: readonly string[]): void => {
    for (const name of names.filter((n) => !passed.has(n))) {
      passed.add(name);
      ctx.term.stdout.write(`${name}\n`);
    }
  };
  return {
    change(p) {
      const now = Date.now();
      const final = isFinal(p);
      if (format.kind === 'json') ctx.term.stdout.write(`${statusJsonLine(p, now)}\n`);
      else if (format.kind === 'yaml' || format.kind === 'jsonpath') ctx.term.stdout.write(statusDocument(p, now, format, documents++));
      else if (format.kind === 'name' && (p.state === 'Complete' || p.state === 'PartitionComplete')) printNames([statusName(p)]);
      if (p.state === 'Failed' || p.state === 'TimedOut') return error(p.message);
      if (machine) return;
      const line = humanLine(p, now);
      if (spinner && !final) spinner.update(statusSpinnerText(p, now));
      else {
        spinner?.stop();
        const done = p.state === 'Complete' || p.state === 'PartitionComplete';
        ctx.term.stdout.write(`${stdoutColour && done ? stdoutColour.ok(line) : stdoutColour && p.state === 'Paused' ? stdoutColour.warn(line) : line}\n`);
        for (const sub of subsetLines(p)) ctx.term.stdout.write(`${sub}\n`);
      }
    },
    tick(p) {
      if (spinner && !isFinal(p)) spinner.update(statusSpinnerText(p, Date.now()));
    },
    release(r) {
      const now = Date.now();
      if (format.kind === 'json') ctx.term.stdout.write(`${releaseJsonLine(r, now)}\n`);
      else if (format.kind === 'name' && r.reached) printNames(releaseNames(r));
      if (r.state === 'Failed' || r.state === 'TimedOut') return error(r.message);
      if (machine) return;
      const line = releaseLine(r, now);
      // On a terminal, the same spinner as a workload's gate while the release goes on; a line once it ends.
      if (spinner && !releaseIsFinal(r)) return spinner.update(line);
      spinner?.stop();
      ctx.term.stdout.write(`${stdoutColour && r.reached ? stdoutColour.ok(line) : line}\n`);
    },
    close() {
      spinner?.stop();
    },
  };
}

interface GateSettings {
  until: RolloutUntil;
  /** --timeout's end (ms since epoch), counted from the command's start. */
  deadline?: number;
  failureGraceMs: number;
  printer: StatusPrinter;
  selector?: string;
  /** Stop waiting for the others once one object failed: the exit code (1) is decided. */
  failFast?: boolean;
}

/** One followed object: a workload alone (RolloutWatch) or with its Rollout (ReleaseWatch), and its exit code once done. */
interface Gate {
  readonly finished: Promise<number>;
  readonly isDone: boolean;
  timedOut(): void;
  stop(): void;
}

function workloadGate(w: RolloutWatch): Gate {
  return {
    finished: w.finished.then((p) => EXIT_BY_STATE[p.state]),
    get isDone() {
      return w.isDone;
    },
    timedOut: () => w.timedOut(),
    stop: () => w.stop(),
  };
}

function releaseGate(client: KubeClient, podType: ResourceType, r: ReleaseTarget, o: GateSettings): Gate {
  const w = new ReleaseWatch(client, r.rt, podType, r.namespace, r.name, { until: o.until, failureGraceMs: o.failureGraceMs, onChange: (x) => o.printer.release({ ...x, gated: r.gated }), forWorkload: r.forWorkload });
  w.start();
  return {
    finished: w.finished.then(releaseExitCode),
    get isDone() {
      return w.isDone;
    },
    timedOut: () => w.timedOut(),
    stop: () => w.stop(),
  };
}

async function watchAll(ctx: CommandContext, client: KubeClient, plan: GatePlan, o: GateSettings): Promise<{ codes: number[]; waitEnded: boolean }> {
  const podType = await client.resolve('pods');
  const gates: Gate[] = [];
  const observations: Observation[] = [];
  const settings = { failureGraceMs: o.failureGraceMs, onChange: (p: RolloutProgress) => o.printer.change(p), onTick: (p: RolloutProgress) => o.printer.tick(p), holdAware: true };
  const errors: unknown[] = [];
  // An error (not found, forbidden, a broken watch) ends the whole wait at once, like kubectl.
  let rejectFatal!: (err: unknown) => void;
  const fatal = new Promise<never>((_, rej) => (rejectFatal = rej));
  fatal.catch(() => undefined);
  // One object failed: nothing can make the exit code better, so the others are not waited for.
  let resolveDecided!: () => void;
  const decided = new Promise<'decided'>((res) => (resolveDecided = () => res('decided')));
  const ended: number[] = [];
  const follow = (g: Gate): Gate => {
    gates.push(g);
    g.finished.then((code) => {
      ended.push(code);
      if (o.failFast && code === ExitCode.FAILED) resolveDecided();
    }, rejectFatal);
    return g;
  };

  const selectorGroups: Array<{ what: string; synced: () => boolean; trouble: () => unknown }> = [];
  // One observation per named object, or one per selector (all its matches awaited).
  const started: Array<Promise<void>> = [];
  for (const r of plan.releases) {
    const g = follow(releaseGate(client, podType, r, o));
    started.push(g.finished.then(() => undefined, () => undefined));
  }
  for (const t of plan.plain) {
    if (t.name !== undefined) {
      const w = new RolloutWatch(client, podType, t.namespace, t.name, targetLabel(t.rt, t.name), settings);
      const g = follow(workloadGate(w));
      let synced = false;
      const obs = client.observe(
        t.rt,
        t.namespace,
        {
          name: t.name,
          onTrouble: (err) => w.trouble(err),
          onSync: (items) => {
            const obj = items.find((i) => i.metadata.name === t.name);
            if (obj) w.updateWorkload(obj);
            else if (!synced) void notFound(client, t).then((err) => w.fail(err));
            else w.deleted();
            synced = true;
          },
        },
        (ev) => {
          if (ev.object.metadata.name !== t.name) return;
          if (ev.type === 'DELETED') w.deleted();
          else if (ev.type !== 'BOOKMARK') w.updateWorkload(ev.object);
        },
      );
      observations.push(obs);
      obs.done.catch((err: unknown) => w.fail(err));
      started.push(g.finished.then(() => obs.stop(), () => obs.stop()));
    } else {
      // Matches a Rollout releases are followed with it (their own watches); the rest here.
      const group = new Map<string, RolloutWatch>();
      const released: Gate[] = [];
      let resolveSynced!: () => void;
      const synced = new Promise<void>((res) => (resolveSynced = res));
      let isSynced = false;
      let lastTrouble: unknown;
      selectorGroups.push({ what: `${t.rt.resource} matching "${o.selector ?? ''}"`, synced: () => isSynced, trouble: () => lastTrouble });
      const obs = client.observe(
        t.rt,
        t.namespace,
        {
          labelSelector: o.selector,
          onTrouble: (err) => {
            lastTrouble = err;
            for (const w of group.values()) w.trouble(err);
          },
          onSync: (items) => {
            if (!isSynced) {
              for (const item of items) {
                const name = item.metadata.name ?? '';
                const found = plan.index?.find(t.rt, name, t.namespace);
                if (found) {
                  ctx.term.stderr.write(`${found.via} is released by ${rolloutText(found.rollout)}: following it\n`);
                  const gated = [resourceName(t.rt.kind, t.rt.group, name)];
                  released.push(follow(releaseGate(client, podType, { rt: found.rolloutRt, name: found.rollout.metadata.name ?? '', namespace: t.namespace, forWorkload: true, gated }, o)));
                  continue;
                }
                const w = new RolloutWatch(client, podType, t.namespace, name, targetLabel(t.rt, name), settings);
                group.set(name, w);
                follow(workloadGate(w));
              }
              isSynced = true;
              resolveSynced();
            }
            const present = new Set(items.map((i) => i.metadata.name ?? ''));
            for (const item of items) group.get(item.metadata.name ?? '')?.updateWorkload(item);
            for (const [name, w] of group) if (!present.has(name)) w.deleted();
          },
        },
        (ev) => {
          const w = group.get(ev.object.metadata.name ?? '');
          if (!w) return; // objects created after the start are not awaited
          if (ev.type === 'DELETED') w.deleted();
          else if (ev.type !== 'BOOKMARK') w.updateWorkload(ev.object);
        },
      );
      observations.push(obs);
      obs.done.catch((err: unknown) => {
        errors.push(err);
        resolveSynced();
        for (const w of group.values()) w.fail(err);
        rejectFatal(err);
      });
      started.push(
        synced.then(async () => {
          if (errors.length) return;
          if (group.size === 0 && released.length === 0) {
            obs.stop();
            const err = new NoMatchesError(t.namespace, t.rt.resource, o.selector ?? '');
            rejectFatal(err);
            throw err;
          }
          await Promise.allSettled([...[...group.values()].map((w) => w.finished), ...released.map((g) => g.finished)]);
          obs.stop();
        }),
      );
    }
  }

  const timer =
    o.deadline !== undefined
      ? setTimeout(() => {
          // A selector never listed (every request failed): the API's error, not a timeout.
          for (const g of selectorGroups) {
            if (g.synced()) continue;
            const trouble = g.trouble();
            rejectFatal(trouble !== undefined ? trouble : new CliError(`timed out waiting for ${g.what} to be listed`, ExitCode.TIMEOUT));
            return;
          }
          gates.forEach((g) => g.timedOut());
        }, Math.max(0, o.deadline - Date.now()))
      : undefined;
  const onAbort = (): void => {
    gates.forEach((g) => g.stop());
    observations.forEach((obs) => obs.stop());
  };
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  ctx.setInterruptSummary(() => {
    const n = gates.filter((g) => !g.isDone).length;
    return `stopped waiting for ${n} ${n === 1 ? 'rollout' : 'rollouts'}`;
  });
  try {
    const settled = await Promise.race([Promise.allSettled(started), fatal, decided]);
    if (settled === 'decided') {
      // The gates still waiting stop where they are (the report shows their last state).
      return { codes: [...ended], waitEnded: false };
    }
    const selectorError = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    const results = await Promise.allSettled(gates.map((g) => g.finished));
    const firstError = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (firstError) throw firstError.reason;
    if (selectorError) throw selectorError.reason;
    if (errors.length) throw errors[0];
    return { codes: results.map((r) => (r as PromiseFulfilledResult<number>).value), waitEnded: true };
  } finally {
    if (timer) clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
    gates.forEach((g) => g.stop());
    observations.forEach((obs) => obs.stop());
  }
}

/** A named object missing at the start; `sts/x` when only an Advanced StatefulSet `x` exists says so (like a GET would). */
async function notFound(client: KubeClient, t: ResolvedTarget): Promise<Error> {
  const hint = await advancedKindHint(client, t.rt, t.name!, t.namespace);
  return failure(`${resourceLabel(t.rt)} "${t.name}" not found in namespace "${t.namespace}"${hint ? `; ${hint}` : ''}`);
}

/** --revision=N (kubectl): fail unless N is the revision being rolled out. Costs a read, only when asked. */
async function checkRevision(client: KubeClient, targets: ResolvedTarget[], selector: string | undefined, revision: number): Promise<void> {
  for (const { obj } of await readTargetObjects(client, targets, selector)) {
    const adapter = adapterFor(obj);
    if (!adapter) continue;
    const { revisions } = await loadRevisions(client, obj, adapter);
    const current = currentRevisionNumber(revisions, adapter.template(obj), adapter.status(obj).updateRevision);
    if (current !== revision) {
      throw failure(`desired revision (${revision}) is different from the running revision (${current ?? 'none'}) of ${KIND_LABELS[adapter.kindName]} "${obj.metadata.name ?? ''}"`);
    }
  }
}

/** --watch=false: one read per object (and one paginated pod list only when not done); a Rollout and its workload read together. */
async function checkOnce(client: KubeClient, plan: GatePlan, o: GateSettings): Promise<number[]> {
  const read = await readTargetObjects(client, plan.plain, o.selector);
  // a selector that matched nothing must not pass the gate
  const selected = plan.plain.find((t) => t.name === undefined);
  if (read.length === 0 && selected && plan.releases.length === 0) throw new NoMatchesError(selected.namespace, selected.rt.resource, o.selector ?? '');
  const releases = [...plan.releases];
  const objects: KubeObject[] = [];
  for (const { rt, obj } of read) {
    const name = obj.metadata.name ?? '';
    const found = plan.index?.find(rt, name, obj.metadata.namespace ?? client.namespace);
    if (found) releases.push({ rt: found.rolloutRt, name: found.rollout.metadata.name ?? '', namespace: obj.metadata.namespace ?? client.namespace, forWorkload: true, gated: [resourceName(rt.kind, rt.group, name)] });
    else objects.push(obj);
  }
  const workloadCodes = Promise.all(
    objects.map(async (obj) => {
      const kind = progressKindFor(obj);
      if (!kind) throw new Error(`no rollout rules for ${obj.apiVersion ?? '?'} ${obj.kind ?? '?'}`);
      let p = kind.evaluate(obj, [], Date.now(), { failureGraceMs: o.failureGraceMs });
      if (!isFinal(p) || p.needsPods) {
        // Only the pods at the update revision, trimmed: what the watching gate keeps (a verdict reads no other),
        // decoded as the watching gate decodes them (Bun's JIT tiers out of reach; src/cli/self.ts).
        useWaitingJit();
        const updated = kind.podTest(obj);
        const pods = await loadPods(client, obj, kind, undefined, (pod) => (updated(pod) ? kind.trimPod(pod) : undefined));
        p = kind.evaluate(obj, pods, Date.now(), { failureGraceMs: o.failureGraceMs, podsListed: true });
      }
      // Followed without its Rollout (none found, or Rollouts not readable): not done while a release holds it.
      p = heldVerdict(obj, p);
      o.printer.change(p);
      return EXIT_BY_STATE[p.state];
    }),
  );
  const releaseCodes = Promise.all(
    releases.map(async (r) => {
      const report = { ...(await checkRelease(client, r, o)), gated: r.gated };
      o.printer.release(report);
      return releaseExitCode(report);
    }),
  );
  return [...(await workloadCodes), ...(await releaseCodes)];
}
