// What a simulated container prints: a start line, the lines its SANDBOX_LOG env var asks for, a
// line when it is ready, and how it ended, worded so that an operator reading the last lines of a
// failed container sees why (`error: ...`, `exit code 1`). Deterministic: the texts depend on the
// container and its image only (its timestamps are the kubelet's).
import type { Container } from '../../kruise/types';

/** The env var whose literal value a container prints at start, one line per line. */
export const SANDBOX_LOG_ENV = 'SANDBOX_LOG';

/**
 * The lines of the container's SANDBOX_LOG `value`. Only a literal value counts: `valueFrom` is never
 * read (a Secret's value must not reach a log) and `$(VAR)` references stay as written.
 */
export function sandboxLogLines(container: Pick<Container, 'env'>): string[] {
  const entry = container.env?.find((e) => e.name === SANDBOX_LOG_ENV);
  if (typeof entry?.value !== 'string' || entry.value === '') return [];
  const lines = entry.value.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function startLines(container: Pick<Container, 'name' | 'env'>, image: string, restartCount: number): string[] {
  return [`[sandbox] starting ${image} (container ${container.name}, restart ${restartCount})`, ...sandboxLogLines(container)];
}

export const READY_LINE = '[sandbox] ready';

export const STOPPING_LINE = '[sandbox] received SIGTERM, shutting down';

/**
 * The last lines of an instance: stopped by the kubelet (`killed`: an in-place update, a restart
 * request, the pod's deletion), or exited by itself with `code` as its image tag says (`crashloop`,
 * `exit-N`, or done).
 */
export function exitLines(image: string, code: number, cause: 'killed' | 'crashloop' | 'exited'): string[] {
  if (cause === 'killed') return [STOPPING_LINE, `[sandbox] exit code ${code}`];
  if (code === 0) return ['[sandbox] work done', '[sandbox] exit code 0'];
  const why = cause === 'crashloop' ? 'crashed (image tag :crashloop)' : `failed (image tag :exit-${code})`;
  return [`[sandbox] error: ${image} ${why}`, `[sandbox] exit code ${code}`];
}
