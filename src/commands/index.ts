// The command tree. Each group registers its own subcommands from a small spec
// module; the implementations load lazily (see lazy.ts).
import type { KruiseCommand } from '../cli/help';
import type { CommandContext } from '../cli/context';
import { registerCompletion } from './completion/spec';
import { registerSet } from './set/spec';
import { registerRestart } from './restart/spec';
import { registerPredownload } from './predownload/spec';
import { registerCreate } from './create/spec';
import { registerGet } from './get/spec';
import { registerDescribe } from './describe/spec';
import { registerVersion } from './version-spec';
import { registerOptions } from './options-spec';
import { registerExplain } from './explain/spec';
import { registerSandbox } from './sandbox-spec';
import { registerRollout } from './rollout/spec';
import { registerScaledown } from './scaledown/spec';
import { registerExec } from './exec/spec';
import { registerMigrate } from './migrate/spec';
import { registerExpose } from './expose/spec';
import { registerWhy } from './why-spec';
import { registerGitOps } from './gitops/spec';

/**
 * Adds a group's commands. `shallow`: only the group's top-level command (name, description), for
 * the root help and suggestions; its subcommands and their flags are registered when it runs.
 * `sub`: the word after the group's name; groups with many subcommands register just that one
 * when it names one of theirs (see subcommands.ts).
 */
type Register = (program: KruiseCommand, ctx: CommandContext, shallow?: boolean, sub?: string) => void;

// The build defines this for a group's own bundle (dist/cli-GROUP.cjs, which bin/kubectl-kruise runs when
// the command line starts with the group's name): there every other group's entry folds to false, and
// esbuild leaves their modules out. Undefined in the whole CLI (dist/cli.cjs, the executable, the tests).
// Spelled out in every entry: esbuild folds the comparison of two literals, not a constant holding one.
declare const __KUBECTL_KRUISE_GROUP__: string;

/** `options` (hidden, the global flags) is small enough to ride with `version` rather than have a bundle of its own. */
const registerVersionAndOptions: Register = (program, ctx) => {
  registerVersion(program, ctx);
  registerOptions(program, ctx);
};

type Group = { names: readonly string[]; register: Register };

// Help lists the groups in this order: the everyday verbs first. Each entry names the
// top-level commands its register function adds, so that one invocation registers only the
// group it runs (defining every command costs a few ms of a ~20 ms start).
export const COMMAND_GROUPS: readonly Group[] = ([
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'rollout') && { names: ['rollout'], register: registerRollout },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'set') && { names: ['set'], register: registerSet },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'restart') && { names: ['restart'], register: registerRestart },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'predownload') && { names: ['predownload'], register: registerPredownload },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'scaledown') && { names: ['scaledown'], register: registerScaledown },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'create') && { names: ['create'], register: registerCreate },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'migrate') && { names: ['migrate'], register: registerMigrate },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'expose') && { names: ['expose'], register: registerExpose },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'why') && { names: ['why'], register: registerWhy },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'gitops') && { names: ['gitops'], register: registerGitOps },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'get') && { names: ['get'], register: registerGet },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'describe') && { names: ['describe'], register: registerDescribe },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'exec') && { names: ['exec'], register: registerExec },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'explain') && { names: ['explain'], register: registerExplain },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'sandbox') && { names: ['sandbox'], register: registerSandbox },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'completion') && { names: ['completion', '__complete'], register: registerCompletion },
  (typeof __KUBECTL_KRUISE_GROUP__ === 'undefined' || __KUBECTL_KRUISE_GROUP__ === 'version') && { names: ['version', 'options'], register: registerVersionAndOptions },
] as Array<Group | false>).filter((g): g is Group => g !== false);
