// The words of `exec`, checked before any request, as kubectl's exec.go Complete/Validate reads them:
// exactly one POD (or TYPE/NAME) before `--`, the command after it.
import type { Command } from 'commander';
import { usageError } from '../../cli/exit';
import { dns1123LabelProblem, dns1123SubdomainProblem } from '../../kruise/names';

export interface ExecArgs {
  /** "pod" for a bare name or pod/NAME (po, pods); else the TYPE of TYPE/NAME. */
  type: string;
  name: string;
  command: string[];
}

const POD_TYPES = new Set(['pod', 'pods', 'po']);

/** How many of the command's operands came before `--` (cobra's ArgsLenAtDash; -1 without `--`). */
export function argsLenAtDash(command: Command): number {
  let root: Command = command;
  while (root.parent) root = root.parent;
  const raw = (root as unknown as { rawArgs?: string[] }).rawArgs ?? [];
  const dash = raw.indexOf('--');
  if (dash === -1) return -1;
  return Math.max(0, command.args.length - (raw.length - dash - 1));
}

/** `words` are the operands, `atDash` how many precede `--`; `sidecar` shapes the hints. */
export function parseExecArgs(words: readonly string[], atDash: number, opts: { sidecar: boolean; container?: string }): ExecArgs {
  const before = atDash === -1 ? words.slice(0, 1) : words.slice(0, atDash);
  const command = atDash === -1 ? words.slice(1) : words.slice(atDash);
  if (atDash === -1 && words.length > 1) throw usageError('exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead');
  if (before.length === 0) throw usageError('pod or type/name must be specified', 'hint: exec POD -- COMMAND [ARGS...]');
  if (before.length > 1) {
    const kruiseTools = opts.sidecar && !opts.container;
    throw usageError(
      `exec takes one pod before "--", got ${before.length}: ${before.join(' ')}`,
      kruiseTools ? `hint: the sidecar is named with -c: exec -S ${before[0]} -c ${before[1]} -- ... (kruise-tools spelled it -S ${before[1]})` : undefined,
    );
  }
  if (command.length === 0) throw usageError('you must specify at least one command for the container', 'hint: exec POD -- COMMAND [ARGS...]');
  const ref = before[0]!;
  const slash = ref.indexOf('/');
  const type = slash === -1 ? 'pod' : ref.slice(0, slash);
  const name = slash === -1 ? ref : ref.slice(slash + 1);
  if (type === '' || !/^[a-z][a-z0-9.-]*$/i.test(type)) throw usageError(`invalid resource "${ref}": expected POD or TYPE/NAME`);
  const problem = name === '' ? 'must not be empty' : dns1123SubdomainProblem(name);
  if (problem) throw usageError(`invalid ${POD_TYPES.has(type) ? 'pod' : type} name "${name.length > 80 ? `${name.slice(0, 80)}...` : name}": ${problem}`);
  if (opts.container !== undefined) {
    const cproblem = opts.container === '' ? 'must not be empty' : dns1123LabelProblem(opts.container);
    if (cproblem) throw usageError(`invalid container name "${opts.container}": ${cproblem}`);
  }
  return { type: POD_TYPES.has(type) ? 'pod' : type, name, command: [...command] };
}

/**
 * kubectl's SetupTTY: a TTY needs stdin (else silently none), and stdin must be a terminal (else none,
 * with kubectl's warning unless -q); only then raw mode.
 */
export function ttySetup(flags: { stdin?: boolean; tty?: boolean; quiet?: boolean }, stdinIsTerminal: boolean): { stdin: boolean; raw: boolean; warning?: string } {
  const stdin = flags.stdin === true;
  if (!stdin || !flags.tty) return { stdin, raw: false };
  if (!stdinIsTerminal) return { stdin, raw: false, warning: flags.quiet ? undefined : 'Unable to use a TTY - input is not a terminal or the right kind of file' };
  return { stdin, raw: true };
}
