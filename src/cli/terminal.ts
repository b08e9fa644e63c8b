// Where output goes and whether it may be decorated. Colour and spinners only on
// a TTY, never with NO_COLOR, --no-color, CI=true or TERM=dumb (contract "Output").

export interface Terminal {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** stderr is an interactive terminal and decoration is allowed. */
  decorate: boolean;
  /** Width of stdout when it is a terminal, else undefined. */
  columns?: number;
  env: NodeJS.ProcessEnv;
}

export function decorationAllowed(env: NodeJS.ProcessEnv, isTTY: boolean, noColorFlag: boolean): boolean {
  if (!isTTY || noColorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.CI === 'true' || env.CI === '1') return false;
  if (env.TERM === 'dumb') return false;
  return true;
}

export function processTerminal(noColorFlag: boolean): Terminal {
  const stderrTTY = Boolean((process.stderr as { isTTY?: boolean }).isTTY);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    decorate: decorationAllowed(process.env, stderrTTY, noColorFlag),
    columns: (process.stdout as { columns?: number }).columns,
    env: process.env,
  };
}
