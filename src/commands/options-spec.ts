// `options`: the global flags, as `kubectl options` lists kubectl's; every command's help points here.
// Hidden from the command list, as kubectl's is.
import type { CommandContext } from '../cli/context';
import { formatFlag, wrapLimit, type KruiseCommand } from '../cli/help';
import { globalFlagDocs } from '../cli/globals';

export function registerOptions(program: KruiseCommand, ctx: CommandContext): void {
  program
    .command('options', { hidden: true })
    .description('print the list of flags inherited by all commands')
    .examples(`
      # Print flags inherited by all commands
      ${ctx.programName} options`)
    .action(() => {
      const limit = wrapLimit(ctx.term.columns ?? 0);
      const flags = globalFlagDocs().map((f) => formatFlag(f.names, f.value, f.description, limit));
      ctx.term.stdout.write(`The following options can be passed to any command:\n\n${flags.join('\n\n')}\n`);
    });
}
