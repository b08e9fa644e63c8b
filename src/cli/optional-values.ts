// kubectl's flags with an optional value (`-w`, `--dry-run`, `--wait`...) take that value only
// after `=`: `rollout status -w cloneset/web` watches cloneset/web. Commander instead takes the
// next word as the value ("invalid value cloneset/web for --watch"). A bare such flag followed by
// a word that is not one of its values is moved after the other arguments, where it has none.
import type { Command } from 'commander';

/** Words that are values of our optional-value flags (booleans and --dry-run modes), not arguments. */
const VALUE_WORDS = new Set(['true', 'false', 'none', 'client', 'server', 'unchanged']);

/** The command the leading words name (`rollout status ...` → the status command). */
function leafCommand(program: Command, args: readonly string[]): Command {
  let cmd = program;
  for (const word of args) {
    if (word.startsWith('-')) break;
    const next = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) break;
    cmd = next;
  }
  return cmd;
}

export function bareOptionalFlagsLast(program: Command, args: readonly string[]): string[] {
  const flags = new Set<string>();
  for (const o of leafCommand(program, args).options) {
    if (!o.optional || o.required) continue; // commander marks `<k[:w]>` optional too: a `[` inside <...>
    if (o.long) flags.add(o.long);
    if (o.short) flags.add(o.short);
  }
  if (flags.size === 0) return [...args];
  const end = args.indexOf('--') === -1 ? args.length : args.indexOf('--');
  const kept: string[] = [];
  const moved: string[] = [];
  for (let i = 0; i < end; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    if (flags.has(arg) && i + 1 < end && next !== undefined && !next.startsWith('-') && !VALUE_WORDS.has(next)) moved.push(arg);
    else kept.push(arg);
  }
  return [...kept, ...moved, ...args.slice(end)];
}
