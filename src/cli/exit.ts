// The exit-code contract (README "Exit codes"), enforced in one place: every
// failure reaches the top level as a CliError carrying its code.

export const ExitCode = {
  OK: 0,
  /** API error, not found, forbidden, conflict after retries, rollout failed, object deleted. */
  FAILED: 1,
  /** Usage or invalid input, detected before anything is sent to the server. */
  USAGE: 2,
  /** --timeout elapsed while waiting. */
  TIMEOUT: 3,
  /** --watch=false and the rollout is still progressing or paused. */
  NOT_FINISHED: 4,
  /** Interrupted by SIGINT. */
  INTERRUPTED: 130,
  /** Stopped by SIGTERM (128 + 15, as a shell reports it), after the same summary as SIGINT. */
  TERMINATED: 143,
} as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.FAILED,
    /** Optional second line, printed as-is after the error line. */
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The exit code an error stands for: its own (CliError, API errors), else 1. */
export function exitCodeOf(err: unknown): number {
  return err instanceof Error && 'exitCode' in err ? Number((err as { exitCode: number }).exitCode) : ExitCode.FAILED;
}

/** Invalid input found before any request: exit 2. */
export function usageError(message: string, hint?: string): CliError {
  return new CliError(message, ExitCode.USAGE, hint);
}

/** Failure after talking to the server (or a rule the server enforces): exit 1. */
export function failure(message: string, hint?: string): CliError {
  return new CliError(message, ExitCode.FAILED, hint);
}
