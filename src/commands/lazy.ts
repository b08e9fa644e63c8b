// Commands are registered eagerly (names, flags, help) but their code is loaded
// only when they run, so `--help` and offline commands stay fast.
import type { Command } from 'commander';
import type { CommandContext } from '../cli/context';

/** A command's implementation: returns the exit code (0 when omitted). */
export type CommandRun<O = Record<string, unknown>> = (
  ctx: CommandContext,
  args: string[],
  opts: O,
  command: Command,
) => Promise<number | void>;

export interface CommandModule<O = Record<string, unknown>> {
  run: CommandRun<O>;
}

/** Exit code chosen by the last action that ran; read by the entry point. */
export const actionResult: { code: number } = { code: 0 };

export function lazyAction<O>(ctx: CommandContext, load: () => Promise<CommandModule<O>>) {
  return async (...actionArgs: unknown[]): Promise<void> => {
    const command = actionArgs[actionArgs.length - 1] as Command;
    const mod = await load();
    const code = await mod.run(ctx, command.args.slice(), command.opts() as O, command);
    actionResult.code = typeof code === 'number' ? code : 0;
  };
}
