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
import { registerScaledown } from './scaledown/spec';
import { registerExec } from './exec/spec';
import { registerMigrate } from './migrate/spec';
import { registerExpose } from './expose/spec';

/**
 * Adds a group's commands. `shallow`: only the group's top-level command (name, description), for
 * the root help and suggestions; its subcommands and their flags are registered when it runs.
 * `sub`: the word after the group's name; groups with many subcommands register just that one
 * when it names one of theirs (see subcommands.ts).
 */
type Register = (program: Command, ctx: CommandContext, shallow?: boolean, sub?: string) => void;

// Help lists the groups in this order: the everyday verbs first. Each entry names the
// top-level commands its register function adds, so that one invocation registers only the
// group it runs (defining every command costs a few ms of a ~20 ms start).
export const COMMAND_GROUPS: ReadonlyArray<{ names: readonly string[]; register: Register }> = [
  { names: ['rollout'], register: registerRollout },
  { names: ['set'], register: registerSet },
  { names: ['restart'], register: registerRestart },
  { names: ['predownload'], register: registerPredownload },
  { names: ['scaledown'], register: registerScaledown },
  { names: ['create'], register: registerCreate },
  { names: ['migrate'], register: registerMigrate },
  { names: ['expose'], register: registerExpose },
  { names: ['get'], register: registerGet },
  { names: ['describe'], register: registerDescribe },
  { names: ['exec'], register: registerExec },
  { names: ['explain'], register: registerExplain },
  { names: ['sandbox'], register: registerSandbox },
  { names: ['completion', '__complete'], register: registerCompletion },
  { names: ['version'], register: registerVersion },
];
