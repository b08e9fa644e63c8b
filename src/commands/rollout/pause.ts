// `rollout pause|resume TYPE/NAME...`: sets exactly the contract's paused field through the
// workload's adapter, or a Kruise Rollout's spec.strategy.paused (rollout/NAME) (JSON merge patch: strategic merge is 415 on custom resources).
// Budget: one GET (to know the shape and the current value) and one PATCH per object.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { CliError, ExitCode, exitCodeOf, failure, usageError } from '../../cli/exit';
import type { KubeClient, KubeObject } from '../../kube/client';
import { pausePatch } from '../../kruise/rollout/patches';
import { writeRollout } from './rollout-write';
import { retryOnConflict } from '../../kube/conflict';
import { objectLabel, resourceLabel } from '../../kube/errors';
import { adapterFor, adapterForGroupKind } from '../../kruise/workloads/index';
import { formatObjects, mutationLine, parseOutputFormat } from '../../printers/output';
import { pauseSidecarSets } from './sidecarset-pause';
import { rolloutHolding } from '../../kruise/rollout/holder';
import { releaseHint, workloadRefText } from '../../printers/release-hints';
import { sidecarSetTargets } from './sidecarset-status';
import { isKruiseRollout, namedTargets, noResourcesFound, parseTargets, resolveTargets, type ResolvedTarget } from './targets';

/** Attempts of one pause/resume when the object changed under us (409 Conflict). */
const PAUSE_ATTEMPTS = 3;

export interface PauseOptions {
  filename?: string[];
  selector?: string;
  output?: string;
}

async function pauseOrResume(ctx: CommandContext, args: string[], opts: PauseOptions, paused: boolean): Promise<number> {
  const verb = paused ? 'pause' : 'resume';
  // -o prints the patched objects (a List when several, like undo) instead of the mutation lines.
  const format = parseOutputFormat(opts.output, ['default', 'json', 'yaml', 'name', 'jsonpath']);
  const refs = parseTargets(`rollout ${verb}`, args, opts.selector, { filenames: opts.filename });
  const client = await ctx.kube();
  let code: number = ExitCode.OK;
  try {
    const sidecarSets = await sidecarSetTargets(client, `rollout ${verb}`, refs);
    if (sidecarSets) return await pauseSidecarSets(ctx, client, sidecarSets, paused, format);
    const resolved = await resolveTargets(client, `rollout ${verb}`, refs, { allowRollout: true });
    for (const t of resolved) {
      if (isKruiseRollout(t.rt)) continue; // spec.strategy.paused (pauseRollout)
      // Native StatefulSet and DaemonSet have no paused field: refuse before any request.
      if (!adapterForGroupKind(t.rt.group, t.rt.kind)?.supportsPause) {
        throw usageError(`${resourceLabel(t.rt)}${t.name === undefined ? '' : ` "${t.name}"`} cannot be ${paused ? 'paused' : 'resumed'}: only CloneSet, Advanced StatefulSet, Advanced DaemonSet and Deployment have a paused field`);
      }
    }
    const targets = await namedTargets(client, resolved, opts.selector);
    // Only a selector can match nothing: kubectl prints this line and exits 0.
    if (targets.length === 0) ctx.term.stderr.write(`${noResourcesFound(client.namespace)}\n`);
    const printed: KubeObject[] = [];
    for (const t of targets) {
      const name = t.name!;
      try {
        if (isKruiseRollout(t.rt)) {
          const done = await pauseRollout(client, t, paused);
          if (!done) {
            ctx.term.stderr.write(`error: ${objectLabel(t.rt, name)} ${paused ? 'is already paused' : 'is not paused'}\n`);
            code = Math.max(code, ExitCode.FAILED);
          } else if (format.kind !== 'default') printed.push(done);
          else ctx.term.stdout.write(`${mutationLine('Rollout', t.rt.group, name, paused ? 'paused' : 'resumed', 'none')}\n`);
          continue;
        }
        // A 409 Conflict means the object changed under us: decide again on a fresh read (bounded).
        let holder: string | undefined;
        const patched = await retryOnConflict(async () => {
          const obj = await client.get(t.rt, name, t.namespace);
          holder = rolloutHolding(obj);
          const adapter = adapterFor(obj);
          if (!adapter) throw usageError(`${objectLabel(t.rt, name)}: no rollout support for ${obj.apiVersion} ${obj.kind}`);
          if (adapter.paused(obj) === paused) return undefined;
          return client.patch(t.rt, name, 'merge', adapter.pausePatch(obj, paused), t.namespace);
        }, {
          attempts: PAUSE_ATTEMPTS,
          exhausted: (last, attempts) => failure(`${objectLabel(t.rt, name)} was not ${paused ? 'paused' : 'resumed'}: it kept changing (${attempts} attempts)`, `hint: last server answer: ${last.message}`),
        });
        // A workload a release holds: its Rollout drives it, and is what to pause or resume.
        if (holder !== undefined) ctx.term.stderr.write(`${releaseHint(ctx.programName, workloadRefText(t.rt, name), holder, paused ? 'pause' : 'resume')}\n`);
        if (patched && format.kind !== 'default') {
          printed.push(patched);
        } else if (patched) {
          ctx.term.stdout.write(`${mutationLine(t.rt.kind, t.rt.group, name, paused ? 'paused' : 'resumed', 'none')}\n`);
        } else {
          ctx.term.stderr.write(`error: ${objectLabel(t.rt, name)} ${paused ? 'is already paused' : 'is not paused'}\n`);
          code = Math.max(code, ExitCode.FAILED);
        }
      } catch (err) {
        if (targets.length === 1) throw err;
        ctx.term.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
        code = Math.max(code, exitCodeOf(err));
      }
    }
    if (printed.length > 0) ctx.term.stdout.write(formatObjects(printed, format));
  } finally {
    client.close();
  }
  return code;
}

/** spec.strategy.paused of a Kruise Rollout (patches.ts pausePatch); undefined when it already is. */
async function pauseRollout(client: KubeClient, t: ResolvedTarget, paused: boolean): Promise<KubeObject | undefined> {
  try {
    const done = await writeRollout(client, t, {
      verb: paused ? 'pause' : 'resume',
      dryRun: 'none',
      decide: (rollout) => pausePatch(rollout, paused),
      nothing: (_rollout, reason) => reason,
      permission: () => 'the "patch" verb on "rollouts"',
    });
    return done.result;
  } catch (err) {
    if (err instanceof CliError && err.exitCode === ExitCode.FAILED && / is already (paused|resumed)$/.test(err.message)) return undefined;
    throw err;
  }
}

export async function runPause(ctx: CommandContext, args: string[], opts: PauseOptions, _cmd: Command): Promise<number> {
  return pauseOrResume(ctx, args, opts, true);
}

export async function runResume(ctx: CommandContext, args: string[], opts: PauseOptions, _cmd: Command): Promise<number> {
  return pauseOrResume(ctx, args, opts, false);
}
