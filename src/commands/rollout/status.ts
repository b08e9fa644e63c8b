// `rollout status TYPE/NAME... [-l SEL] [-w=true] [--timeout] [--failure-grace] [-o json]`:
// waits (watch-based) until each rollout is complete, partition-complete or failed; several
// objects are awaited concurrently and the exit code is the worst.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { CliError, ExitCode, failure, usageError } from '../../cli/exit';
import { parseDuration } from '../../cli/globals';
import type { KubeClient, Observation, ResourceType } from '../../kube/client';
import { parseRolloutUntil, RolloutUntilError, type RolloutUntil } from '../../kruise/rollout/gate';
import { findRolloutOf, rolloutText } from './kruise-rollout';
import { releaseStatus } from './release-status';
import { resourceLabel } from '../../kube/errors';
import { advancedKindHint } from '../../kube/resolve';
import { KIND_LABELS, type RolloutProgress, type RolloutState } from '../../kruise/progress';
import { jobProgressKind, progressKindFor } from '../../kruise/progress-kinds';
import { adapterFor } from '../../kruise/workloads/index';
import { currentRevisionNumber } from '../../kruise/revisions';
import { loadPods, loadRevisions } from './revision-source';
import { parseRevisionNumber } from './undo';
import { parseOutputFormat, type OutputFormat } from '../../printers/output';
import { createProgress, type Progress } from '../../printers/progress';
import { humanLine, isFinal, subsetLines, statusDocument, statusJsonLine, statusSpinnerText } from '../../printers/rollout-status';
import { RolloutWatch } from './status-watch';
import { sidecarSetStatus, sidecarSetTargets } from './sidecarset-status';
import { isKruiseRollout, NoMatchesError, parseTargets, readTargetObjects, resolveTargets, targetLabel, type ResolvedTarget } from './targets';

export interface StatusOptions {
  filename?: string[];
  watch?: string | boolean;
  timeout?: string;
  failureGrace?: string;
  output?: string;
  selector?: string;
  revision?: string;
  until?: string;
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
  // Everything knowable is validated before the first request.
  const watch = parseBool(opts.watch, '--watch', true);
  const timeoutMs = opts.timeout === undefined ? 0 : parseDuration(opts.timeout, '--timeout');
  const failureGraceMs = opts.failureGrace === undefined ? 60_000 : parseDuration(opts.failureGrace, '--failure-grace');
  const format = parseOutputFormat(opts.output, ['default', 'json', 'yaml', 'jsonpath']);
  const pinnedRevision = parseRevisionNumber(opts.revision, '--revision');
  const refs = parseTargets('rollout status', args, opts.selector, { filenames: opts.filename });
  let until: RolloutUntil | undefined;
  try {
    until = opts.until === undefined ? undefined : parseRolloutUntil(opts.until);
  } catch (err) {
    if (err instanceof RolloutUntilError) throw usageError(err.message);
    throw err;
  }

  const client = await ctx.kube();
  try {
    // SidecarSets (cluster-scoped, their pods in any namespace) have their own watch.
    const sidecarSets = await sidecarSetTargets(client, 'rollout status', refs);
    if (sidecarSets) {
      if (until !== undefined || pinnedRevision !== undefined) throw usageError('--until and --revision do not apply to a SidecarSet');
      return await sidecarSetStatus(ctx, client, sidecarSets, { watch, timeoutMs, failureGraceMs, printer: await makePrinter(ctx, format) });
    }
    const targets = await resolveTargets(client, 'rollout status', refs, { allowRollout: true, allowJobs: true });
    // One named object: its list starts now, beside the lookup of a Rollout releasing it, rather
    // than one round trip later; whichever watch follows it (its own, or its Rollout's) takes it over.
    const only = targets.length === 1 ? targets[0] : undefined;
    if (watch && only?.name !== undefined) client.prefetchObserve?.(only.rt, only.namespace, only.name);
    const job = targets.find((t) => jobProgressKind(t.rt.group, t.rt.kind));
    if (job && (until !== undefined || pinnedRevision !== undefined)) throw usageError(`--until and --revision do not apply to a ${job.rt.kind}: its completion is awaited`);
    // A Kruise Rollout, or a workload one releases: follow the release (release-status.ts).
    const release = await releaseTarget(ctx, client, targets, { until, pinnedRevision, format });
    if (release) {
      return await releaseStatus(ctx, client, release.rt, release.name, release.namespace, {
        watch,
        timeoutMs,
        failureGraceMs,
        until: until ?? { kind: 'complete' },
        json: format.kind === 'json',
      });
    }
    if (until !== undefined) throw usageError('--until applies to Kruise Rollouts: rollout/NAME, or a workload a Rollout releases');
    if (pinnedRevision !== undefined) await checkRevision(client, targets, opts.selector, pinnedRevision);
    const printer = await makePrinter(ctx, format);
    let results: RolloutProgress[];
    try {
      results = watch
        ? await watchAll(ctx, client, targets, opts.selector, { timeoutMs, failureGraceMs, printer })
        : await checkOnce(client, targets, opts.selector, failureGraceMs, printer);
    } catch (err) {
      // A gate must not pass on nothing: kubectl's words, exit 1.
      if (!(err instanceof NoMatchesError)) throw err;
      printer.close();
      ctx.term.stderr.write(`No resources found in ${err.namespace} namespace.\n`);
      return ExitCode.FAILED;
    }
    printer.close();
    let code: number = ExitCode.OK;
    for (const p of results) code = Math.max(code, EXIT_BY_STATE[p.state]);
    return code;
  } finally {
    client.close();
  }
}

/**
 * The Rollout to follow: `rollout/NAME` itself, or the Rollout releasing the one named workload (one
 * list of Rollouts, only when the cluster serves them), said on stderr. Undefined: plain workload status.
 */
async function releaseTarget(
  ctx: CommandContext,
  client: KubeClient,
  targets: ResolvedTarget[],
  o: { until?: RolloutUntil; pinnedRevision?: number; format: OutputFormat },
): Promise<{ rt: ResourceType; name: string; namespace: string } | undefined> {
  const rollouts = targets.filter((t) => isKruiseRollout(t.rt));
  if (rollouts.length > 0) {
    if (targets.length > 1 || rollouts[0]!.name === undefined) throw usageError('rollout status of a Kruise Rollout takes exactly one rollout/NAME');
  }
  const t = targets[0];
  // Only workloads are released by Rollouts: a job kind costs no list of Rollouts.
  if (targets.length !== 1 || !t || t.name === undefined || jobProgressKind(t.rt.group, t.rt.kind)) return undefined;
  const checkFlags = (): void => {
    if (o.pinnedRevision !== undefined) throw usageError('--revision does not apply to a Kruise Rollout: its release is followed instead');
    if (o.format.kind !== 'default' && o.format.kind !== 'json') throw usageError(`-o ${o.format.kind} is not supported for a Kruise Rollout: use -o json`);
  };
  if (isKruiseRollout(t.rt)) {
    checkFlags();
    return { rt: t.rt, name: t.name, namespace: t.namespace };
  }
  // --revision asks about the workload's own revisions: keep the workload's status then.
  if (o.pinnedRevision !== undefined && o.until === undefined) return undefined;
  const found = await findRolloutOf(client, t.rt, t.name, t.namespace);
  if (!found) return undefined;
  checkFlags();
  ctx.term.stderr.write(`${found.via} is released by ${rolloutText(found.rollout)}: following it\n`);
  return { rt: found.rolloutRt, name: found.rollout.metadata.name ?? '', namespace: t.namespace };
}

interface StatusPrinter {
  change(p: RolloutProgress): void;
  /** The same state a second later (a failing pod's countdown): only the spinner shows it. */
  tick(p: RolloutProgress): void;
  close(): void;
}

/**
 * Human lines on stdout (spinner on a TTY for intermediate states), or one JSON Lines object,
 * YAML document or jsonpath result per change of state; failures also as `error:` on stderr.
 */
async function makePrinter(ctx: CommandContext, format: OutputFormat): Promise<StatusPrinter> {
  const machine = format.kind !== 'default';
  const spinner: Progress | undefined = !machine && ctx.term.decorate ? await createProgress(ctx.term) : undefined;
  // Colour only where decoration is allowed; chalk is not even loaded otherwise.
  const palette = ctx.term.decorate ? (await import('../../printers/colors')).paletteFor(ctx.term) : undefined;
  let documents = 0;
  return {
    change(p) {
      const now = Date.now();
      const final = isFinal(p);
      if (format.kind === 'json') ctx.term.stdout.write(`${statusJsonLine(p, now)}\n`);
      else if (format.kind === 'yaml' || format.kind === 'jsonpath') ctx.term.stdout.write(statusDocument(p, now, format, documents++));
      if (p.state === 'Failed' || p.state === 'TimedOut') {
        spinner?.stop();
        ctx.term.stderr.write(`${palette ? palette.bad(`error: ${p.message}`) : `error: ${p.message}`}\n`);
        return;
      }
      if (machine) return;
      const line = humanLine(p, now);
      if (spinner && !final) spinner.update(statusSpinnerText(p, now));
      else {
        spinner?.stop();
        const done = p.state === 'Complete' || p.state === 'PartitionComplete';
        // stdout may be piped while stderr is a terminal: no escape codes into a pipe.
        const colour = (ctx.term.stdout as { isTTY?: boolean }).isTTY ? palette : undefined;
        ctx.term.stdout.write(`${colour && done ? colour.ok(line) : colour && p.state === 'Paused' ? colour.warn(line) : line}\n`);
        for (const sub of subsetLines(p)) ctx.term.stdout.write(`${sub}\n`);
      }
    },
    tick(p) {
      if (spinner && !isFinal(p)) spinner.update(statusSpinnerText(p, Date.now()));
    },
    close() {
      spinner?.stop();
    },
  };
}

interface WatchAllOptions {
  timeoutMs: number;
  failureGraceMs: number;
  printer: StatusPrinter;
}

async function watchAll(ctx: CommandContext, client: KubeClient, targets: ResolvedTarget[], selector: string | undefined, o: WatchAllOptions): Promise<RolloutProgress[]> {
  const podType = await client.resolve('pods');
  const watches: RolloutWatch[] = [];
  const observations: Observation[] = [];
  const settings = { failureGraceMs: o.failureGraceMs, onChange: (p: RolloutProgress) => o.printer.change(p), onTick: (p: RolloutProgress) => o.printer.tick(p) };
  const errors: unknown[] = [];
  // An error (not found, forbidden, a broken watch) ends the whole wait at once, like kubectl.
  let rejectFatal!: (err: unknown) => void;
  const fatal = new Promise<never>((_, rej) => (rejectFatal = rej));
  fatal.catch(() => undefined);

  const selectorGroups: Array<{ what: string; synced: () => boolean; trouble: () => unknown }> = [];
  // One observation per named object, or one per selector (all its matches awaited).
  const started: Array<Promise<void>> = [];
  for (const t of targets) {
    if (t.name !== undefined) {
      const w = new RolloutWatch(client, podType, t.namespace, t.name, targetLabel(t.rt, t.name), settings);
      watches.push(w);
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
      w.finished.catch(rejectFatal);
      started.push(w.finished.then(() => obs.stop(), () => obs.stop()));
    } else {
      const group = new Map<string, RolloutWatch>();
      let resolveSynced!: () => void;
      const synced = new Promise<void>((res) => (resolveSynced = res));
      let isSynced = false;
      let lastTrouble: unknown;
      selectorGroups.push({ what: `${t.rt.resource} matching "${selector ?? ''}"`, synced: () => isSynced, trouble: () => lastTrouble });
      const obs = client.observe(
        t.rt,
        t.namespace,
        {
          labelSelector: selector,
          onTrouble: (err) => {
            lastTrouble = err;
            for (const w of group.values()) w.trouble(err);
          },
          onSync: (items) => {
            if (!isSynced) {
              for (const item of items) {
                const name = item.metadata.name ?? '';
                const w = new RolloutWatch(client, podType, t.namespace, name, targetLabel(t.rt, name), settings);
                group.set(name, w);
                watches.push(w);
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
          if (group.size === 0) {
            obs.stop();
            const err = new NoMatchesError(t.namespace, t.rt.resource, selector ?? '');
            rejectFatal(err);
            throw err;
          }
          for (const w of group.values()) w.finished.catch(rejectFatal);
          await Promise.allSettled([...group.values()].map((w) => w.finished));
          obs.stop();
        }),
      );
    }
  }

  const timer =
    o.timeoutMs > 0
      ? setTimeout(() => {
          // A selector never listed (every request failed): the API's error, not a timeout.
          for (const g of selectorGroups) {
            if (g.synced()) continue;
            const trouble = g.trouble();
            rejectFatal(trouble !== undefined ? trouble : new CliError(`timed out waiting for ${g.what} to be listed`, ExitCode.TIMEOUT));
            return;
          }
          watches.forEach((w) => w.timedOut());
        }, o.timeoutMs)
      : undefined;
  const onAbort = (): void => {
    watches.forEach((w) => w.stop());
    observations.forEach((obs) => obs.stop());
  };
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  ctx.setInterruptSummary(() => {
    const n = watches.filter((w) => !w.isDone).length;
    return `stopped waiting for ${n} ${n === 1 ? 'rollout' : 'rollouts'}`;
  });
  try {
    const settled = await Promise.race([Promise.allSettled(started), fatal]);
    const selectorError = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    const results = await Promise.allSettled(watches.map((w) => w.finished));
    const firstError = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (firstError) throw firstError.reason;
    if (selectorError) throw selectorError.reason;
    if (errors.length) throw errors[0];
    return results.map((r) => (r as PromiseFulfilledResult<RolloutProgress>).value);
  } finally {
    if (timer) clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
    watches.forEach((w) => w.stop());
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

/** --watch=false: one read per object (and one paginated pod list only when not done). */
async function checkOnce(client: KubeClient, targets: ResolvedTarget[], selector: string | undefined, failureGraceMs: number, printer: StatusPrinter): Promise<RolloutProgress[]> {
  const objects = (await readTargetObjects(client, targets, selector)).map((o) => o.obj);
  // a selector that matched nothing must not pass the gate
  const selected = targets.find((t) => t.name === undefined);
  if (objects.length === 0 && selected) throw new NoMatchesError(selected.namespace, selected.rt.resource, selector ?? '');
  return Promise.all(
    objects.map(async (obj) => {
      const kind = progressKindFor(obj);
      if (!kind) throw new Error(`no rollout rules for ${obj.apiVersion ?? '?'} ${obj.kind ?? '?'}`);
      let p = kind.evaluate(obj, [], Date.now(), { failureGraceMs });
      if (!isFinal(p) || p.needsPods) {
        p = kind.evaluate(obj, (await loadPods(client, obj, kind)).map((pod) => kind.trimPod(pod)), Date.now(), { failureGraceMs, podsListed: true });
      }
      printer.change(p);
      return p;
    }),
  );
}
