// bin/kubectl-kruise runs the bundle through V8's code cache and adds to it the functions a
// command compiled, the first time that command succeeds. It learns which command ran from
// this note. Long-running commands (the sandbox) are left out: their code would make every
// other command's start deserialize it.
const KEY = '__kubectlKruiseCommand';
const NOT_CACHED = new Set(['sandbox']);

/** Records the command (e.g. "rollout status") this run executes, for the launcher's cache. */
export function noteCommand(path: string): void {
  if (NOT_CACHED.has(path.split(' ')[0]!)) return;
  (globalThis as Record<string, unknown>)[KEY] = path;
}
