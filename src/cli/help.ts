// Help in kubectl's shape (kubectl's pkg/util/templates: MainHelpTemplate, MainUsageTemplate):
// the long description, Examples, Available Commands, Options (pflag's `--flag=DEFAULT:` with the
// description on a tab-indented line), Usage, and the closing tips. One formatter for every
// command; a command only supplies its text (description, notes, examples).
import { Command, Help, type Option } from 'commander';
import { compareText } from '../lib/compare';

/** A command whose help kubectl would print: notes and examples are data, laid out by formatHelp. */
export class KruiseCommand extends Command {
  helpNotes = '';
  helpExamples = '';

  override createCommand(name?: string): KruiseCommand {
    return new KruiseCommand(name);
  }

  override createHelp(): Help {
    return Object.assign(new KubectlHelp(), this.configureHelp());
  }

  /** Text kubectl would put in the long description (states, exit codes, JSON shapes), after the description. */
  notes(text: string): this {
    this.helpNotes = dedent(text);
    return this;
  }

  /** kubectl's templates.Examples: `# comment` lines, each followed by its command lines; blank lines between. */
  examples(text: string): this {
    this.helpExamples = dedent(text);
    return this;
  }
}

class KubectlHelp extends Help {
  override formatHelp(cmd: Command): string {
    return formatHelp(cmd, this.helpWidth ?? 0);
  }
}

/** kubectl wraps only on a terminal, to 120, 100 or 80 columns; narrower or not a terminal: no wrapping. */
export function wrapLimit(columns: number): number {
  return columns >= 120 ? 120 : columns >= 100 ? 100 : columns >= 80 ? 80 : 0;
}

/** Removes the indentation common to the non-blank lines, and blank lines at both ends. */
export function dedent(text: string): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  while (lines.length && lines[0]!.trim() === '') lines.shift();
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length);
  const common = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => (l.trim() === '' ? '' : l.slice(common).replace(/\s+$/, ''))).join('\n');
}

/** Word wrap as kubectl's (go-wordwrap): at spaces, a word longer than the limit kept whole; 0 = no wrapping. */
export function wordWrap(text: string, limit: number): string[] {
  if (limit <= 0 || text.length <= limit) return [text];
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > limit) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  lines.push(line);
  return lines;
}

/** A command's short description as kubectl prints it: a capital first letter. */
function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function rootOf(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}

/** Subcommands as cobra lists them: hidden ones left out, by name (the root keeps its order: everyday verbs first). */
function visibleCommands(cmd: Command): Command[] {
  const commands = new Help().visibleCommands(cmd).filter((c) => c.name() !== 'help');
  return cmd.parent ? commands.sort((a, b) => compareText(a.name(), b.name())) : commands;
}

function visibleFlags(cmd: Command): Option[] {
  // kubectl hides --help (templates' visibleFlags); pflag lists flags by name.
  return cmd.options.filter((o) => !o.hidden && o.long !== '--help').sort((a, b) => compareText(flagName(a), flagName(b)));
}

function flagName(o: Option): string {
  return (o.long ?? o.short ?? '').replace(/^-+/, '');
}

/**
 * The default pflag would print for the flag: `''` for a string, `[]` for a list, `false` for a
 * switch, numbers and durations bare. `defaultValueDescription` (commander's) says it when the
 * value is decided later (`-w` means true unless `--watch=false`).
 */
export function flagDefault(o: Option): string {
  if (o.defaultValueDescription !== undefined) return o.defaultValueDescription;
  if (!o.required && !o.optional) return o.negate ? 'true' : 'false';
  if (o.variadic || isList(o)) return Array.isArray(o.defaultValue) ? `[${o.defaultValue.join(',')}]` : '[]';
  if (o.defaultValue !== undefined) {
    const value = String(o.defaultValue);
    return /^-?\d+(\.\d+)?[a-z]*$/.test(value) ? value : `'${value}'`;
  }
  if (!o.required) {
    // An optional value: `--watch [bool]` is a switch that also takes =false, `--dry-run [mode]` a string.
    const placeholder = /\[(\w+)\]\s*$/.exec(o.flags)?.[1];
    if (placeholder === 'bool') return 'false';
    if (placeholder === 'mode' || placeholder === 'strategy') return "'none'";
  }
  return "''";
}

/** A repeatable flag: its parser accumulates the values into an array (commands/collect.ts, --until). */
function isList(o: Option): boolean {
  if (!o.parseArg) return false;
  try {
    return Array.isArray(o.parseArg('x', undefined));
  } catch {
    return false;
  }
}

// First words that are values or names, not the start of a sentence: kept as written.
const VERBATIM_FIRST_WORDS = new Set(['none', 'json', 'yaml', 'auto', 'wide', 'stdin', 'cloneset', 'limits', 'requests', 'recreate']);

/** A flag's description as kubectl's read: a capital first letter (unless it opens with a value or name) and a full stop. */
export function flagSentence(text: string): string {
  const t = text.trim();
  if (!t) return t;
  const first = /^([a-z]+) /.exec(t)?.[1];
  const capital = first !== undefined && !VERBATIM_FIRST_WORDS.has(first) ? t.charAt(0).toUpperCase() + t.slice(1) : t;
  return /[.!?:]$/.test(capital) ? capital : `${capital}.`;
}

/** One flag as kubectl's HelpFlagPrinter writes it: `    -f, --filename=[]:` and the description after a tab. */
export function formatFlag(names: string, value: string, description: string, limit: number): string {
  const text = wordWrap(flagSentence(description), limit ? limit - 10 : 0).join('\n\t');
  return `    ${names}=${value}:\n\t${text}`;
}

/** The usage line (cobra's UseLine, then kubectl's usageLine): ` [flags]` when it has flags, ` [options]` always. */
function usageLine(cmd: Command): string {
  let line = commandPath(cmd);
  const isRoot = !cmd.parent;
  if (!isRoot && visibleCommands(cmd).length) line += ' SUBCOMMAND';
  else if (!isRoot) {
    const usage = cmd.usage();
    // commander's own usage ("[options] <shell>") when none was given: kubectl spells arguments in capitals.
    const args = usage.startsWith('[options]')
      ? cmd.registeredArguments.map((a) => {
          const name = `${a.name().toUpperCase()}${a.variadic ? '...' : ''}`;
          return a.required ? name : `[${name}]`;
        })
      : [usage];
    if (args.length) line += ` ${args.join(' ')}`;
  }
  if ((isRoot || visibleFlags(cmd).length) && !line.includes('[flags]')) line += ' [flags]';
  if (!line.includes('[options]')) line += ' [options]';
  return line;
}

function longDescription(cmd: Command, limit: number): string {
  let summary = sentence(cmd.description());
  if (summary && !/[.!?:]$/.test(summary)) summary += '.';
  const notes = cmd instanceof KruiseCommand ? cmd.helpNotes : '';
  return [wordWrap(summary, limit).join('\n'), notes].filter(Boolean).join('\n\n');
}

function availableCommands(commands: Command[], limit: number): string {
  // cobra pads names to the longest (at least 11), then three spaces.
  const pad = Math.max(11, ...commands.map((c) => c.name().length));
  const indent = 2 + pad + 3;
  const rows = commands.map((c) => {
    const short = sentence(c.summary() || c.description());
    const lines = wordWrap(short, limit ? Math.max(limit - indent, 20) : 0);
    return `  ${c.name().padEnd(pad)}   ${lines.join(`\n${' '.repeat(indent)}`)}`;
  });
  return ['Available Commands:', ...rows].join('\n');
}

/** The whole help of `cmd`, in kubectl's section order; `columns` is the terminal's width (0 when not a terminal). */
export function formatHelp(cmd: Command, columns: number): string {
  const limit = wrapLimit(columns);
  const sections: string[] = [longDescription(cmd, limit)];
  const examples = cmd instanceof KruiseCommand ? cmd.helpExamples : '';
  if (examples) sections.push(`Examples:\n${examples.split('\n').map((l) => (l ? `  ${l}` : '')).join('\n')}`);
  const commands = visibleCommands(cmd);
  if (commands.length) sections.push(availableCommands(commands, limit));
  const flags = visibleFlags(cmd);
  if (flags.length) {
    const blocks = flags.map((o) => formatFlag(o.short ? `${o.short}, ${o.long}` : o.long!, flagDefault(o), o.description, limit));
    sections.push(`Options:\n${blocks.join('\n\n')}`);
  }
  sections.push(`Usage:\n  ${usageLine(cmd)}`);
  // A group closes with where to go next (the contract's closing line); a command that runs,
  // with where the global flags are (kubectl's optionsCmdFor).
  sections.push(
    commands.length
      ? `Use "${commandPath(cmd)} <command> --help" for more information about a given command.`
      : `Use "${rootOf(cmd).name()} options" for a list of global command-line options (applies to all commands).`,
  );
  return `${sections.join('\n\n')}\n`;
}
