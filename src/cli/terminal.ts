// Where output goes and whether it may be decorated. Colour and spinners only on
// a TTY, never with NO_COLOR, --no-color, CI=true or TERM=dumb (contract "Output").
// node:fs through getBuiltinModule: the ESM facade of a built-in reads every export, which for
// fs means loading its stream and promise layers on every start.
const { fstatSync, writeSync } = process.getBuiltinModule('node:fs');

/** Major device number of /dev/null, /dev/zero and the other Linux memory devices. */
const LINUX_MEM_MAJOR = 1;

/** Major number of a Linux dev_t (glibc's gnu_dev_major). */
export function linuxMajor(rdev: number): number {
  return (Math.floor(rdev / 2 ** 8) & 0xfff) | (Math.floor(rdev / 2 ** 32) & ~0xfff);
}

/**
 * Whether a descriptor is a terminal. node:tty loads the whole net/stream stack, so ask fstat
 * first: only a character device can be a terminal (pipes and files, what scripts use, stop here).
 */
export function isTerminal(fd: number): boolean {
  try {
    const st = fstatSync(fd);
    if (!st.isCharacterDevice()) return false;
    // `>/dev/null` is a character device too; on Linux the memory devices (null, zero, full,
    // random) are major 1, never a terminal, so scripts that discard output skip node:tty as well.
    if (process.platform === 'linux' && linuxMajor(st.rdev) === LINUX_MEM_MAJOR) return false;
  } catch {
    return false;
  }
  return process.getBuiltinModule('node:tty').isatty(fd);
}

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

/**
 * Output to a pipe or file written straight to its descriptor. Creating process.stdout for a
 * pipe builds a socket stream (a few ms of every start, where scripts capture the output), and
 * synchronous writes also mean nothing is lost when the command exits right after printing.
 * A reader that went away (`| head`) ends the command quietly, like SIGPIPE would.
 */
export class DescriptorWriter {
  readonly isTTY = false;
  constructor(private readonly fd: number) {}

  write(chunk: string | Uint8Array, ...rest: unknown[]): boolean {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let offset = 0;
    while (offset < buf.length) {
      try {
        offset += writeSync(this.fd, buf, offset);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); // non-blocking pipe is full: wait for the reader
          continue;
        }
        if (code === 'EPIPE') process.exit(0);
        throw err;
      }
    }
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }

  // Enough of the stream surface for code that listens or ends; a descriptor needs neither.
  on(): this {
    return this;
  }
  once(): this {
    return this;
  }
  end(): this {
    return this;
  }
}

const outputs: Partial<Record<1 | 2, NodeJS.WritableStream>> = {};

/** The process's stdout (1) or stderr (2): the process stream on a terminal, else a DescriptorWriter. */
export function outputFor(fd: 1 | 2): NodeJS.WritableStream {
  outputs[fd] ??= isTerminal(fd) ? (fd === 1 ? process.stdout : process.stderr) : (new DescriptorWriter(fd) as unknown as NodeJS.WritableStream);
  return outputs[fd]!;
}

export function processTerminal(noColorFlag: boolean): Terminal {
  const stdout = outputFor(1);
  const stderr = outputFor(2);
  return {
    stdout,
    stderr,
    // outputFor already asked whether stderr is a terminal: it is the process stream exactly then.
    decorate: decorationAllowed(process.env, (stderr as { isTTY?: boolean }).isTTY === true, noColorFlag),
    columns: (stdout as { columns?: number }).columns,
    env: process.env,
  };
}
