// Spec modules register names, flags and help (commands/index.ts); a command's code is
// loaded only when it runs, so `--help` and offline commands stay fast.
import type { Command } from 'commander';
import type { CommandContext } from '../cli/context';
import { noteCommand } from '../cli/code-cache';

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

/** YAML output: load the YAML writer alongside the command. */
function needsYaml(opts: Record<string, unknown>): boolean {
  return opts.output === 'yaml';
}

/** Manifest input: load the manifest reader alongside the command. */
function readsManifests(opts: Record<string, unknown>): boolean {
  return opts.filename !== undefined && opts.filename !== false;
}

/** "rollout status": the names from the root's child down to this command. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * A mutating command (one with --gitops, see gitops-flags.ts): its client attributes every write
 * to --field-manager and checks it against GitOps owners; the flags are checked before any request.
 */
async function writeContext(ctx: CommandContext, opts: Record<string, unknown>): Promise<CommandContext> {
  if (opts.gitops === undefined) return ctx;
  const [{ writePolicy }, { guardWrites }] = await Promise.all([import('./gitops-flags'), import('../engine/gitops-writes')]);
  const policy = writePolicy(opts as { fieldManager?: string; gitops?: string }, 'kubectl-kruise', (line) => void ctx.term.stderr.write(`${line}\n`));
  return new Proxy(ctx, {
    get(target, prop) {
      if (prop === 'kube') return async () => guardWrites(await target.kube(), policy);
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export function lazyAction<O>(ctx: CommandContext, load: () => Promise<CommandModule<O>>) {
  return async (...actionArgs: unknown[]): Promise<void> => {
    const command = actionArgs[actionArgs.length - 1] as Command;
    const opts = command.opts() as Record<string, unknown>;
    noteCommand(commandPath(command));
    const [mod] = await Promise.all([
      load(),
      needsYaml(opts) ? import('../lib/yaml').then((m) => m.preloadYaml()) : undefined,
      readsManifests(opts) ? import('../lib/yaml').then((m) => m.preloadManifestReader()) : undefined,
    ]);
    const code = await mod.run(await writeContext(ctx, opts), command.args.slice(), opts as O, command);
    actionResult.code = typeof code === 'number' ? code : 0;
  };
}
