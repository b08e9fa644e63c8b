// The command tree. Each group registers its own subcommands from a small spec
// module; the implementations load lazily (see lazy.ts).
import type { Command } from 'commander';
import type { CommandContext } from '../cli/context';
import { registerCompletion } from './completion/spec';

type Register = (program: Command, ctx: CommandContext) => void;

export const COMMAND_GROUPS: Register[] = [registerCompletion];
