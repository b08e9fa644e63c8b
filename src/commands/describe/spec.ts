// `describe pps NAME`: names, flags and help only; the implementation loads lazily.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';

export function registerDescribe(program: Command, ctx: CommandContext): void {
  const p = ctx.programName;
  program
    .command('describe')
    .description('describe a PersistentPodState (all of the namespace without NAME): its topology, the recorded pod states, pods elsewhere than recorded and injected affinity')
    .usage('pps [NAME]')
    .argument('<type>')
    .argument('[name]')
    .addHelpText('after', `\nExamples:\n  ${p} describe pps db\n  ${p} describe pps -n shop`)
    .action(lazyAction(ctx, () => import('./pps')));
}
