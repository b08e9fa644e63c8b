// `rollout undo TYPE/NAME... | TYPE -l SEL [--to-revision=N] [--dry-run] [-o]`: restores the pod template of a
// revision as a whole (JSON patch `replace` of /spec/template guarded by a `test` of metadata.generation,
// which status writes leave alone), so keys added after that revision disappear — unlike a merge patch.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { exitCodeOf, failure, usageError } from '../../cli/exit';
import { adapterFor } from '../../kruise/workloads/index';
import { KIND_LABELS } from '../../kruise/progress';
import { currentRevisionNumber, templateImages, undoPatch, undoTarget, withTemplate, type Revision } from '../../kruise/revisions';
import { undoUnderRollout } from '../../kruise/rollout/gate';
import { releaseHint } from '../../printers/release-hints';
import { keptAfterUndo, keptAfterUndoText, partitionMayKeep } from '../../kruise/rules/undo-partition';
import { describeRejections, webhookRejections } from '../../kruise/rules/webhook-precheck';
import { formatObjects, mutationLine, parseDryRun, parseOutputFormat, type DryRunMode, type OutputFormat } from '../../printers/output';
import type { KubeClient, KubeObject } from '../../kube/client';
import { retryOnConflict } from '../../kube/conflict';
import { objectLabel } from '../../kube/errors';
import { loadPods, loadRevisions } from './revision-source';
import { isKruiseRollout, namedTargets, noResourcesFound, parseTargets, resolveTargets, type ResolvedTarget } from './targets';
import { findRolloutOf, rolloutText } from './kruise-rollout';
import { writeRollout } from './rollout-write';
import { jumpLandingNote } from './jump-landing';
import { sidecarSetUndoCommand } from './sidecarset-history';
import { sidecarSetTargets } from './sidecarset-status';
import { fastRollbackStep, rollsBackInBatches } from '../../kruise/rollout/fast-rollback';
import { jumpPatch } from '../../kruise/rollout/patches';
import { ROLLBACK_IN_BATCH_ANNOTATION } from '../../kruise/rollout/labels';
import type { WorkloadPreview } from '../../kruise/preview/types';
import { parsePreviewSettings, type PreviewSettings } from '../preview/settings';

export interface UndoOptions {
  filename?: string[];
  selector?: string;
  toRevision?: string;
  dryRun?: string | boolean;
  output?: string;
  fast?: boolean;
  preview?: boolean;
  featureGates?: string;
}

export function parseRevisionNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw usageError(`invalid value "${value}" for ${flag}: must be a non-negative integer`);
  const n = Number(value);
  return n === 0 ? undefined : n;
}

export async function run(ctx: CommandContext, args: string[], opts: UndoOptions, _cmd: Command): Promise<number> {
  const toRevision = parseRevisionNumber(opts.toRevision, '--to-revision');
  const dryRun = parseDryRun(opts.dryRun);
  const format = parseOutputFormat(opts.output, ['default', 'json', 'yaml', 'name', 'jsonpath']);
  const refs = parseTargets('rollout undo', args, opts.selector, { filenames: opts.filename });
  if (opts.fast && toRevision !== undefined) throw usageError('--fast goes back to a previous step of a Kruise Rollout release; it takes no --to-revision');
  if (opts.preview && (opts.fast || opts.dryRun !== undefined)) throw usageError('--preview writes nothing already; it cannot be combined with --fast or --dry-run');
  if (!opts.preview && opts.featureGates !== undefined) throw usageError('--feature-gates only goes with --preview');
  const preview = opts.preview ? parsePreviewSettings({ featureGates: opts.featureGates, output: opts.output }) : undefined;
  const client = await ctx.kube();
  try {
    const sidecarSets = await sidecarSetTargets(client, 'rollout undo', refs);
    if (sidecarSets) {
      if (opts.fast) throw usageError('--fast applies to a Kruise Rollout release, not a SidecarSet');
      return await sidecarSetUndoCommand(ctx, client, sidecarSets, { toRevision, dryRun, format });
    }
    if (opts.fast) return await fastUndo(ctx, client, await resolveTargets(client, 'rollout undo', refs, { allowRollout: true }), dryRun);
    const resolved = await resolveTargets(client, 'rollout undo', refs, { allowRollout: true });
    const rolloutTarget = resolved.find((t) => isKruiseRollout(t.rt));
    if (rolloutTarget) {
      throw usageError(
        `rollout undo of rollout/${rolloutTarget.name ?? ''} needs --fast (back to a previous step); to restore the stable template, name the workload it releases (TYPE/NAME)`,
      );
    }
    const targets = await namedTargets(client, resolved, opts.selector);
    if (targets.length === 0) {
      // Only a selector can match nothing: like kubectl, nothing to do is not a failure.
      ctx.term.stderr.write(`${noResourcesFound(client.namespace)}\n`);
      return 0;
    }
    // Like kubectl, each object is rolled back on its own: one failure does not stop the others.
    if (preview) {
      const previews: WorkloadPreview[] = [];
      for (const t of targets) await undoOnce(ctx, client, t, { toRevision, dryRun, format, preview, previews });
      return (await import('../preview/run')).printPreviews(ctx, previews, preview);
    }
    let code = 0;
    const printed: KubeObject[] = [];
    for (const t of targets) {
      try {
        // The patch is guarded by the generation we read: if the spec changed meanwhile,
        // decide again on fresh state (bounded), never overwrite someone else's change.
        const result = await retryOnConflict(() => undoOnce(ctx, client, t, { toRevision, dryRun, format }), {
          exhausted: (last, attempts) =>
            failure(`${objectLabel(t.rt, t.name!)} was not rolled back: its spec kept changing while it was being rolled back (${attempts} attempts)`, `hint: last server answer: ${last.message}`),
        });
        if (result) printed.push(result);
      } catch (err) {
        if (targets.length === 1) throw err;
        ctx.term.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
        code = Math.max(code, exitCodeOf(err));
      }
    }
    if (format.kind !== 'default' && printed.length > 0) ctx.term.stdout.write(formatObjects(printed, format));
    return code;
  } finally {
    client.close();
  }
}

async function undoOnce(
  ctx: CommandContext,
  client: KubeClient,
  t: ResolvedTarget,
  o: { toRevision?: number; dryRun: DryRunMode; format: OutputFormat; preview?: PreviewSettings; previews?: WorkloadPreview[] },
): Promise<KubeObject | undefined> {
  const name = t.name!;
  const obj = await client.get(t.rt, name, t.namespace);
  const adapter = adapterFor(obj);
  if (!adapter) throw failure(`no rollout support for ${obj.apiVersion} ${obj.kind} "${name}"`);
  const label = `${KIND_LABELS[adapter.kindName]} "${name}"`;
  const { source, revisions } = await loadRevisions(client, obj, adapter);
  // Under a Kruise Rollout the workload is paused by the Rollout itself (Deployment canary): restoring the
  // template is its rollback, which the controller handles before a pause (rollout_progressing.go
  // doProgressingInRolling: isRollingBackDirectly first), so it is never refused.
  const managed = await findRolloutOf(client, t.rt, name, t.namespace);
  if (!managed && source.undoRefusedWhenPaused && adapter.paused(obj)) {
    throw failure(`you cannot rollback a paused ${KIND_LABELS[adapter.kindName]}; resume it first with '${ctx.programName} rollout resume ${t.rt.kind.toLowerCase()}/${name}' and try again`);
  }
  const decision = undoTarget({
    label,
    revisions,
    currentTemplate: adapter.template(obj),
    updateRevision: adapter.status(obj).updateRevision,
    toRevision: o.toRevision,
  });
  if (decision.kind === 'error') throw failure(decision.message);
  if (decision.kind === 'skip' && o.preview) {
    o.previews?.push(await (await import('../preview/run')).previewLive(client, 'rollout undo', obj, obj, o.preview));
    return undefined;
  }
  if (decision.kind === 'skip') {
    ctx.term.stdout.write(`${mutationLine(t.rt.kind, t.rt.group, name, `skipped rollback (current template already matches revision ${decision.target.revision})`, o.dryRun)}\n`);
    return undefined;
  }
  const template = decision.target.template;
  let result = withTemplate(obj, template);
  if (o.preview) {
    // an InPlaceOnly refusal is part of the preview (action "refused"), not an error here
    o.previews?.push(await (await import('../preview/run')).previewLive(client, `rollout undo (to revision ${decision.target.revision})`, obj, result, o.preview));
    return undefined;
  }
  // What Kruise's webhook would refuse (e.g. an InPlaceOnly CloneSet back to a revision with
  // other env): refuse here, before anything is sent.
  const rejected = webhookRejections(obj, result);
  if (rejected.length > 0) {
    throw usageError(
      `${label}: rolling back to revision ${decision.target.revision} would be rejected by Kruise's webhook: ${describeRejections(rejected)}; nothing was changed`,
    );
  }
  if (o.dryRun !== 'client') {
    result = await client.patch(t.rt, name, 'json', undoPatch(obj, template, adapter.templatePointer(obj)), t.namespace, { dryRun: o.dryRun === 'server' });
  }
  if (o.format.kind === 'default') ctx.term.stdout.write(`${mutationLine(t.rt.kind, t.rt.group, name, 'rolled back', o.dryRun)}\n`);
  if (managed) ctx.term.stderr.write(`${rolloutUndoNote(ctx.programName, managed.rollout, obj, managed.via ?? '', decision.target)}\n`);
  // The workload's own partition still keeps pods of the revision left: say how many, and how to release them.
  else if (partitionMayKeep(adapter, obj)) {
    const leaving = currentRevisionNumber(revisions, adapter.template(obj), adapter.status(obj).updateRevision);
    const left = revisions.find((r) => r.revision === leaving);
    if (left) {
      for (const k of keptAfterUndo(adapter, obj, await loadPods(client, obj, adapter), left, source)) {
        ctx.term.stderr.write(`warning: ${label}: ${keptAfterUndoText(k, left.revision, templateImages(left.template))}\n`);
      }
    }
  }
  return result;
}

/** What the Rollout does next (gate.ts undoUnderRollout: rollout_progressing.go doProgressingInRolling). */
function rolloutUndoNote(program: string, rollout: KubeObject, workload: KubeObject, via: string, target: Revision): string {
  const who = rolloutText(rollout);
  const follow = `follow it with '${program} rollout status ${via}'`;
  switch (undoUnderRollout(rollout, workload, target.hash, rollsBackInBatches(rollout, workload.metadata.labels))) {
    case 'cancel':
      return `${via} is released by ${who}: it cancels its release (Kruise Rollout's rollback) and the stable pods come back; ${follow}`;
    case 'rollback-in-batches':
      return `${via} is released by ${who} (${ROLLBACK_IN_BATCH_ANNOTATION}): it rolls back in batches from step 1; ${follow}`;
    case 'restart':
      return `${via} is released by ${who}: not a rollback to it (another revision than its stable one, or a native DaemonSet on Kruise Rollout master), so the release starts again from step 1 with revision ${target.revision}; ${follow}`;
    case 'release':
      return releaseHint(program, via, rollout.metadata.name ?? '', 'change');
  }
}

/**
 * --fast (kruise-tools rollout undo --fast): the release in progress goes back to the previous step without
 * traffic and with the most pods (fast-rollback.ts), written as status nextStepIndex (jumpPatch).
 */
async function fastUndo(ctx: CommandContext, client: KubeClient, targets: ResolvedTarget[], dryRun: DryRunMode): Promise<number> {
  let code = 0;
  for (const t of targets) {
    try {
      if (t.name === undefined) throw usageError('rollout undo --fast takes rollout/NAME or TYPE/NAME, not a selector');
      let step = 0;
      const done = await writeRollout(client, t, {
        verb: 'undo',
        dryRun,
        decide: (rollout) => {
          const target = fastRollbackStep(rollout);
          if (target.error !== undefined) return { patch: undefined, reason: target.error };
          step = target.step;
          return jumpPatch(rollout, target.step);
        },
        nothing: (rollout, reason) => `${rolloutText(rollout)}: cannot roll back fast: ${reason.replace(/^rollout "[^"]*":? /, '')}`,
        permission: () => 'the "patch" verb on "rollouts/status"',
      });
      if (done.via) ctx.term.stderr.write(`${done.via} is released by ${rolloutText(done.rollout)}\n`);
      ctx.term.stdout.write(`${mutationLine('Rollout', 'rollouts.kruise.io', done.rollout.metadata.name ?? '', `rolled back to step ${step}`, dryRun)}\n`);
      const landing = await jumpLandingNote(client, done.rollout, step, t.namespace);
      if (landing) ctx.term.stderr.write(`${landing}\n`);
    } catch (err) {
      if (targets.length === 1) throw err;
      ctx.term.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      code = Math.max(code, exitCodeOf(err));
    }
  }
  return code;
}
