// `rollout approve rollout/NAME|TYPE/NAME [--dry-run]`: StepPaused → StepReady on the Rollout's status
// subresource (patches.ts approvePatch, v1alpha1 and v1beta1, canary and blue-green). Nothing waiting
// for approval: exit 1, nothing written. Budget: one GET (a list more for TYPE/NAME), one PATCH.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { exitCodeOf } from '../../cli/exit';
import { approvePatch } from '../../kruise/rollout/patches';
import { mutationLine, parseDryRun } from '../../printers/output';
import { rolloutText } from './kruise-rollout';
import { reasonDetail, writeRollout } from './rollout-write';
import { parseTargets, resolveTargets } from './targets';

export interface ApproveOptions {
  dryRun?: string | boolean;
}

export async function run(ctx: CommandContext, args: string[], opts: ApproveOptions, _cmd: Command): Promise<number> {
  const dryRun = parseDryRun(opts.dryRun);
  const refs = parseTargets('rollout approve', args, undefined);
  const client = await ctx.kube();
  try {
    const targets = await resolveTargets(client, 'rollout approve', refs, { allowRollout: true });
    let code = 0;
    for (const t of targets) {
      try {
        const done = await writeRollout(client, t, {
          verb: 'approve',
          dryRun,
          decide: approvePatch,
          nothing: (rollout, reason) => `${rolloutText(rollout)}: nothing to approve (${reasonDetail(reason)})`,
          permission: () => 'the "patch" verb on "rollouts/status"',
        });
        if (done.via) ctx.term.stderr.write(`${done.via} is released by ${rolloutText(done.rollout)}\n`);
        ctx.term.stdout.write(`${mutationLine('Rollout', 'rollouts.kruise.io', done.rollout.metadata.name ?? '', 'approved', dryRun)}\n`);
      } catch (err) {
        if (targets.length === 1) throw err;
        ctx.term.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
        code = Math.max(code, exitCodeOf(err));
      }
    }
    return code;
  } finally {
    client.close();
  }
}
