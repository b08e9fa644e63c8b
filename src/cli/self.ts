// How this process was started: the name for help texts, and the command that runs the CLI again.
// Under Node, argv[1] is the launcher's path. A Bun standalone executable puts its embedded
// module's path there (/$bunfs/root/kubectl-kruise, B:\~BUN\root\... on Windows) whatever name it
// was run by; that name is process.argv0, and the file itself is process.execPath.

import { basename } from 'node:path';

const EMBEDDED = /^(?:\/\$bunfs\/|[A-Za-z]:[\\/]~BUN[\\/])/;

/** True in the standalone executable (the code runs from the file system embedded in it). */
export function isStandaloneExecutable(argv: readonly string[] = process.argv): boolean {
  return EMBEDDED.test(argv[1] ?? '');
}

/** The path or name the user ran the CLI by (a symlink's name, kubectl's path to the plugin). */
export function invokedAs(argv: readonly string[] = process.argv, argv0: string = process.argv0): string | undefined {
  return isStandaloneExecutable(argv) ? argv0 : argv[1];
}

/** [file, args] that run this CLI again with `args` (the npm form: Node and the launcher). */
export function selfCommand(args: string[], argv: readonly string[] = process.argv): [string, string[]] {
  return isStandaloneExecutable(argv) ? [process.execPath, args] : [process.execPath, [argv[1]!, ...args]];
}

/** The name help texts use: "kubectl kruise" for kubectl-kruise (run by kubectl or not), else the name run by. */
export function programNameFor(invoked: string | undefined): string {
  const base = basename(invoked ?? 'kubectl-kruise');
  return base.startsWith('kubectl-') ? 'kubectl kruise' : base;
}

/**
 * A long-running command (the sandbox server) asks for the runtime's normal JIT tier-up again. The
 * standalone executable starts with a slower one (scripts/build-exe.mjs --compile-jit-policy), which
 * keeps a short command's peak memory below kubectl's; under Node this does nothing.
 */
export function useFullJit(): void {
  setJitPolicy(1);
}

/**
 * A command that waits on watches of many pods (rollout status following a rollout's pods) puts
 * Bun's JIT tiers out of reach: decoding a 5,000-pod list and re-evaluating hundreds of pods several
 * times a second reached them within seconds even at the start rate, and their compilers cost 6-8 MB
 * of peak memory (an active 5,000-pod gate 62 -> 55 MB), for ~0.1 s more on that list and a few
 * percent of a core while following 1,000 updated pods (bench/rollout-status-memory.mjs). Under
 * Node this does nothing.
 */
export function useWaitingJit(): void {
  setJitPolicy(100_000);
}

function setJitPolicy(scale: number): void {
  const bun = (globalThis as { Bun?: { unsafe?: { setJITPolicy?: (scale: number) => void } } }).Bun;
  bun?.unsafe?.setJITPolicy?.(scale);
}
