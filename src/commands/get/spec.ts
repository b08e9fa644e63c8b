// `get pps [NAME]`: names, flags and help only; the implementation loads lazily.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';

export function registerGet(program: Command, ctx: CommandContext): void {
  const p = ctx.programName;
  program
    .command('get')
    .description('show PersistentPodStates: a list, or one PPS as a table of its recorded pod states (other kinds: use kubectl get)')
    .usage('pps [NAME] [flags]')
    .argument('<type>')
    .argument('[name]')
    .option('-o, --output <format>', 'wide, yaml, json or name')
    .addHelpText('after', `\nExamples:\n  ${p} get pps\n  ${p} get pps db\n  ${p} get pps db -o yaml`)
    .action(lazyAction(ctx, () => import('./pps')));
}
