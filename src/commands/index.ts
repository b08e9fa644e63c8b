// The command tree. Each group registers its own subcommands from a small spec
// module; the implementations load lazily (see lazy.ts).
import type { Command } from 'commander';
import type { CommandContext } from '../cli/context';
import { registerCompletion } from './completion/spec';
import { registerSet } from './set/spec';
import { registerRestart } from './restart/spec';
import { registerPredownload } from './predownload/spec';
import { registerCreate } from './create/spec';
import { registerGet } from './get/spec';
import { registerDescribe } from './describe/spec';
import { registerVersion } from './version-spec';
import { registerExplain } from './explain/spec';
import { registerSandbox } from './sandbox-spec';
import { registerRollout } from './rollout/spec';

type Register = (program: Command, ctx: CommandContext) => void;

// Help lists the groups in this order: the everyday verbs first.
export const COMMAND_GROUPS: Register[] = [
  registerRollout,
  registerSet,
  registerRestart,
  registerPredownload,
  registerCreate,
  registerGet,
  registerDescribe,
  registerExplain,
  registerSandbox,
  registerCompletion,
  registerVersion,
];
