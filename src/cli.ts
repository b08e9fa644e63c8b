// Entry point of the bundled CLI: parse kubectl's global flags, build the
// command tree, run one command, and turn every outcome into an exit code.
import { type Command, CommanderError } from 'commander';
import { KruiseCommand } from './cli/help';
import { CliError, ExitCode } from './cli/exit';
import { extractGlobalFlags, GLOBAL_FLAG_HELP, defaultGlobals, type GlobalFlags } from './cli/globals';
import { outputFor, processTerminal } from './cli/terminal';
import { bareOptionalFlagsLast } from './cli/optional-values';
import { invokedAs, programNameFor } from './cli/self';
import type { CommandContext } from './cli/context';
import { COMMAND_GROUPS } from './commands/index';
import { actionResult } from './commands/lazy';
import { noteCommand } from './cli/code-cache';
import type { KubeClient } from './kube/client';

function exitCodesHelp(): string {
  const rows: Array<[number, string]> = [
    [0, 'success / the awaited condition holds'],
    [1, 'failed: API error, not found, forbidden, conflict, rollout failed, object deleted'],
    [2, 'usage or invalid input (nothing was sent to the server)'],
    [3, 'timed out (--timeout elapsed while waiting)'],
    [4, 'not finished yet (--watch=false: still progressing or paused)'],
    [130, 'interrupted (Ctrl-C): what was done is printed; a rerun resumes from the cluster'],
    [143, 'stopped by SIGTERM: as 130'],
  ];
  return ['Exit codes:', ...rows.map(([code, text]) => `  ${String(code).padEnd(3)}  ${text}`)].join('\n');
}

/** The contract's "Kruise Rollout" commands (rollouts.kruise.io), one line each. */
function kruiseRolloutHelp(): string {
  const rows: Array<[string, string]> = [
    ['rollout status rollout/NAME [--until=paused|step=N|complete]', 'wait for a release: 0 reached, 1 cancelled/failed, 4 not yet'],
    ['rollout approve rollout/NAME|TYPE/NAME', 'continue a step waiting for approval (StepPaused → StepReady)'],
    ['rollout pause|resume rollout/NAME', 'pause or resume the release (spec.strategy.paused)'],
    ['rollout undo TYPE/NAME [--fast]', 'roll a workload under a Rollout back to its stable revision'],
    ['rollout jump rollout/NAME --to-step N', 'move the release to step N'],
    ['describe rollout NAME [-w] [-o json|yaml]', 'steps, revisions, traffic, pods by batch; -w follows the release'],
    ['get rollouts [NAME] [-A] [-l SEL] [-o FORMAT]', 'the Rollout table (status, canary step and state, message)'],
    ['rollout history TYPE/NAME', 'also says which revision a Rollout is releasing'],
  ];
  const width = Math.max(...rows.map(([c]) => c.length));
  return ['Kruise Rollout (rollouts.kruise.io):', ...rows.map(([c, d]) => `  ${c.padEnd(width)}  ${d}`)].join('\n');
}

function globalsHelp(): string {
  const width = Math.max(...GLOBAL_FLAG_HELP.map(([f]) => f.length));
  return ['Global flags (kubectl\'s, accepted anywhere):', ...GLOBAL_FLAG_HELP.map(([f, d]) => `  ${f.padEnd(width)}  ${d}`)].join('\n');
}

/**
 * Builds the command tree. With `only` (the first word of the command line), just the group
 * that owns that command is registered (and of it, with `sub`, the second word, possibly just
 * that subcommand); the root help and unknown words get every group's
 * top-level command, completion the whole tree.
 */
export function buildProgram(ctx: CommandContext, only?: string, sub?: string): Command {
  const program = new KruiseCommand(ctx.programName);
  program
    .description('OpenKruise workloads from the command line: rollouts, in-place restarts, image pre-download, PersistentPodState')
    .helpCommand(false)
    .showSuggestionAfterError(true)
    .notes(`${kruiseRolloutHelp()}\n\n${globalsHelp()}\n\n${exitCodesHelp()}`);
  const owner = only && only !== '__complete' ? COMMAND_GROUPS.find((g) => g.names.includes(only)) : undefined;
  if (owner) owner.register(program, ctx, false, sub);
  else for (const group of COMMAND_GROUPS) group.register(program, ctx, only !== '__complete');
  const configure = (cmd: Command): void => {
    cmd.exitOverride();
    // A group named without its subcommand (`kubectl kruise rollout`): its help and exit 1, as kubectl's
    // DefaultSubCommandRun (pkg/cmd/util/helpers.go: help, then ErrExit); `rollout` prints to stdout
    // (pkg/cmd/rollout/rollout.go: streams.Out), the other groups to stderr (pkg/cmd/set/set.go: streams.ErrOut).
    if (cmd.parent && cmd.commands.length > 0) {
      cmd.help = (): never => {
        cmd.outputHelp({ error: cmd.name() !== 'rollout' });
        throw new CommanderError(1, GROUP_HELP, '(outputHelp)');
      };
    }
    // commander suggests a flag from the whole word: `--timout=5s` found nothing; the name alone finds --timeout.
    // (unknownOption is commander's own, not in its typings.)
    const withUnknown = cmd as unknown as { unknownOption(flag: string): never };
    const unknownOption = withUnknown.unknownOption.bind(cmd);
    withUnknown.unknownOption = (flag: string): never => unknownOption(/^--[^=]+=/.test(flag) ? flag.slice(0, flag.indexOf('=')) : flag);
    cmd.configureOutput({
      writeOut: (s) => ctx.term.stdout.write(s),
      writeErr: (s) => ctx.term.stderr.write(s),
      outputError: (s, write) => write(s.startsWith('error: ') ? s : `error: ${s}`),
      // Answered from our terminal, so commander never instantiates process.stdout/stderr
      // (a socket stream for a pipe) just to ask for a width or colours. Help is never coloured,
      // and wrapped only on a terminal, as kubectl's (0: not a terminal).
      getOutHelpWidth: () => ctx.term.columns ?? 0,
      getErrHelpWidth: () => ctx.term.columns ?? 0,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    });
    for (const sub of cmd.commands) configure(sub);
  };
  configure(program);
  return program;
}

/** The CommanderError of a group's help printed for want of a subcommand (exit 1). */
const GROUP_HELP = 'kruise.groupHelp';

/** How long an async interrupt summary may take before the process exits anyway. */
const INTERRUPT_SUMMARY_MS = 5000;

function makeContext(globals: GlobalFlags, argv1: string | undefined): CommandContext {
  const abort = new AbortController();
  let summary: (() => string | Promise<string>) | undefined;
  let kube: Promise<KubeClient> | undefined;
  const ctx: CommandContext = {
    globals,
    term: processTerminal(globals.noColor),
    programName: programNameFor(argv1),
    signal: abort.signal,
    setInterruptSummary: (fn) => {
      summary = fn;
    },
    kube: () => (kube ??= import('./kube/connect').then((m) => m.connect(ctx))),
  };
  // SIGTERM (a pod or CI runner stopping us) ends like Ctrl-C: the same summary, leases released, CI
  // files written; exit 143 instead of 130. A second signal while the summary is written leaves at once.
  let stopping = false;
  const onSignal = (word: string, code: number) => (): void => {
    if (stopping) process.exit(code);
    stopping = true;
    // The summary describes the moment of the interrupt: read it before aborting tears the waits
    // down. An async summary (requests in flight, a lease to release) gets a few seconds at most.
    const finish = (done: string): never => {
      abort.abort();
      outputFor(2).write(`\n${word}${done ? `: ${done}` : ''}\n`);
      process.exit(code);
    };
    let pending: string | Promise<string> = '';
    try {
      pending = summary ? summary() : '';
    } catch {
      /* a summary must never turn an interrupt into a crash */
    }
    if (typeof pending === 'string') finish(pending);
    const bound = new Promise<string>((res) => setTimeout(() => res(''), INTERRUPT_SUMMARY_MS));
    void Promise.race([pending, bound]).then(finish, () => finish(''));
  };
  process.once('SIGINT', onSignal('interrupted', ExitCode.INTERRUPTED));
  process.once('SIGTERM', onSignal('terminated', ExitCode.TERMINATED));
  return ctx;
}

export function reportError(err: unknown, stderr: NodeJS.WritableStream, verbosity: number): number {
  if (err instanceof CliError) {
    stderr.write(`error: ${err.message}\n`);
    if (err.hint) stderr.write(`${err.hint}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  stderr.write(`error: ${message.split('\n')[0]}\n`);
  if (verbosity >= 6 && err instanceof Error && err.stack) stderr.write(`${err.stack}\n`);
  return ExitCode.FAILED;
}

/**
 * Global flags come out first. For `__complete` the last word is the one being typed
 * (possibly a half-written flag), so it is passed through untouched after "--".
 */
function parseArgv(args: string[]): { globals: GlobalFlags; rest: string[] } {
  if (args[0] !== '__complete') return extractGlobalFlags(args);
  const words = args.slice(1);
  const last = words.length ? words[words.length - 1]! : '';
  let parsed: { globals: GlobalFlags; rest: string[] };
  try {
    parsed = extractGlobalFlags(words.slice(0, -1));
  } catch {
    // `-n <TAB>`: the flag waiting for the word being typed stays for the candidates to see,
    // and the flags before it still apply (`-n team-a --context <TAB>`).
    try {
      const flag = words[words.length - 2]!;
      const head = extractGlobalFlags(words.slice(0, -2));
      parsed = { globals: head.globals, rest: [...head.rest, flag] };
    } catch {
      parsed = { globals: defaultGlobals(), rest: words.slice(0, -1) };
    }
  }
  return { globals: parsed.globals, rest: ['__complete', '--', ...parsed.rest.filter((w) => w !== '--'), last] };
}

export async function main(argv: string[]): Promise<number> {
  // A closed pipe (`| head`) is a normal end for a CLI, not a crash. Pipes and files are written
  // through DescriptorWriter (cli/terminal.ts), which handles EPIPE itself; terminals use the
  // process streams.
  for (const stream of [outputFor(1), outputFor(2)].filter((s) => (s as { isTTY?: boolean }).isTTY)) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(0);
    });
  }
  let globals: GlobalFlags = defaultGlobals();
  let usagePath = (): string => '';
  try {
    const parsed = parseArgv(argv.slice(2));
    globals = parsed.globals;
    const ctx = makeContext(globals, invokedAs(argv));
    // `kubectl kruise --version`: the plugin's version, as `version --client` prints it.
    if (parsed.rest.length === 1 && parsed.rest[0] === '--version') parsed.rest.splice(0, 1, 'version', '--client');
    const program = buildProgram(ctx, parsed.rest[0], parsed.rest[1]);
    usagePath = (): string => commandPath(program, parsed.rest);
    if (parsed.rest.length === 0) {
      noteCommand('help');
      program.outputHelp();
      return ExitCode.OK;
    }
    await program.parseAsync(bareOptionalFlagsLast(program, parsed.rest), { from: 'user' });
    return actionResult.code;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === GROUP_HELP) return ExitCode.FAILED;
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') {
        noteCommand('help');
        return ExitCode.OK;
      }
      outputFor(2).write(`See '${[programNameFor(invokedAs(argv)), usagePath()].filter(Boolean).join(' ')} --help' for usage.\n`);
      return ExitCode.USAGE;
    }
    return reportError(err, outputFor(2), globals.verbosity);
  }
}

/** The words of the deepest command the line names (`rollout status`), for the help a usage error points at. */
function commandPath(program: Command, words: readonly string[]): string {
  const path: string[] = [];
  let cmd = program;
  for (const word of words) {
    if (word === '--') break;
    if (word.startsWith('-')) continue;
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) break;
    path.push(sub.name());
    cmd = sub;
  }
  return path.join(' ');
}

// Exit explicitly: keep-alive sockets or a leftover timer must not hold a finished command open.
main(process.argv).then(
  (code) => process.exit(code),
  (err) => process.exit(reportError(err, outputFor(2), 0)),
);
