// `rollout jump rollout/NAME|TYPE/NAME --to-step N [--dry-run]`: status nextStepIndex = N (patches.ts
// jumpPatch). N is checked before anything is sent when it is not a step number at all, and against the
// Rollout's steps once read (exit 2, nothing written).
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { usageError } from '../../cli/exit';
import { jumpPatch } from '../../kruise/rollout/patches';
import { mutationLine, parseDryRun } from '../../printers/output';
import { rolloutText } from './kruise-rollout';
import { writeRollout } from './rollout-write';
import { jumpLandingNote } from './jump-landing';
import { parseTargets, resolveTargets } from './targets';

export interface JumpOptions {
  toStep?: string;
  dryRun?: string | boolean;
}

export function parseToStep(value: string | undefined): number {
  if (value === undefined) throw usageError('rollout jump needs --to-step N (the step to go to, 1..steps)');
  if (!/^[1-9]\d*$/.test(value)) throw usageError(`invalid value "${value}" for --to-step: must be a step number (1..steps)`);
  return Number(value);
}

export async function run(ctx: CommandContext, args: string[], opts: JumpOptions, _cmd: Command): Promise<number> {
  const toStep = parseToStep(opts.toStep);
  const dryRun = parseDryRun(opts.dryRun);
  const refs = parseTargets('rollout jump', args, undefined, { single: true });
  const client = await ctx.kube();
  try {
    const [t] = await resolveTargets(client, 'rollout jump', refs, { allowRollout: true });
    const done = await writeRollout(client, t!, {
      verb: 'jump',
      dryRun,
      decide: (rollout) => jumpPatch(rollout, toStep),
      nothing: (rollout, reason) => `${rolloutText(rollout)}: ${reason.replace(/^rollout "[^"]*":? /, '')}`,
      permission: () => 'the "patch" verb on "rollouts/status"',
    });
    if (done.via) ctx.term.stderr.write(`${done.via} is released by ${rolloutText(done.rollout)}\n`);
    ctx.term.stdout.write(`${mutationLine('Rollout', 'rollouts.kruise.io', done.rollout.metadata.name ?? '', `jumped to step ${toStep}`, dryRun)}\n`);
    const landing = await jumpLandingNote(client, done.rollout, toStep, t!.namespace);
    if (landing) ctx.term.stderr.write(`${landing}\n`);
    return 0;
  } finally {
    client.close();
  }
}
